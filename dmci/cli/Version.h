// `dmci --version` and `dmci version [--json] [--probe]`: the release version (CMake's project version), the git
// commit the build was configured from (absent when the source was no git checkout), the C API version, and the
// plugins. Plugins are reported by file only (found or not, where), so that --version stays as quick as the tool's
// start and loads no LibTorch; --probe also opens each plugin found and says whether it loads and registers what
// it should.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace dmci::cli {

// What a plugin adds to the tool.
enum class PluginKind {
  Engine,      // an engine for --engine
  Optimizers,  // optimizers for dmci fit and dmci search
  Canon,       // dmci search's algebraic canonical form (--canon algebra)
  Exchange,    // dmci search's islands over MPI ranks (--mpi)
};

// A plugin the tool may open: its short name, its file, its kind and the names it registers.
struct PluginDoc {
  std::string name, file;
  PluginKind kind = PluginKind::Optimizers;
  std::vector<std::string> provides;  // the engine's or the optimizers' names; what the others register as
};
const std::vector<PluginDoc>& knownPlugins();

// What `dmci --version` prints (without the final newline).
std::string versionText();

// Adds --version to `app` and the `version` subcommand; the function runs the subcommand when it was parsed.
std::function<int()> addVersionCommand(CLI::App& app);

}  // namespace dmci::cli
