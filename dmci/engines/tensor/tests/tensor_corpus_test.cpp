// Every corpus pair: the tensor engine, with a file's pairs batched as lanes, agrees with the native engine pair by
// pair.
#include <gtest/gtest.h>

#ifdef DMCI_HAVE_TORCH
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "driver/Program.h"
#include "engines/tensor/TensorEngine.h"
#include "oracle/gate/Manifest.h"
#include "testing/Eval.h"

namespace dmci {
namespace {

// The pairs of one program that share parameter names and wrt: one batch, a lane per pair.
struct Batch {
  std::string file;
  std::vector<const gate::GatePair*> pairs;
};

std::vector<Batch> batches(const gate::Manifest& m) {
  std::map<std::string, Batch> byKey;
  std::vector<std::string> order;
  for (const auto& p : m.pairs) {
    std::string key = p.file + "|" + std::to_string(p.literals);
    for (const auto& b : p.bind) key += "|" + b.name;
    for (const auto& w : p.wrt) key += "|w:" + w;
    if (!byKey.count(key)) order.push_back(key), byKey[key].file = p.file;
    byKey[key].pairs.push_back(&p);
  }
  std::vector<Batch> out;
  for (const auto& k : order) out.push_back(byKey[k]);
  return out;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Relative agreement; a component that cancels to about zero is compared against the
// scale of its gradient (the largest component), since summation order differs.
bool agree(double a, double b, double rel, double scale = 0.0) {
  if (test::close(a, b, rel)) return true;
  return std::isfinite(a) && std::isfinite(b) && std::fabs(a - b) <= rel * scale;
}

double scaleOf(const std::vector<std::pair<std::string, double>>& g) {
  double s = 0.0;
  for (const auto& [k, v] : g)
    if (std::isfinite(v)) s = std::max(s, std::fabs(v));
  return s;
}

void checkBatch(const gate::Manifest& m, const Batch& b, Route r) {
  const gate::GatePair& first = *b.pairs.front();
  auto program = Program::fromText(readFile(m.dir + "/" + b.file), b.file);
  ASSERT_TRUE(program) << program.error().str();
  LaneBatch lanes;
  for (const auto& s : first.bind) lanes.params.push_back(s.name);
  lanes.values.assign(lanes.params.size(), {});
  for (const auto* p : b.pairs)
    for (size_t k = 0; k < p->bind.size(); ++k) lanes.values[k].push_back(p->bind[k].value);
  EvalOptions o;
  o.route = r;
  o.wrt = first.wrt;
  o.wrtLiterals = first.literals;
  auto native = nativeEngine().evaluateLanes(*program, lanes, o);
  const char* device = std::getenv("DMCI_TENSOR_DEVICE");  // ci/gpu-check sets cuda
  o.tensor.device = device ? device : "cpu";
  auto tensor = (*engineNamed("tensor"))->evaluateLanes(*program, lanes, o);
  std::string what = b.file + " [" + routeName(r) + "]";
  if (!native) {
    // The first failing pair's error, in both engines.
    ASSERT_FALSE(tensor) << what << ": native fails with " << native.error().str();
    EXPECT_EQ(tensor.error().str(), native.error().str()) << what;
    return;
  }
  ASSERT_TRUE(tensor) << what << ": " << tensor.error().str();
  for (size_t lane = 0; lane < b.pairs.size(); ++lane) {
    const std::string name = b.pairs[lane]->name + " [" + routeName(r) + "]";
    // LibTorch's vectorised sin, exp, ... differ from libm in the last bits; a well-conditioned program keeps that
    // near 1e-14, but corpus/ill-conditioned's programs amplify it by their condition number (fuzz_31337_56917:
    // 3e-9 relative, its value's own rounding spread being 1.5e-4), so they are held to the gate's gradient
    // tolerance instead.
    const double rel = b.pairs[lane]->name.rfind("ill-conditioned/", 0) == 0 ? 1e-6 : 1e-12;
    EXPECT_TRUE(agree(tensor->value[lane], native->value[lane], rel))
        << name << ": " << tensor->value[lane] << " vs " << native->value[lane];
    const auto tg = tensor->laneGradient(lane), ng = native->laneGradient(lane);
    ASSERT_EQ(tg.size(), ng.size()) << name;
    double scale = scaleOf(ng);
    for (size_t k = 0; k < tg.size(); ++k) {
      EXPECT_EQ(tg[k].first, ng[k].first) << name;
      EXPECT_TRUE(agree(tg[k].second, ng[k].second, rel, scale))
          << name << " d/d" << tg[k].first << ": " << tg[k].second << " vs " << ng[k].second;
    }
  }
}

TEST(TensorCorpus, EveryPairAgreesWithNativeBatchedByProgram) {
  auto m = gate::loadManifest(std::string(DMCI_SOURCE_DIR) + "/corpus");
  ASSERT_TRUE(m) << m.error().str();
  const char* only = std::getenv("DMCI_TENSOR_CORPUS_ONLY");
  for (const auto& b : batches(*m)) {
    if (only && b.file.find(only) == std::string::npos) continue;
    for (Route r : b.pairs.front()->routes) {
      auto t0 = std::chrono::steady_clock::now();
      checkBatch(*m, b, r);
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (std::getenv("DMCI_TENSOR_TIMES")) std::printf("%8.3f s  %s [%s]\n", s, b.file.c_str(), routeName(r));
    }
  }
}

}  // namespace
}  // namespace dmci

#else
TEST(TensorCorpus, SkippedWithoutLibTorch) { GTEST_SKIP() << "built without LibTorch"; }
#endif
