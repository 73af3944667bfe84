// Lanes, lane sets and per-lane numbers: the tensor engine's store, seen without LibTorch types.
//
// A lane set is the lanes of one group, as positions in its parent set (sets
// only ever split, so they form a tree). A per-lane number is a native Value
// tagged Real whose `i` is a slot of this store (i >= 0); a per-lane tensor is
// a Value tagged Tensor whose record's `slot` is one. Everything else in a
// Value (tags, addresses, symbols, uniform numbers with i = -1) is held once,
// for the whole group, exactly as the native engine holds it. A slot's tensor
// is indexed by the set that made it; a descendant set reads it through the
// composed positions (index_select, cached), so a split copies no lane data.
// The LibTorch side lives in LaneTensors.h and the *.cpp files that include it.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "prims/LaneUse.h"
#include "prims/ScalarRule.h"
#include "runtime/Runtime.h"
#include "syntax/Error.h"

namespace dmci::lanes {

// The result of a primitive for one group: one value, or lanes that disagree.
struct LaneClass {
  std::vector<int64_t> positions;  // within the group's set, ascending
  Value value;
  bool failed = false;
  Error error;
};
struct Outcome {
  Value value;                     // the result when `classes` is empty
  std::vector<LaneClass> classes;  // else one class per distinct result (at least two)
  static Outcome of(Value v) {
    Outcome o;
    o.value = v;
    return o;
  }
};

// How a group ended: its set and value, or the error of its first lane.
struct GroupEnd {
  int32_t set = 0;
  Value value;
  bool failed = false;
  Error error;
  int64_t firstLane = 0;
};

struct Counters {
  uint64_t syncs = 0, torchOps = 0, laneLoops = 0;
};

class LaneStore {
 public:
  LaneStore();
  ~LaneStore();
  LaneStore(const LaneStore&) = delete;
  LaneStore& operator=(const LaneStore&) = delete;

  // Device "cpu" or "cuda", float64 or float32; a Usage error when the device is absent.
  void configure(const std::string& device, bool float32);
  // A new run of `lanes` lanes: the root set 0, and slots beyond rt's count dropped.
  void beginRun(const Runtime& rt, int64_t lanes);
  // The slots that exist before any run (the program's literals): kept, refilled per run.
  void keepSlots(const Runtime& rt);

  // --- sets ---
  int64_t size(int32_t set) const;
  int64_t firstLane(int32_t set) const;
  // A child of `set` holding the lanes at `positions` (ascending) of it.
  int32_t split(int32_t set, const std::vector<int64_t>& positions);

  // --- lane values ---
  static bool isLane(const Runtime& rt, const Value& v) {
    return (v.tag == Tag::Real && v.i >= 0) || (v.tag == Tag::Tensor && rt.tensors[v.i].slot >= 0);
  }
  // A per-lane number of the root set: a leaf when `grad`.
  Value param(Runtime& rt, const std::vector<double>& values, bool grad);
  // Refills a literal's slot with a [B] leaf holding `value` in every lane.
  void literalLeaf(int32_t slot, double value, bool grad);
  // Writes lane `pos` of `set` into the per-lane numbers and tensors reachable
  // from v (heap cells included), so that rt.show() and native rules see that
  // lane. Returns v with its own number filled in. Syncs.
  Value hydrate(Runtime& rt, const Value& v, int32_t set, int64_t pos);
  // A slot's data for the lanes of `set`, on the host, lane after lane (one sync).
  std::vector<double> laneData(int32_t slot, int32_t set);
  // A new per-lane number (a constant) holding perLane[k] in lane k of `set`.
  Value laneConstants(Runtime& rt, int32_t set, const std::vector<double>& perLane);

  // --- the end of a run ---
  // Per-lane values (a tensor: the sum of its entries) in lane order, and when
  // `gradSlots` is not empty, d(value)/d(slot) per slot and lane: [slot][lane].
  struct Assembled {
    std::vector<double> value;
    std::vector<std::vector<double>> grad;
    int rank = 0, rows = 0, cols = 0;  // when every value is a tensor of one shape: it,
    std::vector<double> entries;       // and the entries, lane after lane
  };
  Assembled assemble(Runtime& rt, const std::vector<GroupEnd>& ends, const std::vector<int32_t>& gradSlots);
  // Each lane's value in the 14-number layout, through a [B,14] tensor per group.
  std::vector<std::array<double, 14>> layout14(Runtime& rt, const std::vector<GroupEnd>& ends);

  Counters counters;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

// True when LibTorch can run on the device ("cpu", or "cuda" with a GPU present).
bool deviceAvailable(const std::string& device);
void setThreads(int threads);

// Whether a torch kernel has its rule, and the rule applied (ScalarPrims.cpp holds the table).
bool hasRule(LaneKernel k);
Outcome applyRule(Runtime& rt, LaneStore& store, int32_t set, LaneKernel k, const Value* args, int argc);
// An elementary rule without a torch kernel (normal-cdf), one argument: its native value and partial lane by lane,
// joined to the lanes' autograd graph as the native tape records them.
Outcome applyScalarRule1(Runtime& rt, LaneStore& store, int32_t set, const ScalarRule& r, const Value* args);

// Applies primitive `id` to args for the group of lane set `set`: the native
// rule when no argument holds per-lane data it would read, a torch rule when
// one does, and else the native rule lane by lane. Throws DmciError like the
// native rule (with the group's first lane's data in the message).
Outcome applyPrim(Runtime& rt, LaneStore& store, int32_t set, int id, const Value* args, int argc);

}  // namespace dmci::lanes
