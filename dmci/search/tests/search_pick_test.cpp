// The final pick from the search's Pareto front (search/Pick.h): PySR's rule on planted fronts, the knee of a
// noise-free front, the window and the floor, and a noisy front whose larger members only fit the noise.
#include <gtest/gtest.h>

#include "search/Pick.h"

namespace {

using namespace dmci::search;

// A front of (complexity, score) pairs, simplest first.
std::vector<Member> front(const std::vector<std::pair<int, double>>& points) {
  std::vector<Member> out;
  for (const auto& [c, score] : points) {
    Member m;
    m.complexity = c, m.score = m.holdoutRmse = score;
    out.push_back(m);
  }
  return out;
}

TEST(SearchPick, TheKneeOfTheFrontIsPickedNotTheLowestError) {
  // The law at complexity 5; two larger members shave a little more error.
  auto f = front({{1, 1.0}, {3, 0.5}, {5, 1e-3}, {7, 0.9e-3}, {9, 0.85e-3}});
  FrontPick p = pickFromFront(f, PickRule{}, 1);
  EXPECT_EQ(f[p.index].complexity, 5);
  EXPECT_NEAR(p.gain[2], -std::log(1e-6 / 0.25) / 2, 1e-12);
  EXPECT_EQ(p.gain[0], 0);
}

TEST(SearchPick, AMemberOutsideTheWindowIsNeverPicked) {
  // Complexity 3 has the largest drop per node, but its loss is far above 1.5 times the lowest.
  auto f = front({{1, 1.0}, {3, 1e-3}, {5, 1e-5}});
  FrontPick p = pickFromFront(f, PickRule{}, 1);
  EXPECT_GT(p.gain[1], p.gain[2]);
  EXPECT_EQ(f[p.index].complexity, 5);
  EXPECT_DOUBLE_EQ(p.threshold, 1.5e-10);
}

TEST(SearchPick, ErrorsBelowTheFloorAreNoGain) {
  // Noise-free data: the law reaches the fit's precision at complexity 4; a larger member's last digits are
  // rounding, not law.
  auto f = front({{1, 2.0}, {4, 3e-13}, {8, 2e-16}});
  FrontPick p = pickFromFront(f, PickRule{}, 10);
  EXPECT_EQ(f[p.index].complexity, 4);
  EXPECT_EQ(p.gain[2], 0);
  PickRule noFloor{1.5, 0};
  EXPECT_EQ(f[pickFromFront(f, noFloor, 10).index].complexity, 8);
}

TEST(SearchPick, UnderNoiseTheLawIsPickedNotTheMembersThatFitTheNoise) {
  // Noise with sigma 0.1: the law (complexity 5) scores about sigma; larger members buy 2% of it with 4 nodes each.
  auto f = front({{1, 1.0}, {3, 0.6}, {5, 0.1}, {9, 0.098}, {13, 0.0975}});
  FrontPick p = pickFromFront(f, PickRule{}, 4);
  EXPECT_EQ(f[p.index].complexity, 5);
  EXPECT_LE(p.loss[4], p.loss[2]);  // the lowest error is elsewhere
}

TEST(SearchPick, AOneMemberFrontIsItsOwnPick) {
  auto f = front({{3, 0.25}});
  FrontPick p = pickFromFront(f, PickRule{}, 1);
  EXPECT_EQ(p.index, 0u);
  EXPECT_FALSE(p.why.empty());
}

}  // namespace
