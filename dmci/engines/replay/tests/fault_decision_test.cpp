// The rule of planted adjoint faults (prims/Faults.h): a fault counts for a program's runs when it was planted
// before the program was prepared, by whatever machines run them later (a batch's threads, the replay engine's
// recorded traces). A fault planted after the program was prepared does not reach its runs; the program prepared
// again carries it.
#include <gtest/gtest.h>

#include <cmath>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "prims/Faults.h"

namespace dmci {
namespace {

struct FaultGuard {
  FaultGuard(const std::string& prim, double scale) { plantAdjointFault(prim, scale); }
  ~FaultGuard() { clearAdjointFaults(); }
};

TEST(FaultDecision, AFaultPlantedAfterPrepareDoesNotReachTheRunsOnAnyThread) {
  auto p = Program::fromText("(sin (* 2 x))", "prog.scm");
  ASSERT_TRUE(p) << p.error().str();
  const size_t lanes = 3000;
  std::vector<std::vector<double>> x{std::vector<double>(lanes)};
  for (size_t k = 0; k < lanes; ++k) x[0][k] = 0.001 * static_cast<double>(k);
  EvalOptions o;
  o.wrt = {"x"};
  o.threads = 3;
  for (const char* name : {"native", "replay"}) {
    auto engine = engineNamed(name);
    ASSERT_TRUE(engine) << engine.error().str();
    auto before = (*engine)->prepare(*p, {"x"}, o);
    ASSERT_TRUE(before) << before.error().str();
    FaultGuard fault("sin", 1.5);
    auto after = (*engine)->prepare(*p, {"x"}, o);
    ASSERT_TRUE(after) << after.error().str();
    auto clean = (*before)->runLanes(x, 0), faulty = (*after)->runLanes(x, 0);
    auto one = (*before)->run({0.25});
    ASSERT_TRUE(clean && faulty && one) << name;
    EXPECT_NEAR(one->gradient.at(0).second, 2 * std::cos(0.5), 1e-12) << name;
    for (size_t k = 0; k < lanes; ++k) {
      const double d = 2 * std::cos(2 * x[0][k]);
      ASSERT_NEAR(clean->gradient[0][k], d, 1e-12) << name << ": lane " << k << " carries the later fault";
      ASSERT_NEAR(faulty->gradient[0][k], 1.5 * d, 1e-12) << name << ": lane " << k << " lacks the fault";
    }
  }
}

}  // namespace
}  // namespace dmci
