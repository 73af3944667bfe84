// dmci emit: a recorded trace staged into C++, built by the system's C++ compiler, gives the native engine's value
// and gradient bit for bit on its path, and returns "path changed" (1) exactly where the native run takes another.
// Traces with tensor steps (Eigen code): every tensor primitive builds without warnings at -O3 and agrees with the
// native engine to 1e-12 relative, on every corpus pair that uses tensors, with guards that catch a lane moved
// across a branch or into a native domain error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "engines/replay/Compiled.h"
#include "engines/replay/EmitCpp.h"
#include "oracle/gate/Manifest.h"
#include "prims/PrimTable.h"
#include "testing/CorpusBatches.h"

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

// A long trace is built at -O1 (GCC's -O3 on the deep-recursion corpus's longest trace grew past 10 GB), a short
// one at -O3; the run counts the -O1 builds (compiled_at_o1), and both equal the native engine bit for bit.
TEST(CompiledEngine, ALongTraceIsBuiltAtO1WithTheNativeNumbers) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("dmci-o1-" + std::to_string(::getpid()))).string();
  ::setenv("DMCI_CACHE_DIR", dir.c_str(), 1);
  const char* text = "(define (y n) (if (= n 0) y0 (+ (* a (y (- n 1))) 1))) (y N)";
  auto prog = Program::fromText(text, "deep.scm");
  ASSERT_TRUE(prog);
  for (double depth : {3.0, 320.0}) {
    LaneBatch lanes;
    lanes.params = {"a", "y0", "N"};
    lanes.values = {{0.5, 0.9, 1.01}, {1.0, 2.0, -1.0}, {depth, depth, depth}};
    EvalOptions o;
    o.wrt = {"a", "y0"};
    auto native = nativeEngine().evaluateLanes(*prog, lanes, o);
    auto compiled = (*engineNamed("compiled"))->evaluateLanes(*prog, lanes, o);
    ASSERT_TRUE(native && compiled) << (compiled ? "" : compiled.error().str());
    for (size_t l = 0; l < native->lanes(); ++l) {
      EXPECT_EQ(hexOf(compiled->value[l]), hexOf(native->value[l])) << depth << " " << l;
      for (size_t k = 0; k < native->gradient.size(); ++k)
        EXPECT_EQ(hexOf(compiled->gradient[k][l]), hexOf(native->gradient[k][l])) << depth << " " << l << " " << k;
    }
    EXPECT_EQ(compiled->counters.get("emit_refused"), 0) << depth;
    EXPECT_EQ(compiled->counters.get("compiled_at_o1"), depth > 100 ? 1 : 0) << depth;
  }
  EXPECT_STREQ(replay::optimisationFor(std::string(replay::kMaxLinesAtO3, '\n')), "-O3");
  EXPECT_STREQ(replay::optimisationFor(std::string(replay::kMaxLinesAtO3 + 1, '\n')), "-O1");
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

// The caller's row-major arrays read and written in place (runLanesIn, the C API's lanes): on every linked engine
// they equal the engine's own columns bit for bit, with lanes on several paths, a gradient for some of the
// entries only, or none; and nothing is written between a lane's entries (the padding of a wider row keeps its
// sentinel).
TEST(CompiledEngine, StridedLanesEqualColumns) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("dmci-strided-" + std::to_string(::getpid()))).string();
  ::setenv("DMCI_CACHE_DIR", dir.c_str(), 1);
  auto prog = Program::fromText("(if (< x 1) (* a x (exp x)) (if (< x 2) (sin (* a x)) (- (* a a) (/ 1 x))))", "s.scm");
  ASSERT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"x", "a"};  // not the parameters' order: the gradient's entries go where the caller says
  const size_t b = 3000, row = 3, sentinel = 2;  // a row of 3: a, x and a sentinel
  std::vector<double> params(b * row, -7.0);
  std::vector<std::vector<double>> columns(2, std::vector<double>(b));
  for (size_t l = 0; l < b; ++l) {
    columns[0][l] = params[l * row] = 0.5 + 0.001 * static_cast<double>(l % 17);
    columns[1][l] = params[l * row + 1] = -1.0 + 4.0 * static_cast<double>(l) / b;  // three paths, interleaved
    if (l % 3 == 1) columns[1][l] = params[l * row + 1] = 1.5;
  }
  auto native = nativeEngine().prepare(*prog, {"a", "x"}, o);
  ASSERT_TRUE(native);
  auto expected = (*native)->runLanes(columns, static_cast<int64_t>(b));
  ASSERT_TRUE(expected) << expected.error().str();
  for (const char* name : {"native", "replay", "compiled"}) {
    auto run = (*engineNamed(name))->prepare(*prog, {"a", "x"}, o);
    ASSERT_TRUE(run) << run.error().str();
    for (int pass = 0; pass < 2; ++pass) {  // the first records the paths, the second replays them all
      std::vector<double> values(b, -7.0), grads(b * row, -7.0);
      LaneArrays a;
      a.lanes = static_cast<int64_t>(b);
      a.param = {params.data(), params.data() + 1};
      a.paramStride = a.gradientStride = row;
      a.value = values.data();
      a.gradient = {grads.data() + 1, grads.data()};  // x's entry in the second column, a's in the first
      ASSERT_FALSE((*run)->runLanesIn(a)) << name;
      for (size_t l = 0; l < b; ++l) {
        ASSERT_EQ(hexOf(values[l]), hexOf(expected->value[l])) << name << " " << l;
        ASSERT_EQ(hexOf(grads[l * row + 1]), hexOf(expected->gradient[0][l])) << name << " " << l;
        ASSERT_EQ(hexOf(grads[l * row]), hexOf(expected->gradient[1][l])) << name << " " << l;
        ASSERT_EQ(grads[l * row + sentinel], -7.0) << name << " " << l;
      }
      std::fill(values.begin(), values.end(), -7.0);
      a.gradient.clear();  // the values only: no gradient written
      std::fill(grads.begin(), grads.end(), -7.0);
      ASSERT_FALSE((*run)->runLanesIn(a)) << name;
      for (size_t l = 0; l < b; ++l) ASSERT_EQ(hexOf(values[l]), hexOf(expected->value[l])) << name << " " << l;
      EXPECT_TRUE(std::all_of(grads.begin(), grads.end(), [](double g) { return g == -7.0; })) << name;
    }
  }
  std::filesystem::remove_all(dir);
  ::unsetenv("DMCI_CACHE_DIR");
}

// A batch whose gradient pointers do not match the engine's gradient entries is a usage error, not a write past
// the caller's arrays.
TEST(CompiledEngine, StridedLanesCheckTheGradientEntries) {
  auto prog = Program::fromText("(* a x)", "w.scm");
  ASSERT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"a", "x"};
  for (const char* name : {"native", "replay"}) {
    auto run = (*engineNamed(name))->prepare(*prog, {"a", "x"}, o);
    ASSERT_TRUE(run);
    std::vector<double> params = {1.0, 2.0}, values(1), grads(2);
    LaneArrays a;
    a.lanes = 1;
    a.param = {params.data(), params.data() + 1};
    a.paramStride = a.gradientStride = 2;
    a.value = values.data();
    a.gradient = {grads.data()};
    auto e = (*run)->runLanesIn(a);
    ASSERT_TRUE(e) << name;
    EXPECT_EQ(e->kind, ErrorKind::Usage) << name;
    EXPECT_NE(e->message.find("2 gradient entries"), std::string::npos) << e->message;
  }
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

// --- tensor steps ---

// Within 1e-12 relative (or the same non-finite number).
bool close(double a, double b) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

// A cache directory of the test's own, removed at the end.
struct ScopedCache {
  std::string dir;
  explicit ScopedCache(const std::string& name)
      : dir((std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string()) {
    ::setenv("DMCI_CACHE_DIR", dir.c_str(), 1);
  }
  ~ScopedCache() {
    ::unsetenv("DMCI_CACHE_DIR");
    std::filesystem::remove_all(dir);
  }
};

// Every tensor primitive, each on a tensor that depends on x (and the elementwise + - * / with broadcasting).
const char* kEveryTensorPrimitive =
    "(define A (mat (list x 2) (list 3 x)))\n"
    "(define S (+ (outer (vec x 1) (vec x 1)) (eye 2)))\n"
    "(+ (logdet S) (dot (vec x 1) (matvec (inv A) (vec 2 x))) (det (cholesky S)) (vsum (solve A (vec 1 x)))\n"
    "   (norm (scale x (transpose A))) (trace (matmul A (mat (list 1 2) (list 3 x)))) (ref (mat (vec x 2) (list 1 x)) "
    "1 0)\n"
    "   (vsum (- (* 2 (vec x 1)) (/ (vec 1 x) x) (- (vec x 3)) (/ (vec 2 x)))) (det A))";

// The emitted code of a tensor trace builds without a warning at -O3 (-Wall -Wextra -Werror, Eigen as a system
// directory), and the compiled engine's value and gradient equal the native engine's to 1e-12 relative.
TEST(CompiledTensors, EveryPrimitiveBuildsWithoutWarningsAndEqualsNative) {
  ScopedCache cache("dmci-tensor-prims-");
  auto prog = Program::fromText(kEveryTensorPrimitive, "prims.scm");
  ASSERT_TRUE(prog) << prog.error().str();
  EvalOptions o;
  o.wrt = {"x"};
  o.wrtLiterals = true;
  o.leafParameters = true;
  Evaluator rec(*prog, {"x"}, o);
  replay::Trace t;
  ASSERT_TRUE(rec.record({1.5}, t));
  ASSERT_TRUE(t.replayable()) << t.notReplayable;
  ASSERT_TRUE(t.hasTensorSteps());
  std::map<std::string, int> prims;
  for (const auto& st : t.tensorSteps) ++prims[prim(st.prim).name];
  for (const char* p :
       {"vec",   "mat", "ref",    "dot", "matvec", "matmul",   "transpose", "outer",    "trace",    "norm",    "vsum",
        "scale", "det", "logdet", "inv", "solve",  "cholesky", "%tensor+",  "%tensor-", "%tensor*", "%tensor/"})
    EXPECT_GT(prims[p], 0) << p << " has no tensor step:\n" << replay::traceText(t);
  replay::EmitRequest req;
  for (auto& [key, leaves] : rec.gradientLeaves()) req.gradientKeys.push_back(key), req.leaves.push_back(leaves);
  auto code = replay::emitCpp(t, req);
  ASSERT_TRUE(code) << code.error().str();
  EXPECT_NE(code->find("Eigen::Matrix<double, 2, 2>"), std::string::npos);
  const std::string file = cache.dir + "/prims.cpp";
  std::filesystem::create_directories(cache.dir);
  std::ofstream(file) << *code;
  const char* cxx = std::getenv("CXX");
  ASSERT_NE(std::string(replay::eigenIncludeDir()), "");
  const std::string cmd = std::string(cxx ? cxx : "c++") +
                          " -O3 -Wall -Wextra -Werror -ffp-contract=off -fPIC -shared -isystem '" +
                          replay::eigenIncludeDir() + "' -o '" + cache.dir + "/prims.so' '" + file + "' 2>&1";
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_TRUE(pipe);
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << cmd << "\n" << out;
  EXPECT_EQ(out, "");
  // Lanes on the recorded path and off it (x < 1 makes A's determinant change sign: no branch here, the same path).
  LaneBatch lanes;
  lanes.params = {"x"};
  lanes.values = {{1.5, 1.25, 2.0, 3.5, 0.75}};
  o.leafParameters = false;
  auto native = nativeEngine().evaluateLanes(*prog, lanes, o);
  auto compiled = (*engineNamed("compiled"))->evaluateLanes(*prog, lanes, o);
  ASSERT_TRUE(native) << native.error().str();
  ASSERT_TRUE(compiled) << compiled.error().str();
  EXPECT_EQ(compiled->counters.get("emit_refused"), 0);
  EXPECT_EQ(compiled->counters.get("replayed"), 5);
  for (size_t l = 0; l < native->lanes(); ++l) {
    EXPECT_PRED2(close, compiled->value[l], native->value[l]) << "lane " << l;
    for (size_t k = 0; k < native->gradient.size(); ++k)
      EXPECT_PRED2(close, compiled->gradient[k][l], native->gradient[k][l])
          << "lane " << l << " d/d " << native->gradientKeys[k];
  }
}

// Shapes past 16 on a side are dynamic Eigen matrices, mixed with fixed-size ones in one expression (a 2x20
// constant times a 20-vector into a 2-vector): the same rules, the same agreement with the native engine.
TEST(CompiledTensors, LargeShapesAreDynamicMatrices) {
  ScopedCache cache("dmci-tensor-large-");
  auto prog = Program::fromText(
      "(define v (scale x (ones 20)))\n"
      "(define A (+ (eye 20) (scale y (outer v v))))\n"
      "(+ (logdet A) (dot v (solve A v)) (vsum (matvec (ones 2 20) v)) (trace (matmul (inv A) (transpose A)))\n"
      "   (norm (cholesky A)) (det (matmul (ones 2 20) (matmul A (ones 20 2)))))",
      "large.scm");
  ASSERT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"x", "y"};
  o.leafParameters = true;
  Evaluator rec(*prog, {"x", "y"}, o);
  replay::Trace t;
  ASSERT_TRUE(rec.record({0.5, 0.25}, t));
  ASSERT_TRUE(t.replayable() && t.hasTensorSteps()) << t.notReplayable;
  replay::EmitRequest req;
  for (auto& [key, leaves] : rec.gradientLeaves()) req.gradientKeys.push_back(key), req.leaves.push_back(leaves);
  auto code = replay::emitCpp(t, req);
  ASSERT_TRUE(code) << code.error().str();
  EXPECT_NE(code->find("Eigen::MatrixXd t"), std::string::npos);
  EXPECT_NE(code->find("Eigen::Matrix<double, 2, 1> t"), std::string::npos);
  LaneBatch lanes;
  lanes.params = {"x", "y"};
  lanes.values = {{0.5, 0.25, -0.75}, {0.25, 0.5, 0.125}};
  o.leafParameters = false;
  auto native = nativeEngine().evaluateLanes(*prog, lanes, o);
  auto compiled = (*engineNamed("compiled"))->evaluateLanes(*prog, lanes, o);
  ASSERT_TRUE(native) << native.error().str();
  ASSERT_TRUE(compiled) << compiled.error().str();
  EXPECT_EQ(compiled->counters.get("replayed"), 3);
  for (size_t l = 0; l < native->lanes(); ++l) {
    EXPECT_PRED2(close, compiled->value[l], native->value[l]) << "lane " << l;
    for (size_t k = 0; k < native->gradient.size(); ++k)
      EXPECT_PRED2(close, compiled->gradient[k][l], native->gradient[k][l]) << "lane " << l << " key " << k;
  }
}

// Guards in a tensor program: a branch on a number read out of a tensor sends lanes down two paths (both
// compiled; a lane moved across the branch is rerun natively and recorded), and the one-lane function returns 1
// ("path changed") exactly where the native rule raises a domain error (logdet, inv, cholesky).
TEST(CompiledTensors, GuardsCatchLanesMovedAcrossABranchOrIntoADomainError) {
  ScopedCache cache("dmci-tensor-guards-");
  auto prog = Program::fromText(
      "(define A (mat (list x 1) (list 1 y)))\n"
      "(if (> (det A) 0) (+ (logdet A) (vsum (matvec A (vec x y)))) (+ (trace (inv A)) (dot (vec x y) (solve A (vec "
      "1 y)))))",
      "branch.scm");
  ASSERT_TRUE(prog);
  LaneBatch lanes;
  lanes.params = {"x", "y"};
  lanes.values = {{2.0, 0.5, 3.0, -1.0, 1.5, 0.25}, {1.5, 1.0, 2.0, 2.0, -0.5, 0.5}};  // det: +, -, +, -, -, -
  EvalOptions o;
  o.wrt = {"x", "y"};
  auto native = nativeEngine().evaluateLanes(*prog, lanes, o);
  auto compiled = (*engineNamed("compiled"))->evaluateLanes(*prog, lanes, o);
  ASSERT_TRUE(native) << native.error().str();
  ASSERT_TRUE(compiled) << compiled.error().str();
  for (size_t l = 0; l < native->lanes(); ++l) {
    EXPECT_PRED2(close, compiled->value[l], native->value[l]) << "lane " << l;
    for (size_t k = 0; k < native->gradient.size(); ++k)
      EXPECT_PRED2(close, compiled->gradient[k][l], native->gradient[k][l]) << "lane " << l << " key " << k;
  }
  EXPECT_EQ(compiled->counters.get("traces"), 2);
  EXPECT_EQ(compiled->counters.get("recorded"), 2);
  EXPECT_GE(compiled->counters.get("off_path"), 4);  // lane 0's path left four lanes; the second path took them
  EXPECT_EQ(compiled->counters.get("replayed"), 6);
  EXPECT_EQ(compiled->counters.get("interpreted"), 0);
  EXPECT_EQ(compiled->counters.get("emit_refused"), 0);

  // Domain errors: recorded where the rule succeeds; elsewhere the native run fails and the function says so.
  struct DomainCase {
    const char* source;
    double ok, bad;
  };
  for (const DomainCase& c :
       {DomainCase{"(logdet (mat (list x 1) (list 1 x)))", 2.0, 0.5},
        DomainCase{"(vsum (inv (mat (list x 1) (list 1 x))))", 2.0, 1.0},
        DomainCase{"(vsum (cholesky (mat (list x 1) (list 1 x))))", 2.0, 0.5},
        DomainCase{"(vsum (solve (mat (list x 2) (list 1 x)) (vec 1 1)))", 2.0, std::sqrt(2.0)}}) {
    auto p = Program::fromText(c.source, "domain.scm");
    ASSERT_TRUE(p);
    EvalOptions ro;
    ro.wrt = {"x"};
    ro.leafParameters = true;
    Evaluator rec(*p, {"x"}, ro);
    replay::Trace t;
    ASSERT_TRUE(rec.record({c.ok}, t)) << c.source;
    ASSERT_TRUE(t.replayable() && t.hasTensorSteps()) << c.source << ": " << t.notReplayable;
    replay::EmitRequest req;
    for (auto& [key, leaves] : rec.gradientLeaves()) req.gradientKeys.push_back(key), req.leaves.push_back(leaves);
    auto code = replay::emitCpp(t, req);
    ASSERT_TRUE(code) << code.error().str();
    auto fn = replay::CompiledTrace::build(*code, req.function);
    ASSERT_TRUE(fn) << fn.error().str();
    double v = 0, g[4] = {0, 0, 0, 0};
    auto native = nativeEngine().evaluate(*p, {{"x", c.ok}}, ro);
    ASSERT_TRUE(native);
    ASSERT_EQ((**fn)(&c.ok, &v, g), 0) << c.source;
    EXPECT_PRED2(close, v, native->value) << c.source;
    EXPECT_PRED2(close, g[0], native->gradient[0].second) << c.source;
    EXPECT_FALSE(nativeEngine().evaluate(*p, {{"x", c.bad}}, ro)) << c.source << " at " << c.bad;
    EXPECT_EQ((**fn)(&c.bad, &v, g), 1) << c.source << " at " << c.bad;
    unsigned char ok = 7;
    const double* params[] = {&c.bad};
    (*fn)->lanes(1, params, &v, nullptr, &ok);
    EXPECT_EQ(ok, 0) << c.source << " (lane loop) at " << c.bad;
  }
}

// Whether a program calls a tensor primitive (comments left out).
bool usesTensors(const std::string& source) {
  const std::string code = std::regex_replace(source, std::regex(";[^\n]*"), "");
  for (const Primitive& p : primitives())
    if (p.family == PrimFamily::Tensor && std::regex_search(code, std::regex("\\(" + std::string(p.name) + "[\\s)]")))
      return true;
  return false;
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every corpus pair that calls a tensor primitive, batched as the lane tests batch them, on the direct and dmci
// routes: the compiled engine's value and gradient within 1e-12 relative of the native engine's in every lane.
// The lanes it does not compile are counted with the reason (they run natively: equal to the native lanes).
// In two shards (every other batch), each a test of its own: every trace is built by the compiler, seconds each.
class CompiledTensorsCorpus : public ::testing::TestWithParam<int> {};
constexpr int kCorpusShards = 2;

TEST_P(CompiledTensorsCorpus, TensorPairsEqualNative) {
  const int shard = GetParam();
  ScopedCache cache("dmci-tensor-corpus-" + std::to_string(shard) + "-");
  auto m = gate::loadManifest(std::string(DMCI_SOURCE_DIR) + "/corpus");
  ASSERT_TRUE(m) << m.error().str();
  std::map<std::string, Program> programs;
  std::map<std::string, int> refused;
  size_t pairs = 0, compiledPairs = 0, runs = 0, batch = 0;
  for (const auto& [key, first, lanes] : test::corpusBatches(*m)) {
    const std::string source = readText(m->dir + "/" + first->file);
    if (!usesTensors(source) || static_cast<int>(batch++ % kCorpusShards) != shard) continue;
    auto it = programs.find(first->file);
    if (it == programs.end()) {
      auto prog = Program::fromText(source, first->file);
      ASSERT_TRUE(prog) << prog.error().str();
      it = programs.emplace(first->file, std::move(*prog)).first;
    }
    const size_t n = lanes.values.empty() ? 1 : lanes.values[0].size();
    pairs += n;
    bool allCompiled = true;
    for (Route r : first->routes) {
      if (r != Route::Direct && r != Route::Dmci) continue;
      EvalOptions o;
      o.route = r;
      o.wrt = first->wrt;
      o.wrtLiterals = first->literals;
      auto native = nativeEngine().evaluateLanes(it->second, lanes, o);
      auto compiled = (*engineNamed("compiled"))->evaluateLanes(it->second, lanes, o);
      const std::string what = key + " [" + routeName(r) + "]";
      ++runs;
      if (!native) {
        ASSERT_FALSE(compiled) << what;
        EXPECT_EQ(compiled.error().str(), native.error().str()) << what;
        allCompiled = false;
        ++refused["the native run fails: " + native.error().message];
        continue;
      }
      ASSERT_TRUE(compiled) << what << ": " << compiled.error().str();
      ASSERT_EQ(compiled->lanes(), native->lanes()) << what;
      for (size_t l = 0; l < native->lanes(); ++l) {
        EXPECT_PRED2(close, compiled->value[l], native->value[l]) << what << " lane " << l;
        for (size_t k = 0; k < native->gradient.size(); ++k)
          EXPECT_PRED2(close, compiled->gradient[k][l], native->gradient[k][l])
              << what << " lane " << l << " d/d " << native->gradientKeys[k];
      }
      if (compiled->counters.get("replayed") == static_cast<double>(n)) continue;
      allCompiled = false;
      // Why: the trace of lane 0's path.
      EvalOptions ro = o;
      ro.leafParameters = true;
      Evaluator rec(it->second, lanes.params, ro);
      replay::Trace t;
      std::vector<double> seed;
      for (const auto& v : lanes.values) seed.push_back(v[0]);
      (void)rec.record(seed, t);
      std::string why = t.notReplayable;
      if (why.empty()) {
        replay::EmitRequest req;
        for (auto& [k, leaves] : rec.gradientLeaves()) req.gradientKeys.push_back(k), req.leaves.push_back(leaves);
        auto code = replay::emitCpp(t, req);
        why = code ? "lanes off the recorded path" : "emit refused: " + code.error().message;
      }
      ++refused[why];
    }
    if (allCompiled) compiledPairs += n;
  }
  std::printf(
      "compiled tensors, shard %d of %d: %zu of %zu corpus pairs using tensor primitives compiled on every "
      "route (%zu runs)\n",
      shard + 1, kCorpusShards, compiledPairs, pairs, runs);
  for (const auto& [why, count] : refused) std::printf("  %3d runs not compiled: %s\n", count, why.c_str());
  EXPECT_GT(pairs, 20u);
  EXPECT_GE(compiledPairs * 4, pairs * 3);
}

INSTANTIATE_TEST_SUITE_P(Shards, CompiledTensorsCorpus, ::testing::Range(0, kCorpusShards));

// The 2-state Kalman filter of the corpus (tensors/kalman_ssm_d2: mat, matvec, matmul, transpose, outer, dot,
// scale over 24 observations) runs through the compiled engine, direct and through mce.scm: one trace, built once,
// every lane compiled, within 1e-12 relative of the native engine.
TEST(CompiledTensors, KalmanSsmD2RunsCompiled) {
  ScopedCache cache("dmci-tensor-kalman-");
  auto m = gate::loadManifest(std::string(DMCI_SOURCE_DIR) + "/corpus");
  ASSERT_TRUE(m) << m.error().str();
  size_t found = 0;
  for (const auto& [key, first, lanes] : test::corpusBatches(*m)) {
    if (first->file != "tensors/kalman_ssm_d2.scm") continue;
    auto prog = Program::fromText(readText(m->dir + "/" + first->file), first->file);
    ASSERT_TRUE(prog) << prog.error().str();
    for (Route r : {Route::Direct, Route::Dmci}) {
      EvalOptions o;
      o.route = r;
      o.wrt = first->wrt;
      o.wrtLiterals = first->literals;
      auto native = nativeEngine().evaluateLanes(*prog, lanes, o);
      auto compiled = (*engineNamed("compiled"))->evaluateLanes(*prog, lanes, o);
      ASSERT_TRUE(native && compiled) << key;
      ++found;
      EXPECT_EQ(compiled->counters.get("emit_refused"), 0) << key;
      EXPECT_EQ(compiled->counters.get("not_replayable"), 0) << key;
      EXPECT_EQ(compiled->counters.get("replayed"), static_cast<double>(native->lanes())) << key;
      EXPECT_EQ(compiled->counters.get("traces"), 1) << key;
      EXPECT_GT(compiled->counters.get("tensor_steps"), 24 * 8) << key;  // 24 observations, 10 tensor steps each
      EXPECT_GT(native->gradient.size(), 5u);
      for (size_t l = 0; l < native->lanes(); ++l) {
        EXPECT_PRED2(close, compiled->value[l], native->value[l]) << key << " lane " << l;
        for (size_t k = 0; k < native->gradient.size(); ++k)
          EXPECT_PRED2(close, compiled->gradient[k][l], native->gradient[k][l]) << key << " lane " << l << " key " << k;
      }
    }
  }
  EXPECT_GE(found, 2u);
}

}  // namespace
}  // namespace dmci
