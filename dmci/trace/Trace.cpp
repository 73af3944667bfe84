// The trace's text form and its path key.
#include "trace/Trace.h"

#include <cstring>
#include <ostream>
#include <sstream>

#include "prims/PrimTable.h"
#include "runtime/Runtime.h"  // symbolName
#include "syntax/Datum.h"     // formatNumber

namespace dmci::replay {

const char* opName(OpKind k) {
  switch (k) {
    case OpKind::Add:
      return "add";
    case OpKind::Sub:
      return "sub";
    case OpKind::Mul:
      return "mul";
    case OpKind::Div:
      return "div";
    case OpKind::Neg:
      return "neg";
    case OpKind::Inv:
      return "inv";
    case OpKind::Rule1:
    case OpKind::Rule2:
      return "rule";
    case OpKind::Step:
      return "step";
  }
  return "?";
}

uint64_t Trace::pathKey() const {
  // FNV-1a over the guards (primitive, kind, outcome, position) and the operation count.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t x) {
    for (int k = 0; k < 8; ++k, x >>= 8) h = (h ^ (x & 0xff)) * 1099511628211ull;
  };
  for (const Guard& g : guards) {
    mix(static_cast<uint64_t>(g.prim));
    mix(static_cast<uint64_t>(g.kind));
    mix(static_cast<uint64_t>(g.expected));
    mix(static_cast<uint64_t>(g.afterOp));
  }
  mix(ops.size());
  for (const TensorStep& s : tensorSteps) {  // none in a trace without tensors: its key is as it was
    mix(static_cast<uint64_t>(s.prim));
    mix(static_cast<uint64_t>(s.afterOp));
    mix(static_cast<uint64_t>(s.afterGuard));
  }
  return h;
}

std::vector<StepRef> stepsInOrder(const Trace& t) {
  std::vector<StepRef> out;
  out.reserve(t.ops.size() + t.guards.size() + t.tensorSteps.size());
  size_t g = 0, s = 0;
  for (size_t k = 0; k <= t.ops.size(); ++k) {
    for (;;) {
      // A tensor step recorded before the next guard goes first; a guard recorded before it, first.
      if (s < t.tensorSteps.size() && static_cast<size_t>(t.tensorSteps[s].afterOp) <= k &&
          static_cast<size_t>(t.tensorSteps[s].afterGuard) <= g) {
        out.push_back({StepKind::Tensor, s++});
        continue;
      }
      if (g < t.guards.size() && static_cast<size_t>(t.guards[g].afterOp) <= k) {
        out.push_back({StepKind::Guard, g++});
        continue;
      }
      break;
    }
    if (k < t.ops.size()) out.push_back({StepKind::Op, k});
  }
  return out;
}

std::string shapeText(const TensorSlot& s) {
  return s.rank == 1 ? std::to_string(s.rows).insert(0, 1, 'v') : std::to_string(s.rows) + "x" + std::to_string(s.cols);
}

namespace {

// A number exactly: the shortest text that reads back to the same double (-0.0 with its sign).
std::string exact(double x) { return formatNumber(x); }

// A slot's or constant's name: "s7", "c2". (Built by insert, not "s" + to_string: GCC 12 warns falsely there.)
std::string named(char prefix, int32_t n) { return std::to_string(n).insert(0, 1, prefix); }

std::string refText(Ref r) { return isConst(r) ? named('c', constIndex(r)) : named('s', r); }

std::string argText(const Value& v) {
  if (v.tag == Tag::Real) return v.i >= 0 ? named('s', v.i) : exact(v.num);
  if (v.tag == Tag::Bool) return v.i ? "#t" : "#f";
  if (v.tag == Tag::Nil) return "()";
  if (v.tag == Tag::Char) return "#\\" + std::string(1, static_cast<char>(v.i));
  if (v.tag == Tag::Symbol) return "'" + symbolName(v.i);
  if (v.tag == Tag::Prim) return std::string("#<primitive ") + prim(v.i).name + ">";
  if (v.tag == Tag::Tensor) return named('t', v.i);
  return "?";
}

std::string argsText(const Trace& t, int32_t first, int32_t argc) {
  std::string s;
  for (int32_t k = 0; k < argc; ++k) {
    s += ' ';
    s += argText(t.args[static_cast<size_t>(first + k)]);
  }
  return s;
}

}  // namespace

void writeTrace(std::ostream& out, const Trace& t) {
  out << "trace v1\n";
  out << "leaves " << t.leaves << " params " << t.params << " slots " << t.slots << " ops " << t.ops.size()
      << " guards " << t.guards.size();
  if (!t.tensors.empty()) out << " tensors " << t.tensors.size() << " tensor-steps " << t.tensorSteps.size();
  out << "\n";
  if (!t.replayable()) out << "not-replayable " << t.notReplayable << "\n";
  for (int32_t k = 0; k < t.leaves; ++k)
    out << "leaf s" << k << " " << (k < t.params ? "param " : "literal ") << t.leafNames[static_cast<size_t>(k)]
        << " = " << exact(t.leafValues[static_cast<size_t>(k)]) << "\n";
  for (size_t k = 0; k < t.consts.size(); ++k) out << "const c" << k << " = " << exact(t.consts[k]) << "\n";
  // Tensor slots: a constant's numbers; a step's result is written where it is made.
  for (size_t k = 0; k < t.tensors.size(); ++k) {
    const TensorSlot& ts = t.tensors[k];
    if (ts.data < 0) continue;
    out << "const t" << k << "[" << shapeText(ts) << "] =";
    for (int32_t j = 0; j < ts.size(); ++j) out << " " << exact(t.tensorData[static_cast<size_t>(ts.data + j)]);
    out << "\n";
  }
  for (const StepRef& st : stepsInOrder(t)) {
    if (st.kind == StepKind::Guard) {
      const Guard& gd = t.guards[st.index];
      out << "guard " << prim(gd.prim).name << argsText(t, gd.firstArg, gd.argc);
      if (gd.kind == GuardKind::Outcome)
        out << " is " << (gd.expected ? "#t" : "#f") << "\n";
      else
        out << " selects " << gd.expected << "\n";
      continue;
    }
    if (st.kind == StepKind::Tensor) {
      const TensorStep& ts = t.tensorSteps[st.index];
      if (ts.outTensor)
        out << "t" << ts.out << "[" << shapeText(t.tensors[static_cast<size_t>(ts.out)]) << "]";
      else
        out << "s" << ts.out;
      out << " = tensor " << prim(ts.prim).name << argsText(t, ts.firstArg, ts.argc) << "\n";
      continue;
    }
    const Op& op = t.ops[st.index];
    out << "s" << op.out << " = " << opName(op.kind);
    if (op.kind == OpKind::Rule1 || op.kind == OpKind::Rule2 || op.kind == OpKind::Step)
      out << " " << prim(op.prim).name;
    if (op.kind == OpKind::Step)
      out << argsText(t, op.firstArg, op.argc);
    else
      out << " " << refText(op.a);
    if (op.kind == OpKind::Add || op.kind == OpKind::Sub || op.kind == OpKind::Mul || op.kind == OpKind::Div ||
        op.kind == OpKind::Rule2)
      out << " " << refText(op.b);
    out << "\n";
  }
  out << "output " << refText(t.output) << "\n";
}

std::string traceText(const Trace& t) {
  std::ostringstream s;
  writeTrace(s, t);
  return s.str();
}

}  // namespace dmci::replay
