// R7RS guard, and the last handler of a program that raises: derived forms over the exception library
// (prims/Exceptions.cpp: with-exception-handler, raise and raise-continuable over reset and shift).
//
// (guard (var clause ...) body ...) is (with-exception-handler h (lambda () body ...)) where h, of var, tries the
// clauses as cond does and returns a matching clause's value wrapped in a pair headed by with-exception-handler,
// which ends the with-exception-handler with that value (the escape to the guard); with no clause matching, h
// re-raises var by raise-continuable to the handlers outside the guard, and what they answer resumes the raise.
#include "expand/Expander.h"

namespace dmci {
namespace {

ExprPtr escape(ExprPtr value, SrcPos p) {
  return CoreExpr::app({prim("cons", p), prim("with-exception-handler", p), std::move(value)}, p);
}

}  // namespace

ExprPtr Expander::guard(const DatumPtr& d) {
  const auto& items = d->items;
  if (items.size() < 3 || items[1]->kind != DatumKind::List || items[1]->tail || items[1]->items.empty())
    fail(*d, "guard: expects (guard (var clause ...) body ...)");
  if (!firstException_ && !opts_.allowInternal) firstException_ = d.get();
  const DatumPtr& spec = items[1];
  const std::string& var = bindableName(*spec->items[0], "guard");
  ExprPtr handler;
  {
    Scope scope(*this);
    scope.add(var);
    // From the last clause back: each arm's test, and its value escaping; past the last, the re-raise.
    ExprPtr rest = CoreExpr::app({prim("raise-continuable", spec->pos), CoreExpr::ref(var, spec->pos)}, spec->pos);
    std::vector<std::pair<ExprPtr, std::pair<ExprPtr, std::string>>> arms;
    for (size_t i = 1; i < spec->items.size(); ++i) {
      const DatumPtr& c = spec->items[i];
      if (c->kind != DatumKind::List || c->tail || c->items.empty()) fail(*c, "guard: clause must be (test expr...)");
      if (isKeyword(*c->items[0], "else")) {
        if (i + 1 != spec->items.size()) fail(*c, "guard: else clause must be the last clause");
        if (c->items.size() < 2) fail(*c, "guard: else clause needs at least one expression");
        rest = escape(sequence(exprsFrom(c, 1), c->pos), c->pos);
        break;
      }
      ExprPtr test = expr(c->items[0]);
      const bool keepsTest = c->items.size() == 1 || isKeyword(*c->items[1], "=>");
      std::string tmp = keepsTest ? fresh("t") : "";
      ExprPtr then = c->items.size() == 1 ? CoreExpr::ref(tmp, c->pos) : clauseResult(c, tmp, "guard");
      arms.push_back({test, {escape(then, c->pos), tmp}});
    }
    for (auto a = arms.rbegin(); a != arms.rend(); ++a) {
      const SrcPos p = a->first->pos;
      const std::string& tmp = a->second.second;
      if (tmp.empty()) {
        rest = CoreExpr::if_(a->first, a->second.first, rest, p);
      } else {
        rest = CoreExpr::let({{tmp, a->first}}, CoreExpr::if_(CoreExpr::ref(tmp, p), a->second.first, rest, p), p);
      }
    }
    handler = CoreExpr::lambda({var}, false, rest, spec->pos, "guard");
  }
  ExprPtr thunk = CoreExpr::lambda({}, false, body(d, 2, "guard"), d->pos, "guard");
  return CoreExpr::app({prim("with-exception-handler", d->pos), handler, thunk}, d->pos);
}

// The program under a last handler that answers raise itself (read by raise as "no handler": it stops the run at
// its call), with `error` raising an error object: (error-object? message . irritants). A program may not also
// use call/cc or reset/shift: a reset of theirs between a raise and its handler would catch the raise.
ExprPtr Expander::withLastHandler(ExprPtr program, const Datum& first, SrcPos at) {
  // A form (guard, reset, shift) is named by its head, a reference (raise, call/cc) by itself.
  auto nameOf = [](const Datum& d) { return d.kind == DatumKind::List ? d.items[0]->text : d.text; };
  const Datum* other = firstCallCc_ ? firstCallCc_ : firstControl_;
  if (other)
    fail(*other, nameOf(*other) + ": a program that uses " + nameOf(first) + " (line " +
                     std::to_string(first.pos.line) + ") cannot use " + nameOf(*other) +
                     " too: a reset between a raise and its handler would catch the raise");
  // The handler and `error` are library code (a <prelude...> position): a run-time error names the user's last
  // call, the raise or the error, not these.
  const SrcPos lib{internFile("<prelude:exceptions>"), at.line, at.col};
  ExprPtr object = CoreExpr::app(
      {prim("cons", lib), prim("error-object?", lib),
       CoreExpr::app({prim("cons", lib), CoreExpr::ref("message", lib), CoreExpr::ref("irritants", lib)}, lib)},
      lib);
  ExprPtr error =
      CoreExpr::lambda({"message", "irritants"}, true, CoreExpr::app({prim("raise", lib), object}, lib), lib, "error");
  ExprPtr last = CoreExpr::lambda({"condition"}, false, prim("raise", lib), lib, "handler");
  ExprPtr thunk = CoreExpr::lambda({}, false, CoreExpr::let({{"error", error}}, program, at), at, "program");
  return CoreExpr::app({prim("with-exception-handler", at), last, thunk}, at);
}

}  // namespace dmci
