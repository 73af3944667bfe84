// A trace as whole-batch LibTorch ops: forward, guards as one mask, reverse with the native partials.
//
// Slot values are tensors of shape [n] (the parameters) or 0-dim (constants and literals, the same in every
// lane), so that an operation on values that are the same in every lane costs one number. The partials are the
// native rules' (prims/Elementary.cpp), written as tensor expressions: a product with an adjoint of 0 is 0, as
// the native sweep skips such entries (an infinite partial times 0 is not NaN there either).
#include "engines/tensor/TraceReplay.h"

#include <ATen/ATen.h>

#include <cstring>
#include <type_traits>

#include "engines/tensor/LaneTensors.h"
#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "prims/ScalarRule.h"

namespace dmci::lanes {
namespace {

using replay::GuardKind;
using replay::OpKind;
using replay::Ref;

bool comparison(LaneKernel k) {
  return k == LaneKernel::Less || k == LaneKernel::Greater || k == LaneKernel::LessEqual ||
         k == LaneKernel::GreaterEqual || k == LaneKernel::Equal;
}
bool numberTest(LaneKernel k) {
  return k == LaneKernel::Zero || k == LaneKernel::Positive || k == LaneKernel::Negative || k == LaneKernel::Even ||
         k == LaneKernel::Odd || k == LaneKernel::Integer;
}
bool rounding(LaneKernel k) {
  return k == LaneKernel::Floor || k == LaneKernel::Ceiling || k == LaneKernel::Round || k == LaneKernel::Truncate;
}
bool unaryRule(LaneKernel k) {
  switch (k) {
    case LaneKernel::Abs:
    case LaneKernel::Square:
    case LaneKernel::Exp:
    case LaneKernel::Log:
    case LaneKernel::Sqrt:
    case LaneKernel::Sin:
    case LaneKernel::Cos:
    case LaneKernel::Tan:
    case LaneKernel::Asin:
    case LaneKernel::Acos:
    case LaneKernel::Atan:
    case LaneKernel::Tanh:
    case LaneKernel::Sigmoid:
    case LaneKernel::Softplus:
      return true;
    default:
      return rounding(k);
  }
}
bool binaryRule(LaneKernel k) { return k == LaneKernel::Log || k == LaneKernel::Atan || k == LaneKernel::Expt; }

// d f(x)/dx given y = f(x), as the native rule records it; undefined: no partial (a rounding).
at::Tensor unaryPartial(LaneKernel k, const at::Tensor& x, const at::Tensor& y) {
  switch (k) {
    case LaneKernel::Abs:
      return at::sign(x);
    case LaneKernel::Square:
      return 2.0 * x;
    case LaneKernel::Exp:
      return y;
    case LaneKernel::Log:
      return at::reciprocal(x);
    case LaneKernel::Sqrt:
      return 0.5 / y;
    case LaneKernel::Sin:
      return at::cos(x);
    case LaneKernel::Cos:
      return -at::sin(x);
    case LaneKernel::Tan:
      return 1.0 + y * y;
    case LaneKernel::Asin:
      return at::reciprocal(at::sqrt((1.0 - x) * (1.0 + x)));
    case LaneKernel::Acos:
      return -at::reciprocal(at::sqrt((1.0 - x) * (1.0 + x)));
    case LaneKernel::Atan:
      return at::reciprocal(1.0 + x * x);
    case LaneKernel::Tanh: {
      at::Tensor c = at::cosh(x);
      return at::reciprocal(c * c);
    }
    case LaneKernel::Sigmoid:
      return y * (1.0 - y);
    case LaneKernel::Softplus:
      return at::sigmoid(x);
    default:
      return {};
  }
}

at::Tensor binary(LaneKernel k, const at::Tensor& a, const at::Tensor& b) {
  if (k == LaneKernel::Log) return at::log(a) / at::log(b);
  if (k == LaneKernel::Atan) return at::atan2(a, b);
  return at::pow(a, b);
}

// The partials of the two-argument forms, as the native rules record them.
std::pair<at::Tensor, at::Tensor> binaryPartials(LaneKernel k, const at::Tensor& a, const at::Tensor& b,
                                                 const at::Tensor& y) {
  if (k == LaneKernel::Log) {
    at::Tensor lb = at::log(b);
    return {at::reciprocal(a * lb), -y / (b * lb)};
  }
  if (k == LaneKernel::Atan) {
    at::Tensor r = a * a + b * b;
    return {b / r, -a / r};
  }
  // expt: da = b a^(b-1) (0 when b = 0), db = a^b ln a (0 when a <= 0)
  at::Tensor da = at::where(at::eq(b, 0), at::zeros_like(y), b * at::pow(a, b - 1.0));
  at::Tensor db = at::where(at::gt(a, 0), y * at::log(a), at::zeros_like(y));
  return {da, db};
}

class TensorTrace final : public replay::BatchTrace {
 public:
  TensorTrace(const replay::Trace& t, std::vector<std::vector<int32_t>> grad, bool wantGradient,
              const TensorSettings& s)
      : t_(t), grad_(std::move(grad)), wantGradient_(wantGradient) {
    opts_ = at::TensorOptions().dtype(s.float32 ? at::kFloat : at::kDouble).device(at::Device(s.device));
    for (double c : t_.consts) consts_.push_back(at::scalar_tensor(c, opts_));
    for (int32_t s = t_.params; s < t_.leaves; ++s)
      literals_.push_back(at::scalar_tensor(t_.leafValues[static_cast<size_t>(s)], opts_));
  }

  std::optional<Error> run(const std::vector<const double*>& params, size_t n, double* value,
                           const std::vector<double*>& gradient, uint8_t* ok) override {
    try {
      runBatch(params, static_cast<int64_t>(n), value, gradient, ok);
      return std::nullopt;
    } catch (const c10::Error& e) {
      return Error{ErrorKind::Usage, std::string("tensor replay: ") + e.what_without_backtrace(), {}};
    }
  }

 private:
  replay::Trace t_;
  std::vector<std::vector<int32_t>> grad_;
  bool wantGradient_;
  at::TensorOptions opts_;
  std::vector<at::Tensor> consts_, literals_;

  // An argument of a Step or guard: a slot's value or a constant number.
  at::Tensor arg(const std::vector<at::Tensor>& v, int32_t k) const {
    const Value& a = t_.args[static_cast<size_t>(k)];
    return a.i >= 0 ? v[static_cast<size_t>(a.i)] : at::scalar_tensor(a.num, opts_);
  }
  const at::Tensor& operand(const std::vector<at::Tensor>& v, Ref r) const {
    return replay::isConst(r) ? consts_[static_cast<size_t>(replay::constIndex(r))] : v[static_cast<size_t>(r)];
  }
  // integer? of every lane: finite and equal to its floor.
  static at::Tensor integral(const at::Tensor& x) { return at::logical_and(at::isfinite(x), at::eq(at::floor(x), x)); }

  at::Tensor step(const replay::Op& op, const std::vector<at::Tensor>& v, at::Tensor& ok) const {
    const LaneKernel k = prim(op.prim).lanes.kernel;
    at::Tensor a = arg(v, op.firstArg);
    if (rounding(k)) return elementaryValue(k, a);
    // quotient, remainder, modulo: integers and a divisor that is not 0, else the lane is off the path (the
    // native machine reruns it and reports the error)
    at::Tensor d = arg(v, op.firstArg + 1);
    ok = at::logical_and(ok, at::logical_and(at::logical_and(integral(a), integral(d)), at::ne(d, 0)));
    at::Tensor r = at::fmod(a, d);
    if (k == LaneKernel::Quotient) return (a - r) / d;
    if (k == LaneKernel::Remainder) return r;
    return at::where(at::logical_and(at::ne(r, 0), at::ne(at::lt(r, 0), at::lt(d, 0))), r + d, r);
  }

  at::Tensor guard(const replay::Guard& g, const std::vector<at::Tensor>& v, at::Tensor& ok) const {
    const LaneKernel k = prim(g.prim).lanes.kernel;
    if (g.kind == GuardKind::Select) {  // the index min or max selects: a NaN wins, ties keep the leftmost
      at::Tensor best = arg(v, g.firstArg), index = at::zeros_like(best, at::kLong);
      for (int32_t j = 1; j < g.argc; ++j) {
        at::Tensor x = arg(v, g.firstArg + j);
        at::Tensor better = k == LaneKernel::Max ? at::gt(x, best) : at::lt(x, best);
        at::Tensor take = at::logical_and(at::logical_not(at::isnan(best)), at::logical_or(at::isnan(x), better));
        best = at::where(take, x, best);
        index = at::where(take, at::full_like(index, j), index);
      }
      return at::eq(index, g.expected);
    }
    at::Tensor holds;
    if (comparison(k)) {
      holds = at::ones_like(arg(v, g.firstArg), at::kBool);
      for (int32_t j = 1; j < g.argc; ++j) {
        at::Tensor x = arg(v, g.firstArg + j - 1), y = arg(v, g.firstArg + j);
        at::Tensor c = k == LaneKernel::Less           ? at::lt(x, y)
                       : k == LaneKernel::Greater      ? at::gt(x, y)
                       : k == LaneKernel::LessEqual    ? at::le(x, y)
                       : k == LaneKernel::GreaterEqual ? at::ge(x, y)
                                                       : at::eq(x, y);
        holds = at::logical_and(holds, c);
      }
    } else {
      at::Tensor x = arg(v, g.firstArg);
      switch (k) {
        case LaneKernel::Zero:
          holds = at::eq(x, 0);
          break;
        case LaneKernel::Positive:
          holds = at::gt(x, 0);
          break;
        case LaneKernel::Negative:
          holds = at::lt(x, 0);
          break;
        case LaneKernel::Integer:
          holds = integral(x);
          break;
        default:  // even?, odd?: a lane that is not an integer is an error, off the path
          ok = at::logical_and(ok, integral(x));
          holds = k == LaneKernel::Even ? at::eq(at::fmod(x, 2.0), 0) : at::ne(at::fmod(x, 2.0), 0);
      }
    }
    return g.expected ? holds : at::logical_not(holds);
  }

  void runBatch(const std::vector<const double*>& params, int64_t n, double* value,
                const std::vector<double*>& gradient, uint8_t* okOut) const {
    std::vector<at::Tensor> v(static_cast<size_t>(t_.slots));
    const auto host = at::TensorOptions().dtype(at::kDouble);
    for (int32_t p = 0; p < t_.params; ++p)
      v[static_cast<size_t>(p)] = at::from_blob(const_cast<double*>(params[static_cast<size_t>(p)]), {n}, host)
                                      .to(opts_.device(), opts_.dtype());
    for (int32_t s = t_.params; s < t_.leaves; ++s)
      v[static_cast<size_t>(s)] = literals_[static_cast<size_t>(s - t_.params)];
    at::Tensor ok = at::ones({n}, opts_.dtype(at::kBool));
    for (const auto& op : t_.ops) {
      const at::Tensor& a = operand(v, op.a);
      at::Tensor& o = v[static_cast<size_t>(op.out)];
      switch (op.kind) {
        case OpKind::Add:
          o = a + operand(v, op.b);
          break;
        case OpKind::Sub:
          o = a - operand(v, op.b);
          break;
        case OpKind::Mul:
          o = a * operand(v, op.b);
          break;
        case OpKind::Div:
          o = a / operand(v, op.b);
          break;
        case OpKind::Neg:
          o = -a;
          break;
        case OpKind::Inv:
          o = at::reciprocal(a);
          break;
        case OpKind::Rule1:
          o = elementaryValue(prim(op.prim).lanes.kernel, a);
          break;
        case OpKind::Rule2:
          o = binary(prim(op.prim).lanes.kernel, a, operand(v, op.b));
          break;
        case OpKind::Step:
          o = step(op, v, ok);
          break;
      }
    }
    for (const auto& g : t_.guards) {
      at::Tensor holds = guard(g, v, ok);  // first: even? and odd? narrow `ok` too
      ok = at::logical_and(ok, holds);
    }
    toHost(ok.to(at::kByte), n, okOut);  // the one synchronisation the guards need
    toHost(operand(v, t_.output), n, value);
    if (!wantGradient_ || gradient.empty()) return;
    std::vector<at::Tensor> adj(static_cast<size_t>(t_.slots));
    if (!replay::isConst(t_.output)) adj[static_cast<size_t>(t_.output)] = at::ones({n}, opts_);
    auto acc = [&](Ref r, const at::Tensor& x) {
      if (replay::isConst(r)) return;
      at::Tensor& s = adj[static_cast<size_t>(r)];
      s = s.defined() ? s + x : x;
    };
    // p * g, 0 where g is 0 (the native sweep skips those entries)
    auto times = [](const at::Tensor& p, const at::Tensor& g) { return (p * g).masked_fill_(at::eq(g, 0), 0); };
    for (size_t k = t_.ops.size(); k-- > 0;) {
      const replay::Op& op = t_.ops[k];
      const at::Tensor& g = adj[static_cast<size_t>(op.out)];
      if (!g.defined()) continue;
      const at::Tensor& a = operand(v, op.a);
      switch (op.kind) {
        case OpKind::Add:
          acc(op.a, g), acc(op.b, g);
          break;
        case OpKind::Sub:
          acc(op.a, g), acc(op.b, -g);
          break;
        case OpKind::Mul:
          if (!replay::isConst(op.a)) acc(op.a, times(operand(v, op.b), g));
          if (!replay::isConst(op.b)) acc(op.b, times(a, g));
          break;
        case OpKind::Div: {
          const at::Tensor& b = operand(v, op.b);
          if (!replay::isConst(op.a)) acc(op.a, times(at::reciprocal(b), g));
          if (!replay::isConst(op.b)) acc(op.b, times(-v[static_cast<size_t>(op.out)] / b, g));
          break;
        }
        case OpKind::Neg:
          acc(op.a, -g);
          break;
        case OpKind::Inv: {
          const at::Tensor& r = v[static_cast<size_t>(op.out)];
          acc(op.a, times(-(r * r), g));
          break;
        }
        case OpKind::Rule1: {
          at::Tensor p = unaryPartial(prim(op.prim).lanes.kernel, a, v[static_cast<size_t>(op.out)]);
          if (p.defined()) acc(op.a, times(p * plantedScale(op.prim), g));
          break;
        }
        case OpKind::Rule2: {
          auto [pa, pb] =
              binaryPartials(prim(op.prim).lanes.kernel, a, operand(v, op.b), v[static_cast<size_t>(op.out)]);
          const double s = plantedScale(op.prim);
          acc(op.a, times(pa * s, g)), acc(op.b, times(pb * s, g));
          break;
        }
        case OpKind::Step:
          break;
      }
    }
    for (size_t k = 0; k < grad_.size() && k < gradient.size(); ++k) {
      at::Tensor sum;
      for (int32_t leaf : grad_[k]) {
        const at::Tensor& s = adj[static_cast<size_t>(leaf)];
        if (s.defined()) sum = sum.defined() ? sum + s : s;
      }
      if (!sum.defined()) sum = at::zeros({n}, opts_);
      toHost(sum, n, gradient[k]);
    }
  }

  // n numbers of t (or its one number, when it is the same in every lane) into dst, as doubles or bytes.
  template <class T>
  static void toHost(const at::Tensor& t, int64_t n, T* dst) {
    constexpr auto type = std::is_same_v<T, double> ? at::kDouble : at::kByte;
    at::Tensor h = t.dim() == 0 ? t.expand({n}) : t;
    h = h.to(at::kCPU, type).contiguous();
    std::memcpy(dst, h.data_ptr(), static_cast<size_t>(n) * sizeof(T));
  }
};

// Why the tensor replay cannot run this trace, or "" when it can.
std::string refusal(const replay::Trace& t) {
  auto numbers = [&](int32_t first, int32_t argc) {
    for (int32_t k = 0; k < argc; ++k)
      if (t.args[static_cast<size_t>(first + k)].tag != Tag::Real) return false;
    return true;
  };
  for (const auto& op : t.ops) {
    if (op.kind != OpKind::Rule1 && op.kind != OpKind::Rule2 && op.kind != OpKind::Step) continue;
    const LaneKernel k = prim(op.prim).lanes.kernel;
    const char* name = prim(op.prim).name;
    if (op.kind == OpKind::Rule1 && !unaryRule(k)) return std::string("no tensor kernel for ") + name;
    if (op.kind == OpKind::Rule2 && !binaryRule(k)) return std::string("no tensor kernel for ") + name;
    if (op.kind != OpKind::Step) continue;
    const bool division = k == LaneKernel::Quotient || k == LaneKernel::Remainder || k == LaneKernel::Modulo;
    if (!((rounding(k) && op.argc == 1) || (division && op.argc == 2)) || !numbers(op.firstArg, op.argc))
      return std::string("no tensor kernel for the step ") + name;
  }
  for (const auto& g : t.guards) {
    const LaneKernel k = prim(g.prim).lanes.kernel;
    const bool known = g.kind == GuardKind::Select ? (k == LaneKernel::Min || k == LaneKernel::Max)
                                                   : (comparison(k) && g.argc >= 2) || (numberTest(k) && g.argc == 1);
    if (!known || !numbers(g.firstArg, g.argc))
      return std::string("no tensor kernel for the guard ") + prim(g.prim).name;
  }
  return "";
}

}  // namespace

replay::BatchLoader tensorTraceLoader(const TensorSettings& settings) {
  return [settings](const replay::Trace& t, const std::vector<std::vector<int32_t>>& leaves, bool wantGradient,
                    std::string& refused) -> std::unique_ptr<replay::BatchTrace> {
    refused = refusal(t);
    if (!refused.empty()) return nullptr;
    return std::make_unique<TensorTrace>(t, leaves, wantGradient, settings);
  };
}

}  // namespace dmci::lanes
