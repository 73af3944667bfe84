// What the instructions mean, once, for both register machines that run a ComputeGraph.
//
// The native Machine (machine/Machine.cpp) and the tensor engine's BatchMachine
// (engines/tensor/BatchMachine.cpp) keep their own frames, stacks and dispatch
// loops, but an instruction does the same to values, the heap and the budgets,
// and raises the same errors, under both: closure arity, binding arguments and
// the rest list of a variadic call, apply's spread list, first-class apply,
// closure records, boxes, unbound variables and the frame budget.
// Everything on the hot path is inline and allocates nothing beyond what the
// instruction itself makes; the errors are cold, in Instructions.cpp. Where an
// error shows a value, a machine passes `shown`: the value as the user sees it
// (the batch machine shows its group's first lane).
#pragma once
#include <cstdint>
#include <vector>

#include "lower/ComputeGraph.h"
#include "prims/PrimTable.h"
#include "runtime/Runtime.h"

namespace dmci::instr {

// `shown` for a machine whose values are what the user sees.
inline constexpr auto asIs = [](const Value& v) { return v; };

// --- the errors ---
[[noreturn]] void notProcedure(const Runtime& rt, const Value& shown);
[[noreturn]] void wrongArity(const CodeBlock& b, int argc);
[[noreturn]] void improperApplyList(const Runtime& rt, const Value& shown);
[[noreturn]] void usedBeforeDefinition(const ComputeGraph& g, int32_t name);
[[noreturn]] void unbound(const ComputeGraph& g, int32_t name);

// --- the frame budget ---

// A stack of `need` slots beside `frames` frame records shares the heap budget with the heap and the tape.
inline void checkFrames(const Runtime& rt, size_t need, size_t frames) {
  if (need + frames * 2 + rt.cellsInUse() > rt.budget().heapCells) rt.budgetExceeded("frames");
}

// --- calls ---

inline void primArity(const Primitive& p, int argc) {
  if (argc < p.minArgs || (p.maxArgs >= 0 && argc > p.maxArgs)) checkArity(p, argc);  // throws
}

inline void closureArity(const CodeBlock& b, int argc) {
  if (argc < b.nparams || (!b.variadic && argc > b.nparams)) wrongArity(b, argc);
}

// Binds argc arguments (arity checked) to block b's frame: the parameters, then a list of the rest if variadic.
inline void bindArguments(Runtime& rt, const CodeBlock& b, const Value* args, int argc, Value* frame) {
  for (int k = 0; k < b.nparams; ++k) frame[k] = args[k];
  if (!b.variadic) return;
  Value rest = Value::nil();
  for (int k = argc; k-- > b.nparams;) rest = rt.cons(args[k], rest);
  frame[b.nparams] = rest;
}

// Opens block b's frame at `base` on `stack` (above `frames` frame records) with args bound.
inline void openFrame(Runtime& rt, const CodeBlock& b, std::vector<Value>& stack, int32_t base, size_t frames,
                      const std::vector<Value>& args) {
  const int argc = static_cast<int>(args.size());
  closureArity(b, argc);
  const size_t need = static_cast<size_t>(base) + static_cast<size_t>(b.nslots);
  checkFrames(rt, need, frames);
  if (stack.size() < need) stack.resize(need);
  bindArguments(rt, b, args.data(), argc, stack.data() + base);
}

// args <- first[0, n-1) followed by the elements of the list first[n-1].
template <class Shown>
void spreadApply(const Runtime& rt, const Value* first, int n, std::vector<Value>& args, Shown shown) {
  args.assign(first, first + n - 1);
  Value l = first[n - 1];
  while (l.tag == Tag::Pair) {
    args.push_back(rt.car(l));
    l = rt.cdr(l);
  }
  if (l.tag != Tag::Nil) improperApplyList(rt, shown(first[n - 1]));
}

// A call instruction's arguments: slots [b, b+c), their last spread for Apply and TailApply.
template <class Shown>
void gatherArguments(const Runtime& rt, const Instr& in, const Value* s, std::vector<Value>& args, Shown shown) {
  if (in.op == Op::Call || in.op == Op::TailCall)
    args.assign(s + in.b, s + in.b + in.c);
  else
    spreadApply(rt, s + in.b, in.c, args, shown);
}

// Applying f to args down to a closure: a primitive goes to applyPrim(id, args, argc) and the result
// is false; apply as a first-class value, (apply h a ... lst), spreads its arguments and goes on
// with h. True when f is a closure, to be entered with args.
template <class Shown, class ApplyPrim>
bool resolveClosure(const Runtime& rt, Value& f, std::vector<Value>& args, Shown shown, ApplyPrim applyPrim) {
  for (;;) {
    if (f.tag == Tag::Closure) return true;
    if (f.tag != Tag::Prim) notProcedure(rt, shown(f));
    const Primitive& p = prim(f.i);
    primArity(p, static_cast<int>(args.size()));
    if (p.forward) {
      applyPrim(f.i, args.data(), static_cast<int>(args.size()));
      return false;
    }
    Value h = args[0];
    std::vector<Value> rest(args.begin() + 1, args.end());
    spreadApply(rt, rest.data(), static_cast<int>(rest.size()), args, shown);
    f = h;
  }
}

// --- closures and boxes ---

// Closure: over a new record of slots [b, b+c), over the record of the closure in slot b (c = -1), or none (c = 0).
inline Value makeClosure(Runtime& rt, const Instr& in, const Value* s) {
  int32_t rec = -1;
  if (in.c < 0) {
    rec = s[in.b].i;
  } else if (in.c > 0) {
    rec = rt.alloc(in.c);
    for (int k = 0; k < in.c; ++k) rt.heap[static_cast<size_t>(rec + k)] = s[in.b + k];
  }
  return Value::make(Tag::Closure, rec, in.a);
}

// BoxNew: a fresh write-once cell, unset.
inline Value newBox(Runtime& rt) { return Value::make(Tag::Box, rt.alloc(1)); }

// BoxGet: the box's content, or "used before its definition" for the variable named by constant in.b.
inline Value boxContent(const ComputeGraph& g, const Instr& in, const Value& content) {
  if (content.tag == Tag::Unset) usedBeforeDefinition(g, in.b);
  return content;
}

}  // namespace dmci::instr
