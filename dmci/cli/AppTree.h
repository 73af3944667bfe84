// What the generated documents read from the CLI11 app tree that also prints `--help`: each command's options and
// positionals with their names, value kind, enumerated values, default and description. `dmci man` (roff pages)
// and `dmci completion bash` are both written from these, so neither can drift from the parser they describe.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace dmci::cli {

// The tool's name in the documents (CLI11 names the root app after argv[0], which may be a path).
inline constexpr const char* kToolName = "dmci";

// One option or positional of a command, as CLI11 holds it.
struct OptionDoc {
  std::vector<std::string> names;  // "-o", "--output", ... (short names first); empty for a positional
  std::string positional;          // a positional's name ("program"); empty for an option
  std::string type;                // CLI11's type label without its validators ("TEXT", "UINT", "FLOAT", ...)
  bool takesValue = false;         // false for a flag (CLI11: expects 0 values)
  bool repeatable = false;         // takes many values or may be given many times
  bool required = false;
  std::string defaultValue;  // the captured default, or empty
  std::string description;
  // The values the parser accepts, where it knows them: CLI::IsMember's set, or (for --engine, which the engine
  // registry checks) the registry's engine names. Empty: any value.
  std::vector<std::string> values;
};

// A command's options (in definition order, the help flag first) and positionals.
std::vector<OptionDoc> optionDocs(const CLI::App& app);

// The subcommands of `app` in definition order.
std::vector<const CLI::App*> subcommandsOf(const CLI::App& app);

// The sets `{a,b,c}` that CLI11's validators add to a type label ("TEXT:{cpu,cuda}"), joined, in order.
std::vector<std::string> enumeratedValues(const std::string& typeLabel);

}  // namespace dmci::cli
