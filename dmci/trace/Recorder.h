// Records a trace (trace/Trace.h) while the native machine runs one seed.
//
// The machine reports every primitive it applies (runtime/TraceSink.h). A primitive whose arguments depend on
// no leaf leaves nothing: its result is a constant of the trace. One whose arguments do:
//   + - * /               become binary operations, folded left exactly as the native rule folds them;
//   elementary functions  become operations on their rule (prims/ScalarRule.h), floor and the other
//                         piecewise-constant ones included (a value with no partial);
//   min, max              become a guard on which argument they select (the result is that argument);
//   a test (<, zero?, eqv?, integer?, ...)  becomes a guard on its outcome;
//   any other number      (quotient, ...) becomes a Step on the native rule, with no partial;
//   a tensor primitive    on a dependent tensor, or vec/mat of dependent numbers, becomes a TensorStep (and
//                         + - * / with a tensor operand one elementwise step per fold step, as the native rule
//                         folds); a constant tensor it meets becomes a constant tensor slot.
//                         A dependent size (zeros, ones, eye) or index (ref) becomes a guard that it keeps its
//                         value (literals are leaves too: the 2 in (eye 2) is one).
// List, closure and control work leaves nothing. Anything the trace cannot replay (a dependent tensor given to a
// primitive that is not a tensor primitive, a search through lists of dependent numbers, a dependent non-numeric
// value, a tensor value) marks the trace not replayable, with the reason, and recording stops there.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "runtime/Runtime.h"
#include "runtime/TraceSink.h"
#include "trace/Trace.h"

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
  std::unordered_map<int32_t, int32_t> tensorOfSlot_;   // a dependent tensor's first native tape slot -> tensor slot
  std::unordered_map<int32_t, int32_t> constTensorOf_;  // a constant tensor (its index in rt.tensors) -> tensor slot

  void fail(const std::string& why);
  bool dependent(const Value& v) const { return v.tag == Tag::Real && v.i >= 0; }
  Ref ref(const Value& v);
  Ref constant(double x);
  int32_t newSlot(int32_t nativeSlot);
  // A Step's or a guard's arguments, as Trace::args holds them; false when one points into the heap.
  bool pushArgs(const Value* args, int argc);
  bool listsHoldDependent(const Value* args, int argc) const;
  bool dependentTensor(const Value& v) const {
    return v.tag == Tag::Tensor && rt_.tensors[static_cast<size_t>(v.i)].slot >= 0;
  }
  // A native number or tensor as a tensor step's operand (Trace::args form); a Nil value when it cannot be one.
  Value operand(const Value& v);
  int32_t tensorSlot(const Value& v);  // -1: a dependent tensor the trace does not hold (the trace fails)
  int32_t newTensor(int32_t rank, int32_t rows, int32_t cols, int32_t data);
  // Appends a step on operands xs; its result is a new tensor slot of the given shape, or (rank 0) a scalar slot.
  int32_t pushStep(int prim, const std::vector<Value>& xs, int32_t rank, int32_t rows, int32_t cols);
  void mapResult(const Value& result, int32_t out, bool outTensor);
  Value elementwise(char op, const Value& a, const Value& b);
  void tensor(int prim, const Value* args, int argc, Value& result);
  // A guard that a dependent number keeps its value (= v its-value): a size or an index read as an integer.
  bool guardSameValue(int prim, const Value& v);
  void tensorArithmetic(int prim, const Value* args, int argc, Value& result);
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
