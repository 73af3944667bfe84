// The figures of one gate run: counts by status and family, each comparison's error distribution, the slowest pairs.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "oracle/gate/Gate.h"

namespace dmci::gate {

struct StatusCounts {
  size_t total = 0, pass = 0, fail = 0, nondifferentiable = 0;
  size_t illConditioned = 0;    // values or gradients that agreed only within the rounding spread (PairResult::notes)
  size_t lanternUncovered = 0;  // pairs the lantern route was not run on (PairResult::lanternUncovered)
  double seconds = 0;           // summed over the pairs
};

// One comparison's largest relative error per pair, over the pairs where it was made.
struct ErrorDistribution {
  std::string comparison;  // "value", "dmci_vs_direct", "direct_vs_fd", "dmci_vs_fd", "closed_form", "batched_vs_alone"
  double tolerance = 0;
  std::vector<double> errors;                         // in manifest order
  std::vector<std::pair<std::string, double>> worst;  // the largest nonzero ones first, with pair names
  std::optional<double> median, max;
};

struct GateSummary {
  StatusCounts all;
  std::map<std::string, StatusCounts> families;
  std::vector<ErrorDistribution> comparisons;           // in the order listed above
  std::vector<std::pair<std::string, double>> slowest;  // pair name, seconds; the slowest first
  double seconds = 0;                                   // wall time of the run
  bool passed = false;
};

// `top`: how many worst and slowest pairs to keep.
GateSummary summarize(const GateRun& run, size_t top = 5);

// The distribution of one comparison by name (nullptr if unknown).
const ErrorDistribution* distribution(const GateSummary& s, const std::string& comparison);

}  // namespace dmci::gate
