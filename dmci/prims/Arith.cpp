// The arithmetic primitives: + - * / with their partials, comparisons, min and max, and integer division.
// Each keeps exactness as R7RS does on the integers a double holds (runtime/ExactValue.h): exact arguments give
// an exact result when it is such an integer, and an inexact argument makes the result inexact.
#include <cmath>
#include <string>

#include "prims/ArithRules.h"
#include "runtime/ExactValue.h"

namespace dmci {
namespace {

// --- + - * / : left folds of one binary rule; a tensor operand goes to tensorElementwise ---

const Value& operand(const Runtime& rt, const char* name, const Value* args, int k) {
  if (!args[k].isNumber() && args[k].tag != Tag::Tensor) wrongType(rt, name, k, args[k], "a number");
  return args[k];
}

// x op y, with the rule's local partials d/dx and d/dy beside its value.
Value combine(Runtime& rt, char op, const Value& x, const Value& y) {
  if (x.tag == Tag::Tensor || y.tag == Tag::Tensor) return tensorElementwise(rt, op, x, y);
  double a = x.num, b = y.num;
  switch (op) {
    case '+':
      return rt.binary(a + b, x, 1.0, y, 1.0);
    case '-':
      return rt.binary(a - b, x, 1.0, y, -1.0);
    case '*':
#ifdef DMCI_PLANT_TAPE  // a planted count change for ci/perf-report's acceptance runs: an identity entry more
      return rt.unary(a * b, rt.binary(a * b, x, b, y, a), 1.0);
#endif
      return rt.binary(a * b, x, b, y, a);
    default: {
      double q = a / b;
      return rt.binary(q, x, 1.0 / b, y, -q / b);
    }
  }
}

// x op y of two exact numbers (constants): + - * of integers is an integer, exact while a double holds it, so
// only its size is checked; a quotient is exact when it divides.
Value exactResult(char op, const Value& r) {
  if (op == '/') return keepExact(r, true);
  return std::fabs(r.num) <= kExactIntegerLimit ? Value::real(r.num + 0.0, kExactSlot) : r;
}

Value fold(Runtime& rt, char op, const char* name, const Value* args, int argc) {
  Value acc = operand(rt, name, args, 0);
  for (int k = 1; k < argc; ++k) {
    const Value& y = operand(rt, name, args, k);
    const bool exact = isExactNumber(acc) && isExactNumber(y);
    acc = combine(rt, op, acc, y);
    if (exact) acc = exactResult(op, acc);
  }
  return acc;
}

Value add(Runtime& rt, const Value* args, int argc) {
  return argc == 0 ? exactNumberValue(0.0) : fold(rt, '+', "+", args, argc);
}

Value multiply(Runtime& rt, const Value* args, int argc) {
  return argc == 0 ? exactNumberValue(1.0) : fold(rt, '*', "*", args, argc);
}

Value subtract(Runtime& rt, const Value* args, int argc) {
  if (argc > 1) return fold(rt, '-', "-", args, argc);
  const Value& x = operand(rt, "-", args, 0);
  if (x.tag == Tag::Tensor) return tensorElementwise(rt, '-', Value::real(0.0), x);
  return keepExact(rt.unary(-x.num, x, -1.0), isExactNumber(x));
}

Value divide(Runtime& rt, const Value* args, int argc) {
  if (argc > 1) return fold(rt, '/', "/", args, argc);
  const Value& x = operand(rt, "/", args, 0);
  if (x.tag == Tag::Tensor) return tensorElementwise(rt, '/', Value::real(1.0), x);
  double r = 1.0 / x.num;
  return keepExact(rt.unary(r, x, -r * r), isExactNumber(x));
}

// --- comparisons: chains over all arguments, every one checked to be a number ---

template <class Cmp>
Value compareChain(Runtime& rt, const char* name, const Value* args, int argc, Cmp holds) {
  bool all = true;
  double prev = numberArg(rt, name, args, 0);
  for (int k = 1; k < argc; ++k) {
    double x = numberArg(rt, name, args, k);
    all = all && holds(prev, x);
    prev = x;
  }
  return Value::boolean(all);
}

Value numEq(Runtime& rt, const Value* a, int n) {
  return compareChain(rt, "=", a, n, [](double x, double y) { return x == y; });
}
Value numLt(Runtime& rt, const Value* a, int n) {
  return compareChain(rt, "<", a, n, [](double x, double y) { return x < y; });
}
Value numGt(Runtime& rt, const Value* a, int n) {
  return compareChain(rt, ">", a, n, [](double x, double y) { return x > y; });
}
Value numLe(Runtime& rt, const Value* a, int n) {
  return compareChain(rt, "<=", a, n, [](double x, double y) { return x <= y; });
}
Value numGe(Runtime& rt, const Value* a, int n) {
  return compareChain(rt, ">=", a, n, [](double x, double y) { return x >= y; });
}

// --- min and max: the selected argument itself, so its tape slot carries the gradient ---

template <class Better>
Value select(Runtime& rt, const char* name, const Value* args, int argc, Better better) {
  int best = 0;
  numberArg(rt, name, args, 0);
  for (int k = 1; k < argc; ++k) {
    double x = numberArg(rt, name, args, k);
    // A NaN argument wins (and stays), so min and max propagate NaN; ties keep the leftmost.
    if (!std::isnan(args[best].num) && (std::isnan(x) || better(x, args[best].num))) best = k;
  }
  // R7RS: an inexact argument makes the result inexact, whichever is selected.
  return allExact(args, argc) ? args[best] : inexactValue(args[best]);
}

Value minPrim(Runtime& rt, const Value* a, int n) {
  return select(rt, "min", a, n, [](double x, double y) { return x < y; });
}
Value maxPrim(Runtime& rt, const Value* a, int n) {
  return select(rt, "max", a, n, [](double x, double y) { return x > y; });
}

// --- quotient, remainder, modulo: integers only, zero divisor is a Domain error, constant results ---

double integerArg(const Runtime& rt, const char* name, const Value* args, int k) {
  double x = numberArg(rt, name, args, k);
  if (!std::isfinite(x) || std::floor(x) != x) wrongType(rt, name, k, args[k], "an integer");
  return x;
}

template <class Rule>
Value integerDivision(Runtime& rt, const char* name, const Value* args, Rule rule) {
  double n = integerArg(rt, name, args, 0), d = integerArg(rt, name, args, 1);
  if (d == 0) throw DmciError(ErrorKind::Domain, std::string(name) + ": division by zero");
  // + 0.0 turns a -0 result into 0, as an integer division would give.
  return keepExact(Value::real(rule(n, d) + 0.0), allExact(args, 2));
}

// fmod is exact and takes the dividend's sign: the R7RS remainder.
Value quotientPrim(Runtime& rt, const Value* a, int) {
  return integerDivision(rt, "quotient", a, [](double n, double d) { return (n - std::fmod(n, d)) / d; });
}
Value remainderPrim(Runtime& rt, const Value* a, int) {
  return integerDivision(rt, "remainder", a, [](double n, double d) { return std::fmod(n, d); });
}
Value moduloPrim(Runtime& rt, const Value* a, int) {
  return integerDivision(rt, "modulo", a, [](double n, double d) {
    double r = std::fmod(n, d);
    return r != 0 && (r < 0) != (d < 0) ? r + d : r;
  });
}

}  // namespace

void addArithmeticPrims(std::vector<Primitive>& t) {
  const auto A = PrimFamily::Arithmetic;
  using R = LaneReads;
  using K = LaneKernel;
  t.push_back({"+", 0, -1, add, nullptr, nullptr, A, "(+ x ...) sum; (+) is 0; tensors add elementwise", "dx_i = 1",
               laneUse(R::Arguments, K::Add)});
  t.push_back({"-", 1, -1, subtract, nullptr, nullptr, A,
               "(- x y ...) x minus the rest; (- x) negates; tensors subtract elementwise",
               "dx = 1, dy_i = -1; (- x): dx = -1", laneUse(R::Arguments, K::Subtract)});
  t.push_back({"*", 0, -1, multiply, nullptr, nullptr, A, "(* x ...) product; (*) is 1; tensors multiply elementwise",
               "chained binary products: d(a b)/da = b, d(a b)/db = a", laneUse(R::Arguments, K::Multiply)});
  t.push_back({"/", 1, -1, divide, nullptr, nullptr, A,
               "(/ x y ...) x divided by the rest; (/ x) is 1/x; 1/0 is inf; tensors divide elementwise",
               "chained quotients: d(a/b)/da = 1/b, d(a/b)/db = -a/b^2; (/ x): dx = -1/x^2",
               laneUse(R::Arguments, K::Divide)});
  t.push_back({"=", 1, -1, numEq, nullptr, nullptr, A, "(= x y ...) #t when all numbers are equal", "",
               laneUse(R::Arguments, K::Equal)});
  t.push_back({"<", 1, -1, numLt, nullptr, nullptr, A, "(< x y ...) #t when strictly increasing", "",
               laneUse(R::Arguments, K::Less)});
  t.push_back({">", 1, -1, numGt, nullptr, nullptr, A, "(> x y ...) #t when strictly decreasing", "",
               laneUse(R::Arguments, K::Greater)});
  t.push_back({"<=", 1, -1, numLe, nullptr, nullptr, A, "(<= x y ...) #t when non-decreasing", "",
               laneUse(R::Arguments, K::LessEqual)});
  t.push_back({">=", 1, -1, numGe, nullptr, nullptr, A, "(>= x y ...) #t when non-increasing", "",
               laneUse(R::Arguments, K::GreaterEqual)});
  t.push_back({"min", 1, -1, minPrim, nullptr, nullptr, A, "(min x ...) smallest argument (NaN if any is NaN)",
               "d(selected argument) = 1, others 0; ties select the leftmost", laneUse(R::Arguments, K::Min)});
  t.push_back({"max", 1, -1, maxPrim, nullptr, nullptr, A, "(max x ...) largest argument (NaN if any is NaN)",
               "d(selected argument) = 1, others 0; ties select the leftmost", laneUse(R::Arguments, K::Max)});
  t.push_back({"quotient", 2, 2, quotientPrim, nullptr, nullptr, A,
               "(quotient n d) integer division truncated toward zero", "", laneUse(R::Arguments, K::Quotient)});
  t.push_back({"remainder", 2, 2, remainderPrim, nullptr, nullptr, A,
               "(remainder n d) n - d*(quotient n d), with the sign of n", "", laneUse(R::Arguments, K::Remainder)});
  t.push_back({"modulo", 2, 2, moduloPrim, nullptr, nullptr, A,
               "(modulo n d) n - d*(floor (/ n d)), with the sign of d", "", laneUse(R::Arguments, K::Modulo)});
  addElementaryPrims(t);
}

}  // namespace dmci
