// A fit's state between two iterations, written atomically after every iteration (--checkpoint FILE) and read
// back by --resume: the restart and iteration reached, the counts, the best point of each restart, the loss
// curve, and the optimizer's own state (torch's or pagmo's bytes). A resumed fit continues exactly where the
// file left it, so a run killed at any moment and resumed ends as the uninterrupted run does.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "syntax/Error.h"

namespace dmci::fit {

// One iteration of the loss curve.
struct CurvePoint {
  int restart = 0, iteration = 0;
  uint64_t evaluations = 0;
  double seconds = 0, loss = 0, best = 0;
  std::optional<double> holdout;
};

// The best iterate of one restart (by the held-out loss when there is one, else the loss).
struct RestartBest {
  std::vector<double> u;  // the optimizer's coordinates
  double loss = 0;
  std::optional<double> holdout;
  bool found = false, converged = false;
  int iterations = 0;
  std::string stop, stopMessage;  // why this restart ended: the test's name ("ftol", "stalled", ...) and words
};

struct FitState {
  int restart = 0, iteration = 0, iterations = 0;  // the restart, its iteration, iterations over all restarts
  uint64_t evaluations = 0;
  double seconds = 0;
  bool restartDone = false;      // this restart converged or stopped early
  std::string optimizer;         // the optimizer's save()
  RestartBest current;           // this restart's best so far
  int stale = 0;                 // iterations since the held-out loss last improved
  int unchanged = 0;             // iterations that left the point where it was
  std::vector<double> previous;  // the point after the last iteration
  std::vector<RestartBest> finished;
  std::vector<CurvePoint> curve;
};

// The checkpoint's text; `fingerprint` names the fit (program, data, settings) so that --resume refuses another's.
std::string checkpointText(const FitState& s, const std::string& fingerprint);
// Reads a checkpoint; a Usage error when it is not one, or is another fit's.
Result<FitState> readCheckpoint(const std::string& path, const std::string& fingerprint);

}  // namespace dmci::fit
