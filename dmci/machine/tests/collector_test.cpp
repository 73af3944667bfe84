// The heap collector: runs that collect at almost every call give the same values and gradients, and tail loops through
// mce.scm run in bounded heap.
#include <gtest/gtest.h>

#include "driver/Program.h"

namespace dmci {
namespace {

const char* kPrograms[] = {
    "(define (sum n) (if (= n 0) 0 (+ x (sum (- n 1))))) (sum 300)",
    "(define (loop i acc) (if (= i 0) acc (loop (- i 1) (cons (* x i) acc)))) (apply + (loop 200 '()))",
    "(define (make-adder a) (lambda (b) (+ a b x))) (fold-left (lambda (acc f) (f acc)) 0 (map make-adder '(1 2 3 4)))",
    "(define (even? n) (if (= n 0) x (odd? (- n 1)))) (define (odd? n) (if (= n 0) 0 (even? (- n 1)))) (even? 100)",
    "(define (f . xs) (if (null? xs) 0 (+ (car xs) (apply f (cdr xs))))) (f x 1 2 x 3)",
    "(define k (lambda () x)) (define (g n) (if (= n 0) (k) (* 1.01 (g (- n 1))))) (g 150)",
    "(let loop ((i 0) (v (vec x 1))) (if (= i 50) (vsum v) (loop (+ i 1) (scale 1.01 v))))",
    "(define (build n) (if (= n 0) '() (cons (list n (* n x)) (build (- n 1))))) (cadr (assv 7 (build 40)))",
};

Evaluation run(const char* src, Route r, size_t collectAfter) {
  auto p = Program::fromText(src, "prog.scm");
  EXPECT_TRUE(p) << p.error().str();
  EvalOptions o;
  o.route = r;
  o.wrt = {"x"};
  o.wrtLiterals = true;
  o.collectAfter = collectAfter;
  auto ev = p->evaluate({{"x", 0.75}}, o);
  EXPECT_TRUE(ev) << src << ": " << ev.error().str();
  return ev ? *ev : Evaluation{};
}

TEST(Collector, CollectingAtNearlyEveryCallChangesNothing) {
  for (Route r : {Route::Direct, Route::Dmci}) {
    for (const char* src : kPrograms) {
      Evaluation plain = run(src, r, 0), collected = run(src, r, 8);
      if (r == Route::Dmci) {
        EXPECT_GT(collected.stats.collections, 0u) << src;  // mce.scm allocates at every call
      }
      EXPECT_EQ(plain.value, collected.value) << routeName(r) << " " << src;
      EXPECT_EQ(plain.gradient, collected.gradient) << routeName(r) << " " << src;
    }
  }
}

TEST(Collector, TheTowerSurvivesCollections) {
  Evaluation plain = run(kPrograms[3], Route::Dmci2, 0), collected = run(kPrograms[3], Route::Dmci2, 64);
  EXPECT_GT(collected.stats.collections, 0u);
  EXPECT_EQ(plain.value, collected.value);
  EXPECT_EQ(plain.gradient, collected.gradient);
}

TEST(Collector, AMillionTailCallsThroughMceRunInBoundedHeap) {
  auto p =
      Program::fromText("(define (loop i acc) (if (= i 0) acc (loop (- i 1) (+ acc x)))) (loop 1000000 0)", "prog.scm");
  EvalOptions o;
  o.route = Route::Dmci;
  o.gradient = false;
  o.budget.heapCells = 4'000'000;  // far below the ~40 M cells the run allocates in all
  auto ev = p->evaluate({{"x", 0.5}}, o);
  ASSERT_TRUE(ev) << ev.error().str();
  EXPECT_EQ(ev->value, 500000);
  EXPECT_LE(ev->heapCells, 4'000'000u);
  EXPECT_GE(ev->stats.collections, 3u);
}

}  // namespace
}  // namespace dmci
