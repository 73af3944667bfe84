// The replay sweeps: forward, guards, reverse, over rows of `stride` lanes (kBlock for a block, 1 for one lane).
#include "engines/replay/Replay.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "prims/ScalarRule.h"
#include "trace/Recorder.h"  // selectedIndex

// The elementwise loops, built for AVX2 and for the baseline x86-64; the loader picks one when the program starts.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DMCI_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define DMCI_VECTOR_CLONES
#endif

namespace dmci::replay {
namespace {

using Row = double* __restrict;
using In = const double* __restrict;

DMCI_VECTOR_CLONES void addRows(Row o, In a, In b, int n) {
  for (int l = 0; l < n; ++l) o[l] = a[l] + b[l];
}
DMCI_VECTOR_CLONES void subRows(Row o, In a, In b, int n) {
  for (int l = 0; l < n; ++l) o[l] = a[l] - b[l];
}
DMCI_VECTOR_CLONES void mulRows(Row o, In a, In b, int n) {
  for (int l = 0; l < n; ++l) o[l] = a[l] * b[l];
}
DMCI_VECTOR_CLONES void divRows(Row o, In a, In b, int n) {
  for (int l = 0; l < n; ++l) o[l] = a[l] / b[l];
}
DMCI_VECTOR_CLONES void negRows(Row o, In a, int n) {
  for (int l = 0; l < n; ++l) o[l] = -a[l];
}
DMCI_VECTOR_CLONES void invRows(Row o, In a, int n) {
  for (int l = 0; l < n; ++l) o[l] = 1.0 / a[l];
}

// The native backward sweep skips an entry whose output adjoint is 0 (so an infinite partial times 0 is not
// NaN); where a partial may be infinite the loops select instead. Adding +0 leaves an adjoint unchanged (an
// adjoint is never -0), so a partial of +-1 needs no select.
DMCI_VECTOR_CLONES void accPlus(Row adj, In g, int n) {
  for (int l = 0; l < n; ++l) adj[l] += 1.0 * g[l];
}
DMCI_VECTOR_CLONES void accMinus(Row adj, In g, int n) {
  for (int l = 0; l < n; ++l) adj[l] += -1.0 * g[l];
}
DMCI_VECTOR_CLONES void accTimes(Row adj, In p, In g, int n) {
  for (int l = 0; l < n; ++l) adj[l] += g[l] != 0.0 ? p[l] * g[l] : 0.0;
}
// a / b: d/da = 1/b, d/db = -q/b, as the native rule records them.
DMCI_VECTOR_CLONES void accDivA(Row adj, In b, In g, int n) {
  for (int l = 0; l < n; ++l) adj[l] += g[l] != 0.0 ? (1.0 / b[l]) * g[l] : 0.0;
}
DMCI_VECTOR_CLONES void accDivB(Row adj, In q, In b, In g, int n) {
  for (int l = 0; l < n; ++l) adj[l] += g[l] != 0.0 ? (-q[l] / b[l]) * g[l] : 0.0;
}
DMCI_VECTOR_CLONES void accInv(Row adj, In r, In g, int n) {
  for (int l = 0; l < n; ++l) adj[l] += g[l] != 0.0 ? (-r[l] * r[l]) * g[l] : 0.0;
}

bool compareChain(LaneKernel k, const double* xs, int n, bool& known) {
  known = true;
  bool all = true;
  for (int j = 1; j < n; ++j) {
    double x = xs[j - 1], y = xs[j];
    switch (k) {
      case LaneKernel::Less:
        all = all && x < y;
        break;
      case LaneKernel::Greater:
        all = all && x > y;
        break;
      case LaneKernel::LessEqual:
        all = all && x <= y;
        break;
      case LaneKernel::GreaterEqual:
        all = all && x >= y;
        break;
      case LaneKernel::Equal:
        all = all && x == y;
        break;
      default:
        known = false;
        return false;
    }
  }
  return all;
}

}  // namespace

Replayer::Replayer(Trace trace, std::vector<std::vector<int32_t>> gradient, bool wantGradient)
    : t_(std::move(trace)),
      grad_(std::move(gradient)),
      wantGradient_(wantGradient),
      planted_(adjointFaultPlanted()),
      nconst_(static_cast<int32_t>(t_.consts.size())) {}

void Replayer::prepare(Workspace& ws) const {
  if (ws.owner == this) return;
  ws.owner = this;
  const size_t rows = static_cast<size_t>(nconst_ + t_.slots);
  ws.val.assign(rows * kBlock, 0.0);
  ws.adj.assign(static_cast<size_t>(t_.slots) * kBlock, 0.0);
  ws.ok.assign(kBlock, 1);
  ws.rt.taping = false;
  // Constants and the literals' leaves are the same in every lane: written once.
  for (int32_t k = 0; k < nconst_; ++k)
    std::fill_n(ws.val.data() + static_cast<size_t>(k) * kBlock, kBlock, t_.consts[static_cast<size_t>(k)]);
  for (int32_t s = t_.params; s < t_.leaves; ++s)
    std::fill_n(ws.val.data() + static_cast<size_t>(row(s)) * kBlock, kBlock, t_.leafValues[static_cast<size_t>(s)]);
}

void Replayer::prepareOne(Workspace& ws) const {
  if (ws.oneOwner == this) return;
  ws.oneOwner = this;
  ws.one.assign(static_cast<size_t>(nconst_ + t_.slots), 0.0);
  ws.oneAdj.assign(static_cast<size_t>(t_.slots), 0.0);
  ws.rt.taping = false;
  std::copy(t_.consts.begin(), t_.consts.end(), ws.one.begin());
  for (int32_t s = t_.params; s < t_.leaves; ++s)
    ws.one[static_cast<size_t>(row(s))] = t_.leafValues[static_cast<size_t>(s)];
}

void Replayer::laneArgs(int32_t first, int32_t argc, const double* v, int stride, int l, Workspace& ws) const {
  ws.args.clear();
  for (int32_t k = 0; k < argc; ++k) {
    Value a = t_.args[static_cast<size_t>(first + k)];
    if (a.tag == Tag::Real && a.i >= 0) a = Value::real(v[static_cast<size_t>(row(a.i)) * stride + l]);
    ws.args.push_back(a);
  }
}

bool Replayer::stepLane(const Op& op, const double* v, int stride, int l, double& out, Workspace& ws) const {
  laneArgs(op.firstArg, op.argc, v, stride, l, ws);
  try {
    Value r = prim(op.prim).forward(ws.rt, ws.args.data(), op.argc);
    if (r.tag != Tag::Real) return false;
    out = r.num;
    return true;
  } catch (const DmciError&) {
    return false;  // the native engine reruns the lane and reports the error
  }
}

bool Replayer::guardLane(const Guard& g, const double* v, int stride, int l, Workspace& ws) const {
  double xs[8];
  bool numbers = g.argc <= 8;
  for (int32_t k = 0; numbers && k < g.argc; ++k) {
    const Value& a = t_.args[static_cast<size_t>(g.firstArg + k)];
    if (a.tag != Tag::Real)
      numbers = false;
    else
      xs[k] = a.i >= 0 ? v[static_cast<size_t>(row(a.i)) * stride + l] : a.num;
  }
  if (g.kind == GuardKind::Select)
    return numbers && selectedIndex(prim(g.prim).lanes.kernel == LaneKernel::Max, xs, g.argc) == g.expected;
  if (numbers && g.argc >= 2) {
    bool known;
    bool holds = compareChain(prim(g.prim).lanes.kernel, xs, g.argc, known);
    if (known) return holds == (g.expected != 0);
  }
  laneArgs(g.firstArg, g.argc, v, stride, l, ws);
  try {
    Value r = prim(g.prim).forward(ws.rt, ws.args.data(), g.argc);
    return r.tag == Tag::Bool && r.i == g.expected;
  } catch (const DmciError&) {
    return false;
  }
}

void Replayer::forward(double* v, int stride, int n, uint8_t* ok, Workspace& ws) const {
  auto at = [&](Ref r) { return v + static_cast<size_t>(row(r)) * stride; };
  for (const Op& op : t_.ops) {
    double* o = at(op.out);
    const double* a = at(op.a);
    const double* b = at(op.b);
    switch (op.kind) {
      case OpKind::Add:
        addRows(o, a, b, n);
        break;
      case OpKind::Sub:
        subRows(o, a, b, n);
        break;
      case OpKind::Mul:
        mulRows(o, a, b, n);
        break;
      case OpKind::Div:
        divRows(o, a, b, n);
        break;
      case OpKind::Neg:
        negRows(o, a, n);
        break;
      case OpKind::Inv:
        invRows(o, a, n);
        break;
      case OpKind::Rule1: {
        double (*f)(double) = scalarRule(op.prim)->f1;
        for (int l = 0; l < n; ++l) o[l] = f(a[l]);
        break;
      }
      case OpKind::Rule2: {
        double (*f)(double, double) = scalarRule(op.prim)->f2;
        for (int l = 0; l < n; ++l) o[l] = f(a[l], b[l]);
        break;
      }
      case OpKind::Step:
        for (int l = 0; l < n; ++l)
          if (!stepLane(op, v, stride, l, o[l], ws)) ok[l] = 0, o[l] = std::nan("");
        break;
    }
  }
  for (size_t k = 0; k < t_.guards.size(); ++k) {
    const Guard& g = t_.guards[k];
    const uint8_t failed = failedAtGuard(k);
    if (compareRows(g, v, stride, n, ok, failed)) continue;
    for (int l = 0; l < n; ++l)
      if (ok[l] == kOnPath && !guardLane(g, v, stride, l, ws)) ok[l] = failed;
  }
}

// A guard comparing two numbers (< > <= >= =, the commonest), as one loop over the lanes that the compiler
// vectorises: the verdict of each lane still on the path becomes `failed` where the outcome differs. False when
// the guard is of another kind (guardLane then checks it lane by lane).
bool Replayer::compareRows(const Guard& g, const double* v, int stride, int n, uint8_t* ok, uint8_t failed) const {
  if (g.kind != GuardKind::Outcome || g.argc != 2) return false;
  const Value& x = t_.args[static_cast<size_t>(g.firstArg)];
  const Value& y = t_.args[static_cast<size_t>(g.firstArg + 1)];
  if (x.tag != Tag::Real || y.tag != Tag::Real) return false;
  const LaneKernel kernel = prim(g.prim).lanes.kernel;
  if (kernel != LaneKernel::Less && kernel != LaneKernel::Greater && kernel != LaneKernel::LessEqual &&
      kernel != LaneKernel::GreaterEqual && kernel != LaneKernel::Equal)
    return false;
  // An operand is a slot's row or a constant number (an argument's Real with i < 0).
  const double* a = x.i >= 0 ? v + static_cast<size_t>(row(x.i)) * stride : nullptr;
  const double* b = y.i >= 0 ? v + static_cast<size_t>(row(y.i)) * stride : nullptr;
  const double xc = x.num, yc = y.num;
  const bool expected = g.expected != 0;
  auto loop = [&](auto holds) {
    auto lanes = [&](auto xs, auto ys) {
      for (int l = 0; l < n; ++l) {
        const bool keep = ok[l] == kOnPath && holds(xs(l), ys(l)) == expected;
        ok[l] = keep ? kOnPath : (ok[l] == kOnPath ? failed : ok[l]);
      }
    };
    auto slotA = [&](int l) { return a[l]; };
    auto slotB = [&](int l) { return b[l]; };
    auto constA = [&](int) { return xc; };
    auto constB = [&](int) { return yc; };
    if (a && b)
      lanes(slotA, slotB);
    else if (a)
      lanes(slotA, constB);
    else if (b)
      lanes(constA, slotB);
    else
      lanes(constA, constB);
  };
  switch (kernel) {
    case LaneKernel::Less:
      loop([](double p, double q) { return p < q; });
      break;
    case LaneKernel::Greater:
      loop([](double p, double q) { return p > q; });
      break;
    case LaneKernel::LessEqual:
      loop([](double p, double q) { return p <= q; });
      break;
    case LaneKernel::GreaterEqual:
      loop([](double p, double q) { return p >= q; });
      break;
    default:
      loop([](double p, double q) { return p == q; });
      break;
  }
  return true;
}

void Replayer::reverse(const double* v, double* adj, int stride, int n) const {
  auto val = [&](Ref r) { return v + static_cast<size_t>(row(r)) * stride; };
  auto adjOf = [&](Ref r) { return adj + static_cast<size_t>(r) * stride; };
  for (size_t k = t_.ops.size(); k-- > 0;) {
    const Op& op = t_.ops[k];
    const double* g = adjOf(op.out);
    const bool da = !isConst(op.a), db = !isConst(op.b);
    switch (op.kind) {
      case OpKind::Add:
        if (da) accPlus(adjOf(op.a), g, n);
        if (db) accPlus(adjOf(op.b), g, n);
        break;
      case OpKind::Sub:
        if (da) accPlus(adjOf(op.a), g, n);
        if (db) accMinus(adjOf(op.b), g, n);
        break;
      case OpKind::Mul:
        if (da) accTimes(adjOf(op.a), val(op.b), g, n);
        if (db) accTimes(adjOf(op.b), val(op.a), g, n);
        break;
      case OpKind::Div:
        if (da) accDivA(adjOf(op.a), val(op.b), g, n);
        if (db) accDivB(adjOf(op.b), val(op.out), val(op.b), g, n);
        break;
      case OpKind::Neg:
        accMinus(adjOf(op.a), g, n);
        break;
      case OpKind::Inv:
        accInv(adjOf(op.a), val(op.out), g, n);
        break;
      case OpKind::Rule1: {
        const ScalarRule& r = *sweptRule(op.prim, planted_);
        if (!r.dx) break;
        const double *x = val(op.a), *y = val(op.out);
        double* ax = adjOf(op.a);
        for (int l = 0; l < n; ++l)
          if (g[l] != 0.0) ax[l] += r.dx(x[l], y[l]) * g[l];
        break;
      }
      case OpKind::Rule2: {
        const ScalarRule& r = *sweptRule(op.prim, planted_);
        const double *x = val(op.a), *z = val(op.b), *y = val(op.out);
        for (int l = 0; l < n; ++l) {
          if (g[l] == 0.0) continue;
          if (da) adjOf(op.a)[l] += r.da(x[l], z[l], y[l]) * g[l];
          if (db) adjOf(op.b)[l] += r.db(x[l], z[l], y[l]) * g[l];
        }
        break;
      }
      case OpKind::Step:
        break;
    }
  }
}

bool Replayer::runOne(const double* params, double& value, double* gradient, Workspace& ws) const {
  if (t_.hasTensorSteps()) return false;  // not replayed here: every lane is off the path (Replay.h)
  prepareOne(ws);
  double* v = ws.one.data();
  for (int32_t p = 0; p < t_.params; ++p) v[row(p)] = params[p];
  uint8_t ok = kOnPath;
  forward(v, 1, 1, &ok, ws);
  if (ok != kOnPath) return false;
  value = v[row(t_.output)];
  if (!wantGradient_) return true;
  std::fill(ws.oneAdj.begin(), ws.oneAdj.end(), 0.0);
  if (!isConst(t_.output)) ws.oneAdj[static_cast<size_t>(t_.output)] = 1.0;
  reverse(v, ws.oneAdj.data(), 1, 1);
  for (size_t k = 0; k < grad_.size(); ++k) {
    const auto& leaves = grad_[k];
    double g = leaves.empty() ? 0.0 : ws.oneAdj[static_cast<size_t>(leaves[0])];
    for (size_t j = 1; j < leaves.size(); ++j) g += ws.oneAdj[static_cast<size_t>(leaves[j])];
    gradient[k] = g;
  }
  return true;
}

namespace {

// A block's gradient entry for the lanes on the path: the sum of its leaves' adjoints (0 with no leaves), into
// dst[l * stride].
template <class Stride>
void sumLeaves(const double* adj, const std::vector<int32_t>& leaves, const uint8_t* ok, int n, double* dst,
               Stride stride) {
  for (int l = 0; l < n; ++l) {
    if (ok[l] != kOnPath) continue;
    double g = 0.0;
    if (!leaves.empty()) {
      g = adj[static_cast<size_t>(leaves[0]) * kBlock + static_cast<size_t>(l)];
      for (size_t j = 1; j < leaves.size(); ++j)
        g += adj[static_cast<size_t>(leaves[j]) * kBlock + static_cast<size_t>(l)];
    }
    dst[static_cast<size_t>(l) * stride] = g;
  }
}

}  // namespace

void Replayer::runBlock(const double* const* params, size_t paramStride, size_t from, int n, double* value,
                        double* const* gradient, size_t gradientStride, uint8_t* ok, Workspace& ws) const {
  if (t_.hasTensorSteps()) {
    std::fill_n(ok, n, 0);
    return;
  }
  prepare(ws);
  double* v = ws.val.data();
  for (int32_t p = 0; p < t_.params; ++p) {
    double* dst = v + static_cast<size_t>(row(p)) * kBlock;
    const double* src = params[static_cast<size_t>(p)] + from * paramStride;
    if (paramStride == 1)
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(double));
    else
      for (int l = 0; l < n; ++l) dst[l] = src[static_cast<size_t>(l) * paramStride];
  }
  std::fill_n(ok, n, 1);
  forward(v, kBlock, n, ok, ws);
  const double* out = v + static_cast<size_t>(row(t_.output)) * kBlock;
  for (int l = 0; l < n; ++l)
    if (ok[l] == kOnPath) value[from + static_cast<size_t>(l)] = isConst(t_.output) ? out[0] : out[l];
  if (!wantGradient_ || !gradient) return;
  double* adj = ws.adj.data();
  std::fill(ws.adj.begin(), ws.adj.end(), 0.0);
  if (!isConst(t_.output)) std::fill_n(adj + static_cast<size_t>(t_.output) * kBlock, n, 1.0);
  reverse(v, adj, kBlock, n);
  for (size_t k = 0; k < grad_.size(); ++k) {
    double* dst = gradient[k] + from * gradientStride;
    if (gradientStride == 1)  // the engine's own columns: a loop the compiler can keep tight
      sumLeaves(adj, grad_[k], ok, n, dst, std::integral_constant<size_t, 1>{});
    else
      sumLeaves(adj, grad_[k], ok, n, dst, gradientStride);
  }
}

}  // namespace dmci::replay
