// The native engine's prepared program: the register machine (machine/Machine.h) with its tape, set up once
// for one set of parameter names and run for one seed at a time. The native engine runs lanes on one of these
// per thread; the replay engine records its traces with one (record), and the tensor engine falls back to one.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "driver/Evaluation.h"
#include "driver/Options.h"
#include "driver/Prepare.h"
#include "driver/Program.h"
#include "machine/Machine.h"
#include "trace/Trace.h"

namespace dmci {

// The native engine's prepared program, for repeated evaluation with one set of parameter names.
// Set-up happens once: the direct route builds the program's constants; the
// dmci routes build the program as data and let mce.scm analyse it. Each run
// then frees only what the run itself built.
class Evaluator {
 public:
  Evaluator(const PreparedProgram& p, EvalOptions opts);
  // Prepares `p` first (prepareProgram), for these parameter names.
  Evaluator(const Program& p, std::vector<std::string> params, EvalOptions opts);
  Result<Evaluation> run(const std::vector<double>& values);
  // Runs once and records the run's trace (trace/Trace.h). Needs EvalOptions::leafParameters. With
  // `nativeGradient` false the native reverse sweep is left out when the trace came out replayable (the caller
  // replays the trace for the gradient: recording then costs a forward run); the result has no gradient then.
  Result<Evaluation> record(const std::vector<double>& values, replay::Trace& trace, bool nativeGradient = true);
  // The gradient's keys in Evaluation::gradient's order, each with the tape leaves whose adjoints it sums (a
  // wrt name: its parameter's leaf, or none; a literal key: every literal at that position). After one run.
  std::vector<std::pair<std::string, std::vector<int32_t>>> gradientLeaves() const;
  // The gradient's keys in Evaluation::gradient's order, by every route, known once prepared (before any run).
  std::vector<std::string> gradientKeys() const;
  const Error* setupError() const { return setup_ ? nullptr : &setupErr_; }
  size_t parameterCount() const { return params_.size(); }
  SrcPos valuePos() const { return valuePos_; }

 private:
  EvalOptions opts_;
  std::vector<std::string> params_;
  std::vector<int32_t> paramSlots_;            // tape slot of each parameter, -1 when not differentiated
  std::vector<int32_t> wrtSlots_;              // tape slot of each opts_.wrt name, in that order
  std::shared_ptr<const ComputeGraph> graph_;  // direct: the program's; dmci: mce.scm's
  Runtime rt_;
  std::unique_ptr<Machine> machine_;
  Value analysed_;                 // dmci: the evaluator's analysis of the program, a procedure
  std::vector<Literal> literals_;  // dmci: the program's literals, as leaves
  Runtime::Mark mark_{};           // what survives between evaluations
  SrcPos valuePos_;                // the expression giving the program's value
  bool setup_ = false;
  Error setupErr_;
  // Reused by every run, so that a run allocates little beyond its result.
  std::vector<Value> params_scratch_, args_scratch_;
  std::vector<double> adj_;
  // The literals' gradient keys in source order, each with the literals at that position (positions do not
  // change between runs, so this is computed once).
  std::vector<std::pair<std::string, std::vector<size_t>>> literalKeys_;
  bool literalKeysReady_ = false;
  TraceSink* recorder_ = nullptr;        // set by record()
  bool skipReplayableGradient_ = false;  // set by record(..., false)

  std::vector<SrcPos> lanternLiterals_;  // lantern routes: the literal leaves' positions, in the result's order

  void prepare(const PreparedProgram& p);
  Evaluation finish(const Value& out, const std::vector<Literal>& literals);
  Evaluation finishLantern(const Value& out);
};

}  // namespace dmci
