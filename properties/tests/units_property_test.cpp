// Dimensional analysis's linear algebra (search/Units.h) on random integer exponent matrices: the monomial solved
// for a target carries exactly the target's units whenever any monomial does (and is refused exactly when none
// does), and the dimensionless groups are dimensionless, independent and as many as the nullspace is wide.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "search/Units.h"

namespace {

using dmci::search::Rational;
using dmci::search::UnitVectors;

// n inputs' exponent vectors over `dims` base units, each exponent in [-3, 3].
UnitVectors genUnits(size_t n, size_t dims) {
  UnitVectors u(n, std::vector<Rational>(dims));
  for (auto& v : u)
    for (auto& e : v) e = Rational(*rc::gen::inRange<int64_t>(-3, 4));
  return u;
}

std::vector<Rational> combination(const UnitVectors& u, const std::vector<Rational>& p, size_t dims) {
  std::vector<Rational> out(dims);
  for (size_t i = 0; i < u.size(); ++i)
    for (size_t d = 0; d < dims; ++d) out[d] = out[d] + p[i] * u[i][d];
  return out;
}

RC_GTEST_PROP(Units, TheMonomialCarriesExactlyTheTargetsUnits, ()) {
  const auto n = *rc::gen::inRange<size_t>(1, 9);
  const auto dims = *rc::gen::inRange<size_t>(1, 6);
  UnitVectors u = genUnits(n, dims);
  // A reachable target: a combination of the inputs' units with small integer (or half) coefficients.
  std::vector<Rational> c(n);
  for (auto& x : c) x = Rational(*rc::gen::inRange<int64_t>(-4, 5), *rc::gen::element<int64_t>(1, 2));
  std::vector<Rational> target = combination(u, c, dims);
  std::vector<Rational> p;
  RC_ASSERT(dmci::search::solveMonomial(u, target, p));
  RC_ASSERT(combination(u, p, dims) == target);
  // Fewest inputs: never more than the rank.
  size_t used = 0;
  for (const auto& x : p) used += !x.isZero();
  RC_ASSERT(used <= dmci::search::rankOf(u));
}

RC_GTEST_PROP(Units, AMonomialIsRefusedExactlyWhenNoneExists, ()) {
  const auto n = *rc::gen::inRange<size_t>(1, 6);
  const auto dims = *rc::gen::inRange<size_t>(1, 6);
  UnitVectors u = genUnits(n, dims);
  std::vector<Rational> target(dims);
  for (auto& e : target) e = Rational(*rc::gen::inRange<int64_t>(-3, 4));
  UnitVectors with = u;
  with.push_back(target);
  const bool reachable = dmci::search::rankOf(with) == dmci::search::rankOf(u);
  std::vector<Rational> p;
  const bool solved = dmci::search::solveMonomial(u, target, p);
  RC_CLASSIFY(reachable, "reachable");
  RC_ASSERT(solved == reachable);
  if (solved) RC_ASSERT(combination(u, p, dims) == target);
}

RC_GTEST_PROP(Units, TheGroupsAreADimensionlessBasis, ()) {
  const auto n = *rc::gen::inRange<size_t>(1, 9);
  const auto dims = *rc::gen::inRange<size_t>(1, 6);
  UnitVectors u = genUnits(n, dims);
  // Often a repeated input (same units as another), as physics has them (v and c, x1 and x2).
  if (n > 1 && *rc::gen::arbitrary<bool>()) u[n - 1] = u[*rc::gen::inRange<size_t>(0, n - 1)];
  std::vector<bool> scale(n, false);
  auto groups = dmci::search::dimensionlessGroups(u, scale);
  RC_CLASSIFY(groups.empty(), "no group");
  RC_ASSERT(groups.size() == n - dmci::search::rankOf(u));
  UnitVectors asRational;
  for (const auto& g : groups) {
    std::vector<Rational> e(g.begin(), g.end());
    RC_ASSERT(combination(u, e, dims) == std::vector<Rational>(dims));
    asRational.push_back(e);
  }
  RC_ASSERT(dmci::search::rankOf(asRational) == groups.size());
}

}  // namespace
