// `dmci completion bash`: a bash completion script written from the CLI11 app tree that prints `--help`
// (AppTree.h): the commands, each command's options, and the values the parser knows for an option or an argument
// (CLI::IsMember's sets: routes, optimizers, devices, ...; the engine registry's names for --engine). Anything else
// falls back to file names. The build writes it and installs it to share/bash-completion/completions/dmci.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace dmci::cli {

// The script for bash.
std::string bashCompletion(const CLI::App& root);

// Adds the `completion` subcommand; the function runs it when it was parsed (the tree is read then, whole).
std::function<int()> addCompletionCommand(CLI::App& app);

}  // namespace dmci::cli
