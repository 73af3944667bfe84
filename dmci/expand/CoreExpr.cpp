// The core AST's make() constructors and its one printer (core AST -> Datum -> text).
#include "expand/CoreExpr.h"

#include <span>

#include "expand/CoreFold.h"
#include "syntax/Arena.h"

namespace dmci {
namespace {

std::shared_ptr<CoreExpr> node(CoreKind k, SrcPos p) {
  auto e = makeNode<CoreExpr>();
  e->kind = k;
  e->pos = p;
  return e;
}

// The parameter list of a lambda: (a b), (a . rest) or args.
DatumPtr formals(const CoreExpr& e) {
  std::vector<DatumPtr> names;
  for (const auto& p : e.params) names.push_back(Datum::symbol(p, e.pos));
  if (!e.variadic || names.empty()) return Datum::list(std::move(names), e.pos);
  DatumPtr rest = names.back();
  names.pop_back();
  if (names.empty()) return rest;
  return Datum::list(std::move(names), e.pos, rest);
}

// ((x e) ...) for Let and Letrec, given the inits' datums.
DatumPtr bindingList(const CoreExpr& e, std::span<DatumPtr> inits) {
  std::vector<DatumPtr> out;
  for (size_t k = 0; k < e.bindings.size(); ++k) {
    SrcPos p = e.bindings[k].second->pos;
    out.push_back(Datum::list({Datum::symbol(e.bindings[k].first, p), std::move(inits[k])}, p));
  }
  return Datum::list(std::move(out), e.pos);
}

// (keyword k1 k2 ...) over the node's children's datums.
DatumPtr formOverKids(const char* keyword, const CoreExpr& e, std::span<DatumPtr> kids) {
  std::vector<DatumPtr> items;
  if (keyword) items.push_back(Datum::symbol(keyword, e.pos));
  for (auto& k : kids) items.push_back(std::move(k));
  return Datum::list(std::move(items), e.pos);
}

// One node's datum from its children's (foldCore order: kids, binding inits, body).
DatumPtr nodeDatum(const CoreExpr& e, std::span<DatumPtr> kids) {
  auto keyword = [&](const char* s) { return Datum::symbol(s, e.pos); };
  switch (e.kind) {
    case CoreKind::Const:
      return Datum::list({keyword("quote"), e.datum ? e.datum : Datum::nil(e.pos)}, e.pos);
    case CoreKind::Ref:
      return Datum::symbol(e.name, e.pos);
    case CoreKind::If:
      return formOverKids("if", e, kids);
    case CoreKind::Lambda:
      return Datum::list({keyword("lambda"), formals(e), std::move(kids[0])}, e.pos);
    case CoreKind::App:
      return formOverKids(nullptr, e, kids);
    case CoreKind::Begin:
      return formOverKids("begin", e, kids);
    case CoreKind::Let:
    case CoreKind::Letrec: {
      const char* kw = e.kind == CoreKind::Let ? "let" : "letrec*";
      return Datum::list({keyword(kw), bindingList(e, kids.first(e.bindings.size())), std::move(kids.back())}, e.pos);
    }
  }
  return Datum::nil(e.pos);
}

// Children of a node being freed; an outer destructor on this thread frees them one at a time, the last
// handed over first.
thread_local std::vector<ExprPtr>* tlPendingFree = nullptr;

// Hands the children over last first, so that they are freed first to last: the order they lie in their
// arena, which prefetchAfter reads ahead of (a long program's 100,000 top-level bindings freed from the last
// went backwards through memory).
void handOver(CoreExpr& e, std::vector<ExprPtr>& pending) {
  if (e.body) pending.push_back(std::move(e.body));
  for (auto b = e.bindings.rbegin(); b != e.bindings.rend(); ++b) pending.push_back(std::move(b->second));
  for (auto k = e.kids.rbegin(); k != e.kids.rend(); ++k) pending.push_back(std::move(*k));
}

}  // namespace

ExprPtr CoreExpr::constant(DatumPtr d, SrcPos p) {
  auto e = node(CoreKind::Const, p);
  e->datum = d ? std::move(d) : Datum::nil(p);
  return e;
}

ExprPtr CoreExpr::ref(std::string n, SrcPos p) {
  auto e = node(CoreKind::Ref, p);
  e->name = std::move(n);
  return e;
}

ExprPtr CoreExpr::if_(ExprPtr c, ExprPtr t, ExprPtr el, SrcPos p) {
  auto e = node(CoreKind::If, p);
  e->kids = {std::move(c), std::move(t), std::move(el)};
  return e;
}

ExprPtr CoreExpr::lambda(std::vector<std::string> params, bool variadic, ExprPtr body, SrcPos p, std::string name,
                         int hidden) {
  auto e = node(CoreKind::Lambda, p);
  e->params = std::move(params);
  e->variadic = variadic;
  e->hidden = hidden;
  e->body = std::move(body);
  e->name = std::move(name);
  return e;
}

ExprPtr CoreExpr::app(std::vector<ExprPtr> fAndArgs, SrcPos p) {
  auto e = node(CoreKind::App, p);
  e->kids = std::move(fAndArgs);
  return e;
}

ExprPtr CoreExpr::begin(std::vector<ExprPtr> exprs, SrcPos p) {
  auto e = node(CoreKind::Begin, p);
  e->kids = std::move(exprs);
  return e;
}

ExprPtr CoreExpr::let(std::vector<Binding> b, ExprPtr body, SrcPos p) {
  auto e = node(CoreKind::Let, p);
  e->bindings = std::move(b);
  e->body = std::move(body);
  return e;
}

ExprPtr CoreExpr::letrec(std::vector<Binding> b, ExprPtr body, SrcPos p) {
  auto e = node(CoreKind::Letrec, p);
  e->bindings = std::move(b);
  e->body = std::move(body);
  return e;
}

CoreExpr::~CoreExpr() {
  if (kids.empty() && bindings.empty() && !body) return;
  if (tlPendingFree) {
    handOver(*this, *tlPendingFree);
    return;
  }
  std::vector<ExprPtr> pending;
  tlPendingFree = &pending;
  handOver(*this, pending);
  while (!pending.empty()) {
    ExprPtr e = std::move(pending.back());
    pending.pop_back();
    prefetchAfter(e.get());
    e.reset();  // when this was the last owner, its children join `pending`
  }
  tlPendingFree = nullptr;
}

DatumPtr toDatum(const CoreExpr& e) { return foldCore<DatumPtr>(e, nodeDatum); }

std::string print(const CoreExpr& e) { return print(*toDatum(e)); }

}  // namespace dmci
