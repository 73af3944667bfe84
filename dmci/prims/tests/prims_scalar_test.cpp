// Tests of the arithmetic and number primitives: values, R7RS facts, errors, and every adjoint against finite
// differences.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "prims/PrimTable.h"
#include "testing/PrimCheck.h"

namespace dmci {
namespace {

using test::Arg;
using test::expectAdjointMatchesFD;

// Calls a primitive through the table, arity checked as the engines do.
Value call(Runtime& rt, const std::string& name, std::vector<Value> args) {
  int id = primId(name);
  EXPECT_GE(id, 0) << name;
  const Primitive& p = prim(id);
  checkArity(p, static_cast<int>(args.size()));
  return p.forward(rt, args.data(), static_cast<int>(args.size()));
}

std::vector<Value> reals(const std::vector<double>& xs) {
  std::vector<Value> v;
  for (double x : xs) v.push_back(Value::real(x));
  return v;
}

double eval(const std::string& name, const std::vector<double>& xs) {
  Runtime rt;
  Value v = call(rt, name, reals(xs));
  EXPECT_EQ(v.tag, Tag::Real) << name;
  return v.num;
}

bool truth(const std::string& name, const std::vector<double>& xs) {
  Runtime rt;
  Value v = call(rt, name, reals(xs));
  EXPECT_EQ(v.tag, Tag::Bool) << name;
  return !v.isFalse();
}

// Runs the call and returns the error it throws (failing the test if none).
Error errorOf(Runtime& rt, const std::string& name, std::vector<Value> args) {
  try {
    call(rt, name, std::move(args));
  } catch (const DmciError& e) {
    return e.error();
  }
  ADD_FAILURE() << name << " did not throw";
  return {};
}

Error errorOf(const std::string& name, std::vector<Value> args) {
  Runtime rt;
  return errorOf(rt, name, std::move(args));
}

Value symbol(const char* s) { return Value::make(Tag::Symbol, internSymbol(s)); }

std::vector<Arg> scalars(const std::vector<double>& xs) {
  std::vector<Arg> a;
  for (double x : xs) a.push_back(Arg::scalar(x));
  return a;
}

// --- adjoints against finite differences ---

struct UnaryCase {
  const char* name;
  std::vector<double> points;
};

const std::vector<UnaryCase> kUnaryCases = {
    {"abs", {-7.5, -1e-3, 2.0, 1e3}},
    {"square", {-30.0, -0.2, 0.0, 1e-3, 4.5}},
    {"exp", {-20.0, -1.0, 0.0, 1e-3, 3.0, 20.0}},
    {"log", {0.01, 0.5, 1.0, 7.0, 1e4}},
    {"sqrt", {0.01, 0.25, 2.0, 1e4}},
    {"sin", {-12.5, -0.1, 0.0, 1e-3, 0.7, 100.0}},
    {"cos", {-12.5, -0.1, 0.0, 1e-3, 0.7, 100.0}},
    {"tan", {-1.2, -0.3, 0.0, 1e-3, 0.4, 1.3}},
    {"asin", {-0.9, -0.3, 0.0, 1e-3, 0.5, 0.95}},
    {"acos", {-0.9, -0.3, 0.0, 1e-3, 0.5, 0.95}},
    {"atan", {-30.0, -1.0, 0.0, 0.2, 50.0}},
    {"tanh", {-5.0, -0.5, 0.0, 1e-3, 0.3, 4.0}},
    {"sigmoid", {-40.0, -3.0, 0.0, 1e-4, 2.5, 40.0}},
    {"softplus", {-40.0, -3.0, 0.0, 1e-4, 2.5, 40.0}},
    {"normal-cdf", {-9.0, -2.0, 0.0, 1e-3, 0.7, 6.0}},
    {"-", {-3.0, 0.0, 2.5, 1e5}},
    {"/", {-3.0, -1e-2, 0.5, 1e5}},
    {"+", {-3.0, 2.5}},
    {"*", {-3.0, 2.5}},
    {"min", {-3.0, 2.5}},
    {"max", {-3.0, 2.5}},
    // Piecewise constant: the adjoint is 0, as is the difference away from the jumps.
    {"floor", {-2.3, 0.4, 7.7}},
    {"ceiling", {-2.3, 0.4, 7.7}},
    {"round", {-2.3, 0.4, 7.7}},
    {"truncate", {-2.3, 0.4, 7.7}},
};

TEST(ScalarAdjoint, EveryOneArgumentRuleMatchesFiniteDifferencesAtSeveralPoints) {
  for (const auto& c : kUnaryCases)
    for (double x : c.points) expectAdjointMatchesFD(c.name, {Arg::scalar(x)});
}

struct BinaryCase {
  const char* name;
  std::vector<std::pair<double, double>> points;
};

const std::vector<BinaryCase> kBinaryCases = {
    {"expt", {{2.0, 3.0}, {0.5, -1.5}, {3.0, 0.5}, {1e-2, 2.0}, {7.0, 0.0}, {1.5, 10.0}}},
    {"log", {{8.0, 2.0}, {0.3, 10.0}, {100.0, 0.5}, {5.0, 3.0}}},
    {"atan", {{1.0, 1.0}, {-2.0, 0.5}, {0.3, -4.0}, {-1.0, -1.0}, {1e3, 1e-2}}},
    {"+", {{-1.5, 2.0}, {1e3, -0.25}}},
    {"-", {{-1.5, 2.0}, {1e3, -0.25}}},
    {"*", {{-1.5, 2.0}, {1e3, -1e-3}, {0.0, 4.0}}},
    {"/", {{-1.5, 2.0}, {1e3, -1e-3}, {0.0, 4.0}, {5.0, -250.0}}},
    {"min", {{-1.5, 2.0}, {3.0, -4.0}}},
    {"max", {{-1.5, 2.0}, {3.0, -4.0}}},
};

TEST(ScalarAdjoint, EveryTwoArgumentRuleMatchesFiniteDifferencesAtSeveralPairs) {
  for (const auto& c : kBinaryCases)
    for (auto [a, b] : c.points) expectAdjointMatchesFD(c.name, {Arg::scalar(a), Arg::scalar(b)});
}

TEST(ScalarAdjoint, VariadicRulesMatchFiniteDifferencesWithOneToFourArguments) {
  const std::vector<double> xs = {-1.5, 0.75, 2.0, -4.0};
  for (const char* name : {"+", "-", "*", "/", "min", "max"})
    for (size_t n = 1; n <= xs.size(); ++n)
      expectAdjointMatchesFD(name, scalars(std::vector<double>(xs.begin(), xs.begin() + n)));
}

TEST(ScalarAdjoint, EveryDifferentiableArithmeticPrimitiveIsCheckedAbove) {
  std::set<std::string> checked;
  for (const auto& c : kUnaryCases) checked.insert(c.name);
  for (const auto& c : kBinaryCases) checked.insert(c.name);
  for (const Primitive& p : primitives()) {
    if (p.family != PrimFamily::Arithmetic || p.partials[0] == '\0') continue;
    EXPECT_TRUE(checked.count(p.name)) << p.name << " has partials but no finite-difference check";
  }
}

TEST(ScalarAdjoint, EveryArithmeticRowHasADocAndAPartialsLine) {
  for (const Primitive& p : primitives()) {
    if (p.family != PrimFamily::Arithmetic) continue;
    ASSERT_NE(p.doc, nullptr) << p.name;
    ASSERT_NE(p.partials, nullptr) << p.name;
    EXPECT_GT(std::string(p.doc).size(), 5u) << p.name;
  }
}

TEST(ScalarAdjoint, ExptPartialsAreFiniteAtAZeroOrNegativeBase) {
  for (auto [a, b, da] :
       std::vector<std::tuple<double, double, double>>{{0, 2, 0}, {0, 0, 0}, {0, 1, 1}, {-2, 3, 12}}) {
    Runtime rt;
    Value x = rt.leaf(a), y = rt.leaf(b);
    std::vector<double> adj = rt.backward(call(rt, "expt", {x, y}));
    EXPECT_EQ(adj[x.i], da) << "expt " << a << " " << b;
    EXPECT_EQ(adj[y.i], 0.0) << "expt " << a << " " << b;
  }
}

TEST(ScalarAdjoint, AbsHasSubgradientZeroAtZero) {
  Runtime rt;
  Value x = rt.leaf(0.0);
  Value y = call(rt, "abs", {x});
  EXPECT_EQ(rt.backward(y)[x.i], 0.0);
}

TEST(ScalarAdjoint, RoundingResultsAreConstants) {
  for (const char* name : {"floor", "ceiling", "round", "truncate"}) {
    Runtime rt;
    EXPECT_FALSE(call(rt, name, {rt.leaf(1.3)}).isActive()) << name;
  }
}

TEST(ScalarAdjoint, ConstantArgumentsRecordNothingOnTheTape) {
  Runtime rt;
  call(rt, "sin", reals({0.5}));
  call(rt, "+", reals({1, 2, 3}));
  call(rt, "expt", reals({2, 3}));
  EXPECT_TRUE(rt.tape.empty());
}

TEST(ScalarAdjoint, ArithmeticWithATensorOperandIsElementwiseAndDifferentiable) {
  for (const char* name : {"+", "-", "*", "/"}) {
    expectAdjointMatchesFD(name, {Arg::vec({1.5, -2.0}), Arg::scalar(3.0)});
    expectAdjointMatchesFD(name, {Arg::scalar(-0.5), Arg::vec({1.5, -2.0}), Arg::vec({0.25, 4.0})});
    expectAdjointMatchesFD(name, {Arg::vec({1.5, -2.0})});
  }
}

// --- forward values ---

TEST(Arithmetic, EmptySumIsZeroAndEmptyProductIsOne) {
  EXPECT_EQ(eval("+", {}), 0.0);
  EXPECT_EQ(eval("*", {}), 1.0);
}

TEST(Arithmetic, VariadicOperatorsFoldLeftToRight) {
  EXPECT_EQ(eval("+", {1, 2, 3, 4}), 10.0);
  EXPECT_EQ(eval("-", {10, 1, 2}), 7.0);
  EXPECT_EQ(eval("*", {2, 3, 4}), 24.0);
  EXPECT_EQ(eval("/", {24, 2, 3}), 4.0);
}

TEST(Arithmetic, OneArgumentMinusNegatesAndDivideTakesTheReciprocal) {
  EXPECT_EQ(eval("-", {3}), -3.0);
  EXPECT_EQ(eval("/", {4}), 0.25);
}

TEST(Arithmetic, ATensorOperandGivesATensor) {
  Runtime rt;
  Value v = test::makeArgs(rt, {Arg::vec({1, 2})}, false)[0];
  Value w = call(rt, "*", {Value::real(2), v, Value::real(3)});
  ASSERT_EQ(w.tag, Tag::Tensor);
  EXPECT_EQ(rt.tdata(w)[0], 6.0);
  EXPECT_EQ(rt.tdata(w)[1], 12.0);
  Value n = call(rt, "-", {v});
  ASSERT_EQ(n.tag, Tag::Tensor);
  EXPECT_EQ(rt.tdata(n)[1], -2.0);
}

TEST(Arithmetic, NonFiniteResultsAreValuesNotErrors) {
  EXPECT_EQ(eval("/", {1, 0}), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(eval("log", {-1})));
  EXPECT_TRUE(std::isnan(eval("sqrt", {-4})));
}

TEST(Arithmetic, RoundGoesToEvenOnHalves) {
  EXPECT_EQ(eval("round", {2.5}), 2.0);
  EXPECT_EQ(eval("round", {3.5}), 4.0);
  EXPECT_EQ(eval("round", {-2.5}), -2.0);
  EXPECT_EQ(eval("round", {0.5}), 0.0);
  EXPECT_EQ(eval("round", {2.6}), 3.0);
}

TEST(Arithmetic, FloorCeilingTruncate) {
  EXPECT_EQ(eval("floor", {-2.5}), -3.0);
  EXPECT_EQ(eval("ceiling", {-2.5}), -2.0);
  EXPECT_EQ(eval("truncate", {-2.5}), -2.0);
}

TEST(Arithmetic, IntegerDivisionFollowsR7RSSigns) {
  EXPECT_EQ(eval("modulo", {-7, 3}), 2.0);
  EXPECT_EQ(eval("remainder", {-7, 3}), -1.0);
  EXPECT_EQ(eval("quotient", {-7, 2}), -3.0);
  EXPECT_EQ(eval("modulo", {7, -3}), -2.0);
  EXPECT_EQ(eval("remainder", {7, -3}), 1.0);
  EXPECT_EQ(eval("quotient", {7, 2}), 3.0);
  EXPECT_EQ(eval("modulo", {-6, 3}), 0.0);
  EXPECT_FALSE(std::signbit(eval("modulo", {-6, 3})));
}

TEST(Arithmetic, IntegerDivisionByZeroIsADomainError) {
  for (const char* name : {"quotient", "remainder", "modulo"}) {
    Error e = errorOf(name, reals({5, 0}));
    EXPECT_EQ(e.kind, ErrorKind::Domain) << name;
    EXPECT_NE(e.message.find(name), std::string::npos) << e.message;
  }
}

TEST(Arithmetic, IntegerDivisionOfANonIntegerIsATypeError) {
  Error e = errorOf("modulo", reals({7.5, 2}));
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message, "modulo: argument 1 must be an integer, got 7.5");
}

TEST(Arithmetic, LogWithABaseAndAtanWithTwoArguments) {
  EXPECT_NEAR(eval("log", {8, 2}), 3.0, 1e-15);
  EXPECT_NEAR(eval("atan", {1, -1}), 3 * std::numbers::pi / 4, 1e-15);
}

// Phi against known values, and its lower tail without cancellation (Phi(-10) = 7.6198530241605e-24).
TEST(Arithmetic, NormalCdfHasItsKnownValuesAndTails) {
  EXPECT_EQ(eval("normal-cdf", {0}), 0.5);
  EXPECT_NEAR(eval("normal-cdf", {1.959963984540054}), 0.975, 1e-15);
  EXPECT_NEAR(eval("normal-cdf", {-10}), 7.6198530241605260e-24, 1e-36);
  EXPECT_EQ(eval("normal-cdf", {40}), 1.0);
}

TEST(Arithmetic, SigmoidAndSoftplusAreStableAtLargeMagnitudes) {
  EXPECT_EQ(eval("sigmoid", {1000}), 1.0);
  EXPECT_EQ(eval("sigmoid", {-1000}), 0.0);
  EXPECT_NEAR(eval("sigmoid", {-40}), std::exp(-40.0), 1e-30);
  EXPECT_EQ(eval("softplus", {1000}), 1000.0);
  EXPECT_EQ(eval("softplus", {-1000}), 0.0);
  EXPECT_NEAR(eval("softplus", {-40}), std::exp(-40.0), 1e-30);
}

TEST(Arithmetic, MinAndMaxReturnTheSelectedArgumentWithItsTapeSlot) {
  Runtime rt;
  Value a = rt.leaf(1.0), b = rt.leaf(5.0);
  EXPECT_EQ(call(rt, "max", {a, b}).i, b.i);
  EXPECT_EQ(call(rt, "min", {a, b}).i, a.i);
  EXPECT_TRUE(std::isnan(eval("max", {1, NAN, 3})));
}

TEST(Arithmetic, ComparisonsChainOverAllArguments) {
  EXPECT_TRUE(truth("<", {1, 2, 3}));
  EXPECT_FALSE(truth("<", {1, 3, 2}));
  EXPECT_TRUE(truth("<=", {1, 1, 2}));
  EXPECT_TRUE(truth(">", {3, 2, 1}));
  EXPECT_TRUE(truth(">=", {3, 3, 1}));
  EXPECT_TRUE(truth("=", {2, 2, 2}));
  EXPECT_FALSE(truth("=", {2, 2, 3}));
  EXPECT_TRUE(truth("=", {7}));
  EXPECT_FALSE(truth("=", {NAN, NAN}));
}

// --- errors ---

TEST(ArithmeticErrors, ArithmeticOnANonNumberIsATypeErrorNamingThePrimitive) {
  Runtime rt;
  Error e = errorOf(rt, "+", {Value::real(1), rt.string("x")});
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message, "+: argument 2 must be a number, got \"x\"");
  e = errorOf("sin", {Value::boolean(true)});
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message, "sin: argument 1 must be a number, got #t");
  for (const char* name : {"-", "*", "/", "abs", "exp", "expt", "min", "max", "sigmoid"}) {
    e = errorOf(name, {symbol("a"), Value::real(1)});
    if (e.kind == ErrorKind::Arity) e = errorOf(name, {symbol("a")});
    EXPECT_EQ(e.kind, ErrorKind::Type) << name;
    EXPECT_EQ(e.message.rfind(std::string(name) + ": argument 1", 0), 0u) << e.message;
  }
}

TEST(ArithmeticErrors, ComparisonsCheckEveryArgumentEvenAfterTheAnswerIsKnown) {
  Error e = errorOf("<", {Value::real(2), Value::real(1), symbol("a")});
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message, "<: argument 3 must be a number, got a");
}

TEST(ArithmeticErrors, ArityIsCheckedFromTheTable) {
  struct Bad {
    const char* name;
    int argc;
  };
  const std::vector<Bad> bad = {{"-", 0},   {"/", 0},   {"=", 0},    {"<", 0},    {"min", 0},    {"sin", 2},
                                {"log", 0}, {"log", 3}, {"atan", 3}, {"expt", 1}, {"modulo", 3}, {"abs", 0}};
  for (auto [name, argc] : bad) {
    try {
      checkArity(prim(primId(name)), argc);
      ADD_FAILURE() << name << " accepted " << argc << " arguments";
    } catch (const DmciError& e) {
      EXPECT_EQ(e.error().kind, ErrorKind::Arity);
      EXPECT_EQ(e.error().message.rfind(std::string(name) + ":", 0), 0u) << e.error().message;
    }
  }
  for (const char* name : {"+", "*"}) EXPECT_NO_THROW(checkArity(prim(primId(name)), 0));
}

// --- number predicates ---

TEST(NumberPredicates, IntegerMeansFiniteAndIntegral) {
  EXPECT_TRUE(truth("integer?", {2.0}));
  EXPECT_TRUE(truth("integer?", {-1e15}));
  EXPECT_FALSE(truth("integer?", {2.5}));
  EXPECT_FALSE(truth("integer?", {INFINITY}));
  EXPECT_FALSE(truth("integer?", {NAN}));
  Runtime rt;
  EXPECT_TRUE(call(rt, "integer?", {symbol("a")}).isFalse());
}

TEST(NumberPredicates, SignTests) {
  EXPECT_TRUE(truth("zero?", {0.0}));
  EXPECT_TRUE(truth("zero?", {-0.0}));
  EXPECT_FALSE(truth("zero?", {1e-300}));
  EXPECT_TRUE(truth("positive?", {1e-300}));
  EXPECT_FALSE(truth("positive?", {0.0}));
  EXPECT_TRUE(truth("negative?", {-2}));
}

TEST(NumberPredicates, EvenAndOdd) {
  EXPECT_TRUE(truth("even?", {-4}));
  EXPECT_TRUE(truth("even?", {0}));
  EXPECT_TRUE(truth("odd?", {-3}));
  EXPECT_FALSE(truth("odd?", {8}));
}

TEST(NumberPredicates, EvenOfANonIntegerIsATypeError) {
  Error e = errorOf("even?", reals({2.5}));
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message, "even?: argument 1 must be an integer, got 2.5");
  EXPECT_EQ(errorOf("zero?", {symbol("a")}).kind, ErrorKind::Type);
}

TEST(NumberPredicates, NumberPredicateRecognisesOnlyNumbers) {
  Runtime rt;
  EXPECT_FALSE(call(rt, "number?", {rt.leaf(1.0)}).isFalse());
  EXPECT_TRUE(call(rt, "number?", {rt.string("1")}).isFalse());
  EXPECT_TRUE(call(rt, "number?", {Value::nil()}).isFalse());
}

TEST(NumberPredicates, PredicatesAreNotTaped) {
  Runtime rt;
  Value v = call(rt, "positive?", {rt.leaf(1.0)});
  EXPECT_EQ(v.tag, Tag::Bool);
  EXPECT_TRUE(rt.tape.empty());
}

}  // namespace
}  // namespace dmci
