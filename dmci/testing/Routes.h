// Test support for suites run on every route (testing/Eval.h PerRoute): the routes and their test-name suffixes,
// and the native-against-replay check of a loop whose trip count the seed decides, which the mutation suites share.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "driver/Engine.h"
#include "testing/Eval.h"

namespace dmci::test {

// INSTANTIATE_TEST_SUITE_P(Routes, Suite, everyRoute(), routeSuffix): direct, dmci, the tower and both lanterns.
inline auto everyRoute() {
  return ::testing::Values(Route::Direct, Route::Dmci, Route::Dmci2, Route::Lantern, Route::LanternDmci);
}

// The route's name without its '-', as a test name's suffix.
inline std::string routeSuffix(const ::testing::TestParamInfo<Route>& info) {
  std::string n = routeName(info.param);
  n.erase(std::remove(n.begin(), n.end(), '-'), n.end());
  return n;
}

// `src` ends in (grow a): a loop that doubles a until it reaches 10, counting the doublings n, and returns the last
// value times n, so d/da = n 2^n. The native and replay engines each give that value and gradient exactly for
// seeds of different trip counts (the replay engine records each path afresh).
inline void expectDoublingLoopOnNativeAndReplay(const std::string& src) {
  auto p = Program::fromText(src, kProgFile);
  ASSERT_TRUE(p) << p.error().str();
  for (const char* name : {"native", "replay"}) {
    auto e = engineNamed(name);
    ASSERT_TRUE(e);
    EvalOptions o;
    o.wrt = {"a"};
    auto run = (*e)->prepare(*p, {"a"}, o);
    ASSERT_TRUE(run) << run.error().message;
    for (double a : {1.3, 0.7, 12.0, 1.4, 3.1}) {
      auto ev = (*run)->run({a});
      ASSERT_TRUE(ev) << ev.error().message;
      int n = 0;
      double x = a;
      while (x < 10) x *= 2, ++n;
      EXPECT_EQ(ev->value, x * n) << name << " a=" << a;
      EXPECT_EQ(gradientOf(*ev, "a"), n * std::ldexp(1.0, n)) << name << " a=" << a;
    }
  }
}

}  // namespace dmci::test
