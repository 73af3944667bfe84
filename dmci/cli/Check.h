// `dmci check`: the gradient-correctness gate over a corpus, as a subcommand of the dmci tool.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace dmci::cli {

struct CheckArgs {
  std::string dir = "corpus";
  // The reports; written to these defaults (under reports/tmp/, which git ignores: `ci/gate --publish` refreshes
  // the committed copies) only by a full native run, else only when --json/--md are given.
  std::string json = "reports/tmp/gate.json";
  std::string md = "reports/tmp/gate.md";
  bool jsonGiven = false, mdGiven = false;
  std::string junit;  // JUnit XML, when given
  std::string shard;  // "i/N"; empty: from the environment (cli/Shard.h), else the whole corpus
  std::string filter;
  int jobs = 0;  // 0: one per hardware thread
  double tolValue = 1e-12, tolAd = 1e-10, tolFd = 1e-6, tolClosed = 1e-8;
  double rounding = 8;  // a value also agrees within this many times the oracle's rounding spread (0: off)
  bool quiet = false;
  bool lantern = false;
  std::string engine = "native";
  std::string device = "cpu";
  bool replay = false;  // tensor engine: replay recorded traces
};

// Adds the `check` subcommand, filling `args` when parsed.
CLI::App* addCheckCommand(CLI::App& app, CheckArgs& args);
// Runs the gate: 0 all pairs as expected, 1 a pair failed, 2 a usage error (no manifest, bad flag).
int checkCommand(const CheckArgs& args);

}  // namespace dmci::cli
