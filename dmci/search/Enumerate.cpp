// The enumeration stage: the chains in their order, the pairs of the best chains, both batches scored by the loop.
#include "search/Enumerate.h"

#include <algorithm>
#include <cmath>

namespace dmci::search {

namespace {

const double kRateStart = 1 + 0x1p-20;

Expr call(const std::string& op, Expr a) { return Expr::list({Expr::sym(op), std::move(a)}); }
Expr call(const std::string& op, Expr a, Expr b) { return Expr::list({Expr::sym(op), std::move(a), std::move(b)}); }

Expr apply(const std::string& name, Expr t, double rate = kRateStart) {
  if (name.empty()) return t;
  if (name == "square") return call("*", t, t);
  if (name == "inverse") return call("/", std::move(t));
  if (name == "rsqrt") return call("/", call("sqrt", std::move(t)));
  if (name == "1-") return call("-", Expr::num(1), std::move(t));
  if (name == "1+") return call("+", Expr::num(1), std::move(t));
  // e^(k x): the rate is fitted (from `rate`): a law's exponent carries its constants, ħω/kT = (1/2π) hω/kT,
  // which no constant outside the exp can make up.
  if (name == "exp*") return call("exp", call("*", Expr::num(rate), std::move(t)));
  return call(name, std::move(t));  // sqrt exp log sin cos asin tanh
}

// Outer and inner templates that undo each other (or make one of a smaller chain) when nothing is between them.
bool undoes(const std::string& outer, const std::string& inner) {
  static const std::vector<std::pair<std::string, std::string>> pairs = {
      {"sqrt", "square"}, {"square", "sqrt"}, {"rsqrt", "square"},   {"inverse", "inverse"},
      {"log", "exp*"},    {"exp", "log"},     {"square", "inverse"}, {"inverse", "sqrt"}};
  return std::find(pairs.begin(), pairs.end(), std::make_pair(outer, inner)) != pairs.end();
}

Candidate scaled(const Expr& body, double scale, const std::map<std::string, double>& params) {
  return {{call("*", Expr::num(scale), body)}, params};
}

// The chain expression inside a first-batch candidate (* C chain).
const Expr& body(const Candidate& c) { return c.value().items[2]; }

}  // namespace

const std::vector<std::string>& innerTemplates() {
  static const std::vector<std::string> t = {"", "square", "sqrt", "inverse", "exp*", "log", "sin", "cos"};
  return t;
}
const std::vector<std::string>& middleTemplates() {
  static const std::vector<std::string> t = {"", "1-", "1+"};
  return t;
}
const std::vector<std::string>& outerTemplates() {
  static const std::vector<std::string> t = {"", "inverse", "sqrt", "rsqrt", "square", "exp", "log", "asin", "tanh"};
  return t;
}

double rateStart(const Task& task, const std::string& v) {
  const int xc = task.data ? task.data->find(v) : -1;
  double sum = 0, n = 0;
  if (xc >= 0)
    for (size_t r : task.train)
      if (double x = task.data->columns[static_cast<size_t>(xc)][r]; std::isfinite(x)) sum += x * x, n += 1;
  const double rate = n > 0 && sum > 0 ? std::sqrt(n / sum) : 1;
  if (!std::isfinite(rate)) return kRateStart;
  return rate == std::round(rate) ? rate * kRateStart : rate;  // an integer literal would key as a structure
}

Expr chainExpr(const Chain& c, const Expr& x, double rate) {
  Expr e = apply(outerTemplates()[static_cast<size_t>(c.outer)],
                 apply(middleTemplates()[static_cast<size_t>(c.middle)],
                       apply(innerTemplates()[static_cast<size_t>(c.inner)], x, rate)));
  return c.times ? call("*", x, std::move(e)) : e;
}

std::vector<Chain> chainsUpTo(int size) {
  std::vector<Chain> all;
  const int ni = static_cast<int>(innerTemplates().size()), nm = static_cast<int>(middleTemplates().size()),
            no = static_cast<int>(outerTemplates().size());
  for (bool times : {false, true})
    for (int m = 0; m < nm; ++m)
      for (int i = 0; i < ni; ++i)
        for (int o = 0; o < no; ++o) {
          Chain c{i, m, o, times};
          if (c.size() > size || (times && c.size() == 1)) continue;  // x times x is the square chain
          if (m == 0 && i > 0 && o > 0 &&
              undoes(outerTemplates()[static_cast<size_t>(o)], innerTemplates()[static_cast<size_t>(i)]))
            continue;
          all.push_back(c);
        }
  std::stable_sort(all.begin(), all.end(), [](const Chain& a, const Chain& b) { return a.size() < b.size(); });
  return all;
}

int powerLawSlope(const Task& task, const std::string& v) {
  const int xc = task.data ? task.data->find(v) : -1, yc = task.data ? task.data->find(task.target) : -1;
  if (xc < 0 || yc < 0) return 0;
  const auto &xs = task.data->columns[static_cast<size_t>(xc)], &ys = task.data->columns[static_cast<size_t>(yc)];
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t r : task.train) {
    const double lx = std::log(std::fabs(xs[r])), ly = std::log(std::fabs(ys[r]));
    if (!std::isfinite(lx) || !std::isfinite(ly)) continue;
    n += 1, sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  const double var = sxx - sx * sx / std::max(n, 1.0);
  if (n < 10 || !(var > 1e-12 * std::max(1.0, sxx))) return 0;
  const double k = std::round((sxy - sx * sy / n) / var);
  return std::fabs(k) <= 3 ? static_cast<int>(k) : 0;
}

std::vector<Candidate> chainCandidates(const Task& task, const EnumerateSettings& e, double scale,
                                       const std::function<bool(const Candidate&)>& fresh) {
  std::vector<Candidate> out;
  if (e.size <= 0) return out;
  std::vector<Chain> chains = chainsUpTo(e.size);
  std::vector<int> slopes;
  std::vector<double> rates;
  for (const auto& v : task.vars) slopes.push_back(powerLawSlope(task, v)), rates.push_back(rateStart(task, v));
  for (int size = 0; size <= e.size; ++size)
    for (size_t vi = 0; vi < task.vars.size(); ++vi)
      for (const auto& c : chains) {
        if (c.size() != size) continue;
        const Expr x = Expr::sym(task.vars[vi]);
        if (e.limit && out.size() >= e.limit) return out;
        Candidate k = scaled(chainExpr(c, x, rates[vi]), scale, {});
        if (fresh(k)) out.push_back(std::move(k));
        // x^p times the chain, p the variable's power-law slope when that is not 0 or 1 (the times slot's x):
        // the same size as x times it.
        const int p = slopes[vi];
        if (!c.times || p == 0 || p == 1) continue;
        if (e.limit && out.size() >= e.limit) return out;
        Expr power = x;
        for (int j = 1; j < std::abs(p); ++j) power = call("*", std::move(power), x);
        Chain bare = c;
        bare.times = false;
        Expr chain = chainExpr(bare, x, rates[vi]);
        Candidate v = scaled(
            p > 0 ? call("*", std::move(power), std::move(chain)) : call("/", std::move(chain), std::move(power)),
            scale, {});
        if (fresh(v)) out.push_back(std::move(v));
      }
  return out;
}

std::vector<Candidate> pairCandidates(const Task& task, const EnumerateSettings& e, double scale,
                                      const std::vector<Candidate>& first,
                                      const std::vector<std::optional<Member>>& scored,
                                      const std::function<bool(const Candidate&)>& fresh, uint64_t limit) {
  std::vector<Candidate> out;
  if (task.vars.size() < 2 || e.keep <= 0) return out;
  // Each variable's best chains: the first batch's members that read that variable alone, best first.
  std::vector<std::vector<size_t>> best(task.vars.size());
  for (size_t v = 0; v < task.vars.size(); ++v) {
    std::vector<size_t> mine;
    for (size_t k = 0; k < first.size() && k < scored.size(); ++k) {
      if (!scored[k] || !std::isfinite(scored[k]->score)) continue;
      auto syms = symbolsOf(body(first[k]));
      if (std::find(syms.begin(), syms.end(), task.vars[v]) != syms.end()) mine.push_back(k);
    }
    // Ranked by score alone. (A price on size, score x (1 + 0.02 per node), keeps a separable law's simple factor
    // over larger chains that fit its other variables' spread a little better by chance, but on the Feynman subset
    // it lost I.15.3x and II.11.27 and gained nothing: reports/search-bench/enum/README.md.)
    std::stable_sort(mine.begin(), mine.end(), [&](size_t a, size_t b) { return better(*scored[a], *scored[b]); });
    if (mine.size() > static_cast<size_t>(e.keep)) mine.resize(static_cast<size_t>(e.keep));
    best[v] = mine;
  }
  for (size_t a = 0; a < task.vars.size(); ++a)
    for (size_t b = a + 1; b < task.vars.size(); ++b)
      for (size_t i : best[a])
        for (size_t j : best[b])
          for (int sum = 0; sum < 2; ++sum) {
            if (limit && out.size() >= limit) return out;
            const Expr &f = body(first[i]), &g = body(first[j]);
            Expr value = sum ? call("+", call("*", Expr::num(scale), f), call("*", Expr::num(scale), g))
                             : call("*", Expr::num(scale), call("*", f, g));
            Candidate k{{std::move(value)}, {}};
            if (fresh(k)) out.push_back(std::move(k));
          }
  return out;
}

std::vector<Member> enumerateStage(const Task& task, const EnumerateSettings& e,
                                   const std::map<std::string, double>& params,
                                   const std::function<bool(const Candidate&)>& fresh, const ScoreBatch& score) {
  if (e.size <= 0 || task.vars.empty()) return {};
  // The constant's start: the target's mean size on the training rows (a fit moves a linear constant in one step).
  const auto& y = task.data->columns[static_cast<size_t>(task.data->find(task.target))];
  double scale = 0;
  for (size_t r : task.train) scale += std::fabs(y[r]);
  scale = task.train.empty() || !(scale > 0) || !std::isfinite(scale) ? 1.5 : scale / task.train.size();
  if (scale == std::round(scale)) scale *= 1 + 0x1p-20;  // an integer literal would key as a structure

  std::vector<Member> members;
  EnumerateSettings chains = e;
  if (e.sparse > 0) {
    SparseSettings s;
    s.maxTerms = e.sparse;
    std::vector<Candidate> sparse = sparseCandidates(task, s, fresh, e.limit ? e.limit / 4 : 0);
    for (auto& c : sparse) c.params = params;
    for (const auto& m : score(sparse))
      if (m) members.push_back(*m);
    if (e.limit && sparse.size() >= e.limit) chains.size = 0;  // the budget is spent (0 would mean no limit)
    if (e.limit) chains.limit = e.limit - std::min<uint64_t>(e.limit, sparse.size());
  }
  std::vector<Candidate> first = chainCandidates(task, chains, scale, fresh);
  for (auto& c : first) c.params = params;
  std::vector<std::optional<Member>> scored = score(first);
  uint64_t left = chains.limit ? (chains.limit > first.size() ? chains.limit - first.size() : 0) : 0;
  for (const auto& m : scored)
    if (m) members.push_back(*m);
  if (chains.size > 0 && (!chains.limit || left > 0)) {
    std::vector<Candidate> pairs = pairCandidates(task, chains, scale, first, scored, fresh, left);
    for (auto& c : pairs) c.params = params;
    for (const auto& m : score(pairs))
      if (m) members.push_back(*m);
  }
  std::stable_sort(members.begin(), members.end(), better);
  if (members.size() > static_cast<size_t>(std::max(0, e.seeds))) members.resize(static_cast<size_t>(e.seeds));
  return members;
}

}  // namespace dmci::search
