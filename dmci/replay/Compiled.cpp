// Building, caching and loading an emitted trace (Compiled.h says where and how).
#include "replay/Compiled.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dmci::replay {
namespace {

namespace fs = std::filesystem;

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

fs::path cacheDir() {
  if (const char* d = std::getenv("DMCI_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "dmci" / "compiled";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "dmci" / "compiled";
  return fs::temp_directory_path() / "dmci-compiled";
}

std::string compiler() {
  const char* cxx = std::getenv("CXX");
  return cxx && *cxx ? cxx : "c++";
}

// Runs a shell command, its standard error captured; the exit status.
int runCaptured(const std::string& cmd, std::string& err) {
  std::string full = cmd + " 2>&1";
  FILE* p = popen(full.c_str(), "r");
  if (!p) return -1;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) err.append(buf, n);
  return pclose(p);
}

}  // namespace

const char* eigenIncludeDir() {
#ifdef DMCI_EIGEN_INCLUDE_DIR
  return DMCI_EIGEN_INCLUDE_DIR;
#else
  return "";
#endif
}

Result<std::unique_ptr<CompiledTrace>> CompiledTrace::build(const std::string& code, const std::string& function) {
  std::string flags = "-O3 -march=native -ffp-contract=off -fPIC -shared";
  // Tensor steps are Eigen code: this build's Eigen, as a system directory (its headers' own warnings are not ours).
  if (*eigenIncludeDir() && code.find("#include <Eigen/") != std::string::npos)
    flags += std::string(" -isystem '") + eigenIncludeDir() + "'";
  const std::string cxx = compiler();
  char key[32];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(fnv1a(code + "\n" + cxx + " " + flags)));
  std::error_code ec;
  const fs::path dir = cacheDir();
  fs::create_directories(dir, ec);
  if (ec) return Error{ErrorKind::Io, "cannot make the compiled-trace cache " + dir.string() + ": " + ec.message(), {}};
  auto out = std::make_unique<CompiledTrace>();
  out->path_ = (dir / (std::string(key) + ".so")).string();
  out->cached_ = fs::exists(out->path_);
  if (!out->cached_) {
    // A name of this build's own: another thread or process may be building the same trace meanwhile.
    static std::atomic<unsigned> builds{0};
    const std::string stem =
        (dir / (std::string(key) + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(builds.fetch_add(1))))
            .string();
    {
      std::ofstream src(stem + ".cpp", std::ios::binary);
      src << code;
      if (!src) return Error{ErrorKind::Io, "cannot write " + stem + ".cpp", {}};
    }
    std::string err;
    const std::string cmd = cxx + " " + flags + " -o '" + stem + ".so' '" + stem + ".cpp'";
    int rc = runCaptured(cmd, err);
    fs::remove(stem + ".cpp", ec);
    if (rc != 0) {
      fs::remove(stem + ".so", ec);
      if (rc == 127 << 8 || err.find("not found") != std::string::npos)
        return Error{ErrorKind::Usage,
                     "--engine compiled needs a C++ compiler: '" + cxx + "' was not found (set CXX to one)",
                     {}};
      return Error{ErrorKind::Io, "building the emitted trace failed (" + cmd + "): " + err, {}};
    }
    fs::rename(stem + ".so", out->path_, ec);  // atomic: a concurrent build of the same code stores the same file
    if (ec) {
      fs::remove(stem + ".so", ec);
      if (!fs::exists(out->path_)) return Error{ErrorKind::Io, "cannot store " + out->path_, {}};
    }
  }
  out->handle_ = dlopen(out->path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!out->handle_) return Error{ErrorKind::Io, std::string("cannot load ") + out->path_ + ": " + dlerror(), {}};
  out->fn_ = reinterpret_cast<Fn>(dlsym(out->handle_, function.c_str()));
  out->lanes_ = reinterpret_cast<LanesFn>(dlsym(out->handle_, (function + "_lanes").c_str()));
  if (!out->fn_ || !out->lanes_) return Error{ErrorKind::Io, out->path_ + " has no function " + function, {}};
  const auto* guarded = static_cast<const int*>(dlsym(out->handle_, (function + "_guarded").c_str()));
  out->guarded_ = !guarded || *guarded != 0;
  return out;
}

CompiledTrace::~CompiledTrace() {
  if (handle_) dlclose(handle_);
}

}  // namespace dmci::replay
