// R7RS exceptions (prims/Exceptions.cpp, expand/ExpandExceptions.cpp): guard with its clause forms and the re-raise
// when none matches, with-exception-handler and raise-continuable resuming, error objects, gradients through the
// raised and the handler's values, and the errors of an uncaught raise and of mixing with call/cc; each fact by
// every route (direct, through mce.scm, the tower, lantern.scm and lantern through mce.scm).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "driver/Engine.h"
#include "testing/Eval.h"
#include "testing/Routes.h"

namespace dmci {
namespace {

using test::evalErr;
using test::where;

using Exceptions = test::PerRoute;

TEST_P(Exceptions, AHandlerValueResumesARaiseContinuable) {
  EXPECT_EQ(value("(with-exception-handler (lambda (con) 42) (lambda () (+ (raise-continuable \"not a number\") 23)))"),
            65);
}

TEST_P(Exceptions, GuardCatchesAnErrorObjectWithItsMessageAndIrritants) {
  EXPECT_EQ(value("(if (error-object? (guard (e (else e)) (error \"BOOM!\" 1 2 3))) 1 0)"), 1);
  EXPECT_EQ(value("(string-length (error-object-message (guard (e (#t e)) (error \"BOOM!\" 1 2 3))))"), 5);
  EXPECT_EQ(value("(apply + (error-object-irritants (guard (e (else e)) (error \"BOOM!\" 1 2 3))))"), 6);
  EXPECT_EQ(value("(if (error-object? 'boom) 1 0)"), 0);
}

TEST_P(Exceptions, GuardTriesItsClausesInTurnWithArrowAndTestOnly) {
  const std::string g = "(define (g x) (guard (e ((symbol? e) 1) ((assq 'a e) => cdr) ((assq 'b e))) (raise x))) ";
  EXPECT_EQ(value(g + "(g 'sym)"), 1);
  EXPECT_EQ(value(g + "(g (list (cons 'a 42)))"), 42);
  EXPECT_EQ(value(g + "(cdr (g (list (cons 'b 23))))"), 23);
}

TEST_P(Exceptions, GuardWithNoMatchingClauseReRaisesToTheOuterGuard) {
  EXPECT_EQ(value("(guard (e ((string? e) 2)) (+ 10 (guard (e ((symbol? e) 1)) (raise \"x\"))))"), 2);
  EXPECT_EQ(value("(with-exception-handler (lambda (c) 5) (lambda () (+ 1 (guard (e ((symbol? e) 1)) "
                  "(* 2 (raise-continuable 7))))))"),
            11);  // the outer handler's 5 resumes the raise inside the guard
}

TEST_P(Exceptions, ANormalReturnPassesThroughGuardAndHandler) {
  EXPECT_EQ(value("(+ (guard (e (#t 0)) 3) (with-exception-handler (lambda (c) 0) (lambda () 4)))"), 7);
}

TEST_P(Exceptions, GradientsFlowThroughTheRaisedAndTheHandlersValues) {
  EXPECT_EQ(grad("(guard (e ((number? e) (* e x))) (+ 1 (raise (* x x))))", {{"x", 1.5}}, "x"), 3 * 1.5 * 1.5);
  EXPECT_EQ(grad("(with-exception-handler (lambda (c) (* c a)) (lambda () (+ (raise-continuable a) (* 2 a))))",
                 {{"a", 0.5}}, "a"),
            2 * 0.5 + 2);
}

TEST_P(Exceptions, AnUncaughtRaiseStopsTheRunAtTheRaise) {
  Error e = evalErr("(define (f x)\n  (raise 'boom))\n(+ 1 (f 1))", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::User);
  EXPECT_EQ(where(e.pos), "2:3");
  EXPECT_NE(e.message.find("uncaught exception: boom"), std::string::npos) << e.message;
  e = evalErr("(define (f x)\n  (error \"bad value:\" x))\n(guard (e ((string? e) 0)) (f 7))", GetParam());
  EXPECT_EQ(where(e.pos), "3:8");  // re-raised by the guard that matched nothing: its clause list
  EXPECT_NE(e.message.find("bad value:"), std::string::npos) << e.message;  // lantern shows 7 as its dual
}

TEST_P(Exceptions, AHandlerReturningFromRaiseIsAnError) {
  Error e = evalErr("(with-exception-handler (lambda (c) 1)\n  (lambda () (raise 'x)))", GetParam());
  EXPECT_NE(e.message.find("the handler returned from a non-continuable raise"), std::string::npos) << e.message;
}

INSTANTIATE_TEST_SUITE_P(Routes, Exceptions, test::everyRoute(), test::routeSuffix);

// A reset of call/cc's between a raise and its handler would catch the raise: the expander refuses the mix.
TEST(ExceptionsForms, AProgramWithGuardAndCallCcIsRefusedAtTheCallCc) {
  Error e = evalErr("(guard (e (#t 0))\n  (call/cc (lambda (k) (k 1))))", Route::Direct);
  EXPECT_EQ(e.kind, ErrorKind::Form);
  EXPECT_EQ(where(e.pos), "2:4");
  EXPECT_NE(e.message.find("cannot use call/cc too"), std::string::npos) << e.message;
}

TEST(ExceptionsForms, AProgramWithRaiseAndResetIsRefusedAtTheReset) {
  Error e = evalErr("(define (f) (raise 'x))\n(+ (reset 1) 2)", Route::Direct);
  EXPECT_EQ(e.kind, ErrorKind::Form);
  EXPECT_EQ(where(e.pos), "2:4");
  EXPECT_NE(e.message.find("reset: a program that uses raise (line 1) cannot use reset too"), std::string::npos)
      << e.message;
}

TEST(ExceptionsForms, AMalformedGuardIsAnErrorAtTheForm) {
  Error e = evalErr("(+ 1\n (guard e 1))", Route::Direct);
  EXPECT_EQ(e.kind, ErrorKind::Form);
  EXPECT_EQ(where(e.pos), "2:2");
  EXPECT_NE(e.message.find("guard: expects (guard (var clause ...) body ...)"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace dmci
