// The reader: a single-pass lexer plus an explicit stack of open forms, so no input recurses in C++.
#include "syntax/Reader.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "syntax/Arena.h"
#include "syntax/Exactness.h"
#include "syntax/NumberSyntax.h"

namespace dmci {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// Characters that end a token.
bool isDelimiter(char c) { return c != '\0' && (isSpace(c) || std::strchr("()[]{}\";'`,|", c) != nullptr); }

// Decodes one UTF-8 sequence at the start of s; returns its length, or 0 if it is malformed.
size_t decodeUtf8(std::string_view s, uint32_t& cp) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char c = b(0);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || len > s.size()) return 0;
  cp = len == 1 ? c : c & (0x3F >> (len - 1));
  for (size_t i = 1; i < len; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3F);
  }
  return len;
}

struct CharName {
  const char* name;
  uint32_t code;
};
constexpr CharName kCharNames[] = {{"space", ' '},   {"newline", '\n'}, {"tab", '\t'},     {"null", 0},
                                   {"nul", 0},       {"alarm", 7},      {"backspace", 8},  {"delete", 0x7F},
                                   {"escape", 0x1B}, {"return", '\r'},  {"linefeed", '\n'}};

// The quote abbreviations, longest first: 'x is (quote x).
struct Abbreviation {
  const char* text;
  const char* name;
  const char* what;  // for messages
};
constexpr Abbreviation kAbbreviations[] = {{",@", "unquote-splicing", "the unquote-splicing mark ,@"},
                                           {"'", "quote", "the quote mark '"},
                                           {"`", "quasiquote", "the quasiquote mark `"},
                                           {",", "unquote", "the unquote mark ,"}};

// One open form waiting for datums: a list, a quote abbreviation, or a #; datum comment.
struct Frame {
  enum Kind { List, Quote, Skip };
  Frame(Kind k, SrcPos p, const char* name = nullptr, const char* text = nullptr)
      : kind(k), pos(p), quoteName(name), opener(text) {}
  Kind kind;
  SrcPos pos;
  const char* quoteName;        // Quote: "quote", "quasiquote", ...
  const char* opener;           // Quote/Skip: the text as written, for messages
  std::vector<DatumPtr> items;  // List
  DatumPtr tail;                // List: after '.'
  bool vector = false;          // List: opened by '#(', a vector literal
  SrcPos dotPos;                // List: where '.' was, if any
  enum DotState { NoDot, AwaitTail, HaveTail } dot = NoDot;
};

class Reader {
 public:
  Reader(const std::string& text, const std::string& file) : s_(text), file_(internFile(file)) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // a UTF-8 byte-order mark is not a datum
  }
  std::vector<DatumPtr> readAll();

 private:
  std::string_view s_;
  uint32_t file_;
  size_t i_ = 0;
  uint32_t line_ = 1, col_ = 1;
  std::vector<Frame> stack_;
  int depth_ = 0;  // List and Quote frames on the stack
  std::vector<DatumPtr> out_;

  bool atEnd() const { return i_ >= s_.size(); }
  char peek(size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  SrcPos here() const { return SrcPos{file_, line_, col_}; }
  void advance(size_t n = 1);
  [[noreturn]] void fail(SrcPos p, const std::string& msg) const { throw DmciError(ErrorKind::Syntax, msg, p); }

  void skipAtmosphere();
  void skipBlockComment();
  void step();
  void openForm(Frame f);
  void closeList(SrcPos p);
  void readDot(SrcPos p);
  void deliver(DatumPtr d);
  void failAtEnd() const;
  std::string_view takeToken();
  DatumPtr readAtom();
  DatumPtr readHash();
  DatumPtr readChar(SrcPos p);
  std::string readQuoted(char close, const char* what);
  void readEscape(std::string& out);
};

void Reader::advance(size_t n) {
  for (; n > 0 && i_ < s_.size(); --n, ++i_) {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
  }
}

std::vector<DatumPtr> Reader::readAll() {
  for (;;) {
    skipAtmosphere();
    if (atEnd()) break;
    step();
  }
  if (!stack_.empty()) failAtEnd();
  return std::move(out_);
}

// Whitespace, ; line comments and #| |# block comments.
void Reader::skipAtmosphere() {
  while (!atEnd()) {
    char c = peek();
    if (isSpace(c)) {
      advance();
    } else if (c == ';') {
      while (!atEnd() && peek() != '\n') advance();
    } else if (c == '#' && peek(1) == '|') {
      skipBlockComment();
    } else {
      return;
    }
  }
}

void Reader::skipBlockComment() {
  SrcPos start = here();
  advance(2);
  int open = 1;
  while (open > 0) {
    if (atEnd()) fail(start, "unterminated block comment '#|' (opened here)");
    if (peek() == '|' && peek(1) == '#') {
      --open;
      advance(2);
    } else if (peek() == '#' && peek(1) == '|') {
      ++open;
      advance(2);
    } else {
      advance();
    }
  }
}

// Reads one token or punctuation mark at the current position.
void Reader::step() {
  SrcPos p = here();
  for (const auto& a : kAbbreviations)
    if (s_.substr(i_).starts_with(a.text)) {
      advance(std::strlen(a.text));
      return openForm(Frame(Frame::Quote, p, a.name, a.what));
    }
  char c = peek();
  switch (c) {
    case '(':
      advance();
      return openForm(Frame(Frame::List, p));
    case ')':
      advance();
      return closeList(p);
    case '[':
    case ']':
      fail(p, std::string("square brackets are not supported; use '") + (c == '[' ? "(" : ")") + "'");
    case '{':
    case '}':
      fail(p, std::string("'") + c + "' is not supported");
    case '"':
      return deliver(Datum::string(readQuoted('"', "string"), p));
    case '#':
      if (peek(1) == ';') {
        advance(2);
        return openForm(Frame(Frame::Skip, p, nullptr, "the datum comment #;"));
      }
      if (peek(1) == '(') {
        advance(2);
        Frame f(Frame::List, p);
        f.vector = true;
        return openForm(std::move(f));
      }
      return deliver(readHash());
    default:
      if (c == '.' && (i_ + 1 >= s_.size() || isDelimiter(peek(1)))) {
        advance();
        return readDot(p);
      }
      return deliver(readAtom());
  }
}

void Reader::openForm(Frame f) {
  if (f.kind != Frame::Skip) {
    if (depth_ >= kMaxReadDepth) fail(f.pos, "nesting is deeper than " + std::to_string(kMaxReadDepth) + " levels");
    ++depth_;
  }
  stack_.push_back(std::move(f));
}

void Reader::closeList(SrcPos p) {
  if (stack_.empty()) fail(p, "unexpected ')' with no matching '('");
  Frame& f = stack_.back();
  if (f.kind != Frame::List) fail(p, std::string("expected a datum after ") + f.opener + ", found ')'");
  if (f.dot == Frame::AwaitTail) fail(f.dotPos, "expected a datum after '.'");
  DatumPtr d =
      f.vector ? Datum::vector(std::move(f.items), f.pos) : Datum::list(std::move(f.items), f.pos, std::move(f.tail));
  stack_.pop_back();
  --depth_;
  deliver(std::move(d));
}

void Reader::readDot(SrcPos p) {
  if (stack_.empty()) fail(p, "unexpected '.' outside a list");
  Frame& f = stack_.back();
  if (f.kind != Frame::List) fail(p, std::string("expected a datum after ") + f.opener + ", found '.'");
  if (f.vector) fail(p, "'.' is not allowed in a vector literal '#('");
  if (f.items.empty()) fail(p, "'.' must follow at least one datum in a list");
  if (f.dot != Frame::NoDot) fail(p, "only one '.' is allowed in a list");
  f.dot = Frame::AwaitTail;
  f.dotPos = p;
}

// Hands a finished datum to the innermost open form, closing quote forms it completes.
void Reader::deliver(DatumPtr d) {
  while (!stack_.empty()) {
    Frame& f = stack_.back();
    if (f.kind == Frame::Skip) {
      stack_.pop_back();
      return;
    }
    if (f.kind == Frame::List) {
      if (f.dot == Frame::NoDot) {
        f.items.push_back(std::move(d));
      } else if (f.dot == Frame::AwaitTail) {
        f.tail = std::move(d);
        f.dot = Frame::HaveTail;
      } else {
        fail(d->pos, "expected ')' after the datum following '.'");
      }
      return;
    }
    d = Datum::list({Datum::symbol(f.quoteName, f.pos), std::move(d)}, f.pos);
    stack_.pop_back();
    --depth_;
  }
  out_.push_back(std::move(d));
}

// End of input inside an open form: blame the innermost one.
void Reader::failAtEnd() const {
  const Frame& f = stack_.back();
  if (f.kind == Frame::List) fail(f.pos, f.vector ? "unclosed '#(' (opened here)" : "unclosed '(' (opened here)");
  fail(f.pos, std::string("expected a datum after ") + f.opener + ", found end of input");
}

std::string_view Reader::takeToken() {
  size_t start = i_;
  while (!atEnd() && !isDelimiter(peek())) advance();
  return s_.substr(start, i_ - start);
}

// A number, a symbol, a |symbol| or the '.' of a dotted list.
DatumPtr Reader::readAtom() {
  SrcPos p = here();
  if (peek() == '|') {
    std::string name = readQuoted('|', "symbol");
    if (!atEnd() && !isDelimiter(peek())) fail(here(), "expected a delimiter after '|" + name + "|'");
    return Datum::symbol(std::move(name), p);
  }
  std::string_view t = takeToken();
  if (t == "+inf.0") return Datum::num(std::numeric_limits<double>::infinity(), p);
  if (t == "-inf.0") return Datum::num(-std::numeric_limits<double>::infinity(), p);
  if (t == "+nan.0" || t == "-nan.0") return Datum::num(std::numeric_limits<double>::quiet_NaN(), p);
  if (looksNumeric(t)) {
    const std::optional<NumberText> n = parseNumberText(t);
    if (!n) fail(p, "bad number '" + std::string(t) + "' (numbers look like 1, -2.5, 1e-3 or .5)");
    return numberWithExactness(n->value, n->exact, p);
  }
  return Datum::symbol(std::string(t), p);
}

// #t #f #true #false and #\ characters; '#|' and '#;' are handled before this.
DatumPtr Reader::readHash() {
  SrcPos p = here();
  if (peek(1) == '\\') return readChar(p);
  advance();
  std::string_view t = takeToken();
  if (t == "t" || t == "true") return Datum::boolean_(true, p);
  if (t == "f" || t == "false") return Datum::boolean_(false, p);
  if (!t.empty() && std::strchr("xXoObBdDeEiI", t[0])) {  // a number with a radix or exactness prefix: #xFF, #e1e3
    const std::string text = "#" + std::string(t);
    const std::optional<NumberText> n = parseNumberText(text);
    if (!n) fail(p, "bad number '" + text + "' (#x, #o, #b, #d, #e and #i prefix a number: #xFF, #b-101, #e1e3, #i5)");
    if (n->noExactForm) fail(p, "'" + text + "' " + kNoExactForm);
    return numberWithExactness(n->value, n->exact, p);
  }
  if (!t.empty())
    fail(p, "bad '#' syntax '#" + std::string(t) +
                "' (only #t, #f, #true, #false, #\\, #( and the number prefixes #x #o #b #d #e #i are supported)");
  if (atEnd()) fail(p, "unexpected end of input after '#'");
  fail(p, std::string("bad '#' syntax '#") + peek() + "'");
}

// #\a, #\space, #\x41 (hex code point) or a single UTF-8 character such as #\λ.
DatumPtr Reader::readChar(SrcPos p) {
  advance(2);
  if (atEnd()) fail(p, "expected a character after '#\\', found end of input");
  uint32_t cp = 0;
  size_t len = decodeUtf8(s_.substr(i_), cp);
  if (len == 0) fail(here(), "invalid UTF-8 in character literal");
  size_t start = i_;
  bool firstIsDelimiter = isDelimiter(peek());
  advance(len);
  if (firstIsDelimiter || takeToken().empty()) return Datum::character(cp, p);
  std::string_view name = s_.substr(start, i_ - start);
  for (const auto& n : kCharNames)
    if (name == n.name) return Datum::character(n.code, p);
  if (name[0] == 'x' && name.size() <= 7) {
    uint32_t v = 0;
    auto r = std::from_chars(name.data() + 1, name.data() + name.size(), v, 16);
    if (r.ec == std::errc() && r.ptr == name.data() + name.size() && v <= 0x10FFFF) return Datum::character(v, p);
  }
  fail(p, "unknown character name '#\\" + std::string(name) + "'");
}

// The body of a "string" or |symbol|, with escapes resolved; the cursor is on the opening quote.
std::string Reader::readQuoted(char close, const char* what) {
  SrcPos p = here();
  advance();
  std::string out;
  for (;;) {
    if (atEnd()) fail(p, std::string("unterminated ") + what + " (opened here)");
    char c = peek();
    if (c == close) {
      advance();
      return out;
    }
    if (c == '\\') {
      readEscape(out);
    } else if (static_cast<unsigned char>(c) >= 0x80) {  // a character of more than one byte, whole and well formed
      uint32_t cp = 0;
      const size_t len = decodeUtf8(s_.substr(i_), cp);
      if (len == 0) fail(here(), std::string("invalid UTF-8 in ") + what);
      for (size_t k = 0; k < len; ++k) {
        out += peek();
        advance();
      }
    } else {
      out += c;
      advance();
    }
  }
}

// \n \t \r \a \b \0 \" \\ \| \x<hex>; and a backslash-newline line continuation.
void Reader::readEscape(std::string& out) {
  SrcPos p = here();
  advance();
  if (atEnd()) return;  // the caller reports the unterminated literal
  char c = peek();
  advance();
  switch (c) {
    case 'n':
      out += '\n';
      return;
    case 't':
      out += '\t';
      return;
    case 'r':
      out += '\r';
      return;
    case 'a':
      out += '\a';
      return;
    case 'b':
      out += '\b';
      return;
    case '0':
      out += '\0';
      return;
    case '"':
    case '\\':
    case '|':
      out += c;
      return;
    case '\n':
      while (peek() == ' ' || peek() == '\t') advance();
      return;
    case 'x':
      break;
    default:
      fail(p, std::string("unknown escape '\\") + c + "'");
  }
  size_t start = i_;
  while (!atEnd() && isHexDigit(peek())) advance();
  uint32_t v = 0;
  auto r = std::from_chars(s_.data() + start, s_.data() + i_, v, 16);
  if (i_ == start || peek() != ';' || r.ec != std::errc() || v > 0x10FFFF)
    fail(p, "bad hex escape: expected '\\x<hex digits>;' naming a code point");
  advance();
  appendUtf8(out, v);
}

}  // namespace

Result<std::vector<DatumPtr>> readAll(const std::string& text, const std::string& file) {
  ArenaScope arena;  // the datums side by side (syntax/Arena.h)
  return catchErrors([&] { return Reader(text, file).readAll(); });
}

Result<std::vector<DatumPtr>> readFile(const std::string& path) {
  SrcPos where{internFile(path), 0, 0};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Error{ErrorKind::Io, std::string("cannot open file: ") + std::strerror(errno), where};
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  bool bad = std::ferror(f);
  int err = errno;
  std::fclose(f);
  if (bad) return Error{ErrorKind::Io, std::string("cannot read file: ") + std::strerror(err), where};
  return readAll(text, path);
}

}  // namespace dmci
