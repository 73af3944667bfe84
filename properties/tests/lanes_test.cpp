// Properties 3 and 4: batched = one lane at a time, and the tensor engine = the native engine, on generated
// programs whose seed is varied over 8 lanes (so lanes part at branches and recursion depths).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "properties/Properties.h"

namespace dmci::props {

RC_GTEST_PROP(Lanes, BatchedEqualsAloneAndTensorEqualsNativeDirect, ()) {
  Case c = *genCase();
  Outcome o = checkLanes(c);
  RC_TAG(c.family);
  RC_LOG() << describe(c) << "\n" << o.detail << "\n";
  RC_ASSERT(o.ok());
}

RC_GTEST_PROP(Lanes, BatchedEqualsAloneAndTensorEqualsNativeThroughDmci, ()) {
  Case c = *genCase(3);
  LaneOptions opts;
  opts.route = Route::Dmci;
  opts.lanes = 5;
  Outcome o = checkLanes(c, opts);
  RC_LOG() << describe(c) << "\n" << o.detail << "\n";
  RC_ASSERT(o.ok());
}

// Found by the dmci-route property (shrunk to the program `1`): with no parameters, the native engine's lanes
// ran one lane, whatever the batch's lane count, and the others were read past the end of its results.
TEST(Lanes, WithNoParametersEveryLaneRuns) {
  Case c;
  c.text = "1";
  c.wrtLiterals = true;
  for (Route r : {Route::Direct, Route::Dmci}) {
    LaneOptions opts;
    opts.route = r;
    opts.lanes = 5;
    Outcome o = checkLanes(c, opts);
    EXPECT_TRUE(o.ok()) << o.detail;
  }
}

// Found by `dmci fuzz --seed 20261201` (case 3881): an iterated cos whose gradient cancels. At lane 3 both
// engines miss the 100-digit finite difference by ~3e-12 (in opposite directions), so they differ by 5.6e-12
// relative: ill-conditioned, not a wrong rule, and the property says so instead of failing. (The same case
// after the next campaign's shrinking: native 8.5e-11 off, LibTorch 1.1e-11, so "within a few times the
// better engine's error" was too tight a rule; both within the gate's FD tolerance is the gate's own.)
TEST(Lanes, AnIllConditionedGradientPassesWhenBothEnginesAreRight) {
  Case c;
  c.text =
      R"((let f2 ((k2 5) (a2 (- y -0.75))) (if (<= k2 0) a2 (f2 (- k2 1) (cos (dot (vec 2 (letrec ((f4 (lambda (k4) (if (<= k4 0) '() (cons k4 (f4 (- k4 1))))))) (fold-left + 0 (f4 3)))) (vec (cos (* (length (append (list 1) (list x))) (car (reverse (list 1 x))))) (tanh (* (length (append (list 1) (list (atan a2)))) (car (reverse (list 1 (atan a2)))))))))))))";
  c.seed = {{"x", 0.5078125}, {"y", -1.7578125}};
  c.wrt = {"x", "y"};
  c.wrtLiterals = true;
  Outcome o = checkLanes(c);
  EXPECT_TRUE(o.ok()) << o.detail;
  EXPECT_TRUE(o.illConditioned);
  c.text =
      R"((let f2 ((k2 5) (a2 (- y y))) (if (<= k2 0) a2 (f2 (- k2 1) (* (exp (sin (ref (+ (vec -2.5 a2) (vec 1 -2.5)) 1))) (cos (dot (vec y (letrec ((f4 (lambda (k4) (if (<= k4 0) '() (cons k4 (f4 (- k4 1))))))) (fold-left + 0 (f4 3)))) (vec (cos (* (length (append (list 1) (list (sin x)))) (car (reverse (list 1 (sin x)))))) (tanh (* (length (append (list 1) (list (atan a2)))) (car (reverse (list 1 (atan a2))))))))))))))";
  c.seed = {{"x", -0.9609375}, {"y", -1.1796875}};
  o = checkLanes(c);
  EXPECT_TRUE(o.ok()) << o.detail;
  EXPECT_TRUE(o.illConditioned);
}

// Lanes on both sides of a branch agree.
TEST(Lanes, LanesPartingAtABranchAgree) {
  Case c;
  c.text = "(if (< x 1) (* x x) (- x))";
  c.seed = {{"x", 0.95}};
  c.wrt = {"x"};
  Outcome o = checkLanes(c);
  EXPECT_TRUE(o.ok()) << o.detail;
}

// The property can fail: with the native engine's sin adjoint off by 1.5 (LibTorch's autograd is untouched),
// the tensor engine's gradient no longer equals the native one.
TEST(Lanes, APlantedAdjointFaultIsCaught) {
  Case c;
  c.text = "(sin (* 2 x))";
  c.seed = {{"x", 0.3}};
  c.wrt = {"x"};
  plantAdjointFault("sin", 1.5);
  Outcome o = checkLanes(c);
  clearAdjointFaults();
  EXPECT_FALSE(o.ok());
  EXPECT_NE(o.detail.find("tensor d/d x"), std::string::npos) << o.detail;
}

}  // namespace dmci::props
