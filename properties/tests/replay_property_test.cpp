// Property: on generated programs, replay equals the native engine or reports a guard failure; it never gives a
// silently wrong number. Each case's seed is varied over 8 lanes (caseLanes), so lanes part at branches,
// recursion depths and min/max selections.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "engines/replay/Replay.h"
#include "properties/Properties.h"

namespace dmci::props {
namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

EvalOptions caseOptions(const Case& c, Route r) {
  EvalOptions o;
  o.route = r;
  o.wrt = c.wrt;
  o.wrtLiterals = c.wrtLiterals;
  return o;
}

// The trace recorded at the case's seed, replayed alone at every lane: a lane that passes its guards has the
// native value and gradient bit for bit.
void checkTraceAtLanes(const Case& c, const Program& prog, Route r, const LaneBatch& lanes) {
  EvalOptions o = caseOptions(c, r);
  o.leafParameters = true;
  std::vector<std::string> names;
  std::vector<double> seed;
  for (const auto& s : c.seed) names.push_back(s.name), seed.push_back(s.value);
  Evaluator rec(prog, names, o);
  RC_PRE(rec.setupError() == nullptr);
  replay::Trace t;
  auto first = rec.record(seed, t);
  if (!first || !t.replayable()) return;
  std::vector<std::vector<int32_t>> leaves;
  for (auto& [k, s] : rec.gradientLeaves()) leaves.push_back(s);
  replay::Replayer rep(t, leaves, true);
  replay::Workspace ws;
  Evaluator native(prog, names, caseOptions(c, r));
  for (size_t l = 0; l < lanes.values[0].size(); ++l) {
    std::vector<double> at;
    for (const auto& v : lanes.values) at.push_back(v[l]);
    std::vector<double> g(rep.gradientSize());
    double v = 0;
    if (!rep.runOne(at.data(), v, g.data(), ws)) continue;  // off the path: reported, not replayed
    auto n = native.run(at);
    RC_ASSERT(static_cast<bool>(n));  // on the path the native run cannot fail
    RC_ASSERT(sameBits(v, n->value));
    RC_ASSERT(g.size() == n->gradient.size());
    for (size_t k = 0; k < g.size(); ++k) RC_ASSERT(sameBits(g[k], n->gradient[k].second));
  }
}

void checkReplay(const Case& c, Route r) {
  auto prog = Program::fromText(c.text, "case.scm");
  RC_ASSERT(static_cast<bool>(prog));
  LaneBatch lanes;
  for (const auto& [name, values] : caseLanes(c)) lanes.params.push_back(name), lanes.values.push_back(values);
  RC_PRE(!lanes.values.empty());
  checkTraceAtLanes(c, *prog, r, lanes);
  EvalOptions o = caseOptions(c, r);
  auto native = nativeEngine().evaluateLanes(*prog, lanes, o);
  auto replayed = (*engineNamed("replay"))->evaluateLanes(*prog, lanes, o);
  RC_ASSERT(static_cast<bool>(native) == static_cast<bool>(replayed));
  if (!native) {
    RC_ASSERT(native.error().str() == replayed.error().str());
    return;
  }
  RC_ASSERT(native->lanes() == replayed->lanes());
  for (size_t l = 0; l < native->lanes(); ++l) {
    RC_ASSERT(sameBits(native->value[l], replayed->value[l]));
    for (size_t k = 0; k < native->gradient.size(); ++k)
      RC_ASSERT(sameBits(native->gradient[k][l], replayed->gradient[k][l]));
  }
}

}  // namespace

RC_GTEST_PROP(Replay, EqualsNativeOrLeavesThePathDirect, ()) {
  Case c = *genCase();
  RC_TAG(c.family);
  RC_LOG() << describe(c) << "\n";
  checkReplay(c, Route::Direct);
}

RC_GTEST_PROP(Replay, EqualsNativeOrLeavesThePathThroughDmci, ()) {
  Case c = *genCase(3);
  RC_LOG() << describe(c) << "\n";
  checkReplay(c, Route::Dmci);
}

}  // namespace dmci::props
