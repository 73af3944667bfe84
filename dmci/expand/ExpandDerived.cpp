// The derived forms: named let, loop, let*, do, cond, case, and, or, when and unless.
#include <string>
#include <vector>

#include "expand/Expander.h"

namespace dmci {
namespace {

// One cond arm: a test, its value, and the temporary the test is bound to ("" if none).
struct CondArm {
  ExprPtr test;
  ExprPtr then;
  std::string tmp;
  SrcPos pos;
};

}  // namespace

// ---------------------------------------------------------------------------
// Derived binding forms

// (let name ((v init) ...) body...) is ((letrec* ((name (lambda (v ...) body...))) name) init ...).
ExprPtr Expander::namedLet(const DatumPtr& d, const std::string& name, const Datum& bindings, size_t bodyFrom,
                           const std::string& what) {
  auto bs = bindingForms(bindings, what);
  checkDistinct(bs, what);
  std::vector<ExprPtr> call{nullptr};
  std::vector<std::string> vars;
  for (const auto& b : bs) {
    call.push_back(expr(b.init));
    vars.push_back(b.name->text);
  }
  Scope scope(*this);
  scope.add(name);
  scope.add(vars);
  ExprPtr fn = CoreExpr::lambda(vars, false, body(d, bodyFrom, what), d->pos, name);
  call[0] = CoreExpr::letrec({{name, fn}}, CoreExpr::ref(name, d->pos), d->pos);
  return CoreExpr::app(std::move(call), d->pos);
}

ExprPtr Expander::letStar(const DatumPtr& d) {
  if (d->items.size() < 2) fail(*d, "let*: expects (let* ((name expr) ...) body...)");
  auto bs = bindingForms(*d->items[1], "let*");
  Scope scope(*this);
  std::vector<Binding> out;
  for (const auto& b : bs) {
    out.emplace_back(b.name->text, expr(b.init));
    scope.add(b.name->text);
  }
  ExprPtr result = body(d, 2, "let*");
  if (out.empty()) return CoreExpr::let({}, result, d->pos);
  for (size_t i = out.size(); i-- > 0;) result = CoreExpr::let({out[i]}, result, d->pos);
  return result;
}

// (loop ((v init) ...) body...) is (let recur ((v init) ...) body...).
ExprPtr Expander::loop(const DatumPtr& d) {
  if (d->items.size() < 2) fail(*d, "loop: expects (loop ((var init) ...) body...)");
  return namedLet(d, "recur", *d->items[1], 2, "loop");
}

// (do ((var init [step]) ...) (test result...) command...) is a named-let style loop.
ExprPtr Expander::do_(const DatumPtr& d) {
  static const std::string kUsage = "do: expects (do ((var init [step]) ...) (test expr...) command...)";
  if (d->items.size() < 3 || !d->items[1]->isProperList()) fail(*d, kUsage);
  std::vector<BindingForm> specs;
  for (const auto& s : d->items[1]->items) {
    if (s->kind != DatumKind::List || s->tail || s->items.size() < 2 || s->items.size() > 3)
      fail(*s, "do: variable clause must be (var init [step])");
    bindableName(*s->items[0], "do");
    specs.push_back({s->items[0], s->items[1], s->items.size() == 3 ? s->items[2] : nullptr});
  }
  checkDistinct(specs, "do");
  const DatumPtr& exit = d->items[2];
  if (exit->kind != DatumKind::List || exit->tail) fail(*exit, "do: exit clause must be (test expr...)");
  std::string self = fresh("do");
  std::vector<ExprPtr> call{nullptr};
  std::vector<ExprPtr> next{CoreExpr::ref(self, d->pos)};
  std::vector<std::string> vars;
  for (const auto& s : specs) call.push_back(expr(s.init));
  Scope scope(*this);
  for (const auto& s : specs) {
    vars.push_back(s.name->text);
    scope.add(s.name->text);
  }
  for (const auto& s : specs) next.push_back(s.step ? expr(s.step) : CoreExpr::ref(s.name->text, s.name->pos));
  ExprPtr test = expr(exit->items[0]);
  ExprPtr result = exit->items.size() > 1 ? sequence(exprsFrom(exit, 1), exit->pos) : unspecified(exit->pos);
  std::vector<ExprPtr> commands = exprsFrom(d, 3);
  commands.push_back(CoreExpr::app(std::move(next), d->pos));
  ExprPtr step = CoreExpr::if_(test, result, sequence(std::move(commands), d->pos), d->pos);
  ExprPtr fn = CoreExpr::lambda(vars, false, step, d->pos);
  call[0] = CoreExpr::letrec({{self, fn}}, CoreExpr::ref(self, d->pos), d->pos);
  return CoreExpr::app(std::move(call), d->pos);
}

// ---------------------------------------------------------------------------
// Conditionals

// The value of a clause: its expressions, or (receiver arg) for a (... => receiver) clause.
ExprPtr Expander::clauseResult(const DatumPtr& clause, const std::string& arg, const std::string& what) {
  const auto& items = clause->items;
  if (items.size() >= 2 && isKeyword(*items[1], "=>")) {
    if (items.size() != 3) fail(*clause, what + ": => clause must be (test => receiver)");
    return CoreExpr::app({expr(items[2]), CoreExpr::ref(arg, items[1]->pos)}, clause->pos);
  }
  return sequence(exprsFrom(clause, 1), clause->pos);
}

ExprPtr Expander::cond(const DatumPtr& d) {
  if (d->items.size() < 2) fail(*d, "cond: expects (cond (test expr...) ...) with at least one clause");
  std::vector<CondArm> arms;
  ExprPtr otherwise = unspecified(d->pos);
  for (size_t i = 1; i < d->items.size(); ++i) {
    const DatumPtr& c = d->items[i];
    if (c->kind != DatumKind::List || c->tail) fail(*c, "cond: clause must be (test expr...)");
    if (isKeyword(*c->items[0], "else")) {
      if (i + 1 != d->items.size()) fail(*c, "cond: else clause must be the last clause");
      if (c->items.size() < 2) fail(*c, "cond: else clause needs at least one expression");
      otherwise = sequence(exprsFrom(c, 1), c->pos);
      break;
    }
    ExprPtr test = expr(c->items[0]);
    bool keepsTest = c->items.size() == 1 || isKeyword(*c->items[1], "=>");
    std::string tmp = keepsTest ? fresh("t") : "";
    ExprPtr then = c->items.size() == 1 ? CoreExpr::ref(tmp, c->pos) : clauseResult(c, tmp, "cond");
    arms.push_back({test, then, tmp, c->pos});
  }
  ExprPtr rest = otherwise;
  for (auto a = arms.rbegin(); a != arms.rend(); ++a) {
    if (a->tmp.empty()) {
      rest = CoreExpr::if_(a->test, a->then, rest, a->pos);
    } else {
      ExprPtr branch = CoreExpr::if_(CoreExpr::ref(a->tmp, a->pos), a->then, rest, a->pos);
      rest = CoreExpr::let({{a->tmp, a->test}}, branch, a->pos);
    }
  }
  return rest;
}

// Whether the case key (bound to `key`) is one of the clause's datums, by eqv?.
ExprPtr Expander::caseTest(const DatumPtr& clause, const std::string& key) {
  const DatumPtr& data = clause->items[0];
  if (!data->isProperList()) fail(*data, "case: clause must start with a list of datums");
  ExprPtr k = CoreExpr::ref(key, data->pos);
  if (data->kind == DatumKind::List && data->items.size() == 1)
    return CoreExpr::app({prim("eqv?", data->pos), k, CoreExpr::constant(data->items[0], data->pos)}, data->pos);
  return CoreExpr::app({prim("memv", data->pos), k, CoreExpr::constant(data, data->pos)}, data->pos);
}

ExprPtr Expander::case_(const DatumPtr& d) {
  if (d->items.size() < 3) fail(*d, "case: expects (case key ((datum...) expr...) ...)");
  ExprPtr keyExpr = expr(d->items[1]);
  std::string key = fresh("t");
  std::vector<CondArm> arms;
  ExprPtr rest = unspecified(d->pos);
  for (size_t i = 2; i < d->items.size(); ++i) {
    const DatumPtr& c = d->items[i];
    if (c->kind != DatumKind::List || c->tail || c->items.size() < 2)
      fail(*c, "case: clause must be ((datum...) expr...) or (else expr...)");
    if (isKeyword(*c->items[0], "else")) {
      if (i + 1 != d->items.size()) fail(*c, "case: else clause must be the last clause");
      rest = clauseResult(c, key, "case");
      break;
    }
    arms.push_back({caseTest(c, key), clauseResult(c, key, "case"), "", c->pos});
  }
  for (auto a = arms.rbegin(); a != arms.rend(); ++a) rest = CoreExpr::if_(a->test, a->then, rest, a->pos);
  return CoreExpr::let({{key, keyExpr}}, rest, d->pos);
}

ExprPtr Expander::and_(const DatumPtr& d) {
  if (d->items.size() == 1) return CoreExpr::constant(Datum::boolean_(true, d->pos), d->pos);
  std::vector<ExprPtr> es = exprsFrom(d, 1);
  ExprPtr rest = es.back();
  for (size_t i = es.size() - 1; i-- > 0;)
    rest = CoreExpr::if_(es[i], rest, CoreExpr::constant(Datum::boolean_(false, d->pos), d->pos), d->pos);
  return rest;
}

// (or a b) is (let ((%t a)) (if %t %t b)), so a is evaluated once.
ExprPtr Expander::or_(const DatumPtr& d) {
  if (d->items.size() == 1) return CoreExpr::constant(Datum::boolean_(false, d->pos), d->pos);
  std::vector<ExprPtr> es = exprsFrom(d, 1);
  std::vector<std::string> tmps;
  for (size_t i = 0; i + 1 < es.size(); ++i) tmps.push_back(fresh("t"));
  ExprPtr rest = es.back();
  for (size_t i = es.size() - 1; i-- > 0;) {
    ExprPtr t = CoreExpr::ref(tmps[i], d->pos);
    rest = CoreExpr::let({{tmps[i], es[i]}}, CoreExpr::if_(t, t, rest, d->pos), d->pos);
  }
  return rest;
}

ExprPtr Expander::when(const DatumPtr& d) {
  if (d->items.size() < 3) fail(*d, "when: expects (when test expr...)");
  ExprPtr test = expr(d->items[1]);
  return CoreExpr::if_(test, sequence(exprsFrom(d, 2), d->pos), unspecified(d->pos), d->pos);
}

ExprPtr Expander::unless(const DatumPtr& d) {
  if (d->items.size() < 3) fail(*d, "unless: expects (unless test expr...)");
  ExprPtr test = expr(d->items[1]);
  return CoreExpr::if_(test, unspecified(d->pos), sequence(exprsFrom(d, 2), d->pos), d->pos);
}

}  // namespace dmci
