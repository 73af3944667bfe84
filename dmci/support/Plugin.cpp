// The plugin loader that the engine and optimizer registries share: the folders, and dlopen.
#include "support/Plugin.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace dmci {

namespace {

std::filesystem::path executableDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

std::mutex& hostFoldersMutex() {
  static std::mutex m;
  return m;
}

std::vector<std::filesystem::path>& hostFolders() {
  static std::vector<std::filesystem::path> dirs;
  return dirs;
}

}  // namespace

void addPluginFolder(const std::filesystem::path& dir) {
  std::lock_guard<std::mutex> g(hostFoldersMutex());
  hostFolders().push_back(dir);
}

std::vector<std::filesystem::path> pluginFolders() {
  std::vector<std::filesystem::path> out;
  if (const char* env = std::getenv("DMCI_ENGINE_PATH")) {
    std::string s = env;
    size_t at = 0;
    while (at <= s.size()) {
      size_t colon = s.find(':', at);
      if (colon == std::string::npos) colon = s.size();
      if (colon > at) out.emplace_back(s.substr(at, colon - at));
      at = colon + 1;
    }
  }
  {
    std::lock_guard<std::mutex> g(hostFoldersMutex());
    out.insert(out.end(), hostFolders().begin(), hostFolders().end());
  }
  auto dir = executableDir();
  if (!dir.empty()) {
    out.push_back(dir);
    out.push_back(dir.parent_path() / "lib" / "dmci");
  }
  return out;
}

std::string openPlugin(const std::string& file, const std::string& missing) {
  std::string looked;
  for (const auto& dir : pluginFolders()) {
    auto path = dir / file;
    looked += (looked.empty() ? "" : ", ") + dir.string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    if (!dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      const char* why = dlerror();
      return "cannot load " + path.string() + ": " + (why ? why : "unknown error");
    }
    return "";
  }
  return missing + " (looked in " + looked + "; set DMCI_ENGINE_PATH to a folder that has " + file + ")";
}

}  // namespace dmci
