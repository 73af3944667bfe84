// The tensor engine: runs any ComputeGraph for a batch of lanes on LibTorch, with autograd gradients.
//
// It is the paper-faithful runtime (DESIGN.md, Engines): lanes are grouped by
// control path; what is the same in every lane of a group (tags, heap
// addresses, symbols, closures) is held once, and only numbers that differ per
// lane are torch tensors of shape [B] ([B, rows, cols] for tensor values).
// When lanes disagree at a branch, the group splits and both halves carry on;
// results and gradients are assembled in lane order at the end. It runs on
// "cpu" or "cuda" in float64 (default) or float32. This header holds no
// LibTorch types, so any file may include it cheaply.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "driver/Lanes.h"  // LaneBatch, makeLanes
#include "driver/Program.h"

namespace dmci {

struct TensorOptions {
  Route route = Route::Direct;
  bool gradient = true;
  std::vector<std::string> wrt;  // parameter names to differentiate
  bool wrtLiterals = false;      // also every numeric literal (a [B] leaf each)
  std::string device = "cpu";    // "cpu" or "cuda"
  bool float32 = false;          // float32 lanes instead of float64
  Budget budget;
  // The evaluator's graph for the dmci route; null: the one embedded at build time.
  std::shared_ptr<const ComputeGraph> evaluator;
  int threads = 0;  // the native engine's lanes: threads (0: one per hardware thread)
};

// What a batch run cost: counts that do not drift with the machine.
struct TensorStats {
  uint64_t groups = 0;     // lane groups created (1 + one per split-off part)
  uint64_t splits = 0;     // times a group split because its lanes disagreed
  uint64_t maxGroups = 0;  // most groups alive at once
  uint64_t syncs = 0;      // host reads of lane data (.item()-style) that control flow needed
  uint64_t torchOps = 0;   // primitive applications run as torch operations
  uint64_t laneLoops = 0;  // primitive applications run lane by lane (no torch rule applied)
  uint64_t steps = 0;      // instructions executed, summed over groups
};

struct BatchEvaluation {
  std::vector<double> value;  // per lane (a tensor value: the sum of its entries)
  // When every lane's value is a tensor of one shape: that shape, and the entries lane after lane.
  bool isTensor = false;
  int rank = 0, rows = 0, cols = 0;
  std::vector<double> tensor;  // [lane][row-major entry]
  // The gradient by key, lane after lane: keys exactly as Evaluation::gradient's (wrt names in
  // order, then literals in source order); gradient[k][lane]. Held by key, not by lane, so a
  // batch of 65,536 lanes costs a few vectors rather than 65,536 small ones.
  std::vector<std::string> gradientKeys;
  std::vector<std::vector<double>> gradient;
  TensorStats stats;
  // The native engine's lanes: threads used, wall time, and time summed over threads
  // (parallel efficiency = busySeconds / (threads * seconds)).
  int threads = 1;
  double seconds = 0, busySeconds = 0;
  // One lane's gradient, as Evaluation::gradient holds it.
  std::vector<std::pair<std::string, double>> laneGradient(size_t lane) const {
    std::vector<std::pair<std::string, double>> out;
    for (size_t k = 0; k < gradientKeys.size(); ++k) out.emplace_back(gradientKeys[k], gradient[k][lane]);
    return out;
  }
};

// A program prepared once for batches with one set of parameter names (like Evaluator).
class BatchEvaluator {
 public:
  BatchEvaluator(const Program& p, std::vector<std::string> params, TensorOptions opts);
  ~BatchEvaluator();
  BatchEvaluator(const BatchEvaluator&) = delete;
  BatchEvaluator& operator=(const BatchEvaluator&) = delete;
  // values[param][lane]; `lanes` is used only when there are no parameters.
  Result<BatchEvaluation> run(const std::vector<std::vector<double>>& values, int64_t lanes = 1);
  // Each lane's value in the canonical 14-number layout (any kind of value), built as a [B,14] tensor.
  Result<std::vector<std::array<double, 14>>> layout14(const std::vector<std::vector<double>>& values,
                                                       int64_t lanes = 1);
  const Error* setupError() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The native engine's options for the same run (route, gradient, wrt, literals, budget, evaluator), and back.
EvalOptions nativeOptions(const TensorOptions& opts);
TensorOptions tensorOptions(const EvalOptions& opts, const std::string& device = "cpu", bool float32 = false);

// Runs once (preparing on every call; use BatchEvaluator to repeat).
Result<BatchEvaluation> evaluateBatch(const Program& p, const LaneBatch& batch, const TensorOptions& opts);
// The native engine's counterpart: Evaluator::run lane by lane (for comparison and as a reference).
Result<BatchEvaluation> evaluateBatchNative(const Program& p, const LaneBatch& batch, const TensorOptions& opts);
// One evaluation (one lane) on the tensor engine with the native engine's interface and checks:
// what `dmci run/grad --engine tensor` and the gate call in place of Program::evaluate.
Result<Evaluation> evaluateOnTensorEngine(const Program& p, const std::vector<SeedValue>& seed,
                                          const EvalOptions& opts, const std::string& device = "cpu",
                                          bool float32 = false);
// True when LibTorch can run on the device ("cpu" always; "cuda" when a GPU is present).
bool tensorDeviceAvailable(const std::string& device);
// The device's memory bandwidth in bytes/s, as STREAM's triad measures it: c = a + 3b over `elements`
// numbers (best of `repeats` runs after a warm-up; 3 * elements * size bytes a run), by LibTorch on the
// device and, on the CPU, also by a plain loop over every hardware thread (the better of the two). The
// roofline that batch throughput is reported against (PERF.md P9).
double deviceBandwidth(const std::string& device, bool float32, int64_t elements, int repeats = 5);
// LibTorch's CPU threads per operation (the gate, running pairs in parallel, wants 1).
void setTensorEngineThreads(int threads);

}  // namespace dmci
