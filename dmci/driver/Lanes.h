// Many lanes on the native engine: the lanes are split among threads, each with its own Evaluator.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/Program.h"

namespace dmci {

// B lanes: every parameter has one value per lane. With no parameters, `count` gives B.
struct LaneBatch {
  std::vector<std::string> params;
  std::vector<std::vector<double>> values;  // [param][lane]
  int64_t count = 1;
  int64_t lanes() const { return values.empty() ? count : static_cast<int64_t>(values[0].size()); }
};

// Lanes from command-line bindings: NAME=NUMBER (the same in every lane) or NAME=linspace(a,b,B) (B lanes from
// a to b); all lane counts must agree.
Result<LaneBatch> parseLaneBindings(const std::vector<std::string>& binds);
// A lane file: CSV (a header of parameter names, then a row of numbers per lane; '#' comment lines) or JSON
// ({"x": [...], ...}, an array per parameter, or [{"x": ..., ...}, ...], an object per lane). Errors name
// the file, line and column.
Result<LaneBatch> readLaneFile(const std::string& path);
// The lane file's parameters (if a path is given), then the bindings; all lane counts must agree, and a
// NAME=NUMBER binding is the same in every lane.
Result<LaneBatch> makeLanes(const std::vector<std::string>& binds, const std::string& laneFile);
// Every parameter bound once, to a free variable of the program, with one value per lane; every wrt name bound.
std::optional<Error> checkLaneBatch(const Program& p, const LaneBatch& batch, const std::vector<std::string>& wrt);

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
