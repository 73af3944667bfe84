// Free-variable analysis and capture-avoiding renaming of free references.
#include "lower/FreeVars.h"

#include <algorithm>
#include <unordered_set>

namespace dmci {
namespace {

using Bound = std::vector<std::string>;

bool isBound(const Bound& b, const std::string& n) { return std::find(b.begin(), b.end(), n) != b.end(); }

struct Collector {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;

  void visit(const CoreExpr& e, Bound& bound) {
    switch (e.kind) {
      case CoreKind::Const: return;
      case CoreKind::Ref:
        if (!isBound(bound, e.name) && seen.insert(e.name).second) out.push_back(e.name);
        return;
      case CoreKind::If:
      case CoreKind::App:
      case CoreKind::Begin:
        for (const auto& k : e.kids) visit(*k, bound);
        return;
      case CoreKind::Lambda: {
        size_t mark = bound.size();
        bound.insert(bound.end(), e.params.begin(), e.params.end());
        visit(*e.body, bound);
        bound.resize(mark);
        return;
      }
      case CoreKind::Let: {
        for (const auto& b : e.bindings) visit(*b.second, bound);
        size_t mark = bound.size();
        for (const auto& b : e.bindings) bound.push_back(b.first);
        visit(*e.body, bound);
        bound.resize(mark);
        return;
      }
      case CoreKind::Letrec: {
        size_t mark = bound.size();
        for (const auto& b : e.bindings) bound.push_back(b.first);
        for (const auto& b : e.bindings) visit(*b.second, bound);
        visit(*e.body, bound);
        bound.resize(mark);
        return;
      }
    }
  }
};

struct Renamer {
  const std::vector<std::string>& from;
  const std::vector<std::string>& to;

  ExprPtr visit(const ExprPtr& e, Bound& bound) {
    switch (e->kind) {
      case CoreKind::Const: return e;
      case CoreKind::Ref: {
        if (isBound(bound, e->name)) return e;
        auto it = std::find(from.begin(), from.end(), e->name);
        if (it == from.end()) return e;
        return CoreExpr::ref(to[static_cast<size_t>(it - from.begin())], e->pos);
      }
      case CoreKind::If: return CoreExpr::if_(visit(e->kids[0], bound), visit(e->kids[1], bound), visit(e->kids[2], bound), e->pos);
      case CoreKind::App:
      case CoreKind::Begin: {
        std::vector<ExprPtr> kids;
        for (const auto& k : e->kids) kids.push_back(visit(k, bound));
        return e->kind == CoreKind::App ? CoreExpr::app(std::move(kids), e->pos) : CoreExpr::begin(std::move(kids), e->pos);
      }
      case CoreKind::Lambda: {
        size_t mark = bound.size();
        bound.insert(bound.end(), e->params.begin(), e->params.end());
        auto body = visit(e->body, bound);
        bound.resize(mark);
        return CoreExpr::lambda(e->params, e->variadic, body, e->pos, e->name);
      }
      case CoreKind::Let:
      case CoreKind::Letrec: {
        bool rec = e->kind == CoreKind::Letrec;
        size_t mark = bound.size();
        if (rec)
          for (const auto& b : e->bindings) bound.push_back(b.first);
        std::vector<Binding> bs;
        for (const auto& b : e->bindings) bs.emplace_back(b.first, visit(b.second, bound));
        if (!rec)
          for (const auto& b : e->bindings) bound.push_back(b.first);
        auto body = visit(e->body, bound);
        bound.resize(mark);
        return rec ? CoreExpr::letrec(std::move(bs), body, e->pos) : CoreExpr::let(std::move(bs), body, e->pos);
      }
    }
    return e;
  }
};

}  // namespace

std::vector<std::string> freeVars(const CoreExpr& e) {
  Collector c;
  Bound bound;
  c.visit(e, bound);
  return c.out;
}

ExprPtr renameFree(const ExprPtr& e, const std::vector<std::string>& from, const std::vector<std::string>& to) {
  Renamer r{from, to};
  Bound bound;
  return r.visit(e, bound);
}

}  // namespace dmci
