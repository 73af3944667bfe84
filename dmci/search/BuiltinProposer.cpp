// The built-in proposer's edits, each on a copy of the parent's value expression.
#include "search/BuiltinProposer.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace dmci::search {

namespace {

const std::vector<std::pair<std::string, int>> kOperators = {
    {"+", 2},   {"-", 2},   {"*", 2},   {"/", 2},    {"expt", 2}, {"min", 2},  {"max", 2},  {"exp", 1},
    {"log", 1}, {"sin", 1}, {"cos", 1}, {"sqrt", 1}, {"abs", 1},  {"tanh", 1}, {"atan", 1}, {"square", 1}};

bool isVariadic(const std::string& op) { return op == "+" || op == "-" || op == "*" || op == "/"; }

// A list headed by a known operator, with operands: a node edits enter.
bool isOperatorNode(const Expr& e) { return e.isList() && e.items.size() >= 2 && operatorArity(e.head()) > 0; }

// The nodes edits may touch: the root, and the operands of operator nodes, depth first.
void sitesOf(Expr& e, std::vector<Expr*>& out) {
  out.push_back(&e);
  if (isOperatorNode(e))
    for (size_t k = 1; k < e.items.size(); ++k) sitesOf(e.items[k], out);
}

template <class T>
T& pick(std::vector<T>& v, std::mt19937_64& rng) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

bool coin(double p, std::mt19937_64& rng) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

std::optional<double> fold(const std::string& op, const std::vector<double>& a) {
  if (a.empty()) return std::nullopt;
  double x = a[0];
  if (op == "+" || op == "*") {
    for (size_t k = 1; k < a.size(); ++k) x = op == "+" ? x + a[k] : x * a[k];
  } else if (op == "-" || op == "/") {
    if (a.size() == 1) return op == "-" ? -x : 1 / x;
    for (size_t k = 1; k < a.size(); ++k) x = op == "-" ? x - a[k] : x / a[k];
  } else if (a.size() == 2) {
    if (op == "expt")
      x = std::pow(a[0], a[1]);
    else if (op == "min")
      x = std::min(a[0], a[1]);
    else if (op == "max")
      x = std::max(a[0], a[1]);
    else
      return std::nullopt;
  } else if (a.size() == 1) {
    static const std::vector<std::pair<std::string, double (*)(double)>> unary = {
        {"exp", std::exp},   {"log", std::log},  {"sin", std::sin},   {"cos", std::cos},
        {"sqrt", std::sqrt}, {"abs", std::fabs}, {"tanh", std::tanh}, {"atan", std::atan}};
    auto it = std::find_if(unary.begin(), unary.end(), [&](const auto& u) { return u.first == op; });
    if (op == "square")
      x = x * x;
    else if (it != unary.end())
      x = it->second(x);
    else
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

// x·1, 1·x, x+0, 0+x, x-0, x/1, x^1: the operand that stays, or nullopt.
std::optional<Expr> identity(const Expr& e) {
  if (e.items.size() != 3) return std::nullopt;
  const Expr &a = e.items[1], &b = e.items[2];
  auto is = [](const Expr& x, double v) { return x.isNumber() && x.number == v; };
  const std::string& op = e.head();
  if (op == "*" && is(b, 1)) return a;
  if (op == "*" && is(a, 1)) return b;
  if (op == "+" && is(b, 0)) return a;
  if (op == "+" && is(a, 0)) return b;
  if ((op == "-" && is(b, 0)) || (op == "/" && is(b, 1)) || (op == "expt" && is(b, 1))) return a;
  return std::nullopt;
}

}  // namespace

int operatorArity(const std::string& name) {
  for (const auto& [op, arity] : kOperators)
    if (op == name) return arity;
  return 0;
}

std::string knownOperators() {
  std::string out;
  for (const auto& [op, arity] : kOperators) out += (out.empty() ? "" : " ") + op;
  return out;
}

bool simplify(Expr& e) {
  bool changed = false;
  if (!isOperatorNode(e)) return false;
  for (size_t k = 1; k < e.items.size(); ++k) changed |= simplify(e.items[k]);
  std::vector<double> args;
  for (size_t k = 1; k < e.items.size(); ++k)
    if (e.items[k].isNumber()) args.push_back(e.items[k].number);
  if (args.size() + 1 == e.items.size())
    if (auto x = fold(e.head(), args)) {
      e = Expr::num(*x);
      return true;
    }
  if (auto kept = identity(e)) {
    e = std::move(*kept);
    return true;
  }
  return changed;
}

const std::vector<std::string>& BuiltinProposer::editNames() {
  static const std::vector<std::string> names = {"constant", "operator", "swap",      "add",     "insert",
                                                 "delete",   "subtree",  "crossover", "simplify"};
  return names;
}

BuiltinProposer::BuiltinProposer(Grammar grammar, bool gradient) : g_(std::move(grammar)) {
  weights_ = {gradient ? 0.5 : 4.0, 1.0, 0.3, 1.5, 1.5, 1.0, 0.6, 0.5, 0.2};
}

Expr BuiltinProposer::terminal(std::mt19937_64& rng) const {
  double r = std::uniform_real_distribution<double>(0, 1)(rng);
  if (r < 0.5 && !g_.vars.empty())
    return Expr::sym(g_.vars[std::uniform_int_distribution<size_t>(0, g_.vars.size() - 1)(rng)]);
  if (r < 0.65 && !g_.params.empty())
    return Expr::sym(g_.params[std::uniform_int_distribution<size_t>(0, g_.params.size() - 1)(rng)]);
  double x = std::normal_distribution<double>(0, 1.5)(rng);
  return Expr::num(std::fabs(x) < 0.1 ? 1.0 : x);
}

Expr BuiltinProposer::randomTree(int depth, std::mt19937_64& rng) const {
  if (depth <= 1 || g_.ops.empty() || coin(0.3, rng)) return terminal(rng);
  const std::string& op = g_.ops[std::uniform_int_distribution<size_t>(0, g_.ops.size() - 1)(rng)];
  std::vector<Expr> items{Expr::sym(op)};
  for (int k = 0; k < operatorArity(op); ++k) items.push_back(randomTree(depth - 1, rng));
  return Expr::list(std::move(items));
}

Expr BuiltinProposer::wrap(Expr node, std::mt19937_64& rng) const {
  if (g_.ops.empty()) return node;
  const std::string& op = g_.ops[std::uniform_int_distribution<size_t>(0, g_.ops.size() - 1)(rng)];
  if (operatorArity(op) == 1) return Expr::list({Expr::sym(op), std::move(node)});
  Expr t = terminal(rng);
  if (coin(0.5, rng)) return Expr::list({Expr::sym(op), std::move(node), std::move(t)});
  return Expr::list({Expr::sym(op), std::move(t), std::move(node)});
}

std::optional<Candidate> BuiltinProposer::edit(const std::string& name, const Candidate& parent, const Candidate& other,
                                               std::mt19937_64& rng) const {
  Candidate c = parent;
  std::vector<Expr*> sites, ops, leaves, numbers;
  sitesOf(c.value(), sites);
  for (Expr* s : sites) (isOperatorNode(*s) ? ops : leaves).push_back(s);
  for (Expr* s : leaves)
    if (s->isNumber()) numbers.push_back(s);
  if (name == "constant") {
    std::vector<std::string> used;
    for (const auto& s : symbolsOf(c.value()))
      if (c.params.count(s)) used.push_back(s);
    size_t n = numbers.size() + used.size();
    if (n == 0) return std::nullopt;
    size_t k = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
    double& x = k < numbers.size() ? numbers[k]->number : c.params[used[k - numbers.size()]];
    double scale = std::pow(10.0, -std::uniform_int_distribution<int>(0, 6)(rng));
    if (x == 0)
      x = std::normal_distribution<double>(0, 1)(rng);
    else if (coin(0.1, rng))
      x = -x;
    else
      x *= 1 + scale * std::normal_distribution<double>(0, 1)(rng);
  } else if (name == "operator") {
    if (ops.empty()) return std::nullopt;
    Expr& node = *pick(ops, rng);
    size_t arity = node.items.size() - 1;
    std::vector<std::string> choices;
    for (const auto& op : g_.ops)
      if (op != node.head() && (arity > 2 ? isVariadic(op) : operatorArity(op) == static_cast<int>(arity)))
        choices.push_back(op);
    if (choices.empty()) return std::nullopt;
    node.items[0] = Expr::sym(pick(choices, rng));
  } else if (name == "swap") {
    std::vector<Expr*> binary;
    for (Expr* s : ops)
      if (s->items.size() >= 3) binary.push_back(s);
    if (binary.empty()) return std::nullopt;
    Expr& node = *pick(binary, rng);
    size_t i = std::uniform_int_distribution<size_t>(1, node.items.size() - 1)(rng);
    size_t j = std::uniform_int_distribution<size_t>(1, node.items.size() - 2)(rng);
    std::swap(node.items[i], node.items[j >= i ? j + 1 : j]);
  } else if (name == "add" || name == "insert") {
    Expr& node = name == "add" ? *pick(leaves, rng) : *pick(sites, rng);
    node = wrap(node, rng);
  } else if (name == "delete") {
    if (ops.empty()) return std::nullopt;
    Expr& node = *pick(ops, rng);
    Expr kept = node.items[std::uniform_int_distribution<size_t>(1, node.items.size() - 1)(rng)];
    node = std::move(kept);
  } else if (name == "subtree") {
    *pick(sites, rng) = randomTree(std::uniform_int_distribution<int>(1, 3)(rng), rng);
  } else if (name == "crossover") {
    Candidate donor = other;
    std::vector<Expr*> from;
    sitesOf(donor.value(), from);
    *pick(sites, rng) = *pick(from, rng);
  } else if (name == "simplify") {
    if (!simplify(c.value())) return std::nullopt;
  } else {
    return std::nullopt;
  }
  return c;
}

Proposal BuiltinProposer::propose(const Candidate& parent, const Candidate& other, std::mt19937_64& rng) const {
  std::discrete_distribution<size_t> menu(weights_.begin(), weights_.end());
  for (int attempt = 0; attempt < 20; ++attempt) {
    const std::string& name = editNames()[menu(rng)];
    auto child = edit(name, parent, other, rng);
    if (child) simplify(child->value());  // no constant subtree spends the size limit
    if (!child || (child->forms == parent.forms && child->params == parent.params)) continue;
    if (complexity(child->value()) > g_.maxSize || depth(child->value()) > g_.maxDepth) continue;
    return {std::move(*child), name};
  }
  return {parent, "none"};
}

}  // namespace dmci::search
