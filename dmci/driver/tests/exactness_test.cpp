// Exactness (runtime/ExactValue.h, syntax/Exactness.h): exact?, inexact?, exact-integer?, exact and inexact as
// R7RS gives them on the integers a double holds, by every route (direct, mce.scm, the tower, lantern and lantern
// through mce.scm), the multiprecision oracle agreeing; a number being differentiated is inexact; gradients pass
// through exact and inexact; a graph written as text and read back keeps each constant's exactness.
#include "syntax/Exactness.h"

#include <gtest/gtest.h>

#include <string>

#include "driver/Program.h"
#include "lower/ComputeGraph.h"
#include "oracle/Oracle.h"
#include "testing/Eval.h"
#include "testing/Routes.h"

namespace dmci {
namespace {

using test::evalErr;
using test::evalOk;
using test::gradientOf;

struct ExactCase {
  const char* label;
  const char* src;  // a test: its value is 1 when the fact holds, 0 when not
};

// Each fact as chibi-scheme answers it (R7RS 6.2), restricted to integers of at most 2^53 and no rationals.
const ExactCase kCases[] = {
    {"integer_literal_is_exact", "(if (exact? 3) 1 0)"},
    {"point_literal_is_inexact", "(if (exact? 3.0) 0 1)"},
    {"trailing_point_is_inexact", "(if (inexact? 3.) 1 0)"},
    {"exponent_literal_is_inexact", "(if (exact? 1e2) 0 1)"},
    {"exact_integer", "(if (and (exact-integer? 32) (not (exact-integer? 32.0)) (not (exact-integer? 'a))) 1 0)"},
    {"inexact_of_exact", "(if (inexact? (inexact 1)) 1 0)"},
    {"exact_of_inexact_integer", "(if (exact? (exact 1.0)) 1 0)"},
    {"conversions_keep_values", "(if (and (= (exact 2.0) 2) (= (exact->inexact 7) 7) (= (inexact->exact 7.0) 7)) 1 0)"},
    {"a_non_integer_stays_inexact", "(if (inexact? (exact 2.5)) 1 0)"},
    {"sum_of_exacts", "(if (and (exact? (+ 1 2 3)) (exact? (* 2 3)) (exact? (- 5)) (exact? (+)) (exact? (*))) 1 0)"},
    {"inexact_contaminates", "(if (or (exact? (+ 1 2.0)) (exact? (* 2 1.5)) (exact? (max 1 2.0))) 0 1)"},
    {"max_of_exacts", "(if (and (exact? (max 1 2)) (exact? (min 3 4))) 1 0)"},
    {"division_exact_when_it_divides", "(if (and (exact? (/ 6 3)) (inexact? (/ 1 2))) 1 0)"},
    {"integer_division", "(if (and (exact? (quotient 7 2)) (exact? (modulo -7 2)) (exact? (remainder 7 2))) 1 0)"},
    {"library_integer_division",
     "(if (and (exact? (gcd 12 18)) (exact? (lcm 4 6)) (exact? (floor-quotient 7 2))) 1 0)"},
    {"rounding_keeps_exactness", "(if (and (exact? (floor 5)) (inexact? (floor 2.5)) (exact? (round 7))) 1 0)"},
    {"powers", "(if (and (exact? (expt 2 10)) (exact? (square 5)) (exact? (sqrt 16)) (inexact? (sqrt 2))) 1 0)"},
    {"transcendental_is_inexact", "(if (or (exact? (exp 0)) (exact? (sin 0))) 0 1)"},
    {"counts_are_exact",
     "(if (and (exact? (length '(1 2))) (exact? (vector-length (vector 1))) (exact? (string-length \"ab\"))\n"
     "         (exact? (char->integer #\\a))) 1 0)"},
    {"string_to_number",
     "(if (and (exact? (string->number \"12\")) (inexact? (string->number \"1e2\"))\n"
     "         (exact? (string->number \"ff\" 16)) (inexact? (string->number \"#i5\"))) 1 0)"},
    {"beyond_two_to_the_53_is_inexact",
     "(if (and (exact? 9007199254740992) (inexact? 9007199254740993) (inexact? (* 9007199254740992 2))) 1 0)"},
    {"exact_integer_sqrt", "(call-with-values (lambda () (exact-integer-sqrt 17)) (lambda (s r) (if (exact? s) 1 0)))"},
    {"chibi_vector_ref_index",
     "(vector-ref '#(1 1 2 3 5 8 13 21) (let ((i (round (* 2 (acos -1))))) (if (inexact? i) (exact i) i)))"},
};

class ExactRoutes : public ::testing::TestWithParam<std::tuple<ExactCase, Route>> {};

TEST_P(ExactRoutes, HoldAsR7rsSays) {
  const auto& [c, route] = GetParam();
  const double expected = std::string(c.label) == "chibi_vector_ref_index" ? 13 : 1;
  EXPECT_EQ(evalOk(c.src, route).value, expected) << c.src;
}

INSTANTIATE_TEST_SUITE_P(Facts, ExactRoutes, ::testing::Combine(::testing::ValuesIn(kCases), test::everyRoute()),
                         [](const auto& info) {
                           ::testing::TestParamInfo<Route> route(std::get<1>(info.param), info.index);
                           return std::string(std::get<0>(info.param).label) + "_" + test::routeSuffix(route);
                         });

class ExactOracle : public ::testing::TestWithParam<ExactCase> {};

TEST_P(ExactOracle, AgreesWithTheEngine) {
  auto p = Program::fromText(GetParam().src, "prog.scm");
  ASSERT_TRUE(p) << p.error().str();
  auto v = oracle::evaluate(*p, {}, {});
  ASSERT_TRUE(v) << v.error().str();
  EXPECT_EQ(static_cast<double>(v->total), evalOk(GetParam().src, Route::Direct).value) << GetParam().src;
}

INSTANTIATE_TEST_SUITE_P(Facts, ExactOracle, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.label); });

class ExactGradients : public ::testing::TestWithParam<Route> {};

// A literal on the tape (differentiated) is a real: inexact; not differentiated, it is exact. Lantern makes every
// literal a dual whatever is asked, so there a literal keeps its own exactness, as under `dmci run`.
TEST_P(ExactGradients, ADifferentiatedLiteralIsInexactOnTheTape) {
  const std::string src = "(* x (if (exact? 2) 10 20))";
  const bool lantern = GetParam() == Route::Lantern || GetParam() == Route::LanternDmci;
  EXPECT_EQ(evalOk(src, GetParam(), {{"x", 1}}, {"x"}, false).value, 10);
  EXPECT_EQ(evalOk(src, GetParam(), {{"x", 1}}, {"x"}, true).value, lantern ? 10 : 20);
}

TEST_P(ExactGradients, PassThroughExactAndInexact) {
  const std::string src = "(+ (* (exact x) 3) (* (inexact x) (exact->inexact 4)) (inexact->exact (* x 5)))";
  const auto ev = evalOk(src, GetParam(), {{"x", 2}}, {"x"});
  EXPECT_EQ(ev.value, 24);
  EXPECT_EQ(gradientOf(ev, "x"), 12);
}

TEST_P(ExactGradients, AParameterIsInexact) {
  EXPECT_EQ(evalOk("(if (exact? x) 1 0)", GetParam(), {{"x", 2}}, {}).value, 0);
}

TEST_P(ExactGradients, ExactOfAnInfinityIsAnError) {
  EXPECT_NE(evalErr("(exact (/ 1. 0))", GetParam()).message.find("exact: an infinity or a NaN has no exact form"),
            std::string::npos);
  EXPECT_EQ(evalErr("(exact? 'a)", GetParam()).kind, ErrorKind::Type);
}

INSTANTIATE_TEST_SUITE_P(Routes, ExactGradients, test::everyRoute(), test::routeSuffix);

TEST(ExactGraphText, AGraphReadBackKeepsEachConstantsExactness) {
  auto p = Program::fromText("(list 1 1.0 '(2 2.0))", "prog.scm");
  ASSERT_TRUE(p) << p.error().str();
  auto g = p->compile({});
  ASSERT_TRUE(g) << g.error().str();
  auto back = parseGraph(printGraph(*g));
  ASSERT_TRUE(back) << back.error().str();
  ASSERT_EQ(back->consts.size(), g->consts.size());
  int exact = 0, inexact = 0;
  for (size_t k = 0; k < g->consts.size(); ++k) {
    const Datum& a = *g->consts[k];
    const Datum& b = *back->consts[k];
    EXPECT_EQ(print(a), print(b));
    auto count = [&](const Datum& d) {
      if (d.kind == DatumKind::Number) (isExact(d) ? exact : inexact)++;
    };
    count(b);
    for (const auto& item : b.items) count(*item);
    EXPECT_EQ(isExact(a), isExact(b));
  }
  EXPECT_EQ(exact, 2);
  EXPECT_EQ(inexact, 2);
}

}  // namespace
}  // namespace dmci
