// The gradient-correctness gate: every (program, seed) pair of the corpus through the triangle.
//
// For each pair the gate runs the program by the direct route (the reference
// engine), by each interpreted route the manifest asks for (dmci, dmci2), and
// through the multiprecision finite-difference oracle, then compares:
//   value     every route = direct = oracle value          (criteria.value)
//   AD        each interpreted route's gradient vs direct   (criteria.ad)
//   FD        direct's and each route's gradient vs the FD  (criteria.fd)
//   closed    the manifest's closed forms vs every gradient  (criteria.closedForm)
//   lanes     for a pair with "lanes": the lanes run as one batch by each route vs each lane alone,
//             value and gradient                            (criteria.batched; 0: bit for bit)
//   smooth    at a nondifferentiable seed: the si gradient vs a pgo reference (SmoothCheck; informs, never fails)
//   lantern   with GateOptions::lantern, every pair also by the lantern route (reverse mode by shift/reset,
//             no tape): its gradient vs direct (criteria.ad) and vs the FD (criteria.fd), in rows of their
//             own; where some routes disagree with the FD and others agree, a reason names both sides
// Gradients are compared by key; the key sets must match exactly. Relative
// error is |a - b| / max(|b|, criteria.floor), b the reference. A seed the
// oracle finds nondifferentiable is counted as such, not failed (its engine
// values and AD gradients must still agree); a status other than the
// manifest's "expect" is a failure.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "driver/Engine.h"
#include "oracle/Oracle.h"
#include "oracle/Verdict.h"
#include "oracle/gate/Manifest.h"

namespace dmci::gate {

// The pass criteria (VERIFY.md's defaults; `dmci check` flags override them).
struct Criteria {
  double value = 1e-12;      // values: every route, direct and the oracle
  double ad = 1e-10;         // gradients: an interpreted route vs direct
  double fd = 1e-6;          // gradients: an engine vs the finite difference
  double closedForm = 1e-8;  // closed-form components and values (an exact 0 met as 5e-17 is 5e-9 at the 1e-8 floor)
  double floor = 1e-8;       // relative error's denominator is max(|reference|, floor)
  // A value that misses the oracle's by more than `value` still agrees when the miss is at most `rounding`
  // times the oracle's rounding spread (oracle::roundingSpread, `roundingSamples` runs): the program is
  // ill-conditioned, and a double evaluation cannot do better. Likewise a gradient component that misses the
  // finite difference by more than `fd`, against that component's spread (oracle::gradientRoundingSpread).
  // 0 turns this off.
  double rounding = 8;
  int roundingSamples = 4;
  // Lanes: batched vs each lane alone. The native engine promises bit-for-bit equality (0); an engine whose
  // kernels may round a batch differently from one lane (LibTorch's vectorised ones) is held to `value`.
  double batched = 0;
};

using Gradient = std::vector<std::pair<std::string, double>>;

// One engine route's result for a pair.
struct RouteRun {
  Route route = Route::Direct;
  bool ok = false;
  std::string error;  // when not ok
  double value = 0;
  Gradient gradient;
  double seconds = 0;
};

// The oracle's result for a pair.
struct OracleRun {
  bool ok = false;
  std::string error;
  double value = 0;
  Gradient gradient;
  bool differentiable = true;
  std::string reason;  // when not differentiable
  // How far rounding to double can move the value (absolute); computed only when an engine's value
  // misses the oracle's by more than the criteria's `value`.
  std::optional<double> roundingSpread;
  // How far rounding to double can move each gradient component (absolute, keyed as `gradient`); computed only
  // at a smooth seed where an engine's gradient misses the finite difference by more than the criteria's `fd`.
  std::optional<Gradient> gradientRoundingSpread;
  double seconds = 0;
};

// An interpreted route's largest relative gradient errors.
struct RouteErrors {
  Route route = Route::Dmci;
  std::optional<double> vsDirect;
  std::optional<double> vsFd;
};

// The largest relative error of each comparison (absent when not made).
struct PairErrors {
  std::optional<double> value;
  std::optional<double> dmciVsDirect;  // the worst interpreted route (dmci, dmci2), lantern's apart
  std::optional<double> directVsFd;
  std::optional<double> dmciVsFd;  // the worst interpreted route
  std::optional<double> closedForm;
  std::optional<double> batchedVsAlone;   // lanes: the worst lane, route and component
  std::optional<double> lanternVsDirect;  // the continuation-based reverse mode (lantern, lantern-dmci)
  std::optional<double> lanternVsFd;
  std::vector<RouteErrors> byRoute;
};

// The smooth row, at a seed the oracle finds nondifferentiable: the si gradient of the smoothed program
// (smooth/Smooth.h, with --smooth-dea: each width s |grad d|) over the pair's named parameters against a pgo
// reference of kSmoothSamples runs, each component within 4 of the reference's standard errors or not. It informs
// and never fails a pair: si is the exact smoothing only where each smoothed distance is linear in the parameters
// with a gradient dea derives, and the arms do not move; elsewhere (a distance through a local variable, a kink fed
// by a kink) it is expected to differ.
struct SmoothCheck {
  static constexpr double kSigma = 0.1;
  static constexpr int64_t kSamples = 20000;
  std::string skipped;  // why it was not run (no named parameter, a run failed); empty when it was
  Gradient si, reference, referenceError;
  int smoothed = 0;     // comparisons si smoothed
  double worstZ = 0;    // the largest |si - reference| / standard error over the components
  bool agrees = false;  // every component within 4 standard errors
};

struct PairResult {
  GatePair pair;
  Verdict status = Verdict::Fail;
  std::vector<std::string> reasons;  // why it failed: comparison, key and numbers
  std::vector<std::string> notes;    // what passed only by a rule worth knowing (within the rounding spread)
  // Why the lantern route was not run: the primitives the program names that lantern.scm does not cover.
  std::string lanternUncovered;
  std::vector<RouteRun> routes;  // direct first
  OracleRun oracle;
  PairErrors errors;
  size_t lanes = 0;                   // lanes run batched (and alone) per route; 0 for a pair without "lanes"
  std::optional<SmoothCheck> smooth;  // at a nondifferentiable seed
  double seconds = 0;
};

struct GateOptions {
  Criteria criteria;
  int jobs = 1;
  oracle::FdOptions fd;
  Budget budget;  // for each engine run
  // The engine that runs the routes and the lanes (values, gradients, lanes batched and alone); null: the
  // native engine.
  Engine* engine = nullptr;
  // Also runs every pair by the lantern route (lantern/Lantern.h), the fourth corner: a tape-free gradient.
  bool lantern = false;
  // Threads one engine run may use (EvalOptions::threads) and the tensor engine's device and precision.
  int threads = 0;
  TensorSettings tensor;
  // Called (serialised) as each pair finishes: pairs done, pairs in all, the pair's name.
  std::function<void(size_t, size_t, const std::string&)> progress;
};

struct GateRun {
  std::string dir;
  Criteria criteria;
  int jobs = 1;
  std::vector<PairResult> results;  // in manifest order
  double seconds = 0;               // wall time of the whole run
};

// |a - b| / max(|b|, floor); 0 when equal (or both NaN), infinite when only one is finite.
double relativeError(double a, double b, double floor);

// The pairs whose name matches `filter`: a regular expression (searched), or,
// when it does not parse as one, a substring. An empty filter keeps all.
std::vector<GatePair> selectPairs(const std::vector<GatePair>& pairs, const std::string& filter);

// Lanes batched against each lane alone (the gate's `lanes` rows and the lane property use this one comparison):
// value and every gradient component of each lane within `tol` relative (0: bit for bit); `alone(k)` runs lane
// k by itself. Reasons name the lane and its parameter values, at most 3 failing lanes; `worst` is the largest
// relative error (infinite when a run fails on one side only).
struct LaneComparison {
  double worst = 0;
  size_t lanesCompared = 0;
  std::vector<std::string> reasons;
  bool ok() const { return reasons.empty(); }
};
LaneComparison compareLanes(const std::string& label, const LaneBatch& lanes, const Result<LaneEvaluation>& batch,
                            const std::function<Result<Evaluation>(size_t)>& alone, double tol, double floor);

// The smooth row for a pair at `program`'s seed (see SmoothCheck), on the gate's engine, direct route.
SmoothCheck smoothCheck(const Program& program, const GatePair& pair, const GateOptions& opts);

// Runs one pair through the triangle; `dir` is the corpus directory.
PairResult checkPair(const std::string& dir, const GatePair& pair, const GateOptions& opts);

// Runs the pairs on `opts.jobs` threads.
GateRun runGate(const std::string& dir, const std::vector<GatePair>& pairs, const GateOptions& opts);

// True when no pair failed (a failure includes a status other than the expected one).
bool gatePassed(const GateRun& run);

}  // namespace dmci::gate
