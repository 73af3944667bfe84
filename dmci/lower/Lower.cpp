// Lowering: closure conversion, letrec* boxes and tail calls, producing a ComputeGraph.
#include "lower/Lower.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "lower/FreeVars.h"
#include "prims/PrimTable.h"

namespace dmci {
namespace {

// Where a variable lives, seen from one block.
struct Loc {
  enum Kind { Slot, Env, Sibling, Global } kind = Global;
  int index = 0;       // slot, environment cell, or sibling block
  bool boxed = false;  // the location holds a write-once box
};

struct Scope {
  std::string name;
  Loc loc;
};

// The state of one code block being emitted.
struct BlockCtx {
  int block = 0;
  std::vector<Scope> scope;          // lexical bindings, innermost last
  std::vector<std::string> envNames;  // environment record layout
  std::vector<bool> envBoxed;
  std::unordered_map<std::string, int> siblings;  // letrec group members -> block
  int next = 0;
  int max = 0;

  int alloc() {
    int s = next++;
    max = std::max(max, next);
    return s;
  }
  Loc lookup(const std::string& n) const {
    for (size_t k = scope.size(); k-- > 0;)
      if (scope[k].name == n) return scope[k].loc;
    auto it = siblings.find(n);
    if (it != siblings.end()) return {Loc::Sibling, it->second, false};
    for (size_t k = 0; k < envNames.size(); ++k)
      if (envNames[k] == n) return {Loc::Env, static_cast<int>(k), envBoxed[k]};
    return {};
  }
};

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
  void expr(const CoreExpr& e, BlockCtx& ctx, int dst, bool tail) {
    switch (e.kind) {
      case CoreKind::Const:
        emit(ctx, {Op::Const, dst, constant(e.datum)}, e.pos);
        return ret(ctx, dst, tail, e.pos);
      case CoreKind::Ref: ref(e.name, e.pos, ctx, dst); return ret(ctx, dst, tail, e.pos);
      case CoreKind::If: return ifExpr(e, ctx, dst, tail);
      case CoreKind::Lambda: lambda(e, ctx, dst); return ret(ctx, dst, tail, e.pos);
      case CoreKind::App: return app(e, ctx, dst, tail);
      case CoreKind::Begin: {
        int mark = ctx.next;
        int scratch = ctx.alloc();
        for (size_t k = 0; k + 1 < e.kids.size(); ++k) expr(*e.kids[k], ctx, scratch, false);
        ctx.next = mark;
        return expr(*e.kids.back(), ctx, dst, tail);
      }
      case CoreKind::Let: return let(e, ctx, dst, tail);
      case CoreKind::Letrec: return letrec(e, ctx, dst, tail);
    }
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
      case Loc::Sibling: emit(ctx, {Op::Sibling, dst, l.index}, pos); return;
      case Loc::Global: break;
    }
    if (int p = paramIndex(n); p >= 0) return emit(ctx, {Op::Param, dst, p}, pos);
    int id = primId(n);
    if (id >= 0 && !prim(id).prelude) return emit(ctx, {Op::PrimRef, dst, id}, pos);
    emit(ctx, {Op::Unbound, dst, constant(Datum::symbol(n))}, pos);
  }

  void ifExpr(const CoreExpr& e, BlockCtx& ctx, int dst, bool tail) {
    int mark = ctx.next;
    int test = operand(*e.kids[0], ctx);
    ctx.next = mark;
    int jf = here(ctx);
    emit(ctx, {Op::JumpIfFalse, 0, test, 0}, e.pos);
    expr(*e.kids[1], ctx, dst, tail);
    int jend = -1;
    if (!tail) {
      jend = here(ctx);
      emit(ctx, {Op::Jump, 0, 0}, e.pos);
    }
    at(ctx, jf).b = here(ctx);
    expr(*e.kids[2], ctx, dst, tail);
    if (jend >= 0) at(ctx, jend).a = here(ctx);
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

  void let(const CoreExpr& e, BlockCtx& ctx, int dst, bool tail) {
    size_t scopeMark = ctx.scope.size();
    int mark = ctx.next;
    std::vector<int> slots;
    for (size_t k = 0; k < e.bindings.size(); ++k) slots.push_back(ctx.alloc());
    for (size_t k = 0; k < e.bindings.size(); ++k) expr(*e.bindings[k].second, ctx, slots[k], false);
    for (size_t k = 0; k < e.bindings.size(); ++k) ctx.scope.push_back({e.bindings[k].first, {Loc::Slot, slots[k], false}});
    expr(*e.body, ctx, dst, tail);
    ctx.scope.resize(scopeMark);
    ctx.next = mark;
  }

  // --- closures ---

  // The names a lambda captures: its free variables that are lexical here.
  std::vector<std::string> captures(const CoreExpr& lam, const BlockCtx& ctx,
                                    const std::unordered_set<std::string>& exclude) {
    std::vector<std::string> out;
    for (const auto& n : freeVars(lam))
      if (!exclude.count(n) && !isGlobal(ctx, n)) out.push_back(n);
    return out;
  }

  // Compiles a lambda's body as a new block with the given environment layout.
  int lambdaBlock(const CoreExpr& lam, const BlockCtx& outer, const std::vector<std::string>& env,
                  const std::unordered_map<std::string, int>& siblings, int block) {
    BlockCtx ctx;
    ctx.block = block;
    ctx.envNames = env;
    for (const auto& n : env) ctx.envBoxed.push_back(outer.lookup(n).boxed);
    ctx.siblings = siblings;
    for (const auto& p : lam.params) ctx.scope.push_back({p, {Loc::Slot, ctx.alloc(), false}});
    auto& b = g_.blocks[block];
    b.variadic = lam.variadic;
    b.nparams = static_cast<int>(lam.params.size()) - (lam.variadic ? 1 : 0);
    b.nfree = static_cast<int>(env.size());
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
      if (l.kind == Loc::Slot) emit(ctx, {Op::Move, s, l.index}, pos);  // boxes are captured as boxes
      else if (l.kind == Loc::Env) emit(ctx, {Op::Env, s, l.index}, pos);
      else if (l.kind == Loc::Sibling) emit(ctx, {Op::Sibling, s, l.index}, pos);
    }
    return first;
  }

  void lambda(const CoreExpr& e, BlockCtx& ctx, int dst) {
    auto env = captures(e, ctx, {});
    int block = newBlock(e.name, e.pos);
    lambdaBlock(e, ctx, env, {}, block);
    int mark = ctx.next;
    int first = captureSlots(env, ctx, e.pos);
    emit(ctx, {Op::Closure, dst, block, first, static_cast<int>(env.size())}, e.pos);
    ctx.next = mark;
  }

  // --- letrec* ---

  // Variables read (possibly inside a lambda created) before their binding is initialised.
  std::vector<bool> needsBox(const CoreExpr& e, const std::vector<int>& group) {
    size_t n = e.bindings.size();
    std::vector<bool> boxed(n, false);
    for (size_t i = 0; i < n; ++i) {
      for (const auto& v : freeVars(*e.bindings[i].second)) {
        for (size_t j = i; j < n; ++j) {
          if (e.bindings[j].first != v) continue;
          if (group[i] >= 0 && group[i] == group[j]) continue;  // a sibling in the same group
          boxed[j] = true;
        }
      }
    }
    return boxed;
  }

  void letrec(const CoreExpr& e, BlockCtx& ctx, int dst, bool tail) {
    size_t n = e.bindings.size();
    // Consecutive lambdas form a group sharing one environment record.
    std::vector<int> group(n, -1);
    int groups = 0;
    for (size_t i = 0; i < n; ++i) {
      if (e.bindings[i].second->kind != CoreKind::Lambda) continue;
      group[i] = (i > 0 && group[i - 1] >= 0) ? group[i - 1] : groups++;
    }
    auto boxed = needsBox(e, group);
    size_t scopeMark = ctx.scope.size();
    int mark = ctx.next;
    std::vector<int> slot(n);
    for (size_t i = 0; i < n; ++i) {
      slot[i] = ctx.alloc();
      ctx.scope.push_back({e.bindings[i].first, {Loc::Slot, slot[i], static_cast<bool>(boxed[i])}});
      if (boxed[i]) emit(ctx, {Op::BoxNew, slot[i]}, e.bindings[i].second->pos);
    }
    for (size_t i = 0; i < n;) {
      size_t end = i + 1;
      if (group[i] >= 0)
        while (end < n && group[end] == group[i]) ++end;
      if (group[i] >= 0)
        lambdaGroup(e, i, end, slot, boxed, ctx);
      else
        initInto(*e.bindings[i].second, slot[i], boxed[i], ctx);
      i = end;
    }
    expr(*e.body, ctx, dst, tail);
    ctx.scope.resize(scopeMark);
    ctx.next = mark;
  }

  void initInto(const CoreExpr& init, int slot, bool boxed, BlockCtx& ctx) {
    if (!boxed) return expr(init, ctx, slot, false);
    int mark = ctx.next;
    int tmp = ctx.alloc();
    expr(init, ctx, tmp, false);
    emit(ctx, {Op::BoxSet, 0, slot, tmp}, init.pos);
    ctx.next = mark;
  }

  void lambdaGroup(const CoreExpr& e, size_t from, size_t to, const std::vector<int>& slot,
                   const std::vector<bool>& boxed, BlockCtx& ctx) {
    std::unordered_set<std::string> members;
    std::unordered_map<std::string, int> siblings;
    for (size_t i = from; i < to; ++i) {
      members.insert(e.bindings[i].first);
      siblings[e.bindings[i].first] = newBlock(e.bindings[i].second->name.empty() ? e.bindings[i].first
                                                                                   : e.bindings[i].second->name,
                                               e.bindings[i].second->pos);
    }
    std::vector<std::string> env;
    for (size_t i = from; i < to; ++i)
      for (const auto& n : captures(*e.bindings[i].second, ctx, members))
        if (std::find(env.begin(), env.end(), n) == env.end()) env.push_back(n);
    for (size_t i = from; i < to; ++i)
      lambdaBlock(*e.bindings[i].second, ctx, env, siblings, siblings[e.bindings[i].first]);
    int mark = ctx.next;
    int first = captureSlots(env, ctx, e.bindings[from].second->pos);
    int firstClosure = ctx.alloc();
    for (size_t i = from; i < to; ++i) {
      SrcPos pos = e.bindings[i].second->pos;
      int target = boxed[i] ? ctx.alloc() : slot[i];
      int block = siblings[e.bindings[i].first];
      if (i == from)
        emit(ctx, {Op::Closure, firstClosure, block, first, static_cast<int>(env.size())}, pos);
      if (i == from) emit(ctx, {Op::Move, target, firstClosure}, pos);
      else emit(ctx, {Op::Closure, target, block, firstClosure, -1}, pos);  // c = -1: share the record
      if (boxed[i]) emit(ctx, {Op::BoxSet, 0, slot[i], target}, pos);
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
