// The R7RS forms of multiple values and of several arities (values, call-with-values, let-values, let*-values,
// define-values, receive, case-lambda) and the number procedures beside them (prims/Numbers.cpp): each fact by the
// direct route, through mce.scm and through the tower, with gradients through the values, and the errors for misuse at
// the form's position.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/Eval.h"

namespace dmci {
namespace {

using test::evalErr;
using test::evalOk;
using test::gradientOf;
using test::where;

using R7rsForms = test::PerRoute;

TEST_P(R7rsForms, OneValueIsTheValueItself) { EXPECT_EQ(value("(+ 1 (values 41))"), 42); }

TEST_P(R7rsForms, CallWithValuesSpreadsTheValuesOverTheConsumer) {
  EXPECT_EQ(value("(call-with-values (lambda () (values 1 2 3)) (lambda (a b c) (+ a (* 10 b) (* 100 c))))"), 321);
}

TEST_P(R7rsForms, CallWithValuesPassesZeroValuesAsNoArgument) {
  EXPECT_EQ(value("(call-with-values (lambda () (values)) (lambda () 7))"), 7);
}

TEST_P(R7rsForms, CallWithValuesPassesAPlainValueAsOneArgument) { EXPECT_EQ(value("(call-with-values * -)"), -1); }

TEST_P(R7rsForms, AListIsOneValueNotSeveral) {
  EXPECT_EQ(value("(call-with-values (lambda () (list 1 2)) (lambda (l) (length l)))"), 2);
}

TEST_P(R7rsForms, LetValuesInitsSeeTheOuterScope) {
  EXPECT_EQ(value("(define a 1) (let-values (((a b) (values 5 a)) ((c) (values a))) (+ (* 100 a) (* 10 b) c))"), 511);
}

TEST_P(R7rsForms, LetValuesTakesARestList) {
  EXPECT_EQ(value("(let-values (((a . r) (values 1 2 3)) (all (values 4 5))) (+ a (length r) (apply * all)))"), 23);
}

TEST_P(R7rsForms, LetStarValuesSeesEarlierFormals) {
  EXPECT_EQ(value("(let*-values (((a b) (values 2 3)) ((c) (values (* a b)))) c)"), 6);
}

TEST_P(R7rsForms, DefineValuesDefinesEachName) {
  EXPECT_EQ(value("(define-values (q r . more) (values 7 2 9 9)) (+ (* q r) (length more))"), 16);
}

TEST_P(R7rsForms, DefineValuesInABodyIsLetrecStar) {
  EXPECT_EQ(value("(define (f) (define (g) (* x 2)) (define-values (x y) (values 3 4)) (+ (g) y)) (f)"), 10);
}

TEST_P(R7rsForms, ReceiveBindsItsFormals) { EXPECT_EQ(value("(receive (a . r) (values 1 2 3) (+ a (car r)))"), 3); }

TEST_P(R7rsForms, CaseLambdaPicksTheFirstClauseThatTakesTheCount) {
  const std::string f = "(define f (case-lambda (() 0) ((x) 1) ((x y) 2) ((x . r) 3) (r 4))) ";
  EXPECT_EQ(value(f + "(+ (f) (* 10 (f 1)) (* 100 (f 1 2)) (* 1000 (f 1 2 3)))"), 3210);
}

TEST_P(R7rsForms, CaseLambdaCanCallItselfThroughItsName) {
  EXPECT_EQ(value("(define m (case-lambda ((x) x) ((x y . z) (apply m (* x y) z)))) (m 1 2 3 4)"), 24);
}

TEST_P(R7rsForms, GradientsFlowThroughEveryValue) {
  const std::string src = "(define (f x) (values (* x x) (* 3 x))) (let-values (((a b) (f x))) (+ a b))";
  EXPECT_EQ(grad(src, {{"x", 2}}, "x"), 7);  // 2x + 3
  EXPECT_EQ(grad("(define g (case-lambda ((x) (* x x)) ((x y) (* x y)))) (+ (g x) (g x 5))", {{"x", 2}}, "x"), 9);
}

TEST_P(R7rsForms, AValuesCountThatDoesNotMatchIsAnArityErrorAtTheForm) {
  Error e = evalErr("(+ 1\n   (let-values (((a b) (values 1 2 3))) a))", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::Arity);
  EXPECT_EQ(where(e.pos), "2:4");
  e = evalErr("(define-values (a b) (values 1))\na", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::Arity);
  EXPECT_EQ(where(e.pos), "1:1");
}

TEST_P(R7rsForms, ACaseLambdaWithNoClauseForTheCountIsAnErrorNamingIt) {
  Error e = evalErr("(define f\n  (case-lambda ((x) x) ((x y) y)))\n(f 1 2 3)", GetParam());
  EXPECT_EQ(where(e.pos), "2:3");
  EXPECT_NE(e.message.find("case-lambda: no clause takes this many arguments, got 3"), std::string::npos) << e.message;
}

// --- the number procedures of prims/Numbers.cpp ---

TEST_P(R7rsForms, DivisionPairsAreTwoValues) {
  EXPECT_EQ(value("(call-with-values (lambda () (floor/ -5 2)) (lambda (q r) (+ (* 10 q) r)))"), -29);
  EXPECT_EQ(value("(call-with-values (lambda () (truncate/ -5 2)) (lambda (q r) (+ (* 10 q) r)))"), -21);
}

TEST_P(R7rsForms, ExactIntegerSqrtIsExactBeyondDoublePrecision) {
  // 2^61 = 1518500249^2 + 3000631951: the square needs 61 bits, more than a double's 53.
  EXPECT_EQ(value("(call-with-values (lambda () (exact-integer-sqrt (expt 2 61))) (lambda (s r) r))"), 3000631951.0);
  EXPECT_EQ(value("(call-with-values (lambda () (exact-integer-sqrt 17)) (lambda (s r) (+ (* 10 s) r)))"), 41);
}

TEST_P(R7rsForms, GcdAndLcmTakeAnyCount) {
  EXPECT_EQ(value("(+ (gcd 32 -36) (gcd) (* 1000 (lcm 32 -36)) (lcm))"), 288005);
}

TEST_P(R7rsForms, ExactAndInexactKeepTheValueAndTheGradient) {
  EXPECT_EQ(value("(+ (exact 2.5) (inexact 1))"), 3.5);
  EXPECT_EQ(grad("(* (exact x) (inexact->exact (exact->inexact x)))", {{"x", 3}}, "x"), 6);
  EXPECT_NE(evalErr("(exact (/ 1. 0))", GetParam()).message.find("exact: an infinity or a NaN has no exact form"),
            std::string::npos);
}

TEST_P(R7rsForms, NonFiniteTests) {
  EXPECT_EQ(value("(+ (if (nan? (/ 0. 0)) 1 0) (if (infinite? (/ -1. 0)) 10 0) (if (finite? 3) 100 0)"
                  " (if (infinite? (/ 0. 0)) 1000 0))"),
            111);
}

// --- call/cc as an escape (prims/Continuations.cpp) ---

TEST_P(R7rsForms, CallCcEscapesFromInsideCalls) {
  EXPECT_EQ(value("(call/cc (lambda (exit) (for-each (lambda (x) (if (< x 0) (exit x))) '(5 0 -3 7)) 1))"), -3);
  EXPECT_EQ(value("(define (len l) (call-with-current-continuation (lambda (return)\n"
                  "  (letrec ((r (lambda (l) (cond ((null? l) 0) ((pair? l) (+ (r (cdr l)) 1)) (else (return -1))))))\n"
                  "    (r l)))))\n"
                  "(+ (len '(1 2 3)) (* 10 (len '(1 2 . 3))))"),
            -7);
}

TEST_P(R7rsForms, CallCcReturnsNormallyWithoutAnEscape) { EXPECT_EQ(value("(+ 1 (call/cc (lambda (k) 41)))"), 42); }

TEST_P(R7rsForms, AnEscapePassesThroughAnInnerCallCc) {
  EXPECT_EQ(value("(call/cc (lambda (outer) (+ 1 (call/cc (lambda (inner) (+ 100 (outer 10)))))))"), 10);
  EXPECT_EQ(value("(call/cc (lambda (outer) (+ 1 (call/cc (lambda (inner) (+ 100 (inner 10)))))))"), 11);
}

TEST_P(R7rsForms, AnEscapeCarriesMultipleValues) {
  EXPECT_EQ(value("(call-with-values (lambda () (call/cc (lambda (k) (k 1 2)))) (lambda (a b) (+ a (* 10 b))))"), 21);
}

TEST_P(R7rsForms, GradientsFlowThroughAnEscape) {
  EXPECT_EQ(grad("(* x (call/cc (lambda (k) (+ 1 (k (* x x))))))", {{"x", 2}}, "x"), 12);
}

TEST_P(R7rsForms, AnEscapeAfterItsCallCcReturnedIsAnErrorAtTheCall) {
  Error e = evalErr("(define saved (call/cc (lambda (k) k)))\n(saved 1)", GetParam());
  EXPECT_EQ(where(e.pos), "2:1");
  EXPECT_NE(e.message.find("shift: outside any reset"), std::string::npos) << e.message;
}

INSTANTIATE_TEST_SUITE_P(Routes, R7rsForms, ::testing::Values(Route::Direct, Route::Dmci, Route::Dmci2),
                         [](const auto& info) { return std::string(routeName(info.param)); });

// lantern.scm's route: a program whose library (call/cc) uses reset and shift is converted before lantern's.
TEST(R7rsLantern, CallCcEscapesWithDirectsGradient) {
  const std::string src = "(* x (call/cc (lambda (k) (for-each (lambda (v) (if (> v 1) (k (* v x)))) (list 1 x)) 0)))";
  for (Route r : {Route::Lantern, Route::LanternDmci})
    EXPECT_EQ(gradientOf(evalOk(src, r, {{"x", 3}}, {"x"}), "x"), 27) << routeName(r);  // x * x^2: 3 x^2
}

TEST(R7rsFormErrors, CallCcAndResetInOneProgramAreRefused) {
  Error e = evalErr("(+ (reset 1)\n (call/cc (lambda (k) 2)))", Route::Direct);
  EXPECT_EQ(e.kind, ErrorKind::Form);
  EXPECT_EQ(where(e.pos), "2:3");
}

// Misuse caught by the expander, with the form's position.
TEST(R7rsFormErrors, MalformedFormsAreFormErrors) {
  for (const char* src : {"(case-lambda)", "(case-lambda (x))", "(let-values ((a)) a)", "(receive (a) 1)",
                          "(let*-values (((a a) (values 1 2))) a)", "(let-values (((a) 1) ((a) 2)) a)",
                          "(+ 1 (define-values (a) 1))", "(define-values (a) 1 2)"}) {
    Error e = evalErr(src, Route::Direct);
    EXPECT_EQ(e.kind, ErrorKind::Form) << src << ": " << e.message;
  }
}

TEST(R7rsFormErrors, SyntaxOutsideTheSubsetIsNamed) {
  Error e = evalErr("(define x 1)\n(define-syntax swap! (syntax-rules () ((_ a b) 1)))", Route::Direct);
  EXPECT_EQ(e.kind, ErrorKind::Form);
  EXPECT_EQ(where(e.pos), "2:1");
  EXPECT_NE(e.message.find("define-syntax: not supported"), std::string::npos) << e.message;
  e = evalErr("(parameterize ((p 1)) p)", Route::Dmci);
  EXPECT_NE(e.message.find("parameterize: not supported"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace dmci
