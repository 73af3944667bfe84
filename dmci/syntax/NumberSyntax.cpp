// The syntax of numbers (syntax/NumberSyntax.h), shared by the reader and string->number.
#include "syntax/NumberSyntax.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "syntax/Exactness.h"

namespace dmci {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// The value of digit c in `radix`, or -1.
int digitValue(char c, int radix) {
  int d = isDigit(c) ? c - '0' : (c >= 'a' && c <= 'z') ? c - 'a' + 10 : (c >= 'A' && c <= 'Z') ? c - 'A' + 10 : -1;
  return d < radix ? d : -1;
}

bool isDecimal(std::string_view t) {
  size_t i = 0, n = t.size(), digits = 0;
  if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
  for (; i < n && isDigit(t[i]); ++i) ++digits;
  if (i < n && t[i] == '.')
    for (++i; i < n && isDigit(t[i]); ++i) ++digits;
  if (digits == 0) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    size_t exp = 0;
    for (; i < n && isDigit(t[i]); ++i) ++exp;
    if (exp == 0) return false;
  }
  return i == n;
}

double decimalValue(std::string_view t) {
  std::string_view body = t[0] == '+' ? t.substr(1) : t;
  double v = 0;
  auto r = std::from_chars(body.data(), body.data() + body.size(), v);
  if (r.ec == std::errc::result_out_of_range) v = std::strtod(std::string(t).c_str(), nullptr);
  return v;
}

// A decimal token written as an integer (digits with an optional sign) whose value a double holds digit for digit:
// 9007199254740993 reads as 2^53, an inexact neighbour.
bool isExactIntegerToken(std::string_view t, double value) {
  size_t i = (!t.empty() && (t[0] == '+' || t[0] == '-')) ? 1 : 0;
  if (i == t.size()) return false;
  for (size_t k = i; k < t.size(); ++k)
    if (!isDigit(t[k])) return false;
  if (!holdsExactInteger(value)) return false;
  while (i + 1 < t.size() && t[i] == '0') ++i;
  return t.substr(i) == std::to_string(static_cast<long long>(std::fabs(value)));
}

}  // namespace

bool looksNumeric(std::string_view t) {
  size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  if (i < t.size() && t[i] == '.') ++i;
  return i < t.size() && isDigit(t[i]);
}

std::optional<NumberText> parseNumberText(std::string_view s, int radix) {
  char exactness = 0, radixPrefix = 0;
  while (s.size() >= 2 && s[0] == '#') {
    const char p = static_cast<char>(s[1] | 0x20);  // ASCII lower case
    if (p == 'e' || p == 'i') {
      if (exactness) return std::nullopt;
      exactness = p;
    } else if (p == 'x' || p == 'o' || p == 'b' || p == 'd') {
      if (radixPrefix) return std::nullopt;
      radixPrefix = p;
      radix = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
    } else {
      return std::nullopt;
    }
    s.remove_prefix(2);
  }
  NumberText out;
  bool integerText = false;
  if (s == "+inf.0" || s == "-inf.0" || s == "+nan.0" || s == "-nan.0") {
    out.value = s[1] == 'n' ? std::numeric_limits<double>::quiet_NaN()
                            : (s[0] == '-' ? -1 : 1) * std::numeric_limits<double>::infinity();
  } else if (radix == 10) {
    if (!isDecimal(s)) return std::nullopt;
    out.value = decimalValue(s);
    integerText = isExactIntegerToken(s, out.value);
  } else {
    size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    if (i == s.size()) return std::nullopt;
    for (; i < s.size(); ++i) {
      const int d = digitValue(s[i], radix);
      if (d < 0) return std::nullopt;
      out.value = out.value * radix + d;
    }
    if (s[0] == '-') out.value = -out.value;
    integerText = holdsExactInteger(out.value);
  }
  if (exactness == 'e') {
    out.exact = holdsExactInteger(out.value);
    out.noExactForm = !out.exact;
  } else {
    out.exact = exactness == 0 && integerText;
  }
  if (out.exact) out.value += 0.0;  // exact 0 has no sign
  return out;
}

}  // namespace dmci
