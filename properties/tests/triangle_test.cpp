// Properties 1 and 2: on generated programs, values and gradients agree three ways (direct, dmci, the oracle).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

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

}  // namespace dmci::props
