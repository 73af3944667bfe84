// The R7RS forms of multiple values and of several arities: case-lambda, let-values, let*-values, receive and
// define-values (whose body part is in Expand.cpp). Each becomes core forms over `call-with-values`, `apply` and
// `list` (library procedures: prims/MultipleValues.cpp), so every route runs and differentiates them as it runs
// any program, and a count of values that does not match the formals is the arity error of a lambda placed at
// the form. No number is made here: a generated literal would be a differentiable leaf of the user's program.
#include <string>
#include <vector>

#include "expand/Expander.h"

namespace dmci {
namespace {

ExprPtr app(std::vector<ExprPtr> es, SrcPos p) { return CoreExpr::app(std::move(es), p); }
ExprPtr truth(bool b, SrcPos p) { return CoreExpr::constant(Datum::boolean_(b, p), p); }

// Whether the list `args` has exactly k elements (at least k when variadic), by walking its pairs: no number.
ExprPtr shapeTest(const ExprPtr& args, size_t k, bool variadic, SrcPos p) {
  if (k == 0) return variadic ? truth(true, p) : app({prim("null?", p), args}, p);
  ExprPtr rest = shapeTest(app({prim("cdr", p), args}, p), k - 1, variadic, p);
  return CoreExpr::if_(app({prim("pair?", p), args}, p), rest, truth(false, p), p);
}

}  // namespace

// (lambda () e): the producer of call-with-values.
ExprPtr Expander::thunk(const DatumPtr& e) {
  Scope scope(*this);
  return CoreExpr::lambda({}, false, expr(e), e->pos);
}

// (call-with-values (lambda () e) (lambda formals body...)): `bodyFrom` indexes the body in `form`.
ExprPtr Expander::receiveInto(const DatumPtr& producer, const Datum& formalsDatum, const DatumPtr& form,
                              size_t bodyFrom, const std::string& what) {
  ExprPtr p = thunk(producer);
  Formals f = formals(formalsDatum, what);
  Scope scope(*this);
  scope.add(f.names);
  ExprPtr consumer = CoreExpr::lambda(f.names, f.variadic, body(form, bodyFrom, what), formalsDatum.pos, what);
  return app({prim("call-with-values", form->pos), p, consumer}, form->pos);
}

// (case-lambda (formals body...) ...): a variadic procedure that applies the first clause whose formals take
// the arguments' count; none is an error at the form, naming the count.
ExprPtr Expander::caseLambda(const DatumPtr& d) {
  static const std::string kUsage = "case-lambda: expects (case-lambda (formals body...) ...)";
  if (d->items.size() < 2) fail(*d, kUsage);
  std::string args = fresh("args");
  Scope outer(*this);
  outer.add(args);
  SrcPos p = d->pos;
  ExprPtr argsRef = CoreExpr::ref(args, p);
  ExprPtr rest = app({prim("error", p),
                      CoreExpr::constant(Datum::string("case-lambda: no clause takes this many arguments, got", p), p),
                      app({prim("length", p), argsRef}, p)},
                     p);
  std::vector<std::pair<ExprPtr, ExprPtr>> arms;
  for (size_t i = 1; i < d->items.size(); ++i) {
    const DatumPtr& c = d->items[i];
    if (c->kind != DatumKind::List || c->tail || c->items.size() < 2)
      fail(*c, "case-lambda: clause must be (formals body...)");
    Formals f = formals(*c->items[0], "case-lambda");
    size_t fixed = f.names.size() - (f.variadic ? 1 : 0);
    Scope scope(*this);
    scope.add(f.names);
    ExprPtr fn = CoreExpr::lambda(f.names, f.variadic, body(c, 1, "case-lambda"), c->pos);
    arms.emplace_back(shapeTest(argsRef, fixed, f.variadic, c->pos), app({prim("apply", c->pos), fn, argsRef}, c->pos));
  }
  for (auto a = arms.rbegin(); a != arms.rend(); ++a) rest = CoreExpr::if_(a->first, a->second, rest, p);
  return CoreExpr::lambda({args}, true, rest, p);
}

// (receive formals expr body...), SRFI 8.
ExprPtr Expander::receive(const DatumPtr& d) {
  if (d->items.size() < 4) fail(*d, "receive: expects (receive formals expr body...)");
  return receiveInto(d->items[2], *d->items[1], d, 3, "receive");
}

// The ((formals expr) ...) of let-values and let*-values, shapes checked.
std::vector<std::pair<DatumPtr, DatumPtr>> Expander::valuesBindings(const Datum& d, const std::string& what) {
  if (!d.isProperList()) fail(d, what + ": bindings must be a list ((formals expr) ...)");
  std::vector<std::pair<DatumPtr, DatumPtr>> out;
  for (const auto& b : d.items) {
    if (b->kind != DatumKind::List || b->tail || b->items.size() != 2)
      fail(*b, what + ": binding must be (formals expr)");
    out.emplace_back(b->items[0], b->items[1]);
  }
  return out;
}

// (let*-values ((formals expr) ...) body...): each expr sees the formals before it.
ExprPtr Expander::letStarValues(const DatumPtr& d) {
  if (d->items.size() < 3) fail(*d, "let*-values: expects (let*-values ((formals expr) ...) body...)");
  auto bs = valuesBindings(*d->items[1], "let*-values");
  return letStarValuesFrom(d, bs, 0);
}

ExprPtr Expander::letStarValuesFrom(const DatumPtr& d, const std::vector<std::pair<DatumPtr, DatumPtr>>& bs, size_t k) {
  if (k == bs.size()) {
    Scope scope(*this);
    return CoreExpr::let({}, body(d, 2, "let*-values"), d->pos);
  }
  ExprPtr p = thunk(bs[k].second);
  Formals f = formals(*bs[k].first, "let*-values");
  Scope scope(*this);
  scope.add(f.names);
  ExprPtr consumer =
      CoreExpr::lambda(f.names, f.variadic, letStarValuesFrom(d, bs, k + 1), bs[k].first->pos, "let*-values");
  return app({prim("call-with-values", d->pos), p, consumer}, d->pos);
}

// (let-values ((formals expr) ...) body...): every expr in the outer scope, each one's values as a list in a
// temporary, then the formals bound from those lists (no name twice).
ExprPtr Expander::letValues(const DatumPtr& d) {
  if (d->items.size() < 3) fail(*d, "let-values: expects (let-values ((formals expr) ...) body...)");
  auto bs = valuesBindings(*d->items[1], "let-values");
  std::vector<Binding> lists;
  std::vector<Formals> fs;
  std::vector<const Datum*> seen;
  for (const auto& [fd, e] : bs) {
    fs.push_back(formals(*fd, "let-values"));
    if (fd->kind == DatumKind::Symbol) seen.push_back(fd.get());
    for (const auto& x : fd->items) seen.push_back(x.get());
    if (fd->tail) seen.push_back(fd->tail.get());
    lists.emplace_back(fresh("lv"), app({prim("call-with-values", e->pos), thunk(e), prim("list", e->pos)}, e->pos));
  }
  checkDistinct(seen, "let-values");
  Scope scope(*this);
  for (const auto& f : fs) scope.add(f.names);
  ExprPtr result = CoreExpr::let({}, body(d, 2, "let-values"), d->pos);
  for (size_t k = bs.size(); k-- > 0;) {
    ExprPtr fn = CoreExpr::lambda(fs[k].names, fs[k].variadic, result, bs[k].first->pos, "let-values");
    result = app({prim("apply", d->pos), fn, CoreExpr::ref(lists[k].first, d->pos)}, d->pos);
  }
  return CoreExpr::let(std::move(lists), result, d->pos);
}

// A define-values' list of values: (apply (lambda formals (list name ...)) (call-with-values (lambda () expr)
// list)), whose lambda checks the count (an application at the form, so every route names it); expanded where
// the body's names are bound (letrec* semantics).
ExprPtr Expander::defineValuesList(const DatumPtr& d) {
  ExprPtr p = thunk(d->items[2]);
  ExprPtr values = app({prim("call-with-values", d->pos), p, prim("list", d->pos)}, d->pos);
  Formals f = formals(*d->items[1], "define-values");
  Scope scope(*this);
  scope.add(f.names);
  std::vector<ExprPtr> items{prim("list", d->pos)};
  for (const auto& n : f.names) items.push_back(CoreExpr::ref(n, d->pos));
  ExprPtr check = CoreExpr::lambda(f.names, f.variadic, app(std::move(items), d->pos), d->pos, "define-values");
  return app({prim("apply", d->pos), check, values}, d->pos);
}

// The k-th element of the list in variable `list` (car of k cdrs).
ExprPtr Expander::nthOf(const std::string& list, size_t k, SrcPos p) {
  ExprPtr e = CoreExpr::ref(list, p);
  for (size_t i = 0; i < k; ++i) e = app({prim("cdr", p), e}, p);
  return app({prim("car", p), e}, p);
}

ExprPtr Expander::defineValuesInExpr(const DatumPtr& d) {
  fail(*d, "define-values: only allowed at top level or in a body, not inside an expression");
}

}  // namespace dmci
