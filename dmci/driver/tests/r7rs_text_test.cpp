// Characters and strings as data (the text primitives, prims/TextRules.h): each fact by the direct route, through
// mce.scm and the tower, the multiprecision oracle agreeing, gradients through a program that uses text as
// data, and the errors for misuse at the call's position.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/Oracle.h"
#include "testing/Eval.h"

namespace dmci {
namespace {

using test::evalErr;
using test::evalOk;
using test::gradientOf;
using test::where;

struct TextCase {
  const char* label;
  const char* src;
  double value;
};

const TextCase kCases[] = {
    {"append_counts_code_points", "(string-length (string-append \"ab\" \"\" \"γδ\"))", 4},
    {"upcase_is_unicode", "(char->integer (string-ref (string-upcase \"aβ\") 1))", 0x392},
    {"char_comparisons_chain", "(if (and (char<? #\\a #\\b #\\c) (not (char<? #\\a #\\a)) (char-ci=? #\\a #\\A)) 1 0)",
     1},
    {"string_comparisons_chain",
     "(if (and (string<? \"abc\" \"abcd\" \"acd\") (string-ci=? \"ΑΒΓ\" \"αβγ\") (not (string=? \"abc\" \"aBc\"))) 1 "
     "0)",
     1},
    {"digit_values", "(+ (digit-value #\\7) (digit-value #\\x0664) (if (digit-value #\\a) 100 0))", 11},
    {"classes",
     "(if (and (char-alphabetic? #\\λ) (not (char-alphabetic? #\\x0E50)) (char-numeric? #\\x0E50) "
     "(char-upper-case? #\\Λ) (not (char-upper-case? #\\λ)) (char-whitespace? #\\x1680)) 1 0)",
     1},
    {"string_to_list_range", "(length (string->list \"abcde\" 1 3))", 2},
    {"number_round_trip_radix", "(string->number (number->string 255 16) 16)", 255},
    {"string_to_number_forms", "(+ (string->number \"1e2\") (string->number \"#x1F\") (string->number \"-101\" 2))",
     126},
    {"symbols_round_trip", "(if (eq? (string->symbol (symbol->string 'LollyPop)) 'LollyPop) 1 0)", 1},
    {"string_map", "(char->integer (car (string->list (string-map char-upcase \"xyz\"))))", 88},
    {"string_map_two_strings", "(string-length (string-map (lambda (a b) a) \"abcd\" \"xy\"))", 2},
    {"substring_and_copy", "(+ (string-length (substring \"hello\" 1 4)) (string-length (string-copy \"hello\" 2)))",
     6},
    {"equality_predicates", "(if (and (symbol=? 'a 'a 'a) (boolean=? #f #f) (not (boolean=? #t #f))) 1 0)", 1},
    {"list_to_string", "(string-length (list->string (list #\\a #\\λ)))", 2},
    {"make_string", "(char->integer (string-ref (make-string 3 #\\-) 2))", 45},
};

class TextRoutes : public ::testing::TestWithParam<std::tuple<TextCase, Route>> {};

TEST_P(TextRoutes, GiveTheValue) {
  const auto& [c, route] = GetParam();
  EXPECT_EQ(evalOk(c.src, route).value, c.value) << c.src;
}

INSTANTIATE_TEST_SUITE_P(Facts, TextRoutes,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(Route::Direct, Route::Dmci, Route::Dmci2)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param).label) + "_" + routeName(std::get<1>(info.param));
                         });

class TextOracle : public ::testing::TestWithParam<TextCase> {};

TEST_P(TextOracle, AgreesWithTheEngine) {
  auto p = Program::fromText(GetParam().src, "prog.scm");
  ASSERT_TRUE(p) << p.error().str();
  auto v = oracle::evaluate(*p, {}, {});
  ASSERT_TRUE(v) << v.error().str();
  EXPECT_EQ(static_cast<double>(v->total), GetParam().value) << GetParam().src;
}

INSTANTIATE_TEST_SUITE_P(Facts, TextOracle, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.label); });

class TextErrors : public ::testing::TestWithParam<Route> {};

TEST_P(TextErrors, AnIndexPastTheEndIsADomainErrorAtTheCall) {
  Error e = evalErr("(+ 1\n   (char->integer (string-ref \"abc\" 3)))", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::Domain);
  EXPECT_EQ(where(e.pos), "2:19");
  EXPECT_NE(e.message.find("string-ref: index 3 is out of range 0 to 2"), std::string::npos) << e.message;
}

TEST_P(TextErrors, StringToNumberOfGarbageIsADomainErrorAtTheCall) {
  Error e = evalErr("(define (coefficient s) (* 2 s))\n(coefficient (string->number \"1.5e\"))", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::Domain);
  EXPECT_EQ(where(e.pos), "2:14");
  EXPECT_NE(e.message.find("string->number: \"1.5e\" is not a number in radix 10"), std::string::npos) << e.message;
  EXPECT_EQ(evalErr("(string->number \"12\" 2)", GetParam()).kind, ErrorKind::Domain);
  EXPECT_EQ(evalErr("(string->number \"\")", GetParam()).kind, ErrorKind::Domain);
  EXPECT_EQ(evalErr("(string->number 12)", GetParam()).kind, ErrorKind::Type);
}

TEST_P(TextErrors, AWrongArgumentIsATypeErrorNamingIt) {
  Error e = evalErr("(char->integer \"a\")", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_NE(e.message.find("char->integer: argument 1 must be a character, got \"a\""), std::string::npos) << e.message;
  EXPECT_EQ(evalErr("(list->string (list #\\a 1))", GetParam()).kind, ErrorKind::Type);
  EXPECT_EQ(evalErr("(integer->char -1)", GetParam()).kind, ErrorKind::Domain);
  EXPECT_EQ(evalErr("(substring \"abc\" 2 1)", GetParam()).kind, ErrorKind::Domain);
}

TEST_P(TextErrors, StringsAreImmutable) {
  Error e = evalErr("(define s (make-string 2 #\\a))\n(string-set! s 0 #\\b)", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::Form);
  EXPECT_EQ(where(e.pos), "2:2");
}

TEST_P(TextErrors, GradientsFlowPastTextUsedAsData) {
  const std::string src =
      "(define table (list (cons \"a\" 2) (cons \"b\" 3)))\n"
      "(* x (cdr (assoc (string #\\b) table)) (string-length \"abcd\"))";
  EXPECT_EQ(gradientOf(evalOk(src, GetParam(), {{"x", 2}}, {"x"}), "x"), 12);
}

INSTANTIATE_TEST_SUITE_P(Routes, TextErrors, ::testing::Values(Route::Direct, Route::Dmci, Route::Dmci2),
                         [](const auto& info) { return std::string(routeName(info.param)); });

}  // namespace
}  // namespace dmci
