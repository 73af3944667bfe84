// Constants snapped to simple closed forms. A fitted 0.49999999 is a half, 3.1415927 is π and 0.60653066 is
// e^(-1/2): the law reads better, and a judge that rounds constants (SRBench's three decimals) sees the law
// rather than a number that only rounds near it. Each constant of the picked program (its literals, then its named
// parameters) is tried against the simplest closed forms near it (rationals p/q, their multiples and quotients by
// π and π², square roots, powers of e; 0 for a tiny one; the forms within 1e-7 of it, an exact fit's constant, before
// the rest of the window), each trial a refit of the program's other constants. One constant at a time, in order: each
// kept form stays fixed while the next is tried. A form is kept by either test:
//
//   tolerance    (noise-free data) within `window` of the fitted value, and the refit scores at most
//                (1 + tolerance) times the fitted score (plus the pick's floor)
//   statistical  (noisy data) the data cannot tell the snapped constants from the fitted ones: with k constants
//                fixed so far and n training rows, the likelihood ratio n log(RSS_k / RSS_0) of the training rows
//                stays within the χ² quantile of k degrees of freedom (`confidence`), and the score on the rows it
//                is measured on rises no more than the same bound there. RSS_0 is the fitted pick's, so the test is
//                joint over every constant fixed so far, not one at a time. Under noise the forms are looked for in a
//                wider window (the training RMSE relative to the target's RMS, at most `noiseWindow`), and every
//                constant is also tried at 0 (a term that only fits noise). On noise-free data RSS_0 is the fit's
//                precision and the test keeps nothing the tolerance would not.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "search/Archive.h"
#include "search/Score.h"

namespace dmci::search {

struct SimpleConstant {
  double value = 0;
  Expr form;           // how a program writes it: 0.5, (/ 1 3), (acos -1), (exp -0.5), (sqrt (/ 1 (* 2 (acos -1))))
  int simplicity = 0;  // smaller is simpler
};

// The simple constants within relative distance `window` of x, simplest first (then nearest).
std::vector<SimpleConstant> simpleConstantsNear(double x, double window);

struct SnapSettings {
  double tolerance = 0.01;   // relative rise of the score allowed
  double floor = 0;          // an absolute rise always allowed (the pick's floor × the target's spread)
  double window = 0.01;      // how far (relative) a simple form may be from the fitted value
  int tries = 3;             // forms tried per constant
  double zero = 1e-3;        // a constant smaller than this is first tried at 0 (a term that only fits rounding)
  double confidence = 0.99;  // the statistical test's level (the χ² quantile; 0: the tolerance alone)
  double noiseWindow = 0.1;  // the widest window under noise
  int noiseTries = 4;        // forms tried per constant in the wider window (then 0)
};

// The p quantile of the χ² distribution with k degrees of freedom (Wilson and Hilferty's cube-root approximation,
// within about 1% for k >= 1 at p = 0.99).
double chiSquareQuantile(int k, double p);

struct SnappedConstant {
  std::string where;  // "literal N" (Nth number of the program's value, from 1) or the parameter's name
  double fitted = 0, value = 0;
  Expr form;
};

struct Snapped {
  std::vector<SnappedConstant> constants;  // the constants kept at a simple form (empty: none was)
  Candidate candidate;                     // the program with those forms written in, the rest refitted
  double score = 0, holdoutRmse = 0, trainRmse = 0;
  int tried = 0;        // forms tried (each one fit)
  int statistical = 0;  // of the constants kept, those the statistical test kept (the tolerance would not have)
  // The snapped program is the search's reported pick (its `best`, the fitted form beside it): some constant
  // snapped and the score within the tolerance of the fitted pick's (set by the search, search/Search.h).
  bool reported = false;
};

// The value of an expression of numbers alone ((sqrt (/ 5 7)), (* 2 (acos -1))), or nullopt (a name, an operator
// this does not know, a value that is not finite).
std::optional<double> constantValue(const Expr& e);

// Folds the constant operands of each sum and product of `c`'s value into one literal (into a parameter that is
// another operand there and read nowhere else): the same function, with one constant where a fit or an earlier
// snap left several that only their sum or product decides (sqrt(5/7) - sqrt(3/4) - 1/12 + 1.1042 is one 1.0000).
// Snapping then tries the simple forms of that one constant. Then a ratio of sums whose denominator has one constant
// term c (every term of both a number or a number times the rest) is divided through by c, so that the scale the
// data cannot fix is 1. Returns the number of sums, products and ratios rewritten.
int foldConstants(Candidate& c);

// Snaps the constants of `m` (folded first, foldConstants; as it was when that leaves more fitted constants
// unsnapped) (a scored member of the search on `task`); `seed` drives the refits.
Snapped snapConstants(const Task& task, const ScoreSettings& settings, const Member& m, const SnapSettings& snap,
                      uint64_t seed);

}  // namespace dmci::search
