// `dmci fuzz`: a seeded property-based campaign over generated programs, as a subcommand of the dmci tool.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace dmci::cli {

struct FuzzArgs {
  uint64_t cases = 0;  // 0 with no --seconds: 1,000
  double seconds = 0;
  uint64_t seed = 0;  // 0: drawn from the clock, and printed
  std::string shard;  // "i/N"; empty: from the environment (cli/Shard.h), else 0/1
  std::string json = "reports/tmp/fuzz.json";
  std::string md = "reports/tmp/fuzz.md";
  std::string junit;  // JUnit XML, when given
  std::string save;   // where failures become corpus cases
  int jobs = 2;
  int maxDepth = 5;
  bool noDmci = false;
  int lanesEvery = 4;  // every Nth case also checks lanes (needs the tensor engine; 0: never)
  bool quiet = false;
};

// Adds the `fuzz` subcommand, filling `args` when parsed.
CLI::App* addFuzzCommand(CLI::App& app, FuzzArgs& args);
// Runs the campaign: 0 no failure, 1 a property failed, 2 a usage error.
int fuzzCommand(const FuzzArgs& args);

}  // namespace dmci::cli
