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
//       and blends them by that probability (numbers, and lists of one shape element by element; other values are
//       the likelier arm's). Each path carries its weight and a budget of paths (maxPaths), threaded through the
//       program's own procedures: a fork in a recursion's tail starts paths that run to the end, at most the
//       budget, the unlikeliest dropped first. min, max and abs on a parameter are their Gaussian smoothings at
//       the same width, floor, ceiling, round and truncate sums of smoothed steps, atan2's branch cut a smoothed
//       step (SmoothInterp.cpp). Deterministic; every engine and both routes run the transformed
//       program, so they agree as they do on any program.
//   mc  (Monte Carlo, mcGradient) the program's own runs at perturbed parameters theta + s u, run as lanes of one
//       batch through the engine seam: `pgo` (randomised finite differences in antithetic pairs) and `reinforce`
//       (the score function with a leave-one-out baseline), and `dgo`: each perturbed run's AD gradient plus a branch
//       term, a kernel density estimate at 0 of each branch condition times that condition's gradient, times the
//       jump between the branch's two arms. dgo runs the si transform of the program at the kernel's width h
//       (dgoBandwidth): at a smoothed comparison, d/dtheta of the blend p t + (1 - p) e with p = Phi(d/h) is
//       p t' + (1 - p) e' (the run's AD gradient) plus (t - e) phi(d/h)/h d' (the Gaussian kernel of the condition
//       d at 0, times its gradient d', times the jump t - e, both arms run); averaged over the perturbed runs the
//       kernels are the density estimate of the condition at 0. Each estimate comes with its standard error.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "expand/CoreExpr.h"

namespace dmci::smooth {

enum class Mode { Si, Mc };
enum class Estimator { Pgo, Reinforce, Dgo };

struct SmoothSettings {
  double sigma = 0;  // s; 0: no smoothing
  Mode mode = Mode::Si;
  Estimator estimator = Estimator::Pgo;
  int64_t samples = 1000;    // mc: runs of the program (pgo: rounded up to whole antithetic pairs)
  uint64_t seed = 1;         // mc: the draws u
  double minWeight = 1e-20;  // si: an arm whose probability is below this is not run
  double bandwidth = 0;      // mc dgo: the kernel's width on the branch conditions; 0: dgoBandwidth's rule
  bool dea = false;          // si: each comparison's width s |grad d| (where d's gradient can be derived)
  int64_t maxPaths = 8;      // si: the paths an `if` on a smoothed test may fork into, all told (0: no limit)
  bool on() const { return sigma != 0; }
};

// "si"/"mc", "pgo"/"reinforce"/"dgo": the value, or nullopt for anything else.
std::optional<Mode> parseMode(const std::string& s);
std::optional<Estimator> parseEstimator(const std::string& s);
const char* modeName(Mode m);
const char* estimatorName(Estimator e);

// dgo's kernel width h on the branch conditions: the settings' bandwidth, or Silverman's rule 1.06 s N^(-1/5) for N
// runs with a condition's spread taken as s (a condition with unit gradient). The branch term's bias is O(h^2): a
// linear condition d with gradient d' is smoothed to width sqrt(s^2 d'^2 + h^2) rather than s |d'| (on Heaviside
// 0.966 of the answer at N = 1,000, inside its standard error; on a condition with |d'| < 1 relatively more: give a
// smaller --smooth-bandwidth there, at more variance, which grows as 1/(N h)).
double dgoBandwidth(const SmoothSettings& s);

// The most runs one Monte Carlo estimate makes: its runs are the lanes of one batch, held in memory at once.
inline constexpr int64_t kMaxSamples = 100'000'000;

// Why these settings cannot run (sigma <= 0 or not finite, a sample count below 2 or above kMaxSamples, a minimum
// weight outside [0, 0.5), a negative path count, a negative or infinite bandwidth), or nullopt.
std::optional<std::string> checkSettings(const SmoothSettings& s);

// --- si ---

// The name of the free variable that carries s in a transformed program: bound like any parameter (never
// differentiated), so a fit can shrink s without preparing the program again.
inline const char* kSigmaName = "%smooth-sigma";

struct SiStats {
  int smoothed = 0;     // comparisons that became probabilities, and min, max, abs, steps and atan2 smoothed
  int crisp = 0;        // comparisons on data alone, left as they were
  int deaFallback = 0;  // --smooth-dea comparisons left at width s: d's gradient not derived (a call on a
                        // parameter in d, or a variable with no one constant slope)
  int forks = 0;        // `if`s on a smoothed test: each runs both arms (within the path budget)
  int threaded = 0;     // the program's procedures that take the caller's path state
};

// The program with every tested comparison on a value depending on one of `params` smoothed (see above): a free
// variable kSigmaName more. A program with no such comparison comes back unchanged (the same pointer). Throws
// DmciError (at the set!) for a program that forks and assigns a variable with set!: the arms' writes cannot be
// blended.
ExprPtr smoothProgram(const ExprPtr& core, const std::vector<std::string>& params, const SmoothSettings& s,
                      SiStats* stats = nullptr);

// --- mc ---

struct Estimate {
  double value = 0, valueError = 0;             // P_s(theta) and its standard error
  std::vector<double> gradient, gradientError;  // per perturbed parameter
  int64_t runs = 0;                             // program runs (lanes) made
};

// The run mcGradient needs, on `engine`, for `program` with parameters `names` (theta's order), of which `wrt` are
// perturbed (in the order of mcGradient's `perturbed`): pgo and reinforce run the program forward only; dgo runs its si
// transform (kSigmaName bound after `names`, to the kernel width) with the gradient over `wrt`. `stats` (may be null)
// counts dgo's smoothed comparisons. The caller's options give the route and the budget.
Result<std::unique_ptr<PreparedRun>> prepareMc(Engine& engine, const Program& program,
                                               const std::vector<std::string>& names,
                                               const std::vector<std::string>& wrt, const SmoothSettings& s,
                                               EvalOptions opts, SiStats* stats = nullptr);

// The smoothed value and gradient at `theta` (a value per parameter of `run`, in its prepared order), over the
// parameters at `perturbed` (indices into theta). `run` comes from prepareMc with the same settings. One runLanes
// call of all the runs; the first failing run's error is the estimate's.
Result<Estimate> mcGradient(PreparedRun& run, const std::vector<double>& theta, const std::vector<size_t>& perturbed,
                            const SmoothSettings& s);

// The estimators over any function of theta (the fit's whole data loss, dmci/fit/SmoothedLoss.h): `runs` is given the
// perturbed points (a column per parameter of theta, points[p][run], the perturbed parameters moved) and their count,
// and gives each run's value and, for dgo, its gradient over the perturbed parameters ([j][run], j in `perturbed`'s
// order; the function's own smoothing at the kernel width is the caller's). The draws, their order and the
// arithmetic are mcGradient's: with the same seed, the same numbers.
struct Runs {
  std::vector<double> value;
  std::vector<std::vector<double>> gradient;
};
using RunPoints = std::function<Result<Runs>(const std::vector<std::vector<double>>& points, int64_t count)>;
Result<Estimate> mcEstimate(const RunPoints& runs, const std::vector<double>& theta,
                            const std::vector<size_t>& perturbed, const SmoothSettings& s);

}  // namespace dmci::smooth
