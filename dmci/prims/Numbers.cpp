// R7RS number procedures beyond the arithmetic family, for a runtime whose numbers are all doubles: exactness
// conversions, the division pairs that return two values, gcd and lcm, nan?/infinite?/finite?, and
// exact-integer-sqrt. All but three are library procedures in Scheme over existing primitives, so every route,
// the oracle and lantern run and differentiate them as user code.
//
// Exactness (runtime/ExactValue.h): the exact numbers are the integers a double holds. `exact` marks an integer
// exact and leaves any other number as it is (2.5 has no exact form here: there are no rationals; R7RS allows
// reporting that, and a number on the tape stays a real); `inexact` drops the mark. Both return the same number,
// so gradients pass through them unchanged. An infinity or a NaN given to `exact` is an error.
#include "prims/ExactIntegerSqrt.h"
#include "prims/PrimTable.h"
#include "runtime/ExactValue.h"
#include "runtime/Materialise.h"

namespace dmci {
namespace {

Value exactIntegerSqrtList(Runtime& rt, const Value* a, int) {
  if (!a[0].isNumber()) wrongType(rt, "exact-integer-sqrt", 0, a[0], "a number");
  auto [s, r] = exactIntegerSqrt(a[0].num);
  const bool exact = isExactNumber(a[0]);
  return heapList(rt, {keepExact(Value::real(s), exact), keepExact(Value::real(r), exact)});
}

// The same value; a constant integer marked exact. Anything else (a non-integer, a number on the tape, a value
// that is not a number, as lantern's duals are) passes through unchanged.
Value exactMark(Runtime&, const Value* a, int) { return keepExact(a[0], a[0].tag == Tag::Real); }
// The same value, a constant's exact mark dropped.
Value inexactMark(Runtime&, const Value* a, int) { return inexactValue(a[0]); }

struct SchemeRow {
  const char* name;
  int minArgs, maxArgs;
  const char* source;
  const char* doc;
  const char* partials;
};

const SchemeRow kRows[] = {
    {"exact", 1, 1,
     "(define (exact z)\n"
     "  (if (%finite? z) (%exact-mark z) (%error \"exact: an infinity or a NaN has no exact form, got\" z)))",
     "(exact z) z, exact when it is an integer (a non-integer stays as it is: there are no rationals); +inf.0 and "
     "+nan.0 are an error; gradients pass through unchanged",
     ""},
    {"inexact->exact", 1, 1, "(define (inexact->exact z) (%exact z))", "(inexact->exact z) as exact", ""},
    {"inexact", 1, 1,
     "(define (inexact z) (if (%number? z) (%inexact-mark z) (%error \"inexact: expects a number, got\" z)))",
     "(inexact z) z, inexact; gradients pass through unchanged", ""},
    {"exact->inexact", 1, 1, "(define (exact->inexact z) (%inexact z))", "(exact->inexact z) as inexact", ""},
    {"floor/", 2, 2, "(define (floor/ n d) (%values (%floor-quotient n d) (%modulo n d)))",
     "(floor/ n d) two values: (floor-quotient n d) and (modulo n d)", ""},
    {"truncate/", 2, 2, "(define (truncate/ n d) (%values (%quotient n d) (%remainder n d)))",
     "(truncate/ n d) two values: (quotient n d) and (remainder n d)", ""},
    {"floor-quotient", 2, 2, "(define (floor-quotient n d) (%quotient (%- n (%modulo n d)) d))",
     "(floor-quotient n d) the integer floor of n/d, as (quotient (- n (modulo n d)) d): exact for exact n and d", ""},
    {"floor-remainder", 2, 2, "(define (floor-remainder n d) (%modulo n d))", "(floor-remainder n d) (modulo n d)", ""},
    {"truncate-quotient", 2, 2, "(define (truncate-quotient n d) (%quotient n d))",
     "(truncate-quotient n d) (quotient n d)", ""},
    {"truncate-remainder", 2, 2, "(define (truncate-remainder n d) (%remainder n d))",
     "(truncate-remainder n d) (remainder n d)", ""},
    {"gcd", 0, -1,
     "(define (gcd . ns)\n"
     "  (define (two a b) (if (%zero? b) a (two b (%remainder a b))))\n"
     "  (let loop ((acc (%+)) (ns ns))\n"
     "    (if (%null? ns) acc (loop (two acc (%abs (%car ns))) (%cdr ns)))))",
     "(gcd n ...) the greatest common divisor of the integers, (gcd) is 0", ""},
    {"lcm", 0, -1,
     "(define (lcm . ns)\n"
     "  (let loop ((acc (%*)) (ns ns))\n"
     "    (if (%null? ns) acc\n"
     "        (let ((n (%abs (%car ns))))\n"
     "          (loop (if (%zero? n) n (%quotient (%* acc n) (%gcd acc n))) (%cdr ns))))))",
     "(lcm n ...) the least common multiple of the integers, (lcm) is 1", ""},
    {"nan?", 1, 1, "(define (nan? z) (%not (%= z z)))", "(nan? z) #t for a NaN", ""},
    {"finite?", 1, 1, "(define (finite? z) (%= (%- z z) (%- z z)))", "(finite? z) #t unless z is infinite or a NaN",
     ""},
    {"infinite?", 1, 1, "(define (infinite? z) (if (%= z z) (%not (%finite? z)) #f))",
     "(infinite? z) #t for +inf.0 or -inf.0", ""},
    {"real?", 1, 1, "(define (real? x) (%number? x))", "(real? x) #t for a number (every number is a real double)", ""},
    {"complex?", 1, 1, "(define (complex? x) (%number? x))", "(complex? x) #t for a number (there are no non-reals)",
     ""},
    {"rational?", 1, 1, "(define (rational? x) (if (%number? x) (%finite? x) #f))",
     "(rational? x) #t for a finite number (every finite double is a rational)", ""},
    {"make-list", 1, 2,
     "(define (make-list k . fill)\n"
     "  (if (if (%integer? k) (%>= k (%+)) #f)\n"
     "      (let ((x (if (%null? fill) #f (%car fill))))\n"
     "        (let loop ((i k) (acc (%list)))\n"
     "          (if (%<= i (%+)) acc (loop (%- i (%*)) (%cons x acc)))))\n"
     "      (%error \"make-list: the length must be a non-negative integer, got\" k)))",
     "(make-list k [fill]) a list of k copies of fill (#f by default); k a non-negative integer", ""},
    {"list-copy", 1, 1, "(define (list-copy l) (if (%pair? l) (%append l (%list)) l))",
     "(list-copy l) a new list with the elements of l", ""},
    {"exact-integer-sqrt", 1, 1, "(define (exact-integer-sqrt n) (%apply %values (%exact-integer-sqrt-list n)))",
     "(exact-integer-sqrt n) two values s and r, s*s + r = n, computed exactly and rounded to doubles", ""},
};

}  // namespace

void addNumberPrims(std::vector<Primitive>& t) {
  for (const SchemeRow& r : kRows)
    t.push_back({r.name, r.minArgs, r.maxArgs, nullptr, nullptr, r.source, PrimFamily::Arithmetic, r.doc, r.partials,
                 laneUse(LaneReads::NoRule)});
  t.push_back({"%exact-mark", 1, 1, exactMark, nullptr, nullptr, PrimFamily::Arithmetic,
               "(%exact-mark z) z, marked exact when it is a constant integer (exact's step)", "",
               laneUse(LaneReads::Nothing)});
  t.push_back({"%inexact-mark", 1, 1, inexactMark, nullptr, nullptr, PrimFamily::Arithmetic,
               "(%inexact-mark z) z without its exact mark (inexact's step)", "", laneUse(LaneReads::Nothing)});
  t.push_back({"%exact-integer-sqrt-list", 1, 1, exactIntegerSqrtList, nullptr, nullptr, PrimFamily::Arithmetic,
               "(%exact-integer-sqrt-list n) exact-integer-sqrt's two values as a list", "",
               laneUse(LaneReads::Arguments)});
}

}  // namespace dmci
