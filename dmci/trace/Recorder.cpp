// The trace recorder: what each primitive application leaves in the trace (Recorder.h says which).
#include "trace/Recorder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

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

// Whether a list or vector argument holds a dependent number or tensor (a scan through it reads them).
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
    if (v.tag == Tag::Vector)
      for (int32_t k = 0; k < static_cast<int32_t>(v.code); ++k) todo.push_back(rt_.vectorRef(v, k));
  }
  return false;
}

namespace {
double fold(OpKind k, double a, double b);
// The elementwise primitives' ids (%tensor+ ...), by operator.
int elementwiseId(char op) {
  static const int ids[4] = {primId("%tensor+"), primId("%tensor-"), primId("%tensor*"), primId("%tensor/")};
  return ids[op == '+' ? 0 : op == '-' ? 1 : op == '*' ? 2 : 3];
}
// The operator of + - * / or of an elementwise primitive; 0 for any other.
char arithmeticOperator(int id) {
  switch (prim(id).lanes.kernel) {
    case LaneKernel::Add:
      return '+';
    case LaneKernel::Subtract:
      return '-';
    case LaneKernel::Multiply:
      return '*';
    case LaneKernel::Divide:
      return '/';
    default:
      break;
  }
  for (char op : {'+', '-', '*', '/'})
    if (id == elementwiseId(op)) return op;
  return 0;
}
}  // namespace

void Recorder::applied(int id, const Value* args, int argc, Value& result) {
  if (!t_.replayable()) return;
  const Primitive& p = prim(id);
  // vector-set! moves a value into a cell: nothing to record, unless the cell it picks depends on a leaf (a lane
  // with another index would read other cells later, which the trace's data flow cannot follow).
  static const int vectorSet = primId("vector-set!");
  if (id == vectorSet && argc > 1 && dependent(args[1]))
    return fail("vector-set! at an index that depends on a parameter");
  if (p.lanes.reads == LaneReads::Nothing || p.lanes.reads == LaneReads::NoRule) return;
  bool dep = false, depTensor = false, anyTensor = result.tag == Tag::Tensor;
  for (int k = 0; k < argc; ++k) {
    if (dependent(args[k])) dep = true;
    if (dependentTensor(args[k])) depTensor = true;
    if (args[k].tag == Tag::Tensor) anyTensor = true;
  }
  // Only a tensor primitive, or + - * / with a tensor, is a tensor step (the operator is asked for only then).
  const char op = p.family == PrimFamily::Tensor || anyTensor ? arithmeticOperator(id) : 0;
  if (p.family == PrimFamily::Tensor || (op && anyTensor)) {
    if (p.lanes.reads == LaneReads::Lists ? !listsHoldDependent(args, argc) : !dep && !depTensor) return;
    return op ? tensorArithmetic(id, args, argc, result) : tensor(id, args, argc, result);
  }
  if (depTensor) return fail(std::string(p.name) + " of a tensor that depends on a parameter (no trace step for it)");
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

// --- tensors ---

int32_t Recorder::newTensor(int32_t rank, int32_t rows, int32_t cols, int32_t data) {
  t_.tensors.push_back({rank, rows, cols, data});
  return static_cast<int32_t>(t_.tensors.size() - 1);
}

int32_t Recorder::tensorSlot(const Value& v) {
  const TensorRec r = rt_.tensors[static_cast<size_t>(v.i)];
  if (r.slot >= 0) {
    auto it = tensorOfSlot_.find(r.slot);
    if (it != tensorOfSlot_.end()) return it->second;
    fail("a tensor made by an operation the trace does not hold");
    return -1;
  }
  auto [it, fresh] = constTensorOf_.emplace(v.i, 0);
  if (fresh) {
    const int32_t at = static_cast<int32_t>(t_.tensorData.size());
    const double* d = rt_.tdata(v);
    t_.tensorData.insert(t_.tensorData.end(), d, d + r.size());
    it->second = newTensor(r.rank, r.rows, r.cols, at);
  }
  return it->second;
}

Value Recorder::operand(const Value& v) {
  if (v.tag == Tag::Tensor) {
    const int32_t ts = tensorSlot(v);
    return ts < 0 ? Value{} : Value::make(Tag::Tensor, ts);
  }
  if (v.tag == Tag::Int) return Value::real(v.num);
  if (v.tag != Tag::Real) {
    fail("a tensor primitive of a value that is neither a number nor a tensor");
    return Value{};
  }
  if (!dependent(v)) return Value::real(v.num);
  const Ref r = ref(v);
  return isConst(r) ? Value{} : Value::real(v.num, r);
}

int32_t Recorder::pushStep(int id, const std::vector<Value>& xs, int32_t rank, int32_t rows, int32_t cols) {
  TensorStep st{id,       static_cast<int32_t>(t_.args.size()), static_cast<int32_t>(xs.size()),       0,
                rank > 0, static_cast<int32_t>(t_.ops.size()),  static_cast<int32_t>(t_.guards.size())};
  t_.args.insert(t_.args.end(), xs.begin(), xs.end());
  st.out = rank > 0 ? newTensor(rank, rows, cols, -1) : newSlot(-1);
  t_.tensorSteps.push_back(st);
  return st.out;
}

void Recorder::mapResult(const Value& result, int32_t out, bool outTensor) {
  if (outTensor && result.tag == Tag::Tensor && rt_.tensors[static_cast<size_t>(result.i)].slot >= 0) {
    tensorOfSlot_[rt_.tensors[static_cast<size_t>(result.i)].slot] = out;
    return;
  }
  if (!outTensor && dependent(result)) {
    const size_t s = static_cast<size_t>(result.i);
    if (slotOf_.size() <= s) slotOf_.resize(s + 1, -1);
    slotOf_[s] = out;
    return;
  }
  fail(std::string("a tensor step's result is not what the native rule gave"));
}

void Recorder::tensor(int id, const Value* args, int argc, Value& result) {
  const std::string name = prim(id).name;
  static const std::vector<std::string> steps = {"vec",    "ref",   "dot",   "matvec",  "matmul", "transpose",
                                                 "outer",  "trace", "norm",  "vsum",    "scale",  "det",
                                                 "logdet", "inv",   "solve", "cholesky"};
  std::vector<Value> xs;
  if (name == "mat") {
    static const int refId = primId("ref");
    for (int k = 0; k < argc; ++k) {
      if (args[k].tag == Tag::Tensor) {  // a vector row: its entries, read by ref steps unless it is constant
        const int32_t ts = tensorSlot(args[k]);
        if (ts < 0) return;
        const TensorSlot r = t_.tensors[static_cast<size_t>(ts)];
        const double* d = rt_.tdata(args[k]);
        for (int32_t j = 0; j < r.rows; ++j)
          xs.push_back(
              r.data >= 0
                  ? Value::real(d[j])
                  : Value::real(
                        d[j],
                        pushStep(refId, {Value::make(Tag::Tensor, ts), Value::real(static_cast<double>(j))}, 0, 0, 0)));
        continue;
      }
      for (Value p = args[k]; p.tag == Tag::Pair; p = rt_.cdr(p)) xs.push_back(operand(rt_.car(p)));
    }
  } else if (name == "ref" || name == "zeros" || name == "ones" || name == "eye") {
    // A size or an index is read as an integer: one that depends on a leaf (a literal, floor of a parameter)
    // keeps its value along the path, by a guard; the tensor read or made depends on it through nothing else.
    const int first = name == "ref" ? 1 : 0;
    for (int k = first; k < argc; ++k)
      if (dependent(args[k]) && !guardSameValue(id, args[k])) return;
    if (name != "ref") return;  // a constant tensor
    for (int k = 0; k < argc; ++k) xs.push_back(k == 0 ? operand(args[k]) : Value::real(args[k].num));
  } else if (std::find(steps.begin(), steps.end(), name) != steps.end()) {
    for (int k = 0; k < argc; ++k) xs.push_back(operand(args[k]));
  } else {
    return fail(name + " of a number that depends on a parameter (no trace step for it)");
  }
  if (!t_.replayable()) return;
  bool active = false;  // a constant tensor read at a guarded index: a constant
  for (const Value& x : xs)
    active = active || (x.tag == Tag::Tensor ? t_.tensors[static_cast<size_t>(x.i)].data < 0 : x.i >= 0);
  if (!active) return;
  if (!t_.replayable()) return;
  if (result.tag == Tag::Tensor) {
    if (argc == 1 && args[0].tag == Tag::Tensor && args[0].i == result.i) return;  // a vector's transpose: itself
    const TensorRec r = rt_.tensors[static_cast<size_t>(result.i)];
    return mapResult(result, pushStep(id, xs, r.rank, r.rows, r.cols), true);
  }
  if (result.tag != Tag::Real) return fail(name + " gives a value that is not a number or a tensor");
  mapResult(result, pushStep(id, xs, 0, 0, 0), false);
}

bool Recorder::guardSameValue(int id, const Value& v) {
  static const int eq = primId("=");
  const Value both[2] = {v, Value::real(v.num)};
  const int32_t first = static_cast<int32_t>(t_.args.size());
  if (!pushArgs(both, 2)) {
    t_.args.resize(static_cast<size_t>(first));
    fail(std::string(prim(id).name) + " of a size or index the trace cannot hold");
    return false;
  }
  t_.guards.push_back({GuardKind::Outcome, eq, first, 2, 1, static_cast<int32_t>(t_.ops.size())});
  return true;
}

Value Recorder::elementwise(char op, const Value& a, const Value& b) {
  const bool at = a.tag == Tag::Tensor, bt = b.tag == Tag::Tensor;
  if (!at && !bt) {  // two numbers: a scalar operation, as the native rule does it
    if (a.i < 0 && b.i < 0)
      return Value::real(fold(op == '+'   ? OpKind::Add
                              : op == '-' ? OpKind::Sub
                              : op == '*' ? OpKind::Mul
                                          : OpKind::Div,
                              a.num, b.num));
    const OpKind kind = op == '+' ? OpKind::Add : op == '-' ? OpKind::Sub : op == '*' ? OpKind::Mul : OpKind::Div;
    Op o{kind, primId(std::string(1, op)), a.i >= 0 ? a.i : constant(a.num), b.i >= 0 ? b.i : constant(b.num), 0};
    o.out = newSlot(-1);
    t_.ops.push_back(o);
    return Value::real(fold(kind, a.num, b.num), o.out);
  }
  const TensorSlot shape = t_.tensors[static_cast<size_t>(at ? a.i : b.i)];
  if (at && bt) {
    const TensorSlot& other = t_.tensors[static_cast<size_t>(b.i)];
    if (other.rank != shape.rank || other.rows != shape.rows || other.cols != shape.cols) {
      fail("elementwise arithmetic on tensors of different shapes");
      return Value{};
    }
  }
  const bool aConst = at ? t_.tensors[static_cast<size_t>(a.i)].data >= 0 : a.i < 0;
  const bool bConst = bt ? t_.tensors[static_cast<size_t>(b.i)].data >= 0 : b.i < 0;
  if (aConst && bConst) {  // folded here, as the native rule computes it
    const OpKind kind = op == '+' ? OpKind::Add : op == '-' ? OpKind::Sub : op == '*' ? OpKind::Mul : OpKind::Div;
    const int32_t at0 = static_cast<int32_t>(t_.tensorData.size());
    for (int32_t k = 0; k < shape.size(); ++k) {
      const double x = at ? t_.tensorData[static_cast<size_t>(t_.tensors[static_cast<size_t>(a.i)].data + k)] : a.num;
      const double y = bt ? t_.tensorData[static_cast<size_t>(t_.tensors[static_cast<size_t>(b.i)].data + k)] : b.num;
      t_.tensorData.push_back(fold(kind, x, y));
    }
    return Value::make(Tag::Tensor, newTensor(shape.rank, shape.rows, shape.cols, at0));
  }
  return Value::make(Tag::Tensor, pushStep(elementwiseId(op), {a, b}, shape.rank, shape.rows, shape.cols));
}

void Recorder::tensorArithmetic(int id, const Value* args, int argc, Value& result) {
  const char op = arithmeticOperator(id);
  Value acc;
  if (argc == 1) {
    if (op == '+' || op == '*') return;  // the argument itself
    acc = elementwise(op, Value::real(op == '-' ? 0.0 : 1.0), operand(args[0]));
  } else {
    acc = operand(args[0]);
    for (int j = 1; j < argc && t_.replayable(); ++j) acc = elementwise(op, acc, operand(args[j]));
  }
  if (!t_.replayable()) return;
  if (acc.tag == Tag::Tensor && t_.tensors[static_cast<size_t>(acc.i)].data < 0) return mapResult(result, acc.i, true);
  if (acc.tag == Tag::Real && acc.i >= 0) return mapResult(result, acc.i, false);
  fail(std::string(prim(id).name) + ": a constant result of a dependent tensor");
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
  // The selected argument itself; a constant one may come back without its exact mark (runtime/ExactValue.h).
  const double chosen = xs[static_cast<size_t>(best)];
  const bool same = dependent(args[best]) ? result.i == args[best].i
                                          : !dependent(result) && (result.num == chosen ||
                                                                   (std::isnan(result.num) && std::isnan(chosen)));
  if (!same) return fail(std::string(prim(id).name) + ": selection not understood");
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
