// R7RS exceptions as library procedures in Scheme over reset and shift (lower/Control.h), like call/cc
// (prims/Continuations.cpp), so every route runs them as the converted program they are.
//
// (with-exception-handler handler thunk) runs (thunk) under a reset. (raise obj) and (raise-continuable obj) shift
// out to the nearest such reset with a marker (a pair headed by raise itself, holding obj and the continuation k
// of the raise up to that reset), so the handler is called outside the reset: in the dynamic environment of the
// raise except that the handlers around it are the outer ones, as R7RS says. The handler's value resumes the raise
// (k v) under the same loop: raise-continuable returns it; raise, which is not continuable, stops the run with an
// error (R7RS: a secondary exception). A guard (expand/ExpandExceptions.cpp) is a handler whose matching clause
// returns its value wrapped in a pair headed by with-exception-handler, which ends the with-exception-handler with
// that value (the escape); with no clause matching it re-raises with raise-continuable from the handler, to the
// outer handlers. The expander wraps a program that raises or installs a handler in a last handler that answers
// raise itself, which the raise takes as "no handler": it then stops the run at its call with the message of an
// error object, or "uncaught exception:" and the object. In such a program `error` raises an error object, a pair
// headed by error-object?.
#include "prims/PrimTable.h"

namespace dmci {
namespace {

const char* const kWithExceptionHandler =
    "(define (with-exception-handler handler thunk)\n"
    "  (let loop ((r (reset (%cons #f (thunk)))))\n"
    "    (if (%eq? (%car r) #f)\n"
    "        (%cdr r)\n"
    "        (if (%eq? (%car r) %raise)\n"
    "            (let ((v (handler (%cadr r))))\n"
    "              (if (if (%pair? v) (%eq? (%car v) %with-exception-handler) #f)\n"
    "                  (%cdr v)\n"
    "                  (loop ((%cddr r) v))))\n"
    "            (shift k r)))))";

// With no handler (the value raise itself), each stops the run at its call: an error object's message and irritants,
// as `error` without handlers gives them, or the object.
const char* const kRaise =
    "(define (raise obj)\n"
    "  (let ((v (shift k (%cons %raise (%cons obj k)))))\n"
    "    (if (%eq? v %raise)\n"
    "        (if (%error-object? obj)\n"
    "            (%apply %error (%cons (%error-object-message obj) (%error-object-irritants obj)))\n"
    "            (%error \"uncaught exception:\" obj))\n"
    "        (%error \"raise: the handler returned from a non-continuable raise of\" obj))))";

const char* const kRaiseContinuable =
    "(define (raise-continuable obj)\n"
    "  (let ((v (shift k (%cons %raise (%cons obj k)))))\n"
    "    (if (%eq? v %raise)\n"
    "        (if (%error-object? obj)\n"
    "            (%apply %error (%cons (%error-object-message obj) (%error-object-irritants obj)))\n"
    "            (%error \"uncaught exception:\" obj))\n"
    "        v)))";

const char* const kErrorObjectP = "(define (error-object? x) (if (%pair? x) (%eq? (%car x) %error-object?) #f))";
const char* const kErrorObjectMessage =
    "(define (error-object-message e)\n"
    "  (if (%error-object? e) (%cadr e)\n"
    "      (%error \"error-object-message: argument 1 must be an error object, got\" e)))";
const char* const kErrorObjectIrritants =
    "(define (error-object-irritants e)\n"
    "  (if (%error-object? e) (%cddr e)\n"
    "      (%error \"error-object-irritants: argument 1 must be an error object, got\" e)))";

}  // namespace

void addExceptionPrims(std::vector<Primitive>& t) {
  const auto C = PrimFamily::Control;
  const LaneUse scheme = laneUse(LaneReads::NoRule);
  const char* through = "gradients flow through the handler's value and the guarded body";
  t.push_back({"with-exception-handler", 2, 2, nullptr, nullptr, kWithExceptionHandler, C,
               "(with-exception-handler handler thunk) (thunk) with handler called on what it raises", through,
               scheme});
  t.push_back(
      {"raise", 1, 1, nullptr, nullptr, kRaise, C,
       "(raise obj) calls the current handler on obj; the run stops if the handler returns or none is installed", "",
       scheme});
  t.push_back({"raise-continuable", 1, 1, nullptr, nullptr, kRaiseContinuable, C,
               "(raise-continuable obj) the current handler's value on obj", through, scheme});
  t.push_back({"error-object?", 1, 1, nullptr, nullptr, kErrorObjectP, C,
               "(error-object? x) #t for what `error` raises in a program with handlers", "", scheme});
  t.push_back({"error-object-message", 1, 1, nullptr, nullptr, kErrorObjectMessage, C,
               "(error-object-message e) the message of an error object", "", scheme});
  t.push_back({"error-object-irritants", 1, 1, nullptr, nullptr, kErrorObjectIrritants, C,
               "(error-object-irritants e) the list of irritants of an error object", "", scheme});
}

}  // namespace dmci
