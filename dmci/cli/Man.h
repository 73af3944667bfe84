// `dmci man [COMMAND] [--output-dir DIR]`: the manual pages dmci(1) and dmci-COMMAND(1), written as roff from the
// CLI11 app tree that prints `--help` (AppTree.h), so that a page cannot say other than the parser does. The build
// writes every page with --output-dir and installs them to share/man/man1.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace dmci::cli {

// The page of `command` (a subcommand of `root`, or `root` itself for dmci(1)), as roff.
std::string manPage(const CLI::App& root, const CLI::App& command);

// Adds the `man` subcommand; the function runs it when it was parsed (the tree is read then, whole).
std::function<int()> addManCommand(CLI::App& app);

}  // namespace dmci::cli
