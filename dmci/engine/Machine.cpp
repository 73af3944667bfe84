// The register machine's loop: calls, tail calls, apply, closures, boxes and budgets.
#include "engine/Machine.h"

#include "engine/ErrorPosition.h"

#include "prims/PrimTable.h"

namespace dmci {

namespace {
// Arity check with the common case inline.
inline void arity(const Primitive& p, int argc) {
  if (argc < p.minArgs || (p.maxArgs >= 0 && argc > p.maxArgs)) checkArity(p, argc);
}
}  // namespace

Machine::Machine(const ComputeGraph& g, Runtime& rt) : g_(g), rt_(rt), prims_(primitives().data()) {
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

void Machine::notProcedure(const Value& f) const {
  throw DmciError(ErrorKind::NotProcedure, "attempt to apply a non-procedure: " + rt_.show(f));
}

void Machine::wrongArity(const CodeBlock& b, int argc) const {
  std::string want = std::to_string(b.nparams);
  if (b.variadic) want = "at least " + want;
  throw DmciError(ErrorKind::Arity, b.name + ": expects " + want + " argument" + (b.nparams == 1 && !b.variadic ? "" : "s") +
                                        ", got " + std::to_string(argc));
}

// args_ <- the values first[0..n-1) followed by the elements of the list first[n-1].
void Machine::spreadApply(const Value* first, int n) {
  args_.assign(first, first + n - 1);
  Value l = first[n - 1];
  while (l.tag == Tag::Pair) {
    args_.push_back(rt_.car(l));
    l = rt_.cdr(l);
  }
  if (l.tag != Tag::Nil) throw DmciError(ErrorKind::Type, "apply: last argument must be a proper list, got " + rt_.show(first[n - 1]));
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
  int argc = static_cast<int>(args_.size());
  for (;;) {
    if (f.tag == Tag::Closure) break;
    if (f.tag != Tag::Prim) notProcedure(f);
    const Primitive& p = prims_[f.i];
    arity(p, argc);
    if (p.forward) {
      result = p.forward(rt_, args_.data(), argc);
      return false;
    }
    // apply as a first-class value: (apply g a ... lst)
    Value g = args_[0];
    std::vector<Value> rest(args_.begin() + 1, args_.end());
    spreadApply(rest.data(), static_cast<int>(rest.size()));
    argc = static_cast<int>(args_.size());
    f = g;
  }
  const CodeBlock& b = g_.blocks[static_cast<size_t>(f.code)];
  if (argc < b.nparams || (!b.variadic && argc > b.nparams)) wrongArity(b, argc);
  size_t need = static_cast<size_t>(base) + static_cast<size_t>(b.nslots);
  if (need + frames_.size() * 2 + rt_.cellsInUse() > rt_.budget().heapCells) rt_.budgetExceeded("frames");
  if (stack_.size() < need) stack_.resize(need);
  Value* s = stack_.data() + base;
  for (int k = 0; k < b.nparams; ++k) s[k] = args_[k];
  if (b.variadic) {
    Value rest = Value::nil();
    for (int k = argc; k-- > b.nparams;) rest = rt_.cons(args_[k], rest);
    s[b.nparams] = rest;
  }
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
    Value* s = stack_.data() + base;
    switch (in.op) {
      case Op::Const: s[in.dst] = consts_[in.a]; break;
      case Op::Move: s[in.dst] = s[in.a]; break;
      case Op::Env: s[in.dst] = rt_.heap[env + in.a]; break;
      case Op::Param: s[in.dst] = params[in.a]; break;
      case Op::PrimRef: s[in.dst] = Value::make(Tag::Prim, in.a); break;
      case Op::Prim: {
        const Primitive& p = prims_[in.a];
        arity(p, in.c);
        s[in.dst] = p.forward(rt_, s + in.b, in.c);
        break;
      }
      case Op::Prim1: {
        const Primitive& p = prims_[in.a];
        arity(p, 1);
        s[in.dst] = p.forward(rt_, s + in.b, 1);
        break;
      }
      case Op::Prim2: {
        const Primitive& p = prims_[in.a];
        arity(p, 2);
        Value two[2] = {s[in.b], s[in.c]};
        s[in.dst] = p.forward(rt_, two, 2);
        break;
      }
      case Op::Closure: {
        int32_t rec = -1;
        if (in.c < 0) {
          rec = s[in.b].i;
        } else if (in.c > 0) {
          rec = rt_.alloc(in.c);
          s = stack_.data() + base;
          for (int k = 0; k < in.c; ++k) rt_.heap[rec + k] = s[in.b + k];
        }
        s[in.dst] = Value::make(Tag::Closure, rec, in.a);
        break;
      }
      case Op::Sibling: s[in.dst] = Value::make(Tag::Closure, env, in.a); break;
      case Op::Call:
      case Op::TailCall:
        if (rt_.heap.size() > gcNext_) env = collect(block, base, env);
        if (s[in.a].tag == Tag::Closure) {  // the common case, inline
          if (!library_[block]) userCallBlock_ = block, userCallPc_ = pc;
          const Value f = s[in.a];
          const CodeBlock& b = blocks[f.code];
          const int argc = in.c;
          if (argc != b.nparams && !(b.variadic && argc > b.nparams)) wrongArity(b, argc);
          const bool tail = in.op == Op::TailCall;
          const int32_t nbase = tail ? base : base + blocks[block].nslots;
          const size_t need = static_cast<size_t>(nbase) + static_cast<size_t>(b.nslots);
          if (stack_.size() < need) {
            if (need + frames_.size() * 2 + rt_.cellsInUse() > rt_.budget().heapCells) rt_.budgetExceeded("frames");
            stack_.resize(need);
            s = stack_.data() + base;
          }
          const Value* src = s + in.b;
          if (tail) {  // the arguments may overlap the frame they replace
            args_.assign(src, src + argc);
            src = args_.data();
          }
          Value* d = stack_.data() + nbase;
          for (int k = 0; k < b.nparams; ++k) d[k] = src[k];
          if (b.variadic) {
            Value rest = Value::nil();
            for (int k = argc; k-- > b.nparams;) rest = rt_.cons(src[k], rest);
            d[b.nparams] = rest;
          }
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
        if (in.op == Op::Call || in.op == Op::TailCall)
          args_.assign(s + in.b, s + in.b + in.c);
        else
          spreadApply(s + in.b, in.c);
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
      case Op::Jump: pc = in.a; continue;
      case Op::JumpIfFalse:
        if (s[in.a].isFalse()) {
          pc = in.b;
          continue;
        }
        break;
      case Op::BoxNew: {
        int32_t at = rt_.alloc(1);
        stack_[static_cast<size_t>(base + in.dst)] = Value::make(Tag::Box, at);
        break;
      }
      case Op::BoxSet: rt_.heap[s[in.a].i] = s[in.b]; break;
      case Op::BoxGet: {
        const Value& v = rt_.heap[s[in.a].i];
        if (v.tag == Tag::Unset)
          throw DmciError(ErrorKind::Unbound, g_.consts[in.b]->text + ": used before its definition");
        s[in.dst] = v;
        break;
      }
      case Op::Unbound: throw DmciError(ErrorKind::Unbound, "unbound variable: " + g_.consts[in.a]->text);
    }
    ++pc;
  }
}

}  // namespace dmci
