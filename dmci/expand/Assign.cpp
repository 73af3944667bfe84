// Assignment conversion: (set! x e) without giving up the single-assignment heap.
//
// The expander turns (set! x e) into the marker (%set-variable! 'x e) after checking that x is bound. Once
// the whole program is expanded, this pass finds each binder (a lambda parameter, a let or a letrec* name)
// that some marker assigns, and only those: such a variable is bound to a box (the %box-new / %box-set! /
// %box-ref cells that letrec* already uses) holding its value, a reference reads the box, and set! writes
// the box's next version. Every later stage (lowering, the engines, mce.scm, the oracle, lantern) sees only
// boxes it already knows; a variable that is never assigned is left exactly as it was. A program without
// set! never reaches this pass.
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "expand/Expander.h"
#include "support/BigStack.h"
#include "syntax/Arena.h"

namespace dmci {
namespace {

const char* const kTempValue = "%set-value";
const char* const kTempBox = "%set-box";

ExprPtr primRef(const char* name, SrcPos p) { return CoreExpr::ref(name, p); }

// (let ((v e)) (let ((b (%box-new))) (begin (%box-set! b v) b))): a fresh box holding e's value. e is
// evaluated first, outside the box's scope, so that a continuation re-entering e makes a fresh box.
ExprPtr boxed(ExprPtr e, SrcPos p) {
  ExprPtr set = CoreExpr::app({primRef("%box-set!", p), CoreExpr::ref(kTempBox, p), CoreExpr::ref(kTempValue, p)}, p);
  ExprPtr inner = CoreExpr::let({{kTempBox, CoreExpr::app({primRef("%box-new", p)}, p)}},
                                CoreExpr::begin({set, CoreExpr::ref(kTempBox, p)}, p), p);
  return CoreExpr::let({{kTempValue, std::move(e)}}, inner, p);
}

bool isMarker(const CoreExpr& e) {
  return e.kind == CoreKind::App && e.kids.size() == 3 && e.kids[0]->kind == CoreKind::Ref &&
         e.kids[0]->name == kSetVariable;
}

class Converter {
 public:
  // Pass 1: which binders some set! assigns.
  void mark(const CoreExpr& e) { walk(e, nullptr); }
  // Pass 2: the program with those binders boxed.
  ExprPtr convert(const ExprPtr& e) { return walk(*e, &e); }

 private:
  using Key = std::pair<const CoreExpr*, size_t>;
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<const void*>()(k.first) * 31 + k.second; }
  };
  std::unordered_map<std::string, std::vector<Key>> scope_;
  std::unordered_set<Key, KeyHash> assigned_;

  const Key* lookup(const std::string& n) const {
    auto it = scope_.find(n);
    return it == scope_.end() || it->second.empty() ? nullptr : &it->second.back();
  }
  bool isAssigned(const std::string& n) const {
    const Key* k = lookup(n);
    return k && assigned_.count(*k);
  }
  void push(const std::string& n, const CoreExpr* node, size_t i) { scope_[n].push_back({node, i}); }
  void pop(const std::string& n) { scope_[n].pop_back(); }

  // Walks e; when `self` is given (pass 2), returns e rebuilt (or *self when nothing under it changed).
  ExprPtr walk(const CoreExpr& e, const ExprPtr* self) {
    const bool out = self != nullptr;
    switch (e.kind) {
      case CoreKind::Const:
        return out ? *self : nullptr;
      case CoreKind::Ref:
        if (out && isAssigned(e.name))
          return CoreExpr::app(
              {primRef("%box-ref", e.pos), *self, CoreExpr::constant(Datum::symbol(e.name, e.pos), e.pos)}, e.pos);
        return out ? *self : nullptr;
      case CoreKind::If:
      case CoreKind::Begin:
      case CoreKind::App: {
        if (isMarker(e)) {
          const std::string& name = e.kids[1]->datum->text;
          if (!out) {
            if (const Key* k = lookup(name)) assigned_.insert(*k);
            walk(*e.kids[2], nullptr);
            return nullptr;
          }
          ExprPtr v = walk(*e.kids[2], &e.kids[2]);
          ExprPtr set = CoreExpr::app({primRef("%box-set!", e.pos), CoreExpr::ref(name, e.pos), v}, e.pos);
          return CoreExpr::begin({set, unspecified(e.pos)}, e.pos);
        }
        std::vector<ExprPtr> kids;
        bool changed = false;
        for (const ExprPtr& k : e.kids) {
          ExprPtr r = walk(*k, out ? &k : nullptr);
          changed |= out && r != k;
          if (out) kids.push_back(std::move(r));
        }
        if (!changed) return out ? *self : nullptr;
        if (e.kind == CoreKind::If) return CoreExpr::if_(kids[0], kids[1], kids[2], e.pos);
        if (e.kind == CoreKind::Begin) return CoreExpr::begin(std::move(kids), e.pos);
        return CoreExpr::app(std::move(kids), e.pos);
      }
      case CoreKind::Lambda: {
        for (size_t i = 0; i < e.params.size(); ++i) push(e.params[i], &e, i);
        ExprPtr body = walk(*e.body, out ? &e.body : nullptr);
        std::vector<Binding> boxes;
        if (out)
          for (size_t i = 0; i < e.params.size(); ++i)
            if (assigned_.count({&e, i}))
              boxes.emplace_back(e.params[i], boxed(CoreExpr::ref(e.params[i], e.pos), e.pos));
        for (const auto& n : e.params) pop(n);
        if (!out) return nullptr;
        if (!boxes.empty()) body = CoreExpr::let(std::move(boxes), body, e.pos);
        if (body == e.body) return *self;
        return CoreExpr::lambda(e.params, e.variadic, body, e.pos, e.name, e.hidden);
      }
      case CoreKind::Let:
      case CoreKind::Letrec: {
        const bool rec = e.kind == CoreKind::Letrec;
        if (rec)
          for (size_t i = 0; i < e.bindings.size(); ++i) push(e.bindings[i].first, &e, i);
        std::vector<ExprPtr> inits;
        bool changed = false;
        for (const auto& [name, init] : e.bindings) {
          ExprPtr r = walk(*init, out ? &init : nullptr);
          changed |= out && r != init;
          inits.push_back(std::move(r));
        }
        if (!rec)
          for (size_t i = 0; i < e.bindings.size(); ++i) push(e.bindings[i].first, &e, i);
        ExprPtr body = walk(*e.body, out ? &e.body : nullptr);
        for (const auto& b : e.bindings) pop(b.first);
        if (!out) return nullptr;
        std::vector<Binding> bs;
        for (size_t i = 0; i < e.bindings.size(); ++i) {
          bool box = assigned_.count({&e, i}) > 0;
          changed |= box;
          bs.emplace_back(e.bindings[i].first, box ? boxed(inits[i], e.bindings[i].second->pos) : inits[i]);
        }
        if (!changed && body == e.body) return *self;
        return rec ? CoreExpr::letrec(std::move(bs), body, e.pos) : CoreExpr::let(std::move(bs), body, e.pos);
      }
    }
    return out ? *self : nullptr;
  }
};

}  // namespace

// The walk recurses as deep as the program nests (a long let* nests as deep as it is long): on a big stack, making
// its nodes in the caller's arena (the caller waits, so one thread uses it at a time).
ExprPtr convertAssignments(const ExprPtr& e) {
  ExprPtr out;
  std::shared_ptr<NodeArena> arena = currentArena();
  runWithBigStack([&] {
    ArenaScope scope(arena);
    Converter c;
    c.mark(*e);
    out = c.convert(e);
  });
  return out;
}

}  // namespace dmci
