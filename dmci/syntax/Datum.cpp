// Datum constructors, structural equality, the printer whose output the reader reads back, and the escaping of
// control characters it shares with escapeControls (TerminalText.h).
#include "syntax/Datum.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#include "syntax/Arena.h"
#include "syntax/Exactness.h"
#include "syntax/Reader.h"
#include "syntax/TerminalText.h"

namespace dmci {
namespace {

std::shared_ptr<Datum> make(DatumKind k, SrcPos p) {
  auto d = makeNode<Datum>();
  d->kind = k;
  d->pos = p;
  return d;
}

void appendHex(std::string& out, uint32_t v) {
  char buf[16];
  auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  out.append(buf, r.ptr);
}

bool isControl(unsigned char c) { return c < 0x20 || c == 0x7F; }

// Whether s[i] starts a C1 control character (U+0080 to U+009F) in UTF-8: a terminal may obey those as well.
bool c1At(const std::string& s, size_t i) {
  return static_cast<unsigned char>(s[i]) == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) <= 0x9F;
}

// Writes s with every control character (C0, DEL, C1) as an escape the reader reads back (\n, \t, \r,
// \x1b;); with a quote, that quote and backslash are escaped too: the body of a string or |symbol| literal.
void appendEscaped(std::string& out, const std::string& s, char quote, bool keepLines = false) {
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    auto c = static_cast<unsigned char>(ch);
    if (quote && (ch == quote || ch == '\\')) {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += keepLines ? "\n" : "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (isControl(c) || c1At(s, i)) {
      if (!isControl(c)) c = static_cast<unsigned char>(s[++i]);
      out += "\\x";
      appendHex(out, c);
      out += ';';
    } else {
      out += ch;
    }
  }
}

// Characters that can appear anywhere in a symbol printed without bars.
bool isPlainSymbolChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::strchr("!$%&*/:<=>?^_~+-.@", c) != nullptr;
}

// True when the bare name reads back as this very symbol; otherwise it needs |bars|.
bool printsBare(const std::string& name) {
  if (name.empty()) return false;
  char c0 = name[0];
  bool plainStart = (c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || std::strchr("!$%&*/:<=>?^_~", c0);
  bool plain = plainStart;
  for (size_t i = 0; plain && i < name.size(); ++i) plain = isPlainSymbolChar(name[i]);
  if (plain) return true;
  for (size_t i = 0; i < name.size(); ++i)
    if (isControl(static_cast<unsigned char>(name[i])) || c1At(name, i) || name[i] == '|') return false;
  // Rare names (peculiar identifiers, non-ASCII, odd punctuation): ask the reader itself.
  auto r = readAll(name, "");
  return r.ok() && r.value().size() == 1 && r.value()[0]->kind == DatumKind::Symbol && r.value()[0]->text == name;
}

void printChar(std::string& out, uint32_t c) {
  static const struct {
    uint32_t code;
    const char* name;
  } kNames[] = {{' ', "space"},   {'\n', "newline"}, {'\t', "tab"},    {0, "null"},     {7, "alarm"},
                {8, "backspace"}, {0x7F, "delete"},  {0x1B, "escape"}, {'\r', "return"}};
  out += "#\\";
  for (const auto& n : kNames)
    if (n.code == c) {
      out += n.name;
      return;
    }
  bool surrogate = c >= 0xD800 && c <= 0xDFFF;
  if ((c > 0x20 && c < 0x7F) || (c >= 0xA0 && c <= 0x10FFFF && !surrogate)) {
    appendUtf8(out, c);
  } else {
    out += 'x';
    appendHex(out, c);
  }
}

// Everything but a list.
void printAtom(std::string& out, const Datum& d) {
  switch (d.kind) {
    case DatumKind::Nil:
      out += "()";
      return;
    case DatumKind::Bool:
      out += d.boolean ? "#t" : "#f";
      return;
    case DatumKind::Number:
      out += formatNumber(d.number);
      return;
    case DatumKind::Char:
      printChar(out, d.ch);
      return;
    case DatumKind::Symbol:
      if (printsBare(d.text)) {
        out += d.text;
      } else {
        out += '|';
        appendEscaped(out, d.text, '|');
        out += '|';
      }
      return;
    case DatumKind::String:
      out += '"';
      appendEscaped(out, d.text, '"');
      out += '"';
      return;
    case DatumKind::List:
    case DatumKind::Vector:
      return;
  }
}

// Lists with an explicit stack of the open ones, so nesting depth costs heap, not C++ stack.
void printTo(std::string& out, const Datum& root) {
  struct Open {
    const Datum* list;
    size_t next;  // items printed so far; items.size() + 1 once the tail is
  };
  std::vector<Open> open;
  for (const Datum* d = &root; d;) {
    if (d->kind == DatumKind::List || d->kind == DatumKind::Vector) {
      out += d->kind == DatumKind::Vector ? "#(" : "(";
      open.push_back({d, 0});
    } else {
      printAtom(out, *d);
    }
    d = nullptr;
    while (!d && !open.empty()) {
      Open& o = open.back();
      size_t n = o.list->items.size();
      if (o.next < n) {
        if (o.next > 0) out += ' ';
        d = o.list->items[o.next++].get();
      } else if (o.next == n && o.list->tail) {
        out += " . ";
        ++o.next;
        d = o.list->tail.get();
      } else {
        out += ')';
        open.pop_back();
      }
    }
  }
}

// Children of a datum being freed; an outer destructor on this thread frees them one at a time, the last
// handed over first.
thread_local std::vector<DatumPtr>* tlPendingFree = nullptr;

// Hands the items over last first, so that they are freed first to last, the order they lie in their arena
// (prefetchAfter reads ahead of it).
void handOver(Datum& d, std::vector<DatumPtr>& pending) {
  if (d.tail) pending.push_back(std::move(d.tail));
  for (auto k = d.items.rbegin(); k != d.items.rend(); ++k) pending.push_back(std::move(*k));
}

}  // namespace

void appendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6));
    out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | (c >> 18));
    out += char(0x80 | ((c >> 12) & 0x3F));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
}

Datum::~Datum() {
  if (items.empty() && !tail) return;
  if (tlPendingFree) {
    handOver(*this, *tlPendingFree);
    return;
  }
  std::vector<DatumPtr> pending;
  tlPendingFree = &pending;
  handOver(*this, pending);
  while (!pending.empty()) {
    DatumPtr d = std::move(pending.back());
    pending.pop_back();
    prefetchAfter(d.get());
    d.reset();  // when this was the last owner, its items join `pending`
  }
  tlPendingFree = nullptr;
}

DatumPtr Datum::nil(SrcPos p) { return make(DatumKind::Nil, p); }

DatumPtr Datum::boolean_(bool b, SrcPos p) {
  auto d = make(DatumKind::Bool, p);
  d->boolean = b;
  return d;
}

DatumPtr Datum::num(double v, SrcPos p) {
  auto d = make(DatumKind::Number, p);
  d->number = v;
  return d;
}

// Declared in syntax/Exactness.h; defined here to allocate as every datum does.
DatumPtr numberWithExactness(double x, bool exact, SrcPos p) {
  auto d = make(DatumKind::Number, p);
  d->boolean = exact && holdsExactInteger(x);
  d->number = d->boolean ? x + 0.0 : x;  // exact 0 has no sign: -0 reads as 0
  return d;
}

DatumPtr Datum::character(uint32_t c, SrcPos p) {
  auto d = make(DatumKind::Char, p);
  d->ch = c;
  return d;
}

DatumPtr Datum::symbol(std::string name, SrcPos p) {
  auto d = make(DatumKind::Symbol, p);
  d->text = std::move(name);
  return d;
}

DatumPtr Datum::string(std::string s, SrcPos p) {
  auto d = make(DatumKind::String, p);
  d->text = std::move(s);
  return d;
}

DatumPtr Datum::list(std::vector<DatumPtr> items, SrcPos p, DatumPtr tail) {
  if (tail && tail->kind == DatumKind::List) {
    items.insert(items.end(), tail->items.begin(), tail->items.end());
    tail = tail->tail;
  } else if (tail && tail->kind == DatumKind::Nil) {
    tail = nullptr;
  }
  if (items.empty()) return tail ? tail : nil(p);
  auto d = make(DatumKind::List, p);
  d->items = std::move(items);
  d->tail = std::move(tail);
  return d;
}

DatumPtr Datum::vector(std::vector<DatumPtr> items, SrcPos p) {
  auto d = make(DatumKind::Vector, p);
  d->items = std::move(items);
  return d;
}

const std::string& Datum::head() const {
  static const std::string kNone;
  if (kind == DatumKind::List && items[0]->kind == DatumKind::Symbol) return items[0]->text;
  return kNone;
}

std::string print(const Datum& d) {
  std::string out;
  printTo(out, d);
  return out;
}

std::string escapeControls(const std::string& text, bool keepLines) {
  std::string out;
  out.reserve(text.size());
  appendEscaped(out, text, '\0', keepLines);
  return out;
}

bool equalDatum(const Datum& a, const Datum& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case DatumKind::Nil:
      return true;
    case DatumKind::Bool:
      return a.boolean == b.boolean;
    case DatumKind::Number:
      if (std::isnan(a.number) || std::isnan(b.number)) return std::isnan(a.number) && std::isnan(b.number);
      return std::bit_cast<uint64_t>(a.number) == std::bit_cast<uint64_t>(b.number);
    case DatumKind::Char:
      return a.ch == b.ch;
    case DatumKind::Symbol:
    case DatumKind::String:
      return a.text == b.text;
    case DatumKind::List:
    case DatumKind::Vector:
      if (a.items.size() != b.items.size() || bool(a.tail) != bool(b.tail)) return false;
      for (size_t i = 0; i < a.items.size(); ++i)
        if (!equalDatum(*a.items[i], *b.items[i])) return false;
      return !a.tail || equalDatum(*a.tail, *b.tail);
  }
  return false;
}

std::string formatNumber(double v) {
  if (std::isnan(v)) return "+nan.0";
  if (std::isinf(v)) return v > 0 ? "+inf.0" : "-inf.0";
  // Negative zero keeps its sign and its point: "-0" reads as the integer 0 in Scheme and in JSON.
  if (v == 0 && std::signbit(v)) return "-0.0";
  char buf[64];
  // An integral value a user reads as an integer prints as one (200000, not 2e+05); beyond 1e21 (where
  // JavaScript and Python switch too), or for a non-integer, the shortest form that reads back the same.
  if (v == std::floor(v) && std::fabs(v) < 1e21) {
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
    return std::string(buf, r.ptr);
  }
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace dmci
