// The oracle's run-time values over a number type Num, and the heap of one evaluation, freed all at once.
#pragma once
#include <cmath>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "expand/CoreExpr.h"
#include "syntax/Error.h"

namespace dmci::oracle {

enum class Kind { Number, Bool, Nil, Pair, Symbol, String, Char, Closure, Prim, Tensor, Unset, Vector };

template <class Num>
struct Pair;
template <class Num>
struct Closure;
template <class Num>
struct Tensor;
template <class Num>
struct VectorObj;

// A value: a number inline, everything else a small tag or a pointer into the heap (or the program text).
template <class Num>
struct Value {
  Kind kind = Kind::Nil;
  int64_t bits = 0;           // Bool: 0 or 1; Char: code point; Prim: its id in the primitive table; Number: 1 exact
  Num num = 0;                // Number
  const void* ref = nullptr;  // Pair, Closure, Tensor, Vector; Symbol and String: a std::string of the program

  static Value number(const Num& x) {
    Value v;
    v.kind = Kind::Number;
    v.num = x;
    return v;
  }
  static Value boolean(bool b) { return tagged(Kind::Bool, b ? 1 : 0); }
  static Value nil() { return {}; }
  static Value unset() { return tagged(Kind::Unset, 0); }
  static Value primitive(int id) { return tagged(Kind::Prim, id); }
  static Value tagged(Kind k, int64_t bits) {
    Value v;
    v.kind = k;
    v.bits = bits;
    return v;
  }
  static Value object(Kind k, const void* ref) {
    Value v;
    v.kind = k;
    v.ref = ref;
    return v;
  }

  bool isFalse() const { return kind == Kind::Bool && bits == 0; }
  // Exactness as the engines keep it (runtime/ExactValue.h): an integer of at most 2^53 that exact work made.
  bool isExact() const { return kind == Kind::Number && bits == 1; }
  bool isNumber() const { return kind == Kind::Number; }
  bool isProcedure() const { return kind == Kind::Closure || kind == Kind::Prim; }
  const Pair<Num>& pair() const { return *static_cast<const Pair<Num>*>(ref); }
  const Closure<Num>& closure() const { return *static_cast<const Closure<Num>*>(ref); }
  const Tensor<Num>& tensor() const { return *static_cast<const Tensor<Num>*>(ref); }
  const VectorObj<Num>& vector() const { return *static_cast<const VectorObj<Num>*>(ref); }
  const std::string& text() const { return *static_cast<const std::string*>(ref); }
};

template <class Num>
struct Pair {
  Value<Num> car, cdr;
};

// A Scheme vector: its elements, any values.
template <class Num>
struct VectorObj {
  std::vector<Value<Num>> items;
  bool literal = false;  // a constant of the program's text, which vector-set! refuses
};

// One lexical scope's variables; the resolver knows each reference's (depth, index).
template <class Num>
struct Frame {
  Frame* parent = nullptr;
  std::vector<Value<Num>> slots;
};

template <class Num>
struct Closure {
  const CoreExpr* lambda;
  Frame<Num>* env;
};

// A vector (rank 1, rows x 1) or a matrix (rank 2), entries row-major.
template <class Num>
struct Tensor {
  int rank = 1, rows = 0, cols = 1;
  std::vector<Num> data;
  int size() const { return rows * cols; }
  const Num& at(int r, int c) const { return data[static_cast<size_t>(r * cols + c)]; }
  Num& at(int r, int c) { return data[static_cast<size_t>(r * cols + c)]; }
};

// A finite number with no fractional part.
template <class Num>
bool isInteger(const Num& x) {
  using std::floor;
  using std::isfinite;
  return isfinite(x) && floor(x) == x;
}

// An integer a double holds exactly: what an exact number may be (syntax/Exactness.h).
template <class Num>
bool holdsExactInteger(const Num& x) {
  using std::abs;
  return isInteger(x) && abs(x) <= Num(9007199254740992.0);
}

// A result marked exact when its arguments were and it is such an integer (the engines' keepExact); else as it is.
template <class Num>
Value<Num> keepExact(Value<Num> v, bool argumentsExact) {
  if (v.kind == Kind::Number && argumentsExact && holdsExactInteger(v.num)) {
    v.bits = 1;
    v.num = v.num + 0;  // exact 0 has no sign
  }
  return v;
}
// The same number, inexact.
template <class Num>
Value<Num> inexactValue(Value<Num> v) {
  if (v.kind == Kind::Number) v.bits = 0;
  return v;
}

// Everything one evaluation allocates; it lives until the evaluation ends, so nothing is collected.
template <class Num>
class Heap {
 public:
  explicit Heap(uint64_t cellBudget) : budget_(cellBudget) {}

  Value<Num> cons(const Value<Num>& a, const Value<Num>& d) {
    charge(1);
    pairs_.push_back({a, d});
    return Value<Num>::object(Kind::Pair, &pairs_.back());
  }
  Value<Num> closure(const CoreExpr* lambda, Frame<Num>* env) {
    charge(1);
    closures_.push_back({lambda, env});
    return Value<Num>::object(Kind::Closure, &closures_.back());
  }
  Frame<Num>* frame(Frame<Num>* parent, std::vector<Value<Num>> slots) {
    charge(slots.size() + 1);
    frames_.push_back({parent, std::move(slots)});
    return &frames_.back();
  }
  // A tensor of zeros.
  Tensor<Num>& tensor(int rank, int rows, int cols) {
    charge(static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols) + 1);
    tensors_.push_back({rank, rows, cols, std::vector<Num>(static_cast<size_t>(rows) * static_cast<size_t>(cols))});
    return tensors_.back();
  }
  Value<Num> vector(std::vector<Value<Num>> items) {
    charge(items.size() + 1);
    vectors_.push_back({std::move(items)});
    return Value<Num>::object(Kind::Vector, &vectors_.back());
  }
  static Value<Num> value(const Tensor<Num>& t) { return Value<Num>::object(Kind::Tensor, &t); }
  // A string or a symbol made at run time (the text primitives); the program's own point into its text.
  Value<Num> text(Kind k, std::string s) {
    charge(1);
    strings_.push_back(std::move(s));
    return Value<Num>::object(k, &strings_.back());
  }
  uint64_t cells() const { return cells_; }

  // Counts n cells (of about 100 bytes each) against the budget.
  void charge(uint64_t n) {
    cells_ += n;
    if (cells_ > budget_)
      throw DmciError(ErrorKind::Budget, "heap budget exhausted (" + std::to_string(budget_) + " cells)");
  }

 private:
  uint64_t budget_;
  uint64_t cells_ = 0;
  std::deque<Pair<Num>> pairs_;
  std::deque<Closure<Num>> closures_;
  std::deque<Frame<Num>> frames_;
  std::deque<Tensor<Num>> tensors_;
  std::deque<VectorObj<Num>> vectors_;
  std::deque<std::string> strings_;
};

}  // namespace dmci::oracle
