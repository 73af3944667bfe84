// Builds datums on the single-assignment heap; numbers can become named tape leaves.
#pragma once
#include <vector>

#include "runtime/Runtime.h"
#include "syntax/Datum.h"

namespace dmci {

// Set in the `code` of a vector built here (code's low 32 bits are its length): a literal constant, made before
// the run, which vector-set! refuses (R7RS: an error to modify a literal; the collector never scans such cells).
constexpr int64_t kLiteralVector = int64_t{1} << 32;

// A numeric literal that is a differentiable leaf: its tape slot and its source position.
struct Literal {
  int32_t slot;
  SrcPos pos;
  double value;
};

// The value of `d` on rt's heap. When `leaves` is non-null every number
// becomes a fresh tape leaf and is recorded there; `cellPos` (optional)
// records the source position of every pair built, keyed by heap address.
Value materialise(Runtime& rt, const Datum& d, std::vector<Literal>* leaves,
                  std::vector<std::pair<int32_t, SrcPos>>* cellPos = nullptr);

// A list of values on the heap.
Value heapList(Runtime& rt, const std::vector<Value>& vs);

}  // namespace dmci
