// Properties 1 and 2: on generated programs, values and gradients agree three ways (direct, dmci, the oracle).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "properties/Properties.h"

namespace dmci::props {

RC_GTEST_PROP(Triangle, ValuesAgreeThreeWays, ()) {
  Case c = *genCase();
  TriangleOptions opts;
  opts.gradient = false;
  Outcome o = checkTriangle(c, opts);
  RC_TAG(c.family);
  RC_LOG() << describe(c) << "\n" << o.detail << "\n";
  RC_ASSERT(o.ok());
}

RC_GTEST_PROP(Triangle, GradientsAgreeThreeWays, ()) {
  Case c = *genCase();
  Outcome o = checkTriangle(c);
  RC_CLASSIFY(c.tags & kRecursive, "recursive");
  RC_CLASSIFY(c.tags & kHigherOrder, "higher-order");
  RC_CLASSIFY(o.verdict == Verdict::Nondifferentiable, "nondifferentiable");
  RC_LOG() << describe(c) << "\n" << o.detail << "\n";
  RC_ASSERT(o.ok());
}

// dmci fuzz --seed 31337 (case 56917): an ill-conditioned program whose double gradient misses the 100-digit finite
// difference by 1.5e-5 relative, direct and dmci alike; the campaign's triangle passes it by the rounding rule.
Case fuzz56917() {
  Case c;
  c.text =
      "(let f2 ((k2 5) (a2 (log 2 (+ 3 (cos x))))) (if (<= k2 0) a2 (f2 (- k2 1) ((lambda (f) (f (vsum (matvec (mat "
      "(list (sin k2) a2) (list k2 (sin a2))) (vec (sin k2) (sin a2)))))) square))))";
  c.seed = {{"x", -1.3203125}};
  c.wrt = {"x"};
  return c;
}

TEST(Triangle, AnIllConditionedGradientPassesByTheRoundingRule) {
  Outcome o = checkTriangle(fuzz56917());
  EXPECT_EQ(o.verdict, Verdict::Pass) << o.detail;
  EXPECT_TRUE(o.illConditioned);
}

TEST(Triangle, WithoutTheRoundingRuleThatGradientFails) {
  TriangleOptions opts;
  opts.criteria.rounding = 0;
  Outcome o = checkTriangle(fuzz56917(), opts);
  EXPECT_EQ(o.verdict, Verdict::Fail);
  EXPECT_NE(o.detail.find("gradient direct vs fd: d/d x"), std::string::npos) << o.detail;
}

TEST(Triangle, AGradientWrongBeyondTheRoundingSpreadStillFails) {
  plantAdjointFault("sin", 1.01);  // the tape's sin partials 1% off: far beyond the spread
  Outcome o = checkTriangle(fuzz56917());
  clearAdjointFaults();
  EXPECT_EQ(o.verdict, Verdict::Fail);
  EXPECT_NE(o.detail.find("gradient direct vs fd: d/d x"), std::string::npos) << o.detail;
}

}  // namespace dmci::props
