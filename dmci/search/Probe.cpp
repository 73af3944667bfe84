// The power-law probe: the log-log least-squares fit, its exponents rounded, the monomials written as programs.
#include "search/Probe.h"

#include <algorithm>
#include <cmath>

namespace dmci::search {

namespace {

// Solves the square system a x = b (Gaussian elimination with partial pivoting); false when it is singular.
bool solve(std::vector<std::vector<double>> a, std::vector<double> b, std::vector<double>& x) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    if (!(std::fabs(a[p][c]) > 1e-12)) return false;
    std::swap(a[p], a[c]), std::swap(b[p], b[c]);
    for (size_t r = c + 1; r < n; ++r) {
      double f = a[r][c] / a[c][c];
      for (size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  x.assign(n, 0);
  for (size_t c = n; c-- > 0;) {
    double s = b[c];
    for (size_t k = c + 1; k < n; ++k) s -= a[c][k] * x[k];
    x[c] = s / a[c][c];
  }
  return true;
}

// x^(e) for e a multiple of 1/2, |e| >= 1/2, as factors: x for each whole power, (sqrt x) for the half.
void factors(const std::string& name, double e, std::vector<Expr>& out) {
  const int halves = static_cast<int>(std::lround(std::fabs(e) * 2));
  for (int k = 0; k < halves / 2; ++k) out.push_back(Expr::sym(name));
  if (halves % 2) out.push_back(Expr::list({Expr::sym("sqrt"), Expr::sym(name)}));
}

Expr product(std::vector<Expr> items) {
  if (items.size() == 1) return std::move(items[0]);
  items.insert(items.begin(), Expr::sym("*"));
  return Expr::list(std::move(items));
}

// c times the monomial with these exponents (each a multiple of 1/2).
Candidate monomial(const std::vector<std::string>& vars, const std::vector<double>& e, double c) {
  std::vector<Expr> up{Expr::num(c)}, down;
  for (size_t i = 0; i < vars.size(); ++i) factors(vars[i], e[i], e[i] > 0 ? up : down);
  Expr value = product(std::move(up));
  if (!down.empty()) value = Expr::list({Expr::sym("/"), std::move(value), product(std::move(down))});
  return {{std::move(value)}, {}};
}

}  // namespace

std::vector<Candidate> powerLawProbes(const Task& t) {
  const auto& y = t.data->columns[static_cast<size_t>(t.data->find(t.target))];
  std::vector<const std::vector<double>*> x;
  for (const auto& v : t.vars) x.push_back(&t.data->columns[static_cast<size_t>(t.data->find(v))]);
  const size_t n = x.size() + 1;
  if (t.train.size() < 2 * n) return {};
  auto oneSign = [&](const std::vector<double>& col) {
    bool pos = true, neg = true;
    for (size_t r : t.train) pos = pos && col[r] > 0, neg = neg && col[r] < 0;
    return pos || neg;
  };
  if (!oneSign(y) || !std::all_of(x.begin(), x.end(), [&](const auto* c) { return oneSign(*c); })) return {};
  // The normal equations of log|y| = b0 + sum b_i log|x_i|.
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0));
  std::vector<double> b(n, 0), row(n);
  for (size_t r : t.train) {
    row[0] = 1;
    for (size_t i = 0; i < x.size(); ++i) row[i + 1] = std::log(std::fabs((*x[i])[r]));
    const double ly = std::log(std::fabs(y[r]));
    for (size_t i = 0; i < n; ++i) {
      b[i] += row[i] * ly;
      for (size_t k = 0; k < n; ++k) a[i][k] += row[i] * row[k];
    }
  }
  std::vector<double> beta;
  if (!solve(a, b, beta)) return {};
  const double sign = y[t.train[0]] < 0 ? -1 : 1;
  std::vector<Candidate> out;
  for (double step : {1.0, 0.5}) {
    std::vector<double> e(x.size());
    for (size_t i = 0; i < x.size(); ++i) e[i] = std::round(beta[i + 1] / step) * step;
    if (std::all_of(e.begin(), e.end(), [](double v) { return v == 0; })) continue;
    Candidate c = monomial(t.vars, e, sign * std::exp(beta[0]));  // the constant is refitted with the rounded powers
    if (std::none_of(out.begin(), out.end(), [&](const Candidate& o) { return o.forms == c.forms; }))
      out.push_back(std::move(c));
  }
  return out;
}

}  // namespace dmci::search
