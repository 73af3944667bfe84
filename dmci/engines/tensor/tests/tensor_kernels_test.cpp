// The tensor engine's torch rules and the primitive table's kernels (prims/LaneUse.h) agree:
// every torch kernel has its rule, some row names it, and nothing else has a rule.
#include <gtest/gtest.h>

#include <set>

#include "engines/tensor/LaneStore.h"
#include "prims/PrimTable.h"

namespace dmci {
namespace {

constexpr int kKernels = static_cast<int>(LaneKernel::Count);

TEST(TensorKernels, EveryTorchKernelHasItsRuleAndNoOtherKernelHasOne) {
  for (int k = 0; k < kKernels; ++k)
    EXPECT_EQ(lanes::hasRule(static_cast<LaneKernel>(k)), isTorchKernel(static_cast<LaneKernel>(k))) << "kernel " << k;
}

TEST(TensorKernels, EveryTorchKernelIsARowsKernel) {
  std::set<LaneKernel> named;
  for (const Primitive& p : primitives()) named.insert(p.lanes.kernel);
  for (int k = 0; k < kKernels; ++k) {
    const auto kernel = static_cast<LaneKernel>(k);
    if (isTorchKernel(kernel)) {
      EXPECT_TRUE(named.count(kernel)) << "kernel " << k;
    }
  }
}

}  // namespace
}  // namespace dmci
