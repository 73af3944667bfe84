// The final pick: which member of the Pareto front the search reports as its answer. The lowest error alone
// rewards every extra node that fits a little of the noise; PySR's rule ("best" model selection, Cranmer 2023)
// asks instead where the error falls fastest with size:
//
//   loss      each front member's mean squared error (its score squared), floored at (floor × the target's spread)²
//             so that differences below the fit's own precision do not count as gains
//   gain      -Δlog(loss) / Δcomplexity against the next simpler member of the front (0 for the simplest)
//   pick      among the members whose loss is within `window` times the lowest, the one with the largest gain
//             (the simpler one on a tie)
//
// On noise-free data the exact law is the knee: its gain is large and every larger member's is about zero. Under
// noise, members past the law only trade a little noise for size: small gains, so the law stays the pick.
//
// Under noise the losses flatten at the noise floor, and a window of 1.5x the lowest loss then holds members that
// are measurably worse than the law: `rho/cos(v/c)^1.08` at 1.19x the loss of `rho/sqrt(1 - v^2/c^2)` on 200
// held-out rows with 1% noise. So when the lowest loss is above the fit's precision (relative RMSE `noise`), the
// window narrows to what the held-out rows cannot tell apart from the lowest: a member with an excess loss Δ over
// noise of variance σ² differs from the best by a paired mean of Δ with a spread of about 2σ√Δ/√n on n rows, so it
// is worse at z standard errors when Δ/σ² > 4z²/n; the window is then min(window, 1 + 4z²/n), σ² the lowest loss.
#pragma once
#include <string>
#include <vector>

#include "search/Archive.h"

namespace dmci::search {

struct PickRule {
  double window = 1.5;  // candidates: loss at most window × the lowest loss
  double floor = 1e-9;  // relative RMSE below which losses are equal
  double z = 3;         // the held-out window's significance (standard errors), when the losses are noise
  double noise = 1e-6;  // relative RMSE above which the lowest loss is taken for noise, not the fit's precision
};

struct FrontPick {
  size_t index = 0;          // the pick's place in the front
  std::vector<double> loss;  // each member's loss, floored
  std::vector<double> gain;  // each member's drop in log loss per node against the next simpler member
  double threshold = 0;      // window × the lowest loss: the candidates' limit
  double window = 0;         // the window applied: the rule's, or the narrower held-out one under noise
  std::string why;           // the pick in words
};

// The pick from `front` (simplest first, as paretoFront gives it; not empty); `spread` scales the floor and the
// noise level; `rows` is how many rows the scores are measured on (0: unknown, the rule's window alone).
FrontPick pickFromFront(const std::vector<Member>& front, const PickRule& rule, double spread, size_t rows = 0);

}  // namespace dmci::search
