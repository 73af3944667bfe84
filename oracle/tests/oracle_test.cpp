// The oracle's evaluator: values agree with the direct engine, errors are errors, budgets stop runs.
#include "oracle/Oracle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "oracle/Interpreter.h"
#include "prims/PrimTable.h"

namespace dmci::oracle {
namespace {

Program parse(const std::string& src) {
  auto p = Program::fromText(src, "prog.scm");
  if (!p) ADD_FAILURE() << src << "\n  does not read: " << p.error().str();
  return p ? *p : *Program::fromText("0", "prog.scm");
}

Point pointOf(const std::vector<SeedValue>& seed) {
  Point pt;
  for (const auto& s : seed) pt.params.emplace_back(s.name, Wide(s.value));
  return pt;
}

Result<WideValue> oracleRun(const std::string& src, const std::vector<SeedValue>& seed = {}, Budget budget = {}) {
  return evaluate(parse(src), pointOf(seed), budget);
}

Result<Evaluation> engineRun(const std::string& src, const std::vector<SeedValue>& seed) {
  EvalOptions opts;
  opts.gradient = false;
  return parse(src).evaluate(seed, opts);
}

// --- values: the oracle rounded to double agrees with the direct route ---

struct Case {
  const char* name;
  const char* src;
  double x;
};

const Case kCases[] = {
    {"arithmetic", "(+ 1 2.5 (* 3 4) (/ 10 4) (- 7) (/ 4) (- 10 x 1))", 1.5},
    {"closed_form", "(define g 9.81) (* 0.5 g x x)", 1.3},
    {"recursion", "(define (fact n) (if (= n 0) 1 (* n (fact (- n 1))))) (* x (fact 12))", 0.7},
    {"taylor", "(define (ex x k term) (if (= k 30) 0 (+ term (ex x (+ k 1) (/ (* term x) (+ k 1)))))) (ex x 0 1)", 0.9},
    {"closures", "(define (make-adder a) (lambda (y) (+ y a))) ((make-adder 2.5) x)", 0.25},
    {"compose", "(define (compose f g) (lambda (y) (f (g y)))) (define (twice f) (compose f f)) ((twice square) x)",
     1.1},
    {"map_fold", "(fold-left + 0 (map (lambda (c) (* c x)) '(1 2 3 4)))", 0.3},
    {"horner", "(fold-right (lambda (c acc) (+ c (* x acc))) 0 '(1 -2 0.5 3))", 1.7},
    {"lists",
     "(+ (length (append '(1 2) (list x 3) (reverse '(4 5)))) (list-ref '(1 2 3) 2) (cadr (assv 2 '((1 10) (2 20))))"
     " (length (memv 3 '(1 2 3 4))) (car (list-tail (list 1 2 x) 2)) (if (member '(1) '((1))) x 0))",
     0.5},
    {"let_letrec",
     "(let* ((a 2) (b (* a x))) (letrec ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1)))))"
     " (od? (lambda (n) (if (= n 0) #f (ev? (- n 1)))))) (if (ev? 10) b a)))",
     0.8},
    {"variadic_apply",
     "(define (sum . xs) (apply + xs)) (define (f a . r) (* a (length r))) (+ (sum 1 2 x) "
     "(apply max 1 x '(0.5 2)) (f x 1 2))",
     2.5},
    {"named_let", "(let loop ((i 0) (acc 0)) (if (= i 100) acc (loop (+ i 1) (+ acc (* x i)))))", 0.01},
    {"elementary",
     "(+ (sin x) (cos x) (tan x) (exp x) (log x) (log x 2) (sqrt x) (expt x 1.5) (atan x) (atan x 2) (tanh x)"
     " (sigmoid x) (sigmoid (- 50 (* 100 x))) (softplus x) (softplus (- x 60)) (asin 0.3) (acos 0.3) (square x))",
     0.6},
    {"integer_ops",
     "(+ (quotient -7 2) (remainder -7 3) (modulo -7 3) (modulo 7 -3) (floor -2.5) (ceiling 2.1) (round 2.5)"
     " (round 3.5) (round -2.5) (truncate -2.7) (abs -3) (min 1 x) (max 1 x) (if (even? 4) 1 0) (if (odd? 4) 1 0))",
     0.4},
    {"kalman",
     "(define F (mat '(1 0.1) '(0 1))) (define H (mat '(1 0))) (define Q (scale x (eye 2)))"
     " (define R (mat (list 0.5))) (define x0 (vec 0 1)) (define P0 (eye 2)) (define y (vec 0.3))"
     " (let* ((xp (matvec F x0)) (Pp (+ (matmul (matmul F P0) (transpose F)) Q))"
     "        (S (+ (matmul (matmul H Pp) (transpose H)) R)) (innov (- y (matvec H xp)))"
     "        (K (transpose (solve S (matmul H Pp)))) (x1 (+ xp (matvec K innov))))"
     "   (+ (logdet S) (dot innov (solve S innov)) (vsum x1)))",
     0.2},
    {"tensors",
     "(let ((A (mat (list x 1) '(2 3)))) (+ (det A) (trace (inv A)) (norm (vec 3 4)) (norm A)"
     " (ref (cholesky (mat '(4 2) '(2 3))) 1 1) (vsum (outer (vec 1 2) (vec x 1))) (ref A 0 0)"
     " (vsum (* 2 (ones 2 2))) (vsum (/ (vec 1 2) 4)) (vsum (zeros 3)) (vsum (- (vec x 1))) (dot (transpose (vec 1 2))"
     " (vec 3 4)) (vsum (mat (vec 1 2) '(3 4))) (logdet (mat '(2 1) '(1 2)))))",
     1.25},
    {"deep_recursion", "(define (sum n) (if (= n 0) 0 (+ (* x n) (sum (- n 1))))) (sum 10000)", 0.5},
    {"case_cond",
     "(define (f op a b) (case op ((add) (+ a b)) ((mul) (* a b)) (else 0)))"
     " (+ (f 'add x 2) (f 'mul x 3) (cond ((> x 10) 1) (else 2)) (car `(,x 2)))",
     1.5},
    {"newton",
     "(define (newton a) (let loop ((g 1.0) (k 0)) (if (= k 20) g (loop (/ (+ g (/ a g)) 2) (+ k 1)))))"
     " (newton x)",
     2.0},
    {"filter_reduce",
     "(+ (reduce + 0 (filter (lambda (v) (> v 1)) (list 0.5 x 2 3))) (fold-right - 0 '(1 2 3))"
     " (if (for-each (lambda (v) v) '(1 2)) 1 0) (length (map + '(1 2) '(3 4 5))))",
     1.5},
    {"do_loop", "(do ((i 0 (+ i 1)) (acc 1 (* acc x))) ((= i 5) acc))", 1.1},
    {"shape_whatever_the_entries",
     "(let ((s (shape (mat (list x (/ 1 0)) (list (- (/ 1 0) (/ 1 0)) 2) '(1 1)))))"
     " (+ (* 10 (car s)) (cadr s) (car (shape (vec x x))) (* x (length (shape (scale x (vec 1 x)))))))",
     1.5},
    {"apply_without_list_unreached", "(if (< x 0) (apply +) (* 2 x))", 1.5},
    {"assoc_member_compare",
     "(+ (cadr (assoc 2 (list (list 1 x) (list 2 (* x x))) =)) (car (member 2.0 '(1 2 3) =))"
     " (car (member 2 (list 1 2 x) <)) (if (assoc 9 '((1 . 2)) =) 1 0) (cdr (assoc '(1) '(((1) . 3))))"
     " (cdr (assoc 1 (list (cons 3 x) (cons 0 2)) (lambda (key k) (> key k)))))",
     2.5},
    {"equivalence",
     "(+ (if (equal? '(1 (2 \"a\")) (list 1 (list 2 \"a\"))) x 0) (if (eq? 'a 'a) 1 0) (if (eqv? 2 2) 1 0)"
     " (if (null? '()) 1 0) (if (procedure? car) 1 0) (if (list? '(1 . 2)) 1 0) (if (integer? x) 1 0))",
     0.5},
};

class Values : public ::testing::TestWithParam<Case> {};

TEST_P(Values, AgreeWithTheDirectRoute) {
  const Case& c = GetParam();
  std::vector<SeedValue> seed{{"x", c.x}};
  auto engine = engineRun(c.src, seed);
  ASSERT_TRUE(engine) << engine.error().str();
  auto oracle = oracleRun(c.src, seed);
  ASSERT_TRUE(oracle) << oracle.error().str();
  double v = static_cast<double>(oracle->total);
  EXPECT_NEAR(v, engine->value, 1e-14 * std::max(std::fabs(engine->value), 1e-300)) << c.src;
}

INSTANTIATE_TEST_SUITE_P(Oracle, Values, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(OracleValue, ATensorValueKeepsItsEntries) {
  auto v = oracleRun("(matvec (mat '(1 2) (list 3 x)) (vec 1 1))", {{"x", 0.5}});
  ASSERT_TRUE(v) << v.error().str();
  EXPECT_TRUE(v->isTensor);
  ASSERT_EQ(v->data.size(), 2u);
  EXPECT_EQ(v->data[1], Wide(3.5));
  EXPECT_EQ(v->total, Wide(6.5));
}

TEST(OracleValue, ArithmeticIsInFiftyDigits) {
  auto v = oracleRun("(- (/ 1 3) 0.3333333333333333)");
  ASSERT_TRUE(v);
  EXPECT_GT(v->total, Wide(1e-17));  // in double the difference would be 0 or 1 ulp; here it is 1/3 - that double
  EXPECT_LT(v->total, Wide(1e-16));
}

TEST(OracleValue, ALiteralCanBeOverridden) {
  Point pt;
  pt.literals["prog.scm:1:4"] = Wide(10);
  auto v = evaluate(parse("(+ 1 (car '(2 3)))"), pt);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->total, Wide(12));
}

TEST(OracleLiterals, EveryNumberInAConstantOnceInReadingOrder) {
  auto lits = literals(parse("(+ 1 (car '(2 3)) 1)"), {});
  ASSERT_EQ(lits.size(), 4u);
  EXPECT_EQ(lits[0].first, "prog.scm:1:4");
  EXPECT_EQ(lits[1].first, "prog.scm:1:13");
  EXPECT_EQ(lits[2].first, "prog.scm:1:15");
  EXPECT_EQ(lits[3].first, "prog.scm:1:19");
  EXPECT_EQ(lits[2].second, 3.0);
}

TEST(OraclePrimitives, EveryPrimitiveOfTheTableHasAnImplementation) {
  const auto& impl = primRegistry<Wide>().byId;
  for (size_t id = 0; id < primitives().size(); ++id) {
    const Primitive& p = primitives()[id];
    if (p.prelude || p.family == PrimFamily::Internal || std::string(p.name) == "apply") continue;
    EXPECT_NE(impl[id], nullptr) << p.name;
  }
}

// --- errors are errors, never default values ---

ErrorKind errorOf(const std::string& src, Budget budget = {}) {
  auto v = oracleRun(src, {}, budget);
  if (v) ADD_FAILURE() << src << " gave " << static_cast<double>(v->total);
  return v ? ErrorKind::Usage : v.error().kind;
}

TEST(OracleErrors, AnUnboundVariableIsAnError) { EXPECT_EQ(errorOf("(+ y 1)"), ErrorKind::Unbound); }
TEST(OracleErrors, CarOfANumberIsAnError) { EXPECT_EQ(errorOf("(car 1)"), ErrorKind::Type); }
TEST(OracleErrors, WrongArityIsAnError) { EXPECT_EQ(errorOf("((lambda (a) a) 1 2)"), ErrorKind::Arity); }
TEST(OracleErrors, WrongPrimitiveArityIsAnError) { EXPECT_EQ(errorOf("(sin 1 2)"), ErrorKind::Arity); }
TEST(OracleErrors, ApplyingANumberIsAnError) { EXPECT_EQ(errorOf("(1 2)"), ErrorKind::NotProcedure); }
TEST(OracleErrors, ArithmeticOnASymbolIsAnError) { EXPECT_EQ(errorOf("(+ 'a 1)"), ErrorKind::Type); }
TEST(OracleErrors, UseBeforeDefinitionIsAnError) {
  EXPECT_EQ(errorOf("(letrec* ((a b) (b 1)) a)"), ErrorKind::Unbound);
}
TEST(OracleErrors, AListIsNotAProgramValue) { EXPECT_EQ(errorOf("(list 1)"), ErrorKind::Type); }
TEST(OracleErrors, ListRefPastTheEndIsAnError) { EXPECT_EQ(errorOf("(list-ref '(1 2) 2)"), ErrorKind::Domain); }
TEST(OracleErrors, ASingularSolveIsAnError) {
  EXPECT_EQ(errorOf("(vsum (solve (mat '(1 2) '(2 4)) (vec 1 1)))"), ErrorKind::Domain);
}

TEST(OracleErrors, ErrorStopsWithItsMessageAndPosition) {
  auto v = oracleRun("(+ 1\n  (error \"boom\" 1 'a))");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, ErrorKind::User);
  EXPECT_EQ(v.error().message, "boom 1 a");
  EXPECT_EQ(v.error().pos.str(), "prog.scm:2:3");
}

TEST(OracleErrors, ApplyWithoutAListIsAnArityErrorAtItsCall) {
  auto v = oracleRun("(+ 1\n   (apply +))");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, ErrorKind::Arity);
  EXPECT_EQ(v.error().message, "apply: expects at least 2 arguments, got 1");
  EXPECT_EQ(v.error().pos.str(), "prog.scm:2:4");
}

TEST(OracleErrors, AssocWithAComparisonOnAMalformedListIsATypeError) {
  auto v = oracleRun("(cdr (assoc 3 '((1 . 2) 5) =))");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().kind, ErrorKind::Type);
  EXPECT_EQ(v.error().message, "assoc: argument 2 must be a list of pairs, got (5)");
}

TEST(OracleErrors, ATypeErrorPointsAtTheApplication) {
  auto v = oracleRun("(define (f l) (car l))\n(f 3)");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().pos.str(), "prog.scm:1:15");
  EXPECT_EQ(v.error().message, "car: argument 1 must be a pair, got 3");
}

// --- budgets and depth ---

TEST(OracleBudget, AnInfiniteLoopStopsWithABudgetError) {
  Budget b;
  b.steps = 100'000;
  EXPECT_EQ(errorOf("(define (f) (f)) (f)", b), ErrorKind::Budget);
}

TEST(OracleBudget, UnboundedRecursionStopsWithABudgetErrorNotACrash) {
  EXPECT_EQ(errorOf("(define (f n) (+ 1 (f n))) (f 0)"), ErrorKind::Budget);
}

TEST(OracleBudget, ADepthTenThousandRecursionRuns) {
  auto v = oracleRun("(define (sum n) (if (= n 0) 0 (+ n (sum (- n 1))))) (sum 10000)");
  ASSERT_TRUE(v) << v.error().str();
  EXPECT_EQ(v->total, Wide(50005000));
}

TEST(OracleBudget, ATenThousandIterationLoopOverAListRuns) {
  auto v = oracleRun(
      "(define (range n acc) (if (= n 0) acc (range (- n 1) (cons n acc))))"
      " (fold-left + 0 (map (lambda (v) (* 2 v)) (range 10000 '())))");
  ASSERT_TRUE(v) << v.error().str();
  EXPECT_EQ(v->total, Wide(100010000));
}

}  // namespace
}  // namespace dmci::oracle

namespace dmci::oracle {
namespace {

// --- random rounding: how far rounding to double can move a value ---

TEST(RoundingSpread, IsZeroWhenEveryResultIsADouble) {
  auto s =
      roundingSpread(*Program::fromText("(define (f n) (if (= n 0) 0 (+ 2.5 (f (- n 1))))) (* 4 (f 10))", "p.scm"), {});
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(*s, 0.0);
}

TEST(RoundingSpread, IsAFewUlpsForAWellConditionedProgram) {
  Point at;
  at.params = {{"x", Wide(0.7)}};
  auto s = roundingSpread(*Program::fromText("(+ (sin x) (* (exp x) (/ 1 3)))", "p.scm"), at);
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_GT(*s, 0.0);
  EXPECT_LT(*s, 8 * std::ldexp(1.0, -52));
}

TEST(RoundingSpread, GrowsWithAChaoticMap) {
  // Logistic map at r = 4: rounding error doubles each step, so after 40 steps it is ~2^40 ulps.
  const char* src = "(define (f x n) (if (= n 0) x (f (* 4 x (- 1 x)) (- n 1)))) (f 0.3 40)";
  auto s = roundingSpread(*Program::fromText(src, "p.scm"), {});
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_GT(*s, 1e-6);
}

TEST(RoundingSpread, IsReproducibleFromItsSeed) {
  const char* src = "(define (f x n) (if (= n 0) x (f (* 3.9 x (- 1 x)) (- n 1)))) (f 0.3 25)";
  auto p = *Program::fromText(src, "p.scm");
  EXPECT_EQ(*roundingSpread(p, {}, {}, 4, 7), *roundingSpread(p, {}, {}, 4, 7));
}

// --- the same for the gradient: the finite difference along randomly rounded runs ---

TEST(GradientRoundingSpread, IsZeroWhenEveryResultIsADouble) {
  auto s = gradientRoundingSpread(
      *Program::fromText("(define (f n) (if (= n 0) 0 (+ x (f (- n 1))))) (* 4 (f 10))", "p.scm"), {{"x", 2.5}}, {"x"},
      false);
  ASSERT_TRUE(s) << s.error().str();
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].first, "x");
  EXPECT_EQ((*s)[0].second, 0.0);
}

TEST(GradientRoundingSpread, IsAFewUlpsForAWellConditionedProgramAndKeyedAsTheGradient) {
  auto p = *Program::fromText("(+ (sin x) (* (exp x) (/ 1 3)))", "p.scm");
  auto s = gradientRoundingSpread(p, {{"x", 0.7}}, {"x"}, true);
  ASSERT_TRUE(s) << s.error().str();
  auto fd = finiteDifference(p, {{"x", 0.7}}, {"x"}, true);
  ASSERT_TRUE(fd) << fd.error().str();
  ASSERT_EQ(s->size(), fd->gradient.size());
  for (size_t k = 0; k < s->size(); ++k) {
    EXPECT_EQ((*s)[k].first, fd->gradient[k].first);
    EXPECT_LT((*s)[k].second, 8 * std::ldexp(1.0, -52) * std::max(1.0, std::fabs(fd->gradient[k].second)))
        << (*s)[k].first;
  }
  EXPECT_GT((*s)[0].second, 0.0);  // d/dx: exp(x) times the rounding of 1/3, at least
}

TEST(GradientRoundingSpread, GrowsWithAChaoticMap) {
  // Logistic map at r = 4 from theta: d x_25 / d theta is ~2^25 and rounding moves it by far more than an ulp.
  const char* src = "(define (f x n) (if (= n 0) x (f (* 4 x (- 1 x)) (- n 1)))) (f theta 25)";
  auto p = *Program::fromText(src, "p.scm");
  auto s = gradientRoundingSpread(p, {{"theta", 0.3}}, {"theta"}, false);
  ASSERT_TRUE(s) << s.error().str();
  auto fd = finiteDifference(p, {{"theta", 0.3}}, {"theta"}, false);
  ASSERT_TRUE(fd) << fd.error().str();
  EXPECT_GT((*s)[0].second, 1e-9 * std::fabs(fd->gradient[0].second));
}

TEST(GradientRoundingSpread, IsReproducibleFromItsSeedAndVariesWithIt) {
  const char* src = "(define (f x n) (if (= n 0) x (f (* 3.9 x (- 1 x)) (- n 1)))) (f theta 25)";
  auto p = *Program::fromText(src, "p.scm");
  auto spread = [&](uint64_t seed) {
    return (*gradientRoundingSpread(p, {{"theta", 0.3}}, {"theta"}, false, {}, 4, seed))[0].second;
  };
  EXPECT_EQ(spread(7), spread(7));
  EXPECT_NE(spread(7), spread(8));
}

}  // namespace
}  // namespace dmci::oracle
