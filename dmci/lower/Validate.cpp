// Checks that a ComputeGraph is well formed, so an engine never indexes out of range.
#include <string>

#include "lower/ComputeGraph.h"
#include "prims/PrimTable.h"

namespace dmci {
namespace {

[[noreturn]] void bad(const CodeBlock& b, size_t pc, const std::string& why) {
  throw DmciError(ErrorKind::Graph, "block '" + b.name + "' instruction " + std::to_string(pc) + ": " + why);
}

void checkInstr(const ComputeGraph& g, const CodeBlock& b, size_t pc) {
  const Instr& in = b.code[pc];
  auto slot = [&](int s) {
    if (s < 0 || s >= b.nslots) bad(b, pc, "slot " + std::to_string(s) + " out of range");
  };
  auto range = [&](int first, int n) {
    if (n < 0 || (n > 0 && (first < 0 || first + n > b.nslots))) bad(b, pc, "slot range out of range");
  };
  auto konst = [&](int k) {
    if (k < 0 || k >= static_cast<int>(g.consts.size())) bad(b, pc, "constant out of range");
  };
  auto block = [&](int k) {
    if (k < 0 || k >= static_cast<int>(g.blocks.size())) bad(b, pc, "block out of range");
  };
  auto target = [&](int t) {
    if (t < 0 || t >= static_cast<int>(b.code.size())) bad(b, pc, "jump target out of range");
  };
  auto primIndex = [&](int p) {
    if (p < 0 || p >= static_cast<int>(primitives().size())) bad(b, pc, "primitive out of range");
  };
  switch (in.op) {
    case Op::Const:
      slot(in.dst);
      konst(in.a);
      break;
    case Op::Move:
      slot(in.dst);
      slot(in.a);
      break;
    case Op::Env:
      slot(in.dst);
      if (in.a < 0 || in.a >= b.nfree) bad(b, pc, "environment cell out of range");
      break;
    case Op::Param:
      slot(in.dst);
      if (in.a < 0 || in.a >= static_cast<int>(g.params.size())) bad(b, pc, "parameter out of range");
      break;
    case Op::PrimRef:
      slot(in.dst);
      primIndex(in.a);
      break;
    case Op::Prim:
      slot(in.dst);
      primIndex(in.a);
      range(in.b, in.c);
      if (!prim(in.a).forward) bad(b, pc, "primitive has no forward rule");
      break;
    case Op::Prim1:
      slot(in.dst);
      primIndex(in.a);
      slot(in.b);
      if (!prim(in.a).forward) bad(b, pc, "primitive has no forward rule");
      break;
    case Op::Prim2:
      slot(in.dst);
      primIndex(in.a);
      slot(in.b);
      slot(in.c);
      if (!prim(in.a).forward) bad(b, pc, "primitive has no forward rule");
      break;
    case Op::Closure:
      slot(in.dst);
      block(in.a);
      if (in.c == -1)
        slot(in.b);
      else
        range(in.b, in.c);
      if (in.c >= 0 && in.c != g.blocks[in.a].nfree) bad(b, pc, "environment size does not match the block");
      break;
    case Op::Sibling:
      slot(in.dst);
      block(in.a);
      break;
    case Op::Call:
    case Op::Apply:
      slot(in.dst);
      slot(in.a);
      range(in.b, in.c);
      break;
    case Op::TailCall:
    case Op::TailApply:
      slot(in.a);
      range(in.b, in.c);
      break;
    case Op::Return:
      slot(in.a);
      break;
    case Op::Jump:
      target(in.a);
      break;
    case Op::JumpIfFalse:
      slot(in.a);
      target(in.b);
      break;
    case Op::BoxNew:
      slot(in.dst);
      break;
    case Op::BoxSet:
      slot(in.a);
      slot(in.b);
      break;
    case Op::BoxGet:
      slot(in.dst);
      slot(in.a);
      konst(in.b);
      break;
    case Op::Unbound:
      konst(in.a);
      break;
    default:
      bad(b, pc, "unknown opcode");
  }
  if ((in.op == Op::Apply || in.op == Op::TailApply) && in.c < 1) bad(b, pc, "apply needs a list argument");
}

}  // namespace

void validateGraph(const ComputeGraph& g) {
  if (g.entry < 0 || g.entry >= static_cast<int>(g.blocks.size()))
    throw DmciError(ErrorKind::Graph, "entry block out of range");
  for (const CodeBlock& b : g.blocks) {
    if (b.where.size() != b.code.size()) throw DmciError(ErrorKind::Graph, "block '" + b.name + "' lacks positions");
    if (b.nparams < 0 || b.nslots < b.nparams + (b.variadic ? 1 : 0) || b.nslots < 1)
      throw DmciError(ErrorKind::Graph, "block '" + b.name + "' has a bad frame size");
    if (b.hidden < 0 || b.hidden > b.nparams)
      throw DmciError(ErrorKind::Graph, "block '" + b.name + "' hides more parameters than it has");
    if (b.code.empty()) throw DmciError(ErrorKind::Graph, "block '" + b.name + "' is empty");
    for (size_t pc = 0; pc < b.code.size(); ++pc) checkInstr(g, b, pc);
    Op last = b.code.back().op;
    if (last != Op::Return && last != Op::TailCall && last != Op::TailApply && last != Op::Jump)
      throw DmciError(ErrorKind::Graph, "block '" + b.name + "' can fall off its end");
  }
}

}  // namespace dmci
