// Lowering: closure conversion, letrec* boxes and tail calls, producing a ComputeGraph.
#include "lower/Lower.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "lower/FreeVars.h"
#include "prims/PrimTable.h"
#include "syntax/Arena.h"
#include "syntax/NameTable.h"

namespace dmci {
namespace {

// Where a variable lives, seen from one block.
struct Loc {
  enum Kind { Slot, Env, Sibling, Global } kind = Global;
  int index = 0;       // slot, environment cell, or sibling block
  bool boxed = false;  // the location holds a write-once box
};

// Lexical bindings of one block, innermost last, indexed by name so a lookup does not scan them all.
// Names are views into the core AST being lowered.
class LexicalScope {
 public:
  size_t size() const { return entries_.size(); }
  void push(std::string_view name, Loc loc) {
    size_t* latest = latest_.tryEmplace(name, kNone).first;
    entries_.push_back({name, loc, *latest});
    *latest = entries_.size() - 1;
  }
  void popTo(size_t mark) {
    for (; entries_.size() > mark; entries_.pop_back()) *latest_.find(entries_.back().name) = entries_.back().shadowed;
  }
  const Loc* find(std::string_view name) const {
    const size_t* latest = latest_.find(name);
    return !latest || *latest == kNone ? nullptr : &entries_[*latest].loc;
  }

 private:
  static constexpr size_t kNone = SIZE_MAX;
  struct Entry {
    std::string_view name;
    Loc loc;
    size_t shadowed;  // the entry of the same name this one hides, or kNone
  };
  std::vector<Entry> entries_;
  NameTable<size_t> latest_;  // each name's innermost entry; kNone once its scope has ended
};

using SiblingBlocks = NameTable<int>;  // letrec group members -> their blocks

struct BlockCtx;

// The environment record a closure carries: the captured names in cell order, and which cells hold boxes.
// The lambdas of a letrec group share one.
struct EnvLayout {
  std::vector<std::string> names;
  std::vector<bool> boxed;
  NameTable<int> cell;  // keyed by `names`
  EnvLayout(std::vector<std::string> captured, const BlockCtx& outer);
  EnvLayout(const EnvLayout&) = delete;
  EnvLayout& operator=(const EnvLayout&) = delete;
};

// The state of one code block being emitted.
struct BlockCtx {
  int block = 0;
  LexicalScope scope;
  const EnvLayout* env = nullptr;           // null in the entry block
  const SiblingBlocks* siblings = nullptr;  // null outside a letrec group's lambdas
  int next = 0;
  int max = 0;

  int alloc() {
    int s = next++;
    max = std::max(max, next);
    return s;
  }
  Loc lookup(const std::string& n) const {
    if (const Loc* l = scope.find(n)) return *l;
    if (const int* block = siblings ? siblings->find(n) : nullptr) return {Loc::Sibling, *block, false};
    if (const int* cell = env ? env->cell.find(n) : nullptr) return {Loc::Env, *cell, env->boxed[*cell]};
    return {};
  }
};

EnvLayout::EnvLayout(std::vector<std::string> captured, const BlockCtx& outer)
    : names(std::move(captured)), cell(names.size()) {
  for (size_t k = 0; k < names.size(); ++k) {
    boxed.push_back(outer.lookup(names[k]).boxed);
    cell.tryEmplace(names[k], static_cast<int>(k));
  }
}

// Lowering recurses once per nesting level that is not a chain (see Lowering::expr), about 400 bytes of C++
// stack a level: the limit keeps it to half of a default 8 MiB stack, and past it the error is clean.
constexpr int kMaxLowerDepth = 10000;

class Lowering {
 public:
  explicit Lowering(const LowerOptions& o) : opts_(o) {}

  ComputeGraph run(const ExprPtr& program) {
    g_.params = opts_.params;
    g_.entry = newBlock("program", program->pos);
    BlockCtx ctx;
    ctx.block = g_.entry;
    expr(*program, ctx, ctx.alloc(), true);
    g_.blocks[ctx.block].nslots = ctx.max;
    return std::move(g_);
  }

 private:
  const LowerOptions& opts_;
  ComputeGraph g_;
  int depth_ = 0;  // nested expr() calls

  int newBlock(const std::string& name, SrcPos pos) {
    CodeBlock b;
    b.name = name.empty() ? "lambda" : name;
    b.pos = pos;
    g_.blocks.push_back(std::move(b));
    return static_cast<int>(g_.blocks.size() - 1);
  }
  void emit(BlockCtx& ctx, Instr in, SrcPos pos) {
    auto& b = g_.blocks[ctx.block];
    b.code.push_back(in);
    b.where.push_back(pos);
  }
  int here(const BlockCtx& ctx) const { return static_cast<int>(g_.blocks[ctx.block].code.size()); }
  Instr& at(BlockCtx& ctx, int pc) { return g_.blocks[ctx.block].code[pc]; }
  int constant(DatumPtr d) {
    g_.consts.push_back(std::move(d));
    return static_cast<int>(g_.consts.size() - 1);
  }
  void ret(BlockCtx& ctx, int slot, bool tail, SrcPos pos) {
    if (tail) emit(ctx, {Op::Return, 0, slot}, pos);
  }

  int paramIndex(const std::string& n) const {
    auto it = std::find(opts_.params.begin(), opts_.params.end(), n);
    return it == opts_.params.end() ? -1 : static_cast<int>(it - opts_.params.begin());
  }
  bool isGlobal(const BlockCtx& ctx, const std::string& n) const { return ctx.lookup(n).kind == Loc::Global; }

  // --- expressions ---

  // Emits e into dst (returning from the block when `tail`). A chain, where the rest of the code is one
  // child in tail position of its parent (a let or letrec body, the else arm of an if, the last expression
  // of a begin), is followed in this loop rather than by recursion: a let* of 100,000 bindings or a cond
  // of 100,000 clauses needs no C++ stack. Each arm of the chain's ifs jumps to its end.
  void expr(const CoreExpr& root, BlockCtx& ctx, int dst, bool tail) {
    if (depth_ >= kMaxLowerDepth)
      throw DmciError(
          ErrorKind::Form,
          "expression nested too deeply to compile (more than " + std::to_string(kMaxLowerDepth) + " levels)",
          root.pos);
    ++depth_;
    size_t scopeMark = ctx.scope.size();
    int mark = ctx.next;
    std::vector<int> exits;
    const CoreExpr* e = &root;
    for (;;) {
      prefetchAfter(e);
      if (e->kind == CoreKind::If)
        e = ifArm(*e, ctx, dst, tail, exits);
      else if (e->kind == CoreKind::Begin)
        e = sequenceHead(*e, ctx);
      else if (e->kind == CoreKind::Let)
        e = bindLet(*e, ctx);
      else if (e->kind == CoreKind::Letrec)
        e = bindLetrec(*e, ctx);
      else
        break;
    }
    leaf(*e, ctx, dst, tail);
    for (int pc : exits) at(ctx, pc).a = here(ctx);
    ctx.scope.popTo(scopeMark);
    ctx.next = mark;
    --depth_;
  }

  // A form that ends a chain.
  void leaf(const CoreExpr& e, BlockCtx& ctx, int dst, bool tail) {
    switch (e.kind) {
      case CoreKind::Const:
        emit(ctx, {Op::Const, dst, constant(e.datum)}, e.pos);
        return ret(ctx, dst, tail, e.pos);
      case CoreKind::Ref:
        ref(e.name, e.pos, ctx, dst);
        return ret(ctx, dst, tail, e.pos);
      case CoreKind::Lambda:
        lambda(e, ctx, dst);
        return ret(ctx, dst, tail, e.pos);
      case CoreKind::App:
        return app(e, ctx, dst, tail);
      default:
        throw DmciError(ErrorKind::Graph, "lowering: a chain form reached leaf()", e.pos);
    }
  }

  // All but the last expression of a begin, into a scratch slot; returns the last.
  const CoreExpr* sequenceHead(const CoreExpr& e, BlockCtx& ctx) {
    int mark = ctx.next;
    int scratch = ctx.alloc();
    for (size_t k = 0; k + 1 < e.kids.size(); ++k) expr(*e.kids[k], ctx, scratch, false);
    ctx.next = mark;
    return e.kids.back().get();
  }

  void ref(const std::string& n, SrcPos pos, BlockCtx& ctx, int dst) {
    Loc l = ctx.lookup(n);
    switch (l.kind) {
      case Loc::Slot:
        if (l.boxed)
          emit(ctx, {Op::BoxGet, dst, l.index, constant(Datum::symbol(n))}, pos);
        else if (l.index != dst)
          emit(ctx, {Op::Move, dst, l.index}, pos);
        return;
      case Loc::Env:
        emit(ctx, {Op::Env, dst, l.index}, pos);
        if (l.boxed) emit(ctx, {Op::BoxGet, dst, dst, constant(Datum::symbol(n))}, pos);
        return;
      case Loc::Sibling:
        emit(ctx, {Op::Sibling, dst, l.index}, pos);
        return;
      case Loc::Global:
        break;
    }
    if (int p = paramIndex(n); p >= 0) return emit(ctx, {Op::Param, dst, p}, pos);
    int id = primId(n);
    if (id >= 0 && !prim(id).prelude) return emit(ctx, {Op::PrimRef, dst, id}, pos);
    emit(ctx, {Op::Unbound, dst, constant(Datum::symbol(n))}, pos);
  }

  // The test and then arm of an if; a jump past the rest goes in `exits` (unless in tail position). Returns
  // the else arm, which the caller emits next.
  const CoreExpr* ifArm(const CoreExpr& e, BlockCtx& ctx, int dst, bool tail, std::vector<int>& exits) {
    int mark = ctx.next;
    int test = operand(*e.kids[0], ctx);
    ctx.next = mark;
    int jf = here(ctx);
    emit(ctx, {Op::JumpIfFalse, 0, test, 0}, e.pos);
    expr(*e.kids[1], ctx, dst, tail);
    if (!tail) {
      exits.push_back(here(ctx));
      emit(ctx, {Op::Jump, 0, 0}, e.pos);
    }
    at(ctx, jf).b = here(ctx);
    return e.kids[2].get();
  }

  // Evaluates exprs into consecutive fresh slots; returns the first.
  int args(const std::vector<ExprPtr>& es, size_t from, BlockCtx& ctx) {
    int first = ctx.next;
    for (size_t k = from; k < es.size(); ++k) ctx.alloc();
    for (size_t k = from; k < es.size(); ++k) expr(*es[k], ctx, first + static_cast<int>(k - from), false);
    return first;
  }

  // The slot holding e's value: a local variable's own slot, else a fresh temporary.
  int operand(const CoreExpr& e, BlockCtx& ctx) {
    if (e.kind == CoreKind::Ref) {
      Loc l = ctx.lookup(e.name);
      if (l.kind == Loc::Slot && !l.boxed) return l.index;
    }
    int t = ctx.alloc();
    expr(e, ctx, t, false);
    return t;
  }

  void app(const CoreExpr& e, BlockCtx& ctx, int dst, bool tail) {
    int mark = ctx.next;
    const CoreExpr& f = *e.kids[0];
    int argc = static_cast<int>(e.kids.size() - 1);
    if (f.kind == CoreKind::Ref && isGlobal(ctx, f.name) && paramIndex(f.name) < 0) {
      int id = primId(f.name);
      if (id >= 0 && prim(id).forward && (argc == 1 || argc == 2)) {
        int a = operand(*e.kids[1], ctx);
        int b = argc == 2 ? operand(*e.kids[2], ctx) : 0;
        emit(ctx, {argc == 1 ? Op::Prim1 : Op::Prim2, dst, id, a, b}, e.pos);
        ctx.next = mark;
        return ret(ctx, dst, tail, e.pos);
      }
      if (id >= 0 && prim(id).forward) {
        int first = args(e.kids, 1, ctx);
        emit(ctx, {Op::Prim, dst, id, first, argc}, e.pos);
        ctx.next = mark;
        return ret(ctx, dst, tail, e.pos);
      }
      // (apply f) has no list: it stays a call of the apply primitive, whose arity check raises at run time.
      if (id >= 0 && std::string(prim(id).name) == "apply" && argc >= 2) {
        int first = args(e.kids, 1, ctx);
        emit(ctx, {tail ? Op::TailApply : Op::Apply, dst, first, first + 1, argc - 1}, e.pos);
        ctx.next = mark;
        return;
      }
    }
    int fslot = ctx.alloc();
    expr(f, ctx, fslot, false);
    int first = args(e.kids, 1, ctx);
    emit(ctx, {tail ? Op::TailCall : Op::Call, dst, fslot, first, argc}, e.pos);
    ctx.next = mark;
  }

  // A let's inits into fresh slots, then its names in scope; returns the body. The caller frees both.
  const CoreExpr* bindLet(const CoreExpr& e, BlockCtx& ctx) {
    std::vector<int> slots;
    for (size_t k = 0; k < e.bindings.size(); ++k) slots.push_back(ctx.alloc());
    for (size_t k = 0; k < e.bindings.size(); ++k) expr(*e.bindings[k].second, ctx, slots[k], false);
    for (size_t k = 0; k < e.bindings.size(); ++k) ctx.scope.push(e.bindings[k].first, {Loc::Slot, slots[k], false});
    return e.body.get();
  }

  // --- closures ---

  // The names a lambda captures: those of its free variables that are lexical here and not in `exclude`.
  std::vector<std::string> captures(const std::vector<std::string>& free, const BlockCtx& ctx,
                                    const SiblingBlocks* exclude) {
    std::vector<std::string> out;
    for (const auto& n : free)
      if (!(exclude && exclude->find(n)) && !isGlobal(ctx, n)) out.push_back(n);
    return out;
  }

  // Compiles a lambda's body as a new block with the given environment layout.
  int lambdaBlock(const CoreExpr& lam, const EnvLayout& env, const SiblingBlocks* siblings, int block) {
    BlockCtx ctx;
    ctx.block = block;
    ctx.env = &env;
    ctx.siblings = siblings;
    for (const auto& p : lam.params) ctx.scope.push(p, {Loc::Slot, ctx.alloc(), false});
    auto& b = g_.blocks[block];
    b.variadic = lam.variadic;
    b.nparams = static_cast<int>(lam.params.size()) - (lam.variadic ? 1 : 0);
    b.hidden = lam.hidden;
    b.nfree = static_cast<int>(env.names.size());
    expr(*lam.body, ctx, ctx.alloc(), true);
    g_.blocks[block].nslots = ctx.max;
    return block;
  }

  // Copies the captured values into consecutive slots; returns the first.
  int captureSlots(const std::vector<std::string>& env, BlockCtx& ctx, SrcPos pos) {
    int first = ctx.next;
    for (size_t k = 0; k < env.size(); ++k) ctx.alloc();
    for (size_t k = 0; k < env.size(); ++k) {
      Loc l = ctx.lookup(env[k]);
      int s = first + static_cast<int>(k);
      if (l.kind == Loc::Slot)
        emit(ctx, {Op::Move, s, l.index}, pos);  // boxes are captured as boxes
      else if (l.kind == Loc::Env)
        emit(ctx, {Op::Env, s, l.index}, pos);
      else if (l.kind == Loc::Sibling)
        emit(ctx, {Op::Sibling, s, l.index}, pos);
    }
    return first;
  }

  void lambda(const CoreExpr& e, BlockCtx& ctx, int dst) {
    EnvLayout env(captures(freeVars(e), ctx, nullptr), ctx);
    int block = newBlock(e.name, e.pos);
    lambdaBlock(e, env, nullptr, block);
    int mark = ctx.next;
    int first = captureSlots(env.names, ctx, e.pos);
    emit(ctx, {Op::Closure, dst, block, first, static_cast<int>(env.names.size())}, e.pos);
    ctx.next = mark;
  }

  // --- letrec* ---

  // What bindLetrec works out for each binding of a letrec*, by index.
  struct LetrecBindings {
    std::vector<int> group;  // consecutive lambdas form a group sharing one environment record; -1: not a lambda
    std::vector<std::vector<std::string>> free;  // the init's free variables (walked for once)
    std::vector<bool> boxed;                     // read, perhaps by a closure, before it is initialised
    std::vector<int> slot;
  };

  static std::vector<int> lambdaGroups(const CoreExpr& e) {
    size_t n = e.bindings.size();
    std::vector<int> group(n, -1);
    int groups = 0;
    for (size_t i = 0; i < n; ++i) {
      if (e.bindings[i].second->kind != CoreKind::Lambda) continue;
      group[i] = (i > 0 && group[i - 1] >= 0) ? group[i - 1] : groups++;
    }
    return group;
  }

  // Variables read (possibly inside a lambda created) before their binding is initialised.
  static std::vector<bool> needsBox(const CoreExpr& e, const LetrecBindings& b) {
    size_t n = e.bindings.size();
    // The bindings of each name: first[name], then later[j] after j (n: none), in order.
    NameTable<size_t> first(n);
    std::vector<size_t> later(n, n);
    for (size_t j = n; j-- > 0;) {
      auto [at, fresh] = first.tryEmplace(e.bindings[j].first, j);
      if (!fresh) later[j] = std::exchange(*at, j);
    }
    std::vector<bool> boxed(n, false);
    for (size_t i = 0; i < n; ++i) {
      for (const auto& v : b.free[i]) {
        const size_t* at = first.find(v);
        for (size_t j = at ? *at : n; j < n; j = later[j]) {
          if (j < i) continue;                                        // initialised before i runs
          if (b.group[i] >= 0 && b.group[i] == b.group[j]) continue;  // a sibling in the same group
          boxed[j] = true;
        }
      }
    }
    return boxed;
  }

  // A letrec*'s names in scope (boxed where read early), then its inits; returns the body. The caller
  // frees both.
  const CoreExpr* bindLetrec(const CoreExpr& e, BlockCtx& ctx) {
    size_t n = e.bindings.size();
    LetrecBindings b;
    b.group = lambdaGroups(e);
    for (const auto& [name, init] : e.bindings) b.free.push_back(freeVars(*init));
    b.boxed = needsBox(e, b);
    for (size_t i = 0; i < n; ++i) {
      b.slot.push_back(ctx.alloc());
      ctx.scope.push(e.bindings[i].first, {Loc::Slot, b.slot[i], static_cast<bool>(b.boxed[i])});
      if (b.boxed[i]) emit(ctx, {Op::BoxNew, b.slot[i]}, e.bindings[i].second->pos);
    }
    for (size_t i = 0; i < n;) {
      size_t end = i + 1;
      if (b.group[i] >= 0)
        while (end < n && b.group[end] == b.group[i]) ++end;
      if (b.group[i] >= 0)
        lambdaGroup(e, i, end, b, ctx);
      else
        initInto(*e.bindings[i].second, b.slot[i], b.boxed[i], ctx);
      i = end;
    }
    return e.body.get();
  }

  void initInto(const CoreExpr& init, int slot, bool boxed, BlockCtx& ctx) {
    if (!boxed) return expr(init, ctx, slot, false);
    int mark = ctx.next;
    int tmp = ctx.alloc();
    expr(init, ctx, tmp, false);
    emit(ctx, {Op::BoxSet, 0, slot, tmp}, init.pos);
    ctx.next = mark;
  }

  // The lambdas bindings[from, to) as sibling blocks over one shared environment record.
  void lambdaGroup(const CoreExpr& e, size_t from, size_t to, const LetrecBindings& b, BlockCtx& ctx) {
    SiblingBlocks siblings(to - from);
    for (size_t i = from; i < to; ++i) {
      const CoreExpr& lam = *e.bindings[i].second;
      siblings[e.bindings[i].first] = newBlock(lam.name.empty() ? e.bindings[i].first : lam.name, lam.pos);
    }
    std::vector<std::string> names;
    std::unordered_set<std::string> seen;
    for (size_t i = from; i < to; ++i)
      for (auto& n : captures(b.free[i], ctx, &siblings))
        if (seen.insert(n).second) names.push_back(std::move(n));
    EnvLayout env(std::move(names), ctx);
    for (size_t i = from; i < to; ++i)
      lambdaBlock(*e.bindings[i].second, env, &siblings, *siblings.find(e.bindings[i].first));
    int mark = ctx.next;
    int first = captureSlots(env.names, ctx, e.bindings[from].second->pos);
    int firstClosure = ctx.alloc();
    for (size_t i = from; i < to; ++i) {
      SrcPos pos = e.bindings[i].second->pos;
      int target = b.boxed[i] ? ctx.alloc() : b.slot[i];
      int block = *siblings.find(e.bindings[i].first);
      if (i == from) emit(ctx, {Op::Closure, firstClosure, block, first, static_cast<int>(env.names.size())}, pos);
      if (i == from)
        emit(ctx, {Op::Move, target, firstClosure}, pos);
      else
        emit(ctx, {Op::Closure, target, block, firstClosure, -1}, pos);  // c = -1: share the record
      if (b.boxed[i]) emit(ctx, {Op::BoxSet, 0, b.slot[i], target}, pos);
    }
    ctx.next = mark;
  }
};

}  // namespace

Result<ComputeGraph> lower(const ExprPtr& program, const LowerOptions& opts) {
  return catchErrors([&]() -> ComputeGraph {
    ComputeGraph g = Lowering(opts).run(program);
    validateGraph(g);
    return g;
  });
}

}  // namespace dmci
