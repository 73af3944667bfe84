// `dmci run`, `dmci grad`, `dmci trace` and `dmci emit`: a program's value (any value, for run) and its gradient, for
// one seed or for lanes, on any engine.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace dmci::cli {

// Adds `run` (gradient = false), `grad` (gradient = true), `trace` (trace = true: the seed's recorded trace) or
// `emit` (emit = true: that trace as C++);
// the returned function runs the parsed command.
std::function<int()> addRunCommand(CLI::App& app, bool gradient, bool trace = false, bool emit = false);

}  // namespace dmci::cli
