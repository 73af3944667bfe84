// Quasiquote: constant parts stay one Const; the rest is built with %cons, %append, %list.
#include <cstddef>
#include <string>
#include <vector>

#include "expand/Expander.h"

namespace dmci {
namespace {

bool isQuasiKeyword(const Datum& d) {
  return d.isSymbol("quasiquote") || d.isSymbol("unquote") || d.isSymbol("unquote-splicing");
}

// (keyword x): a quasiquote, unquote or unquote-splicing form with its one argument.
bool isQuasiForm(const Datum& d) {
  return d.kind == DatumKind::List && !d.tail && d.items.size() == 2 && isQuasiKeyword(*d.items[0]);
}

// The index i >= 1 where a list's rest is itself a quasi form, as in `(a . ,x)`, else items.size().
size_t quasiRestIndex(const Datum& t) {
  for (size_t i = 1; i < t.items.size(); ++i)
    if (isQuasiKeyword(*t.items[i])) return i;
  return t.items.size();
}

DatumPtr restFrom(const Datum& t, size_t i) {
  return Datum::list({t.items.begin() + static_cast<std::ptrdiff_t>(i), t.items.end()}, t.items[i]->pos, t.tail);
}

bool isUnquoteHead(const Datum& t) {
  return t.kind == DatumKind::List && (t.items[0]->isSymbol("unquote") || t.items[0]->isSymbol("unquote-splicing"));
}

// Whether template t holds an unquote that is live at nesting `level`.
bool hasUnquote(const Datum& t, int level, int depth = 0) {
  if (t.kind == DatumKind::Vector) {
    for (const auto& k : t.items)
      if (hasUnquote(*k, level, depth + 1)) return true;
    return false;
  }
  if (t.kind != DatumKind::List) return false;
  if (depth > kMaxExpandDepth) fail(t, "expression nested too deeply");
  if (level == 1 && isUnquoteHead(t)) return true;
  if (isQuasiForm(t)) {
    int inner = t.items[0]->isSymbol("quasiquote") ? level + 1 : level - 1;
    return hasUnquote(*t.items[1], inner, depth + 1);
  }
  size_t r = quasiRestIndex(t);
  for (size_t i = 0; i < r; ++i)
    if (hasUnquote(*t.items[i], level, depth + 1)) return true;
  return r < t.items.size() && hasUnquote(*restFrom(t, r), level, depth + 1);
}

}  // namespace

ExprPtr Expander::quasiquote(const DatumPtr& d) {
  if (d->items.size() != 2) fail(*d, "quasiquote: expects (quasiquote template)");
  return quasi(d->items[1], 1);
}

ExprPtr Expander::quasi(const DatumPtr& t, int level) {
  DepthGuard guard(*this, *t);
  if (!hasUnquote(*t, level)) return CoreExpr::constant(t, t->pos);
  if (level == 1 && isUnquoteHead(*t)) {
    const std::string& kw = t->items[0]->text;
    if (!isQuasiForm(*t)) fail(*t, kw + ": expects exactly one expression");
    if (kw == "unquote-splicing") fail(*t, "unquote-splicing: only allowed inside a list");
    return expr(t->items[1]);
  }
  if (t->kind == DatumKind::Vector)  // `#(a ,b): the vector of the list template of its elements
    return CoreExpr::app({prim("list->vector", t->pos), quasiList(Datum::list(t->items, t->pos), level)}, t->pos);
  if (isQuasiForm(*t)) return quasiForm(t, level);
  return quasiList(t, level);
}

// (quasiquote x), (unquote x) or (unquote-splicing x) kept as data one level in or out.
ExprPtr Expander::quasiForm(const DatumPtr& t, int level) {
  const DatumPtr& kw = t->items[0];
  ExprPtr arg = quasi(t->items[1], kw->isSymbol("quasiquote") ? level + 1 : level - 1);
  return CoreExpr::app({prim("list", t->pos), CoreExpr::constant(kw, kw->pos), arg}, t->pos);
}

ExprPtr Expander::quasiList(const DatumPtr& t, int level) {
  const auto& items = t->items;
  size_t r = quasiRestIndex(*t);
  ExprPtr rest = r < items.size() ? quasi(restFrom(*t, r), level) : nullptr;
  size_t k = r;  // items[k..r) are constant and join a constant rest
  if (!rest || rest->kind == CoreKind::Const) {
    while (k > 0 && !hasUnquote(*items[k - 1], level)) --k;
    DatumPtr restDatum = rest ? rest->datum : t->tail;
    std::vector<DatumPtr> suffix(items.begin() + static_cast<std::ptrdiff_t>(k),
                                 items.begin() + static_cast<std::ptrdiff_t>(r));
    SrcPos p = k < r ? items[k]->pos : t->pos;
    if (k < r || !rest) rest = CoreExpr::constant(Datum::list(std::move(suffix), p, restDatum), p);
  }
  std::vector<ExprPtr> heads;
  std::vector<bool> spliced;
  for (size_t i = 0; i < k; ++i) {
    const DatumPtr& item = items[i];
    bool splice = level == 1 && item->kind == DatumKind::List && item->items[0]->isSymbol("unquote-splicing");
    if (splice && !isQuasiForm(*item)) fail(*item, "unquote-splicing: expects exactly one expression");
    heads.push_back(splice ? expr(item->items[1]) : quasi(item, level));
    spliced.push_back(splice);
  }
  for (size_t i = k; i-- > 0;)
    rest = CoreExpr::app({prim(spliced[i] ? "append" : "cons", items[i]->pos), heads[i], rest}, items[i]->pos);
  return rest;
}

}  // namespace dmci
