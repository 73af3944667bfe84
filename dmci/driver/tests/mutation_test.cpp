// set! on variables (expand/Assign.cpp: an assigned variable lives in a box, set! writes its next version): each
// fact by every route (direct, through mce.scm, the tower, lantern.scm and lantern through mce.scm), with exact
// gradients through every assigned version and the error for a set! of an unbound name at the name's position.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "testing/Eval.h"
#include "testing/Routes.h"

namespace dmci {
namespace {

using test::evalErr;
using test::evalOk;
using test::gradientOf;
using test::where;

using Mutation = test::PerRoute;

const char* const kSumSq =
    "(define (sum-sq xs) (let ((acc 0)) (for-each (lambda (x) (set! acc (+ acc (* x x)))) xs) acc)) ";

TEST_P(Mutation, AnAccumulatorSeesEveryWrite) { EXPECT_EQ(value(std::string(kSumSq) + "(sum-sq '(1 2 3))"), 14); }

TEST_P(Mutation, TheGradientThroughAMutatedAccumulatorIsExact) {
  EXPECT_EQ(grad(std::string(kSumSq) + "(sum-sq (list x 2 x))", {{"x", 1.5}}, "x"), 6);  // d(2x^2)/dx = 4x
}

TEST_P(Mutation, AParameterCanBeAssignedAndTheCallerKeepsItsValue) {
  EXPECT_EQ(value("(define (f x) (set! x (* x x)) (set! x (* x x)) x) (define y 3) (+ (f y) y)"), 84);
  EXPECT_EQ(grad("(define (f x) (set! x (* x x)) (set! x (* x x)) x) (f x)", {{"x", 1.5}}, "x"), 13.5);  // 4x^3
}

TEST_P(Mutation, ATopLevelDefinitionCanBeAssigned) {
  EXPECT_EQ(value("(define k 0) (define (bump! n) (set! k (+ k n))) (bump! 5) (bump! 7) k"), 12);
}

TEST_P(Mutation, AClosureKeepsItsStateBetweenCalls) {
  const std::string src =
      "(define (make-counter) (let ((n 0)) (lambda () (set! n (+ n 1)) n))) "
      "(define c1 (make-counter)) (define c2 (make-counter)) (c1) (c1) (c2) (+ (* 10 (c1)) (c2))";
  EXPECT_EQ(value(src), 32);  // each counter its own box
}

TEST_P(Mutation, ShadowingKeepsAnUnassignedNameUnboxed) {
  EXPECT_EQ(value("(define x 1) (let ((x 10)) (set! x 20)) x"), 1);
  EXPECT_EQ(value("(let ((x 1)) (let ((f (lambda (x) (set! x 5) x))) (+ (f 2) x)))"), 6);
}

TEST_P(Mutation, SetReturnsTheUnspecifiedValueAndTheLoopCountDependsOnTheParameter) {
  const std::string src =
      "(define (grow x) (let ((n 0)) (let loop () (when (< x 10) (set! x (* x 2)) "
      "(set! n (+ n 1)) (loop))) (* x n))) (grow a)";
  EXPECT_EQ(value(src, {{"a", 1.3}}), 1.3 * 8 * 3);
  EXPECT_EQ(grad(src, {{"a", 0.7}}, "a"), 64);  // 4 doublings: 4 * 16 a
}

TEST_P(Mutation, SetOfAnUnboundNameIsAnErrorAtTheName) {
  Error e = evalErr("(define x 1)\n(begin (set! y 2) x)", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::Form);
  EXPECT_EQ(where(e.pos), "2:14");
  EXPECT_NE(e.message.find("set!: 'y' is not bound"), std::string::npos) << e.message;
  e = evalErr("(define (f) (set! car 1))\n(f)", GetParam());
  EXPECT_EQ(where(e.pos), "1:19");
  EXPECT_NE(e.message.find("'car' is not bound"), std::string::npos) << e.message;
}

TEST_P(Mutation, SetOfAVariableOutOfItsScopeIsAnError) {
  Error e = evalErr("(define (f) (let ((z 1)) z))\n(define (g) (set! z 2))\n(g)", GetParam());
  EXPECT_EQ(where(e.pos), "2:19");
}

INSTANTIATE_TEST_SUITE_P(Routes, Mutation, test::everyRoute(), test::routeSuffix);

// Assignment conversion walks the program as deep as it nests: a let* 50,000 long with a set! under it.
TEST(MutationDeep, ALongLetStarWithSetIsConvertedWithoutExhaustingTheStack) {
  std::string src = "(define (f a) (let* (";
  for (int i = 0; i < 50000; ++i) src += "(x" + std::to_string(i) + " (+ a " + std::to_string(i) + ")) ";
  src += ") (set! a 1) (+ a x49999))) (f 2)";
  EXPECT_EQ(evalOk(src, Route::Direct).value, 50002);
}

// The replay engine replays the native machine's recorded trace: a box written many times is data movement at
// recording, so the replayed gradient is the native one, and a seed that changes the trip count records afresh.
TEST(MutationEngines, ReplayGivesTheNativeGradientOnEveryTripCount) {
  const std::string src =
      "(define (grow x) (let ((n 0)) (let loop () (when (< x 10) (set! x (* x 2)) "
      "(set! n (+ n 1)) (loop))) (* x n))) (grow a)";
  test::expectDoublingLoopOnNativeAndReplay(src);
}

}  // namespace
}  // namespace dmci
