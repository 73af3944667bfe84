// call-with-current-continuation (and call/cc) as an escape: a library procedure in Scheme over the language's
// reset and shift (lower/Control.h), so every route runs it as the converted program it is.
//
// (call/cc f) runs (f k) under a reset; calling k with values v ... shifts out of everything up to that reset,
// discarding it, with a marker (a pair headed by call/cc itself, holding a tag made fresh for this call and the
// values), and call/cc returns the values. A marker that reaches another call/cc's reset is not its own: it is
// passed on, by a shift, to the reset around that one, until its own call/cc takes it. So k escapes from any depth
// of calls inside f, through other call/cc's. What it is not: a re-entrant continuation. Calling k after its
// call/cc has returned leaves a marker that no call/cc takes, which ends the run with the error of a shift outside
// any reset; and a program that uses both call/cc and reset/shift is refused by the expander, since a user's reset
// between the call and the escape would catch the marker as a value.
#include "prims/PrimTable.h"

namespace dmci {
namespace {

const char* const kCallCc =
    "(define (call-with-current-continuation f)\n"
    "  (let ((tag (%cons #f #f)))\n"
    "    (let ((r (reset (%cons #f (f (lambda vs (shift k (%cons %call-with-current-continuation (%cons tag "
    "vs)))))))))\n"
    "      (if (%eq? (%car r) #f)\n"
    "          (%cdr r)\n"
    "          (if (%eq? (%cadr r) tag) (%apply %values (%cddr r)) (shift k r))))))";

const char* const kCallCcShort = "(define (call/cc f) (%call-with-current-continuation f))";

}  // namespace

void addContinuationPrims(std::vector<Primitive>& t) {
  t.push_back({"call-with-current-continuation", 1, 1, nullptr, nullptr, kCallCc, PrimFamily::Control,
               "(call-with-current-continuation f) f applied to an escape procedure k: calling k with values makes "
               "the call/cc return them (escape only, not re-entrant)",
               "gradients flow through f and the escaping values", laneUse(LaneReads::NoRule)});
  t.push_back({"call/cc", 1, 1, nullptr, nullptr, kCallCcShort, PrimFamily::Control,
               "(call/cc f) call-with-current-continuation", "gradients flow through f and the escaping values",
               laneUse(LaneReads::NoRule)});
}

}  // namespace dmci
