// Torch rules for the scalar primitives: + - * / (tensor operands too), comparisons, min and max,
// integer division, the elementary functions and the number predicates, on [n] lane tensors.
//
// Each rule reproduces the native rule's value and its reverse-mode partials
// (prims/Arith.cpp, Elementary.cpp, Predicates.cpp) and its errors. LibTorch's
// own derivative is used where it equals the native partial; `expt` and
// `softplus`, whose native partials differ at the edges, record theirs exactly.
#include <torch/csrc/autograd/custom_function.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engines/tensor/LaneTensors.h"
#include "prims/Equivalence.h"
#include "prims/PrimTable.h"
#include "prims/ScalarRule.h"

namespace dmci::lanes {

at::Tensor elementaryValue(LaneKernel f, const at::Tensor& x) {
  switch (f) {
    case LaneKernel::Abs:
      return at::abs(x);
    case LaneKernel::Square:
      return at::mul(x, x);
    case LaneKernel::Exp:
      return at::exp(x);
    case LaneKernel::Log:
      return at::log(x);
    case LaneKernel::Sqrt:
      return at::sqrt(x);
    case LaneKernel::Sin:
      return at::sin(x);
    case LaneKernel::Cos:
      return at::cos(x);
    case LaneKernel::Tan:
      return at::tan(x);
    case LaneKernel::Asin:
      return at::asin(x);
    case LaneKernel::Acos:
      return at::acos(x);
    case LaneKernel::Atan:
      return at::atan(x);
    case LaneKernel::Tanh:
      return at::tanh(x);
    case LaneKernel::Sigmoid:
      return at::sigmoid(x);
    case LaneKernel::Softplus:  // max(x, 0) + log1p(e^-|x|), as the native rule
      return at::relu(x) + at::log1p(at::exp(-at::abs(x)));
    case LaneKernel::Floor:
      return at::floor(x);
    case LaneKernel::Ceiling:
      return at::ceil(x);
    case LaneKernel::Round:  // halves to even, as R7RS and the native rule
      return at::round(x);
    case LaneKernel::Truncate:
      return at::trunc(x);
    default:
      throw DmciError(ErrorKind::Graph, "tensor engine internal error: no elementary kernel for this primitive");
  }
}

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// y = f(a, b) with the partials pa, pb given: backward is g*pa, g*pb, as the native tape records.
struct Linearised : torch::autograd::Function<Linearised> {
  static at::Tensor forward(AutogradContext* ctx, at::Tensor a, at::Tensor b, at::Tensor y, at::Tensor pa,
                            at::Tensor pb) {
    ctx->save_for_backward({pa, pb});
    ctx->saved_data["a0"] = a.dim() == 0;
    ctx->saved_data["b0"] = b.dim() == 0;
    return y.clone();
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    auto s = ctx->get_saved_variables();
    at::Tensor ga = g[0] * s[0], gb = g[0] * s[1];
    if (ctx->saved_data["a0"].toBool()) ga = ga.sum();
    if (ctx->saved_data["b0"].toBool()) gb = gb.sum();
    return {ga, gb, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

[[noreturn]] void typeError(Ctx& c, const char* name, int k, const Value& v, const char* expected) {
  wrongType(c.rt, name, k, c.store.hydrate(c.rt, v, c.set, 0), expected);
}

void needNumbers(Ctx& c, const char* name, const Value* a, int argc) {
  for (int k = 0; k < argc; ++k)
    if (a[k].tag != Tag::Real) typeError(c, name, k, a[k], "a number");
}

// A number as a full [n] tensor of the lanes' dtype (for ops that do not take a 0-dim CPU scalar).
at::Tensor full(Ctx& c, const Value& v) { return v.i >= 0 ? c.num(v) : at::full({c.n}, v.num, c.im.real); }

// --- + - * / : a left fold of one binary op; tensors elementwise, a number broadcast ---

std::string shapeName(const TensorRec& r) {
  if (r.rank == 1) return "vector of length " + std::to_string(r.rows);
  return std::to_string(r.rows) + "x" + std::to_string(r.cols) + " matrix";
}

at::Tensor binaryOp(char op, const at::Tensor& x, const at::Tensor& y) {
  switch (op) {
    case '+':
      return at::add(x, y);
    case '-':
      return at::sub(x, y);
    case '*':
      return at::mul(x, y);
    default:
      return at::div(x, y);
  }
}

double uniformOp(char op, double x, double y) {
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    default:
      return x / y;
  }
}

Value combine(Ctx& c, char op, const Value& x, const Value& y) {
  bool xt = x.tag == Tag::Tensor, yt = y.tag == Tag::Tensor;
  if (!LaneStore::isLane(c.rt, x) && !LaneStore::isLane(c.rt, y)) {
    if (xt || yt) return tensorElementwise(c.rt, op, x, y);  // two uniform operands: the native rule
    return Value::real(uniformOp(op, x.num, y.num));
  }
  if (!xt && !yt) return c.real(binaryOp(op, c.num(x), c.num(y)));
  if (xt && yt) {
    const TensorRec &rx = c.rt.tensors[static_cast<size_t>(x.i)], &ry = c.rt.tensors[static_cast<size_t>(y.i)];
    if (rx.rank != ry.rank || rx.rows != ry.rows || rx.cols != ry.cols)
      throw DmciError(ErrorKind::Type,
                      std::string(1, op) + ": shapes differ: " + shapeName(rx) + " and " + shapeName(ry));
  }
  at::Tensor a = xt ? c.ten(x) : c.numFor3d(x), b = yt ? c.ten(y) : c.numFor3d(y);
  return c.tensor(c.rt.tensors[static_cast<size_t>(xt ? x.i : y.i)].rank, binaryOp(op, a, b));
}

template <char Op>
Outcome arithmetic(Ctx& c, const Value* a, int argc) {
  static const char name[2] = {Op, '\0'};
  for (int k = 0; k < argc; ++k)
    if (a[k].tag != Tag::Real && a[k].tag != Tag::Tensor) typeError(c, name, k, a[k], "a number");
  if (argc == 1 && (Op == '-' || Op == '/'))
    return Outcome::of(combine(c, Op, Value::real(Op == '-' ? 0.0 : 1.0), a[0]));
  Value acc = a[0];
  for (int k = 1; k < argc; ++k) acc = combine(c, Op, acc, a[k]);
  return Outcome::of(acc);
}

// (- x) and (/ x) of a number: the native rules negate and take 1/x (not 0 - x, 1 / x with a tape entry of 2).
Outcome negate(Ctx& c, const Value* a, int argc) {
  if (argc == 1 && a[0].tag == Tag::Real) return Outcome::of(c.real(at::neg(c.num(a[0]))));
  return arithmetic<'-'>(c, a, argc);
}
Outcome reciprocal(Ctx& c, const Value* a, int argc) {
  if (argc == 1 && a[0].tag == Tag::Real) return Outcome::of(c.real(at::reciprocal(c.num(a[0]))));
  return arithmetic<'/'>(c, a, argc);
}

// --- comparisons: chains, every argument checked to be a number ---

template <int Cmp>
Outcome compare(Ctx& c, const Value* a, int argc) {
  static const char* names[] = {"=", "<", ">", "<=", ">="};
  needNumbers(c, names[Cmp], a, argc);
  auto holds = [](double x, double y) {
    return Cmp == 0 ? x == y : Cmp == 1 ? x < y : Cmp == 2 ? x > y : Cmp == 3 ? x <= y : x >= y;
  };
  for (int k = 1; k < argc; ++k)  // a uniform pair that fails settles it for every lane
    if (a[k - 1].i < 0 && a[k].i < 0 && !holds(a[k - 1].num, a[k].num)) return Outcome::of(Value::boolean(false));
  at::Tensor all = at::ones({c.n}, at::TensorOptions().dtype(at::kBool).device(c.im.real.device()));
  for (int k = 1; k < argc; ++k) {
    if (a[k - 1].i < 0 && a[k].i < 0) continue;
    at::Tensor x = c.num(a[k - 1]), y = c.num(a[k]);
    at::Tensor h = Cmp == 0   ? at::eq(x, y)
                   : Cmp == 1 ? at::lt(x, y)
                   : Cmp == 2 ? at::gt(x, y)
                   : Cmp == 3 ? at::le(x, y)
                              : at::ge(x, y);
    all = at::logical_and(all, h);
  }
  return c.truth(all);
}

// --- min and max: the selected argument (a NaN wins and stays; ties keep the leftmost) ---

template <bool Max>
Outcome select(Ctx& c, const Value* a, int argc) {
  needNumbers(c, Max ? "max" : "min", a, argc);
  at::Tensor best = full(c, a[0]);
  for (int k = 1; k < argc; ++k) {
    at::Tensor x = full(c, a[k]);
    at::Tensor better = Max ? at::gt(x, best) : at::lt(x, best);
    best = at::where(at::logical_and(at::logical_not(at::isnan(best)), at::logical_or(at::isnan(x), better)), x, best);
  }
  return Outcome::of(c.real(best));
}

// --- quotient, remainder, modulo: integers, a zero divisor is a Domain error, constant results ---

template <int Kind>
Outcome integerDivision(Ctx& c, const Value* a, int) {
  static const char* names[] = {"quotient", "remainder", "modulo"};
  const char* name = names[Kind];
  needNumbers(c, name, a, 2);
  at::Tensor n = full(c, a[0]).detach(), d = full(c, a[1]).detach();
  for (int k = 0; k < 2; ++k) {
    at::Tensor x = k == 0 ? n : d;
    int64_t bad = c.firstWhere(at::logical_not(at::logical_and(at::isfinite(x), at::eq(at::floor(x), x))));
    if (bad >= 0) wrongType(c.rt, name, k, c.store.hydrate(c.rt, a[k], c.set, bad), "an integer");
  }
  if (c.firstWhere(at::eq(d, 0)) >= 0) throw DmciError(ErrorKind::Domain, std::string(name) + ": division by zero");
  at::Tensor r = at::fmod(n, d), y;
  if (Kind == 0) y = at::div(at::sub(n, r), d);
  if (Kind == 1) y = r;
  if (Kind == 2) y = at::where(at::logical_and(at::ne(r, 0), at::ne(at::lt(r, 0), at::lt(d, 0))), r + d, r);
  return Outcome::of(c.real(y + 0.0));
}

// --- the elementary functions ---

constexpr const char* kFnNames[] = {"abs",  "floor", "ceiling", "round",   "truncate", "square", "exp",
                                    "log",  "sqrt",  "expt",    "sin",     "cos",      "tan",    "asin",
                                    "acos", "atan",  "tanh",    "sigmoid", "softplus"};
constexpr LaneKernel kFnKernels[] = {LaneKernel::Abs,      LaneKernel::Floor,   LaneKernel::Ceiling, LaneKernel::Round,
                                     LaneKernel::Truncate, LaneKernel::Square,  LaneKernel::Exp,     LaneKernel::Log,
                                     LaneKernel::Sqrt,     LaneKernel::Expt,    LaneKernel::Sin,     LaneKernel::Cos,
                                     LaneKernel::Tan,      LaneKernel::Asin,    LaneKernel::Acos,    LaneKernel::Atan,
                                     LaneKernel::Tanh,     LaneKernel::Sigmoid, LaneKernel::Softplus};
static_assert(std::size(kFnKernels) == std::size(kFnNames));

at::Tensor unaryFn(LaneKernel f, const at::Tensor& x) {
  switch (f) {
    case LaneKernel::Floor:
    case LaneKernel::Ceiling:
    case LaneKernel::Round:
    case LaneKernel::Truncate:
      return elementaryValue(f, x).detach();
    case LaneKernel::Asin:
    case LaneKernel::Acos: {  // the native partials, 1/sqrt((1 - x)(1 + x)), not LibTorch's 1/sqrt(1 - x^2)
      at::Tensor d = x.detach();
      at::Tensor p = at::reciprocal(at::sqrt((1.0 - d) * (1.0 + d)));
      if (f == LaneKernel::Asin) return Linearised::apply(x, x, at::asin(d), p, at::zeros_like(d));
      return Linearised::apply(x, x, at::acos(d), -p, at::zeros_like(d));
    }
    case LaneKernel::Tanh: {  // the native partial 1/cosh^2 x: LibTorch's 1 - tanh^2 x cancels for large |x|
      at::Tensor d = x.detach();
      at::Tensor c = at::cosh(d);
      return Linearised::apply(x, x, at::tanh(d), at::reciprocal(c * c), at::zeros_like(d));
    }
    case LaneKernel::Softplus: {  // with the native partial sigmoid(x)
      at::Tensor d = x.detach();
      return Linearised::apply(x, x, elementaryValue(f, d), at::sigmoid(d), at::zeros_like(d));
    }
    default:  // LibTorch's own derivative is the native rule's
      return elementaryValue(f, x);
  }
}

at::Tensor binaryFn(LaneKernel f, const at::Tensor& a, const at::Tensor& b) {
  if (f == LaneKernel::Log) return at::div(at::log(a), at::log(b));
  if (f == LaneKernel::Atan) return at::atan2(a, b);
  // expt: da = b a^(b-1) (0 when b = 0), db = a^b ln a (0 when a <= 0), as the native rule.
  at::Tensor ad = a.detach(), bd = b.detach();
  at::Tensor y = at::pow(ad, bd);
  at::Tensor zero = at::zeros_like(y);
  at::Tensor pa = at::where(at::eq(bd, 0), zero, bd * at::pow(ad, bd - 1.0));
  at::Tensor pb = at::where(at::gt(ad, 0), y * at::log(ad), zero);
  return Linearised::apply(a, b, y, pa, pb);
}

template <int K>
Outcome elementary(Ctx& c, const Value* a, int argc) {
  constexpr LaneKernel f = kFnKernels[K];
  needNumbers(c, kFnNames[K], a, argc);
  if (argc == 1) return Outcome::of(c.real(unaryFn(f, c.num(a[0]))));
  return Outcome::of(c.real(binaryFn(f, full(c, a[0]), full(c, a[1]))));
}

// --- predicates on numbers, and eqv? of numbers ---

template <int K>
Outcome numberTest(Ctx& c, const Value* a, int) {
  static const char* names[] = {"zero?", "positive?", "negative?", "even?", "odd?", "integer?"};
  if (K == 5 && a[0].tag != Tag::Real) return Outcome::of(Value::boolean(false));
  needNumbers(c, names[K], a, 1);
  at::Tensor x = c.num(a[0]).detach();
  at::Tensor integral = at::logical_and(at::isfinite(x), at::eq(at::floor(x), x));
  if (K == 3 || K == 4) {
    int64_t bad = c.firstWhere(at::logical_not(integral));
    if (bad >= 0) wrongType(c.rt, names[K], 0, c.store.hydrate(c.rt, a[0], c.set, bad), "an integer");
  }
  switch (K) {
    case 0:
      return c.truth(at::eq(x, 0));
    case 1:
      return c.truth(at::gt(x, 0));
    case 2:
      return c.truth(at::lt(x, 0));
    case 3:
      return c.truth(at::eq(at::fmod(x, 2.0), 0));
    case 4:
      return c.truth(at::ne(at::fmod(x, 2.0), 0));
    default:
      return c.truth(integral);
  }
}

// eq? and eqv? with per-lane data: numbers by value (NaN eqv? NaN); anything else by tag and identity.
Outcome eqvNumbers(Ctx& c, const Value* a, int) {
  if (a[0].tag != Tag::Real || a[1].tag != Tag::Real) return Outcome::of(Value::boolean(isEqv(a[0], a[1])));
  at::Tensor x = c.num(a[0]).detach(), y = c.num(a[1]).detach();
  return c.truth(at::logical_or(at::eq(x, y), at::logical_and(at::isnan(x), at::isnan(y))));
}

template <size_t... K>
void addElementary(std::vector<KernelRule>& t, std::index_sequence<K...>) {
  (t.push_back({kFnKernels[K], elementary<static_cast<int>(K)>}), ...);
}

}  // namespace

namespace {
std::vector<KernelRule> scalarRules() {
  using K = LaneKernel;
  std::vector<KernelRule> t = {
      {K::Add, arithmetic<'+'>},
      {K::Subtract, negate},
      {K::Multiply, arithmetic<'*'>},
      {K::Divide, reciprocal},
      {K::Equal, compare<0>},
      {K::Less, compare<1>},
      {K::Greater, compare<2>},
      {K::LessEqual, compare<3>},
      {K::GreaterEqual, compare<4>},
      {K::Min, select<false>},
      {K::Max, select<true>},
      {K::Quotient, integerDivision<0>},
      {K::Remainder, integerDivision<1>},
      {K::Modulo, integerDivision<2>},
      {K::Zero, numberTest<0>},
      {K::Positive, numberTest<1>},
      {K::Negative, numberTest<2>},
      {K::Even, numberTest<3>},
      {K::Odd, numberTest<4>},
      {K::Integer, numberTest<5>},
      {K::Eqv, eqvNumbers},
  };
  addElementary(t, std::make_index_sequence<std::size(kFnNames)>{});
  return t;
}

// Rules by kernel (null: none).
const std::array<Rule, static_cast<size_t>(LaneKernel::Count)>& rulesByKernel() {
  static const auto byKernel = [] {
    std::array<Rule, static_cast<size_t>(LaneKernel::Count)> out{};
    for (const auto& table : {scalarRules(), tensorRules()})
      for (const auto& r : table) out[static_cast<size_t>(r.kernel)] = r.rule;
    return out;
  }();
  return byKernel;
}
}  // namespace

bool hasRule(LaneKernel k) { return rulesByKernel()[static_cast<size_t>(k)] != nullptr; }

Outcome applyScalarRule1(Runtime& rt, LaneStore& store, int32_t set, const ScalarRule& r, const Value* args) {
  Ctx c{rt, store, *store.impl, set, store.size(set)};
  c.counted();
  needNumbers(c, r.name, args, 1);
  at::Tensor x = c.num(args[0]);
  at::Tensor d = x.detach().to(at::kCPU, at::kDouble).contiguous();
  at::Tensor y = at::empty_like(d), p = at::empty_like(d);
  const double* xs = d.data_ptr<double>();
  double *ys = y.data_ptr<double>(), *ps = p.data_ptr<double>();
  for (int64_t i = 0; i < d.numel(); ++i) ys[i] = r.f1(xs[i]), ps[i] = r.dx(xs[i], ys[i]);
  y = y.to(x.options().requires_grad(false)), p = p.to(x.options().requires_grad(false));
  return Outcome::of(c.real(Linearised::apply(x, x, y, p, at::zeros_like(p))));
}

Outcome applyRule(Runtime& rt, LaneStore& store, int32_t set, LaneKernel k, const Value* args, int argc) {
  Rule rule = rulesByKernel()[static_cast<size_t>(k)];
  if (!rule) throw std::logic_error("tensor engine: no torch rule for kernel " + std::to_string(static_cast<int>(k)));
  Ctx c{rt, store, *store.impl, set, store.size(set)};
  c.counted();
  return rule(c, args, argc);
}

}  // namespace dmci::lanes
