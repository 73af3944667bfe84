// The tensor engine's register machine: runs a ComputeGraph for groups of lanes that share a control path.
//
// It gives the native Machine's instructions the same meaning, shared in
// machine/Instructions.h (the same frames on a stack the machine owns, the
// same calls, tail calls, apply, closures, boxes, budgets and errors), but a
// group's values may hold per-lane numbers (see LaneStore.h). When a primitive's
// result differs between the lanes of a group (a per-lane comparison, most
// often), the group splits into one group per result and each continues; a
// work queue runs groups until all have ended. Groups share the single-assignment heap: a group only reaches cells
// its ancestors or it made, and a box or a vector element that an ancestor made is
// written in the writing group's own overlay. While a group runs, its overlay's vector elements are laid on the
// heap (so every primitive that reads a vector sees them) and lifted off when it stops.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "engines/tensor/LaneStore.h"
#include "lower/ComputeGraph.h"
#include "runtime/Materialise.h"

namespace dmci::lanes {

struct BatchStats {
  uint64_t groups = 0;     // groups created
  uint64_t splits = 0;     // instructions at which a group split
  uint64_t maxGroups = 0;  // most groups alive (running or queued) at once
  uint64_t steps = 0;      // instructions executed, summed over groups
};

class BatchMachine {
 public:
  BatchMachine(const ComputeGraph& g, Runtime& rt, LaneStore& store);

  // Builds the graph's constants on the heap; with `literalLeaves` every number gets a slot.
  void loadConstants(bool literalLeaves);
  const std::vector<Literal>& literals() const { return literals_; }

  // Runs the entry block for the lanes of set 0; one end per final group.
  std::vector<GroupEnd> run(const std::vector<Value>& params);
  // Applies a procedure value to arguments for the lanes of set 0.
  std::vector<GroupEnd> call(const Value& f, const std::vector<Value>& args);
  const BatchStats& stats() const { return stats_; }

 private:
  struct Frame {
    int32_t block, pc, base, env, dst;
  };
  struct Group {
    int32_t set = 0;
    std::vector<Value> stack;
    std::vector<Frame> frames;
    int32_t block = -1, pc = 0, base = 0, env = -1;
    size_t heapFloor = 0;                          // cells below it were made by ancestors
    std::vector<std::pair<int32_t, Value>> boxes;  // ancestors' boxes and vector cells this group has written
    int32_t userNode = -1, userCallBlock = -1, userCallPc = 0;
    uint64_t steps = 0;
  };
  // Where a value produced at the current instruction goes: a slot (then the next instruction), or returned.
  struct Completion {
    bool tailReturn;
    int32_t dst;
  };

  const ComputeGraph& g_;
  Runtime& rt_;
  LaneStore& store_;
  std::vector<Value> consts_;
  std::vector<Literal> literals_;
  std::vector<Value> params_;
  std::vector<Value> args_;
  std::vector<uint8_t> library_;
  std::vector<Group> queue_;
  std::vector<GroupEnd> ends_;
  int64_t firstFailedLane_ = -1;
  BatchStats stats_;
  // The heap cells below the running group's floor that hold its overlay, with what they held before.
  std::vector<std::pair<int32_t, Value>> under_;

  void begin();
  std::vector<GroupEnd> drain();
  void runGroup(Group& g);
  void loop(Group& g);
  bool callAt(Group& g, const Instr& in);
  bool complete(Group& g, const Value& v, Completion c);
  void splitAt(Group& g, Outcome& o, Completion c);
  void fail(Group& g, const DmciError& e);
  Error located(const Group& g, const DmciError& e) const;
  bool enter(Group& g, Value f, int32_t& block, int32_t& pc, int32_t& base, int32_t& env, Outcome& result);
  Outcome primCall(Group& g, int id, const Value* args, int argc);
  Value readBox(const Group& g, int32_t at) const;
  void writeBox(Group& g, int32_t at, const Value& v);
  Outcome vectorSet(Group& g, const Value* args, int argc);
  void writeCell(Group& g, int32_t at, const Value& v);
  void lay(const Group& g);
  void lift();
  Value detach(const Value& v);
};

}  // namespace dmci::lanes
