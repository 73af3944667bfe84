// The vector primitives: R7RS vectors on the single-assignment heap, and the rows of the vector library
// procedures written in Scheme (their source is prims/prelude.scm).
//
// A vector of n elements is n consecutive heap cells (Value.h: Tag::Vector, i = the first cell, code = n), so
// vector-ref is one read whatever the index. Elements are stored as they are: a number keeps its tape slot, so a
// vector of parameters gets its gradient entry by entry. vector-set! writes the next version of one element's
// cell, as set! writes a box's (expand/Assign.cpp): reverse mode follows values, not cells, so each version keeps
// the tape slot of the number written and a gradient through a mutated vector is exact with no store record on
// the tape. A literal vector (made before the run, Materialise.h) is refused: R7RS makes changing one an error,
// and the collector never scans cells older than the run (machine/Collector.cpp). vector-fill! is Scheme over
// vector-set! (prelude.scm); vector-fill gives a new vector (README, "Vectors").
#include <cmath>
#include <string>
#include <vector>

#include "prims/Prelude.h"
#include "prims/PrimTable.h"
#include "runtime/ExactValue.h"
#include "runtime/Materialise.h"
#include "syntax/Datum.h"

namespace dmci {
namespace {

int32_t lengthOf(const Value& v) { return static_cast<int32_t>(v.code); }

const Value& vectorArg(const Runtime& rt, const char* name, const Value* a, int k) {
  if (a[k].tag != Tag::Vector) wrongType(rt, name, k, a[k], "a vector");
  return a[k];
}

// Argument k as a non-negative integer (an index or a bound), else a Type error naming the primitive.
int32_t naturalArg(const Runtime& rt, const char* name, const Value* a, int k) {
  double x = a[k].isNumber() ? a[k].num : -1;
  if (!(x >= 0) || std::floor(x) != x || x > 2e9) wrongType(rt, name, k, a[k], "a non-negative integer");
  return static_cast<int32_t>(x);
}

[[noreturn]] void outOfRange(const char* name, const char* what, int32_t index, int32_t length) {
  throw DmciError(ErrorKind::Domain, std::string(name) + ": " + what + " " + std::to_string(index) +
                                         " is out of range for a vector of length " + std::to_string(length));
}

// The [start, end) range of the optional arguments 1 and 2 (R7RS vector->list, vector-copy).
std::pair<int32_t, int32_t> range(const Runtime& rt, const char* name, const Value* a, int argc, int32_t n) {
  int32_t start = argc > 1 ? naturalArg(rt, name, a, 1) : 0;
  int32_t end = argc > 2 ? naturalArg(rt, name, a, 2) : n;
  if (end > n) outOfRange(name, "end", end, n);
  if (start > end) outOfRange(name, "start", start, end);
  return {start, end};
}

Value vectorPrim(Runtime& rt, const Value* a, int n) { return rt.vector(a, n); }

// A vector marked as a literal constant (Materialise.h): lantern's rebuilding of a vector literal whose numbers are
// its dual leaves (lantern/Lantern.cpp), so vector-set! refuses it there as it does on the other routes.
Value literalVector(Runtime& rt, const Value* a, int n) {
  Value v = rt.vector(a, n);
  v.code |= kLiteralVector;
  return v;
}

Value isVector(Runtime&, const Value* a, int) { return Value::boolean(a[0].tag == Tag::Vector); }

Value vectorLength(Runtime& rt, const Value* a, int) {
  return exactNumberValue(lengthOf(vectorArg(rt, "vector-length", a, 0)));
}

Value vectorRef(Runtime& rt, const Value* a, int) {
  const Value& v = vectorArg(rt, "vector-ref", a, 0);
  int32_t k = naturalArg(rt, "vector-ref", a, 1);
  if (k >= lengthOf(v)) outOfRange("vector-ref", "index", k, lengthOf(v));
  return rt.vectorRef(v, k);
}

// (vector-set! v k x): element k's next version is x; the unspecified value ('(), as set!'s).
Value vectorSet(Runtime& rt, const Value* a, int) {
  const Value& v = vectorArg(rt, "vector-set!", a, 0);
  int32_t k = naturalArg(rt, "vector-set!", a, 1);
  if (k >= lengthOf(v)) outOfRange("vector-set!", "index", k, lengthOf(v));
  if (v.code & kLiteralVector)
    throw DmciError(ErrorKind::Domain,
                    "vector-set!: the vector is a literal constant, which cannot be changed "
                    "(copy it first: (vector-copy #(...)))");
  rt.heap[static_cast<size_t>(v.i + k)] = a[2];
  return Value::nil();
}

Value vectorToList(Runtime& rt, const Value* a, int argc) {
  const Value v = vectorArg(rt, "vector->list", a, 0);
  auto [start, end] = range(rt, "vector->list", a, argc, lengthOf(v));
  Value acc = Value::nil();
  for (int32_t k = end - 1; k >= start; --k) {
    Value x = rt.vectorRef(v, k);  // a copy: cons may move the heap
    acc = rt.cons(x, acc);
  }
  return acc;
}

Value listToVector(Runtime& rt, const Value* a, int) {
  std::vector<Value> items;
  Value l = a[0];
  for (; l.tag == Tag::Pair; l = rt.cdr(l)) items.push_back(rt.car(l));
  if (l.tag != Tag::Nil) wrongType(rt, "list->vector", 0, a[0], "a proper list");
  return rt.vector(items.data(), static_cast<int32_t>(items.size()));
}

Value vectorCopy(Runtime& rt, const Value* a, int argc) {
  const Value v = vectorArg(rt, "vector-copy", a, 0);
  auto [start, end] = range(rt, "vector-copy", a, argc, lengthOf(v));
  std::vector<Value> items(rt.heap.begin() + v.i + start, rt.heap.begin() + v.i + end);
  return rt.vector(items.data(), end - start);
}

Value vectorAppend(Runtime& rt, const Value* a, int argc) {
  std::vector<Value> items;
  for (int k = 0; k < argc; ++k) {
    const Value& v = vectorArg(rt, "vector-append", a, k);
    items.insert(items.end(), rt.heap.begin() + v.i, rt.heap.begin() + v.i + lengthOf(v));
  }
  return rt.vector(items.data(), static_cast<int32_t>(items.size()));
}

}  // namespace

void addVectorPrims(std::vector<Primitive>& t) {
  const auto V = PrimFamily::Vector;
  using R = LaneReads;
  const char* flows = "gradients flow through: elements keep their tape slots";
  t.push_back({"vector", 0, -1, vectorPrim, nullptr, nullptr, V, "(vector x ...) a new vector of the arguments", flows,
               laneUse(R::Nothing)});
  t.push_back({"%literal-vector", 0, -1, literalVector, nullptr, nullptr, PrimFamily::Internal,
               "(%literal-vector x ...) a new vector marked as a literal constant, which vector-set! refuses", flows,
               laneUse(R::Nothing)});
  t.push_back({"vector?", 1, 1, isVector, nullptr, nullptr, V, "(vector? x) #t for a vector", "", laneUse(R::Nothing)});
  t.push_back({"vector-length", 1, 1, vectorLength, nullptr, nullptr, V,
               "(vector-length v) the number of elements of v", "", laneUse(R::Nothing)});
  t.push_back({"vector-ref", 2, 2, vectorRef, nullptr, nullptr, V,
               "(vector-ref v k) element k (from 0) of v, in constant time", flows, laneUse(R::Arguments)});
  t.push_back({"vector-set!", 3, 3, vectorSet, nullptr, nullptr, V,
               "(vector-set! v k x) makes x element k of v (its cell's next version); a literal vector is refused",
               flows, laneUse(R::Nothing)});
  t.push_back({"vector->list", 1, 3, vectorToList, nullptr, nullptr, V,
               "(vector->list v [start [end]]) a new list of the elements of v from start to end", flows,
               laneUse(R::Arguments)});
  t.push_back({"list->vector", 1, 1, listToVector, nullptr, nullptr, V,
               "(list->vector l) a new vector of the elements of the proper list l", flows, laneUse(R::Nothing)});
  t.push_back({"vector-copy", 1, 3, vectorCopy, nullptr, nullptr, V,
               "(vector-copy v [start [end]]) a new vector of the elements of v from start to end", flows,
               laneUse(R::Arguments)});
  t.push_back({"vector-append", 0, -1, vectorAppend, nullptr, nullptr, V,
               "(vector-append v ...) a new vector of the vectors' elements in turn", flows, laneUse(R::Nothing)});

  const char* throughF = "gradients flow through f";
  t.push_back({"make-vector", 1, 2, nullptr, nullptr, preludeSource("make-vector"), V,
               "(make-vector k [fill]) a new vector of k elements, each fill (0 when omitted)", flows,
               laneUse(R::NoRule)});
  t.push_back({"vector-fill", 2, 4, nullptr, nullptr, preludeSource("vector-fill"), V,
               "(vector-fill v x [start [end]]) a new vector: v with the elements from start to end replaced by x",
               flows, laneUse(R::NoRule)});
  t.push_back({"vector-fill!", 2, 4, nullptr, nullptr, preludeSource("vector-fill!"), V,
               "(vector-fill! v x [start [end]]) makes x each element of v from start to end, by vector-set!", flows,
               laneUse(R::NoRule)});
  t.push_back({"vector-copy!", 3, 5, nullptr, nullptr, preludeSource("vector-copy!"), V,
               "(vector-copy! to at from [start [end]]) from's elements from start to end written into to from at",
               flows, laneUse(R::NoRule)});
  t.push_back({"string->vector", 1, 3, nullptr, nullptr, preludeSource("string->vector"), V,
               "(string->vector s [start [end]]) a new vector of the characters of s from start to end", "",
               laneUse(R::NoRule)});
  t.push_back({"vector->string", 1, 3, nullptr, nullptr, preludeSource("vector->string"), V,
               "(vector->string v [start [end]]) a new string of the characters of v from start to end", "",
               laneUse(R::NoRule)});
  t.push_back({"vector-map", 2, -1, nullptr, nullptr, preludeSource("vector-map"), V,
               "(vector-map f v ...) the vector of f applied to the vectors' elements in turn; stops at the shortest",
               throughF, laneUse(R::NoRule)});
  t.push_back({"vector-for-each", 2, -1, nullptr, nullptr, preludeSource("vector-for-each"), V,
               "(vector-for-each f v ...) applies f to the vectors' elements left to right, for effect; returns #t",
               throughF, laneUse(R::NoRule)});
}

}  // namespace dmci
