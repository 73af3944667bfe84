// The properties of VERIFY.md as plain functions, shared by the RapidCheck tests and `dmci fuzz`.
//
// Each check returns a Verdict and, when it fails, a detail naming the
// comparison and the numbers. A generated program that fails to run is a
// failure: the generators promise well-formed, terminating programs. A seed
// where the oracle finds the program nondifferentiable is a verdict of its
// own, counted by campaigns and not failed (engine values and AD gradients must
// still agree there).
#pragma once
#include <string>

#include "oracle/Oracle.h"
#include "oracle/gate/Gate.h"
#include "properties/Generators.h"

namespace dmci::props {

struct Outcome {
  Verdict verdict = Verdict::Pass;
  std::string detail;           // why it failed, or why the seed is not differentiable
  bool illConditioned = false;  // a value or gradient passed only within the oracle's rounding spread
  bool ok() const { return verdict != Verdict::Fail; }
};

struct TriangleOptions {
  gate::Criteria criteria;  // VERIFY.md's tolerances
  bool dmci = true;         // also run through mce.scm (and compare to direct)
  bool gradient = true;     // gradients too, not only values
  Budget budget{20'000'000, 8'000'000, 10.0};
};

// Values agree three ways (direct = dmci = oracle), and gradients (dmci = direct, both = finite differences),
// by the gate's criteria: a program that cancels or iterates a map may miss the oracle's value by more than
// 1e-12, or its finite difference by more than 1e-6, and passes when the miss is within the oracle's rounding
// spread of the value or of that gradient component (gate::Criteria::rounding).
Outcome checkTriangle(const Case& c, const TriangleOptions& opts = {});

// Printing a datum and reading it back gives an equal datum.
Outcome checkPrintRead(const DatumPtr& d);

// The program's expanded core, printed and read back as a program, has the same value by the direct route.
Outcome checkExpandKeepsMeaning(const Case& c);

// Lanes (in TensorLanes.cpp; the tensor engine comes from the registry): the case's seed varied over `lanes` lanes
// (lane 0 the seed itself, the others moved both ways, so lanes part at branches and recursion depths), run
// by the native engine's parallel lanes and by the tensor engine's batch, and each lane alone. Batched native
// = alone, bit for bit. Tensor = native within 1e-12 relative (a gradient component that cancels: of the
// largest, never of less than the gate's floor 1e-8); beyond that only where the program is ill-conditioned
// at the lane (then `illConditioned`): a value within the oracle's rounding spread; a gradient component
// where both engines are within the gate's finite-difference tolerance (1e-6) of the oracle's 100-digit
// finite difference and within 1e-8 (of the scale) of each other. A lane that fails alone must fail both
// batches.
struct LaneOptions {
  int lanes = 8;
  Route route = Route::Direct;
  std::string device = "cpu";
  int threads = 2;  // the native engine's lanes
  Budget budget{20'000'000, 8'000'000, 10.0};
};
Outcome checkLanes(const Case& c, const LaneOptions& opts = {});
// The lanes checkLanes runs a case on: parameter name -> one value per lane, lane 0 the seed itself (what
// `dmci fuzz --save` writes as a lane failure's manifest "lanes").
std::vector<std::pair<std::string, std::vector<double>>> caseLanes(const Case& c, int lanes = LaneOptions{}.lanes);

// Arbitrary text run under small budgets: a clean error, or a number the routes and the oracle agree on.
// It never throws; a crash or hang is the caller's to see.
Outcome checkBadInput(const std::string& text);

}  // namespace dmci::props
