// The expander: every derived form of LANGUAGE.md to the eight core forms, one function per form.
#include "expand/Expand.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace dmci {
namespace {

// The reader nests at most 1000 deep; the expander recurses once per nesting level.
constexpr int kMaxExpandDepth = 1100;

[[noreturn]] void fail(const Datum& d, const std::string& msg) { throw DmciError(ErrorKind::Form, msg, d.pos); }

bool isReservedName(const std::string& name) { return !name.empty() && name[0] == '%'; }

bool isMutator(const std::string& name) {
  static const std::unordered_set<std::string> kMutators = {
      "set-car!", "set-cdr!", "vector-set!", "vector-fill!", "string-set!", "string-fill!", "list-set!"};
  return kMutators.count(name) != 0;
}

bool isQuasiKeyword(const Datum& d) {
  return d.isSymbol("quasiquote") || d.isSymbol("unquote") || d.isSymbol("unquote-splicing");
}

// (keyword x): a quasiquote, unquote or unquote-splicing form with its one argument.
bool isQuasiForm(const Datum& d) {
  return d.kind == DatumKind::List && !d.tail && d.items.size() == 2 && isQuasiKeyword(*d.items[0]);
}

ExprPtr unspecified(SrcPos p) { return CoreExpr::constant(Datum::nil(p), p); }
ExprPtr prim(const char* name, SrcPos p) { return CoreExpr::ref(std::string("%") + name, p); }
ExprPtr sequence(std::vector<ExprPtr> es, SrcPos p) {
  return es.size() == 1 ? es[0] : CoreExpr::begin(std::move(es), p);
}

// A parsed parameter list.
struct Formals {
  std::vector<std::string> names;
  bool variadic = false;
};

// A parsed (name init) binding; `step` is used by do only.
struct BindingForm {
  DatumPtr name;
  DatumPtr init;
  DatumPtr step;
};

// One form of a body after begin-splicing; `name` is set for a definition.
struct BodyForm {
  DatumPtr form;
  std::string name;
};

class Expander {
 public:
  explicit Expander(const ExpandOptions& opts) : opts_(opts) {}
  ExprPtr program(const std::vector<DatumPtr>& forms);
  ExprPtr expr(const DatumPtr& d);

 private:
  using Handler = ExprPtr (Expander::*)(const DatumPtr&);
  static const std::unordered_map<std::string, Handler>& keywords();

  // Lexical scope: names bound here shadow keywords.
  class Scope {
   public:
    explicit Scope(Expander& x) : x_(x) {}
    ~Scope() {
      for (const auto& n : added_)
        if (--x_.bound_[n] == 0) x_.bound_.erase(n);
    }
    void add(const std::string& n) {
      ++x_.bound_[n];
      added_.push_back(n);
    }
    void add(const std::vector<std::string>& ns) {
      for (const auto& n : ns) add(n);
    }

   private:
    Expander& x_;
    std::vector<std::string> added_;
  };

  // Counts nesting so that no input exhausts the C++ stack.
  class DepthGuard {
   public:
    DepthGuard(Expander& x, const Datum& d) : x_(x) {
      if (x_.depth_ >= kMaxExpandDepth) fail(d, "expression nested too deeply");
      ++x_.depth_;
    }
    ~DepthGuard() { --x_.depth_; }

   private:
    Expander& x_;
  };

  bool isBound(const std::string& n) const { return bound_.count(n) != 0; }
  bool isKeyword(const Datum& d, const char* kw) const { return d.isSymbol(kw) && !isBound(kw); }
  // A temporary name; %-names cannot clash with user names, and with allowInternal
  // a name already bound here is skipped.
  std::string fresh(const std::string& prefix) {
    std::string name;
    do name = "%" + prefix + std::to_string(++counters_[prefix]);
    while (isBound(name));
    return name;
  }

  // Names and parameter lists.
  const std::string& bindableName(const Datum& d, const std::string& what);
  void checkDistinct(const std::vector<const Datum*>& names, const std::string& what);
  void checkDistinct(const std::vector<BindingForm>& bs, const std::string& what);
  Formals formals(const Datum& d, const std::string& what);
  Formals paramsFrom(const Datum& list, size_t from, const std::string& what);
  std::vector<BindingForm> bindingForms(const Datum& d, const std::string& what);

  // Bodies and definitions.
  bool isDefine(const Datum& d) const;
  bool isSplicedBegin(const Datum& d, int depth = 0) const;
  void collectBody(const std::vector<DatumPtr>& forms, size_t from, std::vector<BodyForm>& out, Scope& scope);
  ExprPtr body(const DatumPtr& where, size_t from, const std::string& what);
  ExprPtr bodyOf(const std::vector<DatumPtr>& forms, size_t from, const Datum& where, const std::string& what);
  ExprPtr letrecBody(const std::vector<BodyForm>& forms, size_t lastDefine, const Datum& where);
  const std::string& defineName(const Datum& d);
  ExprPtr defineValue(const DatumPtr& d);
  ExprPtr curriedLambda(const std::vector<const Datum*>& targets, size_t k, const DatumPtr& form);
  std::vector<ExprPtr> exprsFrom(const DatumPtr& d, size_t from);

  // Expressions.
  ExprPtr variable(const DatumPtr& d);
  ExprPtr application(const DatumPtr& d);
  ExprPtr quote(const DatumPtr& d);
  ExprPtr if_(const DatumPtr& d);
  ExprPtr lambda(const DatumPtr& d);
  ExprPtr defineInExpr(const DatumPtr& d);
  ExprPtr begin(const DatumPtr& d);
  ExprPtr let(const DatumPtr& d);
  ExprPtr namedLet(const DatumPtr& d, const std::string& name, const Datum& bindings, size_t bodyFrom,
                   const std::string& what);
  ExprPtr letStar(const DatumPtr& d);
  ExprPtr letrec(const DatumPtr& d);
  ExprPtr cond(const DatumPtr& d);
  ExprPtr clauseResult(const DatumPtr& clause, const std::string& arg, const std::string& what);
  ExprPtr case_(const DatumPtr& d);
  ExprPtr caseTest(const DatumPtr& clause, const std::string& key);
  ExprPtr and_(const DatumPtr& d);
  ExprPtr or_(const DatumPtr& d);
  ExprPtr when(const DatumPtr& d);
  ExprPtr unless(const DatumPtr& d);
  ExprPtr do_(const DatumPtr& d);
  ExprPtr loop(const DatumPtr& d);
  ExprPtr mutation(const DatumPtr& d);
  ExprPtr strayUnquote(const DatumPtr& d);

  // Quasiquote.
  ExprPtr quasiquote(const DatumPtr& d);
  ExprPtr quasi(const DatumPtr& t, int level);
  ExprPtr quasiForm(const DatumPtr& t, int level);
  ExprPtr quasiList(const DatumPtr& t, int level);

  ExpandOptions opts_;
  std::unordered_map<std::string, int> bound_;
  std::map<std::string, int> counters_;
  int depth_ = 0;
};

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

// A (begin ...) in a body is spliced when it holds a definition (R7RS 5.6.1).
bool Expander::isSplicedBegin(const Datum& d, int depth) const {
  if (d.kind != DatumKind::List || d.tail || !isKeyword(*d.items[0], "begin")) return false;
  if (depth > kMaxExpandDepth) fail(d, "expression nested too deeply");
  return std::any_of(d.items.begin() + 1, d.items.end(),
                     [&](const DatumPtr& x) { return isDefine(*x) || isSplicedBegin(*x, depth + 1); });
}

// Flattens spliced begins and binds each defined name as soon as it is seen.
void Expander::collectBody(const std::vector<DatumPtr>& forms, size_t from, std::vector<BodyForm>& out, Scope& scope) {
  for (size_t i = from; i < forms.size(); ++i) {
    const Datum& f = *forms[i];
    if (isSplicedBegin(f)) {
      collectBody(f.items, 1, out, scope);
    } else if (isDefine(f)) {
      const std::string& name = defineName(f);
      for (const auto& prev : out)
        if (prev.name == name) fail(f, "define: '" + name + "' is defined twice in this body");
      out.push_back({forms[i], name});
      scope.add(name);
    } else {
      out.push_back({forms[i], ""});
    }
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
  collectBody(forms, from, parts, scope);
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
  switch (d->kind) {
    case DatumKind::Nil:
      fail(*d, "empty application (): write '() for the empty list");
    case DatumKind::Symbol:
      return variable(d);
    case DatumKind::List:
      break;
    default:
      return CoreExpr::constant(d, d->pos);
  }
  const Datum& head = *d->items[0];
  if (head.kind == DatumKind::Symbol && !isBound(head.text)) {
    auto it = keywords().find(head.text);
    if (it != keywords().end()) {
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
  if (!isBound(n)) {
    if (isMutator(n)) fail(*d, n + ": mutation is not supported: the heap is single-assignment");
    if (keywords().count(n)) fail(*d, "'" + n + "' is a syntactic keyword, not a variable");
  }
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

ExprPtr Expander::mutation(const DatumPtr& d) {
  fail(*d, "set!: mutation is not supported: the heap is single-assignment");
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

// One cond arm: a test, its value, and the temporary the test is bound to ("" if none).
struct CondArm {
  ExprPtr test;
  ExprPtr then;
  std::string tmp;
  SrcPos pos;
};

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

// ---------------------------------------------------------------------------
// Quasiquote: constant parts stay one Const; the rest is built with %cons, %append, %list.

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

// ---------------------------------------------------------------------------
// Programs

ExprPtr Expander::program(const std::vector<DatumPtr>& forms) {
  if (forms.empty())
    throw DmciError(ErrorKind::Form, "program has no expression to evaluate", SrcPos{internFile(opts_.file), 1, 1});
  return bodyOf(forms, 0, *forms.front(), "program");
}

}  // namespace

Result<ExprPtr> expandProgram(const std::vector<DatumPtr>& forms, const ExpandOptions& opts) {
  return catchErrors([&] { return Expander(opts).program(forms); });
}

Result<ExprPtr> expandExpr(const DatumPtr& form, const ExpandOptions& opts) {
  return catchErrors([&] { return Expander(opts).expr(form); });
}

}  // namespace dmci
