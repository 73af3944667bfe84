// Smooth interpretation (--smooth-mode si) as a source-to-source transform of the expanded program (smooth/Smooth.h).
//
// First a dependence analysis finds which expressions may depend on a fitted parameter: a flow-insensitive fixpoint
// over the variables' bindings. A call of a known procedure (a lambda bound by let/letrec, or written in place)
// passes its arguments' dependence to its parameters; a lambda handed to another procedure (map, fold, apply) takes
// the dependence of that call's other arguments; a lambda that escapes any other way takes it from the whole
// program. A primitive's result depends on what its arguments do.
//
// Then the rewrite. A comparison (< <= > >= with two arguments, positive? and negative?: the primitives themselves)
// with a dependent operand, in
// a tested position (an `if` test, and through `and`, `or`, `not` and nested tests), becomes the probability of being
// true under the smoothing, p = Phi(d/s), with d the signed distance to the boundary: d = b - a for (< a b). `and`,
// `or` and `not` combine them as independent events. An `if` on such a p runs the arm with probability p, the other
// with 1 - p, and blends two numbers as p t + (1 - p) e, two lists of one shape element by element; other values
// (procedures, lists of two shapes, different symbols) take the likelier arm. Comparisons on data alone are left as
// they are.
//
// Paths. Every expression runs in a path state: the path's weight w (the product of its arms' probabilities) and its
// budget b of paths (0: no limit), two variables bound at the top and passed, as two hidden leading parameters, to
// each procedure the program binds and only ever calls by name (one passed as a value runs in the state where it was
// made). A fork gives each arm its weight and a share of the budget by its probability (at least one path each); an
// arm whose weight is below the minimum weight is not run (so recursion on a smoothed test ends), nor the unlikelier
// arm of a single path. Where the arms' values join at the `if`, the paths after it are one again; a fork in a
// recursion's tail (the arms run the rest of the program) starts paths that run to the end, at most the budget. An
// `if` whose arms cannot fork again (leafIf) joins at once and leaves the budget alone.
//
// The branches in disguise, wherever they appear, with an operand that depends on a parameter: (max a b) is the
// Gaussian smoothing of a + max(0, d), d = b - a, at d's width w: a + d Phi(d/w) + w phi(d/w), whose derivative is
// the arms' gradients weighed by Phi(d/w) (the branch form p b + (1 - p) a plus the w phi term that the arms' own
// movement with d adds); min and abs likewise, more arguments pairwise from the left. floor, ceiling, round and
// truncate are steps: E floor(x + w u) = sum over the integers j of Phi((x - j)/w) - [j <= 0], summed over the
// integers within 9 widths of x (a procedure the transform adds). (atan y x) is continuous but for its 2 pi step on
// the cut (y = 0, x < 0), smoothed as one. Each operand is evaluated once; on data alone they stay crisp.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "prims/PrimTable.h"
#include "smooth/Smooth.h"
#include "support/BigStack.h"

namespace dmci::smooth {
namespace {

const char* kBlend = "%smooth-blend";
const char* kProb = "%smooth-p";
const char* kFloor = "%smooth-floor";
// The path state each expression runs in (threaded through calls, see blendIf): the path's weight and its budget of
// paths (0: no limit), and the helpers that decide a fork.
const char* kWeight = "%smooth-w";
const char* kBudget = "%smooth-b";
const char* kRuns = "%smooth-runs";
const char* kShare = "%smooth-share";
const char* kJoin = "%smooth-join";
const char* kSameShape = "%smooth-same-shape";
const char* kMix = "%smooth-mix";

bool isComparison(const std::string& n) { return n == "<" || n == "<=" || n == ">" || n == ">="; }

// The library procedures that call a procedure argument with values made from their other arguments.
bool callsItsArguments(const std::string& n) {
  for (const char* h : {"map", "for-each", "filter", "fold-left", "fold-right", "reduce", "apply", "assoc", "member"})
    if (n == h) return true;
  return false;
}

// The primitives whose answer depends on a value's shape or type alone, not on the numbers it holds.
bool answersForTheShape(const std::string& n) {
  for (const char* h : {"length", "vector-length", "string-length", "null?", "pair?", "list?", "vector?", "string?",
                        "symbol?", "procedure?", "boolean?", "char?"})
    if (n == h) return true;
  return false;
}

class Analysis {
 public:
  explicit Analysis(const std::vector<std::string>& params) : params_(params.begin(), params.end()) {}

  void run(const ExprPtr& root) {
    do {
      changed_ = false;
      env_.clear();
      visit(*root, Ctx::Other);
    } while (changed_);
  }

  // Whether `e` may depend on a parameter, in the scope `env` (names to variable ids, innermost last): valid after
  // run(), for the rewrite's walk.
  bool dependent(const CoreExpr& e) const {
    auto it = exprDep_.find(&e);
    return it != exprDep_.end() && it->second;
  }
  // The variable a reference names at that reference (-1: free).
  int varOf(const CoreExpr& ref) const {
    auto it = refVar_.find(&ref);
    return it == refVar_.end() ? -1 : it->second;
  }
  // The variable of a let's or letrec's i-th binding.
  int bindingVar(const CoreExpr& let, size_t i) const { return bindVars_.at(&let).at(i); }
  // Whether a variable is ever referred to other than as the procedure of a call (passed, stored, returned).
  bool escapes(int var) const { return escaped_.count(var) > 0; }
  // The lambda a variable is bound to where it is written in place (null: none), and a lambda's parameters' variables.
  const CoreExpr* lambdaOf(int var) const {
    auto it = lambdaOf_.find(var);
    return it == lambdaOf_.end() ? nullptr : it->second;
  }
  const std::vector<int>* paramVars(const CoreExpr* lambda) const {
    auto it = lambdaVars_.find(lambda);
    return it == lambdaVars_.end() ? nullptr : &it->second;
  }

 private:
  // Applied: a named let's procedure at its first call (namedLetLambda), which escapes but taints nothing.
  enum class Ctx { Operator, Argument, Applied, Other };
  std::set<std::string> params_;
  std::vector<std::pair<std::string, int>> env_;
  std::vector<bool> var_;                                   // a variable's value may depend on a parameter
  std::map<const CoreExpr*, std::vector<int>> lambdaVars_;  // a lambda's parameters' variables
  std::map<const CoreExpr*, bool> ret_;                     // a lambda's result may depend on one
  std::map<const CoreExpr*, std::vector<int>> bindVars_;    // a let's or letrec's variables
  std::map<int, const CoreExpr*> lambdaOf_;                 // a variable bound to a lambda written in place
  std::map<const CoreExpr*, bool> exprDep_;
  std::map<const CoreExpr*, int> refVar_;
  std::set<int> escaped_;
  bool any_ = false;  // anything at all depends on a parameter
  bool changed_ = false;

  void set(std::vector<bool>::reference b, bool v) {
    if (v && !b) b = true, changed_ = true;
  }
  int newVar() {
    var_.push_back(false);
    return static_cast<int>(var_.size()) - 1;
  }
  const std::vector<int>& varsFor(std::map<const CoreExpr*, std::vector<int>>& m, const CoreExpr* e, size_t n) {
    auto& v = m[e];
    while (v.size() < n) v.push_back(newVar());
    return v;
  }
  int lookup(const std::string& n) const {
    for (size_t i = env_.size(); i-- > 0;)
      if (env_[i].first == n) return env_[i].second;
    return -1;
  }
  // The lambda `e` stands for, when it is one written in place or a variable bound to one.
  const CoreExpr* lambdaAt(const CoreExpr& e) const {
    if (e.kind == CoreKind::Lambda) return &e;
    if (e.kind == CoreKind::Ref) {
      int v = lookup(e.name);
      auto it = v < 0 ? lambdaOf_.end() : lambdaOf_.find(v);
      if (it != lambdaOf_.end()) return it->second;
    }
    return nullptr;
  }
  // Passes `dep` to every parameter of the lambda `l`.
  void taintParams(const CoreExpr* l, bool dep) {
    for (int v : varsFor(lambdaVars_, l, l->params.size())) set(var_[static_cast<size_t>(v)], dep);
  }
  void callKnown(const CoreExpr* l, const std::vector<bool>& args) {
    const auto& vars = varsFor(lambdaVars_, l, l->params.size());
    const size_t fixed = l->variadic ? vars.size() - 1 : vars.size();
    for (size_t i = 0; i < args.size(); ++i) {
      if (i < fixed)
        set(var_[static_cast<size_t>(vars[i])], args[i]);
      else if (l->variadic)
        set(var_[static_cast<size_t>(vars.back())], args[i]);
    }
  }

  bool visit(const CoreExpr& e, Ctx ctx) {
    bool d = visitInner(e, ctx);
    if (d && !any_) any_ = true, changed_ = true;  // lambdas that escaped earlier in this pass take it next pass
    auto& slot = exprDep_[&e];
    slot = slot || d;
    return d;
  }

  bool visitInner(const CoreExpr& e, Ctx ctx) {
    switch (e.kind) {
      case CoreKind::Const:
        return false;
      case CoreKind::Ref: {
        int v = lookup(e.name);
        refVar_[&e] = v;
        if (v < 0) return params_.count(e.name) > 0;
        if (ctx != Ctx::Operator) escaped_.insert(v);
        if (ctx == Ctx::Other)
          if (const CoreExpr* l = lambdaAt(e)) taintParams(l, any_);  // escapes: called from anywhere
        return var_[static_cast<size_t>(v)];
      }
      case CoreKind::If: {
        bool c = visit(*e.kids[0], Ctx::Other);
        bool t = visit(*e.kids[1], Ctx::Other);
        bool f = visit(*e.kids[2], Ctx::Other);
        return c || t || f;
      }
      case CoreKind::Lambda: {
        const auto& vars = varsFor(lambdaVars_, &e, e.params.size());
        if (ctx == Ctx::Other) taintParams(&e, any_);
        size_t mark = env_.size();
        for (size_t i = 0; i < e.params.size(); ++i) env_.emplace_back(e.params[i], vars[i]);
        bool r = visit(*e.body, Ctx::Other);
        env_.resize(mark);
        bool& slot = ret_[&e];
        if (r && !slot) slot = true, changed_ = true;
        return slot;
      }
      case CoreKind::App: {
        std::vector<bool> args;
        for (size_t i = 1; i < e.kids.size(); ++i) args.push_back(visit(*e.kids[i], Ctx::Argument));
        const CoreExpr* known = lambdaAt(*e.kids[0]);
        if (!known) known = namedLetLambda(*e.kids[0]);
        bool f = visit(*e.kids[0], Ctx::Operator);
        // A procedure handed to one that calls it (map, fold, apply, a user's procedure) is called with values
        // made from the other arguments; handed to any other primitive (list, cons) it escapes.
        const CoreExpr& op = *e.kids[0];
        const bool calls = known || (op.kind == CoreKind::Ref && lookup(op.name) < 0 && callsItsArguments(op.name));
        for (size_t i = 1; i < e.kids.size(); ++i)
          if (const CoreExpr* l = lambdaAt(*e.kids[i])) {
            bool others = f || (!calls && any_);
            for (size_t j = 0; j < args.size(); ++j) others = others || (j + 1 != i && args[j]);
            taintParams(l, others);
          }
        if (known) {
          callKnown(known, args);
          return ret_[known];
        }
        // A set! (expand/Assign.cpp) writes a box: the variable bound to the box holds whatever is written into it,
        // so its references (%box-ref reads it) depend on every write, flow-insensitively.
        if (op.kind == CoreKind::Ref && op.name == "%box-set!" && lookup(op.name) < 0 && e.kids.size() == 3 &&
            e.kids[1]->kind == CoreKind::Ref)
          if (int v = lookup(e.kids[1]->name); v >= 0) set(var_[static_cast<size_t>(v)], args[1]);
        // A list's, vector's or string's length and a type test answer for the shape, never for the numbers in it:
        // a smoothed `if` joins values of two shapes by its likelier arm, so a shape is always crisp. Before, the
        // length of a list holding a parameter counted as dependent, and a loop's (< (length rest) k) at the tie
        // was smoothed to probability 0.5 (a moving average lost its last window at any sigma).
        if (op.kind == CoreKind::Ref && lookup(op.name) < 0 && answersForTheShape(op.name)) return f;
        bool any = f;
        for (bool a : args) any = any || a;
        return any;
      }
      case CoreKind::Begin: {
        bool d = false;
        for (const auto& k : e.kids) d = visit(*k, Ctx::Other);  // the last one's value
        return d;
      }
      case CoreKind::Let:
      case CoreKind::Letrec: {
        const bool rec = e.kind == CoreKind::Letrec;
        const auto& vars = varsFor(bindVars_, &e, e.bindings.size());
        size_t mark = env_.size();
        if (rec)
          for (size_t i = 0; i < e.bindings.size(); ++i) env_.emplace_back(e.bindings[i].first, vars[i]);
        for (size_t i = 0; i < e.bindings.size(); ++i) {
          const CoreExpr& init = *e.bindings[i].second;
          if (init.kind == CoreKind::Lambda) lambdaOf_[vars[i]] = &init;
          bool d = visit(init, init.kind == CoreKind::Lambda ? Ctx::Operator : Ctx::Other);  // may add variables
          set(var_[static_cast<size_t>(vars[i])], d);
        }
        if (!rec)
          for (size_t i = 0; i < e.bindings.size(); ++i) env_.emplace_back(e.bindings[i].first, vars[i]);
        // The body of a named let's letrec (the procedure called at once, see namedLetLambda) is applied where it
        // stands: the call passes its arguments to the parameters, so the reference does not taint them.
        bool d = visit(*e.body, rec && ctx == Ctx::Operator && namedLetLambda(e) ? Ctx::Applied : Ctx::Other);
        env_.resize(mark);
        return d;
      }
    }
    return false;
  }

  // The lambda of a named let or a do loop, which the expander writes as ((letrec* ((loop (lambda ...))) loop) init
  // ...): a letrec whose body names one of its own bindings, a lambda written in place. The call passes each initial
  // value to its own parameter, as a call by name does. Before, the letrec's body counted as an escape, so every
  // parameter of the loop took the whole program's dependence, and a counter's test at its bound, (>= i 3) at i = 3,
  // was smoothed to probability 0.5: half an iteration more than the crisp loop. The reference still counts as an
  // escape for the rewrite (the procedure is not called by its name there, so it takes no path state).
  static const CoreExpr* namedLetLambda(const CoreExpr& e) {
    if (e.kind != CoreKind::Letrec || !e.body || e.body->kind != CoreKind::Ref) return nullptr;
    for (const auto& [name, init] : e.bindings)
      if (name == e.body->name) return init->kind == CoreKind::Lambda ? init.get() : nullptr;
    return nullptr;
  }
};

// --smooth-dea's slopes through variables: a variable whose every binding moves with a parameter at one constant
// rate (a let's value, or an argument at each call of a procedure only ever called by its name) has that rate as its
// derivative, so a comparison on it gets its width. A fixpoint over the bindings, optimistic: a variable no binding
// has spoken for yet does not constrain; one with two rates, or bound where the calls are unknown, has none. The
// rate of an `if` is its arms' when they agree (whichever arm runs). Numbers, parameters, + and -, and * and / by a
// number written in place.
class Slopes {
 public:
  Slopes(const Analysis& a, const std::vector<std::string>& params) : a_(a), params_(params) {}

  void run(const CoreExpr& root) {
    do {
      changed_ = false;
      walk(root);
    } while (changed_);
  }
  // The derivative of the variable `var` in the parameter params[k], when it is one constant.
  std::optional<double> of(int var, size_t k) const {
    auto it = slope_.find({var, k});
    if (it == slope_.end() || it->second.state != State::Const) return std::nullopt;
    return it->second.value;
  }

 private:
  enum class State { None, Const, Varying };  // None: nothing known yet (no constraint)
  struct Slope {
    State state = State::None;
    double value = 0;
  };
  const Analysis& a_;
  const std::vector<std::string>& params_;
  std::map<std::pair<int, size_t>, Slope> slope_;
  std::set<int> tracked_;  // variables whose every binding the walk sees
  bool changed_ = false;

  static Slope constant(double v) { return {State::Const, v}; }
  static Slope varying() { return {State::Varying, 0}; }

  void join(int var, size_t k, Slope s) {
    Slope& cur = slope_[{var, k}];
    if (s.state == State::None || cur.state == State::Varying) return;
    if (cur.state == State::None)
      cur = s, changed_ = true;
    else if (s.state == State::Varying || s.value != cur.value)
      cur = varying(), changed_ = true;
  }
  void bind(int var, const CoreExpr* init) {
    for (size_t k = 0; k < params_.size(); ++k) join(var, k, init ? rate(*init, k) : varying());
  }

  Slope rate(const CoreExpr& e, size_t k) const {
    if (!a_.dependent(e)) return constant(0);
    switch (e.kind) {
      case CoreKind::Const:
        return constant(0);
      case CoreKind::Ref: {
        int v = a_.varOf(e);
        if (v < 0) return constant(e.name == params_[k] ? 1 : 0);
        if (!tracked_.count(v)) return varying();
        auto it = slope_.find({v, k});
        return it == slope_.end() ? Slope{} : it->second;
      }
      case CoreKind::If: {
        Slope t = rate(*e.kids[1], k), f = rate(*e.kids[2], k);
        if (t.state == State::Varying || f.state == State::Varying) return varying();
        if (t.state == State::None) return f;
        if (f.state == State::None) return t;
        return t.value == f.value ? t : varying();
      }
      case CoreKind::App:
        break;
      default:
        return varying();
    }
    if (e.kids.size() < 2 || e.kids[0]->kind != CoreKind::Ref || a_.varOf(*e.kids[0]) >= 0) return varying();
    const std::string& f = e.kids[0]->name;
    std::vector<Slope> rs;
    bool none = false;
    for (size_t i = 1; i < e.kids.size(); ++i) {
      rs.push_back(rate(*e.kids[i], k));
      if (rs.back().state == State::Varying) return varying();
      none = none || rs.back().state == State::None;
    }
    auto literal = [&](size_t i) -> std::optional<double> {
      const CoreExpr& x = *e.kids[i + 1];
      if (x.kind == CoreKind::Const && x.datum->kind == DatumKind::Number) return x.datum->number;
      return std::nullopt;
    };
    if (f == "+" || (f == "-" && rs.size() <= 2)) {
      if (none) return Slope{};
      double sum = 0;
      for (size_t i = 0; i < rs.size(); ++i) sum += (f == "-" && (i > 0 || rs.size() == 1) ? -1 : 1) * rs[i].value;
      return constant(sum);
    }
    if ((f == "*" || f == "/") && rs.size() == 2) {
      auto c1 = literal(1);
      if (f == "*") {
        auto c0 = literal(0);
        if (c0) return none ? Slope{} : constant(*c0 * rs[1].value);
        if (c1) return none ? Slope{} : constant(*c1 * rs[0].value);
      } else if (c1 && *c1 != 0) {
        return none ? Slope{} : constant(rs[0].value / *c1);
      }
    }
    return varying();
  }

  // A procedure only ever called by its name (or written where it is called) has its parameters bound at its calls
  // alone; any other procedure's parameters are bound where the walk cannot see.
  const CoreExpr* known(const CoreExpr& op) const {
    if (op.kind == CoreKind::Lambda) return &op;
    if (op.kind != CoreKind::Ref) return nullptr;
    int v = a_.varOf(op);
    return v >= 0 && !a_.escapes(v) ? a_.lambdaOf(v) : nullptr;
  }

  void walk(const CoreExpr& e) {
    switch (e.kind) {
      case CoreKind::Const:
      case CoreKind::Ref:
        return;
      case CoreKind::Lambda:
        walk(*e.body);
        return;
      case CoreKind::If:
      case CoreKind::Begin:
        for (const auto& k : e.kids) walk(*k);
        return;
      case CoreKind::App: {
        for (const auto& k : e.kids) walk(*k);
        const CoreExpr* l = known(*e.kids[0]);
        const std::vector<int>* vars = l ? a_.paramVars(l) : nullptr;
        if (!vars || l->variadic || vars->size() != e.kids.size() - 1) return;
        for (size_t i = 0; i < vars->size(); ++i) {
          tracked_.insert((*vars)[i]);
          bind((*vars)[i], e.kids[i + 1].get());
        }
        return;
      }
      case CoreKind::Let:
      case CoreKind::Letrec:
        for (size_t i = 0; i < e.bindings.size(); ++i) {
          const CoreExpr& init = *e.bindings[i].second;
          const int v = a_.bindingVar(e, i);
          if (init.kind != CoreKind::Lambda) {
            tracked_.insert(v);
            bind(v, &init);
          } else if (a_.escapes(v) || !a_.paramVars(&init)) {
            continue;  // its parameters stay untracked: varying
          }
          walk(init);
        }
        walk(*e.body);
        return;
    }
  }
};

class Rewriter {
 public:
  // `thread`: pass the path state (kWeight, kBudget) to the procedures the program names and calls (see blendIf).
  Rewriter(const Analysis& a, const Slopes& slopes, const std::vector<std::string>& params, const SmoothSettings& s,
           SiStats& stats, bool thread)
      : a_(a), slopes_(slopes), params_(params), s_(s), stats_(stats), thread_(thread) {}
  bool changed = false;
  bool usesFloor_ = false;  // the program needs kFloor's procedure
  bool forked = false;      // an `if` runs both arms: the program needs %smooth-blend
  bool deepForked = false;  // an `if` whose arms may fork again: the program needs the path state (blendIf)
  ~Rewriter() {
    stats_.smoothed = static_cast<int>(smoothed_.size());
    stats_.crisp = static_cast<int>(crisp_.size());
    stats_.deaFallback = static_cast<int>(deaFallback_.size());
    stats_.forks = static_cast<int>(forks_.size());
    stats_.threaded = static_cast<int>(threaded_.size());
  }

  ExprPtr value(const ExprPtr& e) {
    switch (e->kind) {
      case CoreKind::Const:
      case CoreKind::Ref:
        return e;
      case CoreKind::If: {
        if (ExprPtr p = prob(*e->kids[0])) {
          changed = forked = true;
          forks_.insert(e.get());
          const int before = deep_;
          ExprPtr t = value(e->kids[1]), f = value(e->kids[2]);
          if (deep_ == before) return leafIf(p, t, f, e->pos);  // its arms cannot fork: no budget to share
          ++deep_;
          deepForked = true;
          return blendIf(p, t, f, e->pos);
        }
        return CoreExpr::if_(value(e->kids[0]), value(e->kids[1]), value(e->kids[2]), e->pos);
      }
      case CoreKind::Lambda:
        return CoreExpr::lambda(e->params, e->variadic, value(e->body), e->pos, e->name, e->hidden);
      case CoreKind::App:
        if (ExprPtr r = branchPrim(*e)) {
          changed = true;
          return r;
        }
        if (const CoreExpr& f = *e->kids[0]; f.kind == CoreKind::Ref && threaded_.count(a_.varOf(f))) {
          ++deep_;
          std::vector<ExprPtr> kids{e->kids[0], ref(kWeight, e->pos), ref(kBudget, e->pos)};
          for (size_t i = 1; i < e->kids.size(); ++i) kids.push_back(value(e->kids[i]));
          return CoreExpr::app(std::move(kids), e->pos);
        }
        [[fallthrough]];
      case CoreKind::Begin: {
        std::vector<ExprPtr> kids;
        for (const auto& k : e->kids) kids.push_back(value(k));
        return e->kind == CoreKind::App ? CoreExpr::app(std::move(kids), e->pos)
                                        : CoreExpr::begin(std::move(kids), e->pos);
      }
      case CoreKind::Let:
      case CoreKind::Letrec: {
        // A procedure bound here and only ever called by its name takes the caller's path state, as two leading
        // parameters more (hidden ones: arity errors count the source's).
        std::vector<bool> thread(e->bindings.size(), false);
        for (size_t i = 0; i < e->bindings.size(); ++i) {
          const int v = a_.bindingVar(*e, i);
          if (thread_ && e->bindings[i].second->kind == CoreKind::Lambda && !a_.escapes(v))
            thread[i] = true, threaded_.insert(v);
        }
        std::vector<Binding> bs;
        for (size_t i = 0; i < e->bindings.size(); ++i) {
          const auto& [n, init] = e->bindings[i];
          if (!thread[i]) {
            bs.emplace_back(n, value(init));
            continue;
          }
          std::vector<std::string> ps{kWeight, kBudget};
          ps.insert(ps.end(), init->params.begin(), init->params.end());
          bs.emplace_back(n, CoreExpr::lambda(std::move(ps), init->variadic, value(init->body), init->pos, init->name,
                                              init->hidden + 2));
        }
        return e->kind == CoreKind::Let ? CoreExpr::let(std::move(bs), value(e->body), e->pos)
                                        : CoreExpr::letrec(std::move(bs), value(e->body), e->pos);
      }
    }
    return e;
  }

 private:
  const Analysis& a_;
  const Slopes& slopes_;
  const std::vector<std::string>& params_;
  const SmoothSettings& s_;
  std::set<const CoreExpr*> deaFallback_;  // --smooth-dea comparisons whose distance's gradient is not derived
  SiStats& stats_;
  std::set<const CoreExpr*> smoothed_, crisp_;  // tested comparisons, each counted once however often it is seen
  const bool thread_;
  std::set<int> threaded_;           // the variables of procedures that take the path state
  std::set<const CoreExpr*> forks_;  // the `if`s that run both arms
  int deep_ = 0;  // forks that share the budget and calls that pass the path state, made so far (see leafIf)

  static ExprPtr num(double v, SrcPos p) { return CoreExpr::constant(Datum::num(v, p), p); }
  static ExprPtr ref(const std::string& n, SrcPos p) { return CoreExpr::ref(n, p); }
  static ExprPtr call(const std::string& f, std::vector<ExprPtr> args, SrcPos p) {
    args.insert(args.begin(), ref(f, p));
    return CoreExpr::app(std::move(args), p);
  }
  static ExprPtr oneMinus(ExprPtr x, SrcPos p) { return call("-", {num(1, p), std::move(x)}, p); }

  // A free reference to a primitive (not a user's binding of its name).
  bool isPrim(const CoreExpr& f, const char* name) const {
    return f.kind == CoreKind::Ref && f.name == name && a_.varOf(f) < 0;
  }

  // d(e)/d(param) as an expression, for e built from numbers, parameters, values on data alone and + - * / of
  // them; null for anything else (a local variable or a call depending on a parameter).
  ExprPtr deriv(const CoreExpr& e, const std::string& param) {
    SrcPos p = e.pos;
    if (!a_.dependent(e)) return num(0, p);
    if (e.kind == CoreKind::Ref && a_.varOf(e) < 0) return num(e.name == param ? 1 : 0, p);
    if (e.kind == CoreKind::Ref) {  // a variable: its slope, when every binding gives it one (Slopes)
      for (size_t k = 0; k < params_.size(); ++k)
        if (params_[k] == param) {
          auto c = slopes_.of(a_.varOf(e), k);
          return c ? num(*c, p) : nullptr;
        }
      return nullptr;
    }
    if (e.kind != CoreKind::App || e.kids.size() < 2 || e.kids[0]->kind != CoreKind::Ref || a_.varOf(*e.kids[0]) >= 0)
      return nullptr;
    const std::string& f = e.kids[0]->name;
    std::vector<ExprPtr> args, ds;
    for (size_t i = 1; i < e.kids.size(); ++i) {
      ExprPtr d = deriv(*e.kids[i], param);
      if (!d) return nullptr;
      args.push_back(value(e.kids[i]));
      ds.push_back(std::move(d));
    }
    if ((f == "+" || f == "-") && (f == "+" || args.size() <= 2)) {
      if (f == "-" && ds.size() == 1) return call("-", {num(0, p), ds[0]}, p);
      return call(f, ds, p);
    }
    if (f == "*" && args.size() == 2)  // a' b + a b'
      return call("+", {call("*", {ds[0], args[1]}, p), call("*", {args[0], ds[1]}, p)}, p);
    if (f == "/" && args.size() == 2)  // (a' b - a b') / b^2
      return call("/",
                  {call("-", {call("*", {ds[0], args[1]}, p), call("*", {args[0], ds[1]}, p)}, p),
                   call("*", {args[1], args[1]}, p)},
                  p);
    return nullptr;
  }

  // The width of the comparison of `lhs` with `rhs`: s, or with --smooth-dea s |grad (rhs - lhs)| where that
  // gradient can be derived (s where it is 0), else s, counted as a fallback.
  ExprPtr width(const CoreExpr& cmp, const CoreExpr& lhs, const CoreExpr& rhs) {
    SrcPos p = cmp.pos;
    ExprPtr sig = ref(kSigmaName, p);
    if (!s_.dea) return sig;
    std::vector<ExprPtr> squares;
    for (const auto& name : params_) {
      ExprPtr da = deriv(lhs, name), db = deriv(rhs, name);
      if (!da || !db) {
        deaFallback_.insert(&cmp);
        return sig;
      }
      ExprPtr g = call("-", {db, da}, p);
      squares.push_back(call("*", {g, g}, p));
    }
    ExprPtr norm = call("sqrt", {squares.size() == 1 ? squares[0] : call("+", squares, p)}, p);
    const char* n = "%smooth-norm";
    return CoreExpr::let(
        {{n, norm}}, CoreExpr::if_(call(">", {ref(n, p), num(0, p)}, p), call("*", {sig, ref(n, p)}, p), sig, p), p);
  }

  // The probability that a tested expression is true, when it is smoothed; null when it stays crisp.
  ExprPtr prob(const CoreExpr& e) {
    SrcPos p = e.pos;
    if (e.kind == CoreKind::App && !e.kids.empty() && e.kids[0]->kind == CoreKind::Ref && a_.varOf(*e.kids[0]) < 0 &&
        isComparison(e.kids[0]->name) && e.kids.size() == 3) {
      if (!a_.dependent(*e.kids[1]) && !a_.dependent(*e.kids[2])) {
        crisp_.insert(&e);
        return nullptr;
      }
      smoothed_.insert(&e);
      ExprPtr lhs = value(e.kids[1]), rhs = value(e.kids[2]);
      const bool less = e.kids[0]->name[0] == '<';
      ExprPtr d = less ? call("-", {rhs, lhs}, p) : call("-", {lhs, rhs}, p);
      return call("normal-cdf", {call("/", {d, width(e, *e.kids[1], *e.kids[2])}, p)}, p);
    }
    // (positive? a) is (> a 0), (negative? a) is (< a 0).
    if (e.kind == CoreKind::App && e.kids.size() == 2 &&
        (isPrim(*e.kids[0], "positive?") || isPrim(*e.kids[0], "negative?"))) {
      if (!a_.dependent(*e.kids[1])) {
        crisp_.insert(&e);
        return nullptr;
      }
      smoothed_.insert(&e);
      ExprPtr a = value(e.kids[1]);
      ExprPtr d = e.kids[0]->name == "positive?" ? a : call("-", {num(0, p), a}, p);
      ExprPtr zero = num(0, p);
      return call("normal-cdf", {call("/", {d, width(e, *zero, *e.kids[1])}, p)}, p);
    }
    if (e.kind == CoreKind::App && e.kids.size() == 2 && isPrim(*e.kids[0], "not")) {
      if (ExprPtr x = prob(*e.kids[1])) return oneMinus(x, p);
      return nullptr;
    }
    // or: (let ((t a)) (if t t b)) gives 1 - (1 - P(a))(1 - P(b)).
    if (e.kind == CoreKind::Let && e.bindings.size() == 1 && e.body->kind == CoreKind::If) {
      const CoreExpr& f = *e.body;
      const std::string& t = e.bindings[0].first;
      auto isT = [&](const CoreExpr& k) { return k.kind == CoreKind::Ref && k.name == t; };
      if (isT(*f.kids[0]) && isT(*f.kids[1])) {
        ExprPtr pa = prob(*e.bindings[0].second);
        ExprPtr pb = prob(*f.kids[2]);
        if (!pa && !pb) return nullptr;
        if (!pa) pa = indicator(e.bindings[0].second);
        if (!pb) pb = indicator(f.kids[2]);
        return oneMinus(call("*", {oneMinus(pa, p), oneMinus(pb, p)}, p), p);
      }
    }
    // and, nested tests: P(c) P(t) + (1 - P(c)) P(e).
    if (e.kind == CoreKind::If) {
      ExprPtr pc = prob(*e.kids[0]), pt = prob(*e.kids[1]), pe = prob(*e.kids[2]);
      if (!pc && !pt && !pe) return nullptr;
      if (!pt) pt = indicator(e.kids[1]);
      if (!pe) pe = indicator(e.kids[2]);
      if (!pc) return CoreExpr::if_(value(e.kids[0]), pt, pe, p);
      ExprPtr w = ref(kProb, p);
      return CoreExpr::let({{kProb, pc}}, call("+", {call("*", {w, pt}, p), call("*", {oneMinus(w, p), pe}, p)}, p), p);
    }
    return nullptr;
  }

  static ExprPtr pdf(ExprPtr z, SrcPos p) {  // phi(z) = e^(-z^2/2)/sqrt(2 pi)
    return call("*", {num(0.39894228040143267794, p), call("exp", {call("*", {num(-0.5, p), z, z}, p)}, p)}, p);
  }

  // min, max and abs (branches in disguise) and floor, ceiling, round and truncate (steps) with an operand that
  // depends on a parameter, as their Gaussian smoothings (see smoothProgram); null for anything else, which stays
  // crisp. Each operand is evaluated once.
  ExprPtr branchPrim(const CoreExpr& e) {
    if (e.kids.size() < 2 || e.kids[0]->kind != CoreKind::Ref || a_.varOf(*e.kids[0]) >= 0) return nullptr;
    const std::string& f = e.kids[0]->name;
    SrcPos p = e.pos;
    std::vector<const CoreExpr*> args;
    for (size_t i = 1; i < e.kids.size(); ++i) args.push_back(e.kids[i].get());
    std::string op = f;
    // (apply max (list a b ...)) is (max a b ...).
    if (f == "apply" && args.size() == 2 && (isPrim(*args[0], "max") || isPrim(*args[0], "min")) &&
        args[1]->kind == CoreKind::App && args[1]->kids.size() >= 2 && isPrim(*args[1]->kids[0], "list")) {
      op = args[0]->name;
      std::vector<const CoreExpr*> items;
      for (size_t i = 1; i < args[1]->kids.size(); ++i) items.push_back(args[1]->kids[i].get());
      args = items;
    }
    if (op == "atan" && args.size() == 2) return smoothAtan2(e, args[0], args[1]);
    const bool select = op == "min" || op == "max";
    const bool step = op == "floor" || op == "ceiling" || op == "round" || op == "truncate";
    if (!select && !step && op != "abs") return nullptr;
    if ((!select && args.size() != 1) || (select && args.size() < 2)) return nullptr;
    bool dep = false;
    for (const CoreExpr* a : args) dep = dep || a_.dependent(*a);
    if (!dep) return nullptr;
    smoothed_.insert(&e);
    ExprPtr zero = num(0, p);
    if (select) {  // pairwise from the left; a pair on data alone stays crisp
      ExprPtr acc = value(ptrOf(e, args[0]));
      const CoreExpr* accSrc = args[0];
      bool accDep = a_.dependent(*args[0]);
      for (size_t i = 1; i < args.size(); ++i) {
        ExprPtr b = value(ptrOf(e, args[i]));
        const bool bDep = a_.dependent(*args[i]);
        if (!accDep && !bDep)
          acc = call(op, {acc, b}, p);
        else
          acc = smoothSelect(op == "max", acc, b, accSrc, args[i], e);
        accSrc = nullptr;  // the running result's distance gradient is not derived
        accDep = accDep || bDep;
      }
      return acc;
    }
    ExprPtr x = value(ptrOf(e, args[0]));
    const char* xv = "%smooth-x";
    const char* wv = "%smooth-w";
    ExprPtr w = width(e, *zero, *args[0]);
    ExprPtr body;
    if (op == "abs") {  // E|x + s u| = x (2 Phi(x/s) - 1) + 2 s phi(x/s)
      ExprPtr z = call("/", {ref(xv, p), ref(wv, p)}, p);
      body = call(
          "+",
          {call("*", {ref(xv, p), call("-", {call("*", {num(2, p), call("normal-cdf", {z}, p)}, p), num(1, p)}, p)}, p),
           call("*", {num(2, p), ref(wv, p), pdf(z, p)}, p)},
          p);
      // far from the kink, exactly |x|: the other side's weight is below the minimum
      ExprPtr pr =
          call("normal-cdf", {call("/", {call("-", {num(0, p), call("abs", {ref(xv, p)}, p)}, p), ref(wv, p)}, p)}, p);
      body = CoreExpr::if_(call("<", {pr, num(s_.minWeight, p)}, p), call("abs", {ref(xv, p)}, p), body, p);
    } else {
      usesFloor_ = true;
      auto fl = [&](ExprPtr v) { return call(kFloor, {std::move(v), ref(wv, p)}, p); };
      ExprPtr xr = ref(xv, p);
      if (op == "floor") body = fl(xr);
      if (op == "round") body = fl(call("+", {xr, num(0.5, p)}, p));  // ties (measure zero) aside
      if (op == "ceiling") body = call("-", {num(0, p), fl(call("-", {num(0, p), xr}, p))}, p);
      if (op == "truncate")  // floor x + [x < 0]
        body =
            call("+", {fl(xr), call("normal-cdf", {call("/", {call("-", {num(0, p), xr}, p), ref(wv, p)}, p)}, p)}, p);
    }
    return CoreExpr::let({{xv, x}, {wv, w}}, body, p);
  }

  // (atan y x) steps by 2 pi across its branch cut (y = 0, x < 0): the crisp value with the step taken out,
  // c = atan2(y, x) - 2 pi [y >= 0][x < 0], smooth there, plus the step smoothed as 2 pi Phi(y/w_y) Phi(-x/w_x) (y and
  // x perturbed independently). Null when neither depends on a parameter.
  ExprPtr smoothAtan2(const CoreExpr& e, const CoreExpr* y, const CoreExpr* x) {
    if (!a_.dependent(*y) && !a_.dependent(*x)) return nullptr;
    smoothed_.insert(&e);
    SrcPos p = e.pos;
    ExprPtr zero = num(0, p);
    const double twoPi = 6.283185307179586477;
    const char *yv = "%smooth-y", *xv = "%smooth-x";
    ExprPtr Y = ref(yv, p), X = ref(xv, p);
    ExprPtr onCutSide = CoreExpr::if_(call(">=", {Y, zero}, p),
                                      CoreExpr::if_(call("<", {X, zero}, p), num(twoPi, p), zero, p), zero, p);
    ExprPtr c = call("-", {call("atan", {Y, X}, p), onCutSide}, p);
    ExprPtr py = call("normal-cdf", {call("/", {Y, width(e, *zero, *y)}, p)}, p);
    ExprPtr px = call("normal-cdf", {call("/", {call("-", {zero, X}, p), width(e, *x, *zero)}, p)}, p);
    ExprPtr body = call("+", {c, call("*", {num(twoPi, p), py, px}, p)}, p);
    return CoreExpr::let({{yv, value(ptrOf(e, y))}, {xv, value(ptrOf(e, x))}}, body, p);
  }

  // The kid of `e` that `k` points at (its owning pointer), found among e's kids and its list argument's kids.
  static ExprPtr ptrOf(const CoreExpr& e, const CoreExpr* k) {
    for (const auto& c : e.kids) {
      if (c.get() == k) return c;
      for (const auto& g : c->kids)
        if (g.get() == k) return g;
    }
    return nullptr;
  }

  // The smoothed (max a b) or (min a b), with d = b - a, w its width and P = Phi(d/w) the probability that b is the
  // larger: max = a + d P + w phi(d/w), min = b - d P - w phi(d/w) (the Gaussian smoothing of the select, exact where
  // d moves with unit gradient in the perturbation, or any gradient with --smooth-dea); an operand whose weight is
  // below the minimum is taken alone, so far from the tie it is exactly the crisp select.
  ExprPtr smoothSelect(bool isMax, ExprPtr a, ExprPtr b, const CoreExpr* aSrc, const CoreExpr* bSrc,
                       const CoreExpr& at) {
    SrcPos p = at.pos;
    ExprPtr w;
    if (aSrc && bSrc)
      w = width(at, *aSrc, *bSrc);
    else {
      if (s_.dea) deaFallback_.insert(&at);
      w = ref(kSigmaName, p);
    }
    const char *av = "%smooth-a", *bv = "%smooth-b", *dv = "%smooth-d", *wv = "%smooth-w", *pv = "%smooth-pb";
    ExprPtr d = ref(dv, p), z = call("/", {ref(dv, p), ref(wv, p)}, p);
    ExprPtr tail = call("+", {call("*", {d, ref(pv, p)}, p), call("*", {ref(wv, p), pdf(z, p)}, p)}, p);
    ExprPtr mix = isMax ? call("+", {ref(av, p), tail}, p) : call("-", {ref(bv, p), tail}, p);
    ExprPtr minW = num(s_.minWeight, p);
    ExprPtr lo = isMax ? ref(av, p) : ref(bv, p), hi = isMax ? ref(bv, p) : ref(av, p);  // P ~ 0, P ~ 1
    ExprPtr body = CoreExpr::if_(call("<", {ref(pv, p), minW}, p), lo,
                                 CoreExpr::if_(call("<", {oneMinus(ref(pv, p), p), minW}, p), hi, mix, p), p);
    body = CoreExpr::let({{pv, call("normal-cdf", {z}, p)}}, body, p);
    body = CoreExpr::let({{dv, call("-", {ref(bv, p), ref(av, p)}, p)}, {wv, w}}, body, p);
    return CoreExpr::let({{av, std::move(a)}, {bv, std::move(b)}}, body, p);
  }

  // A crisp test as a probability: 1 when true, 0 when false.
  ExprPtr indicator(const ExprPtr& e) {
    if (e->kind == CoreKind::Const && e->datum->kind == DatumKind::Bool) return num(e->datum->boolean ? 1 : 0, e->pos);
    return CoreExpr::if_(value(e), num(1, e->pos), num(0, e->pos), e->pos);
  }

  // An `if` on a smoothed test P forks the path state (w, b) it runs in, the path's weight w and its budget b of
  // paths:
  //   (let ((p P)) (let ((wt (* w p)) (we (* w (- 1 p))))
  //     (let ((rt (%smooth-runs (>= p 0.5) wt b)) (re (%smooth-runs (< p 0.5) we b)))
  //       (let ((bt (%smooth-share p b rt re)))
  //         (%smooth-join p rt re (if rt (let ((w wt) (b bt)) T) #f) (if re (let ((w we) (b (- b bt))) E) #f))))))
  // The likelier arm always runs; the other runs when its path weight is at least the minimum weight and the budget
  // is not a single path. Two arms share the budget in proportion to their probabilities, at least one path each;
  // the arms' values join by %smooth-blend, one run arm's value is the if's. So the paths that run past the fork
  // (in an arm: a recursion in the arm's tail, a call) are at most the budget, the unlikelier arm dropped first.
  ExprPtr blendIf(const ExprPtr& pr, const ExprPtr& t, const ExprPtr& e, SrcPos p) {
    auto r = [&](const char* n) { return ref(n, p); };
    const char *wt = "%smooth-wt", *we = "%smooth-we", *rt = "%smooth-rt", *re = "%smooth-re", *bt = "%smooth-bt";
    ExprPtr thenArm =
        CoreExpr::if_(r(rt), CoreExpr::let({{kWeight, r(wt)}, {kBudget, r(bt)}}, t, p), boolean(false, p), p);
    ExprPtr elseArm =
        CoreExpr::if_(r(re), CoreExpr::let({{kWeight, r(we)}, {kBudget, call("-", {r(kBudget), r(bt)}, p)}}, e, p),
                      boolean(false, p), p);
    ExprPtr body = call(kJoin, {r(kProb), r(rt), r(re), thenArm, elseArm}, p);
    body = CoreExpr::let({{bt, call(kShare, {r(kProb), r(kBudget), r(rt), r(re)}, p)}}, body, p);
    body = CoreExpr::let({{rt, call(kRuns, {call(">=", {r(kProb), num(0.5, p)}, p), r(wt), r(kBudget)}, p)},
                          {re, call(kRuns, {call("<", {r(kProb), num(0.5, p)}, p), r(we), r(kBudget)}, p)}},
                         body, p);
    body = CoreExpr::let(
        {{wt, call("*", {r(kWeight), r(kProb)}, p)}, {we, call("*", {r(kWeight), oneMinus(r(kProb), p)}, p)}}, body, p);
    return CoreExpr::let({{kProb, pr}}, body, p);
  }
  // An `if` on a smoothed test whose arms cannot fork again (no such `if` and no call passing the path state in
  // them) starts no path that runs past it, so it leaves the budget alone:
  //   (let ((p P)) (if (< (* w p) minW) E (if (< (* w (- 1 p)) minW) T (%smooth-blend p T E))))
  // an arm whose path weight is below the minimum weight not run (w is 1 where no path state is threaded). Its
  // tests are those of a plain blend, so that an engine that records the tests taken (replay) splits its lanes no
  // more than before paths were counted (a min of p and 1 - p would: its select is a test on p against 1/2).
  ExprPtr leafIf(const ExprPtr& pr, const ExprPtr& t, const ExprPtr& e, SrcPos p) {
    auto r = [&](const char* n) { return ref(n, p); };
    auto weight = [&](ExprPtr q) { return thread_ ? call("*", {r(kWeight), std::move(q)}, p) : q; };
    ExprPtr minW = num(s_.minWeight, p);
    ExprPtr body = CoreExpr::if_(
        call("<", {weight(r(kProb)), minW}, p), e,
        CoreExpr::if_(call("<", {weight(oneMinus(r(kProb), p)), minW}, p), t, call(kBlend, {r(kProb), t, e}, p), p), p);
    return CoreExpr::let({{kProb, pr}}, body, p);
  }
  static ExprPtr boolean(bool b, SrcPos p) { return CoreExpr::constant(Datum::boolean_(b, p), p); }
};

// The fork's procedures (blendIf), built as expressions of the subset with the minimum weight `minW` in them:
//   %smooth-runs  (lambda (likely w b) (if likely #t (if (< w minW) #f (not (= b 1)))))
//   %smooth-share (lambda (p b rt re) (if (= b 0) 0 (if rt (if re (max 1 (min (- b 1) (round (* b p)))) b) 0)))
//   %smooth-join  (lambda (p rt re t e) (if rt (if re (%smooth-blend p t e) t) e))
//   %smooth-blend (lambda (p a b) (if (number? a) (if (number? b) (+ (* p a) (* (- 1 p) b)) L)
//                                     (if (%smooth-same-shape a b) (%smooth-mix p a b) L))),  L = (if (< p 0.5) b a)
//   %smooth-same-shape (lambda (a b) (if (number? a) (number? b) (if (pair? a) (if (pair? b) (if (S (car a) (car b))
//                                     (S (cdr a) (cdr b)) #f) #f) (if (number? b) #f (if (pair? b) #f (eqv? a b))))))
//   %smooth-mix   (lambda (p a b) (if (number? a) (+ (* p a) (* (- 1 p) b))
//                                     (if (pair? a) (cons (M p (car a) (car b)) (M p (cdr a) (cdr b))) a)))
// So two numbers blend, two lists of one shape blend element by element (their other atoms equal), and anything else
// (closures, lists of two shapes, different symbols) is the likelier arm's value.
std::vector<Binding> forkProcedures(SrcPos at, double minW, bool deep) {
  auto r = [&](const char* n) { return CoreExpr::ref(n, at); };
  auto n = [&](double v) { return CoreExpr::constant(Datum::num(v, at), at); };
  auto bl = [&](bool v) { return CoreExpr::constant(Datum::boolean_(v, at), at); };
  auto app = [&](std::vector<ExprPtr> k) { return CoreExpr::app(std::move(k), at); };
  auto if_ = [&](ExprPtr c, ExprPtr t, ExprPtr e) {
    return CoreExpr::if_(std::move(c), std::move(t), std::move(e), at);
  };
  auto lam = [&](std::vector<std::string> ps, ExprPtr body, const char* name) {
    return CoreExpr::lambda(std::move(ps), false, std::move(body), at, name);
  };
  auto mixNumbers = [&] {
    return app({r("+"), app({r("*"), r("p"), r("a")}), app({r("*"), app({r("-"), n(1), r("p")}), r("b")})});
  };
  auto likelier = [&] { return if_(app({r("<"), r("p"), n(0.5)}), r("b"), r("a")); };
  auto on = [&](const char* f, const char* part, std::vector<ExprPtr> pre) {  // (f pre... (part a) (part b))
    pre.insert(pre.begin(), r(f));
    pre.push_back(app({r(part), r("a")}));
    pre.push_back(app({r(part), r("b")}));
    return app(std::move(pre));
  };
  std::vector<Binding> out;
  if (deep) {  // blendIf's
    out.emplace_back(
        kRuns, lam({"likely", "w", "b"},
                   if_(r("likely"), bl(true),
                       if_(app({r("<"), r("w"), n(minW)}), bl(false), app({r("not"), app({r("="), r("b"), n(1)})}))),
                   kRuns));
    ExprPtr share =
        app({r("max"), n(1),
             app({r("min"), app({r("-"), r("b"), n(1)}), app({r("round"), app({r("*"), r("b"), r("p")})})})});
    out.emplace_back(
        kShare, lam({"p", "b", "rt", "re"},
                    if_(app({r("="), r("b"), n(0)}), n(0), if_(r("rt"), if_(r("re"), share, r("b")), n(0))), kShare));
    out.emplace_back(kJoin,
                     lam({"p", "rt", "re", "t", "e"},
                         if_(r("rt"), if_(r("re"), app({r(kBlend), r("p"), r("t"), r("e")}), r("t")), r("e")), kJoin));
  }
  out.emplace_back(
      kBlend, lam({"p", "a", "b"},
                  if_(app({r("number?"), r("a")}), if_(app({r("number?"), r("b")}), mixNumbers(), likelier()),
                      if_(app({r(kSameShape), r("a"), r("b")}), app({r(kMix), r("p"), r("a"), r("b")}), likelier())),
                  kBlend));
  ExprPtr atoms = if_(app({r("number?"), r("b")}), bl(false),
                      if_(app({r("pair?"), r("b")}), bl(false), app({r("eqv?"), r("a"), r("b")})));
  out.emplace_back(kSameShape,
                   lam({"a", "b"},
                       if_(app({r("number?"), r("a")}), app({r("number?"), r("b")}),
                           if_(app({r("pair?"), r("a")}),
                               if_(app({r("pair?"), r("b")}),
                                   if_(on(kSameShape, "car", {}), on(kSameShape, "cdr", {}), bl(false)), bl(false)),
                               atoms)),
                       kSameShape));
  out.emplace_back(kMix, lam({"p", "a", "b"},
                             if_(app({r("number?"), r("a")}), mixNumbers(),
                                 if_(app({r("pair?"), r("a")}),
                                     app({r("cons"), on(kMix, "car", {r("p")}), on(kMix, "cdr", {r("p")})}), r("a"))),
                             kMix));
  return out;
}

// (lambda (x w) (let ((n (floor x)) (k (+ 1 (ceiling (* 9 w)))))
//   (letrec ((loop (lambda (j acc) (if (> j (+ n k)) acc (loop (+ j 1) (+ acc (normal-cdf (/ (- x j) w))))))))
//     (loop (+ (- n k) 1) (- n k)))))
// E floor(x + w u) = sum over integers j of Phi((x - j)/w) - [j <= 0]: the terms more than 9 widths from x are their
// crisp values (Phi beyond 9 is 1 to 1e-19), so n - k plus the Phi terms of the 2k integers around x. Guarded, so
// that no input loops long: |x| >= 1e15 (every double an integer there) or NaN is (floor x); a width above 100 is
// x - 1/2 (the sum's periodic part, below e^(-2 pi^2 w^2), is gone).
ExprPtr floorProcedure(SrcPos at) {
  auto r = [&](const char* n) { return CoreExpr::ref(n, at); };
  auto n = [&](double v) { return CoreExpr::constant(Datum::num(v, at), at); };
  auto app = [&](std::vector<ExprPtr> k) { return CoreExpr::app(std::move(k), at); };
  ExprPtr term = app({r("normal-cdf"), app({r("/"), app({r("-"), r("x"), r("j")}), r("w")})});
  ExprPtr step = app({r("%loop"), app({r("+"), r("j"), n(1)}), app({r("+"), r("acc"), term})});
  ExprPtr loopBody = CoreExpr::if_(app({r(">"), r("j"), app({r("+"), r("n"), r("k")})}), r("acc"), step, at);
  ExprPtr loop = CoreExpr::lambda({"j", "acc"}, false, loopBody, at, "%loop");
  ExprPtr start = app({r("%loop"), app({r("+"), app({r("-"), r("n"), r("k")}), n(1)}), app({r("-"), r("n"), r("k")})});
  ExprPtr body = CoreExpr::let(
      {{"n", app({r("floor"), r("x")})}, {"k", app({r("+"), n(1), app({r("ceiling"), app({r("*"), n(9), r("w")})})})}},
      CoreExpr::letrec({{"%loop", loop}}, start, at), at);
  body = CoreExpr::if_(app({r(">"), r("w"), n(100)}), app({r("-"), r("x"), n(0.5)}), body, at);
  body = CoreExpr::if_(app({r("<"), app({r("abs"), r("x")}), n(1e15)}), body, app({r("floor"), r("x")}), at);
  return CoreExpr::lambda({"x", "w"}, false, body, at, kFloor);
}

// The first (%box-set! ...) of the expanded program: a set! (expand/Assign.cpp; letrec*'s own boxes come later, in
// the lowering), or null. Iterative: a core tree nests as deep as a long let*.
const CoreExpr* firstAssignment(const CoreExpr& root) {
  std::vector<const CoreExpr*> todo{&root};
  while (!todo.empty()) {
    const CoreExpr* e = todo.back();
    todo.pop_back();
    if (e->kind == CoreKind::App && e->kids[0]->kind == CoreKind::Ref && e->kids[0]->name == "%box-set!") return e;
    for (auto it = e->kids.rbegin(); it != e->kids.rend(); ++it) todo.push_back(it->get());
    for (auto it = e->bindings.rbegin(); it != e->bindings.rend(); ++it) todo.push_back(it->second.get());
    if (e->body) todo.push_back(e->body.get());
  }
  return nullptr;
}

// The first reference to vector-set! or vector-fill! (or their %-names), or null: a vector that a program changes
// holds what is written into it, which the dependence analysis does not follow through the vector's aliases.
const CoreExpr* firstVectorWrite(const CoreExpr& root) {
  static const std::set<std::string> names = {"vector-set!", "%vector-set!", "vector-fill!", "%vector-fill!"};
  std::vector<const CoreExpr*> todo{&root};
  while (!todo.empty()) {
    const CoreExpr* e = todo.back();
    todo.pop_back();
    if (e->kind == CoreKind::Ref && names.count(e->name)) return e;
    for (auto it = e->kids.rbegin(); it != e->kids.rend(); ++it) todo.push_back(it->get());
    for (auto it = e->bindings.rbegin(); it != e->bindings.rend(); ++it) todo.push_back(it->second.get());
    if (e->body) todo.push_back(e->body.get());
  }
  return nullptr;
}

}  // namespace

ExprPtr smoothProgram(const ExprPtr& core, const std::vector<std::string>& params, const SmoothSettings& s,
                      SiStats* stats) {
  if (const CoreExpr* write = firstVectorWrite(*core))
    throw DmciError(ErrorKind::Usage,
                    "--smooth si: the program changes a vector with " + write->name +
                        ", whose writes smooth interpretation's dependence analysis does not follow; use "
                        "--smooth-mode mc (pgo or reinforce)",
                    write->pos);
  SiStats local;
  SiStats& st = stats ? *stats : local;
  ExprPtr out = core;
  bool forked = false;
  runWithBigStack([&] {
    Analysis a(params);
    a.run(core);
    // With a fork whose arms may fork again, the path state is threaded through the program's own procedures;
    // without one it is not needed, and the program is rewritten again without it.
    Slopes slopes(a, params);
    if (s.dea) slopes.run(*core);
    auto rw = std::make_unique<Rewriter>(a, slopes, params, s, st, true);
    ExprPtr body = rw->value(core);
    if (!rw->deepForked) {  // no path ever forks past a join: every weight is 1, and no budget is shared
      rw = std::make_unique<Rewriter>(a, slopes, params, s, st, false);
      body = rw->value(core);
    }
    if (rw->changed) {
      SrcPos at = core->pos;
      std::vector<Binding> helpers;
      if (rw->forked) helpers = forkProcedures(at, s.minWeight, rw->deepForked);
      if (rw->deepForked) {
        body = CoreExpr::let({{kWeight, CoreExpr::constant(Datum::num(1, at), at)},
                              {kBudget, CoreExpr::constant(Datum::num(static_cast<double>(s.maxPaths), at), at)}},
                             body, at);
      }
      if (rw->usesFloor_) helpers.emplace_back(kFloor, floorProcedure(at));
      out = helpers.empty() ? body : CoreExpr::letrec(std::move(helpers), body, at);
    }
    forked = rw->forked;
    rw.reset();  // its stats written
  });
  // A forked `if` runs both arms one after the other: a set! in either would leave the later arm's write, not a
  // blend of the two, a wrong number. Refused rather than given.
  if (forked)
    if (const CoreExpr* set = firstAssignment(*core))
      throw DmciError(ErrorKind::Usage,
                      "--smooth si: the program assigns a variable with set!, and smooth interpretation runs both "
                      "arms of a smoothed if, whose writes it cannot blend; use --smooth-mode mc (pgo or reinforce)",
                      set->pos);
  return out;
}

}  // namespace dmci::smooth
