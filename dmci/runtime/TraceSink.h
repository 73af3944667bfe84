// Where the register machine reports each primitive it applies, when a trace is being recorded.
//
// The native Machine calls `applied` after every primitive application (Prim, Prim1, Prim2, and a primitive
// reached through a call or apply) while Runtime::trace is set; the replay engine's recorder
// (trace/Recorder.h) turns those reports into a straight-line trace. With no sink set the machine pays one
// predictable branch per primitive.
#pragma once
#include "runtime/Value.h"

namespace dmci {

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // Primitive `prim` was applied to args[0..argc) and gave `result`. The sink may give a result that depends on
  // a leaf but carries no tape slot (floor, quotient: constants to the tape) a fresh slot, so that later uses of
  // it are seen to depend on the leaf; it never changes the result's value.
  virtual void applied(int prim, const Value* args, int argc, Value& result) = 0;
};

}  // namespace dmci
