// What `dmci fuzz --save` writes: failures the gate can rerun become manifest pairs (a lane failure with the
// lanes the lane property used), the rest text files; the saved manifest reads back and the gate runs it.
#include "properties/Campaign.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "oracle/gate/Gate.h"
#include "oracle/gate/Manifest.h"
#include "properties/Properties.h"

namespace dmci::props {
namespace {

namespace fs = std::filesystem;

Failure failure(uint64_t index, const std::string& property, const std::string& text, std::vector<SeedValue> seed) {
  Failure f;
  f.index = index;
  f.property = property;
  f.shrunk.text = text;
  f.shrunk.seed = seed;
  for (const auto& s : seed) f.shrunk.wrt.push_back(s.name);
  f.shrunk.family = "arithmetic";
  f.detail = "batched value 1 vs alone 2\nsecond line of the detail";
  return f;
}

TEST(SaveFailures, ALaneFailureBecomesAPairWithTheLanesTheGateReruns) {
  fs::path dir = fs::temp_directory_path() / ("dmci_campaign_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CampaignReport report;
  report.seed = 7;
  report.failures = {failure(3, "lanes", "(if (< x 1) (* x x) (- x))", {{"x", 0.95}}),
                     failure(4, "triangle", "(* y y)", {{"y", 2}}),
                     failure(5, "lanes", "(+ 1 2)", {}),  // nothing to vary: text only
                     failure(6, "expand", "(let ((a 1)) a)", {})};
  size_t written = 0;
  ASSERT_EQ(saveFailures(report, dir.string(), &written), "");
  EXPECT_EQ(written, 4u);
  EXPECT_TRUE(fs::exists(dir / "fuzz-7-3.lanes.scm"));
  EXPECT_TRUE(fs::exists(dir / "fuzz-7-4.scm"));
  EXPECT_TRUE(fs::exists(dir / "fuzz-7-5.lanes.txt"));
  EXPECT_TRUE(fs::exists(dir / "fuzz-7-6.expand.txt"));

  auto m = gate::loadManifest(dir.string());
  ASSERT_TRUE(m) << m.error().str();
  ASSERT_EQ(m->pairs.size(), 2u);
  const gate::GatePair& lanes = m->pairs[0];
  EXPECT_EQ(lanes.name, "fuzz/7/3");
  ASSERT_EQ(lanes.lanes.size(), 1u);
  EXPECT_EQ(lanes.lanes[0].first, "x");
  EXPECT_EQ(lanes.lanes[0].second, caseLanes(report.failures[0].shrunk)[0].second);
  EXPECT_EQ(lanes.laneCount(), static_cast<size_t>(LaneOptions{}.lanes));
  EXPECT_EQ(lanes.lanes[0].second[0], 0.95);  // lane 0 is the seed itself
  EXPECT_TRUE(m->pairs[1].lanes.empty());

  // The saved program (its multi-line detail a comment) runs, and its lanes, which part at x = 1, pass.
  gate::PairResult r = gate::checkPair(dir.string(), lanes, gate::GateOptions{});
  EXPECT_EQ(r.status, Verdict::Pass) << (r.reasons.empty() ? "" : r.reasons.front());
  EXPECT_EQ(r.lanes, lanes.laneCount());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dmci::props
