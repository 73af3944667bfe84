// A trace emitted as C++ (replay/EmitCpp.h), built by the system's C++ compiler at -O3 and loaded: the compiled
// engine's kernel. Builds are cached by the content hash of the code and the compiler command, in the user's
// cache folder ($DMCI_CACHE_DIR, else $XDG_CACHE_HOME/dmci/compiled, else ~/.cache/dmci/compiled), never in the
// source tree; a build is written under a temporary name and renamed, so a cache entry is whole or absent.
#pragma once
#include <memory>
#include <string>

#include "replay/EmitCpp.h"

namespace dmci::replay {

class CompiledTrace {
 public:
  using Fn = int (*)(const double* params, double* value, double* gradient);
  // Emits, builds (or finds in the cache) and loads the trace's function. Errors: the trace cannot be emitted,
  // no compiler, the build failed (with the compiler's message), the library cannot be loaded.
  static Result<std::unique_ptr<CompiledTrace>> build(const Trace& t, const EmitRequest& req);
  ~CompiledTrace();
  // 0: value and gradient written; 1: the path changed.
  int operator()(const double* params, double* value, double* gradient) const { return fn_(params, value, gradient); }
  const std::string& library() const { return path_; }
  bool fromCache() const { return cached_; }

 private:
  void* handle_ = nullptr;
  Fn fn_ = nullptr;
  std::string path_;
  bool cached_ = false;
};

}  // namespace dmci::replay
