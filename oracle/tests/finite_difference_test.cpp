// The finite-difference oracle: closed-form gradients in full precision, agreement with
// reverse mode, and nondifferentiable seeds reported with their reason and position.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "oracle/Oracle.h"

namespace dmci::oracle {
namespace {

using ::testing::HasSubstr;

Program parse(const std::string& src) {
  auto p = Program::fromText(src, "prog.scm");
  if (!p) ADD_FAILURE() << src << "\n  does not read: " << p.error().str();
  return p ? *p : *Program::fromText("0", "prog.scm");
}

FdGradient fd(const std::string& src, const std::vector<SeedValue>& seed, const std::vector<std::string>& wrt,
              bool wrtLiterals = false) {
  auto g = finiteDifference(parse(src), seed, wrt, wrtLiterals);
  if (!g) ADD_FAILURE() << src << "\n  failed: " << g.error().str();
  return g ? *g : FdGradient{};
}

// Central differences at h = 1e-30 in 100 digits: truncation and rounding leave about 1e-60 per unit of value.
void expectWide(const Wide& got, const Wide& want) {
  Wide err = abs(got - want) / (abs(want) > 1 ? Wide(abs(want)) : Wide(1));
  EXPECT_LT(err, Wide(1e-30)) << "got " << got.str(40) << "\nwant " << want.str(40);
}

// --- closed forms, in full precision ---

TEST(FdClosedForm, CubeAtOnePointFiveIsSixPointSevenFiveExactly) {
  FdGradient g = fd("(* x x x)", {{"x", 1.5}}, {"x"});
  ASSERT_EQ(g.wide.size(), 1u);
  expectWide(g.wide[0], Wide(6.75));
  EXPECT_TRUE(g.differentiable) << g.reason;
  EXPECT_EQ(g.value, 3.375);
}

TEST(FdClosedForm, SineDifferentiatesToCosine) {
  FdGradient g = fd("(sin x)", {{"x", 0.7}}, {"x"});
  ASSERT_EQ(g.wide.size(), 1u);
  expectWide(g.wide[0], cos(Wide(0.7)));
}

TEST(FdClosedForm, ProductRuleOverTwoParameters) {
  FdGradient g = fd("(* a x x)", {{"a", 1.25}, {"x", 3.0}}, {"a", "x"});
  ASSERT_EQ(g.gradient.size(), 2u);
  EXPECT_EQ(g.gradient[0].first, "a");
  expectWide(g.wide[0], Wide(9));
  expectWide(g.wide[1], Wide(2 * 1.25 * 3.0));
}

TEST(FdClosedForm, ALiteralsGradient) {
  FdGradient g = fd("(* 3 x)", {{"x", 0.4}}, {"x"}, true);
  ASSERT_EQ(g.gradient.size(), 2u);
  EXPECT_EQ(g.gradient[1].first, "prog.scm:1:4");
  expectWide(g.wide[0], Wide(3));
  expectWide(g.wide[1], Wide(0.4));
}

TEST(FdClosedForm, ALiteralUsedTwiceGetsTheSum) {
  FdGradient g = fd("(define (f y) (* 2 y)) (+ (f x) (f (* x x)))", {{"x", 0.5}}, {}, true);
  ASSERT_EQ(g.gradient.size(), 1u);
  expectWide(g.wide[0], Wide(0.5 + 0.25));
}

TEST(FdClosedForm, ExpOfALoopOfProducts) {
  // (x^10 via a counted loop): d/dx = 10 x^9; the loop's (= i 10) does not depend on x.
  FdGradient g = fd("(let loop ((i 0) (acc 1)) (if (= i 10) acc (loop (+ i 1) (* acc x))))", {{"x", 1.1}}, {"x"});
  EXPECT_TRUE(g.differentiable) << g.reason;
  expectWide(g.wide[0], 10 * pow(Wide(1.1), 9));
}

TEST(FdClosedForm, TensorValuesDifferentiateTheirSum) {
  FdGradient g = fd("(scale x (vec 1 2 3))", {{"x", 0.5}}, {"x"});
  expectWide(g.wide[0], Wide(6));
}

// --- agreement with reverse mode on the direct route ---

void expectAgreesWithReverseMode(const std::string& src, const std::vector<SeedValue>& seed,
                                 const std::vector<std::string>& wrt) {
  EvalOptions opts;
  opts.wrt = wrt;
  opts.wrtLiterals = true;
  auto engine = parse(src).evaluate(seed, opts);
  ASSERT_TRUE(engine) << engine.error().str();
  FdGradient g = fd(src, seed, wrt, true);
  EXPECT_TRUE(g.differentiable) << g.reason;
  EXPECT_NEAR(g.value, engine->value, 1e-12 * std::fabs(engine->value));
  ASSERT_EQ(g.gradient.size(), engine->gradient.size());
  for (size_t k = 0; k < g.gradient.size(); ++k) {
    EXPECT_EQ(g.gradient[k].first, engine->gradient[k].first);
    double want = engine->gradient[k].second;
    EXPECT_NEAR(g.gradient[k].second, want, 1e-9 * std::max(std::fabs(want), 1e-6)) << g.gradient[k].first;
  }
}

TEST(FdReverseMode, AgreesOnAKalmanStep) {
  expectAgreesWithReverseMode(
      "(define F (mat '(1 0.1) '(0 1))) (define H (mat '(1 0))) (define Q (scale q (eye 2)))"
      " (define R (mat (list r))) (define x0 (vec 0 1)) (define P0 (eye 2)) (define y (vec 0.3))"
      " (let* ((xp (matvec F x0)) (Pp (+ (matmul (matmul F P0) (transpose F)) Q))"
      "        (S (+ (matmul (matmul H Pp) (transpose H)) R)) (innov (- y (matvec H xp)))"
      "        (K (transpose (solve S (matmul H Pp)))) (x1 (+ xp (matvec K innov))))"
      "   (+ (logdet S) (dot innov (solve S innov)) (vsum x1) (ref (cholesky Pp) 1 1) (det (inv Pp))))",
      {{"q", 0.2}, {"r", 0.5}}, {"q", "r"});
}

TEST(FdReverseMode, AgreesOnLogisticEulerSteps) {
  expectAgreesWithReverseMode(
      "(define (step p) (+ p (* 0.1 r p (- 1 (/ p k))))) (let loop ((i 0) (p 0.1)) (if (= i 50) p (loop (+ i 1) "
      "(step p))))",
      {{"r", 1.3}, {"k", 2.0}}, {"r", "k"});
}

TEST(FdReverseMode, AgreesOnHigherOrderListCode) {
  expectAgreesWithReverseMode(
      "(define (compose f g) (lambda (y) (f (g y)))) (fold-left + 0 (map (compose sin (lambda (c) (* c a)))"
      " '(0.5 1 1.5)))",
      {{"a", 0.3}}, {"a"});
}

TEST(FdReverseMode, AgreesOnAssocAndMemberWithAComparison) {
  // Symbol keys and strict comparisons away from ties: the literals' gradients are path derivatives.
  expectAgreesWithReverseMode(
      "(+ (cadr (assoc 'b (list (list 'a (* a a)) (list 'b (sin a))) eq?))"
      " (apply + (member 2 (list 1 a 3 (* 3 a)) (lambda (k v) (< k v)))))",
      {{"a", 0.7}}, {"a"});
}

// --- nondifferentiable seeds, with the reason and its position ---

TEST(FdNondifferentiable, ABranchThresholdAtTheSeed) {
  FdGradient g = fd("(if (< x alpha) x alpha)", {{"x", 0.5}, {"alpha", 0.5}}, {"x", "alpha"});
  EXPECT_FALSE(g.differentiable);
  EXPECT_THAT(g.reason, HasSubstr("branch threshold at the seed: < at prog.scm:1:5 (|a-b| = 0)"));
}

TEST(FdNondifferentiable, AwayFromTheThresholdTheBranchIsSmooth) {
  FdGradient g = fd("(if (< x alpha) x alpha)", {{"x", 0.3}, {"alpha", 0.5}}, {"x", "alpha"});
  EXPECT_TRUE(g.differentiable) << g.reason;
  EXPECT_EQ(g.gradient[0].second, 1.0);
  EXPECT_EQ(g.gradient[1].second, 0.0);
}

TEST(FdNondifferentiable, AbsAtZero) {
  FdGradient g = fd("(abs x)", {{"x", 0.0}}, {"x"});
  EXPECT_FALSE(g.differentiable);
  EXPECT_THAT(g.reason, HasSubstr("kink at the seed: abs at prog.scm:1:1 (argument 0)"));
  EXPECT_EQ(g.gradient[0].second, 0.0);  // along the seed's path: the subgradient 0, as reverse mode takes it
}

TEST(FdNondifferentiable, MaxAtATie) {
  FdGradient g = fd("(+ 1 (max x 1))", {{"x", 1.0}}, {"x"});
  EXPECT_FALSE(g.differentiable);
  EXPECT_THAT(g.reason, HasSubstr("kink at the seed: max at prog.scm:1:6 (|a-b| = 0)"));
}

TEST(FdNondifferentiable, FloorAtAnInteger) {
  FdGradient g = fd("(floor x)", {{"x", 2.0}}, {"x"});
  EXPECT_FALSE(g.differentiable);
  EXPECT_THAT(g.reason, HasSubstr("kink at the seed: floor at prog.scm:1:1 (argument 2)"));
}

TEST(FdNondifferentiable, AKinkNoPrimitiveReportsIsFoundByOneSidedDifferences) {
  FdGradient g = fd("(sqrt (* x x))", {{"x", 0.0}}, {"x"});
  EXPECT_FALSE(g.differentiable);
  EXPECT_THAT(g.reason, HasSubstr("one-sided derivatives with respect to x differ"));
}

TEST(FdNondifferentiable, LargeCurvatureIsNotAKink) {
  FdGradient g = fd("(* 1e6 x x)", {{"x", 0.0}}, {"x"});
  EXPECT_TRUE(g.differentiable) << g.reason;
}

TEST(FdNondifferentiable, ANonFiniteValue) {
  FdGradient g = fd("(log x)", {{"x", 0.0}}, {"x"});
  EXPECT_FALSE(g.differentiable);
  EXPECT_EQ(g.reason, "non-finite value");
}

TEST(FdNondifferentiable, LeavingTheDomainNearTheSeed) {
  FdGradient g = fd("(sqrt x)", {{"x", 0.0}}, {"x"});
  EXPECT_FALSE(g.differentiable);
  EXPECT_THAT(g.reason, HasSubstr("non-finite value near the seed"));
}

TEST(FdIntegerUse, ALoopBoundLiteralIsAnIntegerWithItsPathGradient) {
  const std::string src = "(define (fact n) (if (= n 0) 1 (* n (fact (- n 1))))) (fact 5)";
  FdGradient g = fd(src, {}, {}, true);
  EXPECT_TRUE(g.differentiable) << g.reason;
  ASSERT_EQ(g.gradient.size(), 4u);
  EXPECT_EQ(g.gradient[3].first, "prog.scm:1:61");
  EXPECT_NEAR(g.gradient[3].second, 274.0, 1e-9);  // d/dn of n(n-1)...1 along the path: 120 (1 + 1/2 + ... + 1/5)
  ASSERT_FALSE(g.notes.empty());
  EXPECT_THAT(g.notes.back(), HasSubstr("prog.scm:1:61 is used as an integer (= at prog.scm:1:22)"));
}

TEST(FdIntegerUse, ASizeLiteralIsAnIntegerWithGradientZero) {
  FdGradient g = fd("(vsum (scale x (ones 3)))", {{"x", 2.0}}, {"x"}, true);
  EXPECT_TRUE(g.differentiable) << g.reason;
  ASSERT_EQ(g.gradient.size(), 2u);
  EXPECT_EQ(g.gradient[1].second, 0.0);
  EXPECT_EQ(g.notes.size(), 1u);
}

TEST(FdIntegerUse, AParameterAtAnIntegerThresholdIsStillABranch) {
  FdGradient g = fd("(if (< x 1) x (* 2 x))", {{"x", 1.0}}, {"x"}, true);
  EXPECT_FALSE(g.differentiable);
  EXPECT_THAT(g.reason, HasSubstr("branch threshold at the seed: < at prog.scm:1:5"));
}

TEST(FdNondifferentiable, ASmoothProgramIsDifferentiable) {
  FdGradient g = fd("(* (sin x) (exp (* a x)))", {{"x", 0.3}, {"a", -1.2}}, {"x", "a"}, true);
  EXPECT_TRUE(g.differentiable) << g.reason;
  EXPECT_EQ(g.reason, "");
  EXPECT_EQ(g.evaluations, 1u + 4u * 2u);
}

// --- usage ---

TEST(FdUsage, AnUnknownWrtNameIsAUsageError) {
  auto g = finiteDifference(parse("(* x 2)"), {{"x", 1.0}}, {"y"}, false);
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().kind, ErrorKind::Usage);
}

TEST(FdUsage, AnErrorAtTheSeedIsReturned) {
  auto g = finiteDifference(parse("(car x)"), {{"x", 1.0}}, {"x"}, false);
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().kind, ErrorKind::Type);
}

// --- cost, for budgeting the gate ---

// The gate budgets the oracle in runs of the program (1 + 4 per component), not in seconds: the count is the fact
// tested; the time is printed for a reader, never judged (a loaded CI machine would make it pass or fail by luck).
TEST(FdCost, AGradientCostsOneRunPlusFourPerComponent) {
  auto start = std::chrono::steady_clock::now();
  FdGradient g =
      fd("(define (step p) (+ p (* 0.1 r p (- 1 (/ p k))))) (let loop ((i 0) (p 0.1)) (if (= i 50) p "
         "(loop (+ i 1) (step p))))",
         {{"r", 1.3}, {"k", 2.0}}, {"r", "k"}, true);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ timing  ] " << g.evaluations << " evaluations in " << ms << " ms\n";
  ASSERT_EQ(g.gradient.size(), 2u + 6u);  // r, k and the six literals
  EXPECT_EQ(g.evaluations, 1u + 4u * g.gradient.size());
}

}  // namespace
}  // namespace dmci::oracle
