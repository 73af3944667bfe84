// The gate: its manifest reader, its verdicts on a small corpus (clean, with a planted adjoint fault,
// with wrong expectations) and its reports.
#include "oracle/gate/Gate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dmci/testing/WrappedEngine.h"
#include "oracle/gate/Manifest.h"
#include "oracle/gate/Summary.h"
#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "reports/ErrorHistogram.h"
#include "reports/GateReport.h"

namespace dmci::gate {
namespace {

const std::string kCorpus = std::string(DMCI_SOURCE_DIR) + "/oracle/gate/tests/data";

Manifest corpus() {
  auto m = loadManifest(kCorpus);
  if (!m) throw std::runtime_error(m.error().str());
  return *m;
}

GatePair pairNamed(const std::string& name) {
  for (const auto& p : corpus().pairs)
    if (p.name == name) return p;
  throw std::runtime_error("no pair " + name);
}

GateRun runCorpus(int jobs = 2) {
  GateOptions opts;
  opts.jobs = jobs;
  return runGate(kCorpus, corpus().pairs, opts);
}

std::set<std::string> namesWithStatus(const GateRun& run, Verdict s) {
  std::set<std::string> out;
  for (const auto& r : run.results)
    if (r.status == s) out.insert(r.pair.name);
  return out;
}

bool anyReasonHas(const PairResult& r, const std::string& text) {
  return std::any_of(r.reasons.begin(), r.reasons.end(),
                     [&](const std::string& why) { return why.find(text) != std::string::npos; });
}

std::string allReasons(const PairResult& r) {
  std::string s;
  for (const auto& why : r.reasons) s += why + "\n";
  return s;
}

// Clears planted faults however the test ends.
struct FaultGuard {
  FaultGuard(const std::string& prim, double scale) { plantAdjointFault(prim, scale); }
  ~FaultGuard() { clearAdjointFaults(); }
};

// --- the manifest ---

std::string manifestWith(const std::string& pairJson) { return R"({"version": 1, "pairs": [)" + pairJson + "]}"; }

const std::string kGoodPair = R"({"name": "a/1", "file": "a.scm", "family": "f", "bind": {"x": 1}, "wrt": ["x"]})";

TEST(Manifest, ReadsTheTestCorpus) {
  Manifest m = corpus();
  ASSERT_EQ(m.pairs.size(), 11u);
  const GatePair& p = m.pairs.front();
  EXPECT_EQ(p.name, "physics/kinetic/1");
  EXPECT_EQ(p.bind.size(), 2u);
  EXPECT_TRUE(p.literals);
  EXPECT_EQ(p.closedForm.size(), 3u);
  ASSERT_TRUE(p.closedValue.has_value());
  EXPECT_EQ(*p.closedValue, 9.0);
  EXPECT_EQ(p.routes, (std::vector<Route>{Route::Direct, Route::Dmci}));
}

TEST(Manifest, DefaultsExpectToPassAndLiteralsToOff) {
  auto m = parseManifest(manifestWith(kGoodPair), "d", "d/manifest.json");
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ(m->pairs[0].expect, Expect::Pass);
  EXPECT_FALSE(m->pairs[0].literals);
}

TEST(Manifest, AMissingFieldNamesTheFileThePairAndTheField) {
  auto m = parseManifest(manifestWith(kGoodPair + R"(, {"name": "b/2", "file": "b.scm", "family": "f", "wrt": []})"),
                         "d", "d/manifest.json");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().message, "d/manifest.json: pair 2 (b/2): missing 'bind'");
}

TEST(Manifest, AnUnknownFieldIsAnError) {
  auto m = parseManifest(manifestWith(R"({"name": "a/1", "file": "a.scm", "family": "f", "bind": {}, "wrt": [],
                                          "closed-form": {}})"),
                         "d", "d/manifest.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("unknown field 'closed-form'"), std::string::npos) << m.error().message;
}

TEST(Manifest, WrtMustNameABoundParameter) {
  auto m = parseManifest(manifestWith(R"({"name": "a/1", "file": "a.scm", "family": "f", "bind": {"x": 1},
                                          "wrt": ["y"]})"),
                         "d", "d/manifest.json");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("'wrt' names 'y'"), std::string::npos) << m.error().message;
}

TEST(Manifest, ExpectAndRoutesTakeOnlyKnownWords) {
  auto bad = [](const std::string& extra) {
    return !parseManifest(
        manifestWith(R"({"name": "a/1", "file": "a.scm", "family": "f", "bind": {}, "wrt": [], )" + extra + "}"), "d",
        "d/manifest.json");
  };
  EXPECT_TRUE(bad(R"("expect": "fail")"));
  EXPECT_TRUE(bad(R"("routes": ["direct", "tensor"])"));
  EXPECT_FALSE(bad(R"("routes": ["dmci2"])"));
}

TEST(Manifest, DirectIsAlwaysTheFirstRoute) {
  auto m = parseManifest(manifestWith(R"({"name": "a/1", "file": "a.scm", "family": "f", "bind": {}, "wrt": [],
                                          "routes": ["dmci2", "direct"]})"),
                         "d", "d/manifest.json");
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_EQ(m->pairs[0].routes, (std::vector<Route>{Route::Direct, Route::Dmci2}));
}

TEST(Manifest, DuplicateNamesAreAnError) {
  EXPECT_FALSE(parseManifest(manifestWith(kGoodPair + ", " + kGoodPair), "d", "d/manifest.json"));
}

// A number past double's range ends no run: a usage error at its line and column, like a syntax error.
TEST(Manifest, ANumberPastDoublesRangeOrBadSyntaxIsAUsageErrorAtItsPlace) {
  auto m = parseManifest(
      "{\"version\": 1, \"pairs\": [{\"name\": \"a/1\", \"file\": \"a.scm\",\n"
      "  \"family\": \"f\", \"bind\": {\"x\": 1e999}, \"wrt\": [\"x\"]}]}",
      "d", "d/manifest.json");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().kind, ErrorKind::Usage);
  EXPECT_EQ(m.error().str().rfind("d/manifest.json:2:32: usage-error: a number past double's range: ", 0), 0u)
      << m.error().str();
  m = parseManifest("{\"version\": 1,\n \"pairs\" []}", "d", "d/manifest.json");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().str().rfind("d/manifest.json:2:10: usage-error: not valid JSON: ", 0), 0u) << m.error().str();
}

// Each field of the wrong type is refused, naming the pair and the field.
TEST(Manifest, AFieldOfTheWrongTypeNamesThePairAndTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("bind": [1], "wrt": [])", "pair 1 (a/1): 'bind' must be an object of numbers"},
      {R"("bind": {"x": "1"}, "wrt": [])", "pair 1 (a/1): 'bind.x' must be a number"},
      {R"("bind": {"x": 1}, "wrt": "x")", "pair 1 (a/1): 'wrt' must be an array of strings"},
      {R"("bind": {"x": 1}, "wrt": [1])", "pair 1 (a/1): 'wrt' must be an array of strings"},
      {R"("bind": {"x": 1}, "wrt": [], "literals": 1)", "pair 1 (a/1): 'literals' must be true or false"},
      {R"("bind": {"x": 1}, "wrt": [], "closed_value": "9")", "pair 1 (a/1): 'closed_value' must be a number"},
      {R"("bind": {"x": 1}, "wrt": [], "lanes": {"x": [1, "2"]})", "'lanes.x' must be an array of at least two"},
      {R"("bind": {"x": 1}, "wrt": [], "routes": "dmci")", "pair 1 (a/1): 'routes' must be an array of strings"},
  };
  for (const auto& [fields, message] : cases) {
    auto m = parseManifest(manifestWith(R"({"name": "a/1", "file": "a.scm", "family": "f", )" + fields + "}"), "d",
                           "d/manifest.json");
    ASSERT_FALSE(m) << fields;
    EXPECT_EQ(m.error().kind, ErrorKind::Usage) << fields;
    EXPECT_NE(m.error().message.find(message), std::string::npos) << fields << ": " << m.error().message;
  }
  auto m = parseManifest(R"({"version": 1, "pairs": {"a": 1}})", "d", "d/manifest.json");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().message, "d/manifest.json: 'pairs' must be an array");
}

TEST(Manifest, AMissingManifestIsAnIoError) {
  auto m = loadManifest(kCorpus + "/no-such-dir");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().kind, ErrorKind::Io);
}

// --- comparison and selection ---

TEST(Gate, RelativeErrorDividesByTheLargerOfTheReferenceAndTheFloor) {
  EXPECT_DOUBLE_EQ(relativeError(3.0, 2.0, 1e-8), 0.5);
  EXPECT_DOUBLE_EQ(relativeError(1e-9, 0.0, 1e-8), 0.1);
  EXPECT_EQ(relativeError(1.0, std::nan(""), 1e-8), std::numeric_limits<double>::infinity());
  EXPECT_EQ(relativeError(std::nan(""), std::nan(""), 1e-8), 0.0);
}

TEST(Gate, AFilterIsARegexOrElseASubstring) {
  auto names = [](const std::vector<GatePair>& ps) {
    std::vector<std::string> out;
    for (const auto& p : ps) out.push_back(p.name);
    return out;
  };
  auto all = corpus().pairs;
  EXPECT_EQ(names(selectPairs(all, "^trig/")), (std::vector<std::string>{"trig/range/1", "trig/wave/1"}));
  EXPECT_EQ(names(selectPairs(all, "kinetic/t")), (std::vector<std::string>{"physics/kinetic/tower"}));
  EXPECT_TRUE(selectPairs(all, "(unclosed").empty());  // not a regex: a substring that no name holds
  EXPECT_EQ(selectPairs(all, "").size(), all.size());
}

// --- verdicts ---

TEST(Gate, TheTestCorpusPasses) {
  GateRun run = runCorpus();
  for (const auto& r : run.results) EXPECT_NE(r.status, Verdict::Fail) << r.pair.name << "\n" << allReasons(r);
  EXPECT_TRUE(gatePassed(run));
  EXPECT_EQ(namesWithStatus(run, Verdict::Nondifferentiable), (std::set<std::string>{"nondiff/kink/1"}));
  GateSummary s = summarize(run);
  EXPECT_EQ(s.all.pass, 10u);
  EXPECT_EQ(s.all.nondifferentiable, 1u);
}

TEST(Gate, ATowerPairComparesTheSecondLevelToo) {
  PairResult r = checkPair(kCorpus, pairNamed("physics/kinetic/tower"), GateOptions{});
  EXPECT_EQ(r.status, Verdict::Pass) << allReasons(r);
  ASSERT_EQ(r.errors.byRoute.size(), 2u);
  EXPECT_EQ(r.errors.byRoute[1].route, Route::Dmci2);
  EXPECT_TRUE(r.errors.byRoute[1].vsFd.has_value());
}

TEST(Gate, APlantedSinFaultFailsExactlyThePairsThatUseSin) {
  GateRun run;
  {
    FaultGuard fault("sin", 1.5);
    run = runCorpus();
  }
  EXPECT_FALSE(gatePassed(run));
  std::set<std::string> sinPairs{"trig/range/1", "trig/wave/1", "higher-order/compose/1", "dynamics/pendulum/1"};
  EXPECT_EQ(namesWithStatus(run, Verdict::Fail), sinPairs);
  for (const auto& r : run.results) {
    if (!sinPairs.count(r.pair.name)) continue;
    EXPECT_TRUE(anyReasonHas(r, "vs fd")) << r.pair.name << "\n" << allReasons(r);
  }
}

TEST(Gate, TheLanternRouteAgreesOnTheWholeTestCorpus) {
  GateOptions opts;
  opts.jobs = 2;
  opts.lantern = true;
  GateRun run = runGate(kCorpus, corpus().pairs, opts);
  EXPECT_TRUE(gatePassed(run));
  for (const auto& r : run.results) {
    EXPECT_EQ(r.routes.back().route, Route::Lantern) << r.pair.name;
    ASSERT_TRUE(r.errors.lanternVsDirect.has_value()) << r.pair.name << "\n" << allReasons(r);
    EXPECT_LE(*r.errors.lanternVsDirect, 1e-12) << r.pair.name;
  }
}

TEST(Gate, ATensorPairIsRunByLantern) {
  GatePair p = pairNamed("physics/kinetic/1");
  p.file = "tensors/sum.scm";
  p.bind = {{"x", 0.5}};
  p.wrt = {"x"};
  p.literals = false;
  p.closedForm.clear();
  p.closedValue.reset();
  GateOptions opts;
  opts.lantern = true;
  PairResult r = checkPair(kCorpus, p, opts);
  EXPECT_EQ(r.status, Verdict::Pass) << allReasons(r);
  EXPECT_EQ(r.lanternUncovered, "");
  EXPECT_EQ(r.routes.back().route, Route::Lantern);
  ASSERT_TRUE(r.errors.lanternVsDirect.has_value()) << allReasons(r);
  EXPECT_LE(*r.errors.lanternVsDirect, 1e-12);
  GateRun run;
  run.results = {r};
  EXPECT_EQ(summarize(run).all.lanternUncovered, 0u);
}

TEST(Gate, APlantedSinFaultIsAttributedToTheTapeByLantern) {
  GatePair pair = pairNamed("trig/range/1");
  GateOptions opts;
  opts.lantern = true;
  PairResult r;
  {
    FaultGuard fault("sin", 1.5);
    r = checkPair(kCorpus, pair, opts);
  }
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "disagreeing with the finite difference: direct, dmci; agreeing: lantern"))
      << allReasons(r);
  ASSERT_TRUE(r.errors.lanternVsFd.has_value());
  EXPECT_LE(*r.errors.lanternVsFd, 1e-10);
  ASSERT_TRUE(r.errors.lanternVsDirect.has_value());
  EXPECT_GT(*r.errors.lanternVsDirect, 0.1);
}

TEST(Gate, PlantingAFaultOnAnUnknownPrimitiveThrows) {
  EXPECT_THROW(plantAdjointFault("no-such-prim", 2.0), std::invalid_argument);
  EXPECT_THROW(plantAdjointFault("floor", 2.0), std::invalid_argument);  // piecewise constant: no partial
}

TEST(Gate, AWrongClosedFormFails) {
  GatePair p = pairNamed("physics/kinetic/1");
  p.closedForm = {{"m", 4.6}};
  PairResult r = checkPair(kCorpus, p, GateOptions{});
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "closed form d/d m")) << allReasons(r);
}

TEST(Gate, AClosedFormForAKeyNoGradientHasFails) {
  GatePair p = pairNamed("physics/kinetic/1");
  p.closedForm = {{"physics/kinetic.scm:9:9", 1.0}};
  PairResult r = checkPair(kCorpus, p, GateOptions{});
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "has no component d/d physics/kinetic.scm:9:9")) << allReasons(r);
}

TEST(Gate, ANondifferentiableSeedExpectedToPassFails) {
  GatePair p = pairNamed("nondiff/kink/1");
  p.expect = Expect::Pass;
  PairResult r = checkPair(kCorpus, p, GateOptions{});
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "expected pass, but the oracle finds the program nondifferentiable")) << allReasons(r);
}

TEST(Gate, ASmoothSeedExpectedNondifferentiableFails) {
  GatePair p = pairNamed("physics/kinetic/1");
  p.expect = Expect::Nondifferentiable;
  PairResult r = checkPair(kCorpus, p, GateOptions{});
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "smooth")) << allReasons(r);
}

TEST(Gate, AWrongClosedValueFails) {
  GatePair p = pairNamed("physics/kinetic/1");
  p.closedValue = 9.5;
  PairResult r = checkPair(kCorpus, p, GateOptions{});
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "closed value vs direct")) << allReasons(r);
}

TEST(Gate, AMissingProgramFailsItsPairOnly) {
  GatePair p = pairNamed("physics/kinetic/1");
  p.file = "physics/no-such-program.scm";
  PairResult r = checkPair(kCorpus, p, GateOptions{});
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "cannot read")) << allReasons(r);
}

// --- values of ill-conditioned programs: the rounding-spread rule ---

// x_20 of the logistic map at r = 4 (corpus/ill-conditioned): rounding doubles every step, so the double value
// misses the exact one by ~1e-11 relative however well the engines compute.
GatePair logisticPair() {
  GatePair p;
  p.name = "ill-conditioned/logistic_r4/1";
  p.file = "ill-conditioned/logistic_r4.scm";
  p.family = "ill-conditioned";
  p.bind = {{"theta", 0.3}};
  p.wrt = {"theta"};
  return p;
}
const std::string kMainCorpus = std::string(DMCI_SOURCE_DIR) + "/corpus";

TEST(Gate, AnIllConditionedValuePassesWithinTheRoundingSpreadAndSaysSo) {
  PairResult r = checkPair(kMainCorpus, logisticPair(), GateOptions{});
  EXPECT_EQ(r.status, Verdict::Pass) << allReasons(r);
  ASSERT_TRUE(r.oracle.roundingSpread.has_value());
  double miss = std::fabs(r.routes.front().value - r.oracle.value);
  EXPECT_GT(miss, 1e-12 * std::fabs(r.oracle.value));  // the plain value criterion alone would fail it
  EXPECT_LE(miss, 8 * *r.oracle.roundingSpread);
  ASSERT_EQ(r.notes.size(), 2u);  // direct and dmci
  EXPECT_NE(r.notes[0].find("rounding spread"), std::string::npos) << r.notes[0];
  EXPECT_EQ(summarize(GateRun{"", {}, 1, {r}, 0}).all.illConditioned, 1u);
}

TEST(Gate, WithoutTheRoundingRuleTheIllConditionedValueFails) {
  GateOptions opts;
  opts.criteria.rounding = 0;
  PairResult r = checkPair(kMainCorpus, logisticPair(), opts);
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "value direct vs oracle")) << allReasons(r);
  EXPECT_FALSE(r.oracle.roundingSpread.has_value());
}

TEST(Gate, AWellConditionedValueOffByOneInABillionStillFails) {
  // An engine whose values are 1e-9 off: far beyond the rounding spread of a well-conditioned program.
  GateOptions opts;
  testing::WrappedEngine engine;
  engine.onRun = [](const auto&, const auto&, Result<Evaluation>& ev) {
    if (ev) ev->value *= 1 + 1e-9;
  };
  opts.engine = &engine;
  PairResult r = checkPair(kCorpus, pairNamed("physics/kinetic/1"), opts);
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "value direct vs oracle, rounding spread")) << allReasons(r);
  ASSERT_TRUE(r.oracle.roundingSpread.has_value());
  EXPECT_LE(*r.oracle.roundingSpread, 4e-16 * std::fabs(r.oracle.value));
  EXPECT_TRUE(r.notes.empty());
}

// --- gradients of ill-conditioned programs: the same rule against the finite difference ---

// dmci fuzz --seed 31337, case 56917 (corpus/ill-conditioned): the double value misses the exact one by 6e-5
// relative, and direct's and dmci's gradient (equal) miss the 100-digit finite difference by 1.5e-5 (> 1e-6).
GatePair fuzz56917Pair() {
  GatePair p;
  p.name = "ill-conditioned/fuzz_31337_56917/1";
  p.file = "ill-conditioned/fuzz_31337_56917.scm";
  p.family = "ill-conditioned";
  p.bind = {{"x", -1.3203125}};
  p.wrt = {"x"};
  p.literals = false;
  return p;
}

// How far the route's d/dx misses the finite difference's, and that component's rounding spread.
std::pair<double, double> missAndSpread(const PairResult& r, const RouteRun& route) {
  double fd = r.oracle.gradient.at(0).second, spread = r.oracle.gradientRoundingSpread->at(0).second;
  return {std::fabs(route.gradient.at(0).second - fd), spread};
}

TEST(Gate, AnIllConditionedGradientPassesWithinItsRoundingSpreadAndSaysSo) {
  PairResult r = checkPair(kMainCorpus, fuzz56917Pair(), GateOptions{});
  EXPECT_EQ(r.status, Verdict::Pass) << allReasons(r);
  ASSERT_TRUE(r.oracle.gradientRoundingSpread.has_value());
  ASSERT_EQ(r.oracle.gradientRoundingSpread->size(), 1u);
  EXPECT_EQ(r.oracle.gradientRoundingSpread->at(0).first, "x");
  ASSERT_EQ(r.routes.size(), 2u);
  for (const RouteRun& route : r.routes) {
    auto [miss, spread] = missAndSpread(r, route);
    EXPECT_GT(miss, 1e-6 * std::fabs(r.oracle.gradient.at(0).second));  // the plain fd criterion alone fails it
    EXPECT_LE(miss, 8 * spread);
  }
  auto noted = std::count_if(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("the gradient is ill-conditioned") != std::string::npos;
  });
  EXPECT_EQ(noted, 2);  // direct and dmci
  EXPECT_EQ(summarize(GateRun{"", {}, 1, {r}, 0}).all.illConditioned, 1u);
  // The report keeps the spread, and reading it back (dmci merge) restores it.
  GateRun run{kMainCorpus, {}, 1, {r}, 0};
  reports::Provenance from;
  from.kind = "gate";
  from.selected = 1;
  auto json = reports::gateJson(run, summarize(run), from);
  EXPECT_EQ(json["pairs"][0]["oracle"]["gradient_rounding_spread"]["x"], r.oracle.gradientRoundingSpread->at(0).second);
  auto back = reports::readGateReport(json, "gate.json");
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(back->run.results.at(0).oracle.gradientRoundingSpread, r.oracle.gradientRoundingSpread);
}

TEST(Gate, WithoutTheRoundingRuleTheIllConditionedGradientFails) {
  GateOptions opts;
  opts.criteria.rounding = 0;
  PairResult r = checkPair(kMainCorpus, fuzz56917Pair(), opts);
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "gradient direct vs fd: d/d x")) << allReasons(r);
  EXPECT_TRUE(anyReasonHas(r, "gradient dmci vs fd: d/d x")) << allReasons(r);
  EXPECT_FALSE(r.oracle.gradientRoundingSpread.has_value());
}

TEST(Gate, AGradientWrongBeyondItsRoundingSpreadStillFails) {
  // The same ill-conditioned pair with a planted fault: the tape's sin partials 1% off. The rule is consulted
  // (the spread is measured) and rejects the gradient: its miss is beyond 8 times the spread.
  FaultGuard fault("sin", 1.01);
  PairResult r = checkPair(kMainCorpus, fuzz56917Pair(), GateOptions{});
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "gradient direct vs fd: d/d x")) << allReasons(r);
  EXPECT_TRUE(anyReasonHas(r, "gradient dmci vs fd: d/d x")) << allReasons(r);
  ASSERT_TRUE(r.oracle.gradientRoundingSpread.has_value());
  auto [miss, spread] = missAndSpread(r, r.routes.front());
  EXPECT_GT(miss, 8 * spread);
}

TEST(Gate, AWellConditionedGradientOffByOneInAHundredThousandStillFails) {
  // An engine whose gradients are 1e-5 off: beyond 1e-6 and far beyond a well-conditioned program's spread.
  GateOptions opts;
  testing::WrappedEngine engine;
  engine.onRun = [](const auto&, const auto&, Result<Evaluation>& ev) {
    if (ev)
      for (auto& [name, g] : ev->gradient) g *= 1 + 1e-5;
  };
  opts.engine = &engine;
  PairResult r = checkPair(kCorpus, pairNamed("physics/kinetic/1"), opts);
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "gradient direct vs fd")) << allReasons(r);
  ASSERT_TRUE(r.oracle.gradientRoundingSpread.has_value());
  for (size_t k = 0; k < r.oracle.gradient.size(); ++k)
    EXPECT_LE(r.oracle.gradientRoundingSpread->at(k).second, 4e-16 * std::fabs(r.oracle.gradient[k].second))
        << r.oracle.gradient[k].first;
  EXPECT_TRUE(r.notes.empty());
}

// --- lanes: batched vs each lane alone ---

GatePair mainPairNamed(const std::string& name) {
  auto m = loadManifest(kMainCorpus);
  if (!m) throw std::runtime_error(m.error().str());
  for (const auto& p : m->pairs)
    if (p.name == name) return p;
  throw std::runtime_error("no pair " + name);
}

TEST(Gate, LanesThatPartAtBranchesAndDepthsEqualEachLaneAloneBitForBit) {
  GatePair p = mainPairNamed("lanes/divergent_depth/1");
  ASSERT_EQ(p.laneCount(), 12u);
  PairResult r = checkPair(kMainCorpus, p, GateOptions{});
  EXPECT_EQ(r.status, Verdict::Pass) << allReasons(r);
  EXPECT_EQ(r.lanes, 12u);
  ASSERT_TRUE(r.errors.batchedVsAlone.has_value());
  EXPECT_EQ(*r.errors.batchedVsAlone, 0.0);
}

TEST(Gate, ABatchThatDiffersFromALaneAloneByOneUlpFailsAndNamesTheLane) {
  GateOptions opts;
  testing::WrappedEngine engine;
  engine.onLanes = [](Result<LaneEvaluation>& r) {
    if (r) r->gradient[0][5] = std::nextafter(r->gradient[0][5], 1e300);  // lane 5's first gradient component
  };
  opts.engine = &engine;
  PairResult r = checkPair(kMainCorpus, mainPairNamed("lanes/repeat_closure/1"), opts);
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "lanes, direct, lane 5 (c=0.3, n=8, x=2) batched vs alone")) << allReasons(r);
  EXPECT_TRUE(anyReasonHas(r, "lanes, dmci, lane 5")) << allReasons(r);
  EXPECT_FALSE(anyReasonHas(r, "lane 4")) << allReasons(r);
  EXPECT_GT(*r.errors.batchedVsAlone, 0.0);
  // Held to a tolerance instead (as the tensor engine is), the same batch passes.
  opts.criteria.batched = 1e-12;
  EXPECT_EQ(checkPair(kMainCorpus, mainPairNamed("lanes/repeat_closure/1"), opts).status, Verdict::Pass);
}

TEST(Gate, ALaneThatFailsAloneButNotInTheBatchFails) {
  GateOptions opts;
  testing::WrappedEngine engine;
  engine.onRun = [](const std::vector<std::string>& params, const std::vector<double>& values, Result<Evaluation>& r) {
    for (size_t k = 0; k < params.size(); ++k)
      if (params[k] == "x" && values[k] == -12) r = Error{ErrorKind::Domain, "planted", {}};
  };
  opts.engine = &engine;
  PairResult r = checkPair(kMainCorpus, mainPairNamed("lanes/saturated_tanh/1"), opts);
  EXPECT_EQ(r.status, Verdict::Fail);
  EXPECT_TRUE(anyReasonHas(r, "lane 0 (a=1.5, x=-12): fails alone")) << allReasons(r);
}

// The engine seam: an engine registered by name (one class and one registration line) runs a corpus pair
// through the gate, and every route and lane goes through it.
TEST(Gate, AnEngineAddedToTheRegistryRunsACorpusPairThroughTheGate) {
  auto* counting = new testing::WrappedEngine;
  registerEngine("counting", [counting] { return std::unique_ptr<Engine>(counting); });
  auto engine = engineNamed("counting");
  ASSERT_TRUE(engine) << engine.error().str();
  ASSERT_EQ(*engine, counting);
  GateOptions opts;
  opts.engine = *engine;
  PairResult r = checkPair(kMainCorpus, mainPairNamed("lanes/repeat_closure/1"), opts);
  EXPECT_EQ(r.status, Verdict::Pass) << allReasons(r);
  // Each route (direct, dmci): the pair's seed, the batch of lanes, and each lane alone.
  size_t routes = r.pair.routes.size(), lanes = r.lanes;
  EXPECT_EQ(counting->laneRuns.load(), static_cast<int>(routes));
  EXPECT_EQ(counting->runs.load(), static_cast<int>(routes * (1 + lanes)));
  EXPECT_EQ(counting->prepares.load(), counting->runs.load() + counting->laneRuns.load());
  auto names = engineNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "counting"), names.end());
  EXPECT_FALSE(engineNamed("no-such-engine"));
}

TEST(Manifest, LanesNameBoundParametersWithListsOfOneLength) {
  auto parse = [](const std::string& lanes) {
    return parseManifest(manifestWith(R"({"name": "a/1", "file": "a.scm", "family": "f", "bind": {"x": 1, "y": 2},
                                          "wrt": ["x"], "lanes": )" +
                                      lanes + "}"),
                         "d", "d/manifest.json");
  };
  auto ok = parse(R"({"x": [1, 2, 3], "y": [4, 5, 6]})");
  ASSERT_TRUE(ok) << ok.error().str();
  EXPECT_EQ(ok->pairs[0].laneCount(), 3u);
  auto unbound = parse(R"({"z": [1, 2]})");
  ASSERT_FALSE(unbound);
  EXPECT_NE(unbound.error().message.find("'lanes.z' names a parameter that 'bind' does not bind"), std::string::npos);
  auto uneven = parse(R"({"x": [1, 2, 3], "y": [4, 5]})");
  ASSERT_FALSE(uneven);
  EXPECT_NE(uneven.error().message.find("'lanes.y' has 2 lanes, but 'x' has 3"), std::string::npos);
  EXPECT_FALSE(parse(R"({"x": [1]})"));
  EXPECT_FALSE(parse(R"({"x": [1, "2"]})"));
  EXPECT_FALSE(parse(R"({})"));
  EXPECT_FALSE(parse(R"([1, 2])"));
}

TEST(Gate, LiteralKeysAreRelativeToTheCorpus) {
  PairResult r = checkPair(kCorpus, pairNamed("physics/kinetic/1"), GateOptions{});
  const Gradient& g = r.routes.front().gradient;
  EXPECT_TRUE(std::any_of(g.begin(), g.end(), [](const auto& kv) { return kv.first == "physics/kinetic.scm:1:4"; }));
}

// --- reports ---

TEST(Reports, JsonAndMarkdownAreWrittenAndParse) {
  GateRun run = runCorpus();
  GateSummary s = summarize(run);
  std::string dir = std::string(DMCI_BINARY_DIR) + "/gate_test_reports";
  reports::Provenance from;
  from.kind = "gate";
  auto w = reports::writeGateReports(run, s, from, {dir + "/gate.json", dir + "/gate.md", ""});
  ASSERT_TRUE(w) << w.error().str();
  std::ifstream jin(dir + "/gate.json");
  auto j = nlohmann::json::parse(jin);
  ASSERT_EQ(j["pairs"].size(), 11u);
  EXPECT_EQ(j["pairs"][0]["name"], "physics/kinetic/1");
  EXPECT_TRUE(j["pairs"][0]["gradient"]["fd"].contains("physics/kinetic.scm:1:4"));
  EXPECT_EQ(j["summary"]["counts"]["pass"], 10);
  EXPECT_EQ(j["summary"]["criteria"]["fd"], 1e-6);
  std::ifstream min(dir + "/gate.md");
  std::stringstream md;
  md << min.rdbuf();
  std::string text = md.str();
  size_t svgs = 0;
  for (size_t at = text.find("<svg"); at != std::string::npos; at = text.find("<svg", at + 1)) ++svgs;
  EXPECT_EQ(svgs, 3u);
  EXPECT_NE(text.find("| nondifferentiable | 1 |"), std::string::npos);
}

// The smooth row: on the step si is the exact smoothing and agrees with the pgo reference, and so on a step whose
// condition moves three times as fast as x (the row runs --smooth-dea: the width 3 s), there written in place and
// here through a variable (its slope 3 followed); through a variable that moves nonlinearly (3 (x + x^2), slope 3
// at 0) dea cannot derive that gradient, si's Phi(d/s) smooths it three times too narrowly and the row says it does
// not agree.
TEST(Gate, TheSmoothRowComparesSiWithAPgoReference) {
  GatePair pair;
  pair.name = "step";
  pair.bind = {{"x", 0.0}};
  pair.wrt = {"x"};
  auto step = Program::fromText("(if (<= x 0) 1 0)", "step.scm");
  ASSERT_TRUE(step);
  SmoothCheck c = smoothCheck(*step, pair, GateOptions{});
  EXPECT_EQ(c.skipped, "");
  EXPECT_EQ(c.smoothed, 1);
  ASSERT_EQ(c.si.size(), 1u);
  EXPECT_NEAR(c.si[0].second, -0.3989422804014327 / SmoothCheck::kSigma, 1e-9);
  EXPECT_TRUE(c.agrees) << c.worstZ;
  auto steep = Program::fromText("(if (<= (* 3 x) 0) 1 0)", "steep.scm");
  ASSERT_TRUE(steep);
  SmoothCheck d = smoothCheck(*steep, pair, GateOptions{});
  EXPECT_TRUE(d.agrees) << d.worstZ;
  auto local = Program::fromText("(let ((v (* 3 x))) (if (<= v 0) 1 0))", "local.scm");
  ASSERT_TRUE(local);
  d = smoothCheck(*local, pair, GateOptions{});
  EXPECT_TRUE(d.agrees) << d.worstZ;
  auto curved = Program::fromText("(let ((v (* 3 (+ x (* x x))))) (if (<= v 0) 1 0))", "curved.scm");
  ASSERT_TRUE(curved);
  d = smoothCheck(*curved, pair, GateOptions{});
  EXPECT_FALSE(d.agrees);
  EXPECT_GT(d.worstZ, 4);
  pair.wrt = {};
  EXPECT_NE(smoothCheck(*step, pair, GateOptions{}).skipped, "");
}

TEST(Reports, ErrorsFallIntoTheirDecades) {
  auto b = reports::binErrors({0.0, 1e-18, 3e-12, 0.5, 2.0, std::numeric_limits<double>::infinity()});
  auto countOf = [&](const std::string& label) {
    auto it = std::find(b.labels.begin(), b.labels.end(), label);
    return it == b.labels.end() ? size_t{999} : b.counts[static_cast<size_t>(it - b.labels.begin())];
  };
  EXPECT_EQ(countOf("0"), 1u);
  EXPECT_EQ(countOf("<-17"), 1u);
  EXPECT_EQ(countOf("-12"), 1u);
  EXPECT_EQ(countOf("-1"), 1u);
  EXPECT_EQ(countOf("\u22650"), 2u);
}

}  // namespace
}  // namespace dmci::gate
