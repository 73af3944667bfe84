// The tensor engine's replay (`--engine tensor --replay`): every corpus pair's lanes equal the native engine's
// (LibTorch's vectorised functions may differ from libm in the last bits: within a relative 1e-9, the largest
// difference printed), lanes across a branch take their own paths' traces, traces it has no kernel for are
// replayed on the CPU and counted, and float32 lanes are float32's numbers.
#include <gtest/gtest.h>

#ifdef DMCI_HAVE_TORCH
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "oracle/gate/Manifest.h"
#include "testing/CorpusBatches.h"

namespace dmci {
namespace {

std::string device() {
  const char* d = std::getenv("DMCI_TENSOR_DEVICE");
  return d ? d : "cpu";
}

// Differentiated by every parameter named.
EvalOptions replayOptions(std::vector<std::string> wrt = {}) {
  EvalOptions o;
  o.wrt = std::move(wrt);
  o.tensor.device = device();
  o.tensor.replay = true;
  return o;
}

Engine& tensorEngine() { return **engineNamed("tensor"); }

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// |a - b| relative to the larger magnitude (at least 1); NaN matches NaN.
double difference(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : INFINITY;
  if (a == b) return 0;
  return std::fabs(a - b) / std::max({1.0, std::fabs(a), std::fabs(b)});
}

LaneBatch batchOf(std::vector<std::string> params, std::vector<std::vector<double>> values) {
  LaneBatch b;
  b.params = std::move(params);
  b.values = std::move(values);
  return b;
}

TEST(TensorReplayCorpus, EveryPairsLanesEqualNative) {
  auto m = gate::loadManifest(std::string(DMCI_SOURCE_DIR) + "/corpus");
  ASSERT_TRUE(m) << m.error().str();
  std::map<std::string, Program> programs;
  double worst = 0, traces = 0, refused = 0, tensorSteps = 0, replayed = 0, lanesRun = 0;
  std::string worstKey;
  for (const auto& [key, firstPair, lanes] : test::corpusBatches(*m)) {
    const gate::GatePair& first = *firstPair;
    auto it = programs.find(first.file);
    if (it == programs.end()) {
      auto prog = Program::fromText(readFile(m->dir + "/" + first.file), first.file);
      ASSERT_TRUE(prog) << prog.error().str();
      it = programs.emplace(first.file, std::move(*prog)).first;
    }
    for (Route r : first.routes) {
      EvalOptions o = replayOptions();
      o.route = r;
      o.wrt = first.wrt;
      o.wrtLiterals = first.literals;
      EvalOptions nativeOpts = o;
      nativeOpts.tensor.replay = false;
      auto native = nativeEngine().evaluateLanes(it->second, lanes, nativeOpts);
      auto rep = tensorEngine().evaluateLanes(it->second, lanes, o);
      if (!native) {
        ASSERT_FALSE(rep) << key;
        EXPECT_EQ(rep.error().str(), native.error().str()) << key;
        continue;
      }
      ASSERT_TRUE(rep) << key << ": " << rep.error().str();
      ASSERT_EQ(rep->lanes(), native->lanes());
      traces += rep->counters.get("traces");
      refused += rep->counters.get("batch_refused");
      // A trace with tensor steps is refused here and by the CPU replayer: counted batch_refused and not_replayable
      // both, and interpreted (only the compiled engine runs tensor steps).
      tensorSteps += std::min(rep->counters.get("batch_refused"), rep->counters.get("not_replayable"));
      replayed += rep->counters.get("replayed");
      lanesRun += static_cast<double>(rep->lanes());
      for (size_t l = 0; l < rep->lanes(); ++l) {
        double d = difference(rep->value[l], native->value[l]);
        for (size_t k = 0; k < rep->gradient.size(); ++k)
          d = std::max(d, difference(rep->gradient[k][l], native->gradient[k][l]));
        EXPECT_LE(d, 1e-9) << key << " [" << routeName(r) << "] lane " << l;
        if (d > worst) worst = d, worstKey = key;
      }
    }
  }
  std::printf(
      "tensor replay: %.0f of %.0f lanes replayed; %.0f traces, %.0f refused (%.0f with tensor steps, interpreted; "
      "the others run on the CPU); largest relative difference from native %.3g (%s)\n",
      replayed, lanesRun, traces, refused, tensorSteps, worst, worstKey.c_str());
  EXPECT_GE(replayed, lanesRun * 0.75);  // all but tensor programs and searches through lists of dependent numbers
  EXPECT_GT(tensorSteps, 0);
  EXPECT_LE(refused - tensorSteps, traces * 0.1);
}

TEST(TensorReplay, LanesAcrossABranchTakeTheirOwnPaths) {
  auto prog = Program::fromText("(if (< x 0) (* alpha x x) (+ (sin (* alpha x)) (quotient 7 2)))", "t.scm");
  ASSERT_TRUE(prog);
  auto batch = batchOf({"alpha", "x"}, {{1.5, 2.0, -0.5, 3.0}, {-1.0, 0.5, 2.0, -3.0}});
  EvalOptions o = replayOptions({"alpha", "x"}), nativeOpts = o;
  nativeOpts.tensor.replay = false;
  auto native = nativeEngine().evaluateLanes(*prog, batch, nativeOpts);
  auto rep = tensorEngine().evaluateLanes(*prog, batch, o);
  ASSERT_TRUE(native && rep) << (rep ? "" : rep.error().str());
  ASSERT_EQ(rep->gradient.size(), 2u);
  ASSERT_EQ(native->gradient.size(), 2u);
  EXPECT_EQ(rep->counters.get("traces"), 2);
  EXPECT_EQ(rep->counters.get("batch_refused"), 0);
  EXPECT_EQ(rep->counters.get("interpreted"), 0);
  for (size_t l = 0; l < 4; ++l) {
    EXPECT_LE(difference(rep->value[l], native->value[l]), 1e-15) << l;
    for (size_t k = 0; k < 2; ++k) EXPECT_LE(difference(rep->gradient[k][l], native->gradient[k][l]), 1e-15) << l;
  }
}

TEST(TensorReplay, StepsAndGuardsOnTheDevice) {
  // floor, modulo, min/max selection, even?, a chain comparison: all run as tensor ops; a lane whose modulo has
  // a non-integer argument leaves the path and the native machine reports its error.
  auto prog = Program::fromText(
      "(let ((k (floor (* 3 x)))) (if (and (even? k) (< 0 x 5)) (* (modulo k 3) (max x 1) x) (min (* x x) 2)))",
      "t.scm");
  ASSERT_TRUE(prog);
  auto batch = batchOf({"x"}, {{0.7, 0.9, 1.4, -0.2, 2.1, 0.3}});
  EvalOptions o = replayOptions({"x"}), nativeOpts = o;
  nativeOpts.tensor.replay = false;
  auto native = nativeEngine().evaluateLanes(*prog, batch, nativeOpts);
  auto rep = tensorEngine().evaluateLanes(*prog, batch, o);
  ASSERT_TRUE(native && rep) << (rep ? "" : rep.error().str());
  ASSERT_EQ(rep->gradient.size(), 1u);
  EXPECT_EQ(rep->counters.get("batch_refused"), 0);
  EXPECT_EQ(rep->counters.get("interpreted"), 0);
  EXPECT_GE(rep->counters.get("traces"), 3);
  for (size_t l = 0; l < batch.values[0].size(); ++l) {
    EXPECT_EQ(rep->value[l], native->value[l]) << l;
    EXPECT_EQ(rep->gradient[0][l], native->gradient[0][l]) << l;
  }
}

TEST(TensorReplay, ATraceWithoutKernelsIsReplayedOnTheCpuAndCounted) {
  // eqv? has no tensor guard here: the trace is refused, and the CPU replayer runs it.
  auto prog = Program::fromText("(if (eqv? x 1.5) 0 (* x x))", "t.scm");
  ASSERT_TRUE(prog);
  auto batch = batchOf({"x"}, {{2.0, 3.0, 4.0}});
  auto rep = tensorEngine().evaluateLanes(*prog, batch, replayOptions({"x"}));
  ASSERT_TRUE(rep) << rep.error().str();
  ASSERT_EQ(rep->gradient.size(), 1u);
  EXPECT_EQ(rep->counters.get("batch_refused"), 1);
  EXPECT_EQ(rep->counters.get("replayed"), 3);
  EXPECT_EQ(rep->value[2], 16.0);
  EXPECT_EQ(rep->gradient[0][2], 8.0);
}

TEST(TensorReplay, Float32LanesAreFloat32Numbers) {
  auto prog = Program::fromText("(* alpha (* x x))", "t.scm");
  ASSERT_TRUE(prog);
  auto batch = batchOf({"alpha", "x"}, {{0.1, 1.5}, {0.3, 2.0}});
  EvalOptions o = replayOptions({"alpha", "x"});
  o.tensor.float32 = true;
  auto rep = tensorEngine().evaluateLanes(*prog, batch, o);
  ASSERT_TRUE(rep) << rep.error().str();
  ASSERT_EQ(rep->gradient.size(), 2u);
  const float a = 0.1f, x = 0.3f;
  EXPECT_EQ(rep->value[0], static_cast<double>(a * (x * x)));
  EXPECT_EQ(rep->gradient[0][0], static_cast<double>(x * x));
  EXPECT_EQ(rep->value[1], 6.0);
  // One seed goes through the device too: a batch of one lane.
  auto one = tensorEngine().evaluate(*prog, {{"alpha", 0.1}, {"x", 0.3}}, o);
  ASSERT_TRUE(one) << one.error().str();
  EXPECT_EQ(one->value, static_cast<double>(a * (x * x)));
}

}  // namespace
}  // namespace dmci

#else
TEST(TensorReplay, Skipped) { GTEST_SKIP() << "built without LibTorch (DMCI_TENSOR=OFF)"; }
#endif
