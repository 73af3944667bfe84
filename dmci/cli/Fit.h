// `dmci fit`: calibrate a program's parameters and numeric literals to data by exact gradients (fit/Fit.h).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace dmci::cli {

// Adds `fit`; the returned function runs it when it was the one parsed (else returns -1).
std::function<int()> addFitCommand(CLI::App& app);

}  // namespace dmci::cli
