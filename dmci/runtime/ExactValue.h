// Exactness of run-time numbers (R7RS 6.2.2) on a runtime of doubles.
//
// A number is a double. An exact one is an integer that a double holds exactly (|n| <= 2^53) and that exact
// computation made: a literal the reader marked (syntax/Exactness.h), `exact` of an integer, and the integer
// operations of exact arguments (+ - * and a / that divides, quotient, remainder, modulo, abs, min, max, floor,
// round, expt, square, the counts that length, vector-length, string-length and char->integer give). The mark
// lives in the slot field of a Real that is not on the tape: kExactSlot (-2) where an inexact constant has -1, so
// the value's size, layout and every other reading of it stay as they were, and isActive() is false for both.
// A number on the tape (a parameter, a literal being differentiated, anything computed from one) is inexact:
// differentiation makes it a real. So a literal is exact under `dmci run` and inexact under `dmci grad` when the
// literal itself is differentiated.
#pragma once
#include "runtime/Value.h"
#include "syntax/Exactness.h"

namespace dmci {

inline constexpr int32_t kExactSlot = -2;

inline bool isExactNumber(const Value& v) { return v.tag == Tag::Real && v.i == kExactSlot; }
// x as an exact number when a double holds it as an exact integer, else as an inexact constant.
inline Value exactNumberValue(double x) {
  return holdsExactInteger(x) ? Value::real(x + 0.0, kExactSlot) : Value::real(x);  // + 0.0: exact 0 has no sign
}
// The result of an operation that keeps exactness: marked exact when every argument was exact and the result is
// a constant integer a double holds exactly; otherwise the result as it is.
inline Value keepExact(const Value& result, bool argumentsExact) {
  if (!argumentsExact || result.tag != Tag::Real || result.i >= 0 || !holdsExactInteger(result.num)) return result;
  return Value::real(result.num + 0.0, kExactSlot);
}
// The same value, inexact: a constant loses its mark; a number on the tape is inexact already.
inline Value inexactValue(const Value& v) { return isExactNumber(v) ? Value::real(v.num) : v; }
inline bool allExact(const Value* args, int argc) {
  for (int k = 0; k < argc; ++k)
    if (!isExactNumber(args[k])) return false;
  return true;
}

}  // namespace dmci
