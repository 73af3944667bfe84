// Tests for the reader (syntax, positions, errors, limits) and the datum printer (print/read identity).
#include "syntax/Reader.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <tuple>

#include "syntax/Datum.h"
#include "syntax/Exactness.h"
#include "syntax/TerminalText.h"

namespace dmci {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

// Reads text that must hold exactly one datum.
DatumPtr readOne(const std::string& text) {
  auto r = readAll(text, "test.scm");
  if (!r) ADD_FAILURE() << "reading " << text << ": " << r.error().str();
  if (!r || r.value().size() != 1) {
    ADD_FAILURE() << "expected one datum in " << text;
    return Datum::nil();
  }
  return r.value()[0];
}

Error readError(const std::string& text) {
  auto r = readAll(text, "bad.scm");
  if (r) {
    ADD_FAILURE() << "expected an error reading " << text;
    return {};
  }
  return r.error();
}

DatumPtr sym(const char* s) { return Datum::symbol(s); }
DatumPtr num(double v) { return Datum::num(v); }
DatumPtr lst(std::vector<DatumPtr> items, DatumPtr tail = nullptr) { return Datum::list(std::move(items), {}, tail); }

// --- atoms ---

TEST(Reader, Numbers) {
  const std::pair<const char*, double> cases[] = {{"1", 1},
                                                  {"-2.5", -2.5},
                                                  {"1e-3", 1e-3},
                                                  {".5", 0.5},
                                                  {"+5", 5},
                                                  {"-.5e2", -50},
                                                  {"5.", 5},
                                                  {"1E3", 1000},
                                                  {"0.1", 0.1},
                                                  {"-0", 0.0},  // exact: an exact zero has no sign
                                                  {"-0.0", -0.0},
                                                  {"+inf.0", kInf},
                                                  {"-inf.0", -kInf},
                                                  {"1e400", kInf},
                                                  {"123456789012345678901234567890", 1.2345678901234568e29},
                                                  {"+.5", 0.5},
                                                  {"2.5e+2", 250},
                                                  {"4.9e-324", 4.9e-324}};
  for (auto [text, want] : cases) {
    auto d = readOne(text);
    ASSERT_EQ(d->kind, DatumKind::Number) << text;
    EXPECT_EQ(std::bit_cast<uint64_t>(d->number), std::bit_cast<uint64_t>(want)) << text;
  }
  EXPECT_TRUE(std::isnan(readOne("+nan.0")->number));
}

// Radix and exactness prefixes (syntax/NumberSyntax.h), the same syntax string->number reads.
TEST(Reader, NumberPrefixes) {
  const std::tuple<const char*, double, bool> cases[] = {
      {"#xFF", 255, true}, {"#b-101", -5, true}, {"#o17", 15, true},   {"#d10", 10, true},    {"#e1e3", 1000, true},
      {"#i5", 5, false},   {"#x#e10", 16, true}, {"#e#x10", 16, true}, {"#i1.5", 1.5, false}, {"#XfF", 255, true}};
  for (const auto& [text, value, exact] : cases) {
    auto d = readOne(text);
    ASSERT_EQ(d->kind, DatumKind::Number) << text;
    EXPECT_EQ(d->number, value) << text;
    EXPECT_EQ(isExact(*d), exact) << text;
  }
  for (const char* text : {"#x", "#e#e1", "#x#b1", "#b2", "#x1.5"})
    EXPECT_EQ(readError(text).kind, ErrorKind::Syntax) << text;
}

// An integer written without a point or an exponent is exact, when a double holds it (syntax/Exactness.h).
TEST(Reader, ExactnessOfNumbers) {
  for (const char* text : {"1", "-7", "+5", "007", "-0", "9007199254740992"})
    EXPECT_TRUE(isExact(*readOne(text))) << text;
  for (const char* text : {"1.", "1.0", "1e2", ".5", "+inf.0", "+nan.0", "9007199254740993", "1e400"})
    EXPECT_FALSE(isExact(*readOne(text))) << text;
}

TEST(Reader, VectorLiteralsHoldTheirElementsAndPrintBack) {
  DatumPtr d = readOne("#(1 (a . b) #(2) \"s\")");
  ASSERT_EQ(d->kind, DatumKind::Vector);
  ASSERT_EQ(d->items.size(), 4u);
  EXPECT_EQ(d->items[1]->kind, DatumKind::List);
  EXPECT_EQ(d->items[2]->kind, DatumKind::Vector);
  EXPECT_EQ(print(*d), "#(1 (a . b) #(2) \"s\")");
  EXPECT_EQ(readOne("#()")->kind, DatumKind::Vector);
  EXPECT_EQ(print(*readOne("'#()")), "(quote #())");
  EXPECT_FALSE(equalDatum(*readOne("#(1 2)"), *readOne("(1 2)")));
  EXPECT_TRUE(equalDatum(*readOne("#(1 2)"), *readOne("#(1 2)")));
}

TEST(Reader, Booleans) {
  EXPECT_TRUE(readOne("#t")->boolean);
  EXPECT_TRUE(readOne("#true")->boolean);
  EXPECT_FALSE(readOne("#f")->boolean);
  EXPECT_FALSE(readOne("#false")->boolean);
  EXPECT_EQ(readOne("#false")->kind, DatumKind::Bool);
}

TEST(Reader, Characters) {
  const std::pair<const char*, uint32_t> cases[] = {
      {"#\\a", 'a'},          {"#\\Z", 'Z'},  {"#\\space", ' '},   {"#\\newline", '\n'}, {"#\\tab", '\t'},
      {"#\\(", '('},          {"#\\)", ')'},  {"#\\;", ';'},       {"#\\x", 'x'},        {"#\\x41", 'A'},
      {"#\\\xCE\xBB", 0x3BB}, {"#\\null", 0}, {"#\\return", '\r'}, {"#\\1", '1'},        {"#\\ ", ' '}};
  for (auto [text, want] : cases) {
    auto d = readOne(text);
    ASSERT_EQ(d->kind, DatumKind::Char) << text;
    EXPECT_EQ(d->ch, want) << text;
  }
}

TEST(Reader, CharacterEndsAtDelimiter) {
  auto d = readOne("(#\\a #\\()");
  ASSERT_EQ(d->items.size(), 2u);
  EXPECT_EQ(d->items[0]->ch, uint32_t('a'));
  EXPECT_EQ(d->items[1]->ch, uint32_t('('));
}

TEST(Reader, StringsWithEscapes) {
  auto d = readOne(R"("a\"b\\c\nd\te")");
  ASSERT_EQ(d->kind, DatumKind::String);
  EXPECT_EQ(d->text, "a\"b\\c\nd\te");
  EXPECT_EQ(readOne(R"("")")->text, "");
  EXPECT_EQ(readOne(R"("\x3bb;|")")->text, "\xCE\xBB|");
  EXPECT_EQ(readOne("\"two\nlines\"")->text, "two\nlines");
}

TEST(Reader, Symbols) {
  for (const char* name : {"x", "+", "-", "...", "->", "<=", "list->vector", "cadr", "cdadr", "set-car!", "a.b",
                           "null?", "*", "/", "a#b", "Foo", "->x", "+a", "-x"}) {
    auto d = readOne(name);
    ASSERT_EQ(d->kind, DatumKind::Symbol) << name;
    EXPECT_EQ(d->text, name);
  }
}

TEST(Reader, SymbolsAreCaseSensitive) {
  EXPECT_FALSE(equalDatum(*readOne("Foo"), *readOne("foo")));
  EXPECT_EQ(readOne("LAMBDA")->text, "LAMBDA");
}

TEST(Reader, BarSymbols) {
  EXPECT_EQ(readOne("|a b|")->text, "a b");
  EXPECT_EQ(readOne("||")->text, "");
  EXPECT_EQ(readOne(R"(|a\|b|)")->text, "a|b");
  EXPECT_EQ(readOne("|12|")->kind, DatumKind::Symbol);
}

// --- lists, dotted pairs, abbreviations, comments ---

TEST(Reader, ProperLists) {
  EXPECT_EQ(readOne("()")->kind, DatumKind::Nil);
  EXPECT_TRUE(equalDatum(*readOne("(a (b c) ())"), *lst({sym("a"), lst({sym("b"), sym("c")}), Datum::nil()})));
}

TEST(Reader, DottedPairs) {
  auto d = readOne("(a . b)");
  ASSERT_EQ(d->items.size(), 1u);
  ASSERT_TRUE(d->tail);
  EXPECT_TRUE(d->tail->isSymbol("b"));
  EXPECT_TRUE(equalDatum(*readOne("(a b . c)"), *lst({sym("a"), sym("b")}, sym("c"))));
  EXPECT_TRUE(equalDatum(*readOne("(a . (b c))"), *readOne("(a b c)")));
  EXPECT_TRUE(equalDatum(*readOne("(a . ())"), *readOne("(a)")));
  EXPECT_TRUE(readOne("(a . ())")->isProperList());
}

TEST(Reader, QuoteAbbreviations) {
  const std::pair<const char*, const char*> cases[] = {
      {"'x", "quote"}, {"`x", "quasiquote"}, {",x", "unquote"}, {",@x", "unquote-splicing"}};
  for (auto [text, head] : cases) {
    auto d = readOne(text);
    ASSERT_EQ(d->items.size(), 2u) << text;
    EXPECT_EQ(d->head(), head);
    EXPECT_TRUE(d->items[1]->isSymbol("x"));
  }
  EXPECT_TRUE(equalDatum(*readOne("''a"), *readOne("(quote (quote a))")));
  EXPECT_TRUE(equalDatum(*readOne("`(a ,b ,@c)"), *readOne("(quasiquote (a (unquote b) (unquote-splicing c)))")));
}

TEST(Reader, QuotePositionIsTheQuoteCharacter) {
  auto d = readOne("(f\n  '  y)");
  auto q = d->items[1];
  EXPECT_EQ(q->pos.line, 2u);
  EXPECT_EQ(q->pos.col, 3u);
  EXPECT_EQ(q->items[0]->pos, q->pos);  // the `quote` symbol too
  EXPECT_EQ(q->items[1]->pos.col, 6u);
}

TEST(Reader, LineComments) {
  auto r = readAll("a ; comment (\nb;c\n", "t");
  ASSERT_TRUE(r);
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_TRUE(r.value()[1]->isSymbol("b"));
}

TEST(Reader, NestedBlockComments) {
  auto r = readAll("#| outer #| inner |# still ( comment |# x #||# y", "t");
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_TRUE(r.value()[0]->isSymbol("x"));
  EXPECT_TRUE(r.value()[1]->isSymbol("y"));
}

TEST(Reader, DatumComments) {
  EXPECT_TRUE(equalDatum(*readOne("(a #;(b c) d)"), *readOne("(a d)")));
  EXPECT_TRUE(equalDatum(*readOne("#;#;a b c"), *sym("c")));
  EXPECT_TRUE(equalDatum(*readOne("(a . #;b c)"), *readOne("(a . c)")));
  EXPECT_TRUE(equalDatum(*readOne("'#;a b"), *readOne("'b")));
}

TEST(Reader, EmptyInputGivesNoDatums) {
  auto r = readAll("  ; nothing\n #| here |# ", "t");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r.value().empty());
}

// --- positions ---

TEST(Reader, PositionsOfNestedDatums) {
  auto r = readAll("(define (f x)\n  (+ x 1.5))\n\n  \"s\"", "pos.scm");
  ASSERT_TRUE(r);
  auto top = r.value()[0];
  EXPECT_EQ(top->pos, (SrcPos{internFile("pos.scm"), 1, 1}));
  auto sig = top->items[1];
  EXPECT_EQ(sig->pos.col, 9u);
  EXPECT_EQ(sig->items[1]->pos.col, 12u);  // x
  auto body = top->items[2];
  EXPECT_EQ(body->pos.line, 2u);
  EXPECT_EQ(body->pos.col, 3u);
  EXPECT_EQ(body->items[2]->pos.line, 2u);  // 1.5
  EXPECT_EQ(body->items[2]->pos.col, 8u);
  EXPECT_EQ(r.value()[1]->pos.line, 4u);
  EXPECT_EQ(r.value()[1]->pos.col, 3u);
  EXPECT_EQ(fileName(r.value()[1]->pos.file), "pos.scm");
}

TEST(Reader, ColumnsCountBytes) {
  auto r = readAll("\"\xCE\xBB\" x", "t");
  ASSERT_TRUE(r);
  EXPECT_EQ(r.value()[1]->pos.col, 6u);  // the string is 4 bytes plus a space
}

// --- errors ---

struct BadInput {
  const char* text;
  uint32_t line, col;
  const char* message;  // a substring of the message
};

TEST(Reader, MalformedInputsReportLineAndColumn) {
  const BadInput cases[] = {
      {"(a b", 1, 1, "unclosed '(' (opened here)"},
      {"(a\n  (b c)\n  (d", 3, 3, "unclosed '('"},
      {"(a (b\n c)", 1, 1, "unclosed '('"},
      {"a)", 1, 2, "unexpected ')'"},
      {"(a))", 1, 4, "unexpected ')'"},
      {"x 1.2.3", 1, 3, "bad number '1.2.3'"},
      {"(1e)", 1, 2, "bad number '1e'"},
      {"\n 12abc", 2, 2, "bad number '12abc'"},
      {"+5x", 1, 1, "bad number"},
      {"-.5.", 1, 1, "bad number"},
      {"1/2", 1, 1, "bad number"},
      {"#xZ1", 1, 1, "bad number '#xZ1'"},
      {"#e1.5", 1, 1, "no exact form"},
      {"#q1", 1, 1, "bad '#' syntax"},
      {"(a #(1 2)", 1, 1, "unclosed '('"},
      {"#(1 2", 1, 1, "unclosed '#('"},
      {"#(1 . 2)", 1, 5, "not allowed in a vector literal"},
      {"#\\", 1, 1, "expected a character"},
      {"#\\bogus", 1, 1, "unknown character name"},
      {"#tru", 1, 1, "bad '#' syntax"},
      {"#", 1, 1, "end of input"},
      {"(a \"abc)", 1, 4, "unterminated string"},
      {"\"bad \\q escape\"", 1, 6, "unknown escape"},
      {"x #| a #| b |# c", 1, 3, "unterminated block comment"},
      {"(. a)", 1, 2, "'.'"},
      {"(a . )", 1, 4, "expected a datum after '.'"},
      {"(a . b c)", 1, 8, "expected ')'"},
      {"(a . b . c)", 1, 8, "only one '.'"},
      {". a", 1, 1, "outside a list"},
      {"(a #;)", 1, 6, "datum comment"},
      {"a #;", 1, 3, "datum comment"},
      {"'", 1, 1, "quote mark"},
      {"(a ')", 1, 5, "quote mark"},
      {"[a]", 1, 1, "square brackets"},
      {"(a [b])", 1, 4, "square brackets"},
      {"|abc", 1, 1, "unterminated symbol"},
      {"|a|b", 1, 4, "delimiter"},
      {"\"a\xff\xfeb\"", 1, 3, "invalid UTF-8 in string"},    // raw bytes that are no character
      {"(x \"\xe2\x82\")", 1, 5, "invalid UTF-8 in string"},  // a character cut short
      {"|s\xc3|", 1, 3, "invalid UTF-8 in symbol"},
  };
  static_assert(std::size(cases) >= 15);
  for (const auto& c : cases) {
    Error e = readError(c.text);
    EXPECT_EQ(e.kind, ErrorKind::Syntax) << c.text;
    EXPECT_EQ(e.pos.line, c.line) << c.text << " -> " << e.str();
    EXPECT_EQ(e.pos.col, c.col) << c.text << " -> " << e.str();
    EXPECT_NE(e.message.find(c.message), std::string::npos) << c.text << " -> " << e.str();
    EXPECT_EQ(fileName(e.pos.file), "bad.scm");
  }
}

TEST(Reader, ErrorStringHasFileLineColumn) {
  EXPECT_EQ(readError("\n  )").str(), "bad.scm:2:3: syntax-error: unexpected ')' with no matching '('");
}

TEST(Reader, ReadFileMissingIsIoError) {
  auto r = readFile("/nonexistent/dir/x.scm");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::Io);
}

TEST(Reader, ReadFileDirectoryIsIoError) {
  auto r = readFile(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::Io);
}

TEST(Reader, ReadFileNamesTheFileInPositions) {
  auto path = std::filesystem::temp_directory_path() / "dmci_reader_test_file.scm";
  std::ofstream(path) << "(a)\n  b\n";
  auto r = readFile(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_EQ(r.value()[1]->pos.str(), path.string() + ":2:3");
}

// --- limits ---

TEST(Reader, LongFlatListAndLongSymbol) {
  std::string text = "(";
  for (int i = 0; i < 100000; ++i) text += "x ";
  text += ")";
  auto d = readOne(text);
  EXPECT_EQ(d->items.size(), 100000u);
  EXPECT_TRUE(equalDatum(*d, *readOne(print(d))));

  std::string name(100000, 'k');
  auto s = readOne(name);
  EXPECT_EQ(s->text, name);
  EXPECT_EQ(print(s), name);
}

TEST(Reader, DeepNestingIsACleanError) {
  Error e = readError(std::string(5000, '(') + std::string(5000, ')'));
  EXPECT_EQ(e.kind, ErrorKind::Syntax);
  EXPECT_EQ(e.pos.col, uint32_t(kMaxReadDepth + 1));
  EXPECT_NE(e.message.find("deeper"), std::string::npos);
  EXPECT_EQ(readError(std::string(5000, '\'') + "x").kind, ErrorKind::Syntax);
  EXPECT_EQ(readError(std::string(5000, '(')).kind, ErrorKind::Syntax);
}

TEST(Reader, NestingAtTheLimitIsAccepted) {
  auto r = readAll(std::string(kMaxReadDepth, '(') + std::string(kMaxReadDepth, ')'), "t");
  ASSERT_TRUE(r) << r.error().str();
}

// --- Datum helpers ---

TEST(Datum, ListSplicesAListTail) {
  auto d = Datum::list({sym("a")}, {}, lst({sym("b")}, sym("c")));
  EXPECT_EQ(d->items.size(), 2u);
  EXPECT_TRUE(d->tail->isSymbol("c"));
  EXPECT_EQ(Datum::list({})->kind, DatumKind::Nil);
  EXPECT_TRUE(Datum::list({sym("a")}, {}, Datum::nil())->isProperList());
}

TEST(Datum, Head) {
  EXPECT_EQ(readOne("(define x 1)")->head(), "define");
  EXPECT_EQ(readOne("(1 2)")->head(), "");
  EXPECT_EQ(readOne("x")->head(), "");
}

TEST(Datum, EqualityIgnoresPositionsAndComparesBits) {
  EXPECT_TRUE(equalDatum(*Datum::num(1, {1, 1, 1}), *Datum::num(1, {2, 3, 4})));
  EXPECT_TRUE(equalDatum(*num(std::nan("")), *num(-std::nan(""))));
  EXPECT_FALSE(equalDatum(*num(0.0), *num(-0.0)));
  EXPECT_FALSE(equalDatum(*sym("a"), *Datum::string("a")));
  EXPECT_FALSE(equalDatum(*readOne("(a . b)"), *readOne("(a b)")));
}

TEST(Printer, FormatNumber) {
  EXPECT_EQ(formatNumber(3), "3");
  EXPECT_EQ(formatNumber(-2), "-2");
  EXPECT_EQ(formatNumber(0.1), "0.1");
  EXPECT_EQ(formatNumber(-2.5), "-2.5");
  EXPECT_EQ(formatNumber(kInf), "+inf.0");
  EXPECT_EQ(formatNumber(-kInf), "-inf.0");
  EXPECT_EQ(formatNumber(std::nan("")), "+nan.0");
  // "-0" would be the integer zero to another reader (Scheme's exact 0, JSON's integer 0): -0.0 keeps its point.
  EXPECT_EQ(formatNumber(-0.0), "-0.0");
  EXPECT_EQ(formatNumber(0.0), "0");
  EXPECT_EQ(print(readOne("(-0.0 0.0 -0)")), "(-0.0 0 0)");  // -0 is the exact 0
  for (double v : {1e300, 1e-300, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, -0.0, 1e21, 123456789.125}) {
    double back = readOne(formatNumber(v))->number;
    EXPECT_EQ(std::bit_cast<uint64_t>(back), std::bit_cast<uint64_t>(v)) << formatNumber(v);
  }
}

TEST(Printer, PrintsReadableForms) {
  EXPECT_EQ(print(readOne("(a  b . c)")), "(a b . c)");
  EXPECT_EQ(print(readOne("'x")), "(quote x)");
  EXPECT_EQ(print(readOne("#true")), "#t");
  EXPECT_EQ(print(readOne("#\\space")), "#\\space");
  EXPECT_EQ(print(readOne(R"("a\"b\\c\n")")), R"("a\"b\\c\n")");
  EXPECT_EQ(print(sym("1")), "|1|");
  EXPECT_EQ(print(sym("a b")), "|a b|");
  EXPECT_EQ(print(sym("list->vector")), "list->vector");
  EXPECT_EQ(print(sym("...")), "...");
}

// What reaches a terminal from input: control characters (C0, DEL, C1 in UTF-8) escaped, the rest kept as it is.
TEST(Printer, EscapeControlsLeavesNoControlByteForATerminal) {
  EXPECT_EQ(escapeControls("ok/\x1b[31mred\x07\n\t\r\x7f"), "ok/\\x1b;[31mred\\x7;\\n\\t\\r\\x7f;");
  EXPECT_EQ(escapeControls("csi\xc2\x9b"
                           "2J"),
            "csi\\x9b;2J");
  EXPECT_EQ(escapeControls("caf\xc3\xa9 a\\b \"q\" \xc2\xa0"), "caf\xc3\xa9 a\\b \"q\" \xc2\xa0");
  // The printer escapes the same characters in a string, and reads them back.
  EXPECT_EQ(print(Datum::string("\x1b\xc2\x85")), "\"\\x1b;\\x85;\"");
  EXPECT_TRUE(equalDatum(*Datum::string("\x1b\xc2\x85"), *readOne(print(Datum::string("\x1b\xc2\x85")))));
}

// A printed datum must read back as an equal datum.
void expectRoundTrip(const DatumPtr& d, const std::string& context) {
  std::string text = print(d);
  auto r = readAll(text, "roundtrip");
  ASSERT_TRUE(r) << context << ": printed " << text << " fails to read: " << r.error().str();
  ASSERT_EQ(r.value().size(), 1u) << context << ": printed " << text;
  EXPECT_TRUE(equalDatum(*d, *r.value()[0]))
      << context << ": printed " << text << " read back as " << print(r.value()[0]);
}

TEST(Printer, TrickyDatumsRoundTrip) {
  std::vector<DatumPtr> cases = {
      num(-0.0),
      num(5e-324),
      num(kInf),
      num(-kInf),
      num(std::nan("")),
      num(0.1),
      num(1e22),
      num(-1e-7),
      Datum::string("quote\" back\\slash \n tab\t cr\r bell\a nul" + std::string(1, '\0') + " bar|"),
      Datum::string(""),
      Datum::string("\xCE\xBB utf8"),
      Datum::character(' '),
      Datum::character('\n'),
      Datum::character('\t'),
      Datum::character(0),
      Datum::character(0x7F),
      Datum::character('('),
      Datum::character(')'),
      Datum::character(';'),
      Datum::character('"'),
      Datum::character('\\'),
      Datum::character('|'),
      Datum::character('x'),
      Datum::character(0x3BB),
      Datum::character(0xD800),
      Datum::character(0x10FFFF),
      Datum::character(0x85),
      sym(""),
      sym("."),
      sym("1"),
      sym("+1"),
      sym("-.5"),
      sym("+inf.0"),
      sym("+nan.0"),
      sym("#t"),
      sym("a b"),
      sym("a|b"),
      sym("a\\b"),
      sym("(x)"),
      sym("'q"),
      sym("x;y"),
      sym("tab\t"),
      sym("\xCE\xBB"),
      sym("..."),
      sym("+"),
      sym("-"),
      sym("->"),
      sym("@x"),
      sym("a,b"),
      sym("[x]"),
      sym("{"),
      sym("\x01"),
      Datum::boolean_(true),
      Datum::boolean_(false),
      Datum::nil(),
      lst({sym("a")}, sym("b")),
      lst({lst({sym("a")}, num(1))}, Datum::string("s")),
      lst({sym("quote"), lst({sym("quote"), sym("x")})}),
      lst({sym("quasiquote"), lst({sym("unquote"), sym("x")})}),
      lst({Datum::nil(), Datum::nil()}, Datum::character('c')),
      lst({sym(".")}, sym(".")),
  };
  for (size_t i = 0; i < cases.size(); ++i) expectRoundTrip(cases[i], "case " + std::to_string(i));
}

// Generates random datums with awkward numbers, strings, characters and symbol names.
class DatumGen {
 public:
  explicit DatumGen(uint32_t seed) : rng_(seed) {}

  DatumPtr datum(int depth) {
    switch (pick(depth > 4 ? 6 : 8)) {
      case 0:
        return Datum::nil();
      case 1:
        return Datum::boolean_(pick(2));
      case 2:
        return Datum::num(number());
      case 3:
        return Datum::character(character());
      case 4:
        return Datum::symbol(text(true));
      case 5:
        return Datum::string(text(false));
      default:
        return list(depth);
    }
  }

 private:
  std::mt19937 rng_;

  uint32_t pick(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

  double number() {
    switch (pick(4)) {
      case 0:
        return double(int(pick(2001)) - 1000);
      case 1:
        return std::bit_cast<double>((uint64_t(rng_()) << 32) | rng_());  // any bits, NaN and inf included
      case 2:
        return std::ldexp(double(rng_()), int(pick(200)) - 100);
      default:
        return std::uniform_real_distribution<double>(-10, 10)(rng_);
    }
  }

  uint32_t character() {
    static const uint32_t kChars[] = {0,   7,   '\t', '\n', '\r', ' ',  '(',  ')',  ';',   '"',    '\\',   '|',
                                      '#', 'a', 'x',  'Z',  '0',  0x7F, 0x80, 0xA0, 0x3BB, 0xD800, 0xFFFF, 0x10FFFF};
    return pick(3) == 0 ? pick(0x110000) : kChars[pick(std::size(kChars))];
  }

  std::string text(bool symbol) {
    static const std::string kAlphabet = "abcXYZ019+-.#|\\\"'`,@;()[]{} \t\n\r\x01\x7f<=>!?*/:_~";
    static const std::string kWords[] = {"+", "-", "...", ".", "->", "1", "+inf.0", "-nan.0", "\xCE\xBB", "#t"};
    if (symbol && pick(4) == 0) return kWords[pick(std::size(kWords))];
    std::string s;
    for (uint32_t n = pick(8); n > 0; --n) s += kAlphabet[pick(kAlphabet.size())];
    if (pick(5) == 0) s += "\xE2\x82\xAC";  // a multi-byte character
    return s;
  }

  DatumPtr list(int depth) {
    std::vector<DatumPtr> items;
    for (uint32_t n = 1 + pick(5); n > 0; --n) items.push_back(datum(depth + 1));
    DatumPtr tail = pick(3) == 0 ? datum(depth + 1) : nullptr;
    return Datum::list(std::move(items), {}, tail);
  }
};

TEST(Printer, RandomDatumsRoundTrip) {
  const uint32_t seed = 20240611;
  DatumGen gen(seed);
  for (int i = 0; i < 4000; ++i) {
    expectRoundTrip(gen.datum(0), "seed " + std::to_string(seed) + " datum " + std::to_string(i));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace dmci
