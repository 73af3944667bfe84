// The replay engine: a trace's text, replay equal to the native engine bit for bit on every corpus pair (one seed
// and batched lanes), the same operations recorded through mce.scm as directly, and guards that catch every lane
// moved onto another path.
#include "engines/replay/Replay.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "oracle/gate/Manifest.h"
#include "testing/CorpusBatches.h"

namespace dmci {
namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Engine& replayEngine() { return **engineNamed("replay"); }

EvalOptions pairOptions(const gate::GatePair& p, Route r) {
  EvalOptions o;
  o.route = r;
  o.wrt = p.wrt;
  o.wrtLiterals = p.literals;
  return o;
}

// Records the pair's seed on the native machine: the trace and the run's result.
Result<Evaluation> recordPair(const Program& prog, const gate::GatePair& p, Route r, replay::Trace& t,
                              const std::vector<double>* seed = nullptr) {
  EvalOptions o = pairOptions(p, r);
  o.leafParameters = true;
  std::vector<std::string> names;
  std::vector<double> values;
  for (const auto& b : p.bind) names.push_back(b.name), values.push_back(b.value);
  Evaluator ev(prog, names, o);
  if (ev.setupError()) return *ev.setupError();
  return ev.record(seed ? *seed : values, t);
}

struct Corpus {
  gate::Manifest m;
  std::map<std::string, Program> programs;
  const Program& program(const gate::GatePair& p) {
    auto it = programs.find(p.file);
    if (it == programs.end()) {
      auto prog = Program::fromText(readFile(m.dir + "/" + p.file), p.file);
      if (!prog) throw std::runtime_error(prog.error().str());
      it = programs.emplace(p.file, std::move(*prog)).first;
    }
    return it->second;
  }
};

Corpus& corpus() {
  static Corpus c = [] {
    auto m = gate::loadManifest(std::string(DMCI_SOURCE_DIR) + "/corpus");
    if (!m) throw std::runtime_error(m.error().str());
    return Corpus{std::move(*m), {}};
  }();
  return c;
}

TEST(ReplayTrace, TextOfAlphaXSquared) {
  auto prog = Program::fromText("(* alpha (* x x))", "t.scm");
  ASSERT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"alpha", "x"};
  o.leafParameters = true;
  Evaluator ev(*prog, {"alpha", "x"}, o);
  replay::Trace t;
  auto r = ev.record({2.0, 3.0}, t);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(replay::traceText(t),
            "trace v1\n"
            "leaves 2 params 2 slots 4 ops 2 guards 0\n"
            "leaf s0 param alpha = 2\n"
            "leaf s1 param x = 3\n"
            "s2 = mul s1 s1\n"
            "s3 = mul s0 s2\n"
            "output s3\n");
}

TEST(ReplayTrace, TextKeepsTheSignOfMinusZero) {
  auto prog = Program::fromText("(* x -0.0)", "t.scm");
  ASSERT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"x"};
  o.leafParameters = true;
  Evaluator ev(*prog, {"x"}, o);
  replay::Trace t;
  ASSERT_TRUE(ev.record({2.0}, t));
  EXPECT_NE(replay::traceText(t).find("const c0 = -0.0\n"), std::string::npos) << replay::traceText(t);
}

TEST(ReplayTrace, ATestOnAParameterIsAGuardAndATensorIsATensorStep) {
  auto prog = Program::fromText("(if (< x 0) (- x) (* 2 x))", "t.scm");
  ASSERT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"x"};
  o.leafParameters = true;
  Evaluator ev(*prog, {"x"}, o);
  replay::Trace t;
  ASSERT_TRUE(ev.record({1.5}, t));
  ASSERT_EQ(t.guards.size(), 1u);
  EXPECT_EQ(t.guards[0].expected, 0);
  EXPECT_TRUE(t.replayable());
  EXPECT_FALSE(t.hasTensorSteps());
  // Tensors built from the parameter, a constant one, a guard on a number read out of one, elementwise + folded as
  // the native rule folds it (a scalar operation first, then the tensor steps): each in the order it ran.
  auto tens = Program::fromText(
      "(define v (vec x 1))\n(define m (mat (list 1 2) (list 3 4)))\n"
      "(if (> (dot v (matvec m v)) 0) (vsum (+ x 1 v (scale x v))) (det (- m)))",
      "t.scm");
  ASSERT_TRUE(tens);
  Evaluator ev2(*tens, {"x"}, o);
  replay::Trace t2;
  ASSERT_TRUE(ev2.record({1.5}, t2));
  EXPECT_TRUE(t2.replayable()) << t2.notReplayable;
  EXPECT_EQ(replay::traceText(t2),
            "trace v1\n"
            "leaves 1 params 1 slots 4 ops 1 guards 1 tensors 6 tensor-steps 7\n"
            "leaf s0 param x = 1.5\n"
            "const c0 = 0\n"
            "const c1 = 1\n"
            "const t1[2x2] = 1 2 3 4\n"
            "t0[v2] = tensor vec s0 1\n"
            "t2[v2] = tensor matvec t1 t0\n"
            "s1 = tensor dot t0 t2\n"
            "guard > s1 0 is #t\n"
            "t3[v2] = tensor scale s0 t0\n"
            "s2 = add s0 c1\n"
            "t4[v2] = tensor %tensor+ s2 t0\n"
            "t5[v2] = tensor %tensor+ t4 t3\n"
            "s3 = tensor vsum t5\n"
            "output s3\n");
  // The block replayer does not run tensor steps: every lane is off its path, never a number.
  replay::Replayer rep(t2, {{0}}, true);
  replay::Workspace ws;
  double value = 0, grad = 0;
  EXPECT_FALSE(rep.runOne(std::vector<double>{1.5}.data(), value, &grad, ws));
  // An index that depends on the parameter keeps its value by a guard; a tensor value is not replayed.
  auto at = Program::fromText("(ref (vec x 1 2) (floor x))", "t.scm");
  ASSERT_TRUE(at);
  Evaluator ev3(*at, {"x"}, o);
  replay::Trace t3;
  ASSERT_TRUE(ev3.record({1.5}, t3));
  EXPECT_TRUE(t3.replayable()) << t3.notReplayable;
  EXPECT_NE(replay::traceText(t3).find("s1 = rule floor s0\nguard = s1 1 is #t\ns2 = tensor ref t0 1\n"),
            std::string::npos)
      << replay::traceText(t3);
  auto tv = Program::fromText("(scale x (vec 1 2))", "t.scm");
  ASSERT_TRUE(tv);
  Evaluator ev4(*tv, {"x"}, o);
  replay::Trace t4;
  ASSERT_TRUE(ev4.record({1.5}, t4));
  EXPECT_FALSE(t4.replayable());
  EXPECT_NE(t4.notReplayable.find("tensor values are not replayed"), std::string::npos) << t4.notReplayable;
}

// Every pair, each route, one seed: replay gives the native value and gradient bit for bit (or the same error).
TEST(ReplayCorpus, EveryPairEqualsNativeBitForBit) {
  auto& c = corpus();
  int replayed = 0, interpreted = 0, runs = 0;
  std::map<std::string, int> why;
  for (const auto& p : c.m.pairs) {
    const Program& prog = c.program(p);
    for (Route r : p.routes) {
      EvalOptions o = pairOptions(p, r);
      auto native = nativeEngine().evaluate(prog, p.bind, o);
      auto rep = replayEngine().evaluate(prog, p.bind, o);
      const std::string what = p.name + " [" + routeName(r) + "]";
      ++runs;
      if (!native) {
        ASSERT_FALSE(rep) << what;
        EXPECT_EQ(rep.error().str(), native.error().str()) << what;
        continue;
      }
      ASSERT_TRUE(rep) << what << ": " << rep.error().str();
      EXPECT_TRUE(sameBits(rep->value, native->value)) << what << ": " << rep->value << " vs " << native->value;
      ASSERT_EQ(rep->gradient.size(), native->gradient.size()) << what;
      for (size_t k = 0; k < rep->gradient.size(); ++k) {
        EXPECT_EQ(rep->gradient[k].first, native->gradient[k].first) << what;
        EXPECT_TRUE(sameBits(rep->gradient[k].second, native->gradient[k].second))
            << what << " d/d" << rep->gradient[k].first << ": " << rep->gradient[k].second << " vs "
            << native->gradient[k].second;
      }
      if (rep->counters.get("replayed") == 1) {
        ++replayed;
      } else {
        ++interpreted;
        replay::Trace t;
        (void)recordPair(prog, p, r, t);
        ++why[t.replayable() && t.hasTensorSteps() ? "tensor steps (the compiled engine runs them; interpreted here)"
                                                   : t.notReplayable];
      }
    }
  }
  std::printf("replay: %d of %d runs replayed, %d interpreted\n", replayed, runs, interpreted);
  for (const auto& [w, n] : why) std::printf("  %3d  %s\n", n, w.c_str());
  // Every program but those computing with tensors (or on lists of dependent numbers) is replayed.
  EXPECT_GE(replayed, runs * 3 / 4);
}

// The trace recorded through mce.scm holds exactly the operations and guards recorded directly: the evaluator's
// own work leaves nothing (the first Futamura projection).
TEST(ReplayCorpus, ThroughTheEvaluatorTheTraceHasTheDirectOperations) {
  auto& c = corpus();
  size_t direct = 0, viaDmci = 0, compared = 0;
  for (const auto& p : c.m.pairs) {
    const Program& prog = c.program(p);
    replay::Trace td, tm;
    auto rd = recordPair(prog, p, Route::Direct, td);
    auto rm = recordPair(prog, p, Route::Dmci, tm);
    if (!rd || !rm || !td.replayable() || !tm.replayable()) continue;
    ++compared;
    direct += td.ops.size(), viaDmci += tm.ops.size();
    EXPECT_EQ(tm.ops.size(), td.ops.size()) << p.name;
    EXPECT_EQ(tm.guards.size(), td.guards.size()) << p.name;
  }
  std::printf("traces compared: %zu pairs; operations direct %zu, through mce.scm %zu (ratio %.3f)\n", compared, direct,
              viaDmci, direct ? static_cast<double>(viaDmci) / static_cast<double>(direct) : 0.0);
  EXPECT_GT(compared, 300u);
}

// Batched: one batch per program (its pairs as lanes), replay equal to the native lanes bit for bit.
TEST(ReplayCorpus, LanesEqualNativeLanesBitForBit) {
  auto& c = corpus();
  for (const auto& [key, firstPair, lanes] : test::corpusBatches(c.m)) {
    const gate::GatePair& first = *firstPair;
    const Program& prog = c.program(first);
    for (Route r : first.routes) {
      EvalOptions o = pairOptions(first, r);
      auto native = nativeEngine().evaluateLanes(prog, lanes, o);
      auto rep = replayEngine().evaluateLanes(prog, lanes, o);
      if (!native) {
        ASSERT_FALSE(rep) << key;
        EXPECT_EQ(rep.error().str(), native.error().str()) << key;
        continue;
      }
      ASSERT_TRUE(rep) << key << ": " << rep.error().str();
      ASSERT_EQ(rep->lanes(), native->lanes());
      for (size_t l = 0; l < rep->lanes(); ++l) {
        EXPECT_TRUE(sameBits(rep->value[l], native->value[l])) << key << " lane " << l;
        for (size_t k = 0; k < rep->gradient.size(); ++k)
          EXPECT_TRUE(sameBits(rep->gradient[k][l], native->gradient[k][l])) << key << " lane " << l << " key " << k;
      }
    }
  }
}

// equal? reads the numbers inside vectors: one that depends on a parameter stops the trace (the native rule
// reruns), never a branch replayed without its guard (a = 2 takes the other arm).
TEST(ReplayGuards, EqualOnVectorsHoldingAParameterIsNotReplayedBlind) {
  auto prog = Program::fromText("(if (equal? (vector a 1) (vector 2 1)) (* a 10) (* a 100))", "v.scm");
  ASSERT_TRUE(prog);
  LaneBatch lanes;
  lanes.params = {"a"};
  lanes.values = {{1.0, 2.0, 3.0}};
  for (Route r : {Route::Direct, Route::Dmci}) {
    EvalOptions o;
    o.route = r;
    o.wrt = {"a"};
    auto native = nativeEngine().evaluateLanes(*prog, lanes, o);
    auto rep = replayEngine().evaluateLanes(*prog, lanes, o);
    ASSERT_TRUE(native && rep) << routeName(r);
    EXPECT_EQ(native->value, (std::vector<double>{100, 20, 300})) << routeName(r);
    EXPECT_EQ(rep->value, native->value) << routeName(r);
    EXPECT_EQ(rep->gradient, native->gradient) << routeName(r);
  }
}

// Seeds moved across branches: wherever the native machine takes another path, the recorded trace's guards fail
// (never a replayed number from the wrong path), and the replay engine's lanes still equal the native lanes.
TEST(ReplayGuards, EveryLaneMovedAcrossABranchIsCaught) {
  auto& c = corpus();
  const double moves[] = {-1.0, 0.5, 2.0, 10.0, -0.25, 1e-3};
  int moved = 0, caught = 0, samePath = 0;
  for (const auto& p : c.m.pairs) {
    if (p.family != "nondifferentiable" && p.family != "lanes") continue;
    const Program& prog = c.program(p);
    for (Route r : p.routes) {
      replay::Trace t;
      auto rec = recordPair(prog, p, r, t);
      if (!rec || !t.replayable()) continue;
      EvalOptions o = pairOptions(p, r);
      std::vector<std::vector<int32_t>> leaves;
      {
        EvalOptions lo = o;
        lo.leafParameters = true;
        std::vector<std::string> ns;
        std::vector<double> vs;
        for (const auto& b : p.bind) ns.push_back(b.name), vs.push_back(b.value);
        Evaluator ev(prog, ns, lo);
        ASSERT_TRUE(ev.run(vs));
        for (auto& [k, s] : ev.gradientLeaves()) leaves.push_back(s);
      }
      replay::Replayer rep(t, leaves, true);
      replay::Workspace ws;
      LaneBatch lanes;
      for (const auto& b : p.bind) lanes.params.push_back(b.name);
      lanes.values.assign(lanes.params.size(), {});
      for (double m : moves)
        for (size_t k = 0; k < p.bind.size(); ++k) {
          std::vector<double> seed;
          for (const auto& b : p.bind) seed.push_back(b.value);
          seed[k] = m * seed[k] + (seed[k] == 0 ? m : 0);
          for (size_t j = 0; j < seed.size(); ++j) lanes.values[j].push_back(seed[j]);
          replay::Trace other;
          auto run = recordPair(prog, p, r, other, &seed);
          if (!run) continue;
          std::vector<double> g(rep.gradientSize());
          double v;
          const bool onPath = rep.runOne(seed.data(), v, g.data(), ws);
          if (other.pathKey() != t.pathKey()) {
            ++moved;
            caught += onPath ? 0 : 1;
            EXPECT_FALSE(onPath) << p.name << " [" << routeName(r) << "]: a seed on another path passed the guards";
          } else {
            ++samePath;
            if (onPath) {
              EXPECT_TRUE(sameBits(v, run->value)) << p.name;
            }
          }
        }
      auto native = nativeEngine().evaluateLanes(prog, lanes, o);
      auto replayed = replayEngine().evaluateLanes(prog, lanes, o);
      ASSERT_EQ(static_cast<bool>(native), static_cast<bool>(replayed)) << p.name;
      if (!native) continue;
      for (size_t l = 0; l < native->lanes(); ++l) {
        EXPECT_TRUE(sameBits(replayed->value[l], native->value[l])) << p.name << " lane " << l;
        for (size_t k = 0; k < native->gradient.size(); ++k)
          EXPECT_TRUE(sameBits(replayed->gradient[k][l], native->gradient[k][l])) << p.name << " lane " << l;
      }
    }
  }
  std::printf("guards: %d seeds moved to another path, %d caught; %d stayed on the path\n", moved, caught, samePath);
  EXPECT_GT(moved, 20);
  EXPECT_EQ(caught, moved);
}

// Lanes on many paths are routed by the guard they fail first, down the tree of the traces' guards, rather than
// tried on every trace in turn: once the paths are recorded, a batch of the divergent program (16 paths: 8
// recursion depths on either branch) is replayed whole, each lane off the path of at most its depth + 1 traces
// (tried in turn, the traces would average 7.5), with the native engine's numbers bit for bit.
TEST(ReplayRouting, LanesFollowTheGuardTheyFailedFirst) {
  auto prog = Program::fromText(
      "(define (f n acc) (if (< n 0.5) acc (f (- n 1) (* acc x))))\n(if (< x 1) (f n 1) (- (f n 2) x))", "d.scm");
  ASSERT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"n", "x"};
  const size_t lanes = 4096;
  std::vector<std::vector<double>> values(2, std::vector<double>(lanes));
  for (size_t l = 0; l < lanes; ++l) {
    values[0][l] = static_cast<double>(l % 8);
    values[1][l] = 0.9 + 0.2 * static_cast<double>(l) / static_cast<double>(lanes);
  }
  auto run = replayEngine().prepare(*prog, {"n", "x"}, o);
  auto native = nativeEngine().prepare(*prog, {"n", "x"}, o);
  ASSERT_TRUE(run && native);
  auto first = (*run)->runLanes(values, static_cast<int64_t>(lanes));  // records the 16 paths
  ASSERT_TRUE(first) << first.error().str();
  EXPECT_EQ(first->counters.get("traces"), 16);
  auto second = (*run)->runLanes(values, static_cast<int64_t>(lanes));
  auto expected = (*native)->runLanes(values, static_cast<int64_t>(lanes));
  ASSERT_TRUE(second && expected);
  EXPECT_EQ(second->counters.get("recorded"), 0);
  EXPECT_EQ(second->counters.get("interpreted"), 0);
  EXPECT_EQ(second->counters.get("replayed"), static_cast<double>(lanes));
  double bound = 0;  // a lane of depth d is off the path of at most d + 1 traces
  for (size_t l = 0; l < lanes; ++l) bound += static_cast<double>(l % 8) + 1;
  std::printf("routing: %.0f lanes off a trace's path for %zu lanes (bound %.0f)\n", second->counters.get("off_path"),
              lanes, bound);
  EXPECT_LE(second->counters.get("off_path"), bound);
  EXPECT_LT(second->counters.get("off_path"), 5.0 * static_cast<double>(lanes));
  for (size_t l = 0; l < lanes; ++l) {
    ASSERT_TRUE(sameBits(second->value[l], expected->value[l])) << l;
    for (size_t k = 0; k < expected->gradient.size(); ++k)
      ASSERT_TRUE(sameBits(second->gradient[k][l], expected->gradient[k][l])) << l << " " << k;
  }
}

}  // namespace
}  // namespace dmci
