// The sparse-regression stage: the library, the whole library's Levenberg-Marquardt fit through the program, the beam
// over subsets on the linear model there, the candidates written back into the seed.
#include "search/Terms.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "driver/Program.h"
#include "fit/Model.h"

namespace dmci::search {

namespace {

Expr call(const std::string& op, std::vector<Expr> args) {
  args.insert(args.begin(), Expr::sym(op));
  return Expr::list(std::move(args));
}

// The factors of one variable, in the library's order.
std::vector<Expr> factorsOf(const std::string& name) {
  Expr v = Expr::sym(name);
  auto sq = [&] { return call("*", {v, v}); };
  std::vector<Expr> out = {v,
                           sq(),
                           call("*", {v, v, v}),
                           call("/", {v}),
                           call("sin", {v}),
                           call("cos", {v}),
                           call("*", {call("sin", {v}), call("sin", {v})}),
                           call("*", {call("cos", {v}), call("cos", {v})}),
                           call("/", {call("cos", {v}), call("sin", {v})}),
                           call("/", {v, call("+", {Expr::num(1), v})})};
  for (double k : {0.5, 1.0, 2.0}) out.push_back(call("/", {v, call("+", {Expr::num(k), sq()})}));
  for (double k : {0.5, 1.0, 2.0}) out.push_back(call("/", {call("+", {Expr::num(k), sq()})}));
  return out;
}

// Solves the symmetric positive definite n x n system a x = b in place (Cholesky: a becomes its factor, b the
// solution); false when a pivot is not positive. Raw arrays: the subsets' solves use the stack.
bool cholesky(double* a, double* b, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 1e-12)) return false;
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
  }
  for (size_t i = 0; i < n; ++i) {  // L y = b
    double s = b[i];
    for (size_t k = 0; k < i; ++k) s -= a[i * n + k] * b[k];
    b[i] = s / a[i * n + i];
  }
  for (size_t i = n; i-- > 0;) {  // L^T x = y
    double s = b[i];
    for (size_t k = i + 1; k < n; ++k) s -= a[k * n + i] * b[k];
    b[i] = s / a[i * n + i];
  }
  return true;
}

// The linear model at the library's fit: the normalised columns' Gram matrix, their products with the target of
// the linear model, its squared norm, and each column's norm.
struct Linear {
  size_t m = 0;
  std::vector<double> gram, g, norm;
  double bb = 0;
};

// A subset's least squares on the linear model: its residual sum of squares and coefficients (normalised), or
// nullopt when its block is singular. At most kMostTerms terms.
constexpr size_t kMostTerms = 8;
bool subsetFit(const Linear& lin, const size_t* s, size_t n, double& rss, double* beta) {
  double a[kMostTerms * kMostTerms], b[kMostTerms];
  for (size_t i = 0; i < n; ++i) {
    b[i] = beta[i] = lin.g[s[i]];
    for (size_t j = 0; j < n; ++j) a[i * n + j] = lin.gram[s[i] * lin.m + s[j]];
  }
  if (!cholesky(a, beta, n)) return false;
  double explained = 0;
  for (size_t i = 0; i < n; ++i) explained += b[i] * beta[i];
  rss = std::max(0.0, lin.bb - explained);
  return std::isfinite(rss);
}

// The rows where the residual and every Jacobian entry are finite.
std::vector<size_t> finiteRows(const std::vector<double>& r, const std::vector<double>& jac, size_t m) {
  std::vector<size_t> out;
  for (size_t i = 0; i < r.size(); ++i) {
    bool ok = std::isfinite(r[i]);
    for (size_t j = 0; ok && j < m; ++j) ok = std::isfinite(jac[i * m + j]);
    if (ok) out.push_back(i);
  }
  return out;
}

// The Gram matrix of the columns of `jac` (rows `rows`) scaled by 1/norm, and its product with `b`.
Linear linearModel(const std::vector<double>& jac, const std::vector<double>& b, const std::vector<size_t>& rows,
                   size_t m) {
  Linear lin;
  lin.m = m, lin.norm.assign(m, 0), lin.gram.assign(m * m, 0), lin.g.assign(m, 0);
  for (size_t i : rows)
    for (size_t j = 0; j < m; ++j) lin.norm[j] += jac[i * m + j] * jac[i * m + j];
  for (auto& n : lin.norm) n = n > 0 ? std::sqrt(n) : 0;
  std::vector<double> row(m);
  for (size_t i : rows) {
    for (size_t j = 0; j < m; ++j) row[j] = lin.norm[j] > 0 ? jac[i * m + j] / lin.norm[j] : 0;
    for (size_t j = 0; j < m; ++j) {
      if (row[j] == 0) continue;
      lin.g[j] += row[j] * b[i];
      for (size_t k = j; k < m; ++k) lin.gram[j * m + k] += row[j] * row[k];
    }
    lin.bb += b[i] * b[i];
  }
  for (size_t j = 0; j < m; ++j)
    for (size_t k = 0; k < j; ++k) lin.gram[j * m + k] = lin.gram[k * m + j];
  return lin;
}

// A name no symbol of `forms` starts with, for the coefficients.
std::string freshPrefix(const std::vector<Expr>& forms) {
  std::vector<std::string> used;
  for (const auto& f : forms)
    for (auto& s : symbolsOf(f)) used.push_back(s);
  std::string prefix = "term-coefficient-";
  while (std::any_of(used.begin(), used.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; }))
    prefix = "_" + prefix;
  return prefix;
}

// The whole library's fit through the program, then the linear model there; nullopt when it does not run.
struct LibraryFit {
  Linear lin;
  std::vector<size_t> terms;  // the library's terms behind the columns (those with a nonzero column)
};

std::optional<LibraryFit> fitLibrary(const Task& task, const ScoreSettings& score, const TermSettings& e,
                                     const Candidate& seed, const std::vector<Expr>& library) {
  Candidate whole = seed;
  const std::string prefix = freshPrefix(seed.forms);
  std::vector<Expr> sum{Expr::sym("+")};
  std::vector<std::string> names;
  for (size_t j = 0; j < library.size(); ++j) {
    names.push_back(prefix + std::to_string(j));
    sum.push_back(call("*", {Expr::sym(names.back()), library[j]}));
  }
  whole.value() = Expr::list(std::move(sum));
  const std::string text = printForms(whole.forms);
  auto program = Program::fromText(text, "terms");
  if (!program) return std::nullopt;
  fit::ModelSpec spec;
  spec.programPath = "terms", spec.programText = text, spec.wrt = names;
  for (const auto& name : names) spec.binds.emplace_back(name, 0.0);
  for (const auto& name : program->freeParameters()) {
    if (name.rfind(prefix, 0) == 0 || task.data->find(name) >= 0) continue;
    auto it = seed.params.find(name);
    if (it == seed.params.end()) return std::nullopt;
    spec.binds.emplace_back(name, it->second);  // the seed's parameters elsewhere stay at their values
  }
  spec.engine = score.engine, spec.options.threads = 1, spec.options.budget = score.budget;
  spec.options.budget.seconds *= 10;  // one run of the whole library, not of a candidate
  spec.data = task.data, spec.target = task.target, spec.trainRows = task.train;
  auto model = fit::makeModel(spec);
  if (!model) return std::nullopt;
  const fit::Fitted& f = (*model)->fitted();
  const size_t m = f.names.size();
  std::vector<size_t> column(library.size(), m);  // the column of each term
  for (size_t k = 0; k < m; ++k)
    if (f.names[k].rfind(prefix, 0) == 0) column[std::stoul(f.names[k].substr(prefix.size()))] = k;
  if (std::count(column.begin(), column.end(), m)) return std::nullopt;
  std::vector<double> theta = f.start, r, jac;
  auto at = [&](const std::vector<double>& th) {
    return catchErrors([&] {
      (*model)->residuals(th, r, &jac);
      return true;
    });
  };
  if (!at(theta)) return std::nullopt;
  // Levenberg-Marquardt on the whole library (its columns normalised, so the damping is relative; far from
  // independent, so it never vanishes): a step that does no better is taken back and the damping raised.
  auto linearAt = [&](const std::vector<size_t>& rows) {
    std::vector<double> minusR(r.size());
    for (size_t i = 0; i < r.size(); ++i) minusR[i] = -r[i];
    return linearModel(jac, minusR, rows, m);
  };
  std::vector<size_t> rows = finiteRows(r, jac, m);
  Linear lin = linearAt(rows);
  double damping = 1e-8;
  for (int step = 0, tries = 0; step < e.steps && tries < 4 * e.steps && damping < 1e6; ++tries) {
    if (rows.size() < r.size() / 2) break;
    std::vector<double> a = lin.gram, delta = lin.g;
    for (size_t j = 0; j < m; ++j) a[j * m + j] += damping;
    if (!cholesky(a.data(), delta.data(), m)) {
      damping *= 100;
      continue;
    }
    std::vector<double> next = theta;
    for (size_t j = 0; j < m; ++j)
      if (lin.norm[j] > 0) next[j] += delta[j] / lin.norm[j];
    double before = 0, after = 0;
    for (size_t i : rows) before += r[i] * r[i];
    std::vector<double> keepR = r, keepJ = jac;
    bool ran = static_cast<bool>(at(next));
    std::vector<size_t> now = ran ? finiteRows(r, jac, m) : std::vector<size_t>{};
    if (ran)
      for (size_t i : rows) after += std::isfinite(r[i]) ? r[i] * r[i] : INFINITY;
    if (!ran || !(after < before) || now.size() < rows.size()) {  // no better: back to the last point
      r = std::move(keepR), jac = std::move(keepJ);
      damping *= 100;
      continue;
    }
    theta = std::move(next), rows = std::move(now), lin = linearAt(rows);
    damping = std::max(1e-10, damping / 10);
    ++step;
    if (after <= 1e-24 * lin.bb) break;
  }
  // The linear model at theta: residual(c) ~ r + J (c - theta), so the target of J c is J theta - r.
  if (rows.size() < 2) return std::nullopt;
  std::vector<double> b(r.size(), 0);
  for (size_t i : rows) {
    double s = -r[i];
    for (size_t j = 0; j < m; ++j) s += jac[i * m + j] * theta[j];
    b[i] = s;
  }
  // The columns in the library's order.
  std::vector<double> ordered(r.size() * library.size(), 0);
  for (size_t i : rows)
    for (size_t j = 0; j < library.size(); ++j) ordered[i * library.size() + j] = jac[i * m + column[j]];
  LibraryFit out;
  out.lin = linearModel(ordered, b, rows, library.size());
  for (size_t j = 0; j < library.size(); ++j)
    if (out.lin.norm[j] > 0) out.terms.push_back(j);
  return out;
}

struct Subset {
  std::vector<size_t> terms;  // sorted
  double rss = 0;
  std::vector<double> beta;  // normalised
};

}  // namespace

std::vector<Expr> termLibrary(const std::vector<std::string>& vars, size_t maxTerms) {
  std::vector<Expr> out{Expr::num(1)};
  std::vector<std::vector<Expr>> factors;
  for (const auto& v : vars) factors.push_back(factorsOf(v));
  for (const auto& f : factors) out.insert(out.end(), f.begin(), f.end());
  for (size_t a = 0; a < vars.size(); ++a)
    for (size_t b = a + 1; b < vars.size(); ++b)
      for (const char* op : {"sin", "cos"})
        out.push_back(call(op, {call("-", {Expr::sym(vars[a]), Expr::sym(vars[b])})}));
  for (size_t a = 0; a < vars.size(); ++a)
    for (size_t b = a + 1; b < vars.size(); ++b)
      for (const auto& f : factors[a])
        for (const auto& g : factors[b]) out.push_back(call("*", {f, g}));
  if (out.size() > maxTerms) out.resize(maxTerms);
  return out;
}

Expr termSum(const std::vector<Expr>& terms, const std::vector<double>& coefficients) {
  std::vector<Expr> items;
  for (size_t k = 0; k < terms.size(); ++k) {
    const bool constant = terms[k].isNumber() && terms[k].number == 1;
    items.push_back(constant ? Expr::num(coefficients[k]) : call("*", {Expr::num(coefficients[k]), terms[k]}));
  }
  if (items.size() == 1) return items[0];
  return call("+", std::move(items));
}

std::vector<Candidate> termCandidates(const Task& task, const ScoreSettings& score, const TermSettings& e,
                                      const Candidate& seed, const std::vector<std::string>& vars) {
  if (e.size <= 0 || vars.empty() || task.train.empty()) return {};
  const std::vector<Expr> library = termLibrary(vars, e.maxTerms);
  auto fitted = fitLibrary(task, score, e, seed, library);
  if (!fitted || fitted->terms.empty()) return {};
  const Linear& lin = fitted->lin;
  auto better = [](const Subset& a, const Subset& b) { return a.rss < b.rss || (a.rss == b.rss && a.terms < b.terms); };
  const std::vector<size_t>& cols = fitted->terms;
  const size_t most = std::min<size_t>(static_cast<size_t>(e.size), kMostTerms);
  const size_t beamSize = static_cast<size_t>(std::max(1, e.beam));
  std::vector<Candidate> out;
  std::vector<Subset> beam{Subset{}};
  for (size_t size = 1; size <= most; ++size) {
    std::vector<Subset> next;
    auto consider = [&](std::vector<size_t> terms) {
      Subset t{std::move(terms), 0, std::vector<double>(size)};
      if (subsetFit(lin, t.terms.data(), size, t.rss, t.beta.data())) next.push_back(std::move(t));
      if (next.size() >= 4 * beamSize) {  // keep the best beamSize, in order
        std::sort(next.begin(), next.end(), better);
        next.resize(beamSize);
      }
    };
    // Every subset of up to three terms (a few million small solves); larger ones grow the best of the size before.
    const bool every = size <= 3 && cols.size() <= 400;
    if (every) {
      std::vector<size_t> idx(size);
      std::function<void(size_t, size_t)> choose = [&](size_t depth, size_t from) {
        if (depth == size) {
          std::vector<size_t> terms(size);
          for (size_t i = 0; i < size; ++i) terms[i] = cols[idx[i]];
          consider(std::move(terms));
          return;
        }
        for (size_t k = from; k < cols.size(); ++k) idx[depth] = k, choose(depth + 1, k + 1);
      };
      choose(0, 0);
    } else {
      std::set<std::vector<size_t>> tried;
      for (const Subset& s : beam)
        for (size_t j : cols) {
          if (std::find(s.terms.begin(), s.terms.end(), j) != s.terms.end()) continue;
          std::vector<size_t> terms = s.terms;
          terms.insert(std::upper_bound(terms.begin(), terms.end(), j), j);
          if (tried.insert(terms).second) consider(std::move(terms));
        }
    }
    std::sort(next.begin(), next.end(), better);
    if (next.size() > beamSize) next.resize(beamSize);
    if (next.empty()) break;
    for (size_t k = 0; k < next.size() && k < static_cast<size_t>(std::max(0, e.perSize)); ++k) {
      std::vector<Expr> terms;
      std::vector<double> c;
      for (size_t i = 0; i < next[k].terms.size(); ++i) {
        const size_t j = next[k].terms[i];
        terms.push_back(library[j]);
        double v = next[k].beta[i] / lin.norm[j];
        if (v == std::round(v)) v *= 1 + 0x1p-20;  // an integer literal would key as a structure
        c.push_back(v);
      }
      Candidate cand = seed;
      cand.value() = termSum(terms, c);
      out.push_back(std::move(cand));
    }
    beam = std::move(next);
  }
  return out;
}

std::vector<Member> termStage(const Task& task, const ScoreSettings& score, const TermSettings& e,
                              const Candidate& seed, const std::vector<std::string>& vars,
                              const std::function<bool(const Candidate&)>& fresh, const ScoreBatch& batch,
                              size_t seeds) {
  std::vector<Candidate> cands;
  for (auto& c : termCandidates(task, score, e, seed, vars))
    if (fresh(c)) cands.push_back(std::move(c));
  if (cands.empty()) return {};
  std::vector<Member> members;
  for (const auto& m : batch(cands))
    if (m) members.push_back(*m);
  std::stable_sort(members.begin(), members.end(), better);
  if (members.size() > seeds) members.resize(seeds);
  return members;
}

}  // namespace dmci::search
