// The trace recorder: what each primitive application leaves in the trace (Recorder.h says which).
#include "replay/Recorder.h"

#include <cstring>

#include "prims/PrimTable.h"
#include "prims/ScalarRule.h"

namespace dmci::replay {

Recorder::Recorder(Runtime& rt, Trace& trace, int32_t leaves, int32_t params) : rt_(rt), t_(trace) {
  t_.leaves = leaves;
  t_.params = params;
  t_.slots = leaves;
  slotOf_.assign(static_cast<size_t>(leaves), 0);
  for (int32_t k = 0; k < leaves; ++k) slotOf_[static_cast<size_t>(k)] = k;
}

void Recorder::fail(const std::string& why) {
  if (t_.notReplayable.empty()) t_.notReplayable = why;
}

Ref Recorder::constant(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  auto [it, fresh] = constOf_.emplace(bits, static_cast<int32_t>(t_.consts.size()));
  if (fresh) t_.consts.push_back(x);
  return -1 - it->second;
}

Ref Recorder::ref(const Value& v) {
  if (!dependent(v)) return constant(v.num);
  size_t s = static_cast<size_t>(v.i);
  if (s >= slotOf_.size() || slotOf_[s] < 0) {
    fail("a number made by an operation the trace does not hold");
    return constant(v.num);
  }
  return slotOf_[s];
}

int32_t Recorder::newSlot(int32_t nativeSlot) {
  int32_t s = t_.slots++;
  if (nativeSlot >= 0) {
    if (slotOf_.size() <= static_cast<size_t>(nativeSlot)) slotOf_.resize(static_cast<size_t>(nativeSlot) + 1, -1);
    slotOf_[static_cast<size_t>(nativeSlot)] = s;
  }
  return s;
}

bool Recorder::pushArgs(const Value* args, int argc) {
  for (int k = 0; k < argc; ++k) {
    const Value& v = args[k];
    switch (v.tag) {
      case Tag::Real: {
        Ref r = ref(v);
        Value a = Value::real(isConst(r) ? t_.constant(r) : v.num, isConst(r) ? -1 : r);
        t_.args.push_back(a);
        break;
      }
      case Tag::Nil:
      case Tag::Bool:
      case Tag::Char:
      case Tag::Symbol:
      case Tag::Prim:
        t_.args.push_back(v);
        break;
      default:
        return false;
    }
  }
  return true;
}

// Whether a list argument holds a dependent number or tensor (a scan through it reads them).
bool Recorder::listsHoldDependent(const Value* args, int argc) const {
  std::vector<Value> todo(args, args + argc);
  while (!todo.empty()) {
    Value v = todo.back();
    todo.pop_back();
    if (dependent(v) || (v.tag == Tag::Tensor && rt_.tensors[static_cast<size_t>(v.i)].slot >= 0)) return true;
    if (v.tag == Tag::Pair) {
      todo.push_back(rt_.car(v));
      todo.push_back(rt_.cdr(v));
    }
  }
  return false;
}

void Recorder::applied(int id, const Value* args, int argc, Value& result) {
  if (!t_.replayable()) return;
  const Primitive& p = prim(id);
  if (p.lanes.reads == LaneReads::Nothing || p.lanes.reads == LaneReads::NoRule) return;
  bool dep = false;
  for (int k = 0; k < argc; ++k) {
    if (dependent(args[k])) dep = true;
    if (args[k].tag == Tag::Tensor && rt_.tensors[static_cast<size_t>(args[k].i)].slot >= 0)
      return fail(std::string(p.name) +
                  " of a tensor that depends on a parameter (tensor operations are not replayed)");
  }
  if ((p.lanes.reads == LaneReads::Lists || p.lanes.reads == LaneReads::ListsByNumber) &&
      listsHoldDependent(args, argc))
    return fail(std::string(p.name) + " searches lists holding numbers that depend on a parameter");
  if (!dep) return;
  switch (p.lanes.kernel) {
    case LaneKernel::Add:
    case LaneKernel::Subtract:
    case LaneKernel::Multiply:
    case LaneKernel::Divide:
      return arithmetic(id, args, argc, result);
    case LaneKernel::Min:
    case LaneKernel::Max:
      return select(id, args, argc, result);
    default:
      break;
  }
  if (scalarRule(id)) return rule(id, args, argc, result);
  generic(id, args, argc, result);
}

namespace {
double fold(OpKind k, double a, double b) {
  switch (k) {
    case OpKind::Add:
      return a + b;
    case OpKind::Sub:
      return a - b;
    case OpKind::Mul:
      return a * b;
    default:
      return a / b;
  }
}
}  // namespace

void Recorder::arithmetic(int id, const Value* args, int argc, const Value& result) {
  const LaneKernel k = prim(id).lanes.kernel;
  for (int j = 0; j < argc; ++j)
    if (args[j].tag != Tag::Real) return fail(std::string(prim(id).name) + " of a tensor and a dependent number");
  if (argc == 1) {
    if (k == LaneKernel::Add || k == LaneKernel::Multiply) return;  // the argument itself
    t_.ops.push_back({k == LaneKernel::Subtract ? OpKind::Neg : OpKind::Inv, id, ref(args[0]), 0, 0});
    t_.ops.back().out = newSlot(result.i);
    return;
  }
  const OpKind kind = k == LaneKernel::Add        ? OpKind::Add
                      : k == LaneKernel::Subtract ? OpKind::Sub
                      : k == LaneKernel::Multiply ? OpKind::Mul
                                                  : OpKind::Div;
  Ref acc = ref(args[0]);
  for (int j = 1; j < argc; ++j) {
    Ref b = ref(args[j]);
    if (isConst(acc) && isConst(b)) {
      acc = constant(fold(kind, t_.constant(acc), t_.constant(b)));
      continue;
    }
    const bool last = j == argc - 1;
    Op op{kind, id, acc, b, 0};
    op.out = newSlot(last ? result.i : -1);
    t_.ops.push_back(op);
    acc = op.out;
  }
}

void Recorder::select(int id, const Value* args, int argc, const Value& result) {
  std::vector<double> xs(static_cast<size_t>(argc));
  for (int j = 0; j < argc; ++j) {
    if (args[j].tag != Tag::Real) return fail(std::string(prim(id).name) + " of a non-number");
    xs[static_cast<size_t>(j)] = args[j].num;
  }
  int best = selectedIndex(prim(id).lanes.kernel == LaneKernel::Max, xs.data(), argc);
  if (args[best].i != result.i) return fail(std::string(prim(id).name) + ": selection not understood");
  Guard g{GuardKind::Select, id, static_cast<int32_t>(t_.args.size()), argc, best, static_cast<int32_t>(t_.ops.size())};
  if (!pushArgs(args, argc)) return fail(std::string(prim(id).name) + " of a non-number");
  t_.guards.push_back(g);
}

void Recorder::rule(int id, const Value* args, int argc, Value& result) {
  const ScalarRule& r = *scalarRule(id);
  if (result.tag != Tag::Real) return fail(std::string(r.name) + ": a result that is not a number");
  Op op{argc == 1 ? OpKind::Rule1 : OpKind::Rule2, id, ref(args[0]), argc == 2 ? ref(args[1]) : 0, 0};
  if (!dependent(result)) result.i = rt_.newSlot();  // floor, round, ...: no partial, but a value that moves
  op.out = newSlot(result.i);
  t_.ops.push_back(op);
}

void Recorder::generic(int id, const Value* args, int argc, Value& result) {
  const Primitive& p = prim(id);
  const int32_t first = static_cast<int32_t>(t_.args.size());
  if (!pushArgs(args, argc)) {
    t_.args.resize(static_cast<size_t>(first));
    // eqv? of a number and a heap object is #f whatever the number is.
    if (p.lanes.kernel == LaneKernel::Eqv) return;
    return fail(std::string(p.name) + " of a dependent number and a heap object");
  }
  if (result.tag == Tag::Bool) {
    t_.guards.push_back({GuardKind::Outcome, id, first, argc, result.i, static_cast<int32_t>(t_.ops.size())});
    return;
  }
  if (result.tag == Tag::Real && !dependent(result)) {
    result.i = rt_.newSlot();
    Op op{OpKind::Step, id, 0, 0, newSlot(result.i), first, argc};
    t_.ops.push_back(op);
    return;
  }
  if (result.tag == Tag::Real) {
    for (int k = 0; k < argc; ++k)
      if (args[k].tag == Tag::Real && args[k].i == result.i) return;  // the argument itself
  }
  t_.args.resize(static_cast<size_t>(first));
  if (result.tag == Tag::Tensor)
    return fail(std::string(p.name) +
                " makes a tensor of a number that depends on a parameter (tensor operations "
                "are not replayed)");
  fail(std::string(p.name) + " of a number that depends on a parameter gives " +
       (result.tag == Tag::Real ? "a number with partials the trace does not know" : "a value that is not a number"));
}

void Recorder::finish(const Value& out) {
  if (out.tag == Tag::Tensor) return fail("the value is a tensor (tensor values are not replayed)");
  if (out.tag != Tag::Real) return fail("the value is not a number");
  t_.output = ref(out);
}

}  // namespace dmci::replay
