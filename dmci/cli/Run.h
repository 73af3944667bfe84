// `dmci run` and `dmci grad`: a program's value (any value, for run) and its gradient, for one seed or for lanes,
// on any engine.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace dmci::cli {

// Adds `run` (gradient = false) or `grad` (gradient = true); the returned function runs the parsed command.
std::function<int()> addRunCommand(CLI::App& app, bool gradient);

}  // namespace dmci::cli
