// Where a run-time error is reported, shared by every engine that runs a ComputeGraph.
#pragma once
#include <cstdint>

#include "lower/ComputeGraph.h"
#include "runtime/Runtime.h"

namespace dmci {

// An error's own position if it has one; else the user's expression being
// applied (mce.scm's %at); else the failing instruction's. An error inside a
// library procedure (map, fold-left, ...) moves to the innermost call from the
// user's code on the frame stack, else to the last call the user's code made.
// `Frames` holds records with `block` and `pc` (the return point, one past the call).
template <class Frames>
SrcPos reportedPosition(const ComputeGraph& g, const Runtime& rt, SrcPos pos, int32_t block, int32_t pc,
                        const Frames& frames, int32_t userCallBlock, int32_t userCallPc) {
  auto at = [&](int32_t b, int32_t p) { return g.blocks[static_cast<size_t>(b)].where[static_cast<size_t>(p)]; };
  if (!pos.known()) {
    SrcPos user = rt.userNode >= 0 ? rt.positionOf(rt.userNode) : SrcPos{};
    pos = user.known() ? user : block >= 0 ? at(block, pc) : SrcPos{};
  }
  for (size_t k = frames.size(); pos.inLibrary() && k-- > 0;) {
    SrcPos call = at(frames[k].block, frames[k].pc - 1);
    if (!call.inLibrary()) pos = call;
  }
  if (pos.inLibrary() && userCallBlock >= 0) pos = at(userCallBlock, userCallPc);
  return pos;
}

}  // namespace dmci
