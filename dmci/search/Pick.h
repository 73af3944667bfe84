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
#pragma once
#include <string>
#include <vector>

#include "search/Archive.h"

namespace dmci::search {

struct PickRule {
  double window = 1.5;  // candidates: loss at most window × the lowest loss
  double floor = 1e-9;  // relative RMSE below which losses are equal
};

struct FrontPick {
  size_t index = 0;          // the pick's place in the front
  std::vector<double> loss;  // each member's loss, floored
  std::vector<double> gain;  // each member's drop in log loss per node against the next simpler member
  double threshold = 0;      // window × the lowest loss: the candidates' limit
  std::string why;           // the pick in words
};

// The pick from `front` (simplest first, as paretoFront gives it; not empty); `spread` scales the floor.
FrontPick pickFromFront(const std::vector<Member>& front, const PickRule& rule, double spread);

}  // namespace dmci::search
