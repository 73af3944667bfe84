// What a run is asked to do, for every engine: the route, what to differentiate, the budgets, and the settings
// of the engines that have any (nested, not copied: an engine reads its own part and ignores the others).
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lower/ComputeGraph.h"
#include "runtime/Runtime.h"  // Budget

namespace dmci {

// lantern, lantern-dmci: the program's gradient by lantern.scm's continuation-based reverse mode (no tape),
// run directly or through mce.scm (lantern/Lantern.h).
enum class Route { Direct, Dmci, Dmci2, Lantern, LanternDmci };
const char* routeName(Route r);
// "direct", "dmci", "dmci2", "lantern" or "lantern-dmci"; nullopt for anything else.
std::optional<Route> parseRoute(const std::string& name);
// Runs through mce.scm: the program is data.
inline bool interpreted(Route r) { return r == Route::Dmci || r == Route::Dmci2 || r == Route::LanternDmci; }
// The gradient comes from lantern.scm, not from an engine's tape.
inline bool byLantern(Route r) { return r == Route::Lantern || r == Route::LanternDmci; }

// One seed binding: a free variable of the program and its value.
struct SeedValue {
  std::string name;
  double value;
};

// The tensor engine's own settings.
struct TensorSettings {
  std::string device = "cpu";  // "cpu" or "cuda"
  bool float32 = false;        // float32 lanes instead of float64
  // Replay recorded traces as whole-batch tensor ops (engines/tensor/TraceReplay.h) instead of interpreting.
  bool replay = false;
};

struct EvalOptions {
  Route route = Route::Direct;
  bool gradient = true;
  std::vector<std::string> wrt;  // parameter names to differentiate
  bool wrtLiterals = false;      // also every numeric literal
  // The value may be any value (a list, a symbol...: `dmci run` prints it) when no gradient is asked for; else
  // it must be a number or a tensor. A batch of lanes always needs numbers or tensors.
  bool anyValue = false;
  Budget budget;
  // Heap cells a run allocates between collections (0: never collect; tests make it tiny). Native engine.
  size_t collectAfter = size_t{1} << 20;
  // The evaluator's graph for the dmci routes; null: the one embedded at build time.
  std::shared_ptr<const ComputeGraph> evaluator;
  // Threads one evaluation of many lanes may use (0: one per hardware thread): the native engine's lane
  // threads, the tensor engine's LibTorch threads.
  int threads = 0;
  // Every parameter a tape leaf, differentiated or not, and taping on even without a gradient: how the replay
  // engine's recorder runs the native machine, so that a trace sees what depends on each parameter.
  bool leafParameters = false;
  TensorSettings tensor;
};

}  // namespace dmci
