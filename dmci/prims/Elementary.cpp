// The elementary scalar functions, each a row holding its forward rule and its local partials side by side.
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include "prims/ArithRules.h"
#include "prims/Faults.h"
#include "prims/ScalarRule.h"
#include "runtime/ExactValue.h"

namespace dmci {
namespace {

// Round half to even (R7RS), independent of the FPU rounding mode. x - floor x is exact.
double roundEven(double x) {
  double f = std::floor(x), frac = x - f;
  if (frac < 0.5) return f;
  if (frac > 0.5) return f + 1.0;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

// 1 / (1 + e^-x) without overflow for either sign of x.
double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

// log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large x, no lost digits for small e^x.
double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }

// The standard normal distribution function Phi(x) = erfc(-x/sqrt 2)/2: no cancellation in either tail.
double normalCdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); }
// Its density phi(x) = e^(-x^2/2)/sqrt(2 pi).
double normalPdf(double x) { return 0.39894228040143267794 * std::exp(-0.5 * x * x); }

constexpr ScalarRule kRules[] = {
    {.name = "abs",
     .f1 = [](double x) { return std::fabs(x); },
     .dx = [](double x, double) { return static_cast<double>((x > 0) - (x < 0)); },
     .doc = "(abs x) absolute value",
     .partials = "dx = sign x (subgradient 0 at x = 0)",
     .kernel = LaneKernel::Abs},
    {.name = "floor",
     .f1 = [](double x) { return std::floor(x); },
     .doc = "(floor x) largest integer <= x",
     .kernel = LaneKernel::Floor},
    {.name = "ceiling",
     .f1 = [](double x) { return std::ceil(x); },
     .doc = "(ceiling x) smallest integer >= x",
     .kernel = LaneKernel::Ceiling},
    {.name = "round", .f1 = roundEven, .doc = "(round x) nearest integer, halves to even", .kernel = LaneKernel::Round},
    {.name = "truncate",
     .f1 = [](double x) { return std::trunc(x); },
     .doc = "(truncate x) integer part of x",
     .kernel = LaneKernel::Truncate},
    {.name = "square",
     .f1 = [](double x) { return x * x; },
     .dx = [](double x, double) { return 2.0 * x; },
     .doc = "(square x) x * x",
     .partials = "dx = 2 x",
     .kernel = LaneKernel::Square},
    {.name = "exp",
     .f1 = [](double x) { return std::exp(x); },
     .dx = [](double, double y) { return y; },
     .doc = "(exp x) e to the power x",
     .partials = "dx = exp x",
     .kernel = LaneKernel::Exp},
    {.name = "log",
     .f1 = [](double x) { return std::log(x); },
     .dx = [](double x, double) { return 1.0 / x; },
     .f2 = [](double a, double b) { return std::log(a) / std::log(b); },
     .da = [](double a, double b, double) { return 1.0 / (a * std::log(b)); },
     .db = [](double, double b, double y) { return -y / (b * std::log(b)); },
     .doc = "(log x) natural logarithm; (log x b) logarithm of x in base b",
     .partials = "dx = 1/x; base form: dx = 1/(x ln b), db = -(log x b)/(b ln b)",
     .kernel = LaneKernel::Log},
    {.name = "sqrt",
     .f1 = [](double x) { return std::sqrt(x); },
     .dx = [](double, double y) { return 0.5 / y; },
     .doc = "(sqrt x) square root (NaN for x < 0)",
     .partials = "dx = 1/(2 sqrt x)",
     .kernel = LaneKernel::Sqrt},
    {.name = "expt",
     .f2 = [](double a, double b) { return std::pow(a, b); },
     // a^0 is the constant 1: its da is 0, not 0 * 0^-1 = NaN.
     .da = [](double a, double b, double) { return b == 0 ? 0.0 : b * std::pow(a, b - 1.0); },
     // For a <= 0 the value is not a differentiable function of b: use 0.
     .db = [](double a, double, double y) { return a > 0 ? y * std::log(a) : 0.0; },
     .doc = "(expt a b) a to the power b",
     .partials = "da = b a^(b-1) (0 when b = 0), db = a^b ln a (0 when a <= 0)",
     .kernel = LaneKernel::Expt},
    {.name = "sin",
     .f1 = [](double x) { return std::sin(x); },
     .dx = [](double x, double) { return std::cos(x); },
     .doc = "(sin x) sine (radians)",
     .partials = "dx = cos x",
     .kernel = LaneKernel::Sin},
    {.name = "cos",
     .f1 = [](double x) { return std::cos(x); },
     .dx = [](double x, double) { return -std::sin(x); },
     .doc = "(cos x) cosine (radians)",
     .partials = "dx = -sin x",
     .kernel = LaneKernel::Cos},
    {.name = "tan",
     .f1 = [](double x) { return std::tan(x); },
     .dx = [](double, double y) { return 1.0 + y * y; },
     .doc = "(tan x) tangent (radians)",
     .partials = "dx = 1 + tan^2 x",
     .kernel = LaneKernel::Tan},
    {.name = "asin",
     .f1 = [](double x) { return std::asin(x); },
     .dx = [](double x, double) { return 1.0 / std::sqrt((1.0 - x) * (1.0 + x)); },
     .doc = "(asin x) arcsine, in [-pi/2, pi/2]",
     .partials = "dx = 1/sqrt((1 - x)(1 + x)) (accurate near |x| = 1, where 1 - x^2 cancels)",
     .kernel = LaneKernel::Asin},
    {.name = "acos",
     .f1 = [](double x) { return std::acos(x); },
     .dx = [](double x, double) { return -1.0 / std::sqrt((1.0 - x) * (1.0 + x)); },
     .doc = "(acos x) arccosine, in [0, pi]",
     .partials = "dx = -1/sqrt((1 - x)(1 + x)) (accurate near |x| = 1, where 1 - x^2 cancels)",
     .kernel = LaneKernel::Acos},
    {.name = "atan",
     .f1 = [](double x) { return std::atan(x); },
     .dx = [](double x, double) { return 1.0 / (1.0 + x * x); },
     .f2 = [](double a, double b) { return std::atan2(a, b); },
     .da = [](double a, double b, double) { return b / (a * a + b * b); },
     .db = [](double a, double b, double) { return -a / (a * a + b * b); },
     .doc = "(atan x) arctangent; (atan y x) angle of the point (x, y), in [-pi, pi]",
     .partials = "dx = 1/(1 + x^2); two-argument form: dy = x/(x^2 + y^2), dx = -y/(x^2 + y^2)",
     .kernel = LaneKernel::Atan},
    {.name = "tanh",
     .f1 = [](double x) { return std::tanh(x); },
     .dx =
         [](double x, double) {
           double c = std::cosh(x);
           return 1.0 / (c * c);
         },
     .doc = "(tanh x) hyperbolic tangent",
     .partials = "dx = 1/cosh^2 x (not 1 - tanh^2 x, which cancels for large |x|)",
     .kernel = LaneKernel::Tanh},
    {.name = "sigmoid",
     .f1 = sigmoid,
     .dx = [](double, double y) { return y * (1.0 - y); },
     .doc = "(sigmoid x) logistic function 1/(1 + e^-x), computed without overflow",
     .partials = "dx = s (1 - s), s = sigmoid x",
     .kernel = LaneKernel::Sigmoid},
    {.name = "softplus",
     .f1 = softplus,
     .dx = [](double x, double) { return sigmoid(x); },
     .doc = "(softplus x) log(1 + e^x), computed without overflow",
     .partials = "dx = sigmoid x",
     .kernel = LaneKernel::Softplus},
    {.name = "normal-cdf",
     .f1 = normalCdf,
     .dx = [](double x, double) { return normalPdf(x); },
     .doc = "(normal-cdf x) the standard normal distribution function Phi(x) = erfc(-x/sqrt 2)/2 (what --smooth si "
            "turns a comparison into)",
     .partials = "dx = phi x = e^(-x^2/2)/sqrt(2 pi)"},
};

constexpr size_t kRuleCount = std::size(kRules);

// The primitive id of kRules[K], looked up on the first planted run (after the table is built).
template <size_t K>
int ruleId() {
  static const int id = primId(kRules[K].name);
  return id;
}

// The rules whose result is exact when their arguments are and the result is an integer (runtime/ExactValue.h):
// (abs -3), (floor 7), (square 5), (sqrt 16), (expt 2 10) are exact; exp, log and the trigonometric functions
// give inexact numbers, as chibi-scheme's do.
constexpr bool keepsExactness(std::string_view name) {
  for (std::string_view n : {"abs", "floor", "ceiling", "round", "truncate", "square", "sqrt", "expt"})
    if (n == name) return true;
  return false;
}

// The forward rule of kRules[K] with exactness kept where keepsExactness says.
template <size_t K, bool Planted = false>
Value applyRule(Runtime& rt, const Value* args, int argc);

template <size_t K, bool Planted = false>
Value applyExactRule(Runtime& rt, const Value* args, int argc) {
  const Value y = applyRule<K, Planted>(rt, args, argc);
  if constexpr (keepsExactness(kRules[K].name)) return keepExact(y, allExact(args, argc));
  return y;
}

// The forward rule of kRules[K]: the value, and its local partials on the tape when an argument is active. The
// Planted form (prims/Faults.h) multiplies the partials by the factor planted on the primitive.
template <size_t K, bool Planted>
Value applyRule(Runtime& rt, const Value* args, int argc) {
  constexpr ScalarRule r = kRules[K];
  if constexpr (r.f1 != nullptr) {
    if (argc == 1) {
      double x = numberArg(rt, r.name, args, 0);
      double y = r.f1(x);
      if constexpr (r.dx == nullptr) return Value::real(y);
      if (!args[0].isActive() || !rt.taping) return Value::real(y);
      if constexpr (Planted) return rt.unary(y, args[0], r.dx(x, y) * plantedScale(ruleId<K>()));
      return rt.unary(y, args[0], r.dx(x, y));
    }
  }
  if constexpr (r.f2 != nullptr) {
    double a = numberArg(rt, r.name, args, 0), b = numberArg(rt, r.name, args, 1);
    double y = r.f2(a, b);
    if ((!args[0].isActive() && !args[1].isActive()) || !rt.taping) return Value::real(y);
    if constexpr (Planted) {
      double s = plantedScale(ruleId<K>());
      return rt.binary(y, args[0], r.da(a, b, y) * s, args[1], r.db(a, b, y) * s);
    }
    return rt.binary(y, args[0], r.da(a, b, y), args[1], r.db(a, b, y));
  }
  return Value();  // unreachable: the row's arity admits only the forms the rule has
}

// kRules[K] with its partial rules times the planted factor, for the replay sweeps (prims/Faults.h).
template <size_t K>
double plantedDx(double x, double y) {
  return kRules[K].dx(x, y) * plantedScale(ruleId<K>());
}
template <size_t K>
double plantedDa(double a, double b, double y) {
  return kRules[K].da(a, b, y) * plantedScale(ruleId<K>());
}
template <size_t K>
double plantedDb(double a, double b, double y) {
  return kRules[K].db(a, b, y) * plantedScale(ruleId<K>());
}
template <size_t K>
constexpr ScalarRule plantedCopy() {
  ScalarRule r = kRules[K];
  if constexpr (kRules[K].dx != nullptr) r.dx = plantedDx<K>;
  if constexpr (kRules[K].da != nullptr) r.da = plantedDa<K>;
  if constexpr (kRules[K].db != nullptr) r.db = plantedDb<K>;
  return r;
}
template <size_t... K>
constexpr std::array<ScalarRule, kRuleCount> plantedCopies(std::index_sequence<K...>) {
  return {plantedCopy<K>()...};
}
constexpr std::array<ScalarRule, kRuleCount> kPlantedRules = plantedCopies(std::make_index_sequence<kRuleCount>{});

template <size_t... K>
constexpr std::array<PrimFn, kRuleCount> plantedForwards(std::index_sequence<K...>) {
  return {applyExactRule<K, true>...};
}

// The row of kRules[K]: one or two arguments, as its forms allow.
template <size_t K>
Primitive row() {
  constexpr ScalarRule r = kRules[K];
  int minArgs = 1, maxArgs = 2;
  if constexpr (r.f1 == nullptr) minArgs = 2;
  if constexpr (r.f2 == nullptr) maxArgs = 1;
  return {r.name,
          minArgs,
          maxArgs,
          applyExactRule<K>,
          nullptr,
          nullptr,
          PrimFamily::Arithmetic,
          r.doc,
          r.partials,
          laneUse(LaneReads::Arguments, r.kernel)};
}

template <size_t... K>
void addRules(std::vector<Primitive>& t, std::index_sequence<K...>) {
  (t.push_back(row<K>()), ...);
}

}  // namespace

void addElementaryPrims(std::vector<Primitive>& t) { addRules(t, std::make_index_sequence<kRuleCount>{}); }

const ScalarRule* scalarRule(int primId) {
  static const std::vector<const ScalarRule*> byId = [] {
    std::vector<const ScalarRule*> v(primitives().size(), nullptr);
    for (const ScalarRule& r : kRules) v[static_cast<size_t>(dmci::primId(r.name))] = &r;
    return v;
  }();
  return primId >= 0 && static_cast<size_t>(primId) < byId.size() ? byId[static_cast<size_t>(primId)] : nullptr;
}

// The index in kRules of primitive `id`'s rule, or -1.
static int ruleIndex(int id) {
  const ScalarRule* r = scalarRule(id);
  return r ? static_cast<int>(r - kRules) : -1;
}

PrimFn plantedForward(int id) {
  static constexpr std::array<PrimFn, kRuleCount> forwards = plantedForwards(std::make_index_sequence<kRuleCount>{});
  int k = ruleIndex(id);
  return k < 0 ? nullptr : forwards[static_cast<size_t>(k)];
}

const ScalarRule* plantedRule(int id) {
  int k = ruleIndex(id);
  return k < 0 ? nullptr : &kPlantedRules[static_cast<size_t>(k)];
}

}  // namespace dmci
