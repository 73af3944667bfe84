// Private to the primitives: eqv? and equal? as C++ functions, shared by the predicates and the list searches.
#pragma once
#include "runtime/Runtime.h"

namespace dmci {

// Same tag and payload: numbers by numeric value (0 and -0 are eqv?, NaN is eqv? to NaN, the
// tape slot is ignored), pairs and strings by address, closures by environment and code, tensors by id.
bool isEqv(const Value& x, const Value& y);
// Structural: pairs element by element (an explicit stack, so long lists cannot overflow the
// C++ stack), strings by content, tensors by shape and data; everything else as isEqv.
bool isEqual(const Runtime& rt, const Value& x, const Value& y);

}  // namespace dmci
