// Exactness of the numbers a program writes (R7RS 6.2.2, 7.1.1), as the reader sees it.
//
// The runtime's numbers are doubles. A number is exact when it is an integer that a double holds exactly
// (|n| <= 2^53) and is known to be exact: in the text, a literal written without a point, an exponent or an
// infinity (`32`, `-7`, not `32.0`, `1e2` or `+inf.0`; syntax/NumberSyntax.h). The reader marks such a literal's
// datum (Datum::boolean, unused by numbers otherwise); runtime/ExactValue.h carries the mark into run-time values.
// Datum equality and printing ignore the mark: `1` and `1.0` print alike, so a program printed and read back
// keeps the value of every number, not always its exactness.
#pragma once
#include <cstdint>

#include "syntax/Datum.h"

namespace dmci {

// The largest magnitude at which every integer is a double: exact integers live in [-2^53, 2^53].
inline constexpr double kExactIntegerLimit = 9007199254740992.0;

// True for an integer a double holds exactly (finite, integral, at most 2^53 in magnitude). Inline and without a
// library call (a truncating conversion, not floor): the arithmetic asks it of every exact result.
inline bool holdsExactInteger(double x) {
  const double a = x < 0 ? -x : x;  // a NaN fails the next test, as does an infinity
  return a <= kExactIntegerLimit && static_cast<double>(static_cast<int64_t>(a)) == a;
}
// A number datum of x, exact when `exact` and x is an integer a double holds, else inexact (defined in Datum.cpp,
// beside the allocation every datum shares).
DatumPtr numberWithExactness(double x, bool exact, SrcPos p = {});
inline bool isExact(const Datum& d) { return d.kind == DatumKind::Number && d.boolean; }

}  // namespace dmci
