// The native engine's register machine: runs a ComputeGraph on a Runtime.
//
// A loop over compact instructions. Frames live on a value stack the machine
// owns (Dybvig's heap-based model), so a non-tail call costs a frame record and
// never a C++ stack frame; a tail call reuses its frame. Every executed
// instruction counts against the step budget and frames count against the heap
// budget, so any program ends: with a value or with a clean error that carries
// the source position of the instruction that failed.
#pragma once
#include <vector>

#include "lower/ComputeGraph.h"
#include "prims/PrimTable.h"
#include "runtime/Materialise.h"
#include "runtime/Runtime.h"

namespace dmci {

struct RunStats {
  uint64_t steps = 0;        // instructions executed
  uint64_t collections = 0;  // heap collections
  uint64_t calls = 0;        // closure calls (tail or not)
  uint64_t maxFrames = 0;    // deepest frame stack
};

class Machine {
 public:
  Machine(const ComputeGraph& g, Runtime& rt);

  // Builds the graph's constants on the heap (after rt.reset()). With
  // `literalLeaves`, every number in them becomes a named tape leaf.
  void loadConstants(bool literalLeaves);
  const std::vector<Literal>& literals() const { return literals_; }

  // Runs the entry block with the given parameter values.
  Value run(const std::vector<Value>& params);
  // Applies a procedure value (a closure this graph made, or a primitive) to arguments.
  Value call(const Value& f, const std::vector<Value>& args);
  const RunStats& stats() const { return stats_; }

 private:
  struct Frame {
    int32_t block;
    int32_t pc;
    int32_t base;
    int32_t env;
    int32_t dst;
  };

  const ComputeGraph& g_;
  Runtime& rt_;
  const Primitive* prims_;  // the primitive rows, cached for the loop (prims/Faults.h: planted faults are decided here)
  std::vector<Value> consts_;
  std::vector<Literal> literals_;
  std::vector<Value> stack_;
  std::vector<Frame> frames_;
  std::vector<Value> args_;       // scratch: the arguments of the call being made
  std::vector<uint8_t> library_;  // per block: a library procedure's code (the prelude)
  int32_t userCallBlock_ = -1;    // the last call made from the user's own code,
  int32_t userCallPc_ = 0;        // where errors inside library procedures are reported
  RunStats stats_;
  size_t floor_ = 0;   // heap cells below this were built before the run: never collected
  size_t gcNext_ = 0;  // collect when the heap grows past this

  Value loopFrom(const std::vector<Value>& params, int32_t& block, int32_t& pc, int32_t env);
  // Runs body() and gives a position-less error the position of the failing instruction.
  template <class F>
  Value located(int32_t& block, int32_t& pc, F body);
  // Enters `callee` with args_; returns false (and sets `result`) when it is a primitive.
  bool enter(Value f, int32_t& block, int32_t& pc, int32_t& base, int32_t& env, Value& result);
  // A copying collection of the cells above floor_, at a call (a safe point):
  // the roots are the live frames' slots and environment records.
  // Returns the current environment record's new address.
  int32_t collect(int32_t block, int32_t base, int32_t env);
  void startRun();
};

}  // namespace dmci
