// The expander's core: names, bodies and definitions, the core forms, and the public entry points.
#include "expand/Expand.h"

#include <algorithm>
#include <unordered_set>

#include "expand/Expander.h"
#include "syntax/Arena.h"
#include "syntax/Exactness.h"

namespace dmci {
namespace {

bool isReservedName(const std::string& name) { return !name.empty() && name[0] == '%'; }

bool isMutator(const std::string& name) {
  static const std::unordered_set<std::string> kMutators = {"set-car!", "set-cdr!", "string-set!", "string-fill!",
                                                            "list-set!"};
  return kMutators.count(name) != 0;
}

// A self-evaluating number, boolean or character as a datum of the expander's own, made in its arena beside
// the Const node that holds it. Lowering copies a constant's pointer and freeing releases it, each touching
// the datum's count: the reader's datum lies far from the node, a cache miss apiece in a long program, and
// it would keep the reader's arena alive as long as the tree. Other datums are shared as they are.
DatumPtr ownLiteral(const DatumPtr& d) {
  switch (d->kind) {
    case DatumKind::Number:
      return numberWithExactness(d->number, isExact(*d), d->pos);
    case DatumKind::Bool:
      return Datum::boolean_(d->boolean, d->pos);
    case DatumKind::Char:
      return Datum::character(d->ch, d->pos);
    default:
      return d;
  }
}

}  // namespace

const std::unordered_map<std::string, Expander::Handler>& Expander::keywords() {
  static const std::unordered_map<std::string, Handler> kTable = {
      {"quote", &Expander::quote},
      {"quasiquote", &Expander::quasiquote},
      {"unquote", &Expander::strayUnquote},
      {"unquote-splicing", &Expander::strayUnquote},
      {"if", &Expander::if_},
      {"lambda", &Expander::lambda},
      {"define", &Expander::defineInExpr},
      {"begin", &Expander::begin},
      {"let", &Expander::let},
      {"let*", &Expander::letStar},
      {"letrec", &Expander::letrec},
      {"letrec*", &Expander::letrec},
      {"cond", &Expander::cond},
      {"case", &Expander::case_},
      {"and", &Expander::and_},
      {"or", &Expander::or_},
      {"when", &Expander::when},
      {"unless", &Expander::unless},
      {"do", &Expander::do_},
      {"loop", &Expander::loop},
      {"set!", &Expander::mutation},
      {"reset", &Expander::reset},
      {"shift", &Expander::shift},
      {"case-lambda", &Expander::caseLambda},
      {"let-values", &Expander::letValues},
      {"let*-values", &Expander::letStarValues},
      {"receive", &Expander::receive},
      {"define-values", &Expander::defineValuesInExpr},
      // R7RS syntax outside the subset: an error that names the form, not a confusing one from its parts.
      {"define-syntax", &Expander::unsupported},
      {"let-syntax", &Expander::unsupported},
      {"letrec-syntax", &Expander::unsupported},
      {"syntax-rules", &Expander::unsupported},
      {"define-record-type", &Expander::unsupported},
      {"parameterize", &Expander::unsupported},
      {"delay", &Expander::unsupported},
      {"delay-force", &Expander::unsupported},
      {"guard", &Expander::guard},
      {"cond-expand", &Expander::unsupported},
      {"include", &Expander::unsupported},
  };
  return kTable;
}

// ---------------------------------------------------------------------------
// Names and parameter lists

const std::string& Expander::bindableName(const Datum& d, const std::string& what) {
  if (d.kind != DatumKind::Symbol) fail(d, what + ": expected a variable name, got " + print(d));
  if (isReservedName(d.text) && !opts_.allowInternal)
    fail(d, "'" + d.text + "': names beginning with '%' are reserved for the implementation");
  return d.text;
}

void Expander::checkDistinct(const std::vector<const Datum*>& names, const std::string& what) {
  std::unordered_set<std::string> seen;
  for (const Datum* n : names)
    if (!seen.insert(n->text).second) fail(*n, what + ": '" + n->text + "' is bound twice");
}

// (a b), (a . rest), args or ().
Formals Expander::formals(const Datum& d, const std::string& what) {
  if (d.kind == DatumKind::Nil) return {};
  if (d.kind == DatumKind::Symbol) return {{bindableName(d, what)}, true};
  if (d.kind != DatumKind::List) fail(d, what + ": parameters must be a list of names or a name");
  return paramsFrom(d, 0, what);
}

// The parameters held in list.items[from..] and list.tail.
Formals Expander::paramsFrom(const Datum& list, size_t from, const std::string& what) {
  Formals f;
  std::vector<const Datum*> seen;
  for (size_t i = from; i < list.items.size(); ++i) {
    f.names.push_back(bindableName(*list.items[i], what));
    seen.push_back(list.items[i].get());
  }
  if (list.tail) {
    f.names.push_back(bindableName(*list.tail, what));
    seen.push_back(list.tail.get());
    f.variadic = true;
  }
  checkDistinct(seen, what);
  return f;
}

// ((name init) ...), checking shapes and distinct names.
std::vector<BindingForm> Expander::bindingForms(const Datum& d, const std::string& what) {
  if (!d.isProperList()) fail(d, what + ": bindings must be a list ((name expr) ...)");
  std::vector<BindingForm> out;
  for (const auto& b : d.items) {
    if (b->kind != DatumKind::List || b->tail || b->items.size() != 2) fail(*b, what + ": binding must be (name expr)");
    bindableName(*b->items[0], what);
    out.push_back({b->items[0], b->items[1], nullptr});
  }
  return out;
}

// ---------------------------------------------------------------------------
// Bodies and definitions

bool Expander::isDefine(const Datum& d) const { return d.kind == DatumKind::List && isKeyword(*d.items[0], "define"); }
bool Expander::isDefineValues(const Datum& d) const {
  return d.kind == DatumKind::List && isKeyword(*d.items[0], "define-values");
}

// A (begin ...) in a body is spliced when it holds a definition (R7RS 5.6.1).
bool Expander::isSplicedBegin(const Datum& d, int depth) const {
  if (d.kind != DatumKind::List || d.tail || !isKeyword(*d.items[0], "begin")) return false;
  if (depth > kMaxExpandDepth) fail(d, "expression nested too deeply");
  return std::any_of(d.items.begin() + 1, d.items.end(), [&](const DatumPtr& x) {
    return isDefine(*x) || isDefineValues(*x) || isSplicedBegin(*x, depth + 1);
  });
}

// Flattens spliced begins and binds each defined name as soon as it is seen; `body` numbers the body, and a
// name whose last defining body is this one is defined twice in it.
void Expander::collectBody(const std::vector<DatumPtr>& forms, size_t from, std::vector<BodyForm>& out, int body,
                           Scope& scope) {
  bool reserved = false;
  for (size_t i = from; i < forms.size(); ++i) {
    const Datum& f = *forms[i];
    prefetchAfter(&f);
    if (isSplicedBegin(f)) {
      collectBody(f.items, 1, out, body, scope);
    } else if (isDefine(f)) {
      const std::string& name = defineName(f);
      if (!reserved) bound_.reserve(bound_.size() + forms.size() - i);  // grown once for a long body, not doubling
      reserved = true;
      out.push_back({forms[i], name, BodyForm::kPlain, ""});
      defineInBody(f, name, body, scope);
    } else if (isDefineValues(f)) {
      collectDefineValues(forms[i], out, body, scope);
    } else {
      out.push_back({forms[i], "", BodyForm::kPlain, ""});
    }
  }
}

// Binds a name the body defines, refusing one defined twice in it.
void Expander::defineInBody(const Datum& f, const std::string& name, int body, Scope& scope) {
  if (const BoundName* b = bound_.find(name); b && b->body == body)
    fail(f, "define: '" + name + "' is defined twice in this body");
  bound_.find(scope.add(name))->body = body;
}

// (define-values formals expr): a temporary for the list of the values, then each name from it.
void Expander::collectDefineValues(const DatumPtr& f, std::vector<BodyForm>& out, int body, Scope& scope) {
  if (f->tail || f->items.size() != 3) fail(*f, "define-values: expects (define-values formals expr)");
  Formals names = formals(*f->items[1], "define-values");
  std::string list = fresh("dv");
  out.push_back({f, list, BodyForm::kValuesList, ""});
  for (size_t k = 0; k < names.names.size(); ++k) {
    out.push_back({f, names.names[k], static_cast<int>(k), list});
    defineInBody(*f, names.names[k], body, scope);
  }
}

ExprPtr Expander::body(const DatumPtr& where, size_t from, const std::string& what) {
  return bodyOf(where->items, from, *where, what);
}

// A body: definitions (letrec*) and expressions, the last of which gives the value.
ExprPtr Expander::bodyOf(const std::vector<DatumPtr>& forms, size_t from, const Datum& where, const std::string& what) {
  bool isProgram = what == "program";
  if (from >= forms.size()) fail(where, what + ": body is empty");
  Scope scope(*this);
  std::vector<BodyForm> parts;
  collectBody(forms, from, parts, ++bodies_, scope);
  if (parts.empty()) fail(where, what + ": body is empty");
  if (!parts.back().name.empty())
    fail(*parts.back().form,
         isProgram ? "program has no expression to evaluate" : what + ": body must end with an expression");
  size_t lastDefine = parts.size();
  for (size_t i = 0; i < parts.size(); ++i)
    if (!parts[i].name.empty()) lastDefine = i;
  if (lastDefine == parts.size()) {
    std::vector<ExprPtr> es;
    for (const auto& p : parts) es.push_back(expr(p.form));
    return sequence(std::move(es), where.pos);
  }
  return letrecBody(parts, lastDefine, where);
}

// (letrec* ((%seq1 e) (x v) ...) rest): expressions before a definition keep their place.
ExprPtr Expander::letrecBody(const std::vector<BodyForm>& parts, size_t lastDefine, const Datum& where) {
  std::vector<Binding> bs;
  for (size_t i = 0; i <= lastDefine; ++i) {
    if (parts[i].name.empty())
      bs.emplace_back(fresh("seq"), expr(parts[i].form));
    else if (parts[i].part == BodyForm::kValuesList)
      bs.emplace_back(parts[i].name, defineValuesList(parts[i].form));
    else if (parts[i].part >= 0)
      bs.emplace_back(parts[i].name, nthOf(parts[i].list, static_cast<size_t>(parts[i].part), parts[i].form->pos));
    else
      bs.emplace_back(parts[i].name, defineValue(parts[i].form));
  }
  std::vector<ExprPtr> rest;
  for (size_t i = lastDefine + 1; i < parts.size(); ++i) rest.push_back(expr(parts[i].form));
  return CoreExpr::letrec(std::move(bs), sequence(std::move(rest), where.pos), where.pos);
}

// Checks the shape of a definition and returns the name it defines.
const std::string& Expander::defineName(const Datum& d) {
  static const std::string kUsage = "define: expects (define name expr) or (define (name . params) body...)";
  if (d.tail || d.items.size() < 2) fail(d, kUsage);
  const Datum* target = d.items[1].get();
  if (target->kind == DatumKind::Symbol) {
    if (d.items.size() != 3) fail(d, kUsage);
    return bindableName(*target, "define");
  }
  while (target->kind == DatumKind::List) target = target->items[0].get();
  if (target->kind != DatumKind::Symbol) fail(*target, kUsage);
  if (d.items.size() < 3) fail(d, "define: body is empty");
  return bindableName(*target, "define");
}

ExprPtr Expander::defineValue(const DatumPtr& d) {
  const Datum* target = d->items[1].get();
  if (target->kind == DatumKind::Symbol) return expr(d->items[2]);
  // ((f a) b) defines f as (lambda (a) (lambda (b) body)): innermost target first.
  std::vector<const Datum*> targets;
  for (; target->kind == DatumKind::List; target = target->items[0].get()) targets.push_back(target);
  std::reverse(targets.begin(), targets.end());
  return curriedLambda(targets, 0, d);
}

ExprPtr Expander::curriedLambda(const std::vector<const Datum*>& targets, size_t k, const DatumPtr& form) {
  const Datum& t = *targets[k];
  Formals f = paramsFrom(t, 1, "define");
  Scope scope(*this);
  scope.add(f.names);
  ExprPtr b = k + 1 < targets.size() ? curriedLambda(targets, k + 1, form) : body(form, 2, "define");
  if (k == 0) return CoreExpr::lambda(f.names, f.variadic, b, form->pos, t.items[0]->text);
  return CoreExpr::lambda(f.names, f.variadic, b, t.pos);
}

std::vector<ExprPtr> Expander::exprsFrom(const DatumPtr& d, size_t from) {
  std::vector<ExprPtr> out;
  for (size_t i = from; i < d->items.size(); ++i) out.push_back(expr(d->items[i]));
  return out;
}

// ---------------------------------------------------------------------------
// Expressions

ExprPtr Expander::expr(const DatumPtr& d) {
  DepthGuard guard(*this, *d);
  prefetchAfter(d.get());
  switch (d->kind) {
    case DatumKind::Nil:
      fail(*d, "empty application (): write '() for the empty list");
    case DatumKind::Symbol:
      return variable(d);
    case DatumKind::List:
      break;
    default:
      return CoreExpr::constant(ownLiteral(d), d->pos);
  }
  const Datum& head = *d->items[0];
  // The keyword table first: it is small and stays in cache, while the table of bound names holds every
  // top-level define of a long program (most heads are procedure names, which are not keywords).
  if (head.kind == DatumKind::Symbol) {
    auto it = keywords().find(head.text);
    if (it != keywords().end() && !isBound(head.text)) {
      if (d->tail) fail(*d, head.text + ": the form must be a proper list");
      return (this->*(it->second))(d);
    }
  }
  return application(d);
}

ExprPtr Expander::variable(const DatumPtr& d) {
  const std::string& n = d->text;
  if (isReservedName(n) && !opts_.allowInternal)
    fail(*d, "'" + n + "': names beginning with '%' are reserved for the implementation");
  // The small tables first; the bound names are looked up only for a mutator's or a keyword's name.
  if (isMutator(n) && !isBound(n)) fail(*d, n + ": mutation is not supported: the heap is single-assignment");
  if (keywords().count(n) && !isBound(n)) fail(*d, "'" + n + "' is a syntactic keyword, not a variable");
  if (!firstCallCc_ && n[0] == 'c' && !opts_.allowInternal &&
      (n == "call/cc" || n == "call-with-current-continuation") && !isBound(n))
    firstCallCc_ = d.get();
  if (!firstException_ && (n[0] == 'r' || n[0] == 'w') && !opts_.allowInternal &&
      (n == "raise" || n == "raise-continuable" || n == "with-exception-handler") && !isBound(n))
    firstException_ = d.get();
  return CoreExpr::ref(n, d->pos);
}

ExprPtr Expander::application(const DatumPtr& d) {
  if (d->tail) fail(*d, "application: the arguments must be a proper list");
  return CoreExpr::app(exprsFrom(d, 0), d->pos);
}

ExprPtr Expander::quote(const DatumPtr& d) {
  if (d->items.size() != 2) fail(*d, "quote: expects (quote datum)");
  return CoreExpr::constant(d->items[1], d->pos);
}

ExprPtr Expander::if_(const DatumPtr& d) {
  size_t n = d->items.size();
  if (n != 3 && n != 4) fail(*d, "if: expects (if test then [else])");
  ExprPtr c = expr(d->items[1]);
  ExprPtr t = expr(d->items[2]);
  ExprPtr e = n == 4 ? expr(d->items[3]) : unspecified(d->pos);
  return CoreExpr::if_(c, t, e, d->pos);
}

ExprPtr Expander::lambda(const DatumPtr& d) {
  if (d->items.size() < 2) fail(*d, "lambda: expects (lambda params body...)");
  Formals f = formals(*d->items[1], "lambda");
  Scope scope(*this);
  scope.add(f.names);
  return CoreExpr::lambda(f.names, f.variadic, body(d, 2, "lambda"), d->pos);
}

ExprPtr Expander::defineInExpr(const DatumPtr& d) {
  fail(*d, "define: only allowed at top level or in a body, not inside an expression");
}

ExprPtr Expander::begin(const DatumPtr& d) {
  if (d->items.size() < 2) fail(*d, "begin: expects (begin expr...) with at least one expression");
  return sequence(exprsFrom(d, 1), d->pos);
}

// (reset e ...) becomes (%reset (lambda () e ...)); expand/Control.h gives it its meaning.
ExprPtr Expander::reset(const DatumPtr& d) {
  if (d->items.size() < 2 || d->tail) fail(*d, "reset: expects (reset expr...)");
  if (!firstControl_ && !opts_.allowInternal) firstControl_ = d.get();
  Scope scope(*this);
  ExprPtr thunk = CoreExpr::lambda({}, false, body(d, 1, "reset"), d->pos, "reset");
  return CoreExpr::app({prim("reset", d->pos), thunk}, d->pos);
}

// (shift k e ...) becomes (%shift (lambda (k) e ...)).
ExprPtr Expander::shift(const DatumPtr& d) {
  if (d->items.size() < 3 || d->tail || d->items[1]->kind != DatumKind::Symbol)
    fail(*d, "shift: expects (shift k expr...) with k a variable name");
  if (!firstControl_ && !opts_.allowInternal) firstControl_ = d.get();
  std::string k = bindableName(*d->items[1], "shift");
  Scope scope(*this);
  scope.add(k);
  ExprPtr f = CoreExpr::lambda({k}, false, body(d, 2, "shift"), d->pos, "shift");
  return CoreExpr::app({prim("shift", d->pos), f}, d->pos);
}

// (set! x e) becomes the marker (%set-variable! 'x e); convertAssignments (Assign.cpp) boxes x.
ExprPtr Expander::mutation(const DatumPtr& d) {
  if (d->items.size() != 3) fail(*d, "set!: expects (set! variable expr)");
  const Datum& target = *d->items[1];
  if (target.kind != DatumKind::Symbol) fail(target, "set!: the target must be a variable name");
  const std::string& n = target.text;
  if (isReservedName(n) && !opts_.allowInternal)
    fail(target, "'" + n + "': names beginning with '%' are reserved for the implementation");
  if (!isBound(n)) {
    if (keywords().count(n)) fail(target, "set!: '" + n + "' is a syntactic keyword, not a variable");
    fail(target, "set!: '" + n +
                     "' is not bound: set! assigns only a variable the program defines or binds (a free variable, "
                     "such as a parameter given by --bind, or a primitive cannot be assigned; (define a " +
                     n + ") makes a copy that can)");
  }
  ExprPtr v = expr(d->items[2]);
  sawSet_ = true;
  return CoreExpr::app({CoreExpr::ref(kSetVariable, d->pos), CoreExpr::constant(d->items[1], target.pos), v}, d->pos);
}

ExprPtr Expander::unsupported(const DatumPtr& d) {
  const std::string& name = d->items[0]->text;
  std::string why = name.find("syntax") != std::string::npos     ? "macros are outside the subset"
                    : name == "define-record-type"               ? "records are outside the subset"
                    : name == "parameterize"                     ? "parameter objects are outside the subset"
                    : name == "cond-expand" || name == "include" ? "libraries are outside the subset"
                                                                 : "promises are outside the subset";
  fail(*d, name + ": not supported (" + why + ")");
}

ExprPtr Expander::strayUnquote(const DatumPtr& d) { fail(*d, d->items[0]->text + ": only allowed inside quasiquote"); }

// ---------------------------------------------------------------------------
// Binding forms

void Expander::checkDistinct(const std::vector<BindingForm>& bs, const std::string& what) {
  std::vector<const Datum*> names;
  for (const auto& b : bs) names.push_back(b.name.get());
  checkDistinct(names, what);
}

ExprPtr Expander::let(const DatumPtr& d) {
  if (d->items.size() >= 2 && d->items[1]->kind == DatumKind::Symbol) {
    if (d->items.size() < 3) fail(*d, "let: expects (let name ((var init) ...) body...)");
    return namedLet(d, bindableName(*d->items[1], "let"), *d->items[2], 3, "let");
  }
  if (d->items.size() < 2) fail(*d, "let: expects (let ((name expr) ...) body...)");
  auto bs = bindingForms(*d->items[1], "let");
  checkDistinct(bs, "let");
  std::vector<Binding> out;
  for (const auto& b : bs) out.emplace_back(b.name->text, expr(b.init));
  Scope scope(*this);
  for (const auto& b : bs) scope.add(b.name->text);
  return CoreExpr::let(std::move(out), body(d, 2, "let"), d->pos);
}

// letrec and letrec* both become Letrec (letrec* semantics).
ExprPtr Expander::letrec(const DatumPtr& d) {
  const std::string& what = d->items[0]->text;
  if (d->items.size() < 2) fail(*d, what + ": expects (" + what + " ((name expr) ...) body...)");
  auto bs = bindingForms(*d->items[1], what);
  checkDistinct(bs, what);
  Scope scope(*this);
  for (const auto& b : bs) scope.add(b.name->text);
  std::vector<Binding> out;
  for (const auto& b : bs) out.emplace_back(b.name->text, expr(b.init));
  return CoreExpr::letrec(std::move(out), body(d, 2, what), d->pos);
}

// ---------------------------------------------------------------------------
// Programs

ExprPtr Expander::program(const std::vector<DatumPtr>& forms) {
  if (forms.empty())
    throw DmciError(ErrorKind::Form, "program has no expression to evaluate", SrcPos{internFile(opts_.file), 1, 1});
  ExprPtr out = bodyOf(forms, 0, *forms.front(), "program");
  if (firstCallCc_ && firstControl_)
    fail(*firstCallCc_, firstCallCc_->text + ": a program that uses reset or shift (line " +
                            std::to_string(firstControl_->pos.line) +
                            ") cannot use call/cc too: a reset between the call and the escape would catch it");
  if (firstException_) out = withLastHandler(out, *firstException_, forms.front()->pos);
  return out;
}

Result<ExprPtr> expandProgram(const std::vector<DatumPtr>& forms, const ExpandOptions& opts) {
  ArenaScope arena;  // the core tree side by side (syntax/Arena.h)
  return catchErrors([&] {
    Expander x(opts);
    return x.finish(x.program(forms));
  });
}

Result<ExprPtr> expandExpr(const DatumPtr& form, const ExpandOptions& opts) {
  ArenaScope arena;
  return catchErrors([&] {
    Expander x(opts);
    return x.finish(x.expr(form));
  });
}

}  // namespace dmci
