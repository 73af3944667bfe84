// A trace emitted as C++ (engines/replay/EmitCpp.h), built by the system's C++ compiler at -O3 (-O1 past
// kMaxLinesAtO3 lines) and loaded: the compiled engine's kernel. Builds are cached by the content hash of the code and
// the compiler command, in the user's cache folder ($DMCI_CACHE_DIR, else $XDG_CACHE_HOME/dmci/compiled, else
// ~/.cache/dmci/compiled), never in the source tree. The cache is the user's alone: the folder is made with mode 0700,
// and a library is loaded only when the folder and the file belong to this user and nobody else can write them (else an
// error says which). Each entry ends with a record of the code it was built from and a hash of its bytes: an entry of
// other code or with damaged bytes is rebuilt, never loaded. A build is written under a temporary name, loaded from
// there and renamed into place, so two processes building one entry each end with a whole library. The compiler runs
// without a shell, in a process group of its own that a SIGTERM or SIGINT of dmci kills; a temporary file left by a
// killed build is removed by a later build (and never loaded).
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "engines/replay/EmitCpp.h"

namespace dmci::replay {

// GCC's -O3 (and -O2) passes grow far faster than the code on long straight-line traces with many guards: the
// deep-recursion corpus's 3,001-step trace (25,119 lines) held cc1plus at -O3 past 10 GB within two minutes (and
// -O2 past 4 GB), while -O1 builds it in 13 s and 350 MB, and the longest trace the emitter writes
// (kMaxEmittedSteps: 3,961 steps, 35,756 lines) in 7 s and 260 MB. Traces up to this many lines (about 800 steps)
// build at -O3 (a 9,116-line trace in 2 s); longer ones at -O1. Both give the same numbers (-ffp-contract=off,
// no fast-math): only the speed of the code differs.
inline constexpr size_t kMaxLinesAtO3 = 10000;
// The optimisation flag a trace's code is built with: "-O3" or "-O1".
const char* optimisationFor(const std::string& code);

// The Eigen include directory this build was configured with (CMake's Eigen3::Eigen), passed to the compiler
// for traces with tensor steps; "" when the build did not say.
const char* eigenIncludeDir();

class CompiledTrace {
 public:
  using Fn = int (*)(const double* params, double* value, double* gradient);
  using LanesFn = void (*)(long n, const double* const* params, double* value, double* const* gradient,
                           unsigned char* ok);
  // Builds (or finds in the cache) and loads emitted code (emitCpp) defining `function` and `function`_lanes.
  // Errors: no compiler, the build failed (with the compiler's message), the library cannot be loaded.
  static Result<std::unique_ptr<CompiledTrace>> build(const std::string& code, const std::string& function);
  ~CompiledTrace();
  // 0: value and gradient written; 1: the path changed.
  int operator()(const double* params, double* value, double* gradient) const { return fn_(params, value, gradient); }
  // n lanes: params[p][lane], value[lane], gradient[key][lane] (null: value only), ok[lane] (1: on the path; else the
  // first guard failed, as engines/replay/Replay.h codes it).
  void lanes(long n, const double* const* params, double* value, double* const* gradient, unsigned char* ok) const {
    lanes_(n, params, value, gradient, ok);
  }
  // Whether lanes() writes verdicts: a trace without guards keeps every lane on its path, and its lane loop
  // then takes a null `ok`.
  bool guarded() const { return guarded_; }
  const std::string& library() const { return path_; }
  bool fromCache() const { return cached_; }
  // The optimisation it was built with (optimisationFor): "-O3" or "-O1".
  const std::string& optimisation() const { return optimisation_; }

 private:
  void* handle_ = nullptr;
  Fn fn_ = nullptr;
  LanesFn lanes_ = nullptr;
  std::string path_;
  std::string optimisation_;
  bool cached_ = false;
  bool guarded_ = true;
};

}  // namespace dmci::replay
