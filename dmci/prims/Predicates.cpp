// The predicates (type tests, number tests, not, eq?, eqv?, equal?); their results are booleans, never on the tape.
#include <cmath>
#include <iterator>
#include <utility>
#include <vector>

#include "prims/Equivalence.h"
#include "prims/PrimTable.h"
#include "runtime/ExactValue.h"

namespace dmci {

bool isEqv(const Value& x, const Value& y) {
  if (x.tag != y.tag) return false;
  switch (x.tag) {
    case Tag::Nil:
    case Tag::Unset:
      return true;
    case Tag::Real:
      return x.num == y.num || (std::isnan(x.num) && std::isnan(y.num));
    case Tag::Int:
    case Tag::Closure:
    case Tag::Vector:
      return x.i == y.i && x.code == y.code;
    default:
      return x.i == y.i;
  }
}

namespace {
bool sameTensor(const Runtime& rt, const Value& x, const Value& y) {
  const TensorRec& a = rt.tensors[x.i];
  const TensorRec& b = rt.tensors[y.i];
  if (a.rank != b.rank || a.rows != b.rows || a.cols != b.cols) return false;
  for (int32_t k = 0; k < a.size(); ++k)
    if (!isEqv(Value::real(rt.tensorData[a.data + k]), Value::real(rt.tensorData[b.data + k]))) return false;
  return true;
}
}  // namespace

bool isEqual(const Runtime& rt, const Value& x, const Value& y) {
  std::vector<std::pair<Value, Value>> todo{{x, y}};
  while (!todo.empty()) {
    auto [a, b] = todo.back();
    todo.pop_back();
    if (a.tag != b.tag) return false;
    if (a.tag == Tag::Pair) {
      if (a.i == b.i) continue;  // the same cell
      todo.emplace_back(rt.cdr(a), rt.cdr(b));
      todo.emplace_back(rt.car(a), rt.car(b));
    } else if (a.tag == Tag::Vector) {
      if (static_cast<int32_t>(a.code) != static_cast<int32_t>(b.code)) return false;  // lengths (Materialise.h)
      if (a.i == b.i) continue;
      for (int32_t k = static_cast<int32_t>(a.code) - 1; k >= 0; --k)
        todo.emplace_back(rt.vectorRef(a, k), rt.vectorRef(b, k));
    } else if (a.tag == Tag::String) {
      if (rt.strings[a.i] != rt.strings[b.i]) return false;
    } else if (a.tag == Tag::Tensor) {
      if (!sameTensor(rt, a, b)) return false;
    } else if (!isEqv(a, b)) {
      return false;
    }
  }
  return true;
}

namespace {

// The heap is single-assignment, so a list cannot be circular: walking to its end terminates.
bool isProperList(const Runtime& rt, Value v) {
  while (v.tag == Tag::Pair) v = rt.cdr(v);
  return v.tag == Tag::Nil;
}

bool isIntegral(double x) { return std::isfinite(x) && std::floor(x) == x; }

// A one-argument test that accepts any value.
struct TypeTest {
  const char* name;
  bool (*holds)(const Runtime& rt, const Value& v);
  const char* doc;
  LaneUse lanes;
};

constexpr TypeTest kTypeTests[] = {
    {"number?", [](const Runtime&, const Value& v) { return v.isNumber(); }, "(number? x) #t for a number",
     laneUse(LaneReads::Nothing)},
    {"integer?", [](const Runtime&, const Value& v) { return v.isNumber() && isIntegral(v.num); },
     "(integer? x) #t for a finite number with no fractional part", laneUse(LaneReads::Arguments, LaneKernel::Integer)},
    {"boolean?", [](const Runtime&, const Value& v) { return v.tag == Tag::Bool; }, "(boolean? x) #t for #t and #f",
     laneUse(LaneReads::Nothing)},
    {"symbol?", [](const Runtime&, const Value& v) { return v.tag == Tag::Symbol; }, "(symbol? x) #t for a symbol",
     laneUse(LaneReads::Nothing)},
    {"procedure?", [](const Runtime&, const Value& v) { return v.isProcedure(); },
     "(procedure? x) #t for a closure or a primitive", laneUse(LaneReads::Nothing)},
    {"null?", [](const Runtime&, const Value& v) { return v.tag == Tag::Nil; }, "(null? x) #t for the empty list",
     laneUse(LaneReads::Nothing)},
    {"pair?", [](const Runtime&, const Value& v) { return v.tag == Tag::Pair; }, "(pair? x) #t for a pair",
     laneUse(LaneReads::Nothing)},
    {"list?", [](const Runtime& rt, const Value& v) { return isProperList(rt, v); },
     "(list? x) #t for a proper list (ending in '())", laneUse(LaneReads::Nothing)},
    {"string?", [](const Runtime&, const Value& v) { return v.tag == Tag::String; }, "(string? x) #t for a string",
     laneUse(LaneReads::Nothing)},
    {"not", [](const Runtime&, const Value& v) { return v.isFalse(); }, "(not x) #t when x is #f, the only false value",
     laneUse(LaneReads::Nothing)},
};

template <size_t K>
Value typeTest(Runtime& rt, const Value* args, int) {
  return Value::boolean(kTypeTests[K].holds(rt, args[0]));
}

// A one-argument test of a number (of an integer when `integral`); anything else is a Type error.
struct NumberTest {
  const char* name;
  bool (*holds)(double x);
  bool integral;
  const char* doc;
  LaneKernel kernel;
};

constexpr NumberTest kNumberTests[] = {
    {"zero?", [](double x) { return x == 0; }, false, "(zero? x) #t when x = 0", LaneKernel::Zero},
    {"positive?", [](double x) { return x > 0; }, false, "(positive? x) #t when x > 0", LaneKernel::Positive},
    {"negative?", [](double x) { return x < 0; }, false, "(negative? x) #t when x < 0", LaneKernel::Negative},
    {"even?", [](double x) { return std::fmod(x, 2.0) == 0; }, true, "(even? n) #t when the integer n is even",
     LaneKernel::Even},
    {"odd?", [](double x) { return std::fmod(x, 2.0) != 0; }, true, "(odd? n) #t when the integer n is odd",
     LaneKernel::Odd},
};

template <size_t K>
Value numberTest(Runtime& rt, const Value* args, int) {
  const NumberTest& t = kNumberTests[K];
  if (!args[0].isNumber()) wrongType(rt, t.name, 0, args[0], "a number");
  if (t.integral && !isIntegral(args[0].num)) wrongType(rt, t.name, 0, args[0], "an integer");
  return Value::boolean(t.holds(args[0].num));
}

// Exactness (runtime/ExactValue.h): exact? and inexact? of a number, exact-integer? of any value.
Value exactPred(Runtime& rt, const Value* a, int) {
  if (!a[0].isNumber()) wrongType(rt, "exact?", 0, a[0], "a number");
  return Value::boolean(isExactNumber(a[0]));
}
Value inexactPred(Runtime& rt, const Value* a, int) {
  if (!a[0].isNumber()) wrongType(rt, "inexact?", 0, a[0], "a number");
  return Value::boolean(!isExactNumber(a[0]));
}
Value exactIntegerPred(Runtime&, const Value* a, int) { return Value::boolean(isExactNumber(a[0])); }

Value eqPrim(Runtime&, const Value* a, int) { return Value::boolean(isEqv(a[0], a[1])); }
Value equalPrim(Runtime& rt, const Value* a, int) { return Value::boolean(isEqual(rt, a[0], a[1])); }

template <size_t... K, size_t... N>
void addTests(std::vector<Primitive>& t, std::index_sequence<K...>, std::index_sequence<N...>) {
  const auto P = PrimFamily::Predicate;
  (t.push_back(
       {kTypeTests[K].name, 1, 1, typeTest<K>, nullptr, nullptr, P, kTypeTests[K].doc, "", kTypeTests[K].lanes}),
   ...);
  (t.push_back({kNumberTests[N].name, 1, 1, numberTest<N>, nullptr, nullptr, P, kNumberTests[N].doc, "",
                laneUse(LaneReads::Arguments, kNumberTests[N].kernel)}),
   ...);
}

}  // namespace

void addPredicatePrims(std::vector<Primitive>& t) {
  addTests(t, std::make_index_sequence<std::size(kTypeTests)>{}, std::make_index_sequence<std::size(kNumberTests)>{});
  const auto P = PrimFamily::Predicate;
  // Exactness reads the value's mark, never a lane's number: a number that differs between lanes is data, inexact.
  t.push_back({"exact?", 1, 1, exactPred, nullptr, nullptr, P,
               "(exact? z) #t for an exact number: an integer of at most 2^53 that a literal without a point, "
               "exact or integer operations on exact numbers made",
               "", laneUse(LaneReads::Nothing)});
  t.push_back({"inexact?", 1, 1, inexactPred, nullptr, nullptr, P, "(inexact? z) #t for a number that is not exact", "",
               laneUse(LaneReads::Nothing)});
  t.push_back({"exact-integer?", 1, 1, exactIntegerPred, nullptr, nullptr, P,
               "(exact-integer? x) #t for an exact number (every exact number is an integer here)", "",
               laneUse(LaneReads::Nothing)});
  // In this language every number is a double, so eq? and eqv? coincide and compare numbers by value.
  t.push_back({"eq?", 2, 2, eqPrim, nullptr, nullptr, P,
               "(eq? x y) #t for the same object; numbers by value, so (eq? 2 2) is #t", "",
               laneUse(LaneReads::Arguments, LaneKernel::Eqv)});
  t.push_back({"eqv?", 2, 2, eqPrim, nullptr, nullptr, P,
               "(eqv? x y) #t for the same object; numbers by value (0 and -0 alike, NaN eqv? NaN)", "",
               laneUse(LaneReads::Arguments, LaneKernel::Eqv)});
  t.push_back({"equal?", 2, 2, equalPrim, nullptr, nullptr, P,
               "(equal? x y) structural equality: lists element by element, strings by content, tensors by "
               "shape and data",
               "", laneUse(LaneReads::Lists)});
}

}  // namespace dmci
