// Test support: runs a program text (named "prog.scm") by one route and returns its evaluation or its error.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "driver/Program.h"
#include "syntax/Error.h"
#include "syntax/SrcPos.h"

namespace dmci {

// Names a route in GoogleTest's parameter printouts.
inline void PrintTo(Route r, std::ostream* os) { *os << routeName(r); }

}  // namespace dmci

namespace dmci::test {

inline const char* const kProgFile = "prog.scm";

// Reads, expands and runs `src`; an error at any stage is returned as the Result's error.
inline Result<Evaluation> evaluate(const std::string& src, const EvalOptions& opts,
                                   const std::vector<SeedValue>& seed = {}) {
  auto p = Program::fromText(src, kProgFile);
  if (!p) return p.error();
  return p->evaluate(seed, opts);
}

// The options for one route: gradient with respect to `wrt` and, on request, every literal.
inline EvalOptions options(Route r, std::vector<std::string> wrt = {}, bool wrtLiterals = false, Budget budget = {}) {
  EvalOptions o;
  o.route = r;
  o.gradient = true;
  o.wrt = std::move(wrt);
  o.wrtLiterals = wrtLiterals;
  o.budget = budget;
  return o;
}

// The evaluation of a program that must succeed (the test fails with the error text otherwise).
inline Evaluation evalOk(const std::string& src, Route r, std::vector<SeedValue> seed = {},
                         std::vector<std::string> wrt = {}, bool wrtLiterals = false) {
  auto ev = evaluate(src, options(r, std::move(wrt), wrtLiterals), seed);
  if (!ev) {
    ADD_FAILURE() << "[" << routeName(r) << "] " << src << "\n  failed: " << ev.error().str();
    return {};
  }
  return std::move(*ev);
}

// The error of a program that must fail (the test fails with the value otherwise).
inline Error evalErr(const std::string& src, Route r, std::vector<SeedValue> seed = {}, Budget budget = {}) {
  auto ev = evaluate(src, options(r, {}, false, budget), seed);
  if (ev) {
    ADD_FAILURE() << "[" << routeName(r) << "] " << src << "\n  succeeded with value " << ev->value;
    return {};
  }
  return ev.error();
}

// The gradient component named `key` (a parameter name or "file:line:col"); NaN when absent.
inline double gradientOf(const Evaluation& ev, const std::string& key) {
  for (const auto& [k, v] : ev.gradient)
    if (k == key) return v;
  return std::nan("");
}

// "line:col" of an error, with the file name when it is not the program's.
inline std::string where(const SrcPos& p) {
  if (!p.known()) return "<unknown>";
  std::string lc = std::to_string(p.line) + ":" + std::to_string(p.col);
  return fileName(p.file) == kProgFile ? lc : fileName(p.file) + ":" + lc;
}

// True when a and b agree to a relative tolerance (exact equality for zeros and non-finite values).
inline bool close(double a, double b, double rel = 1e-12) {
  if (a == b) return true;
  if (!std::isfinite(a) || !std::isfinite(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

// Runs a program by one route with the parameter `a` bound; its value and d/da (NaN when it fails, a failure added).
inline std::pair<double, double> valueAndDa(const std::string& src, Route route, double a = 0) {
  auto p = Program::fromText(src, "prog.scm");
  if (!p) {
    ADD_FAILURE() << src << ": " << p.error().str();
    return {NAN, NAN};
  }
  EvalOptions opts;
  opts.route = route;
  opts.wrt = {"a"};
  auto ev = p->evaluate({{"a", a}}, opts);
  if (!ev) {
    ADD_FAILURE() << "[" << routeName(route) << "] " << src << ": " << ev.error().str();
    return {NAN, NAN};
  }
  return {ev->value, ev->gradient.empty() ? NAN : ev->gradient[0].second};
}

// A suite run once per route (TEST_P): a program's value, and one gradient component, on the route.
class PerRoute : public ::testing::TestWithParam<Route> {
 protected:
  double value(const std::string& src, std::vector<SeedValue> seed = {}) {
    return evalOk(src, GetParam(), std::move(seed)).value;
  }
  double grad(const std::string& src, std::vector<SeedValue> seed, const std::string& name) {
    return gradientOf(evalOk(src, GetParam(), std::move(seed), {name}), name);
  }
};

}  // namespace dmci::test
