// dmci --version, dmci version (Version.h).
#include "cli/Version.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "build_info.inc"  // DMCI_RELEASE_VERSION, DMCI_GIT_COMMIT, DMCI_GIT_DIRTY: cmake/build_info.cmake, at build time
#include "capi/dmci.h"
#include "cli/Exit.h"
#include "driver/Engine.h"
#include "fit/Optimizer.h"
#include "search/Canon.h"
#include "support/JsonText.h"
#include "support/Plugin.h"

namespace dmci::cli {

namespace {

using json = nlohmann::ordered_json;

// Where the plugin is found (the first plugin folder that has its file), or nullopt.
std::optional<std::filesystem::path> findPlugin(const std::string& file) {
  for (const auto& dir : pluginFolders()) {
    std::error_code ec;
    if (std::filesystem::exists(dir / file, ec)) return std::filesystem::absolute(dir / file, ec).lexically_normal();
  }
  return std::nullopt;
}

// Opens the plugin through the registries, as a run asking for what it provides would: an empty string when it
// loads and registers every name it should, else why not.
// The MPI plugin is only opened (its registration runs); MPI itself starts only under dmci search --mpi.
std::string probe(const PluginDoc& p) {
  switch (p.kind) {
    case PluginKind::Engine:
      for (const auto& name : p.provides)
        if (auto e = engineNamed(name); !e) return e.error().message;
      return "";
    case PluginKind::Optimizers:
      for (const auto& name : p.provides)
        if (auto o = fit::optimizerNamed(name); !o) return o.error().message;
      return "";
    case PluginKind::Canon: {
      std::string backend = search::canonicalBackend();
      return backend == p.provides.front() ? "" : backend;
    }
    case PluginKind::Exchange:
      return openPlugin(p.file, "the plugin " + p.file + " is not installed");
  }
  return "unknown plugin kind";
}

const char* kindName(PluginKind k) {
  switch (k) {
    case PluginKind::Engine:
      return "engine";
    case PluginKind::Optimizers:
      return "optimizers";
    case PluginKind::Canon:
      return "canonical form";
    case PluginKind::Exchange:
      return "island exchange";
  }
  return "?";
}

std::string provides(const PluginDoc& p) {
  std::string out = p.kind == PluginKind::Optimizers && p.provides.size() == 1 ? "optimizer" : kindName(p.kind);
  for (size_t i = 0; i < p.provides.size(); ++i) out += (i ? ", " : " ") + p.provides[i];
  return out;
}

struct Args {
  bool json = false, probe = false;
};

int versionCommand(const Args& a) {
  bool allLoad = true;
  if (a.json) {
    json out;
    out["version"] = DMCI_RELEASE_VERSION;
    if (std::string(DMCI_GIT_COMMIT).size()) {
      out["commit"] = DMCI_GIT_COMMIT;
      out["commit_dirty"] = DMCI_GIT_DIRTY != 0;
    }
    out["c_api"] = DMCI_API_VERSION;
    json plugins = json::array();
    for (const auto& p : knownPlugins()) {
      json j;
      j["name"] = p.name;
      j["file"] = p.file;
      j["kind"] = kindName(p.kind);
      j["provides"] = p.provides;
      auto path = findPlugin(p.file);
      j["present"] = path.has_value();
      if (path) j["path"] = path->string();
      if (a.probe && path) {
        std::string why = probe(p);
        j["loads"] = why.empty();
        if (!why.empty()) j["error"] = why;
        allLoad = allLoad && why.empty();
      }
      plugins.push_back(j);
    }
    out["plugins"] = plugins;
    std::cout << jsonText(out, 2) << "\n";
  } else {
    std::cout << versionText() << "\n";
    if (a.probe) {
      std::cout << "probe (each plugin found, opened):\n";
      for (const auto& p : knownPlugins()) {
        if (!findPlugin(p.file)) continue;
        std::string why = probe(p);
        std::cout << "  " << p.name << ": " << (why.empty() ? "loads" : "does not load: " + why) << "\n";
        allLoad = allLoad && why.empty();
      }
    }
  }
  return allLoad ? kOk : kProgramError;
}

}  // namespace

const std::vector<PluginDoc>& knownPlugins() {
  static const std::vector<PluginDoc> plugins = {
      {"tensor", "dmci-engine-tensor.so", PluginKind::Engine, {"tensor"}},
      {"ceres", "dmci-optimizer-ceres.so", PluginKind::Optimizers, {"lm", "dogleg", "lbfgs", "bfgs"}},
      {"pagmo", "dmci-optimizer-pagmo.so", PluginKind::Optimizers, {"de", "cmaes"}},
      {"torch", "dmci-optimizer-torch.so", PluginKind::Optimizers, {"adam", "torch-lbfgs"}},
      {"ginac", "dmci-canon-ginac.so", PluginKind::Canon, {"ginac"}},
      {"mpi", "dmci-search-mpi.so", PluginKind::Exchange, {"Open MPI"}},
  };
  return plugins;
}

std::string versionText() {
  std::ostringstream out;
  out << "dmci " << DMCI_RELEASE_VERSION << "\n";
  if (std::string(DMCI_GIT_COMMIT).size())
    out << "commit " << DMCI_GIT_COMMIT << (DMCI_GIT_DIRTY ? " (with uncommitted changes)" : "") << "\n";
  out << "C API " << DMCI_API_VERSION << "\n";
  out << "plugins (found by file; `dmci version --probe` loads them):";
  for (const auto& p : knownPlugins()) {
    auto path = findPlugin(p.file);
    out << "\n  " << p.name << std::string(8 - std::min<size_t>(7, p.name.size()), ' ')
        << (path ? path->string() : p.file + " not installed") << " (" << provides(p) << ")";
  }
  return out.str();
}

std::function<int()> addVersionCommand(CLI::App& app) {
  app.set_version_flag(
      "--version", [] { return versionText(); },
      "print the version, the git commit, the C API version and the plugins found, and exit");
  auto a = std::make_shared<Args>();
  auto* c = app.add_subcommand("version", "print the version, the git commit, the C API version and the plugins");
  c->add_flag("--json", a->json, "print JSON");
  c->add_flag("--probe", a->probe,
              "also open each plugin found (LibTorch's take seconds) and say whether it loads; exit 1 when one "
              "does not");
  return [c, a] { return *c ? versionCommand(*a) : -1; };
}

}  // namespace dmci::cli
