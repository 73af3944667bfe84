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

TEST(SearchPick, UnderNoiseAMemberMeasurablyWorseThanTheLowestIsNoCandidate) {
  // 1% noise on 200 held-out rows: complexity 8 is a near miss at 1.3x the law's loss, well inside PySR's 1.5x
  // window, and its drop from complexity 7 is the largest. The held-out rows tell it from the law (its excess is
  // 0.3 sigma^2, past 4 z^2 / n = 0.18 at z = 3), so the window narrows to 1.18x and the law (complexity 13) is
  // the pick; with the rows unknown, PySR's window alone picks the near miss.
  const double sigma = 0.01;
  auto f = front({{3, 0.17}, {7, 0.05}, {8, sigma * std::sqrt(1.3)}, {13, sigma}, {20, sigma * 0.999}});
  FrontPick p = pickFromFront(f, PickRule{}, 1, 200);
  EXPECT_NEAR(p.window, 1.18, 1e-12);
  EXPECT_EQ(f[p.index].complexity, 13);
  EXPECT_NE(p.why.find("narrowed"), std::string::npos);
  FrontPick unknown = pickFromFront(f, PickRule{}, 1);
  EXPECT_EQ(unknown.window, 1.5);
  EXPECT_EQ(f[unknown.index].complexity, 8);
}

TEST(SearchPick, WithoutNoiseTheWindowIsPySRs) {
  // The lowest loss at the fit's precision (relative RMSE 1e-8, below the noise level 1e-6): differences between
  // members are not noise, and the window stays 1.5x whatever the rows.
  auto f = front({{1, 1.0}, {5, 1.2e-8}, {9, 1e-8}});
  FrontPick p = pickFromFront(f, PickRule{}, 1, 200);
  EXPECT_EQ(p.window, 1.5);
  EXPECT_EQ(f[p.index].complexity, 5);
}

TEST(SearchPick, AOneMemberFrontIsItsOwnPick) {
  auto f = front({{3, 0.25}});
  FrontPick p = pickFromFront(f, PickRule{}, 1);
  EXPECT_EQ(p.index, 0u);
  EXPECT_FALSE(p.why.empty());
}

}  // namespace
