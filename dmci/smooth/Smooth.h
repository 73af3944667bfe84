// Gradients where the program branches: every estimator here targets the gradient of the Gaussian-smoothed program
//
//   P_s(theta) = E_u[ P(theta + s u) ],  u ~ N(0, I) over the fitted parameters,
//
// which is smooth in theta even where P steps (a branch on a parameter), so a gradient method can move a parameter
// that only moves a branch condition.
//
//   si  (smooth interpretation, smoothProgram) a source-to-source transform of the expanded program into the same
//       Scheme subset: a comparison whose operands depend on a fitted parameter, where it is tested, becomes the
//       probability Phi(d/s) of being true (d: the signed distance to its boundary), and `if` on it runs both arms
//       and blends them by that probability. Deterministic; every engine and both routes run the transformed
//       program, so they agree as they do on any program.
//   mc  (Monte Carlo, mcGradient) the program's own runs at perturbed parameters theta + s u, run as lanes of one
//       batch through the engine seam: `pgo` (randomised finite differences in antithetic pairs) and `reinforce`
//       (the score function with a leave-one-out baseline). Each estimate comes with its standard error.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "expand/CoreExpr.h"

namespace dmci::smooth {

enum class Mode { Si, Mc };
enum class Estimator { Pgo, Reinforce };

struct SmoothSettings {
  double sigma = 0;  // s; 0: no smoothing
  Mode mode = Mode::Si;
  Estimator estimator = Estimator::Pgo;
  int64_t samples = 1000;    // mc: runs of the program (pgo: rounded up to whole antithetic pairs)
  uint64_t seed = 1;         // mc: the draws u
  double minWeight = 1e-20;  // si: an arm whose probability is below this is not run
  bool on() const { return sigma != 0; }
};

// "si"/"mc", "pgo"/"reinforce": the value, or nullopt for anything else.
std::optional<Mode> parseMode(const std::string& s);
std::optional<Estimator> parseEstimator(const std::string& s);
const char* modeName(Mode m);
const char* estimatorName(Estimator e);

// Why these settings cannot run (sigma <= 0 or not finite, a sample count below 2, a minimum weight outside
// [0, 0.5)), or nullopt.
std::optional<std::string> checkSettings(const SmoothSettings& s);

// --- si ---

// The name of the free variable that carries s in a transformed program: bound like any parameter (never
// differentiated), so a fit can shrink s without preparing the program again.
inline const char* kSigmaName = "%smooth-sigma";

struct SiStats {
  int smoothed = 0;  // comparisons that became probabilities
  int crisp = 0;     // comparisons on data alone, left as they were
};

// The program with every tested comparison on a value depending on one of `params` smoothed (see above): a free
// variable kSigmaName more. A program with no such comparison comes back unchanged (the same pointer).
ExprPtr smoothProgram(const ExprPtr& core, const std::vector<std::string>& params, const SmoothSettings& s,
                      SiStats* stats = nullptr);

// --- mc ---

struct Estimate {
  double value = 0, valueError = 0;             // P_s(theta) and its standard error
  std::vector<double> gradient, gradientError;  // per perturbed parameter
  int64_t runs = 0;                             // program runs (lanes) made
};

// The smoothed value and gradient at `theta` (a value per parameter of `run`, in its prepared order), over the
// parameters at `perturbed` (indices into theta). One runLanes call of all the runs; the first failing run's
// error is the estimate's.
Result<Estimate> mcGradient(PreparedRun& run, const std::vector<double>& theta, const std::vector<size_t>& perturbed,
                            const SmoothSettings& s);

}  // namespace dmci::smooth
