// Builds the lantern routes' program: lantern.scm around the user's, its primitives rebound, its numbers duals.
#include "lantern/Lantern.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "expand/Expand.h"
#include "lower/Control.h"
#include "lower/FreeVars.h"
#include "lower/LinkPrelude.h"
#include "prims/PrimTable.h"
#include "prims/TextRules.h"
#include "support/BigStack.h"
#include "syntax/Reader.h"

namespace dmci {
namespace {

#include "lantern_scm.inc"  // kLanternSource: the text of dmci/lantern/lantern.scm

// Primitives the library gives a procedure of its own: name -> the library's.
const std::map<std::string, std::string>& rebound() {
  static const std::map<std::string, std::string> table = {
      {"+", "%l-+"},
      {"-", "%l--"},
      {"*", "%l-*"},
      {"/", "%l-/"},
      {"min", "%l-min"},
      {"max", "%l-max"},
      {"abs", "%l-abs"},
      {"square", "%l-square"},
      {"exp", "%l-exp"},
      {"log", "%l-log"},
      {"sqrt", "%l-sqrt"},
      {"expt", "%l-expt"},
      {"sin", "%l-sin"},
      {"cos", "%l-cos"},
      {"tan", "%l-tan"},
      {"asin", "%l-asin"},
      {"acos", "%l-acos"},
      {"atan", "%l-atan"},
      {"tanh", "%l-tanh"},
      {"sigmoid", "%l-sigmoid"},
      {"softplus", "%l-softplus"},
      {"normal-cdf", "%l-normal-cdf"},
      {"number?", "%l-number?"},
      {"exact?", "%l-exact?"},
      {"%exact-mark", "%l-exact-mark"},
      {"%inexact-mark", "%l-inexact-mark"},
      {"%exact-integer-sqrt-list", "%l-exact-integer-sqrt-list"},
      {"inexact?", "%l-inexact?"},
      {"exact-integer?", "%l-exact-integer?"},
      {"pair?", "%l-pair?"},
      {"eqv?", "%l-eqv?"},
      {"eq?", "%l-eq?"},
      {"equal?", "%l-equal?"},
      {"list-ref", "%l-list-ref"},
      {"list-tail", "%l-list-tail"},
      {"vector-ref", "%l-vector-ref"},
      {"vector->list", "%l-vector->list"},
      {"vector-copy", "%l-vector-copy"},
      {"vector-fill", "%l-vector-fill"},
      {"vector-set!", "%l-vector-set!"},
      {"vector-fill!", "%l-vector-fill!"},
      {"vector-copy!", "%l-vector-copy!"},
      {"string->vector", "%l-string->vector"},
      {"vector->string", "%l-vector->string"},
      {"make-vector", "%l-make-vector"},
      {"memv", "%l-memv"},
      {"memq", "%l-memq"},
      {"assv", "%l-assv"},
      {"assq", "%l-assq"},
      {"member", "%l-member"},
      {"assoc", "%l-assoc"},
      {"vec", "%l-vec"},
      {"mat", "%l-mat"},
      {"ref", "%l-ref"},
      {"dot", "%l-dot"},
      {"matvec", "%l-matvec"},
      {"matmul", "%l-matmul"},
      {"transpose", "%l-transpose"},
      {"outer", "%l-outer"},
      {"trace", "%l-trace"},
      {"norm", "%l-norm"},
      {"vsum", "%l-vsum"},
      {"scale", "%l-scale"},
      {"det", "%l-det"},
      {"logdet", "%l-logdet"},
      {"inv", "%l-inv"},
      {"solve", "%l-solve"},
      {"cholesky", "%l-cholesky"},
  };
  return table;
}

// Primitives that only look at numbers: applied to the duals' numbers, with no adjoint (the engines' rule too:
// comparisons, integer rounding, the sizes of zeros, ones and eye, and shape have none).
const std::vector<std::string>& onPrimals() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {"=",         "<",      ">",     "<=",    ">=",      "zero?", "positive?", "negative?",
                                  "integer?",  "even?",  "odd?",  "floor", "ceiling", "round", "truncate",  "quotient",
                                  "remainder", "modulo", "zeros", "ones",  "eye",     "shape"};
    // The text primitives that read a number (an index, a count, a code point, a radix) read its primal: what
    // they return carries no gradient.
    for (const text::Row& r : text::rows())
      if (r.readsNumbers) n.push_back(r.name);
    return n;
  }();
  return names;
}

// The library's definitions, expanded once.
const std::vector<Binding>& library() {
  static std::once_flag once;
  static std::vector<Binding> defs;
  std::call_once(once, [] {
    auto forms = readAll(kLanternSource, "<prelude:lantern>");
    if (!forms) throw DmciError(forms.error());
    forms->push_back(Datum::boolean_(true));
    auto core = expandProgram(*forms, ExpandOptions{true, "<prelude:lantern>"});
    if (!core) throw DmciError(core.error());
    if ((*core)->kind != CoreKind::Letrec) throw DmciError(ErrorKind::Form, "lantern.scm must be definitions");
    defs = (*core)->bindings;
  });
  return defs;
}

// The library's definitions that `e` needs, directly or through each other, in the library's order.
std::vector<Binding> libraryFor(const CoreExpr& e) {
  const std::vector<Binding>& all = library();
  std::map<std::string, size_t> index;
  for (size_t k = 0; k < all.size(); ++k) index[all[k].first] = k;
  std::vector<bool> needed(all.size(), false);
  std::vector<std::string> work = freeVars(e);
  while (!work.empty()) {
    auto it = index.find(work.back());
    work.pop_back();
    if (it == index.end() || needed[it->second]) continue;
    needed[it->second] = true;
    for (const auto& n : freeVars(*all[it->second].second)) work.push_back(n);
  }
  std::vector<Binding> out;
  for (size_t k = 0; k < all.size(); ++k)
    if (needed[k]) out.push_back(all[k]);
  return out;
}

ExprPtr ref(const std::string& n, SrcPos p) { return CoreExpr::ref(n, p); }
ExprPtr app(std::vector<ExprPtr> fa, SrcPos p) { return CoreExpr::app(std::move(fa), p); }

ExprPtr number(double x, SrcPos p) { return CoreExpr::constant(Datum::num(x, p), p); }

// (%l-leaf i x): leaf i, made once for the whole run.
ExprPtr leaf(size_t i, ExprPtr x, SrcPos p) {
  return app({ref("%l-leaf", p), number(static_cast<double>(i), p), std::move(x)}, p);
}

// Replaces every number in the user's constants by a reference to its leaf (leaves `first` on).
class Literals {
 public:
  explicit Literals(size_t first) : first_(first) {}
  // The literals' numbers in order; the program reads literal k as (%vector-ref %l-literals k), one vector of their
  // leaves made once (%l-literal-vector), so that a closure carries one name for all of them, not one per literal:
  // a program's cost grows with its length plus its literals, not their product.
  std::vector<DatumPtr> values;
  std::vector<SrcPos> positions;
  static constexpr const char* kVectorName = "%l-literals";

  ExprPtr rewrite(const ExprPtr& e) {
    switch (e->kind) {
      case CoreKind::Const:
        return hasNumber(*e->datum) ? build(e->datum, e->pos) : e;
      case CoreKind::Ref:
        return e;
      case CoreKind::If:
        return CoreExpr::if_(rewrite(e->kids[0]), rewrite(e->kids[1]), rewrite(e->kids[2]), e->pos);
      case CoreKind::Lambda:
        return CoreExpr::lambda(e->params, e->variadic, rewrite(e->body), e->pos, e->name);
      case CoreKind::App:
      case CoreKind::Begin: {
        std::vector<ExprPtr> kids;
        for (const auto& k : e->kids) kids.push_back(rewrite(k));
        return e->kind == CoreKind::App ? app(std::move(kids), e->pos) : CoreExpr::begin(std::move(kids), e->pos);
      }
      case CoreKind::Let:
      case CoreKind::Letrec: {
        std::vector<Binding> bs;
        for (const auto& [n, init] : e->bindings) bs.emplace_back(n, rewrite(init));
        return e->kind == CoreKind::Let ? CoreExpr::let(std::move(bs), rewrite(e->body), e->pos)
                                        : CoreExpr::letrec(std::move(bs), rewrite(e->body), e->pos);
      }
    }
    return e;
  }

 private:
  size_t first_;

  static bool hasNumber(const Datum& d) {
    if (d.kind == DatumKind::Number) return true;
    if (d.kind != DatumKind::List && d.kind != DatumKind::Vector) return false;
    for (const auto& k : d.items)
      if (hasNumber(*k)) return true;
    return d.tail && hasNumber(*d.tail);
  }
  // The datum rebuilt with each number its leaf (elements left to right, as the engines number literals).
  ExprPtr build(const DatumPtr& d, SrcPos p) {
    if (d->kind == DatumKind::Number) {
      const size_t k = values.size();
      values.push_back(d);
      positions.push_back(d->pos);
      // A primitive's call, so that a control conversion (call/cc, guard) leaves it as it is.
      return app({ref("%vector-ref", d->pos), ref(kVectorName, d->pos), number(static_cast<double>(k), d->pos)},
                 d->pos);
    }
    if (!hasNumber(*d)) return CoreExpr::constant(d, p);
    std::vector<ExprPtr> items;
    for (const auto& k : d->items) items.push_back(build(k, k->pos));
    if (d->kind == DatumKind::Vector) {  // a vector literal holding numbers: (%literal-vector leaf ...)
      items.insert(items.begin(), ref("%literal-vector", p));
      return app(std::move(items), p);
    }
    ExprPtr tail = d->tail ? build(d->tail, d->tail->pos) : CoreExpr::constant(Datum::nil(p), p);
    for (size_t k = items.size(); k-- > 0;) tail = app({ref("%cons", p), items[k], tail}, p);
    return tail;
  }
};

LanternProgram lanternProgramOnThisStack(const ExprPtr& user, const std::vector<std::string>& params);

// The lantern routes' deepest program. Their preparation (the conversions' free-variable sets) grows with the
// square of a program's depth, its memory linearly since the literals travel as one vector (Literals): a let* of
// 500 bindings takes 0.3 s and 32 MB, of 1,000 1.6 s and 53 MB. Deeper than this is refused at once, with the
// reason.
constexpr size_t kMaxLanternDepth = 2000;

// A letrec*'s bindings (a body's definitions) are flat in the text, but the conversions nest each one inside the
// ones before it: binding k counts this many levels per binding before it (measured: 1,000 definitions convert to
// just under the lowering's 10,000 levels).
constexpr size_t kLevelsPerDefinition = 2;

// The first node deeper than kMaxLanternDepth, or null: an explicit stack, no recursion.
const CoreExpr* tooDeep(const CoreExpr& root) {
  std::vector<std::pair<const CoreExpr*, size_t>> work{{&root, 1}};
  while (!work.empty()) {
    auto [e, depth] = work.back();
    work.pop_back();
    if (depth > kMaxLanternDepth) return e;
    for (const auto& k : e->kids)
      if (k) work.emplace_back(k.get(), depth + 1);
    const size_t step = e->kind == CoreKind::Letrec ? kLevelsPerDefinition : 0;
    for (size_t k = 0; k < e->bindings.size(); ++k)
      if (e->bindings[k].second) work.emplace_back(e->bindings[k].second.get(), depth + 1 + k * step);
    if (e->body) work.emplace_back(e->body.get(), depth + 1 + e->bindings.size() * step);
  }
  return nullptr;
}

}  // namespace

// Every pass here recurses on the program's depth (the literals, the prelude's link, the control test, the free
// names), so the whole build runs on a big stack, as the lowering does: a 50,000-deep let* overflowed the thread's.
LanternProgram lanternProgram(const ExprPtr& user, const std::vector<std::string>& params) {
  if (const CoreExpr* deep = tooDeep(*user))
    throw DmciError(ErrorKind::Form,
                    "program nested too deeply for the lantern routes (more than " + std::to_string(kMaxLanternDepth) +
                        " levels, a body's definition counting " + std::to_string(kLevelsPerDefinition) +
                        " for each after it: their preparation grows with the square of the depth; the direct "
                        "route takes it)",
                    deep->pos);
  LanternProgram out;
  runWithBigStack([&] { out = lanternProgramOnThisStack(user, params); });
  return out;
}

namespace {

LanternProgram lanternProgramOnThisStack(const ExprPtr& user, const std::vector<std::string>& params) {
  SrcPos p = user->pos;
  Literals lits(params.size());
  ExprPtr program = lits.rewrite(user);
  // A program that uses shift and reset itself is converted first, with the library procedures it uses, so that
  // its own control is ordinary code by the time the whole is converted for lantern.scm's: a CPS hierarchy
  // (Danvy and Filinski) in which the user's shift reaches the user's nearest reset, and lantern.scm's shifts,
  // under any number of the user's resets, reach lantern.scm's reset. The primitives the converted program calls
  // are rebound below like any program's; its procedures hide both conversions' parameters (CoreExpr::hidden).
  // A library procedure may be what uses them (call/cc), so the test is on the program linked with its library.
  // The program goes on linked: the library procedures' own primitives (gcd's %abs, real?'s %number?, make-list's
  // %<=) are then rebound below like the program's, so the library runs on duals as on every other route's numbers.
  {
    std::vector<std::string> free = params;
    if (!lits.values.empty()) free.push_back(Literals::kVectorName);
    program = linkPrelude(program, free);
    if (usesControl(*program)) program = convertControl(program, free);
  }
  // The primitives the program names, under the name it uses (derived forms use the %-name: case's %eqv?).
  const std::vector<std::string> names = freeVars(*program);
  std::set<std::string> used(names.begin(), names.end());
  std::vector<Binding> prims;
  auto rebind = [&](const std::string& name, const std::function<ExprPtr()>& mine) {
    for (const std::string& n : {name, "%" + name})
      if (used.count(n) && std::find(params.begin(), params.end(), n) == params.end()) prims.emplace_back(n, mine());
  };
  for (const auto& [name, mine] : rebound()) rebind(name, [&, m = mine] { return ref(m, p); });
  for (const auto& name : onPrimals())
    rebind(name, [&] { return app({ref("%l-on-primals", p), ref("%" + name, p)}, p); });
  for (const auto& name : lanternNotCovered())
    rebind(name, [&] { return app({ref("%l-not-covered", p), CoreExpr::constant(Datum::symbol(name, p), p)}, p); });
  ExprPtr thunk =
      CoreExpr::lambda({}, false, prims.empty() ? program : CoreExpr::let(std::move(prims), program, p), p, "program");
  // The seed's parameters and the literals as duals: the leaves, parameters first.
  std::vector<Binding> leaves;
  for (size_t i = 0; i < params.size(); ++i) leaves.emplace_back(params[i], leaf(i, ref(params[i], p), p));
  if (!lits.values.empty())
    leaves.emplace_back(Literals::kVectorName,
                        app({ref("%l-literal-vector", p), number(static_cast<double>(params.size()), p),
                             CoreExpr::constant(Datum::vector(lits.values, p), p)},
                            p));
  ExprPtr n = number(static_cast<double>(params.size() + lits.values.size()), p);
  ExprPtr run = app({ref("%l-finish", p), app({ref("%l-run", p), thunk, n}, p), n}, p);
  ExprPtr body = leaves.empty() ? run : CoreExpr::let(std::move(leaves), run, p);
  return {CoreExpr::letrec(libraryFor(*body), body, p), std::move(lits.positions)};
}

}  // namespace

std::vector<std::string> lanternCovered() {
  std::vector<std::string> out;
  for (const auto& [name, mine] : rebound()) out.push_back(name);
  out.insert(out.end(), onPrimals().begin(), onPrimals().end());
  return out;
}

std::vector<std::string> lanternUncoveredIn(const CoreExpr& user) {
  std::vector<std::string> out;
  const std::vector<std::string> names = freeVars(user);
  for (const auto& n : lanternNotCovered())
    if (std::find(names.begin(), names.end(), n) != names.end()) out.push_back(n);
  return out;
}

std::vector<std::string> lanternNotCovered() {
  const std::vector<std::string> covered = lanternCovered();
  std::vector<std::string> out;
  for (const Primitive& q : primitives())
    if (q.family == PrimFamily::Tensor && std::find(covered.begin(), covered.end(), q.name) == covered.end())
      out.push_back(q.name);
  return out;
}

}  // namespace dmci
