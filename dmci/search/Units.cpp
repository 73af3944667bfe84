// Dimensional analysis: the units file's reader, exact rational elimination for the monomial and the groups, the
// reduced table, and the search run on it with its result written back in the user's variables.
#include "search/Units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "support/Csv.h"

namespace dmci::search {

namespace {

int64_t narrow(__int128 v) {
  if (v > INT64_MAX || v < -INT64_MAX) throw std::overflow_error("an exponent's fraction passed 64 bits");
  return static_cast<int64_t>(v);
}

Rational make(__int128 n, __int128 d) {
  if (d == 0) throw std::domain_error("division by zero");
  if (d < 0) n = -n, d = -d;
  __int128 a = n < 0 ? -n : n, b = d;
  while (b) a %= b, std::swap(a, b);
  if (a > 1) n /= a, d /= a;
  Rational r;
  r.num = narrow(n), r.den = narrow(d);
  return r;
}

Rational absOf(Rational a) { return Rational(a.num < 0 ? -a.num : a.num, a.den); }

}  // namespace

Rational::Rational(int64_t n, int64_t d) : num(n), den(d) {
  if (d != 1) *this = make(n, d);
}

std::string Rational::str() const {
  return den == 1 ? std::to_string(num) : std::to_string(num) + "/" + std::to_string(den);
}

Rational operator+(Rational a, Rational b) {
  return make(static_cast<__int128>(a.num) * b.den + static_cast<__int128>(b.num) * a.den,
              static_cast<__int128>(a.den) * b.den);
}
Rational operator-(Rational a, Rational b) { return a + (-b); }
Rational operator*(Rational a, Rational b) {
  return make(static_cast<__int128>(a.num) * b.num, static_cast<__int128>(a.den) * b.den);
}
Rational operator/(Rational a, Rational b) {
  if (b.isZero()) throw std::domain_error("division by zero");
  return make(static_cast<__int128>(a.num) * b.den, static_cast<__int128>(a.den) * b.num);
}

const UnitsRow* UnitsTable::find(const std::string& name) const {
  for (const auto& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}

namespace {

// "3", "-2", "+1", "1/2", "-3/4" (an optional sign, digits, an optional /digits); nullopt for anything else.
std::optional<Rational> readExponent(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  auto digits = [&](size_t from) {
    size_t j = from;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    return j;
  };
  size_t end = digits(i);
  if (end == i || end - i > 9) return std::nullopt;
  int64_t num = std::stoll(s.substr(i, end - i));
  if (s[0] == '-') num = -num;
  int64_t den = 1;
  if (end < s.size()) {
    if (s[end] != '/') return std::nullopt;
    size_t e2 = digits(end + 1);
    if (e2 == end + 1 || e2 != s.size() || e2 - end - 1 > 9) return std::nullopt;
    den = std::stoll(s.substr(end + 1));
    if (den == 0) return std::nullopt;
  }
  return Rational(num, den);
}

bool isDescription(const std::string& h) {
  std::string l;
  for (char c : h) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "units" || l == "unit" || l == "description";
}

Error errorAt(const std::string& file, uint32_t line, uint32_t col, std::string message) {
  return Error{ErrorKind::Usage, std::move(message), SrcPos{internFile(file), line, col}};
}

}  // namespace

Result<UnitsTable> parseUnits(const std::string& text, const std::string& file) {
  UnitsTable t;
  t.file = file;
  std::vector<CsvRow> rows = readCsv(text);
  if (rows.empty())
    return errorAt(file, 1, 1, "the units file is empty: expected a header `name,DIM,...` (e.g. name,m,s,kg)");
  const CsvRow& header = rows[0];
  std::vector<int> dimOf(header.cells.size(), -1);  // each cell's base unit, or -1 (the name, a description)
  std::vector<bool> trailing(header.cells.size(), false);
  for (size_t c = 1; c < header.cells.size(); ++c) {
    const CsvCell& cell = header.cells[c];
    if (isDescription(cell.text)) continue;
    if (cell.text.empty()) {  // AI Feynman's file ends each line with a comma: an empty last column
      bool allEmpty = true;
      for (size_t k = c; k < header.cells.size(); ++k) allEmpty = allEmpty && header.cells[k].text.empty();
      if (allEmpty) {
        for (size_t k = c; k < header.cells.size(); ++k) trailing[k] = true;
        break;
      }
      return errorAt(file, header.line, cell.col, "empty base-unit name in the header");
    }
    if (!readsAsBareSymbol(cell.text))
      return errorAt(file, header.line, cell.col,
                     "base-unit name '" + cell.text + "' in the header is not a plain name");
    if (std::find(t.dims.begin(), t.dims.end(), cell.text) != t.dims.end())
      return errorAt(file, header.line, cell.col, "base unit '" + cell.text + "' appears twice in the header");
    dimOf[c] = static_cast<int>(t.dims.size());
    t.dims.push_back(cell.text);
  }
  if (header.cells.empty() || t.dims.empty())
    return errorAt(file, header.line, 1,
                   "the header names no base unit: expected `name,DIM,...` (e.g. name,m,s,kg,T,V; a column named "
                   "Units or description is free text)");
  for (size_t k = 1; k < rows.size(); ++k) {
    const CsvRow& row = rows[k];
    bool blank = std::all_of(row.cells.begin(), row.cells.end(), [](const CsvCell& c) { return c.text.empty(); });
    if (blank) continue;  // a row of empty cells (AI Feynman's file ends with one)
    const CsvCell& name = row.cells[0];
    if (name.text.empty()) return errorAt(file, row.line, name.col, "a row without a name");
    if (!readsAsBareSymbol(name.text))
      return errorAt(file, row.line, name.col, "name '" + name.text + "' is not a plain name (a data column's)");
    if (t.find(name.text))
      return errorAt(file, row.line, name.col, "'" + name.text + "' has two rows in the units file");
    UnitsRow r{name.text, std::vector<Rational>(t.dims.size()), SrcPos{internFile(file), row.line, name.col}};
    for (size_t c = 1; c < header.cells.size(); ++c) {
      if (dimOf[c] < 0 && !trailing[c]) continue;
      if (c >= row.cells.size())
        return errorAt(file, row.line, row.length + 1,
                       "'" + name.text + "': no exponent for base unit '" +
                           (trailing[c] ? std::string("") : t.dims[static_cast<size_t>(dimOf[c])]) + "' (" +
                           std::to_string(header.cells.size()) + " cells in the header, " +
                           std::to_string(row.cells.size()) + " here)");
      const CsvCell& cell = row.cells[c];
      if (trailing[c]) {
        if (!cell.text.empty())
          return errorAt(file, row.line, cell.col, "a cell past the header's last base unit: '" + cell.text + "'");
        continue;
      }
      auto e = readExponent(cell.text);
      if (!e)
        return errorAt(file, row.line, cell.col,
                       "'" + name.text + "': the exponent of '" + t.dims[static_cast<size_t>(dimOf[c])] + "' is '" +
                           cell.text + "', not an integer or a fraction p/q");
      r.exponents[static_cast<size_t>(dimOf[c])] = *e;
    }
    if (row.cells.size() > header.cells.size())
      return errorAt(file, row.line, row.cells[header.cells.size()].col,
                     "more cells than the header names (" + std::to_string(header.cells.size()) + ")");
    t.rows.push_back(std::move(r));
  }
  return t;
}

namespace {

using Matrix = std::vector<std::vector<Rational>>;  // [row][column]

// Reduced row echelon form in place; the pivot columns.
std::vector<size_t> rref(Matrix& a, size_t columns) {
  std::vector<size_t> pivots;
  size_t r = 0;
  for (size_t c = 0; c < columns && r < a.size(); ++c) {
    size_t p = r;
    while (p < a.size() && a[p][c].isZero()) ++p;
    if (p == a.size()) continue;
    std::swap(a[p], a[r]);
    Rational inv = Rational(1) / a[r][c];
    for (auto& x : a[r]) x = x * inv;
    for (size_t k = 0; k < a.size(); ++k)
      if (k != r && !a[k][c].isZero()) {
        Rational f = a[k][c];
        for (size_t j = 0; j < a[k].size(); ++j) a[k][j] = a[k][j] - f * a[r][j];
      }
    pivots.push_back(c);
    ++r;
  }
  return pivots;
}

// The dims × n matrix whose column i is units[i].
Matrix matrixOf(const UnitVectors& units, size_t dims) {
  Matrix m(dims, std::vector<Rational>(units.size()));
  for (size_t i = 0; i < units.size(); ++i)
    for (size_t d = 0; d < dims; ++d) m[d][i] = units[i][d];
  return m;
}

size_t dimsOf(const UnitVectors& units, size_t fallback = 0) { return units.empty() ? fallback : units[0].size(); }

// Calls f(subset) for every subset of {0..n-1} of size k, in lexicographic order; stops when f returns true.
template <class F>
bool subsets(size_t n, size_t k, F f) {
  std::vector<size_t> s(k);
  std::iota(s.begin(), s.end(), 0);
  if (k > n) return false;
  while (true) {
    if (f(s)) return true;
    size_t i = k;
    while (i > 0 && s[i - 1] == n - k + i - 1) --i;
    if (i == 0) return false;
    ++s[i - 1];
    for (size_t j = i; j < k; ++j) s[j] = s[j - 1] + 1;
  }
}

// The integer multiple of v with coprime entries, its first nonzero entry positive.
std::vector<int64_t> primitive(const std::vector<Rational>& v) {
  int64_t l = 1;
  for (const auto& x : v) l = std::lcm(l, x.den);
  std::vector<int64_t> out(v.size());
  int64_t g = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    out[i] = narrow(static_cast<__int128>(v[i].num) * (l / v[i].den));
    g = std::gcd(g, out[i] < 0 ? -out[i] : out[i]);
  }
  if (g > 1)
    for (auto& x : out) x /= g;
  for (auto x : out)
    if (x != 0) {
      if (x < 0)
        for (auto& y : out) y = -y;
      break;
    }
  return out;
}

}  // namespace

size_t rankOf(const UnitVectors& vectors) {
  if (vectors.empty()) return 0;
  Matrix m = vectors;
  return rref(m, vectors[0].size()).size();
}

bool solveMonomial(const UnitVectors& units, const std::vector<Rational>& target, std::vector<Rational>& p) {
  const size_t n = units.size(), dims = target.size();
  p.assign(n, Rational(0));
  if (std::all_of(target.begin(), target.end(), [](Rational r) { return r.isZero(); })) return true;
  bool found = false;
  std::vector<Rational> best;
  Rational bestSize;
  int bestFractions = 0;
  for (size_t k = 1; k <= std::min(n, dims) && !found; ++k)
    subsets(n, k, [&](const std::vector<size_t>& s) {
      // [U_S | b] in reduced row echelon form: a unique solution when every column of U_S is a pivot and b is not.
      Matrix a(dims, std::vector<Rational>(k + 1));
      for (size_t d = 0; d < dims; ++d) {
        for (size_t j = 0; j < k; ++j) a[d][j] = units[s[j]][d];
        a[d][k] = target[d];
      }
      std::vector<size_t> piv = rref(a, k + 1);
      if (piv.size() != k || piv.back() != k - 1) return false;
      for (size_t d = k; d < dims; ++d)
        if (!a[d][k].isZero()) return false;
      std::vector<Rational> x(n, Rational(0));
      Rational size;
      int fractions = 0;
      for (size_t j = 0; j < k; ++j) {
        x[s[j]] = a[j][k];
        if (x[s[j]].isZero()) return false;  // then a smaller subset solves it
        size = size + absOf(x[s[j]]);
        fractions += x[s[j]].isInteger() ? 0 : 1;
      }
      if (!found || fractions < bestFractions || (fractions == bestFractions && size.value() < bestSize.value()))
        best = x, bestSize = size, bestFractions = fractions, found = true;
      return false;
    });
  if (found) p = best;
  return found;
}

std::vector<std::vector<int64_t>> dimensionlessGroups(const UnitVectors& units, const std::vector<bool>& scale) {
  const size_t n = units.size(), dims = dimsOf(units);
  if (n == 0) return {};
  Matrix m = matrixOf(units, dims);
  Matrix echelon = m;
  const size_t want = n - (dims == 0 ? 0 : rref(echelon, n).size());
  std::vector<std::vector<int64_t>> chosen;
  if (want == 0) return chosen;
  UnitVectors chosenRational;
  auto inNullspace = [&](const std::vector<int64_t>& e) {
    for (size_t d = 0; d < dims; ++d) {
      Rational s;
      for (size_t i = 0; i < n; ++i)
        if (e[i]) s = s + units[i][d] * Rational(e[i]);
      if (!s.isZero()) return false;
    }
    return true;
  };
  auto take = [&](const std::vector<int64_t>& e) {
    if (chosen.size() >= want || !inNullspace(e)) return;
    UnitVectors trial = chosenRational;
    std::vector<Rational> r(n);
    for (size_t i = 0; i < n; ++i) r[i] = Rational(e[i]);
    trial.push_back(r);
    if (rankOf(trial) == trial.size()) chosen.push_back(e), chosenRational = std::move(trial);
  };
  // Candidates of 1, 2 and (for up to 16 inputs) 3 inputs with exponents up to 2, simplest first.
  struct Cand {
    std::vector<int64_t> e;
    int support, total, top, scaleBelow;
  };
  std::vector<Cand> cands;
  const int64_t values[] = {1, -1, 2, -2};
  for (size_t k = 1; k <= std::min<size_t>(3, n) && (k < 3 || n <= 16); ++k)
    subsets(n, k, [&](const std::vector<size_t>& s) {
      std::vector<size_t> pick(k, 0);
      while (true) {
        std::vector<int64_t> e(n, 0);
        for (size_t j = 0; j < k; ++j) e[s[j]] = values[pick[j]];
        if (e[s[0]] > 0) {  // one sign of each (the first input's exponent positive) ...
          int total = 0, top = 0, below = 0;
          for (size_t j = 0; j < k; ++j) {
            int a = static_cast<int>(std::abs(e[s[j]]));
            total += a, top = std::max(top, a);
            if (scale[s[j]] && e[s[j]] < 0) ++below;
          }
          cands.push_back({e, static_cast<int>(k), total, top, below});
        }
        size_t j = k;
        while (j > 0 && pick[j - 1] == 3) pick[--j] = 0;
        if (j == 0) break;
        ++pick[j - 1];
      }
      return false;
    });
  // ... and a ratio written with the monomial's input below the line when it has one (x2/x1 for M = x1).
  for (auto& c : cands)
    if (c.support == 2) {
      size_t i = 0, j = 0;
      bool first = true;
      for (size_t k = 0; k < n; ++k)
        if (c.e[k]) (first ? i : j) = k, first = false;
      if (scale[i] && !scale[j] && c.e[i] > 0 && c.e[j] < 0) {
        for (auto& x : c.e) x = -x;
        c.scaleBelow = 1;
      }
    }
  std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) {
    if (a.support != b.support) return a.support < b.support;
    if (a.total != b.total) return a.total < b.total;
    if (a.top != b.top) return a.top < b.top;
    return a.scaleBelow > b.scaleBelow;
  });
  for (const auto& c : cands) take(c.e);
  if (chosen.size() < want) {  // the echelon form's basis: each free input against the pivots
    std::vector<size_t> piv = rref(m, n);
    for (size_t f = 0; f < n && chosen.size() < want; ++f) {
      if (std::find(piv.begin(), piv.end(), f) != piv.end()) continue;
      std::vector<Rational> v(n, Rational(0));
      v[f] = Rational(1);
      for (size_t r = 0; r < piv.size(); ++r) v[piv[r]] = -m[r][f];
      take(primitive(v));
    }
  }
  return chosen;
}

Result<Reduction> reduceUnits(const UnitsTable& table, const std::vector<std::string>& vars, const std::string& target,
                              const std::vector<std::string>& taken) {
  try {
    Reduction r;
    r.vars = vars, r.target = target, r.dims = table.dims;
    SrcPos head{internFile(table.file), 1, 1};
    auto missing = [&](const std::string& name, const std::string& what) {
      return Error{ErrorKind::Usage,
                   "no row for the " + what + " '" + name +
                       "' in the units file (each variable and the target need "
                       "one: name,then the exponent of each base unit)",
                   head};
    };
    const UnitsRow* t = table.find(target);
    if (!t) return missing(target, "target");
    r.targetUnits = t->exponents;
    UnitVectors units;
    for (const auto& v : vars) {
      const UnitsRow* row = table.find(v);
      if (!row) return missing(v, "variable");
      units.push_back(row->exponents);
    }
    if (!solveMonomial(units, r.targetUnits, r.monomial)) {
      std::string have;
      for (size_t d = 0; d < table.dims.size(); ++d)
        if (!r.targetUnits[d].isZero())
          have += (have.empty() ? "" : " ") + table.dims[d] +
                  (r.targetUnits[d] == Rational(1) ? "" : "^" + r.targetUnits[d].str());
      return Error{ErrorKind::Usage,
                   "the target '" + target + "' has units " + have +
                       ", which no product of powers of the variables' units carries: a constant with units is "
                       "missing from the data (add it as a column), or a row of the units file is wrong",
                   t->pos};
    }
    std::vector<bool> scale(vars.size());
    for (size_t i = 0; i < vars.size(); ++i) scale[i] = !r.monomial[i].isZero();
    r.groups = dimensionlessGroups(units, scale);
    int next = 1;
    std::vector<std::string> used = taken;
    used.insert(used.end(), vars.begin(), vars.end());
    used.push_back(target);
    for (const auto& g : r.groups) {
      size_t nonzero = 0, at = 0;
      for (size_t i = 0; i < g.size(); ++i)
        if (g[i]) ++nonzero, at = i;
      if (nonzero == 1 && g[at] == 1) {
        r.groupNames.push_back(vars[at]);
        continue;
      }
      std::string name;
      do {
        name = "pi";
        name += std::to_string(next++);
      } while (std::find(used.begin(), used.end(), name) != used.end());
      r.groupNames.push_back(name);
    }
    return r;
  } catch (const std::exception& e) {
    return Error{ErrorKind::Usage,
                 std::string("the units file's exponents are too large to solve exactly: ") + e.what(),
                 SrcPos{internFile(table.file), 1, 1}};
  }
}

void orientGroups(Reduction& r, const fit::DataTable& data, const std::vector<size_t>& rows) {
  for (auto& g : r.groups) {
    bool up = false, down = false;
    for (auto e : g) up = up || e > 0, down = down || e < 0;
    if (!up && down) {  // 1/(d k): written d k
      for (auto& e : g) e = -e;
      continue;
    }
    size_t inputs = 0;
    for (auto e : g) inputs += e != 0;
    if (!(up && down) || inputs != 2 || rows.empty()) continue;  // a ratio of two inputs
    std::vector<double> logs;
    for (size_t row : rows) {
      double l = 0;
      for (size_t i = 0; i < g.size(); ++i)
        if (g[i]) l += static_cast<double>(g[i]) * std::log(std::fabs(data.columns[data.find(r.vars[i])][row]));
      if (std::isfinite(l)) logs.push_back(l);
    }
    if (logs.empty()) continue;
    std::nth_element(logs.begin(), logs.begin() + static_cast<std::ptrdiff_t>(logs.size() / 2), logs.end());
    if (logs[logs.size() / 2] > std::log(1.5))  // mostly above 1: written the other way up (v/c, not c/v)
      for (auto& e : g) e = -e;
  }
}

namespace {

// x^e as factors: x for each whole power up to 3, (sqrt x) for a half, else (expt x e).
void powerFactors(const std::string& name, Rational e, std::vector<Expr>& out) {
  Rational a = absOf(e);
  if (a.isInteger() && a.num <= 3) {
    for (int64_t k = 0; k < a.num; ++k) out.push_back(Expr::sym(name));
  } else if (a.den == 2 && a.num <= 3) {
    for (int64_t k = 0; k < a.num / 2; ++k) out.push_back(Expr::sym(name));
    out.push_back(Expr::list({Expr::sym("sqrt"), Expr::sym(name)}));
  } else {
    out.push_back(Expr::list({Expr::sym("expt"), Expr::sym(name), Expr::num(a.value())}));
  }
}

Expr productOf(std::vector<Expr> items) {
  if (items.empty()) return Expr::num(1);
  if (items.size() == 1) return std::move(items[0]);
  items.insert(items.begin(), Expr::sym("*"));
  return Expr::list(std::move(items));
}

std::vector<Rational> asRational(const std::vector<int64_t>& e) {
  std::vector<Rational> out;
  for (auto x : e) out.emplace_back(x);
  return out;
}

Expr substitute(const Expr& e, const std::map<std::string, Expr>& by) {
  if (e.isSymbol()) {
    auto it = by.find(e.text);
    return it == by.end() ? e : it->second;
  }
  if (!e.isList()) return e;
  Expr out = e;
  for (size_t k = 0; k < out.items.size(); ++k)
    if (k > 0 || !out.items[k].isSymbol()) out.items[k] = substitute(e.items[k], by);  // heads stay operators
  return out;
}

bool isOne(const Expr& e) { return e.isNumber() && e.number == 1; }

double powerOf(double x, Rational e) {
  if (e.isInteger()) return std::pow(x, static_cast<double>(e.num));
  if (e.den == 2) return std::pow(std::sqrt(x), static_cast<double>(e.num));
  return std::pow(x, e.value());
}

}  // namespace

Expr monomialExpr(const std::vector<std::string>& vars, const std::vector<Rational>& exponents) {
  std::vector<Expr> up, down;
  for (size_t i = 0; i < vars.size(); ++i)
    if (!exponents[i].isZero()) powerFactors(vars[i], exponents[i], exponents[i].num > 0 ? up : down);
  Expr top = productOf(std::move(up));
  if (down.empty()) return top;
  return Expr::list({Expr::sym("/"), std::move(top), productOf(std::move(down))});
}

std::string describe(const Reduction& r) {
  std::string out = r.target + " = " + print(monomialExpr(r.vars, r.monomial)) + " * g(";
  for (size_t k = 0; k < r.groups.size(); ++k) {
    Expr g = monomialExpr(r.vars, asRational(r.groups[k]));
    out += (k ? ", " : "") + r.groupNames[k];
    if (!(g.isSymbol() && g.text == r.groupNames[k])) out += " = " + print(g);
  }
  return out + ")";
}

Result<fit::DataTable> reducedTable(const fit::DataTable& data, const Reduction& r) {
  fit::DataTable out;
  out.path = data.path, out.lines = data.lines, out.dropped = data.dropped;
  std::vector<const std::vector<double>*> x;
  for (const auto& v : r.vars) x.push_back(&data.columns[static_cast<size_t>(data.find(v))]);
  const auto& y = data.columns[static_cast<size_t>(data.find(r.target))];
  auto value = [&](const std::vector<Rational>& e, size_t row) {
    double v = 1;
    for (size_t i = 0; i < e.size(); ++i)
      if (!e[i].isZero()) v *= powerOf((*x[i])[row], e[i]);
    return v;
  };
  auto bad = [&](const std::string& what, size_t row) {
    return Error{ErrorKind::Usage,
                 "--units: " + what + " at row " + std::to_string(row + 1) + " of the data (" + data.rowPlace(row) +
                     "): a variable is 0 there, or below 0 under a fractional power",
                 {}};
  };
  for (size_t k = 0; k < r.groups.size(); ++k) {
    std::vector<Rational> e = asRational(r.groups[k]);
    std::vector<double> col(data.rows());
    for (size_t row = 0; row < col.size(); ++row) {
      col[row] = value(e, row);
      if (!std::isfinite(col[row]))
        return bad("the group " + r.groupNames[k] + " = " + print(monomialExpr(r.vars, e)) + " is not finite", row);
    }
    out.names.push_back(r.groupNames[k]);
    out.columns.push_back(std::move(col));
  }
  std::vector<double> scaled(data.rows());
  for (size_t row = 0; row < scaled.size(); ++row) {
    double m = value(r.monomial, row);
    if (!std::isfinite(m) || m == 0)
      return bad(
          "the target's scale " + print(monomialExpr(r.vars, r.monomial)) + " is " + (m == 0 ? "0" : "not finite"),
          row);
    scaled[row] = y[row] / m;
  }
  out.names.push_back(r.target);
  out.columns.push_back(std::move(scaled));
  return out;
}

Candidate expandCandidate(const Candidate& c, const Reduction& r, const std::set<std::string>& positive) {
  std::map<std::string, Expr> by;
  for (size_t k = 0; k < r.groups.size(); ++k) {
    Expr g = monomialExpr(r.vars, asRational(r.groups[k]));
    if (!(g.isSymbol() && g.text == r.groupNames[k])) by.emplace(r.groupNames[k], std::move(g));
  }
  Candidate out = c;
  Expr g = substitute(c.value(), by);
  std::vector<Rational> outside = r.monomial;
  if (g.head() == "sqrt" && g.items.size() == 2) {
    // M's variables that the root's content reads go under the root, squared, where that holds on the data
    // (an even power, or a variable positive on every row; a power below 0 as well): x1 sqrt(1 - 2 x2/x1 + ...) is
    // sqrt(x1² (1 - ...)), sqrt(ω² d²/c² - π²)/d is sqrt(ω²/c² - π²/d²).
    std::vector<Rational> inside(r.vars.size());
    auto reads = symbolsOf(g.items[1]);
    bool any = false;
    for (size_t i = 0; i < r.vars.size() && i < outside.size(); ++i) {
      const Rational e = outside[i];
      // A half power goes under whatever the root reads, when the variable is positive: sqrt(pr/ρ) sqrt(Γ) is
      // sqrt(Γ pr/ρ).
      if (e.den == 2 && positive.count(r.vars[i])) {
        inside[i] = Rational(e.num), outside[i] = Rational(0), any = true;
        continue;
      }
      if (!e.isInteger() || e.num == 0 || std::find(reads.begin(), reads.end(), r.vars[i]) == reads.end()) continue;
      if (e.num % 2 != 0 && !positive.count(r.vars[i])) continue;
      inside[i] = Rational(2 * e.num), outside[i] = Rational(0), any = true;
    }
    if (any)
      g = Expr::list({Expr::sym("sqrt"), Expr::list({Expr::sym("*"), monomialExpr(r.vars, inside), g.items[1]})});
  }
  // A sum with a root among the factors of some term: M goes into each term, and under the roots of a term where
  // every variable of M is positive on the data (I1 (1 + I2/I1 + 2 sqrt(I2/I1) cos δ) is I1 + I2 + 2 sqrt(I1 I2)
  // cos δ, as the law writes it, rather than a form only positive variables make equal).
  if (g.head() == "+" && !isOne(monomialExpr(r.vars, outside))) {
    bool allPositive = true, integral = true, rooted = false;
    for (size_t i = 0; i < r.vars.size() && i < outside.size(); ++i) {
      if (outside[i].isZero()) continue;
      allPositive = allPositive && positive.count(r.vars[i]) > 0;
      integral = integral && outside[i].isInteger();
    }
    // A root among the factors of a term, through nested products: (* 2 (* (sqrt p) (cos d))).
    auto hasRoot = [](auto& self, const Expr& t) -> bool {
      if (t.head() == "sqrt") return true;
      if (t.head() != "*") return false;
      return std::any_of(t.items.begin() + 1, t.items.end(), [&](const Expr& f) { return self(self, f); });
    };
    for (size_t k = 1; k < g.items.size(); ++k) rooted = rooted || hasRoot(hasRoot, g.items[k]);
    if (allPositive && integral && rooted) {
      std::vector<Rational> twice(outside.size());
      for (size_t i = 0; i < outside.size(); ++i) twice[i] = Rational(2) * outside[i];
      Expr m = monomialExpr(r.vars, outside), m2 = monomialExpr(r.vars, twice);
      // Puts M² under the first root of the product `t` (true when there was one).
      auto underRoot = [&](auto& self, Expr& t) -> bool {
        if (t.head() == "sqrt") {
          t = Expr::list({Expr::sym("sqrt"), Expr::list({Expr::sym("*"), m2, t.items[1]})});
          return true;
        }
        if (t.head() != "*") return false;
        for (size_t j = 1; j < t.items.size(); ++j)
          if (self(self, t.items[j])) return true;
        return false;
      };
      for (size_t k = 1; k < g.items.size(); ++k)
        if (!underRoot(underRoot, g.items[k])) g.items[k] = Expr::list({Expr::sym("*"), m, g.items[k]});
      out.value() = std::move(g);
      return out;
    }
  }
  Expr m = monomialExpr(r.vars, outside);
  out.value() = isOne(m) ? std::move(g) : Expr::list({Expr::sym("*"), std::move(m), std::move(g)});
  return out;
}

namespace {

// `m` written in the user's variables and scored on their data at its own constants.
Member expanded(const Member& m, const Task& task, const ScoreSettings& s, const Reduction& r, uint64_t seed) {
  Member out = m;
  std::set<std::string> positive;
  for (const auto& v : r.vars) {
    int col = task.data->find(v);
    if (col < 0) continue;
    const auto& xs = task.data->columns[static_cast<size_t>(col)];
    if (std::all_of(xs.begin(), xs.end(), [](double x) { return x > 0; })) positive.insert(v);
  }
  out.candidate = expandCandidate(m.candidate, r, positive);
  ScoreSettings plain = s;
  plain.gradient = false, plain.smoothSigma = 0;
  Score sc = scoreCandidate(task, plain, out.candidate, seed);
  out.complexity = complexity(out.candidate.value());
  // A program that runs on the groups runs on the variables (the groups' columns were computed the same way); should
  // it not, its errors say so rather than keep the groups' figures.
  out.holdoutRmse = sc.holdoutRmse, out.trainRmse = sc.trainRmse, out.score = sc.score;
  return out;
}

}  // namespace

Result<SearchResult> runSearchWithUnits(const Task& task, const SearchSettings& settings, const Candidate& seed,
                                        const Reduction& r, const SearchEvents& events) {
  for (const auto& name : symbolsOf(seed.value()))
    if (std::find(r.vars.begin(), r.vars.end(), name) != r.vars.end() &&
        std::find(r.groupNames.begin(), r.groupNames.end(), name) == r.groupNames.end())
      return Error{ErrorKind::Usage,
                   "--units: the seed program reads the variable '" + name +
                       "', but the search runs on the dimensionless groups (" + describe(r) +
                       "): start from a seed of parameters alone (e.g. `a`)",
                   {}};
  auto table = reducedTable(*task.data, r);
  if (!table) return table.error();
  Task reduced = task;
  reduced.data = &*table;
  reduced.vars = r.groupNames;
  const auto& y = table->columns.back();
  reduced.spread = y.empty() ? 1 : *std::max_element(y.begin(), y.end()) - *std::min_element(y.begin(), y.end());
  if (!(reduced.spread > 0)) reduced.spread = 1;
  SearchSettings s = settings;
  s.grammar.vars = r.groupNames;
  if (s.grammar.vars.empty()) s.probe = false;  // nothing to probe: y / M is a constant
  auto result = runSearch(reduced, s, seed, events);
  if (!result) return result.error();
  SearchResult out = *result;
  uint64_t k = 0;
  auto map = [&](const Member& m) { return expanded(m, task, settings.score, r, settings.seed * 7919u + k++); };
  out.pick.why = "on the dimensionless groups (" + describe(r) + "; complexities and losses there): " + out.pick.why;
  if (out.found) out.best = map(out.best);
  for (auto& m : out.front) m = map(m);
  if (out.found) {
    Member snapped;
    snapped.candidate = out.snapped.candidate;
    snapped.score = out.snapped.score;
    Member e = map(snapped);
    out.snapped.candidate = e.candidate;
    out.snapped.score = e.score, out.snapped.holdoutRmse = e.holdoutRmse, out.snapped.trainRmse = e.trainRmse;
  }
  return out;
}

}  // namespace dmci::search
