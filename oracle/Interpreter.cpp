// The tree-walker: eval with its tail positions as a loop, application, constants and decisions.
#include "oracle/Interpreter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "oracle/Oracle.h"
#include "prims/PrimTable.h"
#include "syntax/Exactness.h"

namespace dmci::oracle {

// --- what a primitive's implementation sees ---

template <class Num>
Heap<Num>& PrimCall<Num>::heap() const {
  return in.heap();
}

template <class Num>
void PrimCall<Num>::wrongType(int k, const char* expected) const {
  throw DmciError(
      ErrorKind::Type,
      std::string(name) + ": argument " + std::to_string(k + 1) + " must be " + expected + ", got " + show((*this)[k]),
      site->pos);
}

template <class Num>
const Num& PrimCall<Num>::number(int k) const {
  if (!(*this)[k].isNumber()) wrongType(k, "a number");
  return (*this)[k].num;
}

template <class Num>
Num PrimCall<Num>::decide(DecisionKind kind, const std::optional<Num>& natural, const Closeness<Num>& close,
                          const Num& argument) const {
  return in.decide(site, name, kind, natural, close, argument);
}

template <class Num>
void PrimRegistry<Num>::add(const char* name, PrimFn<Num> fn) {
  int id = primId(name);
  if (id < 0) throw std::logic_error(std::string("oracle: the primitive table has no ") + name);
  byId.at(static_cast<size_t>(id)) = fn;
}

template <class Num>
const PrimRegistry<Num>& primRegistry() {
  static const PrimRegistry<Num> registry = [] {
    PrimRegistry<Num> r;
    r.byId.resize(primitives().size(), nullptr);
    addScalarPrims(r);
    addListPrims(r);
    addTensorPrims(r);
    addVectorPrims(r);
    addTextPrims(r);
    return r;
  }();
  return registry;
}

// --- display ---

template <class Num>
std::string showTensor(const Tensor<Num>& t) {
  std::string s = "#<tensor ";
  s.append(std::to_string(t.rows));
  if (t.rank == 2) s.append("x").append(std::to_string(t.cols));
  s.append(" [");
  for (int k = 0; k < t.size() && k < 16; ++k)
    s.append(k ? " " : "").append(formatNumber(static_cast<double>(t.data[k])));
  return s + (t.size() > 16 ? " ...]>" : "]>");
}

template <class Num>
std::string showAt(const Value<Num>& v, int depth) {
  if (depth > 50) return "...";
  switch (v.kind) {
    case Kind::Number:
      return formatNumber(static_cast<double>(v.num));
    case Kind::Bool:
      return v.bits ? "#t" : "#f";
    case Kind::Nil:
      return "()";
    case Kind::Char:
      return std::string("#\\") + static_cast<char>(v.bits);
    case Kind::Symbol:
      return v.text();
    case Kind::String:
      return "\"" + v.text() + "\"";
    case Kind::Closure:
      return "#<procedure>";
    case Kind::Prim:
      return std::string("#<primitive ") + prim(static_cast<int>(v.bits)).name + ">";
    case Kind::Tensor:
      return showTensor(v.tensor());
    case Kind::Unset:
      return "#<unset>";
    case Kind::Vector: {
      std::string s = "#(";
      const auto& xs = v.vector().items;
      for (size_t k = 0; k < xs.size(); ++k) {
        if (k) s += " ";
        if (k >= 100) return s + "...)";
        s += showAt(xs[k], depth + 1);
      }
      return s + ")";
    }
    case Kind::Pair:
      break;
  }
  std::string s = "(";
  Value<Num> p = v;
  for (int n = 0; p.kind == Kind::Pair; p = p.pair().cdr) {
    if (n) s += " ";
    if (++n > 100) return s + "...)";
    s += showAt(p.pair().car, depth + 1);
  }
  if (p.kind != Kind::Nil) s += " . " + showAt(p, depth + 1);
  return s + ")";
}

template <class Num>
std::string show(const Value<Num>& v) {
  return showAt(v, 0);
}

// --- the interpreter ---

template <class Num>
Interpreter<Num>::Interpreter(const Prepared& program, const Budget& budget, std::vector<Num> params,
                              const std::map<std::string, Num>& literals, const std::vector<Decision<Num>>* replay)
    : program_(program),
      budget_(budget),
      params_(std::move(params)),
      literals_(literals),
      replay_(replay),
      heap_(std::min(budget.heapCells, kMaxCells)) {}

template <class Num>
Output<Num> Interpreter<Num>::run() {
  start_ = std::chrono::steady_clock::now();
  std::vector<Value<Num>> top;
  for (const Num& x : params_) top.push_back(Value<Num>::number(x));
  Value<Num> v = eval(program_.linked.get(), heap_.frame(nullptr, std::move(top)));
  return output(v);
}

template <class Num>
void Interpreter<Num>::tick(const CoreExpr* e) {
  if (++steps_ > budget_.steps)
    throw DmciError(ErrorKind::Budget, "step budget of " + std::to_string(budget_.steps) + " steps exhausted", e->pos);
  if (steps_ % 65536 == 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > budget_.seconds)
    throw DmciError(ErrorKind::Budget, "time budget of " + formatNumber(budget_.seconds) + " s exhausted", e->pos);
}

// Tail positions (if arms, the last of a begin, let bodies, a closure's body) continue the loop, so
// tail calls run in constant C++ stack; every other nested evaluation counts toward kMaxDepth.
template <class Num>
Value<Num> Interpreter<Num>::eval(const CoreExpr* e, Frame<Num>* env) {
  if (depth_ >= kMaxDepth)
    throw DmciError(ErrorKind::Budget, "recursion deeper than " + std::to_string(kMaxDepth) + " nested evaluations",
                    e->pos);
  struct Nested {
    int& depth;
    const CoreExpr*& userSite;
    const CoreExpr* saved;
    Nested(int& d, const CoreExpr*& u) : depth(++d), userSite(u), saved(u) {}
    ~Nested() { --depth, userSite = saved; }
  } nested(depth_, userSite_);
  for (;;) {
    tick(e);
    switch (e->kind) {
      case CoreKind::Const:
        return constant(e);
      case CoreKind::Ref:
        return lookup(e, env);
      case CoreKind::Lambda:
        return heap_.closure(e, env);
      case CoreKind::If:
        e = (eval(e->kids[0].get(), env).isFalse() ? e->kids[2] : e->kids[1]).get();
        break;
      case CoreKind::Begin:
        for (size_t k = 0; k + 1 < e->kids.size(); ++k) eval(e->kids[k].get(), env);
        e = e->kids.back().get();
        break;
      case CoreKind::Let: {
        std::vector<Value<Num>> slots;
        for (const auto& b : e->bindings) slots.push_back(eval(b.second.get(), env));
        env = heap_.frame(env, std::move(slots));
        e = e->body.get();
        break;
      }
      case CoreKind::Letrec: {
        env = heap_.frame(env, std::vector<Value<Num>>(e->bindings.size(), Value<Num>::unset()));
        for (size_t k = 0; k < e->bindings.size(); ++k) env->slots[k] = eval(e->bindings[k].second.get(), env);
        e = e->body.get();
        break;
      }
      case CoreKind::App: {
        std::vector<Value<Num>> args;
        Value<Num> f = evalArgs(e, env, args);
        if (!e->pos.inLibrary()) userSite_ = e;
        spreadApply(e, f, args);
        if (f.kind == Kind::Prim) return callPrimitive(e, static_cast<int>(f.bits), args);
        if (f.kind != Kind::Closure)
          throw DmciError(ErrorKind::NotProcedure, "attempt to apply a non-procedure: " + show(f), e->pos);
        env = bind(e, f.closure(), args);
        e = f.closure().lambda->body.get();
        break;
      }
    }
  }
}

template <class Num>
Value<Num> Interpreter<Num>::evalArgs(const CoreExpr* e, Frame<Num>* env, std::vector<Value<Num>>& args) {
  Value<Num> f = eval(e->kids[0].get(), env);
  args.reserve(e->kids.size() - 1);
  for (size_t k = 1; k < e->kids.size(); ++k) args.push_back(eval(e->kids[k].get(), env));
  return f;
}

// (apply g a ... lst) becomes g applied to a ... and the elements of lst, repeatedly.
template <class Num>
void Interpreter<Num>::spreadApply(const CoreExpr* site, Value<Num>& f, std::vector<Value<Num>>& args) {
  static const int applyId = primId("apply");
  while (f.kind == Kind::Prim && f.bits == applyId) {
    if (args.size() < 2)
      throw DmciError(ErrorKind::Arity, "apply: expects at least 2 arguments, got " + std::to_string(args.size()),
                      site->pos);
    Value<Num> list = args.back();
    f = args.front();
    std::vector<Value<Num>> spread(args.begin() + 1, args.end() - 1);
    Value<Num> l = list;
    for (; l.kind == Kind::Pair; l = l.pair().cdr) spread.push_back(l.pair().car);
    if (l.kind != Kind::Nil)
      throw DmciError(ErrorKind::Type, "apply: last argument must be a proper list, got " + show(list), site->pos);
    args = std::move(spread);
  }
}

// A new frame for the closure's parameters; a variadic closure's last one holds the rest as a list.
template <class Num>
Frame<Num>* Interpreter<Num>::bind(const CoreExpr* site, const Closure<Num>& c, std::vector<Value<Num>>& args) {
  const CoreExpr& lambda = *c.lambda;
  size_t fixed = lambda.variadic ? lambda.params.size() - 1 : lambda.params.size();
  if (args.size() < fixed || (!lambda.variadic && args.size() != fixed)) {
    // The source's counts: without the leading parameters the control conversion added.
    const size_t shown = fixed - static_cast<size_t>(lambda.hidden);
    std::string want = (lambda.variadic ? "at least " : "") + std::to_string(shown);
    std::string name = lambda.name.empty() ? "lambda" : lambda.name;
    throw DmciError(ErrorKind::Arity,
                    name + ": expects " + want + " argument" + (shown == 1 && !lambda.variadic ? "" : "s") + ", got " +
                        std::to_string(args.size() - static_cast<size_t>(lambda.hidden)),
                    reported(site));
  }
  if (lambda.variadic) {
    Value<Num> rest = Value<Num>::nil();
    for (size_t k = args.size(); k-- > fixed;) rest = heap_.cons(args[k], rest);
    args.resize(fixed);
    args.push_back(rest);
  }
  return heap_.frame(c.env, std::move(args));
}

template <class Num>
Value<Num> Interpreter<Num>::callPrimitive(const CoreExpr* site, int id, const std::vector<Value<Num>>& args) {
  const Primitive& p = prim(id);
  PrimFn<Num> fn = primRegistry<Num>().byId[static_cast<size_t>(id)];
  try {
    checkArity(p, static_cast<int>(args.size()));
    if (!fn) throw std::logic_error(std::string("oracle: no implementation of ") + p.name);
    Value<Num> v = fn(PrimCall<Num>{*this, site, p.name, args});
    if (frozen_) return eachNumber(v, [this](const Num& x) { return addFrozenOffset(x); });
    return rounding_ ? roundRandomly(v) : v;
  } catch (const DmciError& err) {
    if (err.error().pos.known()) throw;
    Error located = err.error();
    located.pos = reported(site);
    throw DmciError(located);
  }
}

// xorshift64: the random rounding's coin, reproducible from the seed.
template <class Num>
bool Interpreter<Num>::coin() {
  rounding_ ^= rounding_ << 13;
  rounding_ ^= rounding_ >> 7;
  rounding_ ^= rounding_ << 17;
  return rounding_ & 1;
}

template <class Num>
Num Interpreter<Num>::roundRandomly(const Num& x) {
  double d = static_cast<double>(x);  // the nearest double
  if (!std::isfinite(d) || Num(d) == x) {
    offsets_.push_back(0);
    return x;
  }
  double other = Num(d) < x ? std::nextafter(d, std::numeric_limits<double>::infinity())
                            : std::nextafter(d, -std::numeric_limits<double>::infinity());
  Num rounded(coin() ? d : other);
  offsets_.push_back(static_cast<double>(rounded - x));
  return rounded;
}

template <class Num>
Value<Num> Interpreter<Num>::roundRandomly(const Value<Num>& v) {
  return eachNumber(v, [this](const Num& x) { return roundRandomly(x); });
}

template <class Num>
Num Interpreter<Num>::addFrozenOffset(const Num& x) {
  // The same path makes the same results in the same order: a count that differs is a bug, not bad input.
  if (nextOffset_ >= frozen_->size()) throw std::logic_error("oracle: more results than the rounded run had");
  double offset = (*frozen_)[nextOffset_++];
  return offset == 0 ? x : x + Num(offset);
}

// f applied to a number, or to each entry of a tensor (a copy); any other value as it is.
template <class Num>
template <class F>
Value<Num> Interpreter<Num>::eachNumber(const Value<Num>& v, F f) {
  if (v.kind == Kind::Number) return Value<Num>::number(f(v.num));
  if (v.kind != Kind::Tensor) return v;
  const Tensor<Num>& t = v.tensor();
  Tensor<Num>& copy = heap_.tensor(t.rank, t.rows, t.cols);
  for (size_t k = 0; k < t.data.size(); ++k) copy.data[k] = f(t.data[k]);
  return Heap<Num>::value(copy);
}

template <class Num>
Value<Num> Interpreter<Num>::lookup(const CoreExpr* e, Frame<Num>* env) const {
  const Address& a = program_.addresses.at(e);
  if (a.where == Address::Where::Primitive) return Value<Num>::primitive(a.prim);
  if (a.where == Address::Where::Unbound) throw DmciError(ErrorKind::Unbound, "unbound variable: " + e->name, e->pos);
  for (int up = 0; up < a.depth; ++up) env = env->parent;
  const Value<Num>& v = env->slots[static_cast<size_t>(a.index)];
  if (v.kind == Kind::Unset) throw DmciError(ErrorKind::Unbound, e->name + ": used before its definition", e->pos);
  return v;
}

// A quoted datum is built once per run, so (eq? c c) holds for a constant c as in the engines.
template <class Num>
Value<Num> Interpreter<Num>::constant(const CoreExpr* e) {
  auto it = constants_.find(e);
  if (it != constants_.end()) return it->second;
  Value<Num> v = datum(*e->datum);
  constants_.emplace(e, v);
  return v;
}

template <class Num>
Value<Num> Interpreter<Num>::datum(const Datum& d) {
  switch (d.kind) {
    case DatumKind::Nil:
      return Value<Num>::nil();
    case DatumKind::Bool:
      return Value<Num>::boolean(d.boolean);
    case DatumKind::Char:
      return Value<Num>::tagged(Kind::Char, d.ch);
    case DatumKind::Symbol:
      return Value<Num>::object(Kind::Symbol, &d.text);
    case DatumKind::String:
      return Value<Num>::object(Kind::String, &d.text);
    case DatumKind::Number: {
      auto it = literals_.empty() ? literals_.end() : literals_.find(d.pos.str());
      // A literal being differentiated is a real (inexact), as on the engines' tape (runtime/ExactValue.h).
      if (it != literals_.end()) return Value<Num>::number(it->second);
      return keepExact(Value<Num>::number(Num(d.number)), isExact(d));
    }
    case DatumKind::List:
    case DatumKind::Vector:
      break;
  }
  std::vector<Value<Num>> items;
  for (const auto& k : d.items) items.push_back(datum(*k));
  if (d.kind == DatumKind::Vector) {
    Value<Num> v = heap_.vector(std::move(items));
    const_cast<VectorObj<Num>&>(v.vector()).literal = true;  // the heap's own, mutable object
    return v;
  }
  Value<Num> list = d.tail ? datum(*d.tail) : Value<Num>::nil();
  for (size_t k = items.size(); k-- > 0;) list = heap_.cons(items[k], list);
  return list;
}

template <class Num>
bool sameOutcome(const Num& a, const Num& b) {
  using std::isnan;
  return a == b || (isnan(a) && isnan(b));
}

template <class Num>
Num Interpreter<Num>::decide(const CoreExpr* site, const char* prim, DecisionKind kind,
                             const std::optional<Num>& natural, const Closeness<Num>& close, const Num& argument) {
  if (recording()) {
    if (!natural) throw std::logic_error(std::string("oracle: ") + prim + " recorded a decision without an outcome");
    heap_.charge(1);
    trace_.push_back({site, prim, kind, *natural, argument, close});
    return *natural;
  }
  if (next_ >= replay_->size() || (*replay_)[next_].site != site)
    throw DmciError(ErrorKind::Domain, "oracle: the replayed run left the seed's path", site->pos);
  const Decision<Num>& seed = (*replay_)[next_];
  if (flips_.size() < kMaxFlips && (!natural || !sameOutcome(*natural, seed.outcome))) flips_.push_back(next_);
  ++next_;
  return seed.outcome;
}

template <class Num>
Output<Num> Interpreter<Num>::output(const Value<Num>& v) const {
  Output<Num> out;
  if (v.kind == Kind::Number) {
    out.total = v.num;
    return out;
  }
  if (v.kind != Kind::Tensor)
    throw DmciError(ErrorKind::Type, "the program's value must be a number or a tensor, got " + show(v),
                    program_.valuePos);
  const Tensor<Num>& t = v.tensor();
  out.isTensor = true;
  out.rank = t.rank, out.rows = t.rows, out.cols = t.cols;
  out.data = t.data;
  for (const Num& x : t.data) out.total += x;
  return out;
}

template struct PrimCall<Wide>;
template struct PrimRegistry<Wide>;
template const PrimRegistry<Wide>& primRegistry<Wide>();
template std::string show<Wide>(const Value<Wide>&);
template class Interpreter<Wide>;

}  // namespace dmci::oracle
