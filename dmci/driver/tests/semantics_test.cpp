// The language's facts (truth, numbers, scope, special forms, library, gradients), each checked by both routes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/Eval.h"

namespace dmci {
namespace {

using test::close;
using test::evalErr;
using test::evalOk;
using test::gradientOf;

// Each fact holds by the direct route and through mce.scm.
class Semantics : public ::testing::TestWithParam<Route> {
 protected:
  double value(const std::string& src, std::vector<SeedValue> seed = {}) {
    return evalOk(src, GetParam(), std::move(seed)).value;
  }
  // d(value)/d(name) at the seed.
  double grad(const std::string& src, std::vector<SeedValue> seed, const std::string& name) {
    return gradientOf(evalOk(src, GetParam(), std::move(seed), {name}), name);
  }
  // d(value)/d(the literal at prog.scm:line:col).
  double literalGrad(const std::string& src, const std::string& at, std::vector<SeedValue> seed = {}) {
    return gradientOf(evalOk(src, GetParam(), std::move(seed), {}, true), "prog.scm:" + at);
  }
};

// --- truth and numbers ---

TEST_P(Semantics, ModuloTakesTheDivisorsSign) {
  EXPECT_EQ(value("(modulo -7 3)"), 2);
  EXPECT_EQ(value("(modulo 7 -3)"), -2);
}

TEST_P(Semantics, RemainderTakesTheDividendsSign) {
  EXPECT_EQ(value("(remainder -7 3)"), -1);
  EXPECT_EQ(value("(quotient -7 2)"), -3);
}

TEST_P(Semantics, ZeroIsTrue) { EXPECT_EQ(value("(if 0 1 2)"), 1); }

TEST_P(Semantics, EmptyListIsTrue) { EXPECT_EQ(value("(if '() 1 2)"), 1); }

TEST_P(Semantics, OnlyFalseIsFalse) { EXPECT_EQ(value("(if #f 1 2)"), 2); }

TEST_P(Semantics, ArithmeticIsVariadic) { EXPECT_EQ(value("(- (+ 1 2 3 4) (* 2 3) (/ 8 2 2))"), 2); }

// --- scope ---

TEST_P(Semantics, APrimitivesNameCanBeRebound) { EXPECT_EQ(value("(let ((+ -)) (+ 5 3))"), 2); }

TEST_P(Semantics, ScopeIsLexicalNotDynamic) {
  EXPECT_EQ(value("(define x 1) (define (f) x) (define (g x) (f)) (g 2)"), 1);
}

TEST_P(Semantics, ClosuresCaptureTheirParameters) {
  EXPECT_EQ(value("(define (adder n) (lambda (x) (+ x n))) (define a3 (adder 3)) (define a10 (adder 10)) "
                  "(* (a3 4) (a10 1))"),
            77);
}

TEST_P(Semantics, InternalDefinesAllowMutualRecursion) {
  EXPECT_EQ(value("(define (parity n)"
                  "  (define (ev? k) (if (= k 0) #t (od? (- k 1))))"
                  "  (define (od? k) (if (= k 0) #f (ev? (- k 1))))"
                  "  (if (ev? n) 0 1))"
                  "(+ (* 10 (parity 7)) (parity 10))"),
            10);
}

TEST_P(Semantics, LetrecStarInitialisesInOrder) { EXPECT_EQ(value("(letrec* ((a 1) (b (+ a 1)) (c (* b 3))) c)"), 6); }

TEST_P(Semantics, LetStarSeesEarlierBindings) { EXPECT_EQ(value("(let* ((a 2) (a (* a a)) (b (+ a 1))) b)"), 5); }

TEST_P(Semantics, LetInitsSeeTheOuterScope) { EXPECT_EQ(value("(define a 1) (let ((a 5) (b a)) b)"), 1); }

// --- special forms ---

TEST_P(Semantics, NamedLetLoops) {
  EXPECT_EQ(value("(let loop ((i 0) (acc 0)) (if (= i 5) acc (loop (+ i 1) (+ acc i))))"), 10);
}

TEST_P(Semantics, DoLoops) { EXPECT_EQ(value("(do ((i 0 (+ i 1)) (s 0 (+ s i))) ((= i 5) s))"), 10); }

TEST_P(Semantics, LoopRecurIsANamedLet) {
  EXPECT_EQ(value("(loop ((i 0) (s 0)) (if (= i 5) s (recur (+ i 1) (+ s i))))"), 10);
}

TEST_P(Semantics, CaseSelectsByEqv) {
  EXPECT_EQ(value("(case 3 ((1 2) 10) ((3 4) 20) (else 30))"), 20);
  EXPECT_EQ(value("(case 'b ((a) 1) ((b c) 2) (else 3))"), 2);
  EXPECT_EQ(value("(case 9 ((1) 1) (else 3))"), 3);
}

TEST_P(Semantics, CondArrowPassesTheTestsValue) {
  EXPECT_EQ(value("(cond ((assv 2 '((1 . 10) (2 . 20))) => cdr) (else 0))"), 20);
  EXPECT_EQ(value("(cond (#f 1) ((+ 2 3)) (else 0))"), 5);
}

TEST_P(Semantics, AndOrShortCircuit) {
  EXPECT_EQ(value("(if (and #f (car 1)) 1 2)"), 2);
  EXPECT_EQ(value("(or 5 (car 1))"), 5);
  EXPECT_EQ(value("(and 1 2 3)"), 3);
  EXPECT_EQ(value("(if (or #f #f) 1 2)"), 2);
  EXPECT_EQ(value("(if (and) 1 2)"), 1);
  EXPECT_EQ(value("(if (or) 1 2)"), 2);
}

TEST_P(Semantics, WhenAndUnlessRunTheirBodyOnTheTest) {
  EXPECT_EQ(value("(+ (when (> 2 1) 7 8) (unless (> 1 2) 1))"), 9);
  EXPECT_EQ(value("(begin (when #f (car 1)) (unless #t (car 1)) 4)"), 4);
}

TEST_P(Semantics, QuasiquoteSplices) {
  EXPECT_EQ(value("(apply + `(1 ,(+ 1 1) ,@(list 3 4) 5))"), 15);
  EXPECT_EQ(value("(let ((r `(1 (2 ,@(list 3 4)) ,(* 2 5)))) (+ (length r) (length (cadr r)) (caddr r)))"), 16);
}

// --- procedures ---

TEST_P(Semantics, VariadicLambdasCollectTheRest) {
  EXPECT_EQ(value("((lambda args (length args)) 1 2 3)"), 3);
  EXPECT_EQ(value("((lambda (a . r) (+ a (length r))) 10 1 2)"), 12);
  EXPECT_EQ(value("(define (f a b . r) (if (null? r) (+ a b) 0)) (f 1 2)"), 3);
}

TEST_P(Semantics, ApplySpreadsItsLastArgument) {
  EXPECT_EQ(value("(apply + '(1 2 3))"), 6);
  EXPECT_EQ(value("(define (f a b c) (- a b c)) (apply f 1 2 '(3))"), -4);
  EXPECT_EQ(value("(define (sum . xs) (apply + xs)) (apply sum 1 2 '())"), 3);
}

TEST_P(Semantics, PrimitivesAreFirstClass) {
  EXPECT_EQ(value("(apply + (map car '((1 2) (3 4))))"), 4);
  EXPECT_EQ(value("(define ops (list + *)) ((cadr ops) 3 4)"), 12);
}

TEST_P(Semantics, MapWalksTwoListsTogether) { EXPECT_EQ(value("(apply + (map * '(1 2 3) '(4 5 6)))"), 32); }

TEST_P(Semantics, FoldLeftFoldsFromTheLeft) { EXPECT_EQ(value("(fold-left - 0 '(1 2 3))"), -6); }

TEST_P(Semantics, FoldRightFoldsFromTheRight) { EXPECT_EQ(value("(fold-right - 0 '(1 2 3))"), 2); }

TEST_P(Semantics, ReduceFoldsWithTheFirstElementAsSeed) {
  EXPECT_EQ(value("(reduce + 0 '(1 2 3))"), 6);
  EXPECT_EQ(value("(reduce + 7 '())"), 7);
}

TEST_P(Semantics, FilterKeepsWhatThePredicateAccepts) { EXPECT_EQ(value("(apply + (filter odd? '(1 2 3 4 5)))"), 9); }

TEST_P(Semantics, ForEachCallsItsProcedureOnEveryElement) {
  EXPECT_EQ(value("(begin (for-each (lambda (v) v) '(1 2)) 5)"), 5);
  EXPECT_EQ(evalErr("(begin (for-each car '((1) 2)) 5)", GetParam()).kind, ErrorKind::Type);
}

TEST_P(Semantics, ApplyWithoutAListIsAnErrorOnlyWhenReached) {
  EXPECT_EQ(value("(if #f (apply +) 5)"), 5);
  EXPECT_EQ(evalErr("(if #t (apply +) 5)", GetParam()).kind, ErrorKind::Arity);
}

TEST_P(Semantics, AssocAndMemberUseEqual) {
  EXPECT_EQ(value("(cdr (assoc '(1) '(((2) . 4) ((1) . 5))))"), 5);
  EXPECT_EQ(value("(length (member '(3) '(1 (3) 4)))"), 2);
  EXPECT_EQ(value("(if (member 9 '(1 2)) 1 0)"), 0);
  EXPECT_EQ(value("(cdr (assq 'b '((a . 1) (b . 2))))"), 2);
}

TEST_P(Semantics, AssocAndMemberTakeAComparisonProcedure) {
  EXPECT_EQ(value("(cadr (assoc 2 '((1 1) (2 4)) =))"), 4);
  EXPECT_EQ(value("(car (member 2.0 '(1 2 3) =))"), 2);
  EXPECT_EQ(value("(car (member 2 '(1 2 3) <))"), 3);  // called as (compare x element)
  EXPECT_EQ(value("(cdr (assoc 5 '((4 . 1) (9 . 2)) (lambda (key k) (< key k))))"), 2);
  EXPECT_EQ(value("(if (assoc 7 '((1 . 2)) =) 1 0)"), 0);
  EXPECT_EQ(value("(car (apply member (list 2 '(1 2 3) <)))"), 3);
}

TEST_P(Semantics, EqualComparesNestedLists) {
  EXPECT_EQ(value("(if (equal? '(1 (2 3) (4 . 5)) (list 1 (list 2 3) (cons 4 5))) 1 0)"), 1);
  EXPECT_EQ(value("(if (equal? '(1 (2 3)) '(1 (2 4))) 1 0)"), 0);
  EXPECT_EQ(value("(if (eq? '() '()) 1 0)"), 1);
}

TEST_P(Semantics, StringsPassThroughAsValues) {
  EXPECT_EQ(value("(define (id v) v) (if (string? (id \"abc\")) 1 0)"), 1);
  EXPECT_EQ(value("(if (equal? (car (list \"ab\" 2)) \"ab\") 1 0)"), 1);
  Error e = evalErr("(define (id v) v) (error (id \"from a variable\") 3)", GetParam());
  EXPECT_EQ(e.message, "from a variable 3");
}

TEST_P(Semantics, TensorsMultiply) {
  EXPECT_EQ(value("(vsum (matvec (mat '(1 2) '(3 4)) (vec x 1)))", {{"x", 2}}), 14);
}

// --- gradients ---

TEST_P(Semantics, GradientFlowsThroughClosures) {
  const char* src = "(define (scale k) (lambda (v) (* k v))) ((scale x) x)";
  EXPECT_EQ(value(src, {{"x", 3}}), 9);
  EXPECT_EQ(grad(src, {{"x", 3}}, "x"), 6);
}

TEST_P(Semantics, GradientFlowsThroughMapAndFold) {
  EXPECT_EQ(grad("(fold-left + 0 (map (lambda (v) (* v x)) '(1 2 3)))", {{"x", 2}}, "x"), 6);
  EXPECT_EQ(grad("(fold-right (lambda (v acc) (* v acc)) 1 (list x x 3))", {{"x", 2}}, "x"), 12);
}

TEST_P(Semantics, GradientFlowsThroughLists) {
  EXPECT_EQ(grad("(let ((l (list x (* x x)))) (* (car l) (cadr l)))", {{"x", 2}}, "x"), 12);
  EXPECT_EQ(grad("(apply * (cons x (reverse (list x 1))))", {{"x", 5}}, "x"), 10);
}

TEST_P(Semantics, GradientFlowsThroughAssocAndMemberWithAComparison) {
  EXPECT_EQ(grad("(cadr (assoc 2 (list (list 1 x) (list 2 (* x x))) =))", {{"x", 3}}, "x"), 6);
  EXPECT_EQ(grad("(apply * (member x (list 1 x 4) =))", {{"x", 3}}, "x"), 4);
}

TEST_P(Semantics, GradientFlowsThroughTensors) {
  EXPECT_EQ(grad("(vsum (matvec (mat '(1 2) '(3 4)) (vec x 1)))", {{"x", 2}}, "x"), 4);
}

TEST_P(Semantics, LiteralInsideADefinitionHasAGradient) {
  // (define (f x) (* 1.5 x x)) (f 2): d/d1.5 = x*x = 4, and 1.5 sits at column 18.
  EXPECT_EQ(literalGrad("(define (f x) (* 1.5 x x)) (f 2)", "1:18"), 4);
  EXPECT_EQ(literalGrad("(define (f x) (* 1.5 x x)) (f 2)", "1:31"), 6);
}

TEST_P(Semantics, LiteralScalingAParameterHasAGradient) {
  auto ev = evalOk("(* 2.5 (* x x))", GetParam(), {{"x", 3}}, {"x"}, true);
  EXPECT_EQ(ev.value, 22.5);
  EXPECT_EQ(gradientOf(ev, "x"), 15);
  EXPECT_EQ(gradientOf(ev, "prog.scm:1:4"), 9);
}

TEST_P(Semantics, LiteralsOnLaterLinesAreNamedByTheirLine) {
  EXPECT_EQ(literalGrad("(define a\n  3)\n(* a a 0.5)", "2:3"), 3);
}

INSTANTIATE_TEST_SUITE_P(Routes, Semantics, ::testing::Values(Route::Direct, Route::Dmci),
                         [](const auto& info) { return std::string(routeName(info.param)); });

// --- DMCI = direct ---

// A program, its seed (every seed name is differentiated) and a name for the test.
struct Agreement {
  const char* label;
  const char* src;
  std::vector<SeedValue> seed;
};

void PrintTo(const Agreement& a, std::ostream* os) { *os << a.label << ": " << a.src; }

const std::vector<SeedValue> kXY = {{"x", 1.5}, {"y", 2.5}};

const Agreement kAgreement[] = {
    {"arith", "(+ (* x y) (- x 2.5) (/ y 4) (- x))", kXY},
    {"if", "(if (< x y) (* x 3) (* y 3))", kXY},
    {"let", "(let ((a (* x 2)) (b 3)) (+ a b y))", kXY},
    {"let_star", "(let* ((a x) (b (* a a))) (* b 1.5 y))", kXY},
    {"letrec_power", "(letrec ((f (lambda (n) (if (= n 0) 1 (* x (f (- n 1))))))) (f 4))", kXY},
    {"factorial", "(define (fact n) (if (< n 1) 1 (* n (fact (- n 1))))) (* x (fact 5))", kXY},
    {"mutual_recursion",
     "(define (ev n a) (if (= n 0) a (od (- n 1) (* a x))))\n"
     "(define (od n a) (if (= n 0) a (ev (- n 1) (+ a y))))\n(ev 6 1)",
     kXY},
    {"closure_params", "(define (adder k) (lambda (v) (+ v k))) (define add (adder x)) (* (add y) (add 1))", kXY},
    {"compose", "(define (compose f g) (lambda (v) (f (g v)))) ((compose sin (lambda (v) (* v y))) x)", kXY},
    {"twice", "(define (twice f) (lambda (v) (f (f v)))) ((twice (lambda (v) (* v x))) y)", kXY},
    {"curry", "(define (curry f) (lambda (a) (lambda (b) (f a b)))) (((curry *) x) y)", kXY},
    {"map_lambda", "(apply + (map (lambda (v) (* v x)) (list 1 2 y)))", kXY},
    {"map_two_lists", "(apply + (map * (list x y) (list y x)))", kXY},
    {"fold_left_horner", "(fold-left (lambda (acc c) (+ (* acc x) c)) 0 (list 1 2 y 4))", kXY},
    {"fold_right", "(fold-right (lambda (v acc) (+ v (* acc y))) 0 (list 1 x 3))", kXY},
    {"reduce", "(reduce * 1 (list x y 2))", kXY},
    {"filter", "(apply + (filter (lambda (v) (> v 1)) (list x y 0.5)))", kXY},
    {"variadic", "(define (sum . xs) (apply + xs)) (sum x y 3)", kXY},
    {"variadic_fixed", "(define (f a . r) (* a (length r) (apply + r))) (f x y y)", kXY},
    {"apply_spread", "(apply (lambda (a b c) (- a (* b c))) x (list y 2))", kXY},
    {"apply_without_list_unreached", "(if (< x 0) (apply +) (* x y))", kXY},
    {"named_let", "(let loop ((i 0) (acc 1)) (if (= i 3) acc (loop (+ i 1) (* acc x))))", kXY},
    {"do", "(do ((i 0 (+ i 1)) (s 0 (+ s (* i x)))) ((= i 4) (* s y)))", kXY},
    {"loop_recur", "(loop ((i 0) (s y)) (if (= i 3) s (recur (+ i 1) (* s x))))", kXY},
    {"cond_arrow", "(cond ((assv 2 (list (cons 1 x) (cons 2 y))) => (lambda (p) (* (cdr p) x))) (else 0))", kXY},
    {"case", "(case (if (> x 0) 'pos 'neg) ((pos) (* x y)) ((neg) (- x)) (else 0))", kXY},
    {"and_or", "(+ (or #f x) (if (and (> x 0) (> y 0)) y 0))", kXY},
    {"when_unless", "(+ (when (> x 0) 1 (* x x)) (unless (< y 0) y))", kXY},
    {"quasiquote", "(apply + `(1 ,x ,@(list y (* x y))))", kXY},
    {"internal_define", "(define (f v) (define a (* v 2)) (define (g w) (+ w a y)) (g v)) (f x)", kXY},
    {"elementary", "(+ (exp x) (log y) (log y 2) (sin x) (cos y) (tan x) (sqrt y) (tanh x) (atan x y) (asin 0.5))",
     kXY},
    {"elementary2", "(+ (expt x 3) (square y) (sigmoid x) (softplus y) (abs (- x y)) (max x y) (min x y))", kXY},
    {"rounding", "(* x (+ (floor 2.5) (round 3.5) (ceiling 0.2) (truncate -1.5) (modulo 7 3) (quotient 7 2)))", kXY},
    {"predicates",
     "(if (and (number? x) (pair? (list x)) (null? '()) (procedure? car) (not #f) (eqv? 1 1) (zero? 0)) x y)", kXY},
    {"lists",
     "(let ((l (list x y 3))) (+ (car l) (cadr l) (caddr l) (length l) (list-ref l 1) (car (reverse l))\n"
     "   (car (list-tail l 2)) (apply + (append l l))))",
     kXY},
    {"assoc_member", "(+ (cdr (assoc 'b (list (cons 'a x) (cons 'b y)))) (car (member 3 (list 1 x 3))))", kXY},
    {"assoc_member_compare",
     "(+ (cadr (assoc 2 (list (list 1 x) (list 2 y)) =)) (apply * (member y (list 1 x y 3) (lambda (a b) (= a b)))))",
     kXY},
    {"equal", "(if (equal? (list 1 (list 2)) '(1 (2))) x y)", kXY},
    {"deep_non_tail", "(define (sum n) (if (= n 0) 0 (+ x (sum (- n 1))))) (sum 200)", kXY},
    {"tail", "(define (go n acc) (if (= n 0) acc (go (- n 1) (+ acc (* x y))))) (go 300 0)", kXY},
    {"string_arg", "(define (pick s a b) (if (string? s) a b)) (pick \"hi\" x y)", kXY},
    {"prim_rebound", "(let ((* +)) (* x y))", kXY},
    {"begin", "(begin 1 (car (list 2)) (* x y))", kXY},
    {"tensor_matvec", "(vsum (matvec (mat (list x 2) (list 3 y)) (vec x 1)))", kXY},
    {"tensor_dot", "(dot (vec x y) (vec y x))", kXY},
};

class RoutesAgree : public ::testing::TestWithParam<Agreement> {};

// Checks that `other` gives direct's value and gradient (every seed name and every literal) to 1e-12.
void expectAgreement(const Agreement& a, Route other) {
  std::vector<std::string> wrt;
  for (const auto& s : a.seed) wrt.push_back(s.name);
  auto direct = evalOk(a.src, Route::Direct, a.seed, wrt, true);
  auto via = evalOk(a.src, other, a.seed, wrt, true);
  EXPECT_TRUE(close(direct.value, via.value))
      << "direct " << direct.value << " " << routeName(other) << " " << via.value;
  ASSERT_EQ(direct.gradient.size(), via.gradient.size());
  for (size_t k = 0; k < direct.gradient.size(); ++k) {
    EXPECT_EQ(direct.gradient[k].first, via.gradient[k].first);
    EXPECT_TRUE(close(direct.gradient[k].second, via.gradient[k].second))
        << direct.gradient[k].first << ": direct " << direct.gradient[k].second << " " << routeName(other) << " "
        << via.gradient[k].second;
  }
}

TEST_P(RoutesAgree, DmciGivesDirectsValueAndGradient) { expectAgreement(GetParam(), Route::Dmci); }

INSTANTIATE_TEST_SUITE_P(Programs, RoutesAgree, ::testing::ValuesIn(kAgreement),
                         [](const auto& info) { return std::string(info.param.label); });

TEST(RoutesAgreeTable, HasAtLeast40Programs) { EXPECT_GE(std::size(kAgreement), 40u); }

// The tower (mce.scm running mce.scm running the program) on small programs.
const Agreement kTower[] = {
    {"arith", "(* 2.5 (* x x))", {{"x", 3}}},
    {"closure", "(define (adder k) (lambda (v) (* v k))) ((adder x) y)", kXY},
    {"recursion", "(define (pw n) (if (= n 0) 1 (* x (pw (- n 1))))) (pw 3)", kXY},
    {"map", "(apply + (map (lambda (v) (* v x)) (list 1 y)))", kXY},
    {"named_let", "(let loop ((i 0) (s y)) (if (= i 2) s (loop (+ i 1) (* s x))))", kXY},
    {"variadic_apply", "(define (f a . r) (* a (apply + r))) (apply f x (list y 2))", kXY},
    {"apply_without_list_unreached", "(if (< x 0) (apply +) (* x y))", kXY},
    {"assoc_member_compare", "(* (cadr (assoc 2 (list (list 1 x) (list 2 y)) =)) (car (member 1 (list x y) <)))", kXY},
};

class TowerAgrees : public ::testing::TestWithParam<Agreement> {};

TEST_P(TowerAgrees, Dmci2GivesDirectsValueAndGradient) { expectAgreement(GetParam(), Route::Dmci2); }

INSTANTIATE_TEST_SUITE_P(Programs, TowerAgrees, ::testing::ValuesIn(kTower),
                         [](const auto& info) { return std::string(info.param.label); });

}  // namespace
}  // namespace dmci
