// Native lanes over threads (the native engine's evaluateLanes): every lane's result is its run alone, whatever
// the thread count, and an error is the first failing lane's, however the lanes were shared among the threads.
#include <gtest/gtest.h>

#include "driver/Engine.h"
#include "driver/Program.h"

namespace dmci {
namespace {

Result<LaneEvaluation> evaluateLanes(const Program& p, std::vector<std::string> params,
                                     std::vector<std::vector<double>> values, EvalOptions o, int threads,
                                     int64_t count = 1) {
  o.threads = threads;
  return nativeEngine().evaluateLanes(p, LaneBatch{std::move(params), std::move(values), count}, o);
}

Program parse(const std::string& src) {
  auto p = Program::fromText(src, "prog.scm");
  if (!p) throw std::runtime_error(p.error().str());
  return *p;
}

TEST(NativeLanes, EveryLaneIsItsRunAloneOnAnyNumberOfThreads) {
  Program p = parse("(define (f k) (if (< k 1) 1 (+ 1 (f (- k 1))))) (* alpha (f (* 10 x)))");
  std::vector<std::vector<double>> v{std::vector<double>(5000, 0.5), std::vector<double>(5000)};
  for (size_t k = 0; k < 5000; ++k) v[1][k] = 0.001 * static_cast<double>(k);  // recursion depths 1..50
  EvalOptions o;
  o.wrt = {"alpha", "x"};
  for (Route route : {Route::Direct, Route::Dmci}) {
    o.route = route;
    for (int threads : {1, 2, 3}) {
      auto r = evaluateLanes(p, {"alpha", "x"}, v, o, threads);
      ASSERT_TRUE(r) << r.error().str();
      EXPECT_EQ(r->counters.get("threads"), threads);
      EXPECT_LE(r->counters.get("utilisation"), 1.05 + 1e-3 / r->counters.get("seconds"));
      for (size_t lane = 0; lane < 5000; lane += 97) {
        auto one = p.evaluate({{"alpha", v[0][lane]}, {"x", v[1][lane]}}, o);
        ASSERT_TRUE(one);
        EXPECT_EQ(r->value[lane], one->value) << lane;
        EXPECT_EQ(r->gradient[0][lane], one->gradient[0].second) << lane;
      }
    }
  }
}

TEST(NativeLanes, AnErrorIsTheFirstFailingLanes) {
  Program p = parse("(if (< x 0) (car x) x)");
  std::vector<std::vector<double>> v{std::vector<double>(20000, 1.0)};
  v[0][17000] = -1;  // a later lane that fails, perhaps taken first by another thread
  v[0][9000] = -2;
  v[0][19999] = -3;
  for (int threads : {1, 2, 4}) {
    auto r = evaluateLanes(p, {"x"}, v, EvalOptions{}, threads);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.rfind("lane 9000: ", 0), 0u) << r.error().str();
    EXPECT_NE(r.error().message.find("-2"), std::string::npos) << r.error().str();
  }
}

TEST(NativeLanes, WithoutParametersTheLaneCountIsGiven) {
  auto r = evaluateLanes(parse("(* 2 3.5)"), {}, {}, EvalOptions{}, 2, 7);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, std::vector<double>(7, 7.0));
}

// A lane's value must fit the batch lane 0 shaped: a later lane that gives a list, or a tensor where lane 0 gave a
// number (or another shape), is that lane's error on every CPU engine, never a number made up for it (a list's
// lane once read 0, a tensor's its entries' sum). Tensor values of one shape keep their entries.
TEST(NativeLanes, ALaneWhoseValueDoesNotFitTheBatchIsItsError) {
  const std::vector<std::vector<double>> v{{1.0, 2.0}};
  struct Case {
    const char* src;
    const char* says;
  } cases[] = {{"(if (< x 1.5) x (list x))", "got (2)"},
               {"(if (< x 1.5) x (vec x x))", "this lane's is a"},
               {"(if (< x 1.5) (vec x) (vec x x))", "this lane's is a vector of 2, lane 0's a vector of 1"}};
  for (const char* name : {"native", "replay", "compiled"}) {
    auto engine = engineNamed(name);
    ASSERT_TRUE(engine) << name;
    for (const auto& c : cases) {
      EvalOptions o;
      o.gradient = false;
      auto r = (*engine)->evaluateLanes(parse(c.src), LaneBatch{{"x"}, v, 2}, o);
      ASSERT_FALSE(r) << name << " " << c.src << " gave " << r->value[1];
      EXPECT_EQ(r.error().message.rfind("lane 1: ", 0), 0u) << name << " " << r.error().str();
      EXPECT_NE(r.error().message.find(c.says), std::string::npos) << name << " " << r.error().str();
      EXPECT_EQ(r.error().kind, ErrorKind::Type) << name;
      EXPECT_EQ(r.error().pos.line, 1) << name;
    }
    auto t = (*engine)->evaluateLanes(parse("(scale x (vec 1 2))"), LaneBatch{{"x"}, v, 2}, EvalOptions{});
    ASSERT_TRUE(t) << name << " " << t.error().str();
    EXPECT_TRUE(t->isTensor) << name;
    EXPECT_EQ(t->tensor, (std::vector<double>{1, 2, 2, 4})) << name;
    EXPECT_EQ(t->value, (std::vector<double>{3, 6})) << name;
  }
}

}  // namespace
}  // namespace dmci
