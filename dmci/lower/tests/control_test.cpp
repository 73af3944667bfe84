// shift and reset (lower/Control.h): the standard examples and the errors, by every route of the native engine and
// by the multiprecision oracle.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lower/ComputeGraph.h"
#include "oracle/Oracle.h"
#include "testing/ControlCases.h"
#include "testing/Eval.h"

namespace dmci {
namespace {

using test::close;
using test::evalErr;
using test::evalOk;
using test::gradientOf;
using test::where;

class Control : public ::testing::TestWithParam<Route> {};

TEST_P(Control, EveryExampleHasItsValue) {
  for (const auto& c : test::kControlCases) {
    auto ev = evalOk(c.src, GetParam(), c.seed);
    EXPECT_EQ(ev.value, c.value) << c.name << ": " << c.src;
  }
}

TEST_P(Control, GradientsFlowThroughAContinuationCalledTwice) {
  // k = (* x []): (k (k 2)) = 2 x^2, d/dx = 4x.
  auto ev = evalOk("(reset (* x (shift k (k (k 2)))))", GetParam(), {{"x", 3.0}}, {"x"});
  EXPECT_EQ(ev.value, 18);
  EXPECT_TRUE(close(gradientOf(ev, "x"), 12.0));
}

TEST_P(Control, LiteralsKeepTheirGradients) {
  auto ev = evalOk("(reset (* 3 (shift k (k (k 2)))))", GetParam(), {}, {}, true);
  EXPECT_EQ(ev.value, 18);
  EXPECT_TRUE(close(gradientOf(ev, "prog.scm:1:11"), 12.0));  // d(3*3*2)/d3
  EXPECT_TRUE(close(gradientOf(ev, "prog.scm:1:28"), 9.0));
}

TEST_P(Control, ShiftOutsideAnyResetIsAnErrorAtTheShift) {
  Error e = evalErr("(+ 1\n   (shift k (k 2)))", GetParam());
  EXPECT_NE(e.message.find("shift: outside any reset"), std::string::npos) << e.str();
  EXPECT_EQ(where(e.pos), "2:4") << e.str();
}

TEST_P(Control, ShiftInAProcedureCalledOutsideAnyResetIsAnError) {
  Error e = evalErr("(define (f x) (shift k (k x)))\n(+ 1 (f 2))", GetParam());
  EXPECT_NE(e.message.find("shift: outside any reset"), std::string::npos) << e.str();
  EXPECT_EQ(where(e.pos), "1:15") << e.str();
}

TEST_P(Control, AContinuationTakesExactlyOneArgument) {
  Error e = evalErr("(reset (+ 1 (shift k\n  (k 1 2))))", GetParam());
  EXPECT_EQ(e.kind, ErrorKind::User) << e.str();
  EXPECT_NE(e.message.find("k: a continuation expects 1 argument, got 2"), std::string::npos) << e.str();
  EXPECT_EQ(where(e.pos), "2:3") << e.str();
  Error none = evalErr("(reset (+ 1 (shift k (k))))", GetParam());
  EXPECT_NE(none.message.find("expects 1 argument, got 0"), std::string::npos) << none.str();
}

// The error of the converted program, inside and outside a reset, is the unconverted program's.
void expectSameError(const Error& plain, const Error& converted, const std::string& what) {
  EXPECT_EQ(converted.kind, plain.kind) << what << ": " << converted.str() << " vs " << plain.str();
  EXPECT_EQ(converted.message, plain.message) << what;
  EXPECT_EQ(where(converted.pos), where(plain.pos)) << what << ": " << converted.str() << " vs " << plain.str();
}

TEST_P(Control, ArityErrorsCountTheSourcesParameters) {
  for (const auto& c : test::kArityCases) {
    Error plain = evalErr(c.plain(), GetParam());
    EXPECT_EQ(plain.kind, ErrorKind::Arity) << c.name << ": " << plain.str();
    EXPECT_EQ(plain.message.find("expects 3"), std::string::npos) << c.name << ": " << plain.str();
    expectSameError(plain, evalErr(c.converted(), GetParam()), c.name);
    expectSameError(plain, evalErr(c.convertedOutside(), GetParam()), std::string(c.name) + " (outside)");
  }
}

TEST_P(Control, AVariableUsedBeforeItsDefinitionIsTheUnconvertedError) {
  for (const auto& c : test::kBeforeDefinitionCases) {
    Error plain = evalErr(c.plain(), GetParam());
    EXPECT_EQ(plain.kind, ErrorKind::Unbound) << c.name << ": " << plain.str();
    EXPECT_NE(plain.message.find("used before its definition"), std::string::npos) << c.name << ": " << plain.str();
    expectSameError(plain, evalErr(c.converted(), GetParam()), c.name);
    expectSameError(plain, evalErr(c.convertedOutside(), GetParam()), std::string(c.name) + " (outside)");
  }
}

INSTANTIATE_TEST_SUITE_P(Routes, Control, ::testing::Values(Route::Direct, Route::Dmci, Route::Dmci2),
                         [](const auto& info) { return std::string(routeName(info.param)); });

// --- the oracle ---

Result<oracle::WideValue> oracleRun(const std::string& src, const std::vector<SeedValue>& seed = {}) {
  auto p = Program::fromText(src, "prog.scm");
  if (!p) return p.error();
  oracle::Point pt;
  for (const auto& s : seed) pt.params.emplace_back(s.name, oracle::Wide(s.value));
  return oracle::evaluate(*p, pt);
}

TEST(ControlOracle, EveryExampleHasItsValue) {
  for (const auto& c : test::kControlCases) {
    auto v = oracleRun(c.src, c.seed);
    ASSERT_TRUE(v) << c.name << ": " << v.error().str();
    EXPECT_EQ(static_cast<double>(v->total), c.value) << c.name << ": " << c.src;
  }
}

TEST(ControlOracle, TheFiniteDifferenceSeesThroughContinuations) {
  auto p = Program::fromText("(reset (* x (shift k (k (k 2)))))", "prog.scm");
  ASSERT_TRUE(p);
  auto fd = oracle::finiteDifference(*p, {{"x", 3.0}}, {"x"}, false);
  ASSERT_TRUE(fd) << fd.error().str();
  ASSERT_EQ(fd->gradient.size(), 1u);
  EXPECT_TRUE(close(fd->gradient[0].second, 12.0));
}

TEST(ControlOracle, ShiftOutsideAnyResetIsAnErrorAtTheShift) {
  auto v = oracleRun("(+ 1\n   (shift k (k 2)))");
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("shift: outside any reset"), std::string::npos) << v.error().str();
  EXPECT_EQ(where(v.error().pos), "2:4") << v.error().str();
}

TEST(ControlOracle, AContinuationTakesExactlyOneArgument) {
  auto v = oracleRun("(reset (+ 1 (shift k\n  (k 1 2))))");
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("k: a continuation expects 1 argument, got 2"), std::string::npos)
      << v.error().str();
}

void expectSameOracleError(const std::string& plainSrc, const std::string& convertedSrc, const std::string& what) {
  auto plain = oracleRun(plainSrc);
  auto converted = oracleRun(convertedSrc);
  ASSERT_FALSE(plain) << what;
  ASSERT_FALSE(converted) << what;
  EXPECT_EQ(converted.error().kind, plain.error().kind) << what << ": " << converted.error().str();
  EXPECT_EQ(converted.error().message, plain.error().message) << what;
  EXPECT_EQ(where(converted.error().pos), where(plain.error().pos)) << what << ": " << converted.error().str();
}

TEST(ControlOracle, ArityErrorsCountTheSourcesParameters) {
  for (const auto& c : test::kArityCases) {
    expectSameOracleError(c.plain(), c.converted(), c.name);
    expectSameOracleError(c.plain(), c.convertedOutside(), std::string(c.name) + " (outside)");
  }
}

TEST(ControlOracle, AVariableUsedBeforeItsDefinitionIsTheUnconvertedError) {
  for (const auto& c : test::kBeforeDefinitionCases) {
    expectSameOracleError(c.plain(), c.converted(), c.name);
    expectSameOracleError(c.plain(), c.convertedOutside(), std::string(c.name) + " (outside)");
  }
}

// --- the expander ---

TEST(ControlForms, MalformedShiftAndResetAreFormErrors) {
  for (const char* src : {"(reset)", "(shift k)", "(shift (k) 1)", "(shift %k 1)"}) {
    auto p = Program::fromText(src, "prog.scm");
    ASSERT_FALSE(p) << src;
    EXPECT_EQ(p.error().kind, ErrorKind::Form) << src << ": " << p.error().str();
  }
}

TEST(ControlForms, ALongLetStarUnderAResetIsConvertedInLinearTime) {
  // 30,000 nested bindings: the conversion recurses that deep (on a stack of its own) and looks every name up in
  // a persistent tree (a scope chain walked per reference was quadratic: minutes at 100,000).
  const int n = 30000;
  std::string src = "(reset (let* ((x0 1)\n";
  for (int i = 1; i < n; ++i) src += "(x" + std::to_string(i) + " (+ x" + std::to_string(i - 1) + " 1))\n";
  src += ") (+ 1 (shift k (k (k x" + std::to_string(n - 1) + "))))))";
  auto ev = evalOk(src, Route::Direct);
  EXPECT_EQ(ev.value, n + 2);
}

TEST(ControlForms, ALongDefineGroupIsConvertedInLinearTime) {
  // 20,000 defines, each reading the one before and calling a procedure: which of them might be read before their
  // definition is found by one walk of the group (a walk per initialiser was quadratic), and the initialisers
  // share what they need of the group (a copy each took 5 GB at 4,000).
  const int n = 20000;
  std::string src = "(define (get) a0)\n(define a0 1)\n";
  for (int i = 1; i < n; ++i) src += "(define a" + std::to_string(i) + " (+ a" + std::to_string(i - 1) + " (get)))\n";
  src += "(reset (+ a" + std::to_string(n - 1) + " (shift k (k (k 0)))))";
  auto ev = evalOk(src, Route::Direct);
  EXPECT_EQ(ev.value, 2 * n);  // k is (+ a []), a = n
}

TEST(ControlForms, AConvertedProceduresHiddenParametersSurviveTheGraphText) {
  auto p = Program::fromText("(define (f x) (list x))\n(define g f)\n(reset (g 1 2))", "prog.scm");
  ASSERT_TRUE(p);
  auto g = p->compile({});
  ASSERT_TRUE(g) << g.error().str();
  auto back = parseGraph(printGraph(*g));
  ASSERT_TRUE(back) << back.error().str();
  ASSERT_EQ(back->blocks.size(), g->blocks.size());
  int hidden = 0;
  for (size_t k = 0; k < g->blocks.size(); ++k) {
    EXPECT_EQ(back->blocks[k].hidden, g->blocks[k].hidden) << g->blocks[k].name;
    hidden += g->blocks[k].hidden > 0;
  }
  EXPECT_GT(hidden, 0);
  EXPECT_EQ(printGraph(*back), printGraph(*g));
}

TEST(ControlForms, AProgramWithoutControlIsNotConverted) {
  auto plain = Program::fromText("(define (f x) (* x x)) (f 3)", "prog.scm");
  ASSERT_TRUE(plain);
  auto g = plain->compile({});
  ASSERT_TRUE(g);
  for (const auto& b : g->blocks) EXPECT_EQ(b.name.find("continuation"), std::string::npos) << b.name;
  EXPECT_EQ(g->blocks.size(), 2u);  // the entry and f
  for (const auto& b : g->blocks) EXPECT_EQ(b.hidden, 0) << b.name;
}

}  // namespace
}  // namespace dmci
