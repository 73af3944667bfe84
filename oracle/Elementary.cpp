// The elementary functions and number tests in the oracle's number type; the
// piecewise ones (abs, rounding) and the tests record their decisions.
#include <cmath>
#include <optional>

#include "oracle/Evaluator.h"
#include "oracle/Oracle.h"

namespace dmci::oracle {
namespace {

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
  static Num exp(const Num& x) { using std::exp; return exp(x); }
  static Num log(const Num& x) { using std::log; return log(x); }
  static Num logBase(const Num& x, const Num& b) { using std::log; return log(x) / log(b); }
  static Num sqrt(const Num& x) { using std::sqrt; return sqrt(x); }
  static Num expt(const Num& a, const Num& b) { using std::pow; return pow(a, b); }
  static Num sin(const Num& x) { using std::sin; return sin(x); }
  static Num cos(const Num& x) { using std::cos; return cos(x); }
  static Num tan(const Num& x) { using std::tan; return tan(x); }
  static Num asin(const Num& x) { using std::asin; return asin(x); }
  static Num acos(const Num& x) { using std::acos; return acos(x); }
  static Num atan(const Num& x) { using std::atan; return atan(x); }
  static Num atan2(const Num& y, const Num& x) { using std::atan2; return atan2(y, x); }
  static Num tanh(const Num& x) { using std::tanh; return tanh(x); }
  static Num sigmoid(const Num& x) { return oracle::sigmoid(x); }
  static Num softplus(const Num& x) { return oracle::softplus(x); }
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
  Num s = c.decide(DecisionKind::Kink, sign, abs(x), x);
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
  Num y = R == Rounding::Floor ? floor(x) : R == Rounding::Ceiling ? ceil(x) : R == Rounding::Truncate ? trunc(x)
                                                                                                       : roundEven(x);
  Num below = x - floor(x);
  Num margin = R == Rounding::Round ? abs(below - Num(0.5)) : (below < Num(0.5) ? below : 1 - below);
  return Value<Num>::number(c.decide(DecisionKind::Kink, y, margin, x));
}

// --- number tests: branch decisions ---

enum class Test { Zero, Positive, Negative, Even, Odd, Integer };

template <class Num, Test T>
Value<Num> numberTest(const PrimCall<Num>& c) {
  using std::abs;
  using std::floor;
  const Num& x = c.number(0);
  if (T == Test::Integer) {
    Num below = x - floor(x);
    Num margin = below < Num(0.5) ? below : 1 - below;
    return Value<Num>::boolean(c.decide(DecisionKind::Branch, Num(isInteger(x) ? 1 : 0), margin, x) != 0);
  }
  if (T == Test::Even || T == Test::Odd) {
    if (c.in.recording() && !isInteger(x)) c.wrongType(0, "an integer");
    std::optional<Num> natural;
    if (isInteger(x)) natural = Num((floor(x / 2) * 2 == x) == (T == Test::Even) ? 1 : 0);
    return Value<Num>::boolean(c.decide(DecisionKind::Discrete, natural, Num(0), x) != 0);
  }
  bool holds = T == Test::Zero ? x == 0 : T == Test::Positive ? x > 0 : x < 0;
  return Value<Num>::boolean(c.decide(DecisionKind::Branch, Num(holds ? 1 : 0), abs(x), x) != 0);
}

}  // namespace

template <class Num>
void addElementary(PrimRegistry<Num>& r) {
  using S = Smooth<Num>;
  r.add("abs", absPrim<Num>);
  r.add("floor", rounding<Num, Rounding::Floor>);
  r.add("ceiling", rounding<Num, Rounding::Ceiling>);
  r.add("round", rounding<Num, Rounding::Round>);
  r.add("truncate", rounding<Num, Rounding::Truncate>);
  r.add("square", smooth<Num, S::square>);
  r.add("exp", smooth<Num, S::exp>);
  r.add("log", smooth<Num, S::log, S::logBase>);
  r.add("sqrt", smooth<Num, S::sqrt>);
  r.add("expt", expt<Num>);
  r.add("sin", smooth<Num, S::sin>);
  r.add("cos", smooth<Num, S::cos>);
  r.add("tan", smooth<Num, S::tan>);
  r.add("asin", smooth<Num, S::asin>);
  r.add("acos", smooth<Num, S::acos>);
  r.add("atan", smooth<Num, S::atan, S::atan2>);
  r.add("tanh", smooth<Num, S::tanh>);
  r.add("sigmoid", smooth<Num, S::sigmoid>);
  r.add("softplus", smooth<Num, S::softplus>);
  r.add("zero?", numberTest<Num, Test::Zero>);
  r.add("positive?", numberTest<Num, Test::Positive>);
  r.add("negative?", numberTest<Num, Test::Negative>);
  r.add("even?", numberTest<Num, Test::Even>);
  r.add("odd?", numberTest<Num, Test::Odd>);
  r.add("integer?", numberTest<Num, Test::Integer>);
}

template void addElementary<Wide>(PrimRegistry<Wide>&);

}  // namespace dmci::oracle
