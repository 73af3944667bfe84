// The continuation-passing conversion behind shift and reset (Control.h says what it means).
//
// A one-pass conversion with meta-continuations (a C++ function from the atom a value is in to the code that
// goes on with it), so that no administrative lambda is made where the continuation is known. Every binder is
// renamed afresh: code a meta-continuation makes may land under binders it never saw.
//
// The source's meaning is kept where the conversion changes the code's shape:
//   arity      a converted procedure takes its continuation and flag first; its lambda says so (CoreExpr::hidden,
//              two), and every route's arity error counts without them: the source's counts, kind and position.
//   letrec*    the lambdas of a group are bound at once; every other variable is bound when its initialiser has
//              run, in order: by a let, or, when a lambda of the group uses it, in a box set then. A variable an
//              initialiser might read before its definition (it, or a variable of the group whose value might
//              reach it, is mentioned by an initialiser that runs no later), lambda or not, is boxed and set in
//              order, so that reading it early raises the unconverted "used before its definition" error.
//   re-entry   a continuation captured in an initialiser and called again (twice, or after its reset returned)
//              runs the rest of the group again: a let-bound variable is bound afresh, and a box is set again,
//              as set! does in Racket's letrec*: every procedure of the group, even one made before the shift,
//              sees the newest value. A box is the one cell the heap lets be written again; nothing else can see
//              it (user code has no mutation).
#include "lower/Control.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "lower/FreeVars.h"
#include "prims/PrimTable.h"
#include "support/BigStack.h"

namespace dmci {
namespace {

// The converted name of a source variable, and the box it lives in (letrec* variables that are not lambdas).
struct Scope {
  std::string name, renamed;
  bool boxed = false;
  bool direct = false;  // a procedure left in direct style (see `directProcedures`)
};

// The names in scope: a persistent binary search tree keyed by the name's hash (then the name), built by path
// copying, so binding a name costs O(log n), a lookup O(log n) however deep the program nests (a let* of 100,000
// bindings), and every older scope stays valid for the continuations that captured it. The hashes keep the tree
// balanced in expectation whatever order the names come in.
struct ScopeNode {
  size_t hash;
  std::shared_ptr<const Scope> binding;
  std::shared_ptr<const ScopeNode> left, right;
};
using ScopePtr = std::shared_ptr<const ScopeNode>;

struct Context {
  ScopePtr scope;
  bool inReset = false;   // statically under a reset (up to the nearest lambda)
  std::string delimited;  // the enclosing procedure's "a reset delimits me" parameter; "" at top level
};

// A continuation: the name of a one-argument procedure, or code to go on with (a meta-continuation).
struct Cont {
  std::string var;
  std::function<ExprPtr(ExprPtr)> meta;
};

// The parameters every converted procedure takes before the source's: its continuation and its flag. Arity errors
// count without them (CoreExpr::hidden).
constexpr int kHidden = 2;

ExprPtr ref(const std::string& n, SrcPos p) { return CoreExpr::ref(n, p); }
ExprPtr app(std::vector<ExprPtr> fa, SrcPos p) { return CoreExpr::app(std::move(fa), p); }
ExprPtr boolean(bool b, SrcPos p) { return CoreExpr::constant(Datum::boolean_(b, p), p); }
ExprPtr text(const std::string& s, SrcPos p) { return CoreExpr::constant(Datum::string(s, p), p); }

bool isAtom(const CoreExpr& e) {
  return e.kind == CoreKind::Const || e.kind == CoreKind::Ref || e.kind == CoreKind::Lambda;
}

class Converter {
 public:
  explicit Converter(const std::vector<std::string>& params) : params_(params) {}

  ExprPtr program(const ExprPtr& e) {
    Context top;
    return convert(e, Cont{"", [](ExprPtr a) { return a; }}, top);
  }

 private:
  const std::vector<std::string>& params_;
  int counter_ = 0;

  std::string fresh(const char* what) { return std::string("%cps-") + what + std::to_string(++counter_); }

  // Whether (h, n) sorts before the node's key.
  static bool before(size_t h, const std::string& n, const ScopeNode& at) {
    return h < at.hash || (h == at.hash && n < at.binding->name);
  }
  static const Scope* find(const ScopePtr& s, const std::string& n) {
    const size_t h = std::hash<std::string>{}(n);
    for (const ScopeNode* at = s.get(); at;) {
      if (h == at->hash && n == at->binding->name) return at->binding.get();
      at = before(h, n, *at) ? at->left.get() : at->right.get();
    }
    return nullptr;
  }
  // s with n bound (shadowing an outer n): the path to n copied, the rest shared.
  static ScopePtr insert(const ScopePtr& s, size_t h, std::shared_ptr<const Scope> b) {
    if (!s) return std::make_shared<const ScopeNode>(ScopeNode{h, std::move(b), nullptr, nullptr});
    if (h == s->hash && b->name == s->binding->name)
      return std::make_shared<const ScopeNode>(ScopeNode{h, std::move(b), s->left, s->right});
    if (before(h, b->name, *s))
      return std::make_shared<const ScopeNode>(
          ScopeNode{s->hash, s->binding, insert(s->left, h, std::move(b)), s->right});
    return std::make_shared<const ScopeNode>(
        ScopeNode{s->hash, s->binding, s->left, insert(s->right, h, std::move(b))});
  }
  static ScopePtr bind(ScopePtr s, const std::string& n, std::string renamed, bool boxed = false, bool direct = false) {
    return insert(s, std::hash<std::string>{}(n),
                  std::make_shared<const Scope>(Scope{n, std::move(renamed), boxed, direct}));
  }

  // A free reference to a primitive the engines run (not a library procedure, not a seed parameter).
  int freePrimitive(const CoreExpr& f, const Context& c) const {
    if (f.kind != CoreKind::Ref || find(c.scope, f.name)) return -1;
    if (std::find(params_.begin(), params_.end(), f.name) != params_.end()) return -1;
    int id = primId(f.name);
    return id >= 0 && !prim(id).prelude ? id : -1;
  }
  bool isControl(const CoreExpr& f, const Context& c, const char* which) const {
    return f.kind == CoreKind::Ref && f.name == which && !find(c.scope, f.name);
  }

  ExprPtr delimitedFlag(const Context& c, SrcPos p) const {
    if (c.inReset || c.delimited.empty()) return boolean(c.inReset, p);
    return ref(c.delimited, p);
  }

  static ExprPtr pass(const Cont& k, ExprPtr a, SrcPos p) {
    return k.var.empty() ? k.meta(a) : app({ref(k.var, p), a}, p);
  }
  ExprPtr reify(const Cont& k, SrcPos p) {
    if (!k.var.empty()) return ref(k.var, p);
    std::string v = fresh("v");
    return CoreExpr::lambda({v}, false, k.meta(ref(v, p)), p, "continuation");
  }
  // k as a named continuation, binding it first when it is code: (let ((j k)) (body j)).
  ExprPtr named(const Cont& k, SrcPos p, const std::function<ExprPtr(const Cont&)>& body) {
    if (!k.var.empty()) return body(k);
    std::string j = fresh("j");
    ExprPtr lam = reify(k, p);
    return CoreExpr::let({{j, lam}}, body(Cont{j, nullptr}), p);
  }

  // --- atoms ---

  ExprPtr atom(const ExprPtr& e, const Context& c) {
    if (e->kind == CoreKind::Const) return e;
    if (e->kind == CoreKind::Lambda) return lambda(*e, c, e->name);
    const Scope* s = find(c.scope, e->name);
    if (s && s->boxed) return app({ref("%box-ref", e->pos), ref(s->renamed, e->pos), quoted(e->name, e->pos)}, e->pos);
    if (s) return ref(s->renamed, e->pos);
    int id = freePrimitive(*e, c);
    return id >= 0 ? primitiveProcedure(*e, id) : e;
  }
  static ExprPtr quoted(const std::string& n, SrcPos p) { return CoreExpr::constant(Datum::symbol(n, p), p); }

  // A primitive as a value: a procedure of the converted convention that applies it.
  ExprPtr primitiveProcedure(const CoreExpr& e, int id) {
    // Its code is the library's: an error in it (the primitive's arity, say) is reported at the user's call.
    SrcPos p{internFile("<prelude:primitive>"), e.pos.line, e.pos.col};
    std::string k = fresh("k"), d = fresh("d"), args = fresh("a");
    if (std::string(prim(id).name) == "apply") {  // (apply f a ... lst): f takes the continuation first
      std::string f = fresh("f"), a = fresh("a");
      ExprPtr body =
          app({ref("%apply", p), ref("%apply", p), ref(f, p), ref(k, p), ref(d, p), ref(a, p), ref(args, p)}, p);
      return CoreExpr::lambda({k, d, f, a, args}, true, body, p, "apply", kHidden);
    }
    ExprPtr body = app({ref(k, p), app({ref("%apply", p), ref(e.name, p), ref(args, p)}, p)}, p);
    return CoreExpr::lambda({k, d, args}, true, body, p, prim(id).name, kHidden);
  }

  ExprPtr lambda(const CoreExpr& e, const Context& c, const std::string& name) {
    Context inner{c.scope, false, fresh("d")};
    std::string k = fresh("k");
    std::vector<std::string> params{k, inner.delimited};
    for (const auto& n : e.params) {
      params.push_back(fresh("x"));
      inner.scope = bind(inner.scope, n, params.back());
    }
    ExprPtr body = convert(e.body, Cont{k, nullptr}, inner);
    // A program converted twice (the lantern routes) hides both conversions' parameters.
    return CoreExpr::lambda(std::move(params), e.variadic, body, e.pos, name.empty() ? e.name : name,
                            e.hidden + kHidden);
  }

  // --- procedures left in direct style ---

  // The lambdas of a letrec group that cannot reach a shift: bodies without lambdas or letrecs, calling only
  // primitives (not apply) and each other, and named only in operator position, so that no converted code
  // ever calls them. They keep their own convention and are called like primitives: the conversion's cost
  // (a continuation closure per non-tail call) goes only where control can be captured.
  std::set<std::string> directProcedures(const CoreExpr& group, const Context& c,
                                         const std::set<std::string>& excluded) const {
    std::set<std::string> names, out;
    for (const auto& [name, init] : group.bindings) names.insert(name);
    std::map<std::string, std::set<std::string>> calls;
    for (const auto& [name, init] : group.bindings) {
      std::set<std::string> bound(init->params.begin(), init->params.end()), callees;
      if (init->kind == CoreKind::Lambda && !excluded.count(name) &&
          firstOrder(*init->body, bound, names, c, callees) && !escapes(group, name))
        calls[name] = callees, out.insert(name);
    }
    for (bool changed = true; changed;) {  // drop those that call a sibling that is not direct
      changed = false;
      for (const auto& [name, callees] : calls)
        if (out.count(name))
          for (const auto& q : callees)
            if (!out.count(q)) out.erase(name), changed = true;
    }
    return out;
  }

  bool firstOrder(const CoreExpr& e, std::set<std::string> bound, const std::set<std::string>& group, const Context& c,
                  std::set<std::string>& callees) const {
    switch (e.kind) {
      case CoreKind::Const:
      case CoreKind::Ref:
        return true;
      case CoreKind::Lambda:
      case CoreKind::Letrec:
        return false;
      case CoreKind::Let:
        for (const auto& [n, init] : e.bindings)
          if (!firstOrder(*init, bound, group, c, callees)) return false;
        for (const auto& [n, init] : e.bindings) bound.insert(n);
        return firstOrder(*e.body, bound, group, c, callees);
      case CoreKind::App: {
        const CoreExpr& f = *e.kids[0];
        if (f.kind != CoreKind::Ref || bound.count(f.name)) return false;
        if (group.count(f.name)) {
          callees.insert(f.name);
        } else {
          int id = freePrimitive(f, c);
          if (id < 0 || std::string(prim(id).name) == "apply" || prim(id).family == PrimFamily::Internal) return false;
        }
        for (size_t k = 1; k < e.kids.size(); ++k)
          if (!firstOrder(*e.kids[k], bound, group, c, callees)) return false;
        return true;
      }
      case CoreKind::If:
      case CoreKind::Begin:
        for (const auto& k : e.kids)
          if (!firstOrder(*k, bound, group, c, callees)) return false;
        return true;
    }
    return false;
  }

  // True when `name` appears anywhere in e other than as an operator (shadowing ignored: a conservative no).
  static bool escapes(const CoreExpr& e, const std::string& name) {
    switch (e.kind) {
      case CoreKind::Const:
        return false;
      case CoreKind::Ref:
        return e.name == name;
      case CoreKind::Lambda:
        return escapes(*e.body, name);
      case CoreKind::Let:
      case CoreKind::Letrec:
        for (const auto& [n, init] : e.bindings)
          if (escapes(*init, name)) return true;
        return escapes(*e.body, name);
      case CoreKind::App:
        for (size_t k = e.kids[0]->kind == CoreKind::Ref ? 1 : 0; k < e.kids.size(); ++k)
          if (escapes(*e.kids[k], name)) return true;
        return false;
      case CoreKind::If:
      case CoreKind::Begin:
        for (const auto& k : e.kids)
          if (escapes(*k, name)) return true;
        return false;
    }
    return true;
  }

  ExprPtr directLambda(const CoreExpr& e, const Context& c, const std::string& name) {
    Context inner = c;
    std::vector<std::string> params;
    for (const auto& n : e.params) {
      params.push_back(fresh("x"));
      inner.scope = bind(inner.scope, n, params.back());
    }
    return CoreExpr::lambda(std::move(params), e.variadic, direct(e.body, inner), e.pos, name, e.hidden);
  }

  // A first-order body (see firstOrder) in direct style: its variables renamed, its direct callees by their
  // converted names, a primitive as a value in the converted convention.
  ExprPtr direct(const ExprPtr& e, const Context& c) {
    switch (e->kind) {
      case CoreKind::Const:
      case CoreKind::Ref:
        return atom(e, c);
      case CoreKind::If:
        return CoreExpr::if_(direct(e->kids[0], c), direct(e->kids[1], c), direct(e->kids[2], c), e->pos);
      case CoreKind::Begin: {
        std::vector<ExprPtr> kids;
        for (const auto& k : e->kids) kids.push_back(direct(k, c));
        return CoreExpr::begin(std::move(kids), e->pos);
      }
      case CoreKind::Let: {
        Context inner = c;
        std::vector<Binding> bs;
        for (const auto& [n, init] : e->bindings) {
          bs.emplace_back(fresh("x"), direct(init, c));
          inner.scope = bind(inner.scope, n, bs.back().first);
        }
        return CoreExpr::let(std::move(bs), direct(e->body, inner), e->pos);
      }
      case CoreKind::App: {
        const CoreExpr& f = *e->kids[0];
        const Scope* s = find(c.scope, f.name);
        std::vector<ExprPtr> kids{s ? ref(s->renamed, f.pos) : e->kids[0]};
        for (size_t k = 1; k < e->kids.size(); ++k) kids.push_back(direct(e->kids[k], c));
        return app(std::move(kids), e->pos);
      }
      case CoreKind::Lambda:
      case CoreKind::Letrec:
        break;
    }
    throw DmciError(ErrorKind::Graph, "control conversion: a direct-style procedure holds a lambda", e->pos);
  }

  // --- expressions ---

  ExprPtr convert(const ExprPtr& e, const Cont& k, const Context& c) {
    switch (e->kind) {
      case CoreKind::Const:
      case CoreKind::Ref:
      case CoreKind::Lambda:
        return pass(k, atom(e, c), e->pos);
      case CoreKind::If:
        return toAtom(e->kids[0], c, [=, this](ExprPtr test) {
          return named(k, e->pos, [&](const Cont& j) {
            return CoreExpr::if_(test, convert(e->kids[1], j, c), convert(e->kids[2], j, c), e->pos);
          });
        });
      case CoreKind::Begin:
        return sequence(e, 0, k, c);
      case CoreKind::Let:
        return let(e, k, c);
      case CoreKind::Letrec:
        return letrec(e, k, c);
      case CoreKind::App:
        return application(e, k, c);
    }
    return e;
  }

  // Converts e and goes on with the atom holding its value.
  ExprPtr toAtom(const ExprPtr& e, const Context& c, std::function<ExprPtr(ExprPtr)> then) {
    if (isAtom(*e)) return then(atom(e, c));
    return convert(e, Cont{"", std::move(then)}, c);
  }

  // Converts es[i..] left to right and goes on with all their atoms.
  ExprPtr atoms(const std::vector<ExprPtr>& es, size_t i, std::vector<ExprPtr> done, const Context& c,
                const std::function<ExprPtr(std::vector<ExprPtr>)>& then) {
    if (i == es.size()) return then(std::move(done));
    return toAtom(es[i], c, [=, this](ExprPtr a) mutable {
      done.push_back(a);
      return atoms(es, i + 1, std::move(done), c, then);
    });
  }

  ExprPtr sequence(const ExprPtr& e, size_t i, const Cont& k, const Context& c) {
    if (i + 1 == e->kids.size()) return convert(e->kids[i], k, c);
    return toAtom(e->kids[i], c, [=, this](ExprPtr a) {
      ExprPtr rest = sequence(e, i + 1, k, c);
      // A reference may still fail (unbound, used before its definition): keep it.
      if (a->kind == CoreKind::Const || a->kind == CoreKind::Lambda) return rest;
      return CoreExpr::begin({a, rest}, e->pos);
    });
  }

  ExprPtr let(const ExprPtr& e, const Cont& k, const Context& c) {
    std::vector<ExprPtr> inits;
    for (const auto& b : e->bindings) inits.push_back(b.second);
    return atoms(inits, 0, {}, c, [=, this](std::vector<ExprPtr> vs) {
      Context inner = c;
      std::vector<Binding> bs;
      for (size_t i = 0; i < vs.size(); ++i) {
        bs.emplace_back(fresh("x"), vs[i]);
        inner.scope = bind(inner.scope, e->bindings[i].first, bs.back().first);
      }
      return CoreExpr::let(std::move(bs), convert(e->body, k, inner), e->pos);
    });
  }

  // letrec*: the lambdas bound at once, every other variable bound when its initialiser has run, in order, or,
  // when a lambda of the group uses it, a box set then. A variable that an initialiser might read before its own
  // definition (`early`), lambda or not, is boxed and set in order, so that the read raises the unconverted
  // program's "used before its definition" error.
  ExprPtr letrec(const ExprPtr& e, const Cont& k, const Context& c) {
    const size_t n = e->bindings.size();
    std::set<std::string> captured;
    for (const auto& [name, init] : e->bindings)
      if (init->kind == CoreKind::Lambda)
        for (const auto& v : freeVars(*init)) captured.insert(v);
    const std::vector<bool> early = earlyVariables(*e);
    std::set<std::string> excluded;
    for (size_t i = 0; i < n; ++i)
      if (early[i]) excluded.insert(e->bindings[i].first);
    const std::set<std::string> direct = directProcedures(*e, c, excluded);
    Context inner = c;
    std::vector<std::string> renamed;
    std::vector<bool> plain;  // bound by a let once its initialiser has run
    for (size_t i = 0; i < n; ++i) {
      const auto& [name, init] = e->bindings[i];
      const bool lambda = init->kind == CoreKind::Lambda;
      bool boxed = early[i] || (!lambda && captured.count(name));
      plain.push_back(!lambda && !boxed);
      renamed.push_back(fresh(boxed ? "b" : "f"));
      if (!plain.back()) inner.scope = bind(inner.scope, name, renamed.back(), boxed, direct.count(name) > 0);
    }
    std::vector<Binding> boxes, lambdas;
    std::vector<size_t> later;  // bindings set in order
    for (size_t i = 0; i < n; ++i) {
      const auto& [name, init] = e->bindings[i];
      if (direct.count(name)) {
        lambdas.emplace_back(renamed[i], directLambda(*init, inner, init->name.empty() ? name : init->name));
      } else if (init->kind == CoreKind::Lambda && !early[i]) {
        lambdas.emplace_back(renamed[i], lambda(*init, inner, init->name.empty() ? name : init->name));
      } else {
        if (!plain[i]) boxes.emplace_back(renamed[i], app({ref("%box-new", e->pos)}, e->pos));
        later.push_back(i);
      }
    }
    ExprPtr body = initialise(e, std::make_shared<const Sequence>(Sequence{later, renamed, plain}), 0, k, inner);
    if (!lambdas.empty()) body = CoreExpr::letrec(std::move(lambdas), body, e->pos);
    if (!boxes.empty()) body = CoreExpr::let(std::move(boxes), body, e->pos);
    return body;
  }

  // For each binding of a letrec* group, whether some initialiser that runs no later than its own (a lambda's
  // runs nothing) might read it: it mentions it, or a variable of the group whose value might call or hold code
  // that does (what each initialiser mentions, followed through the group).
  static std::vector<bool> earlyVariables(const CoreExpr& group) {
    const size_t n = group.bindings.size();
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < n; ++i) index[group.bindings[i].first] = i;
    std::vector<std::vector<size_t>> mentions(n);
    for (size_t i = 0; i < n; ++i)
      for (const auto& v : freeVars(*group.bindings[i].second))
        if (auto it = index.find(v); it != index.end()) mentions[i].push_back(it->second);
    // The initialisers in order: a variable first reached from initialiser i is reached from none before it, and
    // what it reaches was reached no later, so each variable is visited once.
    std::vector<bool> early(n, false), seen(n, false);
    for (size_t i = 0; i < n; ++i) {
      if (group.bindings[i].second->kind == CoreKind::Lambda) continue;
      std::vector<size_t> todo = mentions[i];
      while (!todo.empty()) {
        size_t j = todo.back();
        todo.pop_back();
        if (seen[j]) continue;
        seen[j] = true;
        early[j] = j >= i;
        for (size_t m : mentions[j]) todo.push_back(m);
      }
    }
    return early;
  }

  // What initialise needs of a group, shared (not copied) by the meta-continuation of every initialiser: a copy
  // per initialiser made a long group's conversion quadratic in time and memory.
  struct Sequence {
    std::vector<size_t> later;
    std::vector<std::string> renamed;
    std::vector<bool> plain;
  };

  ExprPtr initialise(const ExprPtr& e, const std::shared_ptr<const Sequence>& g, size_t i, const Cont& k,
                     const Context& c) {
    if (i == g->later.size()) return convert(e->body, k, c);
    size_t b = g->later[i];
    const auto& [name, init] = e->bindings[b];
    const std::string& renamed = g->renamed[b];
    if (init->kind == CoreKind::Lambda) {  // an early lambda: made in order, under its own name
      SrcPos p = init->pos;
      ExprPtr set =
          app({ref("%box-set!", p), ref(renamed, p), lambda(*init, c, init->name.empty() ? name : init->name)}, p);
      return CoreExpr::begin({set, initialise(e, g, i + 1, k, c)}, p);
    }
    return toAtom(init, c, [=, this](ExprPtr v) {
      SrcPos p = e->bindings[b].second->pos;
      const std::string& renamed = g->renamed[b];
      if (g->plain[b]) {
        Context then = c;
        then.scope = bind(c.scope, e->bindings[b].first, renamed);
        return CoreExpr::let({{renamed, v}}, initialise(e, g, i + 1, k, then), p);
      }
      ExprPtr set = app({ref("%box-set!", p), ref(renamed, p), v}, p);
      return CoreExpr::begin({set, initialise(e, g, i + 1, k, c)}, p);
    });
  }

  ExprPtr application(const ExprPtr& e, const Cont& k, const Context& c) {
    const CoreExpr& f = *e->kids[0];
    SrcPos p = e->pos;
    if (isControl(f, c, "%reset")) return reset(*e->kids[1], k, c, p);
    if (isControl(f, c, "%shift")) return shift(*e->kids[1], k, c, p);
    std::vector<ExprPtr> args(e->kids.begin() + 1, e->kids.end());
    int id = freePrimitive(f, c);
    const Scope* callee = f.kind == CoreKind::Ref ? find(c.scope, f.name) : nullptr;
    if (callee && callee->direct) id = -2;  // called like a primitive, by its converted name
    if (id == -2 || (id >= 0 && std::string(prim(id).name) != "apply")) {
      ExprPtr op = id == -2 ? ref(callee->renamed, f.pos) : e->kids[0];
      return atoms(args, 0, {}, c, [=, this](std::vector<ExprPtr> as) {
        as.insert(as.begin(), op);
        ExprPtr call = app(std::move(as), p);
        if (!k.var.empty()) return app({ref(k.var, p), call}, p);
        std::string t = fresh("t");
        return CoreExpr::let({{t, call}}, k.meta(ref(t, p)), p);
      });
    }
    if (id >= 0) {  // (apply f a ... lst) -> (%apply f k d a ... lst)
      return atoms(args, 0, {}, c, [=, this](std::vector<ExprPtr> as) {
        std::vector<ExprPtr> call{ref("%apply", p), as.at(0), reify(k, p), delimitedFlag(c, p)};
        call.insert(call.end(), as.begin() + 1, as.end());
        return app(std::move(call), p);
      });
    }
    return atoms(e->kids, 0, {}, c, [=, this](std::vector<ExprPtr> as) {
      std::vector<ExprPtr> call{as[0], reify(k, p), delimitedFlag(c, p)};
      call.insert(call.end(), as.begin() + 1, as.end());
      return app(std::move(call), p);
    });
  }

  // (%reset (lambda () body)): the body with the identity continuation, its value passed on.
  ExprPtr reset(const CoreExpr& thunk, const Cont& k, const Context& c, SrcPos p) {
    Context inner{c.scope, true, c.delimited};
    ExprPtr body = convert(thunk.body, Cont{"", [](ExprPtr a) { return a; }}, inner);
    std::string t = fresh("t");
    return CoreExpr::let({{t, body}}, pass(k, ref(t, p), p), p);
  }

  // (%shift (lambda (name) body)): name is k as a procedure of one argument; the body runs under the reset.
  ExprPtr shift(const CoreExpr& f, const Cont& k, const Context& c, SrcPos p) {
    ExprPtr captured = named(k, p, [&](const Cont& j) {
      std::string name = fresh("x");
      Context inner{bind(c.scope, f.params[0], name), true, c.delimited};
      ExprPtr body = convert(f.body, Cont{"", [](ExprPtr a) { return a; }}, inner);
      return CoreExpr::let({{name, continuation(j.var, f.params[0], p)}}, body, p);
    });
    if (c.inReset) return captured;
    ExprPtr outside = app({ref("%error", p), text("shift: outside any reset", p)}, p);
    return CoreExpr::if_(delimitedFlag(c, p), captured, outside, p);
  }

  // The captured continuation j as a procedure of the converted convention, taking exactly one argument.
  ExprPtr continuation(const std::string& j, const std::string& name, SrcPos at) {
    // Its code is the library's: an error in it is reported at the user's call.
    SrcPos p{internFile("<prelude:continuation>"), at.line, at.col};
    std::string k = fresh("k"), d = fresh("d"), vs = fresh("a");
    ExprPtr one = app({ref("%null?", p), app({ref("%cdr", p), ref(vs, p)}, p)}, p);
    ExprPtr resume = app({ref(k, p), app({ref(j, p), app({ref("%car", p), ref(vs, p)}, p)}, p)}, p);
    ExprPtr wrong = app({ref("%error", p), text(name + ": a continuation expects 1 argument, got", p),
                         app({ref("%length", p), ref(vs, p)}, p)},
                        p);
    ExprPtr body =
        CoreExpr::if_(app({ref("%pair?", p), ref(vs, p)}, p), CoreExpr::if_(one, resume, wrong, p), wrong, p);
    return CoreExpr::lambda({k, d, vs}, true, body, p, name, kHidden);
  }
};

}  // namespace

bool usesControl(const CoreExpr& program) {
  for (const auto& n : freeVars(program))
    if (n == "%reset" || n == "%shift") return true;
  return false;
}

ExprPtr convertControl(const ExprPtr& program, const std::vector<std::string>& params) {
  if (!usesControl(*program)) return program;
  // The conversion recurses as deep as the program nests (a let* of 100,000 bindings): on a stack of its own.
  ExprPtr out;
  runWithBigStack([&] { out = Converter(params).program(program); });
  return out;
}

}  // namespace dmci
