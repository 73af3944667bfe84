// The oracle: a deliberately simple reference evaluator in 100-digit arithmetic,
// and the finite-difference gradient built on it.
//
// It shares nothing with the engines but the reader, the expander and the
// prelude linking (source-to-source): it is a recursive tree-walker over the
// core AST, templated on the number type, with its own implementation of
// every primitive. Its gradient owes nothing to any AD code: central
// differences with a step of about 1e-30 in cpp_bin_float_100, where both
// truncation (h^2 f''', about 1e-60) and rounding (1e-100/h, about 1e-70)
// errors are far below double precision, and below the 1e-30 to which the
// oracle's own tests check closed forms. A second step size tests smoothness: a seed where the program is
// not differentiable (a branch threshold or a kink at the seed, a clamp) is
// reported as such, with the reason.
#pragma once
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "driver/Program.h"

namespace dmci::oracle {

using Wide = boost::multiprecision::cpp_bin_float_100;

// Where to evaluate: seed parameter values, and literal values overriding the
// program text, keyed by the literal's position "file:line:col".
struct Point {
  std::vector<std::pair<std::string, Wide>> params;
  std::map<std::string, Wide> literals;
};

struct WideValue {
  bool isTensor = false;
  std::vector<Wide> data;  // a tensor's entries, row-major
  Wide total;              // the number, or the sum of a tensor's entries
};

// The program's value at a point (the program's own literals where not overridden).
Result<WideValue> evaluate(const Program& program, const Point& point, const Budget& budget = {});

// How far rounding to double can move the program's value at a point: the largest |v_k - v| over `samples`
// runs with random rounding (each primitive's inexact result rounded up or down at random, CESTAC), v the
// exact value. A value computed in double that misses v by a few times this is as good as double allows:
// iterated maps and cancelling sums amplify rounding far past 1e-16 of the value. Runs that fail (rounding
// took a branch into an error) are skipped; an error when every run fails.
Result<double> roundingSpread(const Program& program, const Point& point, const Budget& budget = {}, int samples = 4,
                              uint64_t seed = 1);

// Every literal of the program (after linking), keyed as the engines key them.
std::vector<std::pair<std::string, double>> literals(const Program& program, const std::vector<std::string>& params);

struct FdOptions {
  double step = 1e-30;        // relative to max(1, |x|)
  double coarseStep = 1e-15;  // the second step of the smoothness test
  double smoothTol = 1e-9;    // relative disagreement between the two that marks a kink
  Budget budget;
};

// Every decision a run takes (a comparison, abs, min, max, rounding, an integer argument such as a
// list index) is recorded at the seed, and the perturbed runs replay the seed's outcomes. So each
// component is the derivative along the seed's path, which is what reverse mode computes, and a
// perturbed run whose own outcome would differ marks the seed as not differentiable. Reasons read:
//   "branch threshold at the seed: < at prog.scm:3:7 (|a-b| = 0); perturbing x by -1e-30 changes it"
//   "kink at the seed: abs at prog.scm:1:1 (argument 0); perturbing x by -1e-30 changes it"
//   "discrete argument at the seed: list-ref at ...", "... near the seed: ..." (within a step of it),
//   "non-finite value", "evaluation fails near the seed (...): <error>",
//   "the derivative with respect to x depends on the step: ..." (the two steps disagree),
//   "the one-sided derivatives with respect to x differ: ..." (a kink no primitive reported).
struct FdGradient {
  double value = 0;                                      // at the seed, rounded to double
  std::vector<std::pair<std::string, double>> gradient;  // wrt names, then literals by position
  bool differentiable = true;
  std::string reason;      // when not: which branch, kink or clamp, and where
  size_t evaluations = 0;  // runs of the program it took: 1 + 4 per component
  std::vector<Wide> wide;  // the gradient before rounding, in the order of `gradient`
  // Coordinates used as integers (a size, an index, a loop bound): perturbing them flips an
  // integer decision, which does not make the program nondifferentiable; their gradient is the
  // one along the seed's path (usually 0), as reverse mode computes it.
  std::vector<std::string> notes;
};

// The central-difference gradient at the seed with respect to the named
// parameters and (when `wrtLiterals`) every literal.
Result<FdGradient> finiteDifference(const Program& program, const std::vector<SeedValue>& seed,
                                    const std::vector<std::string>& wrt, bool wrtLiterals, const FdOptions& opts = {});

// How far rounding to double can move the gradient at the seed, per component (keyed as `finiteDifference`
// keys them; absolute): the largest |g_k - g| over `samples` runs, g the exact finite difference and g_k the
// finite difference along a randomly rounded run. Run k takes the seed's decisions with random rounding
// (as roundingSpread's runs do) and records what rounding added to each result; its perturbed runs add the
// same amounts to the same results, so g_k is the derivative of the program with those rounding errors
// frozen: what reverse mode, its partials taken at the rounded values, computes. A gradient in double that
// misses g by a few times this is as good as double allows. Runs that fail are skipped; an error when every
// run fails.
Result<std::vector<std::pair<std::string, double>>> gradientRoundingSpread(const Program& program,
                                                                           const std::vector<SeedValue>& seed,
                                                                           const std::vector<std::string>& wrt,
                                                                           bool wrtLiterals, const FdOptions& opts = {},
                                                                           int samples = 4, uint64_t rounding = 1);

}  // namespace dmci::oracle
