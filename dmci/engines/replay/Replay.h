// Replays a recorded trace forward and in reverse: for one lane, or for a block of lanes at a time.
//
// A block is structure-of-arrays: every slot (and every constant, broadcast) holds kBlock lanes side by side,
// so each operation is one tight loop over the lanes, which the compiler vectorises (the loops are built for
// AVX2 and for the baseline, chosen when the program starts). The forward sweep computes every slot; then
// every guard is checked for every lane; the reverse sweep seeds the output's adjoint with 1 and runs the
// operations backwards with the native rules' partials, in the native tape's order, so that a replayed value
// and gradient equal the native engine's bit for bit. A lane whose guard fails, or whose Step raised an error,
// is reported as off the path: it never gets a replayed number.
//
// A trace with tensor steps is not replayed here: every lane of it is reported off the path (the replay engine
// does not build such a trace's replayer to run it: the compiled engine runs it, or the native machine does).
//
// A Replayer is read-only once built, so threads share it; each thread owns a Workspace. No allocation per run.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/Runtime.h"
#include "trace/Trace.h"

namespace dmci::replay {

inline constexpr int kBlock = 256;

// A lane's verdict after a block's replay: on the path (1), off it by a Step's error or for no known guard (0),
// or off it first at guard g (2 + g, for g < 253; 255 past that). The guard is the hint by which the engine sends
// the lane on to a trace that agrees with this one up to that guard and differs there.
inline constexpr uint8_t kOnPath = 1;
inline uint8_t failedAtGuard(size_t g) { return static_cast<uint8_t>(g < 253 ? 2 + g : 255); }
// The first guard the lane failed, or -1 when unknown.
inline int failedGuard(uint8_t verdict) { return verdict >= 2 && verdict < 255 ? verdict - 2 : -1; }

// One thread's buffers: the block's slots and constants, their adjoints, and a scratch runtime for the native
// rules that Step operations and guards call.
struct Workspace {
  std::vector<double> val, adj;     // a block: (constants + slots) x kBlock, slots x kBlock
  std::vector<double> one, oneAdj;  // one lane: the same rows, one number each
  std::vector<uint8_t> ok;
  std::vector<Value> args;
  Runtime rt;
  // The Replayer whose constants the buffers hold: the block's (val, adj, ok) and the one lane's (one, oneAdj),
  // prepared apart, so that a single lane never pays for a block's buffers.
  const void* owner = nullptr;
  const void* oneOwner = nullptr;
};

class Replayer {
 public:
  // `gradient`: for each gradient key, the leaves whose adjoints it sums (Evaluator::gradientLeaves); empty:
  // value only.
  Replayer(Trace trace, std::vector<std::vector<int32_t>> gradient, bool wantGradient);
  const Trace& trace() const { return t_; }
  size_t gradientSize() const { return grad_.size(); }

  // One lane: the parameters' values; writes the value and gradient. False when the lane is off the path.
  bool runOne(const double* params, double& value, double* gradient, Workspace& ws) const;
  // Lanes [from, from + n), n <= kBlock, read and written where they lie (strided: a row-major B x p matrix is
  // read in place): parameter p of lane l at params[p][l * paramStride]; writes value[l] and
  // gradient[key][l * gradientStride] of the lanes on the path (no gradient when `gradient` is null), and
  // ok[l - from], the lane's verdict (kOnPath, or which guard it failed first).
  void runBlock(const double* const* params, size_t paramStride, size_t from, int n, double* value,
                double* const* gradient, size_t gradientStride, uint8_t* ok, Workspace& ws) const;
  void prepare(Workspace& ws) const;     // the block's buffers
  void prepareOne(Workspace& ws) const;  // the one lane's

 private:
  Trace t_;
  std::vector<std::vector<int32_t>> grad_;
  bool wantGradient_;
  bool planted_;  // a planted adjoint fault, decided when the replayer is built (prims/Faults.h)
  int32_t nconst_;
  // The operands' rows in a workspace's buffer: constants first, then slots.
  int32_t row(Ref r) const { return isConst(r) ? constIndex(r) : nconst_ + r; }

  // Lane l of buffers whose rows hold `stride` lanes.
  // ws.args <- the arguments args[first, first + argc) with lane l's numbers in place of their slots.
  void laneArgs(int32_t first, int32_t argc, const double* v, int stride, int l, Workspace& ws) const;
  bool stepLane(const Op& op, const double* v, int stride, int l, double& out, Workspace& ws) const;
  bool guardLane(const Guard& g, const double* v, int stride, int l, Workspace& ws) const;
  bool compareRows(const Guard& g, const double* v, int stride, int n, uint8_t* ok, uint8_t failed) const;
  void forward(double* v, int stride, int n, uint8_t* ok, Workspace& ws) const;
  void reverse(const double* v, double* a, int stride, int n) const;
};

}  // namespace dmci::replay
