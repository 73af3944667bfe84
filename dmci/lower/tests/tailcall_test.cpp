// Tail calls run in constant frame space; non-tail recursion is bounded by the heap budget, not the C++ stack.
#include <gtest/gtest.h>

#include <string>

#include "testing/Eval.h"

namespace dmci {
namespace {

using test::evalOk;
using test::evaluate;
using test::options;

const char* const kTailLoop = "(define (loop i acc) (if (= i 0) acc (loop (- i 1) (+ acc 1))))\n";
const char* const kMutualTail =
    "(define (ev? n) (if (= n 0) 1 (od? (- n 1))))\n"
    "(define (od? n) (if (= n 0) 0 (ev? (- n 1))))\n";
const char* const kDeep = "(define (depth n) (if (= n 0) 0 (+ 1 (depth (- n 1)))))\n";

std::string call(const char* defs, const std::string& expr) { return std::string(defs) + expr; }

TEST(TailCalls, AMillionIterationTailLoopRunsInConstantFrames) {
  auto ev = evalOk(call(kTailLoop, "(loop 1000000 0)"), Route::Direct);
  EXPECT_EQ(ev.value, 1e6);
  EXPECT_GE(ev.stats.calls, 1000000u);
  EXPECT_LE(ev.stats.maxFrames, 4u);
}

TEST(TailCalls, AMillionStepMutualTailRecursionRunsInConstantFrames) {
  auto ev = evalOk(call(kMutualTail, "(+ (ev? 1000000) (* 10 (ev? 999999)))"), Route::Direct);
  EXPECT_EQ(ev.value, 1);
  EXPECT_GE(ev.stats.calls, 1999999u);
  EXPECT_LE(ev.stats.maxFrames, 4u);
}

TEST(TailCalls, NamedLetLoopRunsInConstantFrames) {
  auto ev = evalOk("(let lp ((i 0) (s 0)) (if (= i 1000000) s (lp (+ i 1) (+ s 2))))", Route::Direct);
  EXPECT_EQ(ev.value, 2e6);
  EXPECT_LE(ev.stats.maxFrames, 4u);
}

TEST(TailCalls, LastExpressionsOfCondAndOrAreTailPositions) {
  auto ev = evalOk(
      "(define (f n) (cond ((= n 0) 7) ((> n 0) (and #t (or #f (f (- n 1)))))))\n"
      "(f 1000000)",
      Route::Direct);
  EXPECT_EQ(ev.value, 7);
  EXPECT_LE(ev.stats.maxFrames, 4u);
}

TEST(TailCalls, CaseAndWhenBodiesAreTailPositions) {
  auto ev = evalOk(
      "(define (f n) (case (if (= n 0) 'done 'more) ((done) 7) (else (when #t (f (- n 1))))))\n"
      "(f 1000000)",
      Route::Direct);
  EXPECT_EQ(ev.value, 7);
  EXPECT_LE(ev.stats.maxFrames, 4u);
}

TEST(TailCalls, ApplyInTailPositionIsATailCall) {
  auto ev = evalOk("(define (f n) (if (= n 0) 7 (apply f (list (- n 1)))))\n(f 1000000)", Route::Direct);
  EXPECT_EQ(ev.value, 7);
  EXPECT_LE(ev.stats.maxFrames, 4u);
}

TEST(DeepRecursion, DepthOneHundredThousandCompletesUnderTheDefaultBudget) {
  auto ev = evalOk(call(kDeep, "(depth 100000)"), Route::Direct);
  EXPECT_EQ(ev.value, 1e5);
  EXPECT_GE(ev.stats.maxFrames, 100000u);
}

TEST(DeepRecursion, DepthOneHundredThousandExhaustsASmallHeapBudgetCleanly) {
  Budget small;
  small.heapCells = 100000;
  auto ev = evaluate(call(kDeep, "(depth 100000)"), options(Route::Direct, {}, false, small));
  ASSERT_FALSE(ev.ok());
  EXPECT_EQ(ev.error().kind, ErrorKind::Budget) << ev.error().str();
  EXPECT_EQ(fileName(ev.error().pos.file), "prog.scm") << ev.error().str();
}

TEST(DeepRecursion, DmciExhaustsASmallHeapBudgetCleanly) {
  Budget small;
  small.heapCells = 100000;
  auto ev = evaluate(call(kDeep, "(depth 100000)"), options(Route::Dmci, {}, false, small));
  ASSERT_FALSE(ev.ok());
  EXPECT_EQ(ev.error().kind, ErrorKind::Budget) << ev.error().str();
  EXPECT_EQ(fileName(ev.error().pos.file), "prog.scm") << ev.error().str();
}

TEST(DmciTailCalls, TenThousandStepTailRecursionAgreesWithDirect) {
  std::string src = call(kTailLoop, "(loop 10000 x)");
  auto direct = evalOk(src, Route::Direct, {{"x", 0.5}}, {"x"});
  auto dmci = evalOk(src, Route::Dmci, {{"x", 0.5}}, {"x"});
  EXPECT_EQ(dmci.value, 10000.5);
  EXPECT_EQ(dmci.value, direct.value);
  EXPECT_EQ(dmci.gradient, direct.gradient);
}

TEST(DmciTailCalls, FramesDoNotGrowWithTheIterationCount) {
  auto small = evalOk(call(kTailLoop, "(loop 100 0)"), Route::Dmci);
  auto large = evalOk(call(kTailLoop, "(loop 10000 0)"), Route::Dmci);
  EXPECT_EQ(small.stats.maxFrames, large.stats.maxFrames);
  EXPECT_LE(large.stats.maxFrames, 16u);
}

TEST(DmciTailCalls, MutualTailRecursionRunsInConstantFrames) {
  auto small = evalOk(call(kMutualTail, "(ev? 100)"), Route::Dmci);
  auto large = evalOk(call(kMutualTail, "(ev? 10000)"), Route::Dmci);
  EXPECT_EQ(large.value, 1);
  EXPECT_EQ(small.stats.maxFrames, large.stats.maxFrames);
}

TEST(DmciDeepRecursion, DepthOneThousandThroughDefineAgreesWithDirect) {
  std::string src = "(define (pw n) (if (= n 0) 1 (* x (pw (- n 1)))))\n(pw 1000)";
  auto direct = evalOk(src, Route::Direct, {{"x", 1.001}}, {"x"});
  auto dmci = evalOk(src, Route::Dmci, {{"x", 1.001}}, {"x"});
  EXPECT_EQ(dmci.value, direct.value);
  EXPECT_EQ(dmci.gradient, direct.gradient);
  EXPECT_GE(dmci.stats.maxFrames, 1000u);
}

}  // namespace
}  // namespace dmci
