// What the search keeps of its scored candidates: members, the MAP-Elites archive and the Pareto front.
//
//   archive  one elite per cell of a grid binned by score (the held-out error by default: a decade of error
//            relative to the target's spread per bin, 1e-16 ... 1e3) and complexity (one bin per node count):
//            the best candidate of each kind found so far, small or large, good or rough, so that parents keep
//            coming from everywhere (as OpenEvolve's MAP-Elites does) and not only from the current leaders.
//   front    the candidates no other beats on both score and complexity, simplest first.
#pragma once
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "search/Expr.h"

namespace dmci::search {

struct Member {
  Candidate candidate;
  double holdoutRmse = 0, trainRmse = 0;
  int complexity = 0;
  uint64_t evaluation = 0;  // which evaluation found it (1-based)
  double score = 0;         // what the search ranks by: the held-out RMSE, or the RMSE on every row (--score all)
};

// Lower score (held-out error by default), then lower complexity, then found earlier: the order of "better".
bool better(const Member& a, const Member& b);

class EliteArchive {
 public:
  EliteArchive() = default;
  explicit EliteArchive(double spread) : spread_(spread) {}
  // Keeps `m` when its cell is empty or it is better than the cell's elite; true when kept.
  bool offer(const Member& m);
  bool empty() const { return cells_.empty(); }
  size_t size() const { return cells_.size(); }
  // A uniformly drawn elite (the archive must not be empty).
  const Member& draw(std::mt19937_64& rng) const;
  // Every elite, in cell order.
  std::vector<Member> members() const;
  const Member* best() const;
  double spread() const { return spread_; }

 private:
  double spread_ = 1;
  std::map<std::pair<int, int>, Member> cells_;  // (error bin, complexity) -> elite
};

// The Pareto front of `all` (score against complexity), by increasing complexity.
std::vector<Member> paretoFront(const std::vector<Member>& all);

}  // namespace dmci::search
