// The register machine's loop: frames, calls, tail calls and returns (Instructions.h says what each instruction does).
#include "machine/Machine.h"

#include "machine/ErrorPosition.h"
#include "machine/Instructions.h"
#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "runtime/TraceSink.h"

namespace dmci {

Machine::Machine(const ComputeGraph& g, Runtime& rt) : g_(g), rt_(rt), prims_(primitiveRows(adjointFaultPlanted())) {
  stack_.reserve(1024);
  frames_.reserve(256);
  for (const auto& b : g.blocks) library_.push_back(b.pos.inLibrary() ? 1 : 0);
}

void Machine::loadConstants(bool literalLeaves) {
  consts_.clear();
  literals_.clear();
  consts_.reserve(g_.consts.size());
  for (const auto& d : g_.consts) consts_.push_back(materialise(rt_, *d, literalLeaves ? &literals_ : nullptr));
}

template <class F>
Value Machine::located(int32_t& block, int32_t& pc, F body) {
  try {
    return body();
  } catch (DmciError& e) {
    Error err = e.error();
    err.pos = reportedPosition(g_, rt_, err.pos, block, pc, frames_, userCallBlock_, userCallPc_);
    throw DmciError(err);
  }
}

Value Machine::run(const std::vector<Value>& params) {
  if (params.size() != g_.params.size())
    throw DmciError(ErrorKind::Usage, "the graph takes " + std::to_string(g_.params.size()) + " parameters, " +
                                          std::to_string(params.size()) + " given");
  stack_.clear();
  frames_.clear();
  stats_ = {};
  userCallBlock_ = -1;
  startRun();
  int32_t block = g_.entry, pc = 0;
  stack_.resize(static_cast<size_t>(g_.blocks[block].nslots));
  return located(block, pc, [&] { return loopFrom(params, block, pc, -1); });
}

Value Machine::call(const Value& f, const std::vector<Value>& args) {
  stack_.clear();
  frames_.clear();
  stats_ = {};
  int32_t block = -1, pc = 0, base = 0, env = -1;
  userCallBlock_ = -1;
  startRun();
  static const std::vector<Value> none;
  return located(block, pc, [&] {
    args_ = args;
    Value result;
    if (!enter(f, block, pc, base, env, result)) return result;
    return loopFrom(none, block, pc, env);
  });
}

}  // namespace dmci

namespace dmci {

bool Machine::enter(Value f, int32_t& block, int32_t& pc, int32_t& base, int32_t& env, Value& result) {
  auto applyPrim = [&](int id, const Value* a, int argc) {
    result = prims_[id].forward(rt_, a, argc);
    if (rt_.trace) [[unlikely]]
      rt_.trace->applied(id, a, argc, result);
  };
  if (!instr::resolveClosure(rt_, f, args_, instr::asIs, applyPrim)) return false;
  instr::openFrame(rt_, g_.blocks[static_cast<size_t>(f.code)], stack_, base, frames_.size(), args_);
  block = static_cast<int32_t>(f.code);
  pc = 0;
  env = f.i;
  ++stats_.calls;
  return true;
}

Value Machine::loopFrom(const std::vector<Value>& params, int32_t& block, int32_t& pc, int32_t env) {
  int32_t base = 0;
  const uint64_t maxSteps = rt_.budget().steps;
  const CodeBlock* blocks = g_.blocks.data();
  const Instr* code = blocks[block].code.data();
  // Returns v to the caller's frame; false when there is none (v is the run's value).
  auto returnTo = [&](const Value& v) {
    if (frames_.empty()) return false;
    Frame fr = frames_.back();
    frames_.pop_back();
    block = fr.block, pc = fr.pc, base = fr.base, env = fr.env;
    code = blocks[block].code.data();
    stack_[static_cast<size_t>(base + fr.dst)] = v;
    return true;
  };
  for (;;) {
    const Instr& in = code[pc];
    if (++stats_.steps > maxSteps) rt_.budgetExceeded("steps");
    if ((stats_.steps & 0xFFFF) == 0 && rt_.outOfTime()) rt_.budgetExceeded("time");
#ifdef DMCI_PLANT_SLOWDOWN  // a planted regression for ci/perf-report's acceptance runs (CMake, off by default)
    for (int spin = 0; spin < DMCI_PLANT_SLOWDOWN; ++spin) asm volatile("" : "+r"(spin));  // not unrolled away
#endif
    Value* s = stack_.data() + base;
    switch (in.op) {
      case Op::Const:
        s[in.dst] = consts_[in.a];
        break;
      case Op::Move:
        s[in.dst] = s[in.a];
        break;
      case Op::Env:
        s[in.dst] = rt_.heap[env + in.a];
        break;
      case Op::Param:
        s[in.dst] = params[in.a];
        break;
      case Op::PrimRef:
        s[in.dst] = Value::make(Tag::Prim, in.a);
        break;
      case Op::Prim: {
        const Primitive& p = prims_[in.a];
        instr::primArity(p, in.c);
        Value r = p.forward(rt_, s + in.b, in.c);
        if (rt_.trace) [[unlikely]]
          rt_.trace->applied(in.a, s + in.b, in.c, r);
        s[in.dst] = r;
        break;
      }
      case Op::Prim1: {
        const Primitive& p = prims_[in.a];
        instr::primArity(p, 1);
        Value r = p.forward(rt_, s + in.b, 1);
        if (rt_.trace) [[unlikely]]
          rt_.trace->applied(in.a, s + in.b, 1, r);
        s[in.dst] = r;
        break;
      }
      case Op::Prim2: {
        const Primitive& p = prims_[in.a];
        instr::primArity(p, 2);
        Value two[2] = {s[in.b], s[in.c]};
        Value r = p.forward(rt_, two, 2);
        if (rt_.trace) [[unlikely]]
          rt_.trace->applied(in.a, two, 2, r);
        s[in.dst] = r;
        break;
      }
      case Op::Closure:
        s[in.dst] = instr::makeClosure(rt_, in, s);
        break;
      case Op::Sibling:
        s[in.dst] = Value::make(Tag::Closure, env, in.a);
        break;
      case Op::Call:
      case Op::TailCall:
        if (rt_.heap.size() > gcNext_) env = collect(block, base, env);
        if (s[in.a].tag == Tag::Closure) {  // the common case, inline
          if (!library_[block]) userCallBlock_ = block, userCallPc_ = pc;
          const Value f = s[in.a];
          const CodeBlock& b = blocks[f.code];
          const int argc = in.c;
          instr::closureArity(b, argc);
          const bool tail = in.op == Op::TailCall;
          const int32_t nbase = tail ? base : base + blocks[block].nslots;
          const size_t need = static_cast<size_t>(nbase) + static_cast<size_t>(b.nslots);
          if (stack_.size() < need) {
            instr::checkFrames(rt_, need, frames_.size());
            stack_.resize(need);
            s = stack_.data() + base;
          }
          const Value* src = s + in.b;
          if (tail) {  // the arguments may overlap the frame they replace
            args_.assign(src, src + argc);
            src = args_.data();
          }
          instr::bindArguments(rt_, b, src, argc, stack_.data() + nbase);
          if (!tail) {
            frames_.push_back({block, pc + 1, base, env, in.dst});
            if (frames_.size() > stats_.maxFrames) stats_.maxFrames = frames_.size();
          }
          block = static_cast<int32_t>(f.code), pc = 0, base = nbase, env = f.i;
          code = blocks[block].code.data();
          ++stats_.calls;
          continue;
        }
        [[fallthrough]];
      case Op::Apply:
      case Op::TailApply: {
        if (rt_.heap.size() > gcNext_) env = collect(block, base, env);
        bool tail = in.op == Op::TailCall || in.op == Op::TailApply;
        Value f = s[in.a];
        if (!library_[block]) userCallBlock_ = block, userCallPc_ = pc;
        instr::gatherArguments(rt_, in, s, args_, instr::asIs);
        Frame saved{block, pc + 1, base, env, in.dst};
        int32_t nbase = tail ? base : base + g_.blocks[block].nslots;
        Value result;
        int32_t cb = block, cpc = pc, cenv = env;
        if (!enter(f, cb, cpc, nbase, cenv, result)) {
          if (!tail) {
            stack_[static_cast<size_t>(base + in.dst)] = result;
            break;
          }
          if (!returnTo(result)) return result;  // a primitive in tail position: return its value
          continue;
        }
        if (!tail) {
          frames_.push_back(saved);
          if (frames_.size() > stats_.maxFrames) stats_.maxFrames = frames_.size();
        }
        block = cb, pc = cpc, base = nbase, env = cenv;
        code = blocks[block].code.data();
        continue;
      }
      case Op::Return: {
        Value v = s[in.a];
        if (!returnTo(v)) return v;
        continue;
      }
      case Op::Jump:
        pc = in.a;
        continue;
      case Op::JumpIfFalse:
        if (s[in.a].isFalse()) {
          pc = in.b;
          continue;
        }
        break;
      case Op::BoxNew:
        s[in.dst] = instr::newBox(rt_);
        break;
      case Op::BoxSet:
        rt_.heap[s[in.a].i] = s[in.b];
        break;
      case Op::BoxGet:
        s[in.dst] = instr::boxContent(g_, in, rt_.heap[s[in.a].i]);
        break;
      case Op::Unbound:
        instr::unbound(g_, in.a);
    }
    ++pc;
  }
}

}  // namespace dmci
