// vector-set! and vector-fill! (prims/Vectors.cpp: a write is the next version of an element's cell, as set! writes
// a box's): each fact by every route (direct, through mce.scm, the tower, lantern.scm and lantern through mce.scm),
// gradients through every written version, errors at the call's position; then the native and replay engines on
// one accumulator whose trip count the parameter sets.
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

using VectorMutation = test::PerRoute;

// Slots k mod 3 of k = 0..6 accumulate a k + b: v0 = 9a + 3b, v1 = 5a + 2b, v2 = 7a + 2b.
const char* const kSlots =
    "(define (accumulate n) (let ((acc (make-vector 3 0))) (do ((k 0 (+ k 1))) ((= k n) acc) "
    "(let ((slot (modulo k 3))) (vector-set! acc slot (+ (vector-ref acc slot) (* a k) b)))))) "
    "(define v (accumulate 7)) ";

TEST_P(VectorMutation, ALaterReadSeesTheWrite) {
  EXPECT_EQ(value("(define v (vector 1 2 3)) (vector-set! v 1 20) (+ (vector-ref v 0) (vector-ref v 1))"), 21);
}

TEST_P(VectorMutation, AnAccumulatorVectorHoldsEverySum) {
  const std::vector<SeedValue> seed = {{"a", 1.5}, {"b", -0.5}};
  EXPECT_EQ(value(std::string(kSlots) + "(vector-ref v 0)", seed), 9 * 1.5 + 3 * -0.5);
  EXPECT_EQ(value(std::string(kSlots) + "(vector-ref v 2)", seed), 7 * 1.5 + 2 * -0.5);
}

TEST_P(VectorMutation, TheGradientThroughAnAccumulatorVectorIsExact) {
  const std::string src = std::string(kSlots) + "(* (vector-ref v 0) (vector-ref v 1))";
  const double a = 1.5, b = -0.5, v0 = 9 * a + 3 * b, v1 = 5 * a + 2 * b;
  EXPECT_EQ(grad(src, {{"a", a}, {"b", b}}, "a"), 9 * v1 + 5 * v0);
  EXPECT_EQ(grad(src, {{"a", a}, {"b", b}}, "b"), 3 * v1 + 2 * v0);
}

TEST_P(VectorMutation, AnOverwrittenElementContributesNothing) {
  const std::string src = "(define v (vector x (* x x))) (vector-set! v 0 3) (+ (vector-ref v 0) (vector-ref v 1))";
  EXPECT_EQ(grad(src, {{"x", 2.5}}, "x"), 5);  // d(3 + x^2)/dx: the first version, x, is gone
}

TEST_P(VectorMutation, ACallerSeesTheWriteOfAProcedureItPassedTheVectorTo) {
  EXPECT_EQ(value("(define (bump! v k) (vector-set! v k (+ 1 (vector-ref v k)))) (define w (make-vector 2 5)) "
                  "(bump! w 1) (bump! w 1) (* (vector-ref w 0) (vector-ref w 1))"),
            35);
}

TEST_P(VectorMutation, ACopyOfALiteralCanBeChangedAndTheLiteralStaysAsItWas) {
  EXPECT_EQ(value("(define (f) (let ((v (vector-copy #(1 2)))) (vector-set! v 0 10) (vector-ref v 0))) "
                  "(define (g) (vector-ref #(1 2) 0)) (+ (f) (f) (g))"),
            21);
}

// A literal's mark (Materialise.h) is not part of its length: equal? compares it with a built vector element-wise.
TEST_P(VectorMutation, ALiteralEqualsAVectorBuiltWithTheSameElements) {
  EXPECT_EQ(value("(if (equal? #(1 (2) #(3)) (vector 1 (list 2) (vector 3))) (vector-length '#(1 2 3)) 0)"), 3);
}

TEST_P(VectorMutation, VectorFillBangFillsItsRange) {
  EXPECT_EQ(value("(define v (vector 1 2 3 4)) (vector-fill! v 0 1 3) "
                  "(+ (vector-ref v 0) (* 10 (vector-ref v 1)) (* 100 (vector-ref v 2)) (* 1000 (vector-ref v 3)))"),
            4001);
  EXPECT_EQ(grad("(define v (make-vector 3 1)) (vector-fill! v x) (vector-fill! v 2 2) "
                 "(apply * (vector->list v))",
                 {{"x", 1.5}}, "x"),
            2 * 2 * 1.5);
}

TEST_P(VectorMutation, VectorCopyBangCopiesARangeOverlappingRangesIncluded) {
  const std::string digits = "(define (digits v) (fold-left (lambda (acc x) (+ (* 10 acc) x)) 0 (vector->list v))) ";
  EXPECT_EQ(value(digits + "(define v (vector 1 2 3 4 5)) (vector-copy! v 1 #(6 7 8 9) 0 2) (digits v)"), 16745);
  EXPECT_EQ(value(digits + "(define v (vector 1 2 3 4 5)) (vector-copy! v 1 v 0 2) (digits v)"), 11245);
  EXPECT_EQ(value(digits + "(define v (vector 1 2 3 4 5)) (vector-copy! v 3 v 0 2) (digits v)"), 12312);
  EXPECT_EQ(grad("(define v (make-vector 3 1)) (vector-copy! v 1 (vector x (* x x))) (apply * (vector->list v))",
                 {{"x", 1.5}}, "x"),
            3 * 1.5 * 1.5);
}

TEST_P(VectorMutation, StringsAndVectorsOfCharactersConvert) {
  EXPECT_EQ(
      value("(+ (vector-length (string->vector \"ABC\" 1)) (string-length (vector->string #(#\\1 #\\2 #\\3) 1 2)))"),
      3);
}

TEST_P(VectorMutation, AnInPlaceSortGivesEachParameterTheWeightOfItsPosition) {
  const std::string src =
      "(define (sort! v) (let ((n (vector-length v))) (do ((i 0 (+ i 1))) ((= i n) v) "
      "(do ((j 0 (+ j 1))) ((>= j (- n i 1))) (let ((x (vector-ref v j)) (y (vector-ref v (+ j 1)))) "
      "(when (> x y) (vector-set! v j y) (vector-set! v (+ j 1) x))))))) "
      "(define s (sort! (vector a b c))) (+ (vector-ref s 0) (* 2 (vector-ref s 1)) (* 3 (vector-ref s 2)))";
  const std::vector<SeedValue> seed = {{"a", 3.0}, {"b", -1.0}, {"c", 0.5}};
  EXPECT_EQ(value(src, seed), -1 + 2 * 0.5 + 3 * 3.0);
  EXPECT_EQ(grad(src, seed, "a"), 3);
  EXPECT_EQ(grad(src, seed, "b"), 1);
  EXPECT_EQ(grad(src, seed, "c"), 2);
}

TEST_P(VectorMutation, AnIndexOutOfRangeIsAnErrorAtTheCall) {
  Error e = evalErr("(define v (vector 1 2))\n(begin (vector-set! v 2 0) v)", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::Domain);
  EXPECT_EQ(where(e.pos), "2:8");
  EXPECT_NE(e.message.find("vector-set!: index 2 is out of range for a vector of length 2"), std::string::npos)
      << e.message;
}

TEST_P(VectorMutation, AVectorCopyBangPastTheEndIsAnErrorAtTheCall) {
  Error e = evalErr("(define v (vector 1 2))\n  (vector-copy! v 1 #(7 8))", GetParam());
  EXPECT_EQ(where(e.pos), "2:3");
  EXPECT_NE(e.message.find("end 3 is out of range for a vector of length 2"), std::string::npos) << e.message;
}

TEST_P(VectorMutation, ALiteralVectorIsRefusedAtTheCall) {
  Error e = evalErr("(define v #(1 2))\n  (vector-set! v 0 5)", GetParam());
  EXPECT_EQ(where(e.pos), "2:3");
  EXPECT_NE(e.message.find("the vector is a literal constant"), std::string::npos) << e.message;
}

INSTANTIATE_TEST_SUITE_P(Routes, VectorMutation, test::everyRoute(), test::routeSuffix);

// The replay engine replays the native machine's recorded trace: a vector-set! is data movement at
// recording, so its gradient is the native one on every trip count (each records its own path).
TEST(VectorMutationEngines, ReplayGivesTheNativeGradientOnEveryTripCount) {
  const std::string src =
      "(define (grow x) (let ((s (vector x 0))) (let loop () (when (< (vector-ref s 0) 10) "
      "(vector-set! s 0 (* (vector-ref s 0) 2)) (vector-set! s 1 (+ (vector-ref s 1) 1)) (loop))) "
      "(* (vector-ref s 0) (vector-ref s 1)))) (grow a)";
  test::expectDoublingLoopOnNativeAndReplay(src);
}

}  // namespace
}  // namespace dmci
