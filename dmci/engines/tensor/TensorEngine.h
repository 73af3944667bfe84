// The tensor engine: runs any ComputeGraph for a batch of lanes on LibTorch, with autograd gradients.
//
// It is the paper-faithful runtime (DESIGN.md, Engines): lanes are grouped by
// control path; what is the same in every lane of a group (tags, heap
// addresses, symbols, closures) is held once, and only numbers that differ per
// lane are torch tensors of shape [B] ([B, rows, cols] for tensor values).
// When lanes disagree at a branch, the group splits and both halves carry on;
// results and gradients are assembled in lane order at the end. It runs on
// "cpu" or "cuda" in float64 (default) or float32 (EvalOptions::tensor).
//
// Everyone else reaches it through the engine seam (driver/Engine.h) as engineNamed("tensor"): it registers
// itself there, and the dmci tool opens it as a plugin (dmci-engine-tensor.so) only when it is asked for. This
// header is for what is particular to it (the 14-number layout of every lane, devices, bandwidth); it holds no
// LibTorch types, so any file may include it cheaply.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "driver/Engine.h"

namespace dmci {

// A prepared program on the tensor engine (what engineNamed("tensor")->prepare returns), with the layout view.
class BatchEvaluator final : public PreparedRun {
 public:
  BatchEvaluator(const PreparedProgram& p, EvalOptions opts);
  ~BatchEvaluator() override;
  BatchEvaluator(const BatchEvaluator&) = delete;
  BatchEvaluator& operator=(const BatchEvaluator&) = delete;
  Result<Evaluation> run(const std::vector<double>& values) override;
  // values[param][lane]; `lanes` is used only when there are no parameters.
  Result<LaneEvaluation> runLanes(const std::vector<std::vector<double>>& values, int64_t lanes) override;
  // Each lane's value in the canonical 14-number layout (any kind of value), built as a [B,14] tensor.
  Result<std::vector<std::array<double, 14>>> layout14(const std::vector<std::vector<double>>& values,
                                                       int64_t lanes = 1);
  const Error* setupError() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// True when LibTorch can run on the device ("cpu" always; "cuda" when a GPU is present).
bool tensorDeviceAvailable(const std::string& device);

}  // namespace dmci
