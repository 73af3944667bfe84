// The one seam between the pipeline and the engines that run it.
//
// An Engine prepares a program once (PreparedProgram: linked, lowered or handed to the evaluator) for one set
// of parameter names, and the prepared run is then evaluated for one seed or for B lanes at a time. The
// CLI, the gate, fuzzing, fitting and the benches see engines only through this interface, and find them by
// name in a registry. An engine that needs a heavy library (the tensor engine's LibTorch) lives in a plugin,
// `dmci-engine-NAME.so`, which the registry opens the first time the engine is asked for: found beside the
// running executable, in ../lib/dmci/ from it (an installed tree), or in a folder of $DMCI_ENGINE_PATH. A
// plugin registers its engines from a static initialiser; an engine linked into a program registers the
// same way, and then no plugin is opened.
//
// Adding an engine: a folder under engines/ with a class derived from Engine and a static `EngineRegistration`;
// then either an anchor symbol named in CMake's DMCI_ENGINE_ANCHORS (linked in) or one line in the CMake list
// of plugins. The driver names no engine: engines sit above it and register themselves.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/Evaluation.h"
#include "driver/LaneInput.h"
#include "driver/Options.h"
#include "driver/Prepare.h"

namespace dmci {

class Program;

// B lanes in the caller's own memory (runLanesIn): an engine that reads and writes strided arrays itself copies
// nothing. Parameter k of lane l is param[k][l * paramStride] (the engine's columns: stride 1; a row-major B x p
// matrix: param[k] = base + k, stride p). Lane l's value goes to value[l], and its gradient entry k (the gradient
// keys' order: opts.wrt's) to gradient[k][l * gradientStride]; with no gradient pointers none is written.
struct LaneArrays {
  int64_t lanes = 0;
  std::vector<const double*> param;
  size_t paramStride = 1;
  double* value = nullptr;
  std::vector<double*> gradient;
  size_t gradientStride = 1;
  // Out: whether every lane's value was a tensor (value[l] is then its entries' sum), and the engine's counts.
  bool isTensor = false;
  Counters counters;
};

// A program prepared on one engine for one set of parameter names; evaluated as often as wanted.
class PreparedRun {
 public:
  virtual ~PreparedRun() = default;
  // One seed: a value per parameter, in the prepared order.
  virtual Result<Evaluation> run(const std::vector<double>& values) = 0;
  // B lanes: values[param][lane]; with no parameters, `lanes` gives B. The first failing lane's error is the
  // batch's.
  virtual Result<LaneEvaluation> runLanes(const std::vector<std::vector<double>>& values, int64_t lanes) = 0;
  // runLanes into a batch the caller keeps between calls (a fit's loop, a bench): an engine that overrides it
  // reuses `out`'s vectors where their sizes fit and writes every lane, so a warm loop neither allocates nor
  // zero-fills per batch. `out` is whole on success and unspecified on error. The default moves runLanes in.
  virtual std::optional<Error> runLanesInto(const std::vector<std::vector<double>>& values, int64_t lanes,
                                            LaneEvaluation& out) {
    auto r = runLanes(values, lanes);
    if (!r) return r.error();
    out = std::move(*r);
    return std::nullopt;
  }
  // B lanes from and into the caller's arrays. The first failing lane's error is the batch's; the arrays are then
  // unspecified. The default gathers the parameters into columns, runs runLanesInto and scatters the results
  // (the replay and compiled engines read and write the arrays in place).
  virtual std::optional<Error> runLanesIn(LaneArrays& a);

 private:
  std::vector<std::vector<double>> columns_;  // runLanesIn's default: the gathered parameters, kept between calls
  LaneEvaluation batch_;                      // and its batch
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;
  // Why these options cannot run here (a device this machine lacks, a setting the engine does not have), or
  // nullopt.
  virtual std::optional<std::string> unsupported(const EvalOptions& opts) const = 0;
  // Builds the engine's state for a prepared program.
  virtual Result<std::unique_ptr<PreparedRun>> prepare(const PreparedProgram& p, const EvalOptions& opts) = 0;

  // Prepares and runs once, with the seed's checks (every name bound once, every wrt name bound).
  Result<Evaluation> evaluate(const Program& p, const std::vector<SeedValue>& seed, const EvalOptions& opts);
  // Prepares and runs a batch once, with the lane checks (checkLaneBatch).
  Result<LaneEvaluation> evaluateLanes(const Program& p, const LaneBatch& batch, const EvalOptions& opts);
  // Prepares a program for repeated runs (the pipeline's set-up, then the engine's).
  Result<std::unique_ptr<PreparedRun>> prepare(const Program& p, const std::vector<std::string>& params,
                                               const EvalOptions& opts);
};

// A prepared run whose constructor may have failed (it reports setupError()): the run, or that error.
template <class Run>
Result<std::unique_ptr<PreparedRun>> preparedOrError(std::unique_ptr<Run> run) {
  if (const Error* e = run->setupError()) return *e;
  return std::unique_ptr<PreparedRun>(std::move(run));
}

// Threads for a batch of lanes: opts.threads, or one per hardware thread (counted once per process: asking the
// system costs microseconds, more than a small batch).
int laneThreads(const EvalOptions& opts);

// The engine called `name`: registered already, or registered by its plugin, opened now. Errors say which
// engines there are and where a plugin was looked for.
Result<Engine*> engineNamed(const std::string& name);
// The native engine (engines/native, always linked in).
Engine& nativeEngine();
// The names of the engines registered or known as plugins, in the registry's order.
std::vector<std::string> engineNames();

// Registers an engine under its name (a later registration of the same name replaces it). Engines live as
// long as the process.
// `rank` orders `engineNames` (lower first; ties in registration order), so that the list does not depend on
// the order in which static initialisers happen to run.
void registerEngine(const std::string& name, std::function<std::unique_ptr<Engine>()> make, int rank = 100);
// Registration from a static initialiser, in the engine's own file (engines/<name>/):
// `const EngineRegistration kRegistration("name", [] { return ...; }, rank);`, with an anchor symbol that CMake
// asks for by name (DMCI_ENGINE_ANCHORS), so that linking the core as a static library keeps the object.
struct EngineRegistration {
  EngineRegistration(const std::string& name, std::function<std::unique_ptr<Engine>()> make, int rank = 100) {
    registerEngine(name, std::move(make), rank);
  }
};

}  // namespace dmci
