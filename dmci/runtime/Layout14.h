// The canonical 14-number value layout (DESIGN.md) and its conversion to and from the native Value.
//
//   [0..9]   one-hot tag: nil, boolean, integer, real, char, symbol, pair, string, closure, tensor
//   [10..13] payload:
//     boolean  p0 = 0 or 1            char    p0 = code point     symbol  p0 = symbol id
//     integer, real  p0 = the number (the native engine keeps every number as a real)
//     pair     p0 = car address, p1 = cdr address (heap cells)
//              a Scheme vector also takes the pair tag (the paper's ten have none of its own): p0 = the first
//              element's address, p1 = -1 (no cdr: a pair's p1 is p0 + 1), p2 = the length
//     string   p0 = string id
//     closure  p0 = code block id (a primitive: -(1 + primitive id)), p1 = environment address (-1: none)
//     tensor   p0 = tensor id, p1 = rank, p2 = rows, p3 = columns
// This is what the tensor engine stores per lane; the native engine's 16-byte
// Value holds the same information, and these two functions are the proof.
#pragma once
#include <array>

#include "runtime/Runtime.h"

namespace dmci {

enum class Layout14Tag { Nil, Boolean, Integer, Real, Char, Symbol, Pair, String, Closure, Tensor };
constexpr int kLayoutWidth = 14;
constexpr int kLayoutTags = 10;
using Layout14 = std::array<double, kLayoutWidth>;

// The 14-number form of a value (throws for the engine's internal boxes).
Layout14 toLayout14(const Runtime& rt, const Value& v);
// The value a 14-number form denotes (throws Graph errors for a malformed form).
Value fromLayout14(const Runtime& rt, const Layout14& l);

}  // namespace dmci
