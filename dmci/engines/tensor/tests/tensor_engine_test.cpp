// The tensor engine agrees with the native engine lane for lane: values, gradients, errors and the 14-number layout.
#include <gtest/gtest.h>

#ifdef DMCI_HAVE_TORCH
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "driver/Program.h"
#include "engines/tensor/TensorEngine.h"
#include "runtime/Layout14.h"
#include "testing/Eval.h"

namespace dmci {
namespace {

using test::close;

// A program, its parameters and their values in each lane ([param][lane]).
struct Case {
  const char* name;
  std::string src;
  std::vector<std::string> params;
  std::vector<std::vector<double>> lanes;
};

const std::vector<double> kX = {0.3, 1.7, 2.5};

// The device under test: DMCI_TENSOR_DEVICE (ci/gpu-check sets cuda), else cpu.
Engine& tensorEngine() { return **engineNamed("tensor"); }

std::string device() {
  const char* d = std::getenv("DMCI_TENSOR_DEVICE");
  return d ? d : "cpu";
}

const std::vector<Case>& corpus() {
  static const std::vector<Case> cases = {
      {"alpha_x2", "(* alpha (* x x))", {"alpha", "x"}, {{1.5, 0.5, -2.0}, kX}},
      {"a_bx2", "(+ a (* b (* x x)))", {"a", "b", "x"}, {{0.5, 1, 2}, {1.5, -1, 3}, kX}},
      {"poly3",
       "(define (poly x n) (if (= n 0) alpha (+ (* x (poly x (- n 1))) alpha)))\n(poly x 3)",
       {"alpha", "x"},
       {{1.5, 0.5, 2.0}, kX}},
      {"twice",
       "(define (twice f) (lambda (y) (f (f y))))\n((twice (lambda (y) (* alpha y))) x)",
       {"alpha", "x"},
       {{1.5, 0.5, 2.0}, kX}},
      {"compose",
       "(define (f y) (* alpha y))\n(define (g y) (+ y 1))\n(f (g x))",
       {"alpha", "x"},
       {{1.5, 0.5, 2.0}, kX}},
      {"named_let", "(let loop ((i 0) (acc 0)) (if (= i 5) acc (loop (+ i 1) (+ acc (* x i)))))", {"x"}, {kX}},
      {"map_fold", "(fold-left + 0 (map (lambda (y) (* y x)) (list 1 2 3)))", {"x"}, {kX}},
      {"shape_whatever_the_entries",
       "(let ((s (shape (mat (list x (/ 1 0)) (list (- (/ 1 0) (/ 1 0)) 2) '(1 1)))))"
       " (+ (* 10 (car s)) (cadr s) (car (shape (vec x x))) (* x (length (shape (scale x (vec 1 x)))))))",
       {"x"},
       {kX}},
      {"lists", "(let ((l (reverse (list x (* 2 x) 3)))) (+ (car l) (cadr l) (length l) (list-ref l 2)))", {"x"}, {kX}},
      {"apply_variadic", "(+ (apply + (list x 2 3)) ((lambda args (apply * args)) x 2 3))", {"x"}, {kX}},
      {"elementary",
       "(+ (sin x) (cos x) (tan (* 0.1 x)) (exp (* 0.1 x)) (log (+ 2 x)) (log (+ 2 x) 3) (sqrt (+ 1 (* x x)))"
       " (tanh x) (sigmoid x) (softplus x) (atan x) (atan x 2) (expt x 3) (expt 2 x) (square x)"
       " (asin (* 0.1 x)) (acos (* 0.1 x)) (floor x) (round x))",
       {"x"},
       {kX}},
      {"min_max_abs", "(+ (abs (- x 1)) (min x 1.5) (max x 0.5 (* x x)) (max 1 2))", {"x"}, {kX}},
      {"branch", "(if (< x 1) (* x x) (- (* 3 x)))", {"x"}, {kX}},
      {"integer_division", "(+ (modulo -7 3) (remainder 7 -2) (* x (quotient 9 2)))", {"x"}, {kX}},
      {"assq_symbols", "(if (eq? (car '(a b)) 'a) (cdr (assq 'b (list (cons 'a 1) (cons 'b x)))) 0)", {"x"}, {kX}},
      {"mutual_recursion",
       "(define (parity n) (define (ev? k) (if (= k 0) #t (od? (- k 1))))"
       " (define (od? k) (if (= k 0) #f (ev? (- k 1)))) (if (ev? n) x (* 2 x)))\n(+ (parity 4) (parity 3))",
       {"x"},
       {kX}},
      {"tensor_algebra",
       "(define A (mat (list 2 x) (list 0.5 3)))\n(define v (vec x 1))\n"
       "(+ (vsum (matvec A v)) (dot v v) (trace (outer v v)) (det A) (logdet A) (norm v) (ref A 0 1)"
       " (vsum (scale x (transpose A))) (vsum (inv A)) (vsum (solve A v)) (vsum (cholesky (matmul A (transpose A)))))",
       {"x"},
       {kX}},
      {"tensor_value", "(+ (scale x (vec 1 2 3)) (vec 1 x 2))", {"x"}, {kX}},
      {"tensor_elementwise", "(vsum (/ (* (- (vec x 2) 1) (vec 3 x)) 2))", {"x"}, {kX}},
      {"kalman_step",
       "(define F (mat (list 1 1) (list 0 1)))\n(define H (mat (list 1 0)))\n"
       "(define (step m P y)\n"
       "  (let* ((m1 (matvec F m)) (P1 (+ (matmul F (matmul P (transpose F))) (scale q (eye 2))))\n"
       "         (S (+ (matmul H (matmul P1 (transpose H))) (scale r (eye 1))))\n"
       "         (e (- (vec y) (matvec H m1))) (Si (inv S)))\n"
       "    (* -0.5 (+ (logdet S) (dot e (matvec Si e))))))\n"
       "(step (vec 0 1) (eye 2) y)",
       {"q", "r", "y"},
       {{0.1, 0.2, 0.3}, {0.5, 1.0, 2.0}, {0.4, -1.0, 2.5}}},
      // Lanes that disagree inside a primitive without a torch rule (the native rule per lane), and
      // a letrec* box made before a split and written after it (mce.scm's frames of boxes).
      {"list_ref_by_lane",
       "(* x (list-ref (list 10 x (* 2 x) 4) i))",
       {"i", "x"},
       {{0, 1, 2, 3}, {0.5, 1.5, 2.5, 3.5}}},
      {"assv_by_lane",
       "(+ (cdr (assv k (list (cons 1 10) (cons 2 x) (cons 3 (* x x))))) (if (equal? (list x 1) (list 2.5 1)) 100 0))",
       {"k", "x"},
       {{1, 2, 3, 2}, {0.5, 2.5, 3.5, 1.0}}},
      // assoc and member: the comparison form's scan splits at the comparison (a library procedure), the
      // 2-argument form's native equal? search reads the per-lane key inside its list argument.
      {"assoc_member_by_lane",
       "(+ (cadr (assoc k (list (list 1 10) (list 2 x) (list 3 (* x x))) =))"
       " (apply + (member x (list 0.5 1.5 2.5 (* 2 x)) <))"
       " (cdr (assoc (list k) (list (cons (list 1) x) (cons (list 2) 3) (cons (list 3) (* 3 x))))))",
       {"k", "x"},
       {{1, 2, 3, 2}, {0.5, 2.5, 3.5, 1.0}}},
      {"letrec_split",
       "(define (f y) (define a (if (< y 1) (* y 2) (* y 3))) (define (g z) (* z a)) (g a))\n(f x)",
       {"x"},
       {{0.5, 1.5, 0.25, 3.0}}},
      {"apply_max", "(+ (apply max (list x 1 2)) (apply min x (list 1.5 2)))", {"x"}, {kX}},
      // vector-set! on a vector made before a split, in each child's overlay (BatchMachine.cpp), an accumulator
      // vector in a loop, and a vector-valued list read back after lanes split.
      {"vector_set_after_split",
       "(let ((v (make-vector 3 x))) (if (< x 1) (vector-set! v 0 (* x x)) (vector-set! v 1 (* 3 x)))"
       " (vector-fill! v (+ x 1) 2) (+ (vector-ref v 0) (* 2 (vector-ref v 1)) (* 5 (vector-ref v 2))))",
       {"x"},
       {{0.5, 1.5, 0.25, 3.0}}},
      {"vector_accumulator",
       "(let ((acc (make-vector 2 0))) (do ((k 0 (+ k 1))) ((= k 5)) (vector-set! acc (modulo k 2)"
       " (+ (vector-ref acc (modulo k 2)) (* x k)))) (if (< x 1) (vector-set! acc 0 (* x (vector-ref acc 0))) #f)"
       " (* (vector-ref acc 0) (vector-ref acc 1)))",
       {"x"},
       {kX}},
      {"closure_env", "(define (adder n) (lambda (y) (+ y n x)))\n(* ((adder 3) x) ((adder x) 2))", {"x"}, {kX}},
  };
  return cases;
}

LaneEvaluation tensorRun(const Case& c, Route r, bool float32 = false) {
  auto p = Program::fromText(c.src, test::kProgFile);
  EXPECT_TRUE(p) << p.error().str();
  EvalOptions o;
  o.route = r;
  o.wrt = c.params;
  o.wrtLiterals = true;
  o.tensor.float32 = float32;
  o.tensor.device = device();
  auto ev = tensorEngine().evaluateLanes(*p, LaneBatch{c.params, c.lanes}, o);
  EXPECT_TRUE(ev) << c.name << ": " << ev.error().str();
  return ev ? *ev : LaneEvaluation{};
}

LaneEvaluation nativeRun(const Case& c, Route r) {
  auto p = Program::fromText(c.src, test::kProgFile);
  EvalOptions o;
  o.route = r;
  o.wrt = c.params;
  o.wrtLiterals = true;
  auto ev = nativeEngine().evaluateLanes(*p, LaneBatch{c.params, c.lanes}, o);
  EXPECT_TRUE(ev) << c.name << ": " << ev.error().str();
  return ev ? *ev : LaneEvaluation{};
}

void expectSame(const LaneEvaluation& a, const LaneEvaluation& b, double rel, const std::string& what) {
  ASSERT_EQ(a.value.size(), b.value.size()) << what;
  EXPECT_EQ(a.gradientKeys, b.gradientKeys) << what;
  for (size_t lane = 0; lane < a.value.size(); ++lane) {
    auto ga = a.laneGradient(lane), gb = b.laneGradient(lane);
    EXPECT_TRUE(close(a.value[lane], b.value[lane], rel))
        << what << " lane " << lane << ": " << a.value[lane] << " vs " << b.value[lane];
    ASSERT_EQ(ga.size(), gb.size()) << what;
    for (size_t k = 0; k < ga.size(); ++k) {
      EXPECT_EQ(ga[k].first, gb[k].first) << what;
      EXPECT_TRUE(close(ga[k].second, gb[k].second, rel))
          << what << " lane " << lane << " d/d" << ga[k].first << ": " << ga[k].second << " vs " << gb[k].second;
    }
  }
}

class TensorAgrees : public ::testing::TestWithParam<Route> {};

TEST_P(TensorAgrees, WithNativeOnEveryProgramValueAndGradient) {
  for (const auto& c : corpus()) expectSame(tensorRun(c, GetParam()), nativeRun(c, GetParam()), 1e-12, c.name);
}

TEST_P(TensorAgrees, BatchedEqualsOneLaneAtATime) {
  for (const auto& c : corpus()) {
    LaneEvaluation batched = tensorRun(c, GetParam());
    for (size_t lane = 0; lane < batched.value.size(); ++lane) {
      Case one = c;
      for (auto& v : one.lanes) v = {v[lane]};
      LaneEvaluation single = tensorRun(one, GetParam());
      ASSERT_EQ(single.value.size(), 1u) << c.name;
      EXPECT_EQ(single.value[0], batched.value[lane]) << c.name << " lane " << lane;
      ASSERT_EQ(single.gradientKeys, batched.gradientKeys) << c.name;
      for (size_t k = 0; k < single.gradient.size(); ++k)
        EXPECT_TRUE(close(single.gradient[k][0], batched.gradient[k][lane], 1e-14))
            << c.name << " lane " << lane << " " << single.gradientKeys[k];
    }
  }
}

TEST_P(TensorAgrees, LanesThatDisagreeInANativeRuleSplitThere) {
  for (const auto& c : corpus()) {
    if (c.name != std::string("list_ref_by_lane")) continue;
    LaneEvaluation t = tensorRun(c, GetParam());
    EXPECT_GT(t.counters.get("lane_loops"), 0);
    EXPECT_GE(t.counters.get("groups"), 5);  // the root and one group per index
  }
}

TEST_P(TensorAgrees, InFloat32ToSinglePrecision) {
  for (const char* name : {"alpha_x2", "poly3", "kalman_step", "elementary"}) {
    for (const auto& c : corpus())
      if (c.name == std::string(name)) expectSame(tensorRun(c, GetParam(), true), nativeRun(c, GetParam()), 2e-5, name);
  }
}

// 1024 lanes, each with its own recursion depth (0..30) and its own branch outcome.
TEST_P(TensorAgrees, ThousandDivergentLanesMatchNativeLaneForLane) {
  Case c{"divergent",
         "(define (f n acc) (if (< n 0.5) acc (f (- n 1) (* acc x))))\n"
         "(if (< x 1) (f n 1) (- (f n 2) x))",
         {"n", "x"},
         {{}, {}}};
  for (int lane = 0; lane < 1024; ++lane) {
    c.lanes[0].push_back(lane % 31);
    c.lanes[1].push_back(0.9 + 0.0002 * lane);
  }
  LaneEvaluation t = tensorRun(c, GetParam());
  expectSame(t, nativeRun(c, GetParam()), 1e-12, "divergent");
  EXPECT_GT(t.counters.get("groups"), 31);
  EXPECT_GT(t.counters.get("splits"), 0);
  EXPECT_GT(t.counters.get("syncs"), 0);
}

INSTANTIATE_TEST_SUITE_P(Routes, TensorAgrees, ::testing::Values(Route::Direct, Route::Dmci));

// --- errors: the same kind, message and position as the native engine ---

Error tensorError(const std::string& src, Route r, std::vector<std::string> params = {},
                  std::vector<std::vector<double>> lanes = {}) {
  auto p = Program::fromText(src, test::kProgFile);
  EvalOptions o;
  o.route = r;
  o.tensor.device = device();
  auto ev = tensorEngine().evaluateLanes(*p, LaneBatch{params, lanes}, o);
  EXPECT_FALSE(ev) << src;
  return ev ? Error{} : ev.error();
}

class TensorErrors : public ::testing::TestWithParam<Route> {};

TEST_P(TensorErrors, MatchNativeKindMessageAndPosition) {
  struct E {
    std::string src;
    std::vector<std::string> params;
    std::vector<std::vector<double>> lanes;
  };
  const std::vector<E> cases = {
      {"(car 1)", {}, {}},
      {"(+ 1 undefined-name)", {}, {}},
      {"(car (list x))\n(car x)", {"x"}, {{2.5, 3.5}}},
      {"(define (f y) (* y 2))\n(f x x)", {"x"}, {{1, 2}}},
      {"(if (< x 2) (car x) x)", {"x"}, {{3, 1.5}}},
      {"(+ 1 (quotient x 0))", {"x"}, {{4, 6}}},
      {"(inv (mat (list x 2) (list 2 4)))", {"x"}, {{3, 1}}},
      // Singular to working precision (smallest singular value ~1.8e-16 of the largest, 5): an error in both
      // engines, not a huge inverse in one of them.
      {"(inv (mat (list 1 2) (list 2 x)))", {"x"}, {{5, 4.000000000000001}}},
      {"(solve (mat (list 1 2) (list 2 x)) (vec 1 1))", {"x"}, {{3, 4.000000000000001}}},
      {"(error \"bad value\" x)", {"x"}, {{0.25}}},
      {"(list x)", {"x"}, {{1}}},
      {"(if (< x 2) (apply +) x)", {"x"}, {{3, 1.5}}},
      {"(cdr (assoc x (list (cons 1 2) 5) =))", {"x"}, {{3, 4}}},
      // vector-set! with a per-lane index that is one number in every lane, then out of range, then of a literal.
      {"(define v (vector 1 2))\n(vector-set! v (* 0 x) x)\n(vector-set! v 2 x)", {"x"}, {{1, 2}}},
      {"(define v #(1 2))\n(if (< x 2) (vector-set! v 0 x) x)", {"x"}, {{3, 1}}},
  };
  for (const auto& c : cases) {
    Error t = tensorError(c.src, GetParam(), c.params, c.lanes);
    // The native engine's error of the first lane that fails.
    Error n;
    for (size_t lane = 0; lane < (c.lanes.empty() ? 1 : c.lanes[0].size()); ++lane) {
      std::vector<SeedValue> seed;
      for (size_t k = 0; k < c.params.size(); ++k) seed.push_back({c.params[k], c.lanes[k][lane]});
      auto ev = test::evaluate(c.src, test::options(GetParam()), seed);
      if (!ev) {
        n = ev.error();
        break;
      }
    }
    EXPECT_EQ(t.kind, n.kind) << c.src;
    EXPECT_EQ(t.message, n.message) << c.src;
    EXPECT_EQ(t.pos.str(), n.pos.str()) << c.src;
  }
}

// Lanes whose values differ in shape (a number and a tensor, or two tensor shapes) cannot stand in one batch: the
// first lane that differs from lane 0 is the error, in the native engine's words, never a sum that passes for a
// number.
TEST_P(TensorErrors, ALaneOfAnotherShapeIsThatLanesErrorAsNatives) {
  for (const char* src : {"(if (< x 2) x (vec x x))", "(if (< x 2) (vec x) (vec x x))"}) {
    Error t = tensorError(src, GetParam(), {"x"}, {{1, 1.5, 3, 4}});
    auto p = Program::fromText(src, test::kProgFile);
    auto n = nativeEngine().evaluateLanes(*p, LaneBatch{{"x"}, {{1, 1.5, 3, 4}}}, test::options(GetParam()));
    ASSERT_FALSE(n) << src;
    EXPECT_EQ(t.kind, ErrorKind::Type) << src;
    EXPECT_EQ(t.message, n.error().message) << src;
    EXPECT_EQ(t.message.rfind("lane 2: the lanes' values must have one shape", 0), 0u) << t.message;
    EXPECT_EQ(t.pos.str(), n.error().pos.str()) << src;
  }
}

// A group writes one element for all its lanes: an index that differs between them is an error that says so (the
// native engine runs each lane alone, and writes each its own element).
TEST_P(TensorErrors, AVectorSetWhoseIndexDiffersBetweenLanesSaysSo) {
  Error t = tensorError("(define v (vector 1 2))\n(vector-set! v x 0)\n(vector-ref v 0)", GetParam(), {"x"}, {{0, 1}});
  EXPECT_EQ(t.kind, ErrorKind::Domain);
  EXPECT_NE(t.message.find("vector-set!: the index differs between the lanes of a batch"), std::string::npos)
      << t.message;
  EXPECT_EQ(test::where(t.pos), "2:1");
}

INSTANTIATE_TEST_SUITE_P(Routes, TensorErrors, ::testing::Values(Route::Direct, Route::Dmci));

// --- the [B,14] layout agrees with the native Layout14 of the same value ---

TEST(TensorLayout14, AgreesWithNativeLaneForLane) {
  const std::vector<double> xs = {0.5, -2.0, 3.25};
  for (const char* src : {"(* 2 x)", "(cons x (* 2 x))", "(list 'a x)", "(lambda (y) (* x y))", "(vec x 1)", "(< x 1)",
                          "car", "'sym", "\"text\""}) {
    auto p = Program::fromText(src, test::kProgFile);
    ASSERT_TRUE(p) << src;
    EvalOptions o;
    o.gradient = false;
    o.tensor.device = device();
    auto prepared = prepareProgram(*p, {"x"}, o);
    ASSERT_TRUE(prepared) << prepared.error().str();
    BatchEvaluator tensor(*prepared, o);
    auto layout = tensor.layout14({xs});
    ASSERT_TRUE(layout) << src << ": " << layout.error().str();
    auto g = p->compile({"x"});
    ASSERT_TRUE(g);
    for (size_t lane = 0; lane < xs.size(); ++lane) {
      Runtime rt;
      rt.reset();
      Machine m(*g, rt);
      m.loadConstants(false);
      Value v = m.run({Value::real(xs[lane])});
      Layout14 native = toLayout14(rt, v);
      for (size_t k = 0; k < native.size(); ++k)
        EXPECT_EQ((*layout)[lane][k], native[k]) << src << " lane " << lane << " slot " << k;
    }
  }
}

TEST(TensorLikeNative, OneEvaluationHasTheNativeInterfaceTensorEntriesIncluded) {
  auto p = Program::fromText("(define M (mat (list m 1) '(1 2)))\n(matvec (inv M) (vec 1 b))", test::kProgFile);
  std::vector<SeedValue> seed{{"m", 1.5}, {"b", 2.0}};
  for (Route r : {Route::Direct, Route::Dmci}) {
    auto opts = test::options(r, {"b", "m"}, true);
    auto native = p->evaluate(seed, opts);
    EvalOptions topts = opts;
    topts.tensor.device = device();
    auto tensor = tensorEngine().evaluate(*p, seed, topts);
    ASSERT_TRUE(native && tensor) << (tensor ? native.error().str() : tensor.error().str());
    EXPECT_TRUE(tensor->isTensor);
    EXPECT_EQ(tensor->rank, native->rank);
    EXPECT_EQ(tensor->rows, native->rows);
    ASSERT_EQ(tensor->tensor.size(), native->tensor.size());
    // An entry that cancels to zero is compared against the tensor's scale (inverses differ in rounding).
    double scale = 0;
    for (double x : native->tensor) scale = std::max(scale, std::fabs(x));
    for (size_t k = 0; k < native->tensor.size(); ++k)
      EXPECT_LE(std::fabs(tensor->tensor[k] - native->tensor[k]), 1e-12 * scale)
          << tensor->tensor[k] << " vs " << native->tensor[k];
    ASSERT_EQ(tensor->gradient.size(), native->gradient.size());
    for (size_t k = 0; k < native->gradient.size(); ++k)
      EXPECT_EQ(tensor->gradient[k].first, native->gradient[k].first);
  }
}

TEST(TensorLanes, LinspaceBindingsMakeLanes) {
  auto b = parseLaneBindings({"x=linspace(0,1,5)", "alpha=2"});
  ASSERT_TRUE(b) << b.error().str();
  EXPECT_EQ(b->lanes(), 5);
  EXPECT_EQ(b->values[0][4], 1.0);
  EXPECT_EQ(b->values[1][3], 2.0);
  EXPECT_FALSE(parseLaneBindings({"x=linspace(0,1)"}));
  EXPECT_FALSE(parseLaneBindings({"x=linspace(0,1,3)", "y=linspace(0,1,4)"}));
}

TEST(TensorDevice, CpuIsAlwaysAvailableAndTheDeviceUnderTestToo) {
  EXPECT_TRUE(tensorDeviceAvailable("cpu"));
  EXPECT_TRUE(tensorDeviceAvailable(device())) << device();
  EXPECT_FALSE(tensorDeviceAvailable("tpu"));
}

TEST(TensorDevice, AMissingDeviceIsAUsageError) {
  if (tensorDeviceAvailable("cuda")) GTEST_SKIP() << "a CUDA device is present";
  auto p = Program::fromText("(* 2 x)", test::kProgFile);
  EvalOptions o;
  o.tensor.device = "cuda";
  auto ev = tensorEngine().evaluateLanes(*p, LaneBatch{{"x"}, {{1.0}}}, o);
  ASSERT_FALSE(ev);
  EXPECT_EQ(ev.error().kind, ErrorKind::Usage);
}

}  // namespace
}  // namespace dmci

#else
TEST(TensorEngine, SkippedWithoutLibTorch) { GTEST_SKIP() << "built without LibTorch"; }
#endif
