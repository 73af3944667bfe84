// dmci emit: a recorded trace staged into C++, built by the system's C++ compiler, gives the native engine's value
// and gradient bit for bit on its path, and returns "path changed" (1) exactly where the native run takes another.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "replay/EmitCpp.h"

namespace dmci {
namespace {

struct EmitCase {
  std::string source;
  std::vector<std::string> params;
  Route route;
  bool literals;
  std::vector<double> recordAt;
  std::vector<std::vector<double>> seeds;  // the first is recordAt's path, others may move
};

const std::vector<EmitCase>& cases() {
  static const std::vector<EmitCase> c = {
      {"(* alpha (* x x))", {"alpha", "x"}, Route::Direct, false, {2, 3}, {{2, 3}, {-1.5, 0.25}, {1e300, 1e10}}},
      {"(define (poly x n) (if (= n 0) 1.0 (+ (* x (poly x (- n 1))) 1.0)))\n(* alpha (poly x 3))",
       {"alpha", "x"},
       Route::Dmci,
       true,
       {2, 3},
       {{2, 3}, {0.5, -0.75}}},
      {"(if (< x 1) (* x (exp x)) (- (sin x) (/ 1 x)))", {"x"}, Route::Direct, true, {0.5}, {{0.5}, {0.7}, {2}, {-3}}},
      {"(+ (max x y 0.5) (tanh x) (atan y x) (expt x 2.5) (log x 2) (sqrt (square y)) (abs (- x y)) (- y) (/ x))",
       {"x", "y"},
       Route::Dmci,
       true,
       {1.3, 0.4},
       {{1.3, 0.4}, {1.2, 0.45}, {1.3, 2.0}, {0.3, 0.1}}},
  };
  return c;
}

std::string hexOf(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", x);
  return b;
}

Evaluator recorder(const Program& p, const EmitCase& c) {
  EvalOptions o;
  o.route = c.route;
  o.wrt = c.params;
  o.wrtLiterals = c.literals;
  o.leafParameters = true;
  return Evaluator(p, c.params, o);
}

TEST(Emit, CompiledTracesEqualNativeOnTheirPathAndReportEveryOtherPath) {
  const auto dir = std::filesystem::temp_directory_path() / ("dmci-emit-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ostringstream harness;
  harness << "#include <cstdio>\n";
  std::vector<std::vector<std::string>> expected;  // per case and seed: "rc value grads..." or "1"
  std::string sources;
  for (size_t k = 0; k < cases().size(); ++k) {
    const EmitCase& c = cases()[k];
    auto prog = Program::fromText(c.source, "case" + std::to_string(k) + ".scm");
    ASSERT_TRUE(prog) << prog.error().str();
    Evaluator rec = recorder(*prog, c);
    replay::Trace t;
    auto first = rec.record(c.recordAt, t);
    ASSERT_TRUE(first) << first.error().str();
    ASSERT_TRUE(t.replayable()) << t.notReplayable;
    replay::EmitRequest req;
    req.function = "f" + std::to_string(k);
    req.origin = "case " + std::to_string(k);
    for (auto& [key, leaves] : rec.gradientLeaves()) req.gradientKeys.push_back(key), req.leaves.push_back(leaves);
    auto code = replay::emitCpp(t, req);
    ASSERT_TRUE(code) << code.error().str();
    const auto file = dir / (req.function + ".cpp");
    std::ofstream(file) << *code;
    sources += " '" + file.string() + "'";
    harness << "extern \"C\" int " << req.function << "(const double*, double*, double*);\n";
    expected.emplace_back();
    for (const auto& seed : c.seeds) {
      replay::Trace other;
      auto native = recorder(*prog, c).record(seed, other);
      ASSERT_TRUE(native) << native.error().str();
      if (other.pathKey() != t.pathKey()) {
        expected.back().push_back("1");
        continue;
      }
      std::string line = "0 " + hexOf(native->value);
      for (const auto& [key, g] : native->gradient) line += " " + hexOf(g);
      expected.back().push_back(line);
    }
  }
  harness << "int main() {\n  double v, g[16];\n";
  for (size_t k = 0; k < cases().size(); ++k)
    for (const auto& seed : cases()[k].seeds) {
      harness << "  { const double p[] = {";
      for (double x : seed) harness << hexOf(x) << ", ";
      harness << "0}; int rc = f" << k << "(p, &v, g); if (rc) std::printf(\"1\\n\"); else { std::printf(\"0 %a\", v);";
      harness << "}\n";
      harness << "  if (!rc) { for (int j = 0; j < NK" << k
              << "; ++j) std::printf(\" %a\", g[j]); std::printf(\"\\n\"); } }\n";
    }
  harness << "}\n";
  std::string defines;
  for (size_t k = 0; k < cases().size(); ++k) {
    size_t keys = 0;
    for (const auto& e : expected[k])
      if (e != "1") keys = static_cast<size_t>(std::count(e.begin(), e.end(), ' ')) - 1;
    defines += " -DNK" + std::to_string(k) + "=" + std::to_string(keys);
  }
  std::ofstream(dir / "main.cpp") << harness.str();
  const char* cxx = std::getenv("CXX");
  const std::string exe = (dir / "emitted").string(), out = (dir / "out.txt").string();
  const std::string cmd = std::string(cxx ? cxx : "c++") + " -O2 -ffp-contract=off" + defines + " -o '" + exe + "' '" +
                          (dir / "main.cpp").string() + "'" + sources + " && '" + exe + "' > '" + out + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  size_t moved = 0;
  for (size_t k = 0; k < cases().size(); ++k)
    for (const auto& want : expected[k]) {
      std::string got;
      ASSERT_TRUE(std::getline(in, got)) << "case " << k;
      EXPECT_EQ(got, want) << "case " << k << ": " << cases()[k].source;
      moved += want == "1";
    }
  EXPECT_GE(moved, 3u);  // the cases do move seeds across branches and selections
  std::filesystem::remove_all(dir);
}

// --engine compiled: lanes across a branch (two paths, both compiled), equal to the native lanes bit for bit.
TEST(CompiledEngine, LanesAcrossABranchEqualNative) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("dmci-compiled-" + std::to_string(::getpid()))).string();
  ::setenv("DMCI_CACHE_DIR", dir.c_str(), 1);
  auto prog = Program::fromText("(if (< x 1) (* x (exp x)) (- (sin x) (/ 1 x)))", "b.scm");
  ASSERT_TRUE(prog);
  LaneBatch lanes;
  lanes.params = {"x"};
  lanes.values = {{0.25, 0.5, 1.5, 0.75, 3.0, -2.0}};
  EvalOptions o;
  o.wrt = {"x"};
  o.wrtLiterals = true;
  auto native = nativeEngine().evaluateLanes(*prog, lanes, o);
  auto compiled = (*engineNamed("compiled"))->evaluateLanes(*prog, lanes, o);
  ASSERT_TRUE(native && compiled) << (compiled ? "" : compiled.error().str());
  for (size_t l = 0; l < native->lanes(); ++l) {
    EXPECT_EQ(hexOf(compiled->value[l]), hexOf(native->value[l])) << l;
    for (size_t k = 0; k < native->gradient.size(); ++k)
      EXPECT_EQ(hexOf(compiled->gradient[k][l]), hexOf(native->gradient[k][l])) << l << " " << k;
  }
  EXPECT_EQ(compiled->counters.get("traces"), 2);
  EXPECT_EQ(compiled->counters.get("emit_refused"), 0);
  std::filesystem::remove_all(dir);
  ::unsetenv("DMCI_CACHE_DIR");
}

// A batch kept between runs (runLanesInto) is written whole each time: after a larger batch, after stale
// numbers, and with lanes on several paths, it equals a fresh batch bit for bit, on the replay and compiled
// engines alike.
TEST(CompiledEngine, AKeptBatchEqualsAFreshOne) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("dmci-kept-" + std::to_string(::getpid()))).string();
  ::setenv("DMCI_CACHE_DIR", dir.c_str(), 1);
  auto prog = Program::fromText("(if (< x 1) (* a x (exp x)) (- (sin (* a x)) (/ 1 x)))", "k.scm");
  ASSERT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"a", "x"};
  for (const char* name : {"replay", "compiled"}) {
    auto run = (*engineNamed(name))->prepare(*prog, {"a", "x"}, o);
    ASSERT_TRUE(run) << run.error().str();
    LaneEvaluation kept;
    std::vector<std::vector<double>> big = {std::vector<double>(5000, 0.5), std::vector<double>(5000, 2.0)};
    ASSERT_FALSE((*run)->runLanesInto(big, 5000, kept));
    for (auto& g : kept.gradient) std::fill(g.begin(), g.end(), 12345.0);  // stale numbers a run must replace
    std::vector<std::vector<double>> small = {{0.5, 1.5, -0.25, 2.0, 0.75}, {0.25, 3.0, 0.5, -2.0, 1.25}};
    ASSERT_FALSE((*run)->runLanesInto(small, 5, kept));
    auto fresh = (*run)->runLanes(small, 5);
    auto native = nativeEngine().prepare(*prog, {"a", "x"}, o);
    ASSERT_TRUE(fresh && native);
    auto expected = (*native)->runLanes(small, 5);
    ASSERT_TRUE(expected);
    ASSERT_EQ(kept.lanes(), 5u) << name;
    ASSERT_EQ(kept.gradientKeys, expected->gradientKeys) << name;
    for (size_t l = 0; l < 5; ++l) {
      EXPECT_EQ(hexOf(kept.value[l]), hexOf(expected->value[l])) << name << " " << l;
      EXPECT_EQ(hexOf(fresh->value[l]), hexOf(expected->value[l])) << name << " " << l;
      for (size_t k = 0; k < expected->gradient.size(); ++k) {
        EXPECT_EQ(hexOf(kept.gradient[k][l]), hexOf(expected->gradient[k][l])) << name << " " << l << " " << k;
        EXPECT_EQ(hexOf(fresh->gradient[k][l]), hexOf(expected->gradient[k][l])) << name << " " << l << " " << k;
      }
    }
    EXPECT_EQ(kept.counters.get("traces"), 2) << name;
  }
  std::filesystem::remove_all(dir);
  ::unsetenv("DMCI_CACHE_DIR");
}

// Without a C++ compiler the compiled engine says so, as a usage error, and runs nothing.
TEST(CompiledEngine, AMissingCompilerIsAClearError) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("dmci-nocxx-" + std::to_string(::getpid()))).string();
  ::setenv("DMCI_CACHE_DIR", dir.c_str(), 1);
  ::setenv("CXX", "/nonexistent/c++", 1);
  auto prog = Program::fromText("(* x 2.5)", "c.scm");
  ASSERT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"x"};
  auto r = (*engineNamed("compiled"))->evaluate(*prog, {{"x", 2.0}}, o);
  ::unsetenv("CXX");
  ::unsetenv("DMCI_CACHE_DIR");
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::Usage);
  EXPECT_NE(r.error().message.find("needs a C++ compiler"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace dmci
