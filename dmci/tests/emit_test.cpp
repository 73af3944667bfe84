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
      harness << "  if (!rc) { for (int j = 0; j < NK" << k << "; ++j) std::printf(\" %a\", g[j]); std::printf(\"\\n\"); } }\n";
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
  const std::string cmd = std::string(cxx ? cxx : "c++") + " -O2 -ffp-contract=off" + defines + " -o '" + exe +
                          "' '" + (dir / "main.cpp").string() + "'" + sources + " && '" + exe + "' > '" + out + "'";
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

}  // namespace
}  // namespace dmci
