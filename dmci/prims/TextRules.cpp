// The rules of the character and string primitives (prims/TextRules.h), shared by the native rows and the oracle.
#include "prims/TextRules.h"

#include <locale.h>

#include <clocale>
#include <cmath>
#include <cstdlib>
#include <cwctype>
#include <functional>
#include <optional>
#include <unordered_map>

#include "syntax/Datum.h"
#include "syntax/Error.h"
#include "syntax/NumberSyntax.h"

namespace dmci::text {
namespace {

using K = Arg::Kind;

// --- UTF-8 ---

std::u32string decode(const std::string& s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += static_cast<size_t>(n);
  }
  return out;
}

std::string encode(const std::u32string& cs) {
  std::string out;
  for (char32_t c : cs) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

// --- Unicode classes and case, from glibc's C.UTF-8 (built into glibc since 2.35) ---

locale_t utf8() {
  static const locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return l;
}

// The zero of each run of ten Unicode Nd (decimal digit) characters.
constexpr char32_t kDigitZeros[] = {
    0x0030,  0x0660,  0x06F0,  0x07C0,  0x0966,  0x09E6,  0x0A66,  0x0AE6,  0x0B66,  0x0BE6,  0x0C66,
    0x0CE6,  0x0D66,  0x0DE6,  0x0E50,  0x0ED0,  0x0F20,  0x1040,  0x1090,  0x17E0,  0x1810,  0x1946,
    0x19D0,  0x1A80,  0x1A90,  0x1B50,  0x1BB0,  0x1C40,  0x1C50,  0xA620,  0xA8D0,  0xA900,  0xA9D0,
    0xA9F0,  0xAA50,  0xABF0,  0xFF10,  0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0,
    0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60,
    0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0};

int digitValue(char32_t c) {
  for (char32_t z : kDigitZeros)
    if (c >= z && c < z + 10) return static_cast<int>(c - z);
  return -1;
}

bool ascii(char32_t c) { return c < 0x80; }
bool isAlpha(char32_t c) {
  if (digitValue(c) >= 0) return false;  // glibc counts other scripts' digits as alpha; Unicode does not
  if (ascii(c) || !utf8()) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  return iswalpha_l(static_cast<wint_t>(c), utf8()) != 0;
}
bool isSpace(char32_t c) {
  if (ascii(c) || !utf8()) return c == ' ' || (c >= 9 && c <= 13);
  return iswspace_l(static_cast<wint_t>(c), utf8()) != 0 || c == 0xA0 || c == 0x2007 || c == 0x202F;
}
bool isUpper(char32_t c) {
  if (ascii(c) || !utf8()) return c >= 'A' && c <= 'Z';
  return iswupper_l(static_cast<wint_t>(c), utf8()) != 0;
}
bool isLower(char32_t c) {
  if (ascii(c) || !utf8()) return c >= 'a' && c <= 'z';
  return iswlower_l(static_cast<wint_t>(c), utf8()) != 0;
}
char32_t upcase(char32_t c) {
  if (ascii(c) || !utf8()) return c >= 'a' && c <= 'z' ? c - 32 : c;
  return static_cast<char32_t>(towupper_l(static_cast<wint_t>(c), utf8()));
}
char32_t downcase(char32_t c) {
  if (ascii(c) || !utf8()) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  return static_cast<char32_t>(towlower_l(static_cast<wint_t>(c), utf8()));
}

// --- arguments ---

[[noreturn]] void wrong(const std::string& prim, size_t k, const Arg& got, const char* expected) {
  throw DmciError(ErrorKind::Type,
                  prim + ": argument " + std::to_string(k + 1) + " must be " + expected + ", got " + got.shown);
}

char32_t charAt(const std::string& prim, const std::vector<Arg>& a, size_t k) {
  if (a[k].kind != K::Char) wrong(prim, k, a[k], "a character");
  return a[k].ch;
}
const std::string& stringAt(const std::string& prim, const std::vector<Arg>& a, size_t k) {
  if (a[k].kind != K::String) wrong(prim, k, a[k], "a string");
  return a[k].str;
}
// A non-negative integer no larger than `most`.
size_t indexAt(const std::string& prim, const std::vector<Arg>& a, size_t k, size_t most, const char* what) {
  if (a[k].kind != K::Number || !std::isfinite(a[k].num) || std::floor(a[k].num) != a[k].num)
    wrong(prim, k, a[k], "an exact integer");
  if (a[k].num < 0 || a[k].num > static_cast<double>(most))
    throw DmciError(ErrorKind::Domain,
                    prim + ": " + what + " " + a[k].shown + " is out of range 0 to " + std::to_string(most));
  return static_cast<size_t>(a[k].num);
}

Out boolean(bool b) {
  Out o;
  o.b = b;
  return o;
}
Out character(char32_t c) {
  Out o;
  o.kind = Out::Kind::Char;
  o.ch = c;
  return o;
}
Out string(std::string s, Out::Kind k = Out::Kind::String) {
  Out o;
  o.kind = k;
  o.str = std::move(s);
  return o;
}
Out number(double x) {
  Out o;
  o.kind = Out::Kind::Number;
  o.num = x;
  return o;
}
// A count or a code point: an exact integer.
Out exactInteger(double x) {
  Out o = number(x);
  o.exact = true;
  return o;
}

// A chain of comparisons (char<? a b c): each neighbour pair in order, every argument checked first.
template <class T>
Out chain(const std::vector<T>& xs, const std::function<bool(const T&, const T&)>& holds) {
  for (size_t k = 0; k + 1 < xs.size(); ++k)
    if (!holds(xs[k], xs[k + 1])) return boolean(false);
  return boolean(true);
}

std::function<bool(char32_t, char32_t)> charOrder(const std::string& op) {
  if (op == "=") return std::equal_to<char32_t>();
  if (op == "<") return std::less<char32_t>();
  if (op == ">") return std::greater<char32_t>();
  if (op == "<=") return std::less_equal<char32_t>();
  return std::greater_equal<char32_t>();
}

// The chars of a string (folded when ci), for comparisons.
std::u32string folded(const std::string& s, bool ci) {
  std::u32string cs = decode(s);
  if (ci)
    for (auto& c : cs) c = downcase(c);
  return cs;
}

// [start, end) of the optional arguments from k on, within n.
std::pair<size_t, size_t> range(const std::string& prim, const std::vector<Arg>& a, size_t k, size_t n) {
  size_t start = a.size() > k ? indexAt(prim, a, k, n, "start") : 0;
  size_t end = a.size() > k + 1 ? indexAt(prim, a, k + 1, n, "end") : n;
  if (end < start)
    throw DmciError(ErrorKind::Domain,
                    prim + ": end " + std::to_string(end) + " is before start " + std::to_string(start));
  return {start, end};
}

int radixAt(const std::string& prim, const std::vector<Arg>& a, size_t k) {
  if (a.size() <= k) return 10;
  if (a[k].kind != K::Number || !(a[k].num == 2 || a[k].num == 8 || a[k].num == 10 || a[k].num == 16))
    wrong(prim, k, a[k], "a radix (2, 8, 10 or 16)");
  return static_cast<int>(a[k].num);
}

// R7RS string->number on the reals of the subset, by the reader's own number syntax (syntax/NumberSyntax.h): a
// decimal in radix 10 (with +inf.0, -inf.0, +nan.0), an integer in radix 2, 8 or 16, with a radix and an exactness
// prefix. Text that is none of these is a domain error at the call (issue 42: a model reading numbers from text
// stops at the garbage, where R7RS would return #f and the #f would stop it later, at an arithmetic far from the
// cause); so is #e of a number with no exact form here (a non-integer: there are no rationals).
Out stringToNumber(const std::string& prim, const std::vector<Arg>& a) {
  int radix = radixAt(prim, a, 1);
  std::optional<NumberText> x = parseNumberText(stringAt(prim, a, 0), radix);
  if (!x)
    throw DmciError(ErrorKind::Domain, prim + ": " + a[0].shown + " is not a number in radix " + std::to_string(radix));
  if (x->noExactForm) throw DmciError(ErrorKind::Domain, prim + ": " + a[0].shown + " " + kNoExactForm);
  Out o = number(x->value);
  o.exact = x->exact;
  return o;
}

Out numberToString(const std::string& prim, const std::vector<Arg>& a) {
  if (a[0].kind != K::Number) wrong(prim, 0, a[0], "a number");
  int radix = radixAt(prim, a, 1);
  double x = a[0].num;
  if (radix == 10) return string(formatNumber(x));
  if (!std::isfinite(x) || std::floor(x) != x || std::fabs(x) > 9007199254740992.0)
    throw DmciError(ErrorKind::Domain, prim + ": only an integer of at most 2^53 has digits in radix " +
                                           std::to_string(radix) + ", got " + a[0].shown);
  double m = std::fabs(x);
  std::string digits;
  do {
    int d = static_cast<int>(std::fmod(m, radix));
    digits.insert(digits.begin(), static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10));
    m = std::floor(m / radix);
  } while (m > 0);
  return string(x < 0 ? "-" + digits : digits);
}

using Rule = std::function<Out(const std::string&, const std::vector<Arg>&)>;

void addCharRules(std::unordered_map<std::string, Rule>& t) {
  t["char?"] = [](auto&, auto& a) { return boolean(a[0].kind == K::Char); };
  for (const char* op : {"=", "<", ">", "<=", ">="})
    for (bool ci : {false, true}) {
      std::string name = std::string(ci ? "char-ci" : "char") + op + "?";
      t[name] = [op = std::string(op), ci](const std::string& prim, const std::vector<Arg>& a) {
        std::vector<char32_t> cs;
        for (size_t k = 0; k < a.size(); ++k) cs.push_back(ci ? downcase(charAt(prim, a, k)) : charAt(prim, a, k));
        auto less = charOrder(op);
        return chain<char32_t>(cs, [&](const char32_t& x, const char32_t& y) { return less(x, y); });
      };
    }
  t["char-alphabetic?"] = [](auto& p, auto& a) { return boolean(isAlpha(charAt(p, a, 0))); };
  t["char-numeric?"] = [](auto& p, auto& a) { return boolean(digitValue(charAt(p, a, 0)) >= 0); };
  t["char-whitespace?"] = [](auto& p, auto& a) { return boolean(isSpace(charAt(p, a, 0))); };
  t["char-upper-case?"] = [](auto& p, auto& a) { return boolean(isUpper(charAt(p, a, 0))); };
  t["char-lower-case?"] = [](auto& p, auto& a) { return boolean(isLower(charAt(p, a, 0))); };
  t["digit-value"] = [](auto& p, auto& a) {
    int d = digitValue(charAt(p, a, 0));
    return d < 0 ? boolean(false) : exactInteger(d);
  };
  t["char->integer"] = [](auto& p, auto& a) { return exactInteger(static_cast<double>(charAt(p, a, 0))); };
  t["integer->char"] = [](auto& p, auto& a) {
    size_t c = indexAt(p, a, 0, 0x10FFFF, "code point");
    if (c >= 0xD800 && c <= 0xDFFF)
      throw DmciError(ErrorKind::Domain, p + ": " + a[0].shown + " is a surrogate, not a character");
    return character(static_cast<char32_t>(c));
  };
  t["char-upcase"] = [](auto& p, auto& a) { return character(upcase(charAt(p, a, 0))); };
  t["char-downcase"] = [](auto& p, auto& a) { return character(downcase(charAt(p, a, 0))); };
  t["char-foldcase"] = [](auto& p, auto& a) { return character(downcase(charAt(p, a, 0))); };
}

void addStringRules(std::unordered_map<std::string, Rule>& t) {
  t["make-string"] = [](auto& p, auto& a) {
    size_t n = indexAt(p, a, 0, 1u << 24, "length");
    char32_t fill = a.size() > 1 ? charAt(p, a, 1) : U' ';
    return string(encode(std::u32string(n, fill)));
  };
  t["string"] = [](auto& p, auto& a) {
    std::u32string cs;
    for (size_t k = 0; k < a.size(); ++k) cs.push_back(charAt(p, a, k));
    return string(encode(cs));
  };
  t["string-length"] = [](auto& p, auto& a) {
    return exactInteger(static_cast<double>(decode(stringAt(p, a, 0)).size()));
  };
  t["string-ref"] = [](auto& p, auto& a) {
    std::u32string cs = decode(stringAt(p, a, 0));
    if (cs.empty()) throw DmciError(ErrorKind::Domain, p + ": the string is empty");
    return character(cs[indexAt(p, a, 1, cs.size() - 1, "index")]);
  };
  for (const char* op : {"=", "<", ">", "<=", ">="})
    for (bool ci : {false, true}) {
      std::string name = std::string(ci ? "string-ci" : "string") + op + "?";
      t[name] = [op = std::string(op), ci](const std::string& prim, const std::vector<Arg>& a) {
        std::vector<std::u32string> ss;
        for (size_t k = 0; k < a.size(); ++k) ss.push_back(folded(stringAt(prim, a, k), ci));
        auto order = [&](const std::u32string& x, const std::u32string& y) {
          int c = x.compare(y);
          return op == "=" ? c == 0 : op == "<" ? c < 0 : op == ">" ? c > 0 : op == "<=" ? c <= 0 : c >= 0;
        };
        return chain<std::u32string>(ss, order);
      };
    }
  auto mapChars = [](char32_t (*f)(char32_t)) {
    return [f](const std::string& p, const std::vector<Arg>& a) {
      std::u32string cs = decode(stringAt(p, a, 0));
      for (auto& c : cs) c = f(c);
      return string(encode(cs));
    };
  };
  t["string-upcase"] = mapChars(upcase);
  t["string-downcase"] = mapChars(downcase);
  t["string-foldcase"] = mapChars(downcase);
  auto slice = [](const std::string& p, const std::vector<Arg>& a) {
    std::u32string cs = decode(stringAt(p, a, 0));
    auto [start, end] = range(p, a, 1, cs.size());
    return cs.substr(start, end - start);
  };
  t["substring"] = [slice](auto& p, auto& a) { return string(encode(slice(p, a))); };
  t["string-copy"] = [slice](auto& p, auto& a) { return string(encode(slice(p, a))); };
  t["string->list"] = [slice](auto& p, auto& a) {
    Out o;
    o.kind = Out::Kind::CharList;
    o.chars = slice(p, a);
    return o;
  };
  t["list->string"] = [](auto& p, auto& a) {
    if (a[0].kind != K::List) wrong(p, 0, a[0], "a list of characters");
    std::u32string cs;
    for (const Arg& x : a[0].items) {
      if (x.kind != K::Char) wrong(p, 0, a[0], "a list of characters");
      cs.push_back(x.ch);
    }
    return string(encode(cs));
  };
  t["string-append"] = [](auto& p, auto& a) {
    std::string s;
    for (size_t k = 0; k < a.size(); ++k) s += stringAt(p, a, k);
    return string(s);
  };
}

void addConversionRules(std::unordered_map<std::string, Rule>& t) {
  t["string->symbol"] = [](auto& p, auto& a) { return string(stringAt(p, a, 0), Out::Kind::Symbol); };
  t["symbol->string"] = [](auto& p, auto& a) {
    if (a[0].kind != K::Symbol) wrong(p, 0, a[0], "a symbol");
    return string(a[0].str);
  };
  t["symbol=?"] = [](auto& p, auto& a) {
    for (size_t k = 0; k < a.size(); ++k)
      if (a[k].kind != K::Symbol) wrong(p, k, a[k], "a symbol");
    std::vector<std::string> names;
    for (const Arg& x : a) names.push_back(x.str);
    return chain<std::string>(names, std::equal_to<std::string>());
  };
  t["boolean=?"] = [](auto& p, auto& a) {
    std::vector<bool> bs;
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k].kind != K::Bool) wrong(p, k, a[k], "a boolean");
      bs.push_back(a[k].b);
    }
    return chain<bool>(bs, std::equal_to<bool>());
  };
  t["string->number"] = [](auto& p, auto& a) { return stringToNumber(p, a); };
  t["number->string"] = [](auto& p, auto& a) { return numberToString(p, a); };
}

const std::unordered_map<std::string, Rule>& rules() {
  static const std::unordered_map<std::string, Rule> t = [] {
    std::unordered_map<std::string, Rule> m;
    addCharRules(m);
    addStringRules(m);
    addConversionRules(m);
    return m;
  }();
  return t;
}

}  // namespace

const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      {"char?", 1, 1, "(char? x) #t for a character", false},
      {"char=?", 1, -1, "(char=? c ...) #t when the characters are equal", false},
      {"char<?", 1, -1, "(char<? c ...) #t when the code points increase", false},
      {"char>?", 1, -1, "(char>? c ...) #t when the code points decrease", false},
      {"char<=?", 1, -1, "(char<=? c ...) #t when the code points do not decrease", false},
      {"char>=?", 1, -1, "(char>=? c ...) #t when the code points do not increase", false},
      {"char-ci=?", 1, -1, "(char-ci=? c ...) char=? on the folded characters", false},
      {"char-ci<?", 1, -1, "(char-ci<? c ...) char<? on the folded characters", false},
      {"char-ci>?", 1, -1, "(char-ci>? c ...) char>? on the folded characters", false},
      {"char-ci<=?", 1, -1, "(char-ci<=? c ...) char<=? on the folded characters", false},
      {"char-ci>=?", 1, -1, "(char-ci>=? c ...) char>=? on the folded characters", false},
      {"char-alphabetic?", 1, 1, "(char-alphabetic? c) #t for a letter (Unicode)", false},
      {"char-numeric?", 1, 1, "(char-numeric? c) #t for a decimal digit (Unicode Nd)", false},
      {"char-whitespace?", 1, 1, "(char-whitespace? c) #t for white space (Unicode)", false},
      {"char-upper-case?", 1, 1, "(char-upper-case? c) #t for an upper-case letter", false},
      {"char-lower-case?", 1, 1, "(char-lower-case? c) #t for a lower-case letter", false},
      {"digit-value", 1, 1, "(digit-value c) the value of a decimal digit (Unicode Nd), else #f", false},
      {"char->integer", 1, 1, "(char->integer c) the code point of c", false},
      {"integer->char", 1, 1, "(integer->char n) the character with code point n", true},
      {"char-upcase", 1, 1, "(char-upcase c) c in upper case (simple mapping)", false},
      {"char-downcase", 1, 1, "(char-downcase c) c in lower case (simple mapping)", false},
      {"char-foldcase", 1, 1, "(char-foldcase c) c folded (its lower case)", false},
      {"make-string", 1, 2, "(make-string k [c]) a string of k copies of c (a space by default)", true},
      {"string", 0, -1, "(string c ...) the string of the characters", false},
      {"string-length", 1, 1, "(string-length s) the number of characters in s", false},
      {"string-ref", 2, 2, "(string-ref s k) the character of s at index k", true},
      {"string=?", 1, -1, "(string=? s ...) #t when the strings are equal", false},
      {"string<?", 1, -1, "(string<? s ...) #t when the strings increase (code point order)", false},
      {"string>?", 1, -1, "(string>? s ...) #t when the strings decrease", false},
      {"string<=?", 1, -1, "(string<=? s ...) #t when the strings do not decrease", false},
      {"string>=?", 1, -1, "(string>=? s ...) #t when the strings do not increase", false},
      {"string-ci=?", 1, -1, "(string-ci=? s ...) string=? on the folded strings", false},
      {"string-ci<?", 1, -1, "(string-ci<? s ...) string<? on the folded strings", false},
      {"string-ci>?", 1, -1, "(string-ci>? s ...) string>? on the folded strings", false},
      {"string-ci<=?", 1, -1, "(string-ci<=? s ...) string<=? on the folded strings", false},
      {"string-ci>=?", 1, -1, "(string-ci>=? s ...) string>=? on the folded strings", false},
      {"string-upcase", 1, 1, "(string-upcase s) s in upper case, character by character", false},
      {"string-downcase", 1, 1, "(string-downcase s) s in lower case, character by character", false},
      {"string-foldcase", 1, 1, "(string-foldcase s) s folded, character by character", false},
      {"substring", 3, 3, "(substring s start end) the characters of s from start to before end", true},
      {"string-copy", 1, 3, "(string-copy s [start [end]]) the characters of s from start to before end", true},
      {"string->list", 1, 3, "(string->list s [start [end]]) the list of the characters of s", true},
      {"list->string", 1, 1, "(list->string l) the string of the characters in l", false},
      {"string-append", 0, -1, "(string-append s ...) the strings one after another", false},
      {"string->symbol", 1, 1, "(string->symbol s) the symbol named s", false},
      {"symbol->string", 1, 1, "(symbol->string sym) the name of sym", false},
      {"symbol=?", 1, -1, "(symbol=? sym ...) #t when the symbols are the same", false},
      {"boolean=?", 1, -1, "(boolean=? b ...) #t when the booleans are the same", false},
      {"string->number", 1, 2,
       "(string->number s [radix]) the number s writes (radix 10, or 2, 8, 16 for integers); other text is an error",
       true},
      {"number->string", 1, 2, "(number->string z [radix]) z written in radix 10, or an integer in radix 2, 8 or 16",
       true},
  };
  return r;
}

Out apply(const std::string& name, const std::vector<Arg>& args) { return rules().at(name)(name, args); }

}  // namespace dmci::text
