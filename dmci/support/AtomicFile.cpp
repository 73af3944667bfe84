// Atomic file writes: a temporary file in the target's folder, flushed, then renamed over the target.
#include "support/AtomicFile.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace dmci {

Result<bool> writeFileAtomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  fs::path tmp = target;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      return Error{ErrorKind::Io, "cannot write " + path, {}};
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Error{ErrorKind::Io, "cannot write " + path + ": " + ec.message(), {}};
  }
  return true;
}

}  // namespace dmci
