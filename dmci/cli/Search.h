// `dmci search`: program-and-parameter co-search from a seed program (search/Search.h).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace dmci::cli {

// Adds `search`; the returned function runs it when it was the one parsed (else returns -1).
std::function<int()> addSearchCommand(CLI::App& app);

}  // namespace dmci::cli
