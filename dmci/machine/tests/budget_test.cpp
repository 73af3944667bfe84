// Budgets stop runaway programs cleanly: the wall-time budget, by both routes, with the loop's position.
#include <gtest/gtest.h>

#include <chrono>

#include "driver/Program.h"

namespace dmci {
namespace {

TEST(Budget, AnEndlessLoopStopsAtTheTimeBudget) {
  for (Route r : {Route::Direct, Route::Dmci}) {
    auto p = Program::fromText("(define (spin i) (spin (+ i 1)))\n(spin 0)", "prog.scm");
    ASSERT_TRUE(p);
    EvalOptions o;
    o.route = r;
    o.budget.steps = UINT64_MAX;  // only the clock can stop it
    o.budget.seconds = 0.2;
    auto t0 = std::chrono::steady_clock::now();
    auto ev = p->evaluate({}, o);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_FALSE(ev) << routeName(r);
    EXPECT_EQ(ev.error().kind, ErrorKind::Budget) << routeName(r);
    EXPECT_NE(ev.error().message.find("time budget"), std::string::npos) << ev.error().str();
    EXPECT_EQ(ev.error().pos.line, 1u) << ev.error().str();  // inside spin, the user's code
    EXPECT_LT(took, 5.0) << routeName(r);
  }
}

}  // namespace
}  // namespace dmci
