// `dmci compile`, `dmci expand`, `dmci prims` and `dmci engines`: the pipeline's intermediate forms and tables.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace dmci::cli {

// Each adds its subcommand; the returned function runs it when it was the one parsed (else returns -1).
std::function<int()> addCompileCommand(CLI::App& app);
std::function<int()> addExpandCommand(CLI::App& app);
std::function<int()> addPrimsCommand(CLI::App& app);
std::function<int()> addEnginesCommand(CLI::App& app);

}  // namespace dmci::cli
