// The plugin dmci-canon-ginac.so: a candidate's canonical text by GiNaC. The value expression is translated
// (numbers, names, + - * / expt square sqrt exp log sin cos tanh atan abs; anything else is not taken), expanded to
// GiNaC's normal form (like terms collected, products of sums multiplied out, powers merged), and printed with the
// operands of every sum and product sorted by their own text: GiNaC orders operands by its symbols' serial
// numbers, which differ between processes, and the text must not (a resumed search reads the keys back).
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

struct Translation {
  std::map<std::string, GiNaC::realsymbol> symbols;

  GiNaC::realsymbol symbol(const std::string& name) {
    auto it = symbols.find(name);
    if (it == symbols.end()) it = symbols.emplace(name, GiNaC::realsymbol(name)).first;
    return it->second;
  }

  std::optional<ex> operator()(const Expr& e) {
    if (e.isNumber()) return ex(GiNaC::numeric(e.number));
    if (e.isSymbol()) return ex(symbol(e.text));
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

// The normal form as text, every sum's and product's operands sorted by their text.
std::string print(const ex& e, int digits) {
  using namespace GiNaC;
  if (is_a<numeric>(e)) return numberText(ex_to<numeric>(e), digits);
  if (is_a<symbol>(e)) {  // |name|, appended: GCC 12 warns (-Wrestrict, falsely) on "|" + name + "|"
    std::string out(1, '|');
    return out.append(ex_to<symbol>(e).get_name()).append(1, '|');
  }
  std::vector<std::string> parts;
  for (size_t k = 0; k < e.nops(); ++k) parts.push_back(print(e.op(k), digits));
  std::string head;
  if (is_a<add>(e) || is_a<mul>(e)) {
    head.push_back(is_a<add>(e) ? '+' : '*');
    std::sort(parts.begin(), parts.end());
  } else if (is_a<power>(e)) {
    head.push_back('^');
  } else if (is_a<function>(e)) {
    head = ex_to<function>(e).get_name();
  } else {
    throw std::invalid_argument("an expression GiNaC made that the printer does not know");
  }
  std::string out = "(" + head;
  for (const auto& p : parts) out += " " + p;
  return out + ")";
}

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

std::optional<std::string> translate(const Expr& e, int digits) {
  try {
    Translation t;
    auto x = t(e);
    if (!x) return std::nullopt;
    return print(termsAfterExpanding(*x) <= kMostTerms ? x->expand() : *x, digits);
  } catch (const std::exception&) {  // a pole (division by an exact zero), an overflow: the hash decides instead
    return std::nullopt;
  }
}

struct Registration {
  Registration() { registerCanonicalTranslator("ginac", translate); }
} registration;

}  // namespace

}  // namespace dmci::search
