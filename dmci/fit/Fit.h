// The fit driver: minimises a Model's loss with one optimizer from one or more starts.
//
// Each restart starts from the given values (restart 0) or from jittered ones (u0 + jitter·max(1,|u0|)·N(0,1),
// from the seed), in the optimizer's coordinates (fit/Transform.h; for lm and dogleg an interval [lo,hi] is a real
// bound instead). Every iteration is one optimizer step, or one iteration of a whole solve (fit/Optimizer.h); after
// it the driver evaluates the loss at the point reached (the method's last evaluation, reused, so it costs
// nothing), the held-out loss when there is one, records the curve, and writes the checkpoint (at most every
// checkpointSeconds). A restart ends, and says why in `stop`:
//   "ftol", "xtol", "gtol"  a stated convergence test held (the whole solves' are in fit/ceres/CeresOptimizers.cpp;
//                           a step method's is gtol: the gradient's largest entry ≤ gtol): converged;
//   "stalled"               the method cannot make progress (a trust region shrunk to nothing, a failed line
//                           search, a point that stopped moving), or a stated test held where the data cannot
//                           identify some value (least squares: a zero or dependent Jacobian column, named in
//                           stop_message and the uncertainty's note): not converged;
//   "steps"                 `steps` iterations;  "patience"  the held-out loss has not improved for `patience`.
// The whole fit stops on a budget ("budget": evaluations, seconds) or on a loss that becomes NaN or infinite
// ("nonfinite"), keeping the best parameters found so far. The result is the best restart's best iterate. Asked to
// (traceBests), it also keeps every iterate that was the best of the whole fit when it was reached (by the held-out
// loss when there is one), with its time and values: what a budget of any length up to the one spent would have
// returned.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fit/Checkpoint.h"
#include "fit/Model.h"
#include "fit/Optimizer.h"
#include "fit/Uncertainty.h"

namespace dmci::fit {

// The iteration limit per start when none is given: 5000 for the whole solves (lm, dogleg, lbfgs, bfgs: a
// trust region iteration costs one Jacobian, and a hard problem such as NIST's MGH17 from its far start needs
// about 600), 500 for the step methods (adam, torch-lbfgs) and generations of de and cmaes.
int defaultSteps(const std::string& optimizer);

struct FitSettings {
  std::string optimizer;  // empty: lm in data mode (lbfgs with mae), lbfgs in objective mode
  OptimizerSettings method;
  int steps = 0;     // iterations per restart; 0: the method's default (defaultSteps)
  int restarts = 0;  // further starts, jittered
  double jitter = 0.3;
  uint64_t seed = 1;
  double ftol = 1e-14, xtol = 1e-14, gtol = 1e-10;  // the stated tests (see above)
  int patience = 20;
  double budgetSeconds = 0;      // 0: none
  uint64_t budgetEvals = 0;      // 0: none
  std::string checkpoint;        // written when given: at most every checkpointSeconds, and at each restart's end
  double checkpointSeconds = 1;  // 0: after every iteration
  bool resume = false;           // start from the checkpoint
  std::string fingerprint;       // names this fit in its checkpoint
  bool traceBests = false;       // keep FitResult::bests
  bool uncertainty = true;       // least squares: compute FitResult::uncertainty at the result (one Jacobian)
};

// An iterate that was the best of the whole fit when it was reached.
struct BestPoint {
  CurvePoint point;
  std::vector<double> theta;
};

struct FitResult {
  std::vector<double> theta;  // the fitted values, in the model's order
  double loss = 0;
  std::optional<double> holdout;
  int iterations = 0;
  uint64_t evaluations = 0;
  double seconds = 0;
  bool converged = false;   // a stated test held ("ftol", "xtol", "gtol")
  std::string stop;         // why it stopped (the best restart's, or the fit's own): a name listed above
  std::string stopMessage;  // the same in words
  bool nonFinite = false;   // it stopped on a NaN or infinite loss
  int bestRestart = 0;
  std::vector<CurvePoint> curve;
  std::vector<BestPoint> bests;            // with traceBests: each new best, in order (since the start or the resume)
  std::optional<Uncertainty> uncertainty;  // plain least squares: standard errors and covariance (fit/Uncertainty.h)
};

// Called after every iteration (the progress line).
using FitProgress = std::function<void(const CurvePoint&)>;

// Runs the fit. A program error at some evaluation, a missing optimizer or an unreadable checkpoint is an error.
Result<FitResult> runFit(Model& model, const FitSettings& settings, const FitProgress& progress = {});

}  // namespace dmci::fit
