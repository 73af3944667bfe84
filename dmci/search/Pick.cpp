// PySR's model selection on the search's front: losses, gains per node, the window, the pick.
#include "search/Pick.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dmci::search {

namespace {

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

}  // namespace

FrontPick pickFromFront(const std::vector<Member>& front, const PickRule& rule, double spread, size_t rows) {
  FrontPick p;
  const double floorRmse = rule.floor * (spread > 0 ? spread : 1);
  const double floorLoss = std::max(floorRmse * floorRmse, 1e-300);
  for (const auto& m : front) p.loss.push_back(std::max(m.score * m.score, floorLoss));
  p.gain.assign(front.size(), 0);
  for (size_t k = 1; k < front.size(); ++k) {
    int dc = std::max(1, front[k].complexity - front[k - 1].complexity);
    p.gain[k] = std::max(0.0, -std::log(p.loss[k] / p.loss[k - 1]) / dc);
  }
  double lowest = *std::min_element(p.loss.begin(), p.loss.end());
  const double noiseRmse = rule.noise * (spread > 0 ? spread : 1);
  p.window = rule.window;
  const bool noisy = rows > 0 && lowest > noiseRmse * noiseRmse;
  if (noisy) p.window = std::min(rule.window, 1 + 4 * rule.z * rule.z / static_cast<double>(rows));
  p.threshold = p.window * lowest;
  bool any = false;
  for (size_t k = 0; k < front.size(); ++k)
    if (p.loss[k] <= p.threshold && (!any || p.gain[k] > p.gain[p.index])) p.index = k, any = true;
  size_t within =
      static_cast<size_t>(std::count_if(p.loss.begin(), p.loss.end(), [&](double l) { return l <= p.threshold; }));
  p.why = "of the " + std::to_string(within) + " front members within " + number(p.window) + "x the lowest loss (MSE " +
          number(lowest) + "), complexity " + std::to_string(front[p.index].complexity) +
          " has the largest drop in log loss per node (" + number(p.gain[p.index]) + ") against the next simpler";
  if (p.window < rule.window)
    p.why += " (the window narrowed from " + number(rule.window) + "x: the lowest loss is noise, and a member above " +
             number(p.window) + "x it is worse by " + number(rule.z) + " standard errors on " + std::to_string(rows) +
             " rows)";
  return p;
}

}  // namespace dmci::search
