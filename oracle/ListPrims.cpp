// The type tests, equivalence, list primitives and error, for the oracle's values.
// Comparisons that can look at numbers (eqv?, equal?, the searches) record decisions.
#include <cmath>
#include <cstring>
#include <optional>

#include "oracle/Interpreter.h"
#include "oracle/Oracle.h"

namespace dmci::oracle {
namespace {

template <class Num>
using V = Value<Num>;

// --- type tests ---

template <class Num>
bool properList(V<Num> v) {
  while (v.kind == Kind::Pair) v = v.pair().cdr;
  return v.kind == Kind::Nil;
}

template <class Num, Kind K>
V<Num> isKind(const PrimCall<Num>& c) {
  return V<Num>::boolean(c[0].kind == K);
}

template <class Num>
V<Num> isProcedure(const PrimCall<Num>& c) {
  return V<Num>::boolean(c[0].isProcedure());
}

template <class Num>
V<Num> isList(const PrimCall<Num>& c) {
  return V<Num>::boolean(properList(c[0]));
}

template <class Num>
V<Num> notPrim(const PrimCall<Num>& c) {
  return V<Num>::boolean(c[0].isFalse());
}

// --- equivalence ---

// Same kind and payload: numbers by value (NaN eqv? NaN), symbols by name, strings, pairs and
// tensors by identity, closures by code and environment.
template <class Num>
bool eqv(const V<Num>& x, const V<Num>& y, Closeness<Num>* gap) {
  using std::isnan;
  if (x.kind != y.kind) return false;
  switch (x.kind) {
    case Kind::Number:
      if (gap) gap->see(x.num, y.num);
      return x.num == y.num || (isnan(x.num) && isnan(y.num));
    case Kind::Nil:
    case Kind::Unset:
      return true;
    case Kind::Bool:
    case Kind::Char:
    case Kind::Prim:
      return x.bits == y.bits;
    case Kind::Symbol:
      return x.text() == y.text();
    case Kind::Closure:
      return x.closure().lambda == y.closure().lambda && x.closure().env == y.closure().env;
    default:
      return x.ref == y.ref;
  }
}

template <class Num>
bool sameTensor(const Tensor<Num>& a, const Tensor<Num>& b, Closeness<Num>* gap) {
  if (a.rank != b.rank || a.rows != b.rows || a.cols != b.cols) return false;
  for (int k = 0; k < a.size(); ++k)
    if (!eqv(V<Num>::number(a.data[k]), V<Num>::number(b.data[k]), gap)) return false;
  return true;
}

// Structural equality, with an explicit stack so long lists cannot overflow the C++ stack.
template <class Num>
bool equal(const V<Num>& x, const V<Num>& y, Closeness<Num>* gap) {
  std::vector<std::pair<V<Num>, V<Num>>> todo{{x, y}};
  while (!todo.empty()) {
    auto [a, b] = todo.back();
    todo.pop_back();
    if (a.kind != b.kind) return false;
    if (a.kind == Kind::Pair) {
      if (a.ref == b.ref) continue;
      todo.emplace_back(a.pair().cdr, b.pair().cdr);
      todo.emplace_back(a.pair().car, b.pair().car);
    } else if (a.kind == Kind::Vector) {
      if (a.ref == b.ref) continue;
      const auto &xs = a.vector().items, &ys = b.vector().items;
      if (xs.size() != ys.size()) return false;
      for (size_t k = xs.size(); k-- > 0;) todo.emplace_back(xs[k], ys[k]);
    } else if (a.kind == Kind::String) {
      if (a.text() != b.text()) return false;
    } else if (a.kind == Kind::Tensor) {
      if (!sameTensor(a.tensor(), b.tensor(), gap)) return false;
    } else if (!eqv(a, b, gap)) {
      return false;
    }
  }
  return true;
}

// eq? and eqv? of two numbers is a branch decision; of anything else it cannot depend on a number.
template <class Num>
V<Num> eqvPrim(const PrimCall<Num>& c) {
  Closeness<Num> gap;
  bool same = eqv(c[0], c[1], &gap);
  if (c[0].kind != Kind::Number || c[1].kind != Kind::Number) return V<Num>::boolean(same);
  return V<Num>::boolean(c.decide(DecisionKind::Branch, Num(same ? 1 : 0), gap, c[0].num) != 0);
}

template <class Num>
V<Num> equalPrim(const PrimCall<Num>& c) {
  Closeness<Num> gap;
  bool same = equal(c[0], c[1], &gap);
  return V<Num>::boolean(c.decide(DecisionKind::Branch, Num(same ? 1 : 0), gap, Num(0)) != 0);
}

// --- searches: assq assv %assoc-equal give the entry, memq memv %member-equal the sublist, or #f; one decision ---

template <class Num, bool Structural, bool Assoc>
V<Num> search(const PrimCall<Num>& call) {
  // The equal? searches are the rows %assoc-equal and %member-equal; their errors name assoc and member.
  const PrimCall<Num> c{call.in, call.site, Structural ? (Assoc ? "assoc" : "member") : call.name, call.args};
  const char* want = Assoc ? "a list of pairs" : "a proper list";
  Closeness<Num> gap;
  int found = -1, n = 0;
  V<Num> v = c[1];
  for (; v.kind == Kind::Pair && found < 0; v = v.pair().cdr, ++n) {
    V<Num> item = v.pair().car;
    if (Assoc && item.kind != Kind::Pair) c.wrongType(1, want);
    V<Num> key = Assoc ? item.pair().car : item;
    if (Structural ? equal(c[0], key, &gap) : eqv(c[0], key, &gap)) found = n;
  }
  if (found < 0 && v.kind != Kind::Nil) c.wrongType(1, want);
  int at = static_cast<int>(c.decide(DecisionKind::Branch, Num(found), gap, Num(0)));
  if (at < 0) return V<Num>::boolean(false);
  v = c[1];
  for (int k = 0; k < at; ++k) v = v.pair().cdr;
  return Assoc ? v.pair().car : v;
}

// --- car, cdr and the c[ad]{2,3}r: the letters of the name, applied right to left ---

template <class Num>
V<Num> cxr(const PrimCall<Num>& c) {
  const int last = static_cast<int>(std::strlen(c.name)) - 2;
  V<Num> v = c[0];
  for (int k = last; k >= 1; --k) {
    if (v.kind != Kind::Pair) {
      if (k == last) c.wrongType(0, "a pair");
      std::string applied =
          "a pair whose c" + std::string(c.name + k + 1, static_cast<size_t>(last - k)) + "r is a pair";
      c.wrongType(0, applied.c_str());
    }
    v = c.name[k] == 'a' ? v.pair().car : v.pair().cdr;
  }
  return v;
}

// --- construction and whole lists ---

template <class Num>
V<Num> consPrim(const PrimCall<Num>& c) {
  return c.heap().cons(c[0], c[1]);
}

template <class Num>
V<Num> listPrim(const PrimCall<Num>& c) {
  V<Num> acc = V<Num>::nil();
  for (int k = c.argc() - 1; k >= 0; --k) acc = c.heap().cons(c[k], acc);
  return acc;
}

// The elements of the proper list argument k, or a Type error.
template <class Num>
std::vector<V<Num>> elements(const PrimCall<Num>& c, int k) {
  std::vector<V<Num>> out;
  V<Num> v = c[k];
  for (; v.kind == Kind::Pair; v = v.pair().cdr) out.push_back(v.pair().car);
  if (v.kind != Kind::Nil) c.wrongType(k, "a proper list");
  return out;
}

template <class Num>
V<Num> lengthPrim(const PrimCall<Num>& c) {
  return keepExact(V<Num>::number(Num(static_cast<double>(elements(c, 0).size()))), true);
}

// Copies every list but the last, which becomes the shared tail (any value).
template <class Num>
V<Num> appendPrim(const PrimCall<Num>& c) {
  if (c.argc() == 0) return V<Num>::nil();
  V<Num> acc = c[c.argc() - 1];
  for (int k = c.argc() - 2; k >= 0; --k) {
    std::vector<V<Num>> items = elements(c, k);
    for (auto it = items.rbegin(); it != items.rend(); ++it) acc = c.heap().cons(*it, acc);
  }
  return acc;
}

template <class Num>
V<Num> reversePrim(const PrimCall<Num>& c) {
  V<Num> acc = V<Num>::nil();
  for (const V<Num>& x : elements(c, 0)) acc = c.heap().cons(x, acc);
  return acc;
}

// --- list-ref and list-tail: the index is a discrete argument ---

template <class Num>
[[noreturn]] void pastTheEnd(const PrimCall<Num>& c, const Num& index) {
  Num n = 0;
  for (V<Num> p = c[0]; p.kind == Kind::Pair; p = p.pair().cdr) ++n;
  throw DmciError(ErrorKind::Domain,
                  std::string(c.name) + ": index " + show(V<Num>::number(index)) +
                      " is past the end of a list of length " + show(V<Num>::number(n)),
                  c.site->pos);
}

// The list after dropping `index` pairs, the index being a discrete argument.
template <class Num>
V<Num> dropPairs(const PrimCall<Num>& c, Num& index) {
  if (c[0].kind != Kind::Pair && c[0].kind != Kind::Nil) c.wrongType(0, "a list");
  bool valid = c[1].isNumber() && isInteger(c[1].num) && c[1].num >= 0;
  if (!valid && c.in.recording()) c.wrongType(1, "a non-negative integer");
  std::optional<Num> natural;
  if (valid) natural = c[1].num;
  Num x = c[1].isNumber() ? c[1].num : Num(0);
  index = c.decide(DecisionKind::Discrete, natural, Closeness<Num>::between(x, x), x);
  V<Num> v = c[0];
  for (Num k = 0; k < index; ++k) {
    if (v.kind != Kind::Pair) pastTheEnd(c, index);
    v = v.pair().cdr;
  }
  return v;
}

template <class Num>
V<Num> listTailPrim(const PrimCall<Num>& c) {
  Num index;
  return dropPairs(c, index);
}

template <class Num>
V<Num> listRefPrim(const PrimCall<Num>& c) {
  Num index;
  V<Num> v = dropPairs(c, index);
  if (v.kind != Kind::Pair) pastTheEnd(c, index);
  return v.pair().car;
}

// --- error: stops the run with the message and the irritants ---

template <class Num>
V<Num> errorPrim(const PrimCall<Num>& c) {
  std::string msg = c[0].kind == Kind::String ? c[0].text() : show(c[0]);
  for (int k = 1; k < c.argc(); ++k) msg.append(" ").append(show(c[k]));
  throw DmciError(ErrorKind::User, msg, c.site->pos);
}

// Boxes, which lower/Control.h's conversion makes for a letrec* variable a lambda of its group uses: a cell of
// the evaluation's heap, unset until written, written again when a continuation re-enters the variable's
// initialiser (boxes are never seen by user code).
template <class Num>
V<Num> boxNew(const PrimCall<Num>& c) {
  return c.heap().cons(V<Num>::unset(), V<Num>::nil());
}

template <class Num>
V<Num> boxSet(const PrimCall<Num>& c) {
  if (c[0].kind != Kind::Pair) c.wrongType(0, "a box");
  auto& cell = const_cast<Pair<Num>&>(c[0].pair());  // the heap's own, mutable object
  cell.car = c[1];
  return V<Num>::boolean(true);
}

template <class Num>
V<Num> boxRef(const PrimCall<Num>& c) {
  if (c[0].kind != Kind::Pair) c.wrongType(0, "a box");
  if (c[0].pair().car.kind == Kind::Unset)
    throw DmciError(ErrorKind::Unbound,
                    (c[1].kind == Kind::Symbol ? c[1].text() : std::string("?")) + ": used before its definition",
                    c.site->pos);
  return c[0].pair().car;
}

}  // namespace

template <class Num>
void addListPrims(PrimRegistry<Num>& r) {
  r.add("%box-new", boxNew<Num>);
  r.add("%box-set!", boxSet<Num>);
  r.add("%box-ref", boxRef<Num>);
  r.add("number?", isKind<Num, Kind::Number>);
  r.add("boolean?", isKind<Num, Kind::Bool>);
  r.add("symbol?", isKind<Num, Kind::Symbol>);
  r.add("string?", isKind<Num, Kind::String>);
  r.add("null?", isKind<Num, Kind::Nil>);
  r.add("pair?", isKind<Num, Kind::Pair>);
  r.add("procedure?", isProcedure<Num>);
  r.add("list?", isList<Num>);
  r.add("not", notPrim<Num>);
  r.add("eq?", eqvPrim<Num>);
  r.add("eqv?", eqvPrim<Num>);
  r.add("equal?", equalPrim<Num>);
  r.add("assq", search<Num, false, true>);
  r.add("assv", search<Num, false, true>);
  r.add("%assoc-equal", search<Num, true, true>);
  r.add("memq", search<Num, false, false>);
  r.add("memv", search<Num, false, false>);
  r.add("%member-equal", search<Num, true, false>);
  for (const char* name : {"car", "cdr", "caar", "cadr", "cdar", "cddr", "caaar", "caadr", "cadar", "caddr", "cdaar",
                           "cdadr", "cddar", "cdddr"})
    r.add(name, cxr<Num>);
  r.add("cons", consPrim<Num>);
  r.add("list", listPrim<Num>);
  r.add("length", lengthPrim<Num>);
  r.add("append", appendPrim<Num>);
  r.add("reverse", reversePrim<Num>);
  r.add("list-ref", listRefPrim<Num>);
  r.add("list-tail", listTailPrim<Num>);
  r.add("error", errorPrim<Num>);
}

template void addListPrims<Wide>(PrimRegistry<Wide>&);

}  // namespace dmci::oracle
