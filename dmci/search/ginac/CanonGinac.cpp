// The plugin dmci-canon-ginac.so: a candidate's canonical text by GiNaC. The value expression is translated
// (numbers, names, + - * / expt square sqrt exp log sin cos tanh atan abs; anything else is not taken), expanded to
// GiNaC's normal form (like terms collected, products of sums multiplied out, powers merged, function arguments
// too), and printed by a printer of our own. GiNaC orders terms by hashes that mix in the address of a type's
// name, so another process (address space layout randomisation) orders them otherwise, and where GiNaC normalises a
// sign or merges powers by that order it writes one law two ways: the printer sorts every sum's and product's
// operands by their text, turns each sum factor the way whose text is smaller, and merges (u^-1)^q. The text must
// be the same in every process: a resumed search reads the keys back, and the same seed gives the same search.
// Literals: a number the program writes becomes a floating-point number in GiNaC, so that (* 2 (* 3 t)) folds to
// (* 6.0 t); a float is then printed as the abstract constant #c (digits 0) or to `digits` significant digits.
// Exact numbers in the normal form come from the structure ((+ t t) is (* 2 t)) and are printed as they are.
#include <ginac/ginac.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "search/Canon.h"

namespace dmci::search {

namespace {

using GiNaC::ex;

// The symbols every translation uses, made once when the plugin is loaded: GiNaC orders a sum's terms by its
// symbols' serial numbers, and where it normalises a sign (sin(-u) = -sin(u), a sum's leading term) that order
// decides the form. A symbol made per call would have another serial in another process (or after another
// candidate), and one program two keys. Here a program's k-th name, in sorted order, is always the pool's k-th
// symbol, made in the same order in every process.
constexpr size_t kPoolSize = 64;

std::vector<GiNaC::realsymbol> makePool() {
  std::vector<GiNaC::realsymbol> pool;
  for (size_t k = 0; k < kPoolSize; ++k) pool.emplace_back(std::to_string(k).insert(0, 1, 's'));
  return pool;
}

const std::vector<GiNaC::realsymbol> kPool = makePool();

struct Translation {
  std::vector<std::string> names;  // sorted: names[k] is kPool[k]

  explicit Translation(const Expr& e) {
    operands(e);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }

  // The names in operand places (an operator's head is no symbol of the algebra).
  void operands(const Expr& e) {
    if (e.isSymbol()) names.push_back(e.text);
    for (size_t k = e.isList() ? 1 : 0; k < e.items.size(); ++k) operands(e.items[k]);
  }

  std::optional<ex> symbol(const std::string& name) const {
    size_t k = static_cast<size_t>(std::lower_bound(names.begin(), names.end(), name) - names.begin());
    if (k >= kPool.size()) return std::nullopt;  // more names than the pool: the hash decides
    return ex(kPool[k]);
  }

  std::optional<ex> operator()(const Expr& e) {
    // GiNaC takes a float coefficient 1.0 for the exact 1 and drops it, or not, as its term order falls: a
    // literal +-1 is nudged off by 2^-40 (its value counts only to 12 digits, and a fitted one is no exact 1).
    if (e.isNumber()) return ex(GiNaC::numeric(std::fabs(e.number) == 1 ? e.number * (1 + 0x1p-40) : e.number));
    if (e.isSymbol()) return symbol(e.text);
    if (!e.isList() || e.items.size() < 2 || !e.items[0].isSymbol()) return std::nullopt;
    const std::string& op = e.head();
    std::vector<ex> args;
    for (size_t k = 1; k < e.items.size(); ++k) {
      auto a = (*this)(e.items[k]);
      if (!a) return std::nullopt;
      args.push_back(*a);
    }
    const size_t n = args.size();
    if (op == "+" || op == "*") {
      ex out = args[0];
      for (size_t k = 1; k < n; ++k) out = op == "+" ? out + args[k] : out * args[k];
      return out;
    }
    if (op == "-" || op == "/") {
      if (n == 1) return op == "-" ? -args[0] : 1 / args[0];
      ex out = args[0];
      for (size_t k = 1; k < n; ++k) out = op == "-" ? out - args[k] : out / args[k];
      return out;
    }
    // A tower whose top exponent is not a number, b^(c^(log a)): GiNaC's expand of it recursed past the stack
    // (Feynman I.39.22 under noise); the hash decides.
    if (n == 2 && op == "expt" && e.items[2].head() == "expt" && !e.items[2].items[2].isNumber()) return std::nullopt;
    if (n == 2 && op == "expt") return GiNaC::pow(args[0], args[1]);
    if (n != 1) return std::nullopt;
    static const std::map<std::string, ex (*)(const ex&)> unary = {
        {"exp", [](const ex& x) -> ex { return GiNaC::exp(x); }},
        {"log", [](const ex& x) -> ex { return GiNaC::log(x); }},
        {"sin", [](const ex& x) -> ex { return GiNaC::sin(x); }},
        {"cos", [](const ex& x) -> ex { return GiNaC::cos(x); }},
        {"tanh", [](const ex& x) -> ex { return GiNaC::tanh(x); }},
        {"atan", [](const ex& x) -> ex { return GiNaC::atan(x); }},
        {"abs", [](const ex& x) -> ex { return GiNaC::abs(x); }},
        {"sqrt", [](const ex& x) -> ex { return GiNaC::sqrt(x); }},
        {"square", [](const ex& x) -> ex { return GiNaC::pow(x, 2); }}};
    auto it = unary.find(op);
    if (it == unary.end()) return std::nullopt;
    return it->second(args[0]);
  }
};

std::string numberText(const GiNaC::numeric& x, int digits) {
  if (x.is_rational()) {
    std::ostringstream s;
    s << x;
    return s.str();
  }
  if (digits <= 0) return "#c";
  if (!x.is_real()) return "#complex";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*e", std::max(0, digits - 1), x.to_double());
  return buf;
}

// The normal form as text: every sum's and product's operands sorted by their own text, each pool symbol by its
// name, and every sum that is a factor (a denominator (a - b)^-1, say) turned the way whose text is smaller, its sign
// moved to the product's coefficient. GiNaC's own choices here follow its term order, which hashes the address of a
// type's name: another process (address space layout randomisation) may write -(b - a)^-1 for (a - b)^-1.
class Printer {
 public:
  Printer(int digits, const std::vector<std::string>& names) : digits_(digits), names_(names) {}

  std::string text(const ex& e) const {
    using namespace GiNaC;
    if (is_a<numeric>(e)) return numberText(ex_to<numeric>(e), digits_);
    if (is_a<symbol>(e)) {  // |name|, appended: GCC 12 warns (-Wrestrict, falsely) on "|" + name + "|"
      std::string out(1, '|');
      return out.append(names_.at(std::stoul(ex_to<symbol>(e).get_name().substr(1)))).append(1, '|');
    }
    if (is_a<mul>(e) || (is_a<power>(e) && sumFactor(e))) return product(e);
    if (is_a<power>(e) && !e.op(1).info(info_flags::integer)) {
      // (u^-1)^q is written u^-q, and (-(s^-1))^q, for a sum s, (-s)^-q: GiNaC writes (z - y)^(-1/2) or
      // sqrt(-(y - z)^-1) as its term order falls (they differ only where the program's value is NaN).
      ex base = e.op(0);
      if (is_a<mul>(base) && base.nops() == 2)
        for (size_t k = 0; k < 2; ++k)
          if (base.op(1 - k).is_equal(-1) && is_a<power>(base.op(k)) && is_a<add>(base.op(k).op(0)) &&
              base.op(k).op(1).is_equal(-1))
            return list("^", {text((-base.op(k).op(0)).expand()), text(-e.op(1))});
      if (is_a<power>(base) && base.op(1).is_equal(-1)) return list("^", {text(base.op(0)), text(-e.op(1))});
    }
    std::vector<std::string> parts;
    for (size_t k = 0; k < e.nops(); ++k) parts.push_back(text(e.op(k)));
    std::string head;
    if (is_a<add>(e)) {
      head.push_back('+');
      std::sort(parts.begin(), parts.end());
    } else if (is_a<power>(e)) {
      head.push_back('^');
    } else if (is_a<function>(e)) {
      head = ex_to<function>(e).get_name();
    } else {
      throw std::invalid_argument("an expression GiNaC made that the printer does not know");
    }
    return list(head, std::move(parts));
  }

 private:
  int digits_;
  const std::vector<std::string>& names_;

  static std::string list(const std::string& head, std::vector<std::string> parts) {
    std::string out = "(" + head;
    for (const auto& p : parts) out += " " + p;
    return out + ")";
  }

  // A sum, or a sum to an integer power: a factor of a product whose sign may be turned (a sum standing alone
  // keeps its sign: there is no coefficient to take it).
  static bool sumFactor(const ex& e) {
    using namespace GiNaC;
    return is_a<add>(e) || (is_a<power>(e) && is_a<add>(e.op(0)) && e.op(1).info(info_flags::integer));
  }

  // A product (or one sum factor) with its sum factors turned, their signs in the coefficient.
  std::string product(const ex& e) const {
    using namespace GiNaC;
    numeric coefficient = 1;
    std::vector<std::string> parts;
    const size_t n = is_a<mul>(e) ? e.nops() : 1;
    for (size_t k = 0; k < n; ++k) {
      const ex f = is_a<mul>(e) ? e.op(k) : e;
      if (is_a<numeric>(f)) {
        coefficient *= ex_to<numeric>(f);
      } else if (sumFactor(f)) {
        const bool raised = is_a<power>(f);
        const ex base = raised ? f.op(0) : f;
        std::string up = text(base), down = text((-base).expand());
        const numeric exponent = raised ? ex_to<numeric>(f.op(1)) : numeric(1);
        if (down < up) {
          up.swap(down);
          if (exponent.is_odd()) coefficient = -coefficient;
        }
        parts.push_back(raised ? list("^", {up, numberText(exponent, digits_)}) : up);
      } else {
        parts.push_back(text(f));
      }
    }
    if (!coefficient.is_equal(1)) parts.push_back(numberText(coefficient, digits_));
    if (parts.size() == 1) return parts[0];
    std::sort(parts.begin(), parts.end());
    return list("*", std::move(parts));
  }
};

// About how many terms expanding `e` makes: a product of sums multiplies their counts, a sum's integer power
// raises its count to that power. Past kMostTerms the form is printed as GiNaC evaluated it, unexpanded.
constexpr double kMostTerms = 4096;

double termsAfterExpanding(const ex& e) {
  using namespace GiNaC;
  if (is_a<add>(e)) {
    double n = 0;
    for (size_t k = 0; k < e.nops(); ++k) n += termsAfterExpanding(e.op(k));
    return n;
  }
  if (is_a<mul>(e)) {
    double n = 1;
    for (size_t k = 0; k < e.nops(); ++k) n *= termsAfterExpanding(e.op(k));
    return n;
  }
  if (is_a<power>(e) && e.op(1).info(info_flags::posint))
    return std::pow(termsAfterExpanding(e.op(0)), std::min(64.0, ex_to<numeric>(e.op(1)).to_double()));
  return 1;
}

// Whether expanding `e` stays small everywhere, not only at the top: no integer power above 64 in size anywhere
// (GiNaC expands (a + b)^n by recursion on n: a fitted exponent rounded to 26,000 overflowed the stack), and every
// function's argument, which expand_function_args expands as well, within kMostTerms.
bool tame(const ex& e) {
  using namespace GiNaC;
  if (is_a<power>(e) && is_a<numeric>(e.op(1)) && e.op(1).info(info_flags::integer) &&
      std::fabs(ex_to<numeric>(e.op(1)).to_double()) > 64)
    return false;
  if (is_a<function>(e))
    for (size_t k = 0; k < e.nops(); ++k)
      if (termsAfterExpanding(e.op(k)) > kMostTerms) return false;
  for (size_t k = 0; k < e.nops(); ++k)
    if (!tame(e.op(k))) return false;
  return true;
}

std::optional<std::string> translate(const Expr& e, int digits) {
  try {
    Translation t(e);
    auto x = t(e);
    if (!x) return std::nullopt;
    const ex normal =
        termsAfterExpanding(*x) <= kMostTerms && tame(*x) ? x->expand(GiNaC::expand_options::expand_function_args) : *x;
    return Printer(digits, t.names).text(normal);
  } catch (const std::exception&) {  // a pole (division by an exact zero), an overflow: the hash decides instead
    return std::nullopt;
  }
}

struct Registration {
  Registration() { registerCanonicalTranslator("ginac", translate); }
} registration;

}  // namespace

}  // namespace dmci::search
