// The MAP-Elites grid and the Pareto front.
#include "search/Archive.h"

#include <algorithm>
#include <cmath>

namespace dmci::search {

bool better(const Member& a, const Member& b) {
  if (a.score != b.score) return a.score < b.score;
  if (a.complexity != b.complexity) return a.complexity < b.complexity;
  return a.evaluation < b.evaluation;
}

bool EliteArchive::offer(const Member& m) {
  double relative = m.score / (spread_ > 0 ? spread_ : 1);
  int bin = relative > 0 ? static_cast<int>(std::floor(std::log10(relative))) : -16;
  std::pair<int, int> cell{std::clamp(bin, -16, 3), m.complexity};
  auto it = cells_.find(cell);
  if (it != cells_.end() && !better(m, it->second)) return false;
  cells_[cell] = m;
  return true;
}

const Member& EliteArchive::draw(std::mt19937_64& rng) const {
  auto it = cells_.begin();
  std::advance(it, static_cast<long>(std::uniform_int_distribution<size_t>(0, cells_.size() - 1)(rng)));
  return it->second;
}

std::vector<Member> EliteArchive::members() const {
  std::vector<Member> out;
  for (const auto& [cell, m] : cells_) out.push_back(m);
  return out;
}

const Member* EliteArchive::best() const {
  const Member* b = nullptr;
  for (const auto& [cell, m] : cells_)
    if (!b || better(m, *b)) b = &m;
  return b;
}

std::vector<Member> paretoFront(const std::vector<Member>& all) {
  std::vector<Member> sorted = all;
  std::sort(sorted.begin(), sorted.end(), [](const Member& a, const Member& b) {
    return a.complexity != b.complexity ? a.complexity < b.complexity : better(a, b);
  });
  std::vector<Member> front;
  for (const auto& m : sorted)
    if (front.empty() || m.score < front.back().score) front.push_back(m);
  return front;
}

}  // namespace dmci::search
