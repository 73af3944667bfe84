// The compact run-time value of the native engine (16 bytes) and its tags.
//
// The canonical layout (DESIGN.md) is 14 numbers: a 10-way one-hot tag and a
// 4-slot payload; Layout14.h converts. Inside the native engine a value is a
// tag, one 32-bit field and one 64-bit field:
//   Real     i = tape slot (-1: a constant, not on the tape)   num = the double
//   Bool     i = 0 / 1
//   Char     i = code point
//   Symbol   i = interned symbol id
//   String   i = string id (Runtime::strings)
//   Pair     i = heap address of car; cdr is at i+1
//   Closure  i = heap address of the environment record; code = code block id
//   Prim     i = primitive id (a first-class primitive procedure)
//   Tensor   i = tensor id (Runtime::tensors)
//   Box      i = heap address of a letrec* variable's cell (never seen by user code)
//   Unset    the content of a Box not yet written
//   Vector   i = heap address of element 0; code = the length (elements at i .. i+length-1, single-assignment)
#pragma once
#include <cstdint>

namespace dmci {

enum class Tag : uint8_t {
  Nil,
  Bool,
  Int,
  Real,
  Char,
  Symbol,
  Pair,
  String,
  Closure,
  Tensor,
  Prim,
  Box,
  Unset,
  Vector
};

struct Value {
  Tag tag = Tag::Nil;
  int32_t i = 0;
  union {
    double num;
    int64_t code;
  };
  Value() : num(0.0) {}

  static Value nil() { return Value(); }
  static Value boolean(bool b) {
    Value v;
    v.tag = Tag::Bool;
    v.i = b ? 1 : 0;
    return v;
  }
  static Value real(double x, int32_t slot = -1) {
    Value v;
    v.tag = Tag::Real;
    v.i = slot;
    v.num = x;
    return v;
  }
  static Value make(Tag t, int32_t i, int64_t code = 0) {
    Value v;
    v.tag = t;
    v.i = i;
    v.code = code;
    return v;
  }

  bool isNumber() const { return tag == Tag::Real; }
  bool isActive() const { return tag == Tag::Real && i >= 0; }  // on the tape
  bool isFalse() const { return tag == Tag::Bool && i == 0; }
  bool isProcedure() const { return tag == Tag::Closure || tag == Tag::Prim; }
};
static_assert(sizeof(Value) == 16, "Value must stay 16 bytes");

}  // namespace dmci
