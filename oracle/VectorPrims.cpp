// The vector primitives for the oracle's values: a vector is a heap object holding its elements, which
// vector-set! changes in place (the oracle's values are not on a tape: a perturbed run writes perturbed numbers). An
// index or a bound is a discrete argument (a decision, as list-ref's index), so a perturbed run reads the seed's
// element.
#include <optional>
#include <string>
#include <vector>

#include "oracle/Interpreter.h"
#include "oracle/Oracle.h"

namespace dmci::oracle {
namespace {

template <class Num>
using V = Value<Num>;

template <class Num>
const std::vector<V<Num>>& elementsOf(const PrimCall<Num>& c, int k) {
  if (c[k].kind != Kind::Vector) c.wrongType(k, "a vector");
  return c[k].vector().items;
}

[[noreturn]] void outOfRange(const CoreExpr* site, const char* name, const char* what, long index, size_t length) {
  throw DmciError(ErrorKind::Domain,
                  std::string(name) + ": " + what + " " + std::to_string(index) +
                      " is out of range for a vector of length " + std::to_string(length),
                  site->pos);
}

// Argument k as a non-negative integer, decided as a discrete argument.
template <class Num>
long natural(const PrimCall<Num>& c, int k) {
  bool valid = c[k].isNumber() && isInteger(c[k].num) && c[k].num >= 0 && c[k].num <= 2e9;
  if (!valid && c.in.recording()) c.wrongType(k, "a non-negative integer");
  std::optional<Num> own;
  if (valid) own = c[k].num;
  Num x = c[k].isNumber() ? c[k].num : Num(0);
  return static_cast<long>(
      static_cast<double>(c.decide(DecisionKind::Discrete, own, Closeness<Num>::between(x, x), x)));
}

// The [start, end) of the optional arguments 1 and 2.
template <class Num>
std::pair<size_t, size_t> range(const PrimCall<Num>& c, size_t n) {
  long start = c.argc() > 1 ? natural(c, 1) : 0;
  long end = c.argc() > 2 ? natural(c, 2) : static_cast<long>(n);
  if (end > static_cast<long>(n)) outOfRange(c.site, c.name, "end", end, n);
  if (start > end) outOfRange(c.site, c.name, "start", start, static_cast<size_t>(end));
  return {static_cast<size_t>(start), static_cast<size_t>(end)};
}

template <class Num>
V<Num> vectorPrim(const PrimCall<Num>& c) {
  return c.heap().vector(c.args);
}

template <class Num>
V<Num> isVector(const PrimCall<Num>& c) {
  return V<Num>::boolean(c[0].kind == Kind::Vector);
}

template <class Num>
V<Num> vectorLength(const PrimCall<Num>& c) {
  return keepExact(V<Num>::number(Num(static_cast<double>(elementsOf(c, 0).size()))), true);
}

template <class Num>
V<Num> vectorRef(const PrimCall<Num>& c) {
  const auto& xs = elementsOf(c, 0);
  long k = natural(c, 1);
  if (k >= static_cast<long>(xs.size())) outOfRange(c.site, c.name, "index", k, xs.size());
  return xs[static_cast<size_t>(k)];
}

// (vector-set! v k x): x becomes element k of v, a mutable vector (a literal is refused, as on the engines).
template <class Num>
V<Num> vectorSet(const PrimCall<Num>& c) {
  const auto& xs = elementsOf(c, 0);
  long k = natural(c, 1);
  if (k >= static_cast<long>(xs.size())) outOfRange(c.site, c.name, "index", k, xs.size());
  auto& v = const_cast<VectorObj<Num>&>(c[0].vector());  // the heap's own, mutable object
  if (v.literal)
    throw DmciError(ErrorKind::Domain,
                    "vector-set!: the vector is a literal constant, which cannot be changed (copy it first: "
                    "(vector-copy #(...)))",
                    c.site->pos);
  v.items[static_cast<size_t>(k)] = c[2];
  return V<Num>::nil();
}

template <class Num>
V<Num> vectorToList(const PrimCall<Num>& c) {
  const auto& xs = elementsOf(c, 0);
  auto [start, end] = range(c, xs.size());
  V<Num> acc = V<Num>::nil();
  for (size_t k = end; k-- > start;) acc = c.heap().cons(xs[k], acc);
  return acc;
}

template <class Num>
V<Num> listToVector(const PrimCall<Num>& c) {
  std::vector<V<Num>> items;
  V<Num> l = c[0];
  for (; l.kind == Kind::Pair; l = l.pair().cdr) items.push_back(l.pair().car);
  if (l.kind != Kind::Nil) c.wrongType(0, "a proper list");
  return c.heap().vector(std::move(items));
}

template <class Num>
V<Num> vectorCopy(const PrimCall<Num>& c) {
  const auto& xs = elementsOf(c, 0);
  auto [start, end] = range(c, xs.size());
  return c.heap().vector(
      std::vector<V<Num>>(xs.begin() + static_cast<long>(start), xs.begin() + static_cast<long>(end)));
}

template <class Num>
V<Num> vectorAppend(const PrimCall<Num>& c) {
  std::vector<V<Num>> items;
  for (int k = 0; k < c.argc(); ++k) {
    const auto& xs = elementsOf(c, k);
    items.insert(items.end(), xs.begin(), xs.end());
  }
  return c.heap().vector(std::move(items));
}

}  // namespace

template <class Num>
void addVectorPrims(PrimRegistry<Num>& r) {
  r.add("vector", vectorPrim<Num>);
  r.add("vector?", isVector<Num>);
  r.add("vector-length", vectorLength<Num>);
  r.add("vector-ref", vectorRef<Num>);
  r.add("vector-set!", vectorSet<Num>);
  r.add("vector->list", vectorToList<Num>);
  r.add("list->vector", listToVector<Num>);
  r.add("vector-copy", vectorCopy<Num>);
  r.add("vector-append", vectorAppend<Num>);
}

template void addVectorPrims<Wide>(PrimRegistry<Wide>&);

}  // namespace dmci::oracle
