// Snapping the picked program's constants: the table of simple closed forms, and the greedy trial of each
// constant against the forms near it, each trial a refit of the constants still free.
#include "search/Snap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

namespace dmci::search {

namespace {

const double kPi = std::acos(-1.0);

Expr num(double x) { return Expr::num(x); }
Expr op(const char* name, std::vector<Expr> args) {
  args.insert(args.begin(), Expr::sym(name));
  return Expr::list(std::move(args));
}
Expr piForm() { return op("acos", {num(-1)}); }

// p/q as a program writes it: an integer, or (/ p q), exact for a reader that keeps integers exact (a judge's
// sympy: exp(-0.5) is a float there, rounded to three decimals, exp(-1/2) is not).
Expr ratio(int p, int q) { return q == 1 ? num(p) : op("/", {num(p), num(q)}); }

// Every simple constant (positive), with its form and simplicity: p/q; π p/q and p/(q π); π² p/q and p/(q π²);
// √(p/q); √(π p/q) and √(p/(q π)); e^(p/q) and e^(-p/q).
std::vector<SimpleConstant> makeTable() {
  std::vector<SimpleConstant> t;
  auto add = [&](double v, Expr form, int simplicity) { t.push_back({v, std::move(form), simplicity}); };
  for (int q = 1; q <= 12; ++q)
    for (int p = 1; p <= 24 * q; ++p)
      if (std::gcd(p, q) == 1) add(static_cast<double>(p) / q, ratio(p, q), p + q);
  // Short decimals a law writes as such, of one or two significant digits (0.05, 0.075, 0.0025; not 0.102): p/q for
  // q of 20 to 1000 dividing a power of ten, simplicity p + q (past every form above of its size).
  auto shortDecimal = [](int p, int q) {
    int n = 1000 / q * p;  // the value in thousandths (q divides 1000)
    while (n % 10 == 0) n /= 10;
    return n < 100;
  };
  for (int q : {20, 25, 40, 50, 100, 125, 200, 250, 500, 1000})
    for (int p = 1; p < 100; ++p)
      if (std::gcd(p, q) == 1 && shortDecimal(p, q)) add(static_cast<double>(p) / q, ratio(p, q), p + q);
  for (int q = 1; q <= 12; ++q)
    for (int p = 1; p <= 12; ++p) {
      if (std::gcd(p, q) != 1) continue;
      Expr r = ratio(p, q);
      add(kPi * p / q, p == 1 && q == 1 ? piForm() : op("*", {r, piForm()}), p + q + 2);
      add(p / (q * kPi), op("/", {num(p), q == 1 ? piForm() : op("*", {num(q), piForm()})}), p + q + 3);
      if (q > 6) continue;
      Expr pi2 = op("*", {piForm(), piForm()});
      add(kPi * kPi * p / q, p == 1 && q == 1 ? pi2 : op("*", {r, pi2}), p + q + 4);
      add(p / (q * kPi * kPi), op("/", {num(p), q == 1 ? pi2 : op("*", {num(q), pi2})}), p + q + 5);
    }
  for (int q = 1; q <= 10; ++q)
    for (int p = 1; p <= 10; ++p) {
      if (std::gcd(p, q) != 1) continue;
      auto isSquare = [](int n) {
        return static_cast<int>(std::lround(std::sqrt(n))) * std::lround(std::sqrt(n)) == n;
      };
      if (!(isSquare(p) && isSquare(q)))
        add(std::sqrt(static_cast<double>(p) / q), op("sqrt", {ratio(p, q)}), p + q + 1);
      if (p <= 9 && q <= 9) {
        add(std::sqrt(kPi * p / q), op("sqrt", {op("*", {ratio(p, q), piForm()})}), p + q + 4);
        add(std::sqrt(p / (q * kPi)), op("sqrt", {op("/", {num(p), q == 1 ? piForm() : op("*", {num(q), piForm()})})}),
            p + q + 5);
      }
    }
  for (int q = 1; q <= 4; ++q)
    for (int p = 1; p <= 8; ++p) {
      if (std::gcd(p, q) != 1) continue;
      add(std::exp(static_cast<double>(p) / q), op("exp", {ratio(p, q)}), p + q + 2);
      add(std::exp(-static_cast<double>(p) / q), op("exp", {ratio(-p, q)}), p + q + 2);
    }
  return t;
}

Expr negated(const Expr& form) {
  if (form.isNumber()) return num(-form.number);
  if (form.head() == "/" && form.items[1].isNumber()) return op("/", {num(-form.items[1].number), form.items[2]});
  return op("-", {form});
}

// The number leaves of `e`, depth first.
void numbersOf(Expr& e, std::vector<Expr*>& out) {
  if (e.isNumber()) out.push_back(&e);
  for (auto& item : e.items) numbersOf(item, out);
}

// `e` with every symbol named in `forms` replaced by its form.
void writeForms(Expr& e, const std::map<std::string, Expr>& forms) {
  if (e.isSymbol())
    if (auto it = forms.find(e.text); it != forms.end()) e = it->second;
  for (auto& item : e.items) writeForms(item, forms);
}

// A name for a fixed constant that no variable or parameter of the task has.
std::string freshName(const Task& t, size_t k) {
  std::string name = "snap%" + std::to_string(k);
  auto taken = [&](const std::string& n) {
    return std::find(t.vars.begin(), t.vars.end(), n) != t.vars.end() ||
           std::find(t.params.begin(), t.params.end(), n) != t.params.end();
  };
  while (taken(name)) name += "%";
  return name;
}

// A fitted literal: a number a program's closed forms do not write (they write integers, over (acos -1) and the
// like).
bool fittedLiteral(const Expr& e) { return e.isNumber() && e.number != std::round(e.number); }

}  // namespace

std::optional<double> constantValue(const Expr& e) {
  if (e.isNumber()) return e.number;
  if (!e.isList() || e.items.size() < 2 || !e.items[0].isSymbol()) return std::nullopt;
  std::vector<double> a;
  for (size_t k = 1; k < e.items.size(); ++k) {
    auto v = constantValue(e.items[k]);
    if (!v) return std::nullopt;
    a.push_back(*v);
  }
  const std::string& h = e.items[0].text;
  double r = NAN;
  if (h == "+")
    r = std::accumulate(a.begin(), a.end(), 0.0);
  else if (h == "*")
    r = std::accumulate(a.begin(), a.end(), 1.0, std::multiplies<>());
  else if (h == "-")
    r = a.size() == 1 ? -a[0] : std::accumulate(a.begin() + 1, a.end(), a[0], std::minus<>());
  else if (h == "/")
    r = a.size() == 1 ? 1 / a[0] : std::accumulate(a.begin() + 1, a.end(), a[0], std::divides<>());
  else if (a.size() == 1 && h == "sqrt")
    r = std::sqrt(a[0]);
  else if (a.size() == 1 && h == "exp")
    r = std::exp(a[0]);
  else if (a.size() == 1 && h == "log")
    r = std::log(a[0]);
  else if (a.size() == 1 && h == "acos")
    r = std::acos(a[0]);
  else if (a.size() == 2 && h == "expt")
    r = std::pow(a[0], a[1]);
  if (!std::isfinite(r)) return std::nullopt;
  return r;
}

int foldConstants(Candidate& c) {
  int folded = 0;
  std::map<std::string, int> uses;
  auto count = [&](auto& self, const Expr& e) -> void {
    if (e.isSymbol()) ++uses[e.text];
    for (const auto& item : e.items) self(self, item);
  };
  count(count, c.value());
  // A fitted literal: a number a program's closed forms do not write (they write integers, over (acos -1) and the
  // like), so a constant expression that holds one is a fit's value whatever its shape.
  auto fitted = [](auto& self, const Expr& e) -> bool {
    if (e.isNumber()) return fittedLiteral(e);
    return std::any_of(e.items.begin(), e.items.end(), [&](const Expr& x) { return self(self, x); });
  };
  auto fold = [&](auto& self, Expr& e) -> void {
    for (auto& item : e.items) self(self, item);
    if (e.isList())
      if (auto v = constantValue(e); v && fitted(fitted, e)) {  // (exp (expt 0.159 82.2)) is one number, 1.0000
        e = num(*v), ++folded;
        return;
      }
    const std::string h = e.head();
    if ((h != "+" && h != "*") || constantValue(e)) return;  // a constant as a whole is a single literal's form
    const bool sum = h == "+";
    // Parameters read here and nowhere else (a + a) are constants of this sum or product too.
    std::map<std::string, int> here;
    for (size_t k = 1; k < e.items.size(); ++k)
      if (e.items[k].isSymbol() && c.params.count(e.items[k].text)) ++here[e.items[k].text];
    std::vector<Expr> rest{e.items[0]};
    double total = sum ? 0 : 1;
    int constants = 0;
    std::string param;  // a parameter that is an operand here and nowhere else: it takes the constants in
    std::vector<std::string> absorbed;
    for (size_t k = 1; k < e.items.size(); ++k) {
      const Expr& x = e.items[k];
      std::optional<double> v = constantValue(x);
      if (!v && x.isSymbol() && here.count(x.text) && here[x.text] == uses[x.text] && here[x.text] > 1)
        v = c.params[x.text], absorbed.push_back(x.text);
      if (v) {
        total = sum ? total + *v : total * *v, ++constants;
        continue;
      }
      if (param.empty() && x.isSymbol() && c.params.count(x.text) && uses[x.text] == 1) param = x.text;
      rest.push_back(x);
    }
    if (constants == 0 || (constants == 1 && param.empty())) return;
    for (const auto& a : absorbed) c.params.erase(a);
    if (!param.empty()) {
      double& p = c.params[param];
      p = sum ? p + total : p * total;
    } else {
      rest.insert(sum ? rest.end() : rest.begin() + 1, num(total));
    }
    ++folded;
    e = rest.size() == 2 ? rest[1] : Expr::list(std::move(rest));
  };
  fold(fold, c.value());
  // A ratio of sums whose denominator has a constant term c: top and bottom divided by c, so that the one scale
  // the data cannot fix is 1 ((e^¼ + 0.856 x)/(e^¼ − 0.428 x) is (1 + 0.667 x)/(1 − 0.333 x)) and the snap does
  // not spend it on a form of its own. Only when every term of both is a number or a number times the rest.
  auto coefficient = [](Expr& t) -> double* {
    if (t.isNumber()) return &t.number;
    if (t.head() == "*" && t.items.size() >= 3 && t.items[1].isNumber()) return &t.items[1].number;
    return nullptr;
  };
  auto normalize = [&](auto& self, Expr& e) -> void {
    for (auto& item : e.items) self(self, item);
    if (e.head() != "/" || e.items.size() != 3 || e.items[2].head() != "+") return;
    Expr &top = e.items[1], &bottom = e.items[2];
    double c = 0;
    int constants = 0;
    for (size_t k = 1; k < bottom.items.size(); ++k)
      if (bottom.items[k].isNumber()) c = bottom.items[k].number, ++constants;
    if (constants != 1 || c == 0 || c == 1 || !std::isfinite(c)) return;
    std::vector<double*> cs;
    auto collect = [&](Expr& side) {
      if (side.head() == "+") {
        for (size_t k = 1; k < side.items.size(); ++k)
          if (double* x = coefficient(side.items[k]))
            cs.push_back(x);
          else
            return false;
        return true;
      }
      double* x = coefficient(side);
      if (x) cs.push_back(x);
      return x != nullptr;
    };
    if (!collect(top) || !collect(bottom)) return;
    for (double* x : cs) *x /= c;
    ++folded;
  };
  normalize(normalize, c.value());
  return folded;
}

std::vector<SimpleConstant> simpleConstantsNear(double x, double window) {
  static const std::vector<SimpleConstant> table = makeTable();
  std::vector<SimpleConstant> out;
  if (!std::isfinite(x) || x == 0) return out;
  const double a = std::fabs(x);
  for (const auto& c : table)
    if (std::fabs(c.value - a) <= window * a)
      out.push_back(x > 0 ? c : SimpleConstant{-c.value, negated(c.form), c.simplicity});
  std::stable_sort(out.begin(), out.end(), [&](const SimpleConstant& l, const SimpleConstant& r) {
    if (l.simplicity != r.simplicity) return l.simplicity < r.simplicity;
    return std::fabs(l.value - x) < std::fabs(r.value - x);
  });
  // One entry per value (p/q reached twice, √4 and 2): the simplest form.
  std::vector<SimpleConstant> unique;
  for (auto& c : out)
    if (std::none_of(unique.begin(), unique.end(), [&](const SimpleConstant& u) {
          return std::fabs(u.value - c.value) <= 1e-15 * std::fabs(c.value);
        }))
      unique.push_back(std::move(c));
  return unique;
}

double chiSquareQuantile(int k, double p) {
  if (k < 1 || !(p > 0 && p < 1)) return 0;
  // The standard normal quantile of p, by bisection on Φ(z) = erfc(-z/√2)/2 (deterministic, no table).
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = (lo + hi) / 2;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  const double z = (lo + hi) / 2, a = 2.0 / (9.0 * k);
  const double c = 1 - a + z * std::sqrt(a);
  return k * std::max(0.0, c * c * c);
}

namespace {

Snapped snapOnce(const Task& task, const ScoreSettings& settings, const Member& m, const SnapSettings& snap,
                 uint64_t seed, bool fold) {
  Snapped out;
  out.candidate = m.candidate, out.score = m.score, out.holdoutRmse = m.holdoutRmse, out.trainRmse = m.trainRmse;
  if (!settings.gradient) return out;  // nothing is refitted: a snapped constant could not be made up for
  const double limit = m.score * (1 + snap.tolerance) + snap.floor;
  // The statistical test: the rows the training RMSE and the score are measured on, and the noise relative to the
  // target's RMS (the fitted pick's training RMSE: the noise when the pick is the law).
  const double nTrain = static_cast<double>(task.train.size());
  const double nScore = static_cast<double>(task.holdout.size() + (settings.scoreAll ? task.train.size() : 0));
  double rms = 0;
  if (int col = task.data ? task.data->find(task.target) : -1; col >= 0 && !task.train.empty()) {
    for (size_t r : task.train) rms += std::pow(task.data->columns[static_cast<size_t>(col)][r], 2);
    rms = std::sqrt(rms / nTrain);
  }
  const double relNoise = rms > 0 ? m.trainRmse / rms : 0;
  const bool statistical =
      snap.confidence > 0 && nTrain > 0 && nScore > 0 && std::isfinite(m.trainRmse) && std::isfinite(m.score);
  const bool noisy = statistical && relNoise > 1e-6;  // above the fit's precision: the residuals are noise
  const double window = noisy ? std::max(snap.window, std::min(snap.noiseWindow, relNoise)) : snap.window;
  const double floor2 = snap.floor * snap.floor;
  auto statOk = [&](const Score& s, int k) {
    if (!statistical) return false;
    const double q = chiSquareQuantile(k, snap.confidence);
    return s.trainRmse * s.trainRmse <= m.trainRmse * m.trainRmse * std::exp(q / nTrain) + floor2 &&
           s.score * s.score <= m.score * m.score * std::exp(q / nScore) + floor2;
  };
  Candidate current = m.candidate;
  if (fold) foldConstants(current);  // one constant where only a sum or product of several is decided
  std::map<std::string, double> fixed;
  std::map<std::string, Expr> forms;
  // Fixes one constant at the simplest form near `value` whose refit holds the score: `fix` is the program with
  // the constant replaced by the name `name`. True when one held.
  auto trial = [&](double value, const std::string& where, const std::string& name, const Candidate& fix) {
    struct Try {
      SimpleConstant c;
      bool tolerance;  // the tolerance test may keep it (the forms it always tried); else the statistical test only
    };
    std::vector<Try> tries;
    // The forms that agree with the fitted value to its precision (an exact fit's constant) come first, simplest
    // first; then the rest of the window, simplest first.
    std::vector<SimpleConstant> near = simpleConstantsNear(value, std::min(snap.window, 1e-7));
    for (auto& c : simpleConstantsNear(value, snap.window))
      if (std::none_of(near.begin(), near.end(), [&](const SimpleConstant& n) { return n.value == c.value; }))
        near.push_back(std::move(c));
    if (near.size() > static_cast<size_t>(std::max(0, snap.tries))) near.resize(static_cast<size_t>(snap.tries));
    if (std::fabs(value) < snap.zero) tries.push_back({SimpleConstant{0, num(0), 0}, true});
    for (auto& c : near) tries.push_back({std::move(c), true});
    if (noisy) {
      std::vector<SimpleConstant> wide = simpleConstantsNear(value, window);
      if (wide.size() > static_cast<size_t>(std::max(0, snap.noiseTries)))
        wide.resize(static_cast<size_t>(snap.noiseTries));
      for (auto& c : wide)
        if (std::none_of(tries.begin(), tries.end(), [&](const Try& t) { return t.c.value == c.value; }))
          tries.push_back({std::move(c), false});
      // Simplest first, whichever window a form came from (0, when tried for a tiny constant, stays first).
      std::stable_sort(tries.begin(), tries.end(),
                       [](const Try& l, const Try& r) { return l.c.simplicity < r.c.simplicity; });
      if (std::fabs(value) >= snap.zero) tries.push_back({SimpleConstant{0, num(0), 0}, false});
    }
    const int k = static_cast<int>(out.constants.size()) + 1;
    for (const auto& t : tries) {
      std::map<std::string, double> withIt = fixed;
      withIt[name] = t.c.value;
      ++out.tried;
      Score s = scoreCandidate(task, settings, fix, seed + static_cast<uint64_t>(out.tried), withIt);
      if (!s.ok) continue;
      const bool byTolerance = t.tolerance && s.score <= limit;
      if (!byTolerance && !statOk(s, k)) continue;
      out.statistical += byTolerance ? 0 : 1;
      current = s.fitted, fixed = std::move(withIt), forms[name] = t.c.form;
      out.constants.push_back({where, value, t.c.value, t.c.form});
      out.score = s.score, out.holdoutRmse = s.holdoutRmse, out.trainRmse = s.trainRmse;
      return true;
    }
    return false;
  };
  // The literals of the value, in order: a rejected one stays a number, a kept one becomes a fixed name.
  for (size_t at = 0, ordinal = 1;; ++ordinal) {
    std::vector<Expr*> numbers;
    numbersOf(current.value(), numbers);
    if (at >= numbers.size()) break;
    Candidate fix = current;
    std::vector<Expr*> sites;
    numbersOf(fix.value(), sites);
    const double value = sites[at]->number;
    const std::string name = freshName(task, ordinal);
    *sites[at] = Expr::sym(name);
    if (!trial(value, "literal " + std::to_string(ordinal), name, fix)) ++at;
  }
  // Then the named parameters the value uses.
  for (const auto& name : symbolsOf(current.value())) {
    auto it = current.params.find(name);
    if (it == current.params.end() || fixed.count(name) ||
        std::find(task.params.begin(), task.params.end(), name) == task.params.end())
      continue;
    trial(it->second, name, name, current);
  }
  if (out.constants.empty()) return out;
  writeForms(current.value(), forms);
  for (const auto& [name, form] : forms) current.params.erase(name);
  out.candidate = std::move(current);
  return out;
}

// The fitted constants a snapped program still carries: its literals that are not integers (a closed form writes
// integers), and the task's parameters it reads.
int unsnapped(const Task& task, const Candidate& c) {
  int n = 0;
  auto count = [&](auto& self, const Expr& e) -> void {
    if (fittedLiteral(e)) ++n;
    if (e.isSymbol() && c.params.count(e.text) &&
        std::find(task.params.begin(), task.params.end(), e.text) != task.params.end())
      ++n;
    for (const auto& x : e.items) self(self, x);
  };
  count(count, c.value());
  return n;
}

}  // namespace

Snapped snapConstants(const Task& task, const ScoreSettings& settings, const Member& m, const SnapSettings& snap,
                      uint64_t seed) {
  // Folded first; the program as it was when that leaves more constants unsnapped: two factors that are each a
  // simple form, -1/3 and 46/5, fold to -46/15, which is none.
  Snapped folded = snapOnce(task, settings, m, snap, seed, true);
  Candidate probe = m.candidate;
  if (foldConstants(probe) == 0) return folded;
  Snapped plain = snapOnce(task, settings, m, snap, seed, false);
  const int f = unsnapped(task, folded.candidate), p = unsnapped(task, plain.candidate);
  if (p < f || (p == f && folded.constants.empty() && !plain.constants.empty())) {
    plain.tried += folded.tried;
    return plain;
  }
  folded.tried += plain.tried;
  return folded;
}

}  // namespace dmci::search
