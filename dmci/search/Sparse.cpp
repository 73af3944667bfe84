// Sparse linear forms: the basis over the task's variables, the target's transforms, the selection path by normal
// equations, and each subset written as a program whose literals are the fitted coefficients.
#include "search/Sparse.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

namespace dmci::search {

namespace {

Expr call(const std::string& op, std::vector<Expr> args) {
  args.insert(args.begin(), Expr::sym(op));
  return Expr::list(std::move(args));
}

// A coefficient as a literal: never an exact integer (an integer literal keys as structure, search/Expr.h).
Expr literal(double c) {
  if (c == std::round(c)) c = c == 0 ? 0x1p-30 : c * (1 + 0x1p-40);
  return Expr::num(c);
}

struct Term {
  Expr expr;                  // what the program writes; a number for the constant term
  bool constant = false;      // the term 1
  std::vector<double> value;  // over the training rows
  bool monomial = false;      // degree ≤ 2 in the variables (the ratio's terms)
};

// The basis over the training rows (terms that are not finite on some row are left out).
std::vector<Term> basis(const Task& task, const std::vector<std::vector<double>>& x, const SparseSettings& s) {
  const size_t n = task.vars.size(), rows = task.train.size();
  std::vector<Term> out;
  auto add = [&](Expr e, std::vector<double> v, bool monomial, bool constant = false) {
    if (out.size() >= static_cast<size_t>(s.maxBasis)) return;
    for (double d : v)
      if (!std::isfinite(d)) return;
    out.push_back({std::move(e), constant, std::move(v), monomial});
  };
  add(Expr::num(1), std::vector<double>(rows, 1.0), true, true);
  for (size_t i = 0; i < n; ++i) add(Expr::sym(task.vars[i]), x[i], true);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i; j < n; ++j) {
      std::vector<double> v(rows);
      for (size_t r = 0; r < rows; ++r) v[r] = x[i][r] * x[j][r];
      add(call("*", {Expr::sym(task.vars[i]), Expr::sym(task.vars[j])}), std::move(v), true);
    }
  for (const char* f : {"sin", "cos"})
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> v(rows);
      for (size_t r = 0; r < rows; ++r) v[r] = f[0] == 's' ? std::sin(x[i][r]) : std::cos(x[i][r]);
      Expr e = call(f, {Expr::sym(task.vars[i])});
      for (size_t j = 0; j < n; ++j) {
        std::vector<double> w(rows);
        for (size_t r = 0; r < rows; ++r) w[r] = x[j][r] * v[r];
        add(call("*", {Expr::sym(task.vars[j]), e}), std::move(w), false);
      }
      add(e, std::move(v), false);
    }
  return out;
}

const double kRidge = 1e-9;

// Cholesky solve of the k x k system A c = b (A symmetric); false when a pivot is not positive enough.
bool solve(std::vector<double> a, std::vector<double> b, size_t k, std::vector<double>& c) {
  for (size_t j = 0; j < k; ++j) {
    double d = a[j * k + j];
    for (size_t p = 0; p < j; ++p) d -= a[j * k + p] * a[j * k + p];
    if (!(d > 1e-12)) return false;
    d = std::sqrt(d);
    a[j * k + j] = d;
    for (size_t i = j + 1; i < k; ++i) {
      double v = a[i * k + j];
      for (size_t p = 0; p < j; ++p) v -= a[i * k + p] * a[j * k + p];
      a[i * k + j] = v / d;
    }
  }
  for (size_t i = 0; i < k; ++i) {
    for (size_t p = 0; p < i; ++p) b[i] -= a[i * k + p] * b[p];
    b[i] /= a[i * k + i];
  }
  for (size_t i = k; i-- > 0;) {
    for (size_t p = i + 1; p < k; ++p) b[i] -= a[p * k + i] * b[p];
    b[i] /= a[i * k + i];
  }
  c = std::move(b);
  return true;
}

// The normal equations of unit-scaled columns, built once; each subset is solved from them.
struct Normal {
  size_t m = 0;
  std::vector<double> norm, gram, rhs;
  double yy = 0;
  Normal(const std::vector<std::vector<double>>& cols, const std::vector<double>& y) : m(cols.size()) {
    norm.assign(m, 0), gram.assign(m * m, 0), rhs.assign(m, 0);
    for (size_t i = 0; i < m; ++i) {
      double s = 0;
      for (double v : cols[i]) s += v * v;
      norm[i] = s > 0 ? std::sqrt(s) : 0;
    }
    for (size_t i = 0; i < m; ++i) {
      if (norm[i] == 0) continue;
      for (size_t j = i; j < m; ++j) {
        if (norm[j] == 0) continue;
        double s = 0;
        for (size_t r = 0; r < y.size(); ++r) s += cols[i][r] * cols[j][r];
        gram[i * m + j] = gram[j * m + i] = s / (norm[i] * norm[j]);
      }
      double s = 0;
      for (size_t r = 0; r < y.size(); ++r) s += cols[i][r] * y[r];
      rhs[i] = s / norm[i];
    }
    for (double v : y) yy += v * v;
  }
  // The residual sum of squares of the subset (infinity when singular); its scaled coefficients in `c`.
  double rss(const std::vector<size_t>& use, std::vector<double>& c) const {
    const size_t k = use.size();
    if (k == 0) return yy;
    std::vector<double> a(k * k), b(k);
    for (size_t i = 0; i < k; ++i) {
      if (norm[use[i]] == 0) return std::numeric_limits<double>::infinity();
      b[i] = rhs[use[i]];
      for (size_t j = 0; j < k; ++j) a[i * k + j] = gram[use[i] * m + use[j]];
      // A ridge far below any fit's precision: a set with dependent columns (a ratio whose top and bottom share a
      // factor) still solves, and elimination takes out the columns it does not need.
      a[i * k + i] += kRidge;
    }
    if (!solve(std::move(a), b, k, c)) return std::numeric_limits<double>::infinity();
    double fit = 0;
    for (size_t i = 0; i < k; ++i) fit += b[i] * c[i];
    return std::max(0.0, yy - fit);
  }
};

}  // namespace

std::vector<double> leastSquares(const std::vector<std::vector<double>>& cols, const std::vector<double>& y,
                                 const std::vector<size_t>& use) {
  Normal n(cols, y);
  std::vector<double> c;
  if (!std::isfinite(n.rss(use, c))) return {};
  for (size_t i = 0; i < use.size(); ++i) c[i] /= n.norm[use[i]];
  return c;
}

std::vector<std::vector<size_t>> selectionPath(const std::vector<std::vector<double>>& cols,
                                               const std::vector<double>& y, const SparseSettings& s) {
  Normal n(cols, y);
  const size_t m = cols.size(), maxTerms = static_cast<size_t>(std::max(1, s.maxTerms));
  std::vector<double> c;
  const double exact = 1e-24 * n.yy;  // below this the fit is exact to rounding: more terms cannot help
  std::vector<size_t> set;
  if (m <= static_cast<size_t>(s.backwardAll)) {
    for (size_t i = 0; i < m; ++i) set.push_back(i);
  } else {
    double current = n.yy;
    while (set.size() < maxTerms + 4 && current > exact) {
      size_t best = m;
      double bestRss = current;
      for (size_t j = 0; j < m; ++j) {
        if (std::find(set.begin(), set.end(), j) != set.end()) continue;
        std::vector<size_t> trial = set;
        trial.insert(std::upper_bound(trial.begin(), trial.end(), j), j);
        double r = n.rss(trial, c);
        if (r < bestRss) best = j, bestRss = r;
      }
      if (best == m) break;
      set.insert(std::upper_bound(set.begin(), set.end(), best), best);
      current = bestRss;
    }
  }
  std::vector<std::vector<size_t>> path;
  while (!set.empty()) {
    if (set.size() <= maxTerms && std::isfinite(n.rss(set, c))) path.push_back(set);
    size_t drop = set.size();
    double bestRss = std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < set.size(); ++k) {
      std::vector<size_t> trial = set;
      trial.erase(trial.begin() + static_cast<std::ptrdiff_t>(k));
      double r = n.rss(trial, c);
      if (r < bestRss || (drop == set.size() && !std::isfinite(bestRss))) drop = k, bestRss = r;
    }
    set.erase(set.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<Candidate> sparseCandidates(const Task& task, const SparseSettings& s,
                                        const std::function<bool(const Candidate&)>& fresh, uint64_t limit) {
  std::vector<Candidate> out;
  if (task.vars.empty() || task.train.size() < 8) return out;
  const size_t rows = task.train.size();
  std::vector<std::vector<double>> x(task.vars.size(), std::vector<double>(rows));
  for (size_t i = 0; i < task.vars.size(); ++i) {
    int col = task.data->find(task.vars[i]);
    if (col < 0) return out;
    for (size_t r = 0; r < rows; ++r) x[i][r] = task.data->columns[static_cast<size_t>(col)][task.train[r]];
  }
  int ycol = task.data->find(task.target);
  if (ycol < 0) return out;
  std::vector<double> y(rows);
  for (size_t r = 0; r < rows; ++r) y[r] = task.data->columns[static_cast<size_t>(ycol)][task.train[r]];
  for (double v : y)
    if (!std::isfinite(v)) return out;
  std::vector<Term> terms = basis(task, x, s);
  if (terms.empty()) return out;

  auto emit = [&](Candidate k) {
    if (limit && out.size() >= limit) return;
    if (fresh(k)) out.push_back(std::move(k));
  };
  // A sum of coefficients times terms.
  auto sum = [&](const std::vector<const Term*>& ts, const std::vector<double>& coef) {
    std::vector<Expr> parts;
    for (size_t i = 0; i < ts.size(); ++i)
      parts.push_back(ts[i]->constant ? literal(coef[i]) : call("*", {literal(coef[i]), ts[i]->expr}));
    return parts.size() == 1 ? parts[0] : call("+", std::move(parts));
  };

  // The transforms of the target and how a program undoes each.
  const char* transforms[] = {"", "sqrt", "inverse", "exp", "asin"};
  // y = asin(L): sin y over the basis, when every y is an angle asin can give.
  const bool angles = std::all_of(y.begin(), y.end(), [](double v) { return std::fabs(v) <= std::numbers::pi / 2; });
  std::vector<std::vector<double>> cols;
  for (const auto& t : terms) cols.push_back(t.value);
  for (const char* how : transforms) {
    std::string h = how;
    std::vector<double> z(rows);
    bool ok = true;
    for (size_t r = 0; r < rows && ok; ++r) {
      if (h.empty()) z[r] = y[r];
      if (h == "sqrt") z[r] = y[r] * y[r];
      if (h == "inverse") z[r] = 1 / y[r];
      if (h == "exp") z[r] = y[r] > 0 ? std::log(y[r]) : NAN;
      if (h == "asin") z[r] = angles ? std::sin(y[r]) : NAN;
      ok = std::isfinite(z[r]);
    }
    if (!ok) continue;
    for (const auto& use : selectionPath(cols, z, s)) {
      std::vector<double> coef = leastSquares(cols, z, use);
      if (coef.empty()) continue;
      std::vector<const Term*> ts;
      for (size_t i : use) ts.push_back(&terms[i]);
      Expr l = sum(ts, coef);
      if (h == "inverse")
        l = call("/", {std::move(l)});
      else if (!h.empty())
        l = call(h, {std::move(l)});
      emit(Candidate{{std::move(l)}, {}});
    }
  }

  // The log-linear form y = C x^p z^q ... e^(L): log y over the logs of the positive variables (their powers), the
  // basis's monomials and their quotients (1/x, 1/x², x/z, x z/w, x z/w²): a Gaussian e^(-θ²/2σ²)/(√(2π) σ), a
  // Boltzmann factor n0 e^(-m g x/(k T)), a power law times either.
  // Over y itself and, for angles, over sin y (asin(λ/(n d)) is asin of C λ^1 n^-1 d^-1).
  const bool positive = std::all_of(y.begin(), y.end(), [](double v) { return v > 0; });
  const bool positiveSines = angles && std::all_of(y.begin(), y.end(), [](double v) { return std::sin(v) > 0; });
  if (positive || positiveSines) {
    // The basis's monomials (its sines and cosines are the exp transform's), so that a small set is eliminated
    // from whole: forward selection over correlated quotients misses the Gaussian's three.
    std::vector<Term> lterms;
    for (const auto& t : terms)
      if (t.monomial) lterms.push_back(t);
    std::vector<int> logOf(lterms.size(), -1);
    const size_t n = task.vars.size();
    auto add = [&](Expr e, std::vector<double> v, int log = -1) {
      if (lterms.size() >= static_cast<size_t>(2 * s.maxBasis)) return;
      for (double d : v)
        if (!std::isfinite(d)) return;
      lterms.push_back({std::move(e), false, std::move(v), false});
      logOf.push_back(log);
    };
    for (size_t i = 0; i < n; ++i)
      if (std::all_of(x[i].begin(), x[i].end(), [](double v) { return v > 0; })) {
        std::vector<double> v(rows);
        for (size_t r = 0; r < rows; ++r) v[r] = std::log(x[i][r]);
        add(Expr::sym(task.vars[i]), std::move(v), static_cast<int>(i));
      }
    auto quotient = [&](std::vector<size_t> top, std::vector<size_t> bottom) {
      std::vector<double> v(rows, 1.0);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t i : top) v[r] *= x[i][r];
        for (size_t i : bottom) v[r] /= x[i][r];
      }
      auto product = [&](const std::vector<size_t>& f) {
        std::vector<Expr> e;
        for (size_t i : f) e.push_back(Expr::sym(task.vars[i]));
        return e.size() == 1 ? e[0] : call("*", std::move(e));
      };
      Expr e = top.empty() ? call("/", {product(bottom)}) : call("/", {product(top), product(bottom)});
      add(std::move(e), std::move(v));
    };
    for (size_t i = 0; i < n; ++i) quotient({}, {i}), quotient({}, {i, i});
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (i != j) quotient({i}, {j});
    for (size_t k = 0; k < n; ++k)
      for (size_t i = 0; i < n; ++i)
        for (size_t j = i; j < n; ++j)
          if (i != k && j != k) quotient({i, j}, {k, k}), quotient({i, j}, {k});
    std::vector<std::vector<double>> lcols;
    for (const auto& t : lterms) lcols.push_back(t.value);
    SparseSettings ls = s;
    ls.backwardAll = std::max(s.backwardAll, 64);
    for (bool sine : {false, true}) {
      if (!(sine ? positiveSines : positive)) continue;
      std::vector<double> z(rows);
      for (size_t r = 0; r < rows; ++r) z[r] = std::log(sine ? std::sin(y[r]) : y[r]);
      for (const auto& use : selectionPath(lcols, z, ls)) {
        std::vector<double> coef = leastSquares(lcols, z, use);
        if (coef.empty()) continue;
        bool any = false;
        for (size_t i : use) any = any || logOf[i] >= 0;
        if (!any) continue;  // no power: the exp transform's form
        double scale = 1;
        std::vector<Expr> factors{Expr::sym("*")};
        std::vector<const Term*> ts;
        std::vector<double> tc;
        for (size_t k = 0; k < use.size(); ++k) {
          const size_t i = use[k];
          if (lterms[i].constant)
            scale = std::exp(coef[k]);
          else if (logOf[i] >= 0)
            factors.push_back(call("expt", {lterms[i].expr, literal(coef[k])}));
          else
            ts.push_back(&lterms[i]), tc.push_back(coef[k]);
        }
        if (!std::isfinite(scale)) continue;
        factors.insert(factors.begin() + 1, literal(scale));
        if (!ts.empty()) factors.push_back(call("exp", {sum(ts, tc)}));
        Expr form = Expr::list(std::move(factors));
        emit(Candidate{{sine ? call("asin", {std::move(form)}) : std::move(form)}, {}});
      }
    }
  }
  // The ratio y = P / (1 + Q), fitted as y = P - y Q over the monomials.
  std::vector<const Term*> mono;
  for (const auto& t : terms)
    if (t.monomial) mono.push_back(&t);
  std::vector<std::vector<double>> rcols;
  std::vector<std::pair<const Term*, bool>> rterms;  // the term, and whether it is Q's
  for (const Term* t : mono) rcols.push_back(t->value), rterms.push_back({t, false});
  for (const Term* t : mono) {
    if (t->constant) continue;
    std::vector<double> v(rows);
    for (size_t r = 0; r < rows; ++r) v[r] = -y[r] * t->value[r];
    rcols.push_back(std::move(v)), rterms.push_back({t, true});
  }
  for (const auto& use : selectionPath(rcols, y, s)) {
    std::vector<double> coef = leastSquares(rcols, y, use);
    if (coef.empty()) continue;
    std::vector<const Term*> p, q;
    std::vector<double> pc, qc;
    for (size_t i = 0; i < use.size(); ++i) {
      auto [t, isQ] = rterms[use[i]];
      (isQ ? q : p).push_back(t), (isQ ? qc : pc).push_back(coef[i]);
    }
    if (p.empty() || q.empty()) continue;  // no ratio (a plain sum is the first transform's)
    Expr den = call("+", {Expr::num(1), sum(q, qc)});
    emit(Candidate{{call("/", {sum(p, pc), std::move(den)})}, {}});
  }
  return out;
}

}  // namespace dmci::search
