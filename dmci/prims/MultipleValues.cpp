// Multiple values (R7RS 6.10): `values` and `call-with-values`, library procedures in Scheme like map, so that
// every route runs and differentiates them as user code. The expander's let-values, let*-values, define-values,
// receive and case-lambda are built on them (expand/ExpandValues.cpp).
//
// Representation: one value is itself, so (values x) is x and costs nothing; zero or several values are a pair
// whose car is the `values` procedure itself and whose cdr is the list of the values. call-with-values spreads
// such a pair over the consumer's parameters and passes any other value as the one argument. What this does not
// give: a values object is an ordinary value where R7RS leaves a multiple-value continuation unspecified, so
// (+ 1 (values 1 2)) is a type error naming a list rather than a count error, and (list (values 1 2)) holds it;
// and a list a program builds with the values procedure as its first element, (cons values l), is read by
// call-with-values as the values in l.
#include "prims/PrimTable.h"

namespace dmci {
namespace {

// The prelude sources (see prims/prelude.scm for the conventions: primitives by their %-names, no numbers).
const char* const kValues =
    "(define (values . things)\n"
    "  (if (%pair? things)\n"
    "      (if (%null? (%cdr things)) (%car things) (%cons %values things))\n"
    "      (%cons %values things)))";

const char* const kCallWithValues =
    "(define (call-with-values producer consumer)\n"
    "  (let ((v (producer)))\n"
    "    (if (%pair? v)\n"
    "        (if (%eq? (%car v) %values) (%apply consumer (%cdr v)) (consumer v))\n"
    "        (consumer v))))";

}  // namespace

void addMultipleValuesPrims(std::vector<Primitive>& t) {
  t.push_back({"values", 0, -1, nullptr, nullptr, kValues, PrimFamily::Control,
               "(values x ...) its arguments as multiple values: one value is itself, others a values object that "
               "call-with-values spreads",
               "gradients flow to each value", laneUse(LaneReads::NoRule)});
  t.push_back({"call-with-values", 2, 2, nullptr, nullptr, kCallWithValues, PrimFamily::Control,
               "(call-with-values producer consumer) consumer applied to the values producer returns",
               "gradients flow through producer and consumer", laneUse(LaneReads::NoRule)});
}

}  // namespace dmci
