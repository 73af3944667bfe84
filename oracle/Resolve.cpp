// Links, resolves and lists the literals of a program, once, before the oracle runs it.
#include "oracle/Resolve.h"

#include <algorithm>
#include <unordered_set>

#include "lower/LinkPrelude.h"
#include "prims/PrimTable.h"

namespace dmci::oracle {
namespace {

// A primitive the oracle applies itself: not a library procedure (those are
// linked in as Scheme) and not one of mce.scm's internal hooks.
int primitiveNamed(const std::string& name) {
  int id = primId(name);
  if (id < 0) return -1;
  const Primitive& p = prim(id);
  return p.prelude == nullptr && p.family != PrimFamily::Internal ? id : -1;
}

class Resolver {
 public:
  explicit Resolver(Prepared& out) : out_(out) { scopes_.push_back(out.params); }

  void walk(const CoreExpr& e) {
    switch (e.kind) {
      case CoreKind::Const: return literalsIn(*e.datum);
      case CoreKind::Ref: out_.addresses[&e] = find(e.name); return;
      case CoreKind::If:
      case CoreKind::App:
      case CoreKind::Begin:
        for (const auto& k : e.kids) walk(*k);
        return;
      case CoreKind::Lambda: return inScope(e.params, *e.body);
      case CoreKind::Let:
        for (const auto& b : e.bindings) walk(*b.second);
        return inScope(names(e), *e.body);
      case CoreKind::Letrec: {
        scopes_.push_back(names(e));
        for (const auto& b : e.bindings) walk(*b.second);
        walk(*e.body);
        scopes_.pop_back();
        return;
      }
    }
  }

 private:
  Prepared& out_;
  std::vector<std::vector<std::string>> scopes_;  // innermost last
  std::unordered_set<std::string> seen_;          // literal keys listed so far

  static std::vector<std::string> names(const CoreExpr& e) {
    std::vector<std::string> n;
    for (const auto& b : e.bindings) n.push_back(b.first);
    return n;
  }

  void inScope(std::vector<std::string> scope, const CoreExpr& body) {
    scopes_.push_back(std::move(scope));
    walk(body);
    scopes_.pop_back();
  }

  Address find(const std::string& name) const {
    for (size_t up = 0; up < scopes_.size(); ++up) {
      const auto& s = scopes_[scopes_.size() - 1 - up];
      auto it = std::find(s.rbegin(), s.rend(), name);  // a later binding of a name hides an earlier one
      if (it != s.rend())
        return {Address::Where::Frame, static_cast<int>(up), static_cast<int>(s.rend() - it - 1), -1};
    }
    int id = primitiveNamed(name);
    if (id >= 0) return {Address::Where::Primitive, 0, 0, id};
    return {};
  }

  // Every number in a constant, including those nested in quoted lists, in reading order.
  void literalsIn(const Datum& d) {
    if (d.kind == DatumKind::Number) {
      std::string key = d.pos.str();
      if (seen_.insert(key).second) out_.literals.emplace_back(key, d.number);
    }
    for (const auto& k : d.items) literalsIn(*k);
    if (d.tail) literalsIn(*d.tail);
  }
};

SrcPos valuePosition(const CoreExpr* e) {
  for (;;) {
    if (e->kind == CoreKind::Let || e->kind == CoreKind::Letrec)
      e = e->body.get();
    else if (e->kind == CoreKind::Begin)
      e = e->kids.back().get();
    else
      return e->pos;
  }
}

}  // namespace

Prepared prepare(const Program& program, const std::vector<std::string>& params) {
  Prepared p;
  p.params = params;
  p.linked = linkPrelude(program.core(), params);
  Resolver(p).walk(*p.linked);
  p.valuePos = valuePosition(p.linked.get());
  return p;
}

}  // namespace dmci::oracle
