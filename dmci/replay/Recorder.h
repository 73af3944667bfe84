// Records a trace (replay/Trace.h) while the native machine runs one seed.
//
// The machine reports every primitive it applies (engine/TraceSink.h). A primitive whose arguments depend on
// no leaf leaves nothing: its result is a constant of the trace. One whose arguments do:
//   + - * /               become binary operations, folded left exactly as the native rule folds them;
//   elementary functions  become operations on their rule (prims/ScalarRule.h), floor and the other
//                         piecewise-constant ones included (a value with no partial);
//   min, max              become a guard on which argument they select (the result is that argument);
//   a test (<, zero?, eqv?, integer?, ...)  becomes a guard on its outcome;
//   any other number      (quotient, ...) becomes a Step on the native rule, with no partial.
// List, closure and control work leaves nothing. Anything the trace cannot replay (a tensor operation on a
// dependent value, a search through lists of dependent numbers, a dependent non-numeric value) marks the trace
// not replayable, with the reason, and recording stops there.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/Runtime.h"
#include "engine/TraceSink.h"
#include "replay/Trace.h"

namespace dmci::replay {

class Recorder final : public TraceSink {
 public:
  // Slots [0, leaves) of rt's tape are the leaves; their names and values are filled in by the caller.
  Recorder(Runtime& rt, Trace& trace, int32_t leaves, int32_t params);
  void applied(int prim, const Value* args, int argc, Value& result) override;
  // The run's value: the trace's output, or why it cannot be one.
  void finish(const Value& out);
  const Trace& trace() const { return t_; }

 private:
  Runtime& rt_;
  Trace& t_;
  std::vector<int32_t> slotOf_;  // a native tape slot -> its trace slot (-1: not known to the trace)
  std::unordered_map<uint64_t, int32_t> constOf_;

  void fail(const std::string& why);
  bool dependent(const Value& v) const { return v.tag == Tag::Real && v.i >= 0; }
  Ref ref(const Value& v);
  Ref constant(double x);
  int32_t newSlot(int32_t nativeSlot);
  // A Step's or a guard's arguments, as Trace::args holds them; false when one points into the heap.
  bool pushArgs(const Value* args, int argc);
  bool listsHoldDependent(const Value* args, int argc) const;
  void arithmetic(int prim, const Value* args, int argc, const Value& result);
  void select(int prim, const Value* args, int argc, const Value& result);
  void rule(int prim, const Value* args, int argc, Value& result);
  void generic(int prim, const Value* args, int argc, Value& result);
};

// min (isMax false) or max over xs[0..n): the index the native rule selects (a NaN wins, ties keep the leftmost).
inline int selectedIndex(bool isMax, const double* xs, int n) {
  int best = 0;
  for (int k = 1; k < n; ++k) {
    double x = xs[k], b = xs[best];
    if (!(b != b) && (x != x || (isMax ? x > b : x < b))) best = k;
  }
  return best;
}

}  // namespace dmci::replay
