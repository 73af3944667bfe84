// The numeric primitives in the oracle's number type: arithmetic, comparisons,
// min and max, integer division, the elementary functions and the number tests.
// Exactness is kept as the engines keep it (runtime/ExactValue.h), each rule on its own.
// Every one whose result steps with its arguments (a comparison, abs, min, max,
// rounding, integer division, a number test) records a decision.
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <optional>

#include "oracle/Interpreter.h"
#include "oracle/Oracle.h"

namespace dmci::oracle {
namespace {

// --- + - * / : left folds of one binary rule; a tensor operand makes the step elementwise ---

template <class Num>
const Value<Num>& operand(const PrimCall<Num>& c, int k) {
  if (!c[k].isNumber() && c[k].kind != Kind::Tensor) c.wrongType(k, "a number");
  return c[k];
}

template <class Num>
Num scalarOp(char op, const Num& a, const Num& b) {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    default:
      return a / b;
  }
}

template <class Num>
Value<Num> combine(const PrimCall<Num>& c, char op, const Value<Num>& x, const Value<Num>& y) {
  if (x.kind == Kind::Tensor || y.kind == Kind::Tensor) return tensorElementwise(c, op, x, y);
  return Value<Num>::number(scalarOp(op, x.num, y.num));
}

template <class Num>
bool allExact(const PrimCall<Num>& c) {
  for (int k = 0; k < c.argc(); ++k)
    if (!c[k].isExact()) return false;
  return true;
}

// Each step exact when both sides are and it gives an integer a double holds, as the native fold.
template <class Num>
Value<Num> fold(const PrimCall<Num>& c, char op) {
  Value<Num> acc = operand(c, 0);
  for (int k = 1; k < c.argc(); ++k) {
    const Value<Num>& y = operand(c, k);
    acc = keepExact(combine(c, op, acc, y), acc.isExact() && y.isExact());
  }
  return acc;
}

template <class Num>
Value<Num> add(const PrimCall<Num>& c) {
  return c.argc() == 0 ? keepExact(Value<Num>::number(0), true) : fold(c, '+');
}

template <class Num>
Value<Num> multiply(const PrimCall<Num>& c) {
  return c.argc() == 0 ? keepExact(Value<Num>::number(1), true) : fold(c, '*');
}

// (- x) is 0 - x and (/ x) is 1 / x.
template <class Num, char Op>
Value<Num> subtractOrDivide(const PrimCall<Num>& c) {
  if (c.argc() > 1) return fold(c, Op);
  return keepExact(combine(c, Op, Value<Num>::number(Op == '-' ? 0 : 1), operand(c, 0)), c[0].isExact());
}

// --- comparisons: a chain over every argument, each checked to be a number; a branch decision ---

enum class Cmp { Eq, Lt, Gt, Le, Ge };

template <class Num>
bool holds(Cmp cmp, const Num& a, const Num& b) {
  switch (cmp) {
    case Cmp::Eq:
      return a == b;
    case Cmp::Lt:
      return a < b;
    case Cmp::Gt:
      return a > b;
    case Cmp::Le:
      return a <= b;
    default:
      return a >= b;
  }
}

// The margin is the smallest gap between neighbours: how far the chain is from another answer.
template <class Num, Cmp C>
Value<Num> compare(const PrimCall<Num>& c) {
  using std::abs;
  bool all = true;
  Closeness<Num> close;
  for (int k = 0; k < c.argc(); ++k) c.number(k);
  for (int k = 1; k < c.argc(); ++k) {
    all = all && holds(C, c[k - 1].num, c[k].num);
    close.see(c[k - 1].num, c[k].num);
  }
  if (c.argc() == 1) return Value<Num>::boolean(true);
  return Value<Num>::boolean(c.decide(DecisionKind::Branch, Num(all ? 1 : 0), close, c[0].num) != 0);
}

// --- min and max: the selected argument (a NaN wins, ties keep the leftmost); a kink decision ---

template <class Num, bool Max>
Value<Num> select(const PrimCall<Num>& c) {
  using std::abs;
  using std::isnan;
  int best = 0;
  c.number(0);
  for (int k = 1; k < c.argc(); ++k) {
    const Num& x = c.number(k);
    if (!isnan(c[best].num) && (isnan(x) || (Max ? x > c[best].num : x < c[best].num))) best = k;
  }
  if (c.argc() == 1) return c[0];
  Closeness<Num> close;
  for (int k = 0; k < c.argc(); ++k)
    if (k != best) close.see(c[k].num, c[best].num);
  Num chosen = c.decide(DecisionKind::Kink, Num(best), close, c[0].num);
  // An inexact argument makes the result inexact, whichever is selected.
  return allExact(c) ? c[static_cast<int>(chosen)] : inexactValue(c[static_cast<int>(chosen)]);
}

// --- quotient, remainder, modulo: integers only, a zero divisor is a Domain error; results are constants ---

enum class IntDiv { Quotient, Remainder, Modulo };

template <class Num>
Num integerDivision(IntDiv rule, const Num& n, const Num& d) {
  using std::fmod;
  Num r = fmod(n, d);  // exact, with the dividend's sign: the R7RS remainder
  if (rule == IntDiv::Quotient) return (n - r) / d + 0;
  if (rule == IntDiv::Remainder || r == 0 || (r < 0) == (d < 0)) return r + 0;
  return r + d;
}

// A discrete decision: the arguments must stay integers for the result to stay put.
template <class Num, IntDiv Rule>
Value<Num> integerDivisionPrim(const PrimCall<Num>& c) {
  const Num& n = c.number(0);
  const Num& d = c.number(1);
  bool valid = isInteger(n) && isInteger(d) && d != 0;
  if (c.in.recording() && !valid) {
    if (!isInteger(n)) c.wrongType(0, "an integer");
    if (!isInteger(d)) c.wrongType(1, "an integer");
    throw DmciError(ErrorKind::Domain, std::string(c.name) + ": division by zero", c.site->pos);
  }
  std::optional<Num> natural;
  if (valid) natural = integerDivision(Rule, n, d);
  return keepExact(Value<Num>::number(c.decide(DecisionKind::Discrete, natural, Closeness<Num>::between(n, n), n)),
                   allExact(c));
}

// --- smooth functions of one or two numbers ---

// log(1 + y) for 0 <= y <= 1 without losing the digits of a tiny y.
template <class Num>
Num log1pSmall(const Num& y) {
  using std::log;
  if (y > Num(1e-3)) return log(1 + y);
  Num sum = 0, power = y;
  for (int k = 1; k <= 24; ++k, power *= -y) sum += power / k;  // |y|^25 < 1e-75
  return sum;
}

template <class Num>
Num sigmoid(const Num& x) {
  using std::exp;
  if (x >= 0) return 1 / (1 + exp(-x));
  Num e = exp(x);
  return e / (1 + e);
}

// log(1 + e^x) = max(x, 0) + log(1 + e^-|x|).
template <class Num>
Num softplus(const Num& x) {
  using std::abs;
  using std::exp;
  return (x > 0 ? x : Num(0)) + log1pSmall(Num(exp(-abs(x))));
}

template <class Num>
using Fn1 = Num (*)(const Num&);
template <class Num>
using Fn2 = Num (*)(const Num&, const Num&);

// One argument through f1, or (for log and atan) two through f2.
template <class Num, Fn1<Num> F1, Fn2<Num> F2 = nullptr>
Value<Num> smooth(const PrimCall<Num>& c) {
  if constexpr (F2 != nullptr)
    if (c.argc() == 2) return Value<Num>::number(F2(c.number(0), c.number(1)));
  return Value<Num>::number(F1(c.number(0)));
}

template <class Num>
struct Smooth {
  static Num square(const Num& x) { return x * x; }
  static Num exp(const Num& x) {
    using std::exp;
    return exp(x);
  }
  static Num log(const Num& x) {
    using std::log;
    return log(x);
  }
  static Num logBase(const Num& x, const Num& b) {
    using std::log;
    return log(x) / log(b);
  }
  static Num sqrt(const Num& x) {
    using std::sqrt;
    return sqrt(x);
  }
  static Num expt(const Num& a, const Num& b) {
    using std::pow;
    return pow(a, b);
  }
  static Num sin(const Num& x) {
    using std::sin;
    return sin(x);
  }
  static Num cos(const Num& x) {
    using std::cos;
    return cos(x);
  }
  static Num tan(const Num& x) {
    using std::tan;
    return tan(x);
  }
  static Num asin(const Num& x) {
    using std::asin;
    return asin(x);
  }
  static Num acos(const Num& x) {
    using std::acos;
    return acos(x);
  }
  static Num atan(const Num& x) {
    using std::atan;
    return atan(x);
  }
  static Num atan2(const Num& y, const Num& x) {
    using std::atan2;
    return atan2(y, x);
  }
  static Num tanh(const Num& x) {
    using std::tanh;
    return tanh(x);
  }
  static Num sigmoid(const Num& x) { return oracle::sigmoid(x); }
  static Num softplus(const Num& x) { return oracle::softplus(x); }
  static Num normalCdf(const Num& x) {
    using std::sqrt;
    return boost::math::erfc(Num(-x / sqrt(Num(2)))) / 2;
  }
};

template <class Num>
Value<Num> expt(const PrimCall<Num>& c) {
  return Value<Num>::number(Smooth<Num>::expt(c.number(0), c.number(1)));
}

// --- piecewise functions: a kink decision each ---

// abs acts as x, -x or 0 by the sign of x at the seed (0: the subgradient 0, as the engines take it).
template <class Num>
Value<Num> absPrim(const PrimCall<Num>& c) {
  using std::abs;
  using std::isnan;
  const Num& x = c.number(0);
  Num sign = isnan(x) ? x : Num((x > 0) - (x < 0));
  Num s = c.decide(DecisionKind::Kink, sign, Closeness<Num>::between(x, 0), x);
  if (isnan(s)) return Value<Num>::number(abs(x));
  return Value<Num>::number(s * x);
}

enum class Rounding { Floor, Ceiling, Round, Truncate };

// Round half to even (R7RS).
template <class Num>
Num roundEven(const Num& x) {
  using std::floor;
  Num f = floor(x), frac = x - f;
  if (frac < Num(0.5)) return f;
  if (frac > Num(0.5)) return f + 1;
  return floor(f / 2) * 2 == f ? f : f + 1;
}

// The result is the decision; the margin is the distance to the nearest jump.
template <class Num, Rounding R>
Value<Num> rounding(const PrimCall<Num>& c) {
  using std::abs;
  using std::ceil;
  using std::floor;
  using std::trunc;
  const Num& x = c.number(0);
  Num y = R == Rounding::Floor      ? floor(x)
          : R == Rounding::Ceiling  ? ceil(x)
          : R == Rounding::Truncate ? trunc(x)
                                    : roundEven(x);
  Num jump = R == Rounding::Round ? floor(x) + Num(0.5) : roundEven(x);  // the nearest point where it steps
  return Value<Num>::number(c.decide(DecisionKind::Kink, y, Closeness<Num>::between(x, jump), x));
}

// --- number tests: branch decisions ---

enum class Test { Zero, Positive, Negative, Even, Odd, Integer };

template <class Num, Test T>
Value<Num> numberTest(const PrimCall<Num>& c) {
  using std::abs;
  using std::floor;
  const Num& x = c.number(0);
  if (T == Test::Integer) {
    Closeness<Num> close = Closeness<Num>::between(x, roundEven(x));
    return Value<Num>::boolean(c.decide(DecisionKind::Branch, Num(isInteger(x) ? 1 : 0), close, x) != 0);
  }
  if (T == Test::Even || T == Test::Odd) {
    if (c.in.recording() && !isInteger(x)) c.wrongType(0, "an integer");
    std::optional<Num> natural;
    if (isInteger(x)) natural = Num((floor(x / 2) * 2 == x) == (T == Test::Even) ? 1 : 0);
    return Value<Num>::boolean(c.decide(DecisionKind::Discrete, natural, Closeness<Num>::between(x, x), x) != 0);
  }
  bool holds = T == Test::Zero ? x == 0 : T == Test::Positive ? x > 0 : x < 0;
  return Value<Num>::boolean(c.decide(DecisionKind::Branch, Num(holds ? 1 : 0), Closeness<Num>::between(x, 0), x) != 0);
}

// A rule whose result is exact when its arguments are (abs, the roundings, square, sqrt, expt), as the native
// rows (prims/Elementary.cpp keepsExactness).
template <class Num, PrimFn<Num> F>
Value<Num> exactKeeping(const PrimCall<Num>& c) {
  return keepExact(F(c), allExact(c));
}

// exact?, inexact? (of a number) and exact-integer? (of anything): the mark, as the engines read it.
template <class Num>
Value<Num> exactTest(const PrimCall<Num>& c) {
  c.number(0);
  return Value<Num>::boolean(c[0].isExact());
}
template <class Num>
Value<Num> inexactTest(const PrimCall<Num>& c) {
  c.number(0);
  return Value<Num>::boolean(!c[0].isExact());
}
template <class Num>
Value<Num> exactIntegerTest(const PrimCall<Num>& c) {
  return Value<Num>::boolean(c[0].isExact());
}
// exact's and inexact's steps (prims/Numbers.cpp): the same value, marked or not.
template <class Num>
Value<Num> exactMark(const PrimCall<Num>& c) {
  return keepExact(c[0], c[0].kind == Kind::Number);
}
template <class Num>
Value<Num> inexactMark(const PrimCall<Num>& c) {
  return inexactValue(c[0]);
}

template <class Num>
void addArithmetic(PrimRegistry<Num>& r) {
  r.add("+", add<Num>);
  r.add("*", multiply<Num>);
  r.add("-", subtractOrDivide<Num, '-'>);
  r.add("/", subtractOrDivide<Num, '/'>);
  r.add("=", compare<Num, Cmp::Eq>);
  r.add("<", compare<Num, Cmp::Lt>);
  r.add(">", compare<Num, Cmp::Gt>);
  r.add("<=", compare<Num, Cmp::Le>);
  r.add(">=", compare<Num, Cmp::Ge>);
  r.add("min", select<Num, false>);
  r.add("max", select<Num, true>);
  r.add("quotient", integerDivisionPrim<Num, IntDiv::Quotient>);
  r.add("remainder", integerDivisionPrim<Num, IntDiv::Remainder>);
  r.add("modulo", integerDivisionPrim<Num, IntDiv::Modulo>);
}

template <class Num>
void addElementary(PrimRegistry<Num>& r) {
  using S = Smooth<Num>;
  r.add("abs", exactKeeping<Num, absPrim<Num>>);
  r.add("floor", exactKeeping<Num, rounding<Num, Rounding::Floor>>);
  r.add("ceiling", exactKeeping<Num, rounding<Num, Rounding::Ceiling>>);
  r.add("round", exactKeeping<Num, rounding<Num, Rounding::Round>>);
  r.add("truncate", exactKeeping<Num, rounding<Num, Rounding::Truncate>>);
  r.add("square", exactKeeping<Num, smooth<Num, S::square>>);
  r.add("exp", smooth<Num, S::exp>);
  r.add("log", smooth<Num, S::log, S::logBase>);
  r.add("sqrt", exactKeeping<Num, smooth<Num, S::sqrt>>);
  r.add("expt", exactKeeping<Num, expt<Num>>);
  r.add("sin", smooth<Num, S::sin>);
  r.add("cos", smooth<Num, S::cos>);
  r.add("tan", smooth<Num, S::tan>);
  r.add("asin", smooth<Num, S::asin>);
  r.add("acos", smooth<Num, S::acos>);
  r.add("atan", smooth<Num, S::atan, S::atan2>);
  r.add("tanh", smooth<Num, S::tanh>);
  r.add("sigmoid", smooth<Num, S::sigmoid>);
  r.add("softplus", smooth<Num, S::softplus>);
  r.add("normal-cdf", smooth<Num, S::normalCdf>);
  r.add("zero?", numberTest<Num, Test::Zero>);
  r.add("positive?", numberTest<Num, Test::Positive>);
  r.add("negative?", numberTest<Num, Test::Negative>);
  r.add("even?", numberTest<Num, Test::Even>);
  r.add("odd?", numberTest<Num, Test::Odd>);
  r.add("integer?", numberTest<Num, Test::Integer>);
  r.add("exact?", exactTest<Num>);
  r.add("inexact?", inexactTest<Num>);
  r.add("exact-integer?", exactIntegerTest<Num>);
  r.add("%exact-mark", exactMark<Num>);
  r.add("%inexact-mark", inexactMark<Num>);
}

}  // namespace

template <class Num>
void addScalarPrims(PrimRegistry<Num>& r) {
  addArithmetic(r);
  addElementary(r);
}

template void addScalarPrims<Wide>(PrimRegistry<Wide>&);

}  // namespace dmci::oracle
