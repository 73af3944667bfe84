// Links, resolves and lists the literals of a program, once, before the oracle runs it.
#include "oracle/Resolve.h"

#include <algorithm>
#include <tuple>

#include "lower/Control.h"
#include "lower/LinkPrelude.h"
#include "prims/PrimTable.h"

namespace dmci::oracle {
namespace {

// A primitive the oracle applies itself: not a library procedure (those are linked in as Scheme) and not one of
// mce.scm's internal hooks, except the write-once boxes the control conversion (lower/Control.h) uses.
int primitiveNamed(const std::string& name) {
  int id = primId(name);
  if (id < 0) return -1;
  const Primitive& p = prim(id);
  bool box = name == "%box-new" || name == "%box-set!" || name == "%box-ref";
  return p.prelude == nullptr && (p.family != PrimFamily::Internal || box) ? id : -1;
}

class Resolver {
 public:
  explicit Resolver(Prepared& out) : out_(out) { scopes_.push_back(out.params); }

  std::vector<std::pair<SrcPos, double>> found;  // every literal, in the order of the walk

  void walk(const CoreExpr& e) {
    switch (e.kind) {
      case CoreKind::Const:
        return literalsIn(*e.datum);
      case CoreKind::Ref:
        out_.addresses[&e] = find(e.name);
        return;
      case CoreKind::If:
      case CoreKind::App:
      case CoreKind::Begin:
        for (const auto& k : e.kids) walk(*k);
        return;
      case CoreKind::Lambda:
        return inScope(e.params, *e.body);
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
      if (it != s.rend()) return {Address::Where::Frame, static_cast<int>(up), static_cast<int>(s.rend() - it - 1), -1};
    }
    int id = primitiveNamed(name);
    if (id >= 0) return {Address::Where::Primitive, 0, 0, id};
    return {};
  }

  // Every number in a constant, including those nested in quoted lists, in reading order.
  void literalsIn(const Datum& d) {
    if (d.kind == DatumKind::Number) found.emplace_back(d.pos, d.number);
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

// Sorted by position and each position once, as the engines key literal gradients.
std::vector<std::pair<std::string, double>> sourceOrder(std::vector<std::pair<SrcPos, double>> lits) {
  auto key = [](const SrcPos& p) { return std::tie(p.file, p.line, p.col); };
  std::stable_sort(lits.begin(), lits.end(), [&](const auto& a, const auto& b) { return key(a.first) < key(b.first); });
  std::vector<std::pair<std::string, double>> out;
  for (size_t k = 0; k < lits.size(); ++k)
    if (k == 0 || !(lits[k].first == lits[k - 1].first)) out.emplace_back(lits[k].first.str(), lits[k].second);
  return out;
}

}  // namespace

Prepared prepare(const Program& program, const std::vector<std::string>& params) {
  Prepared p;
  p.params = params;
  p.linked = linkPrelude(program.core(), params);
  p.valuePos = valuePosition(p.linked.get());
  p.linked = convertControl(p.linked, params);
  Resolver resolver(p);
  resolver.walk(*p.linked);
  p.literals = sourceOrder(resolver.found);
  return p;
}

}  // namespace dmci::oracle
