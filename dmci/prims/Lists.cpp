// The list primitives on the single-assignment heap, and the rows of the list library procedures written in
// Scheme (their source is prims/prelude.scm).
//
// Elements are stored as they are, so a number keeps its tape slot and gradients flow through lists.
// A value read from the heap is copied before rt.cons, which may grow (and move) the heap.
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "prims/Equivalence.h"
#include "prims/Prelude.h"
#include "prims/PrimTable.h"
#include "runtime/ExactValue.h"
#include "syntax/Datum.h"

namespace dmci {
namespace {

// Appends the elements of the proper list args[k] to `out`, or throws a Type error naming the primitive.
void elements(const Runtime& rt, const char* name, const Value* args, int k, std::vector<Value>& out) {
  Value v = args[k];
  for (; v.tag == Tag::Pair; v = rt.cdr(v)) out.push_back(rt.car(v));
  if (v.tag != Tag::Nil) wrongType(rt, name, k, args[k], "a proper list");
}

// --- car, cdr and the c[ad]{2,3}r compositions ---

// "car", "cdr", then every c[ad]{2,3}r: one row per a/d string of length 1 to 3,
// with its doc line spelled out, e.g. "(cadr x) = (car (cdr x))".
struct CxrRow {
  char name[6];
  char doc[40];
};

constexpr auto kCxrs = [] {
  std::array<CxrRow, 14> rows{};
  size_t n = 0;
  for (int len = 1; len <= 3; ++len) {
    for (int bits = 0; bits < (1 << len); ++bits, ++n) {
      char* name = rows[n].name;
      name[0] = 'c';
      for (int k = 0; k < len; ++k) name[1 + k] = (bits >> (len - 1 - k)) & 1 ? 'd' : 'a';
      name[1 + len] = 'r';
      char* doc = rows[n].doc;
      size_t at = 0;
      auto put = [&](const char* s) {
        while (*s) doc[at++] = *s++;
      };
      put("(");
      put(name);
      if (len == 1) {
        put(name[1] == 'a' ? " x) the first element of the pair x" : " x) the rest of the pair x");
        continue;
      }
      put(" x) = ");
      for (int k = 1; k <= len; ++k) put(name[k] == 'a' ? "(car " : "(cdr ");
      put("x");
      for (int k = 1; k <= len; ++k) put(")");
    }
  }
  return rows;
}();

// Applies the a/d letters of `name` right to left, as (cadr x) = (car (cdr x)).
Value walkCxr(const Runtime& rt, const char* name, const Value& x) {
  const int last = static_cast<int>(std::strlen(name)) - 2;
  Value v = x;
  for (int k = last; k >= 1; --k) {
    if (v.tag != Tag::Pair) {
      if (k == last) wrongType(rt, name, 0, x, "a pair");
      // e.g. (cadr '(1)): "cadr: argument 1 must be a pair whose cdr is a pair, got (1)"
      std::string applied = "a pair whose c" + std::string(name + k + 1, static_cast<size_t>(last - k)) + "r is a pair";
      wrongType(rt, name, 0, x, applied.c_str());
    }
    v = name[k] == 'a' ? rt.car(v) : rt.cdr(v);
  }
  return v;
}

template <size_t K>
Value cxr(Runtime& rt, const Value* args, int) {
  if constexpr (K >= 2) return walkCxr(rt, kCxrs[K].name, args[0]);
  // car and cdr are hot: no walk.
  if (args[0].tag != Tag::Pair) wrongType(rt, kCxrs[K].name, 0, args[0], "a pair");
  return K == 0 ? rt.car(args[0]) : rt.cdr(args[0]);
}

template <size_t... K>
void addCxrs(std::vector<Primitive>& t, std::index_sequence<K...>) {
  (t.push_back({kCxrs[K].name, 1, 1, cxr<K>, nullptr, nullptr, PrimFamily::List, kCxrs[K].doc,
                "gradients flow through: the element keeps its tape slot", laneUse(LaneReads::Nothing)}),
   ...);
}

// --- construction and whole-list operations ---

Value consPrim(Runtime& rt, const Value* a, int) { return rt.cons(a[0], a[1]); }

Value listPrim(Runtime& rt, const Value* a, int n) {
  Value acc = Value::nil();
  for (int k = n - 1; k >= 0; --k) acc = rt.cons(a[k], acc);
  return acc;
}

Value lengthPrim(Runtime& rt, const Value* a, int) {
  double n = 0;
  Value v = a[0];
  for (; v.tag == Tag::Pair; v = rt.cdr(v)) ++n;
  if (v.tag != Tag::Nil) wrongType(rt, "length", 0, a[0], "a proper list");
  return exactNumberValue(n);
}

// Copies every list but the last, which becomes the shared tail (any value).
Value appendPrim(Runtime& rt, const Value* a, int n) {
  if (n == 0) return Value::nil();
  Value acc = a[n - 1];
  std::vector<Value> items;
  for (int k = n - 2; k >= 0; --k) {
    items.clear();
    elements(rt, "append", a, k, items);
    for (auto it = items.rbegin(); it != items.rend(); ++it) acc = rt.cons(*it, acc);
  }
  return acc;
}

Value reversePrim(Runtime& rt, const Value* a, int) {
  Value acc = Value::nil();
  Value v = a[0];
  for (; v.tag == Tag::Pair; v = rt.cdr(v)) {
    Value x = rt.car(v);
    acc = rt.cons(x, acc);
  }
  if (v.tag != Tag::Nil) wrongType(rt, "reverse", 0, a[0], "a proper list");
  return acc;
}

// --- list-ref and list-tail: a non-negative integer index, past the end is a Domain error ---

[[noreturn]] void pastTheEnd(const Runtime& rt, const char* name, const Value& list, double index) {
  double n = 0;
  for (Value v = list; v.tag == Tag::Pair; v = rt.cdr(v)) ++n;
  throw DmciError(ErrorKind::Domain, std::string(name) + ": index " + formatNumber(index) +
                                         " is past the end of a list of length " + formatNumber(n));
}

// The list after dropping `index` pairs from args[0], checking both arguments.
Value dropPairs(const Runtime& rt, const char* name, const Value* a) {
  if (a[0].tag != Tag::Pair && a[0].tag != Tag::Nil) wrongType(rt, name, 0, a[0], "a list");
  double index = a[1].isNumber() ? a[1].num : -1;
  if (!(index >= 0) || std::floor(index) != index || std::isinf(index))
    wrongType(rt, name, 1, a[1], "a non-negative integer");
  Value v = a[0];
  for (double k = 0; k < index; ++k) {
    if (v.tag != Tag::Pair) pastTheEnd(rt, name, a[0], index);
    v = rt.cdr(v);
  }
  return v;
}

Value listTailPrim(Runtime& rt, const Value* a, int) { return dropPairs(rt, "list-tail", a); }

Value listRefPrim(Runtime& rt, const Value* a, int) {
  Value v = dropPairs(rt, "list-ref", a);
  if (v.tag != Tag::Pair) pastTheEnd(rt, "list-ref", a[0], a[1].num);
  return rt.car(v);
}

// --- searches: assq assv %assoc-equal return the entry, memq memv %member-equal the sublist, or #f ---

bool sameEqv(const Runtime&, const Value& x, const Value& y) { return isEqv(x, y); }

template <bool (*Same)(const Runtime&, const Value&, const Value&)>
Value assocBy(const Runtime& rt, const char* name, const Value* a) {
  Value v = a[1];
  for (; v.tag == Tag::Pair; v = rt.cdr(v)) {
    const Value& entry = rt.car(v);
    if (entry.tag != Tag::Pair) wrongType(rt, name, 1, a[1], "a list of pairs");
    if (Same(rt, a[0], rt.car(entry))) return entry;
  }
  if (v.tag != Tag::Nil) wrongType(rt, name, 1, a[1], "a list of pairs");
  return Value::boolean(false);
}

template <bool (*Same)(const Runtime&, const Value&, const Value&)>
Value memberBy(const Runtime& rt, const char* name, const Value* a) {
  Value v = a[1];
  for (; v.tag == Tag::Pair; v = rt.cdr(v))
    if (Same(rt, a[0], rt.car(v))) return v;
  if (v.tag != Tag::Nil) wrongType(rt, name, 1, a[1], "a proper list");
  return Value::boolean(false);
}

Value assqPrim(Runtime& rt, const Value* a, int) { return assocBy<sameEqv>(rt, "assq", a); }
Value assvPrim(Runtime& rt, const Value* a, int) { return assocBy<sameEqv>(rt, "assv", a); }
Value assocPrim(Runtime& rt, const Value* a, int) { return assocBy<isEqual>(rt, "assoc", a); }
Value memqPrim(Runtime& rt, const Value* a, int) { return memberBy<sameEqv>(rt, "memq", a); }
Value memvPrim(Runtime& rt, const Value* a, int) { return memberBy<sameEqv>(rt, "memv", a); }
Value memberPrim(Runtime& rt, const Value* a, int) { return memberBy<isEqual>(rt, "member", a); }

}  // namespace

void addListPrims(std::vector<Primitive>& t) {
  const auto L = PrimFamily::List;
  using R = LaneReads;
  const char* flows = "gradients flow through: elements keep their tape slots";
  addCxrs(t, std::make_index_sequence<kCxrs.size()>{});
  t.push_back({"cons", 2, 2, consPrim, nullptr, nullptr, L, "(cons a d) a new pair", flows, laneUse(R::Nothing)});
  t.push_back({"list", 0, -1, listPrim, nullptr, nullptr, L, "(list x ...) a new list of the arguments", flows,
               laneUse(R::Nothing)});
  t.push_back({"length", 1, 1, lengthPrim, nullptr, nullptr, L, "(length l) number of elements of a proper list", "",
               laneUse(R::Nothing)});
  t.push_back({"append", 0, -1, appendPrim, nullptr, nullptr, L,
               "(append l ... tail) the lists' elements followed by tail (any value)", flows, laneUse(R::Nothing)});
  t.push_back({"reverse", 1, 1, reversePrim, nullptr, nullptr, L, "(reverse l) a new list in reverse order", flows,
               laneUse(R::Nothing)});
  t.push_back({"list-ref", 2, 2, listRefPrim, nullptr, nullptr, L, "(list-ref l k) element k (from 0) of l", flows,
               laneUse(R::Arguments)});
  t.push_back({"list-tail", 2, 2, listTailPrim, nullptr, nullptr, L, "(list-tail l k) l without its first k pairs",
               flows, laneUse(R::Arguments)});
  t.push_back({"assq", 2, 2, assqPrim, nullptr, nullptr, L,
               "(assq key alist) first entry whose car is eq? to key, or #f", flows, laneUse(R::ListsByNumber)});
  t.push_back({"assv", 2, 2, assvPrim, nullptr, nullptr, L,
               "(assv key alist) first entry whose car is eqv? to key, or #f", flows, laneUse(R::ListsByNumber)});
  t.push_back(
      {"%assoc-equal", 2, 2, assocPrim, nullptr, nullptr, L,
       "(%assoc-equal key alist) assoc's 2-argument form, native: first entry whose car is equal? to key, or #f", flows,
       laneUse(R::Lists)});
  t.push_back({"memq", 2, 2, memqPrim, nullptr, nullptr, L,
               "(memq x l) the sublist of l starting at the first element eq? to x, or #f", flows,
               laneUse(R::ListsByNumber)});
  t.push_back({"memv", 2, 2, memvPrim, nullptr, nullptr, L,
               "(memv x l) the sublist of l starting at the first element eqv? to x, or #f", flows,
               laneUse(R::ListsByNumber)});
  t.push_back({"%member-equal", 2, 2, memberPrim, nullptr, nullptr, L,
               "(%member-equal x l) member's 2-argument form, native: the sublist of l starting at the first element "
               "equal? to x, or #f",
               flows, laneUse(R::Lists)});

  const char* throughF = "gradients flow through f";
  t.push_back({"map", 2, -1, nullptr, nullptr, preludeSource("map"), L,
               "(map f l ...) the list of f applied to the lists' elements in turn; stops at the shortest list",
               throughF, laneUse(R::NoRule)});
  t.push_back({"for-each", 2, -1, nullptr, nullptr, preludeSource("for-each"), L,
               "(for-each f l ...) applies f to the lists' elements left to right, for effect; returns #t", throughF,
               laneUse(R::NoRule)});
  t.push_back({"filter", 2, 2, nullptr, nullptr, preludeSource("filter"), L,
               "(filter keep? l) the elements of l for which keep? is true, in order", throughF, laneUse(R::NoRule)});
  t.push_back({"assoc", 2, 3, nullptr, nullptr, preludeSource("assoc"), L,
               "(assoc key alist [compare]) first entry whose car is equal? to key, or for which (compare key car) "
               "is true, or #f",
               flows, laneUse(R::NoRule)});
  t.push_back({"member", 2, 3, nullptr, nullptr, preludeSource("member"), L,
               "(member x l [compare]) the sublist of l starting at the first element equal? to x, or for which "
               "(compare x element) is true, or #f",
               flows, laneUse(R::NoRule)});
  t.push_back({"fold-left", 3, 3, nullptr, nullptr, preludeSource("fold-left"), L,
               "(fold-left f init l) (f (... (f (f init x1) x2) ...) xn)", throughF, laneUse(R::NoRule)});
  t.push_back({"fold-right", 3, 3, nullptr, nullptr, preludeSource("fold-right"), L,
               "(fold-right f init l) (f x1 (f x2 (... (f xn init))))", throughF, laneUse(R::NoRule)});
  t.push_back({"reduce", 3, 3, nullptr, nullptr, preludeSource("reduce"), L,
               "(reduce f ridentity l) (fold-left (lambda (acc x) (f x acc)) (car l) (cdr l)), or ridentity for '()",
               throughF, laneUse(R::NoRule)});
}

}  // namespace dmci
