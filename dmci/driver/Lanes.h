// Many lanes on the native engine: the lanes are split among threads, each with its own Evaluator.
#pragma once
#include <string>
#include <vector>

#include "driver/Program.h"

namespace dmci {

struct LaneResults {
  std::vector<double> value;                  // per lane
  std::vector<std::string> gradientKeys;      // as Evaluation::gradient's keys
  std::vector<std::vector<double>> gradient;  // [key][lane]
  uint64_t steps = 0;                         // summed over lanes
  int threads = 1;                            // threads used
  double seconds = 0;                         // wall time of the lanes (set-up included)
  double busySeconds = 0;                     // summed over threads
};

// Runs values[param][lane] lane by lane on `threads` threads (0: one per hardware thread). With no
// parameters, `lanes` gives the lane count (every lane the same run). The first failing lane's error is the result.
Result<LaneResults> evaluateLanes(const Program& p, const std::vector<std::string>& params,
                                  const std::vector<std::vector<double>>& values, const EvalOptions& opts,
                                  int threads = 0, size_t lanes = 1);

}  // namespace dmci
