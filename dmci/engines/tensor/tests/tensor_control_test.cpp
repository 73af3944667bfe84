// shift and reset on the tensor engine: the standard examples have the native engine's values, by both routes.
#include <gtest/gtest.h>

#ifdef DMCI_HAVE_TORCH
#include <string>

#include "driver/Engine.h"
#include "testing/ControlCases.h"
#include "testing/Eval.h"

namespace dmci {
namespace {

class TensorControl : public ::testing::TestWithParam<Route> {};

TEST_P(TensorControl, EveryExampleHasItsValue) {
  Engine& tensor = **engineNamed("tensor");
  for (const auto& c : test::kControlCases) {
    auto p = Program::fromText(c.src, test::kProgFile);
    ASSERT_TRUE(p) << c.name;
    auto ev = tensor.evaluate(*p, c.seed, test::options(GetParam()));
    ASSERT_TRUE(ev) << c.name << ": " << ev.error().str();
    EXPECT_EQ(ev->value, c.value) << c.name << ": " << c.src;
  }
}

TEST_P(TensorControl, GradientsFlowThroughAContinuationCalledTwice) {
  auto p = Program::fromText("(reset (* x (shift k (k (k 2)))))", test::kProgFile);
  ASSERT_TRUE(p);
  auto ev = (*engineNamed("tensor"))->evaluate(*p, {{"x", 3.0}}, test::options(GetParam(), {"x"}));
  ASSERT_TRUE(ev) << ev.error().str();
  EXPECT_EQ(ev->value, 18);
  EXPECT_TRUE(test::close(test::gradientOf(*ev, "x"), 12.0));
}

TEST_P(TensorControl, ShiftOutsideAnyResetIsAnError) {
  auto p = Program::fromText("(+ 1\n   (shift k (k 2)))", test::kProgFile);
  ASSERT_TRUE(p);
  auto ev = (*engineNamed("tensor"))->evaluate(*p, {}, test::options(GetParam()));
  ASSERT_FALSE(ev);
  EXPECT_NE(ev.error().message.find("shift: outside any reset"), std::string::npos) << ev.error().str();
  EXPECT_EQ(test::where(ev.error().pos), "2:4") << ev.error().str();
}

Error tensorErr(const std::string& src, Route r) {
  auto p = Program::fromText(src, test::kProgFile);
  if (!p) return p.error();
  auto ev = (*engineNamed("tensor"))->evaluate(*p, {}, test::options(r));
  if (ev) ADD_FAILURE() << src << ": succeeded with " << ev->value;
  return ev ? Error{} : ev.error();
}

void expectSameError(const std::string& plainSrc, const std::string& convertedSrc, Route r, const std::string& what) {
  Error plain = tensorErr(plainSrc, r), converted = tensorErr(convertedSrc, r);
  EXPECT_EQ(converted.kind, plain.kind) << what << ": " << converted.str() << " vs " << plain.str();
  EXPECT_EQ(converted.message, plain.message) << what;
  EXPECT_EQ(test::where(converted.pos), test::where(plain.pos)) << what << ": " << converted.str();
}

TEST_P(TensorControl, ArityErrorsCountTheSourcesParameters) {
  for (const auto& c : test::kArityCases) {
    expectSameError(c.plain(), c.converted(), GetParam(), c.name);
    expectSameError(c.plain(), c.convertedOutside(), GetParam(), std::string(c.name) + " (outside)");
  }
}

TEST_P(TensorControl, AVariableUsedBeforeItsDefinitionIsTheUnconvertedError) {
  for (const auto& c : test::kBeforeDefinitionCases) {
    expectSameError(c.plain(), c.converted(), GetParam(), c.name);
    expectSameError(c.plain(), c.convertedOutside(), GetParam(), std::string(c.name) + " (outside)");
  }
}

INSTANTIATE_TEST_SUITE_P(Routes, TensorControl, ::testing::Values(Route::Direct, Route::Dmci),
                         [](const auto& info) { return std::string(routeName(info.param)); });

}  // namespace
}  // namespace dmci

#else
TEST(TensorControl, SkippedWithoutLibTorch) { GTEST_SKIP() << "built without LibTorch"; }
#endif
