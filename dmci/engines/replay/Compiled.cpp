// Building, caching and loading an emitted trace (Compiled.h says where and how, and what is checked).
#include "engines/replay/Compiled.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "support/ChildGroups.h"

extern char** environ;

namespace dmci::replay {
namespace {

namespace fs = std::filesystem;

uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t k = 0; k < n; ++k) h = (h ^ static_cast<unsigned char>(p[k])) * 1099511628211ull;
  return h;
}
uint64_t fnv1a(const std::string& s) { return fnv1a(s.data(), s.size()); }

fs::path cacheDir() {
  if (const char* d = std::getenv("DMCI_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "dmci" / "compiled";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "dmci" / "compiled";
  return fs::temp_directory_path() / ("dmci-compiled-" + std::to_string(::geteuid()));
}

// The compiler's command: $CXX split at spaces (so CXX="ccache c++" works, as under make), else c++. No shell.
std::vector<std::string> compilerWords() {
  const char* cxx = std::getenv("CXX");
  std::vector<std::string> words;
  std::string w;
  for (const char* p = cxx && *cxx ? cxx : "c++"; *p; ++p) {
    if (*p == ' ' || *p == '\t') {
      if (!w.empty()) words.push_back(w), w.clear();
    } else {
      w += *p;
    }
  }
  if (!w.empty()) words.push_back(w);
  if (words.empty()) words.push_back("c++");
  return words;
}

std::string errnoText() { return std::strerror(errno); }

// ---- the compiler children, killed with dmci (support/ChildGroups.h) ----
// Runs argv (no shell) in a process group of its own, its standard output and error captured; the wait status,
// or -1 (with `out` saying why) when it could not start.
int runCompiler(const std::vector<std::string>& argv, std::string& out) {
  installChildGroupKiller();
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
    out = "cannot make a pipe: " + errnoText();
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
  posix_spawnattr_init(&attr);
  sigset_t none, all, before;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  sigset_t deflt;
  sigemptyset(&deflt);
  sigaddset(&deflt, SIGINT);
  sigaddset(&deflt, SIGTERM);
  sigaddset(&deflt, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &deflt);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Signals held on this thread from the spawn until the child's group is listed: a SIGTERM then finds it.
  pthread_sigmask(SIG_BLOCK, &all, &before);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  const int slot = rc == 0 ? listChildGroup(pid) : -1;
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(pipeFds[1]);
  if (rc != 0) {
    ::close(pipeFds[0]);
    out = std::strerror(rc);
    return -1;
  }
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(pipeFds[0], buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipeFds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  unlistChildGroup(slot);
  return status;
}

// ---- cache entries ----
// An entry is one file, KEY.so: the library the compiler wrote, then a record of what it was built from:
//   the recipe (the code, a newline, the compiler command) | "DMCI-RECORD-1" | library bytes (16 hex digits) |
//   recipe bytes (16) | FNV-1a of the library bytes (16) | FNV-1a of the recipe (16)
// (the dynamic loader reads the library's own headers and ignores what follows it). One file renamed into place
// is whole or absent; the record says whether it is the library of this code, and whether it is the bytes the
// compiler wrote.
constexpr char kMagic[] = "DMCI-RECORD-1";
constexpr size_t kMagicSize = sizeof kMagic - 1;
constexpr size_t kTrailerSize = kMagicSize + 4 * 16;

std::string hex16(uint64_t x) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(x));
  return b;
}

std::string record(const std::string& library, const std::string& recipe) {
  return recipe + kMagic + hex16(library.size()) + hex16(recipe.size()) + hex16(fnv1a(library)) + hex16(fnv1a(recipe));
}

// Whether `bytes` (a whole entry) is a library with the record of `recipe`; "" when it is, else why not.
std::string checkRecord(const std::string& bytes, const std::string& recipe) {
  if (bytes.size() < kTrailerSize || bytes.compare(bytes.size() - kTrailerSize, kMagicSize, kMagic) != 0)
    return "it has no build record";
  auto field = [&](int k) {
    return std::strtoull(bytes.substr(bytes.size() - kTrailerSize + kMagicSize + 16 * k, 16).c_str(), nullptr, 16);
  };
  const uint64_t libSize = field(0), recipeSize = field(1);
  if (libSize + recipeSize + kTrailerSize != bytes.size()) return "its build record does not fit its size";
  if (recipeSize != recipe.size() || bytes.compare(libSize, recipeSize, recipe) != 0 || field(3) != fnv1a(recipe))
    return "its recorded source is not this code's";
  if (field(2) != fnv1a(bytes.data(), libSize)) return "its bytes do not match the recorded hash";
  return "";
}

// The folder, made if missing (the last level mode 0700), and checked: a directory of this user's that nobody
// else can write. "" when it is usable, else the error.
std::string prepareDir(const fs::path& dir) {
  std::error_code ec;
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return "cannot make the compiled-trace cache " + dir.string() + ": " + errnoText();
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return "cannot read the compiled-trace cache " + dir.string() + ": " + errnoText();
  if (!S_ISDIR(st.st_mode)) return "the compiled-trace cache " + dir.string() + " is not a directory";
  if (st.st_uid != ::geteuid())
    return "the compiled-trace cache " + dir.string() + " belongs to user " + std::to_string(st.st_uid) +
           ", not to this user (" + std::to_string(::geteuid()) +
           "): refusing to load code from it (set DMCI_CACHE_DIR to a folder of your own)";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return "the compiled-trace cache " + dir.string() + " is writable by group or others (mode " + mode +
           "): refusing to load code from it (chmod go-w it, or set DMCI_CACHE_DIR to a folder of your own)";
  }
  return "";
}

// Temporary files of builds whose process has gone (KEY.tmpPID.N.cpp/.so: a dmci killed mid-build) are removed.
// (They are never loaded: only KEY.so is.)
void removeStaleTemporaries(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const size_t at = name.find(".tmp");
    if (at != 16) continue;  // KEY (16 hex digits).tmp...
    const long pid = std::strtol(name.c_str() + at + 4, nullptr, 10);
    if (pid > 0 && pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code rm;
      fs::remove(it->path(), rm);
    }
  }
}

enum class Load { Loaded, Absent, Stale };

// Opens `path` (no symbolic link), checks that it is a file of this user's nobody else can write and that its
// record is `recipe`'s, then loads it. Stale: a whole entry of other code or damaged bytes (`why`), to be rebuilt.
// An error: the entry may not be loaded.
Result<Load> loadChecked(const std::string& path, const std::string& recipe, void*& handle, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Load::Absent;
    if (errno == ELOOP)
      return Error{ErrorKind::Io, "the compiled trace " + path + " is a symbolic link: refusing to load it", {}};
    return Error{ErrorKind::Io, "cannot open the compiled trace " + path + ": " + errnoText(), {}};
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{ErrorKind::Io, "cannot read " + path + ": " + errnoText(), {}};
  if (!S_ISREG(st.st_mode)) return Error{ErrorKind::Io, "the compiled trace " + path + " is not a plain file", {}};
  if (st.st_uid != ::geteuid())
    return Error{ErrorKind::Io,
                 "the compiled trace " + path + " belongs to user " + std::to_string(st.st_uid) +
                     ", not to this user: refusing to load it",
                 {}};
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return Error{
        ErrorKind::Io, "the compiled trace " + path + " is writable by group or others: refusing to load it", {}};
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::pread(fd, bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  why = checkRecord(bytes, recipe);
  if (!why.empty()) return Load::Stale;
  // Loaded by its name (the loader knows a library by its name: /proc/self/fd/N would alias every entry opened
  // on descriptor N), in a folder only this user can write, checked just above.
  handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return Error{ErrorKind::Io, std::string("cannot load ") + path + ": " + ::dlerror(), {}};
  return Load::Loaded;
}

// Writes `text` to a new file `path` (not through a link), mode 0600.
bool writeNew(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  return ::close(fd) == 0 && done == text.size();
}

bool readAll(const std::string& path, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return n == 0;
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

const char* eigenIncludeDir() {
#ifdef DMCI_EIGEN_INCLUDE_DIR
  return DMCI_EIGEN_INCLUDE_DIR;
#else
  return "";
#endif
}

const char* optimisationFor(const std::string& code) {
  const auto lines = static_cast<size_t>(std::count(code.begin(), code.end(), '\n'));
  return lines <= kMaxLinesAtO3 ? "-O3" : "-O1";
}

Result<std::unique_ptr<CompiledTrace>> CompiledTrace::build(const std::string& code, const std::string& function) {
  std::vector<std::string> command = compilerWords();
  const char* optimisation = optimisationFor(code);
  command.push_back(optimisation);
  for (const char* f : {"-march=native", "-ffp-contract=off", "-fPIC", "-shared"}) command.push_back(f);
  // Tensor steps are Eigen code: this build's Eigen, as a system directory (its headers' own warnings are not ours).
  if (*eigenIncludeDir() && code.find("#include <Eigen/") != std::string::npos)
    command.push_back("-isystem"), command.push_back(eigenIncludeDir());
  std::string recipe = code + "\n";
  for (const auto& w : command) recipe += w + " ";
  const std::string key = hex16(fnv1a(recipe));
  const fs::path dir = cacheDir();
  if (std::string bad = prepareDir(dir); !bad.empty()) return Error{ErrorKind::Io, bad, {}};
  auto out = std::make_unique<CompiledTrace>();
  out->path_ = (dir / (key + ".so")).string();
  out->optimisation_ = optimisation;
  std::string why;
  auto cached = loadChecked(out->path_, recipe, out->handle_, why);
  if (!cached) return cached.error();
  out->cached_ = *cached == Load::Loaded;
  if (!out->cached_) {
    // A stale entry (other code under this key, damaged bytes) is rebuilt and replaced; a build under a name of its
    // own, loaded from there and then renamed into place: two builders of the same entry each load their own.
    removeStaleTemporaries(dir);
    static std::atomic<unsigned> builds{0};
    const std::string stem =
        (dir / (key + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(builds.fetch_add(1)))).string();
    if (!writeNew(stem + ".cpp", code)) return Error{ErrorKind::Io, "cannot write " + stem + ".cpp", {}};
    std::vector<std::string> argv = command;
    for (const std::string& a : {std::string("-o"), stem + ".so", stem + ".cpp"}) argv.push_back(a);
    std::string err;
    const int status = runCompiler(argv, err);
    std::error_code ec;
    fs::remove(stem + ".cpp", ec);
    if (status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
      fs::remove(stem + ".so", ec);
      return Error{
          ErrorKind::Usage,
          "--engine compiled needs a C++ compiler: '" + command[0] + "' could not be run (" + err + "; set CXX to one)",
          {}};
    }
    std::string library;
    if (status != 0 || !readAll(stem + ".so", library)) {
      fs::remove(stem + ".so", ec);
      std::string cmd;
      for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
      return Error{ErrorKind::Io,
                   "building the emitted trace failed (" + cmd + "; " +
                       (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                            : "exit status " + std::to_string(WEXITSTATUS(status))) +
                       "): " + err,
                   {}};
    }
    // The entry: the library and its record, written anew (mode 0600, whatever the compiler's umask gave).
    fs::remove(stem + ".so", ec);
    if (!writeNew(stem + ".so", library + record(library, recipe))) {
      fs::remove(stem + ".so", ec);
      return Error{ErrorKind::Io, "cannot write " + stem + ".so", {}};
    }
    auto mine = loadChecked(stem + ".so", recipe, out->handle_, why);
    if (!mine || *mine != Load::Loaded) {
      fs::remove(stem + ".so", ec);
      return mine ? Error{ErrorKind::Io, "the build just written is not whole (" + why + "): " + stem + ".so", {}}
                  : mine.error();
    }
    fs::rename(stem + ".so", out->path_, ec);  // atomic: a concurrent build of the same code stores a whole entry
    if (ec) fs::remove(stem + ".so", ec);      // (the library stays loaded; the next run builds again)
  }
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
