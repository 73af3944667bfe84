// The lantern routes (lantern/Lantern.h): gradients by continuation-based reverse mode, with no tape, equal the
// direct route's; a fault planted in the tape's sin rule moves direct and not lantern; what is not covered fails.
#include "lantern/Lantern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "testing/ControlCases.h"
#include "testing/Eval.h"

namespace dmci {
namespace {

using test::evalErr;
using test::evalOk;

struct Case {
  const char* name;
  std::string src;
  std::vector<SeedValue> seed;
};

// Every differentiable scalar primitive, the variadic forms, closures, the prelude, lists and control flow.
const std::vector<Case> kCases = {
    {"arithmetic", "(+ (* x y 2) (- x) (- x y 0.5) (/ x) (/ x y 3) (+) (*) (+ x))", {{"x", 0.7}, {"y", -1.3}}},
    {"elementary",
     "(+ (sin x) (cos x) (tan x) (asin (* 0.5 x)) (acos (* 0.5 x)) (atan x) (atan x y) (tanh x) (sigmoid x)"
     " (softplus x) (exp x) (log (+ 2 x)) (log (+ 2 x) 3) (sqrt (+ 1 x)) (expt (+ 1 x) 1.5) (expt 2 x)"
     " (square y) (abs y))",
     {{"x", 0.7}, {"y", -1.3}}},
    {"min_max", "(+ (min x y 0.1) (max x y) (max y x y))", {{"x", 0.7}, {"y", -1.3}}},
    {"saturated", "(+ (tanh (* 30 x)) (sigmoid (* -40 x)) (softplus (* 50 x)))", {{"x", 0.7}}},
    {"closures",
     "(define (compose f g) (lambda (v) (f (g v))))\n(define (twice f) (compose f f))\n"
     "((twice (lambda (v) (* v x))) (sin x))",
     {{"x", 0.7}}},
    {"prelude", "(fold-left + 0 (map (lambda (v) (* v x)) (list 1 2.5 x)))", {{"x", 0.7}}},
    {"apply", "(+ (apply * (list x 2 x)) (apply max x '(0.1 0.2)))", {{"x", 0.7}}},
    {"quoted_list_literals",
     "(define cs '(1.5 -2 0.25))\n(fold-right (lambda (c acc) (+ c (* x acc))) 0 cs)",
     {{"x", 0.7}}},
    {"branches_and_integers",
     "(let loop ((i 0) (acc 1)) (if (>= i 5) acc (loop (+ i 1) (if (even? i) (* acc x) (+ acc (quotient 7 2))))))",
     {{"x", 0.7}}},
    {"non_tail_recursion", "(define (p n) (if (= n 0) 1 (+ 1 (* x (p (- n 1))))))\n(p 30)", {{"x", 0.7}}},
    {"case_and_eqv",
     "(define (f n) (case n ((1) (* x 2)) ((2.5) (* x x)) (else x)))\n(+ (f 1) (f 2.5) (f 7))",
     {{"x", 0.7}}},
    {"predicates",
     "(if (and (number? x) (not (pair? x)) (eqv? x x) (equal? (list x) (list x))) (* x x) 0)",
     {{"x", 0.7}}},
    {"memv_assv_list_ref",
     "(+ (car (memv 2 (list 1 2 x))) (cdr (assv 1 (list (cons 1 x)))) (list-ref (list x 3) 1))",
     {{"x", 0.7}}},
    {"define_of_a_product", "(define y2 (* x x))\n(define (f v) (* v y2))\n(f (f 3))", {{"x", 0.7}}},
    {"constant_output", "(if (> x 0) 1 2)", {{"x", 0.7}}},
    // R7RS's number procedures beyond arithmetic on a dual, run as the library's code on it as on every route: the
    // tests answer as for its number (real? and rational? of a dual were #f, so this program was 0 by lantern), the
    // integer divisions, gcd, lcm, exact-integer-sqrt and make-list's count take it, and a dual fill is kept.
    {"number_procedures",
     "(define n (* 10 x))\n"
     "(+ (if (and (real? x) (rational? x) (complex? x) (not (nan? x)) (finite? x) (not (infinite? x))) (* x x) 0)\n"
     "   (call-with-values (lambda () (floor/ n 3)) +) (call-with-values (lambda () (truncate/ n -3)) +)\n"
     "   (floor-quotient n 3) (floor-remainder n -3) (truncate-quotient n 3) (truncate-remainder n 3)\n"
     "   (gcd n 15) (lcm n 4) (call-with-values (lambda () (exact-integer-sqrt n)) +)\n"
     "   (fold-left + 0 (make-list n x)) (length (make-list n)))",
     {{"x", 0.5}}},
    // Tensors: every tensor primitive's rule, tensor adjoints summed over shared duals.
    {"matvec_dot",
     "(define A (mat (list x 1) (list 0.5 y)))\n(define v (vec x 2))\n"
     "(+ (dot v (matvec A v)) (vsum (matmul A (transpose A))) (trace (outer v (vec 1 y))) (ref A 1 1)"
     " (norm (scale y v)) (norm (transpose v)) (norm (- v v)) (trace (scale x (eye 2))))",
     {{"x", 0.7}, {"y", -1.3}}},
    {"elementwise_broadcast",
     "(vsum (- (* (+ (vec x 2) 1) (vec 0.5 y)) (/ (vec x y) (+ x 3)) (/ (vec 1 x)) (- (vec y 1)) (* y (ones 2))"
     " (/ 2 (vec y x))))",
     {{"x", 0.7}, {"y", -1.3}}},
    {"linalg",
     "(define A (mat (list 2 x) (list x (+ 3 y))))\n"
     "(+ (logdet A) (det A) (vsum (inv A)) (vsum (solve A (vec 1 y))) (vsum (solve A (mat (list y 1) '(0 1))))"
     " (ref (cholesky A) 1 1) (ref (cholesky A) 1 0) (vsum (cholesky (mat (list 4 x) (list y 5)))))",
     {{"x", 0.7}, {"y", -1.3}}},
    {"det_singular_and_3x3",
     "(+ (det (mat (list x y) (list x y))) (det (mat (list x 2 0) '(1 3 1) (list 0 y 4))))",
     {{"x", 0.7}, {"y", -1.3}}},
    // det ≠ 0, yet singular to working precision: inv refuses it, the adjugate by cofactors does not.
    {"det_logdet_nearly_singular",
     "(define A (mat (list 1 1) (list 1 (+ 1 x))))\n(+ (det A) (logdet A) (logdet (mat (list 2 x) (list x 3))))",
     {{"x", 1e-15}}},
    {"mat_of_vectors",
     "(define v (vec y x))\n(vsum (matvec (mat v (list 2 y) (vec 1 1)) (transpose v)))",
     {{"x", 0.7}, {"y", -1.3}}},
    {"tensor_value", "(matvec (inv (mat (list x 1) '(1 2))) (vec 1 y))", {{"x", 0.7}, {"y", -1.3}}},
    {"tensors_in_a_loop",
     "(let loop ((k 0) (P (eye 2)) (acc 0))\n"
     "  (if (= k 4) (+ acc (trace P)) (loop (+ k 1) (matmul P (mat (list 1 x) (list 0 y))) (+ acc (ref P 0 1)))))",
     {{"x", 0.7}, {"y", -1.3}}},
};

// Programs that use shift and reset themselves: nested resets, a continuation called twice, escaping its reset,
// re-entering a define, through the prelude and apply, on tensors.
const std::vector<Case> kControlCases = {
    {"called_twice", "(+ (* x x) (reset (+ 1 (shift k (* x (k (k 2)))))))", {{"x", 0.7}}},
    {"nested_resets_delimit",
     "(define (f v) (shift k (k (k (* v x)))))\n(reset (+ 1 (* 2 (reset (sin (f 3))))))",
     {{"x", 0.7}}},
    {"inner_reset_aborts", "(reset (+ 1 (reset (+ 10 (shift k (* x 100))))))", {{"x", 0.7}}},
    {"shift_in_shift", "(reset (+ x (shift k (+ 10 (shift j (j (k (* x 100))))))))", {{"x", 0.7}}},
    {"reentered_define",
     "(reset (define a (shift k (+ (k x) (k 2))))\n (define (g) (* a y))\n (* a (g) 10))",
     {{"x", 0.7}, {"y", -1.3}}},
    {"escaping_continuation", "(define k1 (reset (* x (shift k k))))\n(+ (k1 2) (k1 (k1 x)))", {{"x", 0.7}}},
    {"prelude_and_apply",
     "(+ (fold-left + 0 (map (lambda (v) (reset (* v (shift k (k (k x)))))) (list 1 2)))\n"
     "   (apply * (list x (reset (+ 1 (shift k (k (k y))))))))",
     {{"x", 0.7}, {"y", -1.3}}},
    {"tensors", "(reset (vsum (scale (shift k (k (k x))) (vec x y))))", {{"x", 0.7}, {"y", -1.3}}},
};

class Lantern : public ::testing::TestWithParam<Route> {};

// d(value) by the route and by direct: every parameter and every literal, to 1e-12 relative.
void expectDirectGradient(const std::vector<Case>& cases, Route route) {
  for (const auto& c : cases) {
    std::vector<std::string> wrt;
    for (const auto& s : c.seed) wrt.push_back(s.name);
    Evaluation direct = evalOk(c.src, Route::Direct, c.seed, wrt, true);
    Evaluation mine = evalOk(c.src, route, c.seed, wrt, true);
    EXPECT_EQ(mine.value, direct.value) << c.name;
    ASSERT_EQ(mine.gradient.size(), direct.gradient.size()) << c.name;
    for (size_t k = 0; k < mine.gradient.size(); ++k) {
      EXPECT_EQ(mine.gradient[k].first, direct.gradient[k].first) << c.name;
      EXPECT_TRUE(test::close(mine.gradient[k].second, direct.gradient[k].second, 1e-12))
          << c.name << " d/d " << mine.gradient[k].first << ": " << mine.gradient[k].second << " vs "
          << direct.gradient[k].second;
    }
  }
}

TEST_P(Lantern, GradientsEqualTheDirectRoutes) { expectDirectGradient(kCases, GetParam()); }

TEST_P(Lantern, DeepNonTailRecursionRunsInTime) {
  // 10,000 frames, each keeping a dual alive until the way back: the adjoints' trie keeps this O(n log n).
  std::string src = "(define (t n) (if (= n 0) 0 (+ (/ (* x x) (* n (+ n 1))) (t (- n 1)))))\n(t 10000)";
  Evaluation ev = evalOk(src, Route::Lantern, {{"x", 3.0}}, {"x"});
  EXPECT_TRUE(test::close(ev.value, 9.0 * 10000 / 10001, 1e-12));
  EXPECT_TRUE(test::close(test::gradientOf(ev, "x"), 6.0 * 10000 / 10001, 1e-12));
}

// A let* deeper than the lantern routes take is refused at once, at the position the expanded form keeps (the
// let*'s); it overflowed the stack (exit 139) before. One level less runs and has the direct gradient.
TEST_P(Lantern, AProgramNestedTooDeeplyIsAFormErrorAtItsPosition) {
  auto letStar = [](int n) {
    std::string src = "(let* ((x0 x)";
    for (int i = 1; i < n; ++i) src += " (x" + std::to_string(i) + " (+ x" + std::to_string(i - 1) + " 1))";
    return src + ") x" + std::to_string(n - 1) + ")";
  };
  Error e = evalErr(letStar(5000), GetParam(), {{"x", 1.0}});
  EXPECT_EQ(e.kind, ErrorKind::Form) << e.str();
  EXPECT_NE(e.str().find("nested too deeply for the lantern routes"), std::string::npos) << e.str();
  EXPECT_EQ(e.pos.line, 1) << e.str();
  Evaluation ev = evalOk(letStar(300), GetParam(), {{"x", 1.0}}, {"x"});
  EXPECT_EQ(ev.value, 300.0);
  EXPECT_EQ(test::gradientOf(ev, "x"), 1.0);
}

// A long flat program is deep after the conversions: its definitions nest, each in the ones before it. 1,100 of
// them are refused at once (they ran out of memory before: 1 MB of definitions grew past 24 GB); 400 run, with
// the direct route's gradient, the literals carried in one vector whatever their number.
TEST_P(Lantern, ALongFlatProgramIsRefusedAtOnceAndAShorterOneRuns) {
  auto defines = [](int n) {
    std::string src = "(define v0 x)\n";
    for (int i = 1; i < n; ++i)
      src += "(define v" + std::to_string(i) + " (+ (* 0.5 v" + std::to_string(i - 1) + ") (* 0.5 x)))\n";
    return src + "v" + std::to_string(n - 1) + "\n";
  };
  Error e = evalErr(defines(1100), GetParam(), {{"x", 1.0}});
  EXPECT_EQ(e.kind, ErrorKind::Form) << e.str();
  EXPECT_NE(e.str().find("nested too deeply for the lantern routes"), std::string::npos) << e.str();
  Evaluation ev = evalOk(defines(400), GetParam(), {{"x", 2.0}}, {"x"});
  Evaluation direct = evalOk(defines(400), Route::Direct, {{"x", 2.0}}, {"x"});
  EXPECT_EQ(ev.value, direct.value);
  EXPECT_TRUE(test::close(test::gradientOf(ev, "x"), test::gradientOf(direct, "x"), 1e-12));
}

TEST_P(Lantern, ATensorValuedProgramIsTheSumOfItsEntries) {
  Evaluation direct = evalOk("(scale x (vec 1 2 x))", Route::Direct, {{"x", 0.5}}, {"x"});
  Evaluation ev = evalOk("(scale x (vec 1 2 x))", GetParam(), {{"x", 0.5}}, {"x"});
  EXPECT_TRUE(ev.isTensor);
  EXPECT_EQ(ev.tensor, direct.tensor);
  EXPECT_EQ(ev.value, 0.5 * 3.5);
  EXPECT_TRUE(test::close(test::gradientOf(ev, "x"), 3 + 2 * 0.5, 1e-12));  // d/dx (3x + x^2)
}

// lantern.scm reads a tensor's shape by the `shape` primitive, whatever its entries: a non-finite entry gives the
// direct route's value and gradient (tensor times 0, which it used before, is NaN there and stopped the run).
TEST_P(Lantern, ATensorWithANonFiniteEntryHasTheDirectGradient) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const char* src :
       {"(vsum (vec x (/ 1 0)))", "(+ (ref (vec x (/ 1 0)) 0) (trace (mat (list x 1) (list 2 (/ -1 0)))))",
        "(vsum (scale x (vec 1 (/ 1 0))))"}) {
    Evaluation direct = evalOk(src, Route::Direct, {{"x", 1.0}}, {"x"});
    Evaluation ev = evalOk(src, GetParam(), {{"x", 1.0}}, {"x"});
    EXPECT_EQ(ev.value, direct.value) << src;
    EXPECT_EQ(test::gradientOf(ev, "x"), test::gradientOf(direct, "x")) << src;
  }
  EXPECT_EQ(evalOk("(vsum (vec x (/ 1 0)))", GetParam(), {{"x", 1.0}}, {"x"}).value, inf);
  // A constant tensor value needs no seed of its shape: it runs, with no gradient.
  Evaluation ev = evalOk("(if (> x 0) (/ (ones 2) (zeros 2)) (vec x 0))", GetParam(), {{"x", 1.0}}, {"x"});
  EXPECT_EQ(ev.value, inf);
  EXPECT_EQ(test::gradientOf(ev, "x"), 0.0);
}

TEST(LanternCoverage, EveryTensorPrimitiveIsCovered) {
  EXPECT_EQ(lanternNotCovered(), std::vector<std::string>{});
  for (const Primitive& q : primitives())
    if (q.family == PrimFamily::Tensor) {
      auto covered = lanternCovered();
      EXPECT_NE(std::find(covered.begin(), covered.end(), q.name), covered.end()) << q.name;
    }
}

// The user's program is converted first, lantern.scm's around it then: the user's shift reaches the user's nearest
// reset, lantern.scm's shifts reach its own reset through any of the user's.
TEST_P(Lantern, AProgramUsingShiftAndResetHasTheDirectGradient) { expectDirectGradient(kControlCases, GetParam()); }

TEST_P(Lantern, AProgramUsingShiftAndResetHasTheDirectErrors) {
  std::vector<std::string> srcs = {"(+ 1\n   (shift k (k (* x 2))))", "(reset (+ 1 (shift k\n  (k x 2))))",
                                   "(define a (g))\n(define (g) x)\n(reset (* x a))"};
  for (const auto& c : test::kArityCases) srcs.push_back("(* x 2)\n" + c.converted());
  for (const auto& src : srcs) {
    Error direct = evalErr(src, Route::Direct, {{"x", 1.0}});
    Error mine = evalErr(src, GetParam(), {{"x", 1.0}});
    EXPECT_NE(direct.kind, ErrorKind::Usage) << src << ": " << direct.str();
    EXPECT_EQ(mine.kind, direct.kind) << src << ": " << mine.str() << " vs " << direct.str();
    EXPECT_EQ(test::where(mine.pos), test::where(direct.pos)) << src << ": " << mine.str() << " vs " << direct.str();
    // lantern.scm's own procedures are named "lambda": a primitive's arity error names that one, not the source's.
    if (src.find("(let ((s sin))") == std::string::npos) EXPECT_EQ(mine.message, direct.message) << src;
  }
}

INSTANTIATE_TEST_SUITE_P(Routes, Lantern, ::testing::Values(Route::Lantern, Route::LanternDmci),
                         [](const auto& info) { return info.param == Route::Lantern ? "lantern" : "lantern_dmci"; });

// Clears planted faults however the test ends.
struct FaultGuard {
  FaultGuard(const std::string& prim, double scale) { plantAdjointFault(prim, scale); }
  ~FaultGuard() { clearAdjointFaults(); }
};

TEST(LanternFault, APlantedSinFaultMovesTheTapeAndNotLantern) {
  const std::string src = "(* 2 (sin x))";
  const double truth = 2 * std::cos(0.7);
  double direct, dmci, lantern, lanternDmci;
  {
    FaultGuard fault("sin", 1.5);
    direct = test::gradientOf(evalOk(src, Route::Direct, {{"x", 0.7}}, {"x"}), "x");
    dmci = test::gradientOf(evalOk(src, Route::Dmci, {{"x", 0.7}}, {"x"}), "x");
    lantern = test::gradientOf(evalOk(src, Route::Lantern, {{"x", 0.7}}, {"x"}), "x");
    lanternDmci = test::gradientOf(evalOk(src, Route::LanternDmci, {{"x", 0.7}}, {"x"}), "x");
  }
  EXPECT_TRUE(test::close(direct, 1.5 * truth));
  EXPECT_TRUE(test::close(dmci, 1.5 * truth));
  EXPECT_TRUE(test::close(lantern, truth)) << lantern;
  EXPECT_TRUE(test::close(lanternDmci, truth)) << lanternDmci;
}

TEST(LanternEngines, OnlyTheNativeEngineRunsTheLanternRoutes) {
  EvalOptions o;
  o.route = Route::Lantern;
  EXPECT_FALSE(nativeEngine().unsupported(o).has_value());
  auto replay = engineNamed("replay");
  ASSERT_TRUE(replay);
  EXPECT_TRUE((*replay)->unsupported(o).has_value());
}

TEST(LanternRoutes, NamesParseBack) {
  for (Route r : {Route::Lantern, Route::LanternDmci}) EXPECT_EQ(parseRoute(routeName(r)), r);
}

}  // namespace
}  // namespace dmci
