// Constants snapped to simple closed forms. A fitted 0.49999999 is a half, 3.1415927 is π and 0.60653066 is
// e^(-1/2): the law reads better, and a judge that rounds constants (SRBench's three decimals) sees the law
// rather than a number that only rounds near it. Each constant of the picked program (its literals, then its named
// parameters) is tried against the simplest closed forms near it (rationals p/q, their multiples and quotients by
// π and π², square roots, powers of e; 0 for a tiny one; the forms within 1e-7 of it, an exact fit's constant, before
// the rest of the window); a form is kept when, fixed there, the program's other constants
// fitted again score at most (1 + tolerance) times the fitted score (plus the pick's floor). One constant at a time, in
// order: each kept form stays fixed while the next is tried.
#pragma once
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
  double tolerance = 0.01;  // relative rise of the score allowed
  double floor = 0;         // an absolute rise always allowed (the pick's floor × the target's spread)
  double window = 0.01;     // how far (relative) a simple form may be from the fitted value
  int tries = 3;            // forms tried per constant
  double zero = 1e-3;       // a constant smaller than this is first tried at 0 (a term that only fits rounding)
};

struct SnappedConstant {
  std::string where;  // "literal N" (Nth number of the program's value, from 1) or the parameter's name
  double fitted = 0, value = 0;
  Expr form;
};

struct Snapped {
  std::vector<SnappedConstant> constants;  // the constants kept at a simple form (empty: none was)
  Candidate candidate;                     // the program with those forms written in, the rest refitted
  double score = 0, holdoutRmse = 0, trainRmse = 0;
  int tried = 0;  // forms tried (each one fit)
  // The snapped program is the search's reported pick (its `best`, the fitted form beside it): some constant
  // snapped and the score within the tolerance of the fitted pick's (set by the search, search/Search.h).
  bool reported = false;
};

// Snaps the constants of `m` (a scored member of the search on `task`); `seed` drives the refits.
Snapped snapConstants(const Task& task, const ScoreSettings& settings, const Member& m, const SnapSettings& snap,
                      uint64_t seed);

}  // namespace dmci::search
