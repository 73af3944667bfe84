// The numeric primitives in the oracle's number type: arithmetic, comparisons,
// min and max, integer division, the elementary functions and the number tests.
// Every one whose result steps with its arguments records a decision.
#include <cmath>
#include <limits>
#include <optional>

#include "oracle/Evaluator.h"
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
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    default: return a / b;
  }
}

template <class Num>
Value<Num> combine(const PrimCall<Num>& c, char op, const Value<Num>& x, const Value<Num>& y) {
  if (x.kind == Kind::Tensor || y.kind == Kind::Tensor) return tensorElementwise(c, op, x, y);
  return Value<Num>::number(scalarOp(op, x.num, y.num));
}

template <class Num>
Value<Num> fold(const PrimCall<Num>& c, char op) {
  Value<Num> acc = operand(c, 0);
  for (int k = 1; k < c.argc(); ++k) acc = combine(c, op, acc, operand(c, k));
  return acc;
}

template <class Num>
Value<Num> add(const PrimCall<Num>& c) {
  return c.argc() == 0 ? Value<Num>::number(0) : fold(c, '+');
}

template <class Num>
Value<Num> multiply(const PrimCall<Num>& c) {
  return c.argc() == 0 ? Value<Num>::number(1) : fold(c, '*');
}

// (- x) is 0 - x and (/ x) is 1 / x.
template <class Num, char Op>
Value<Num> subtractOrDivide(const PrimCall<Num>& c) {
  if (c.argc() > 1) return fold(c, Op);
  return combine(c, Op, Value<Num>::number(Op == '-' ? 0 : 1), operand(c, 0));
}

// --- comparisons: a chain over every argument, each checked to be a number; a branch decision ---

enum class Cmp { Eq, Lt, Gt, Le, Ge };

template <class Num>
bool holds(Cmp cmp, const Num& a, const Num& b) {
  switch (cmp) {
    case Cmp::Eq: return a == b;
    case Cmp::Lt: return a < b;
    case Cmp::Gt: return a > b;
    case Cmp::Le: return a <= b;
    default: return a >= b;
  }
}

// The margin is the smallest gap between neighbours: how far the chain is from another answer.
template <class Num, Cmp C>
Value<Num> compare(const PrimCall<Num>& c) {
  using std::abs;
  bool all = true;
  Num margin = std::numeric_limits<double>::infinity();
  for (int k = 0; k < c.argc(); ++k) c.number(k);
  for (int k = 1; k < c.argc(); ++k) {
    all = all && holds(C, c[k - 1].num, c[k].num);
    Num gap = abs(c[k - 1].num - c[k].num);
    if (!(gap >= margin)) margin = gap;
  }
  if (c.argc() == 1) return Value<Num>::boolean(true);
  return Value<Num>::boolean(c.decide(DecisionKind::Branch, Num(all ? 1 : 0), margin, c[0].num) != 0);
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
  Num margin = std::numeric_limits<double>::infinity();
  for (int k = 0; k < c.argc(); ++k) {
    Num gap = abs(c[k].num - c[best].num);
    if (k != best && !(gap >= margin)) margin = gap;
  }
  Num chosen = c.decide(DecisionKind::Kink, Num(best), margin, c[0].num);
  return c[static_cast<int>(chosen)];
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
  return Value<Num>::number(c.decide(DecisionKind::Discrete, natural, Num(0), n));
}

}  // namespace

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
void addScalarPrims(PrimRegistry<Num>& r) {
  addArithmetic(r);
  addElementary(r);
}

template void addScalarPrims<Wide>(PrimRegistry<Wide>&);

}  // namespace dmci::oracle
