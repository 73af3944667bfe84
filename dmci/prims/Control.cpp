// Control primitives: error, and apply (which the engines run themselves, since it calls a procedure).
#include "prims/PrimTable.h"

namespace dmci {
namespace {

Value errorPrim(Runtime& rt, const Value* a, int n) {
  std::string msg = a[0].tag == Tag::String ? rt.strings[a[0].i] : rt.show(a[0]);
  for (int k = 1; k < n; ++k) {
    msg += ' ';
    msg += rt.show(a[k]);
  }
  throw DmciError(ErrorKind::User, msg);
}

// %reset and %shift exist so that the expander's output names them; lower/Control.h converts every use away.
Value unconverted(Runtime&, const Value*, int) {
  throw DmciError(ErrorKind::Graph, "shift/reset reached an engine without the control conversion");
}

}  // namespace

void addControlPrims(std::vector<Primitive>& t) {
  t.push_back({"error", 1, -1, errorPrim, nullptr, nullptr, PrimFamily::Control,
               "(error msg irritant ...) stops the run with msg and the irritants, at the call's position", "",
               laneUse(LaneReads::Nothing)});
  t.push_back({"apply", 2, -1, nullptr, nullptr, nullptr, PrimFamily::Control,
               "(apply f a ... lst) calls f on a ... and the elements of lst; run by the engine itself",
               "gradients flow through the call", laneUse(LaneReads::NoRule)});
  t.push_back({"%reset", 1, 1, unconverted, nullptr, nullptr, PrimFamily::Internal,
               "(reset e ...) is (%reset thunk): the value of e, with shift delimited there (lower/Control.h)", "",
               laneUse(LaneReads::Nothing)});
  t.push_back({"%shift", 1, 1, unconverted, nullptr, nullptr, PrimFamily::Internal,
               "(shift k e ...) is (%shift (lambda (k) e ...)): k the continuation up to the nearest reset", "",
               laneUse(LaneReads::Nothing)});
}

}  // namespace dmci
