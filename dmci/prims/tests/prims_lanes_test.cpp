// Every primitive is classified for every engine: the native engine runs its rule (or its Scheme
// definition, or the machine runs it: apply), and the table's lane column says how the tensor
// engine runs it for a group of lanes (prims/LaneUse.h). A new row fails here until it says.
#include <gtest/gtest.h>

#include <string>

#include "prims/PrimTable.h"

namespace dmci {
namespace {

TEST(PrimLanes, EveryRowSaysWhatItsNativeRuleReadsOfTheLanes) {
  for (const Primitive& p : primitives())
    EXPECT_NE(p.lanes.reads, LaneReads::Unclassified) << p.name << ": no lane column in its row (prims/LaneUse.h)";
}

TEST(PrimLanes, EveryRowRunsOnTheNativeEngine) {
  for (const Primitive& p : primitives())
    EXPECT_TRUE(p.forward != nullptr || p.prelude != nullptr || std::string(p.name) == "apply") << p.name;
}

TEST(PrimLanes, ExactlyTheRowsWithoutANativeRuleAreMarkedNoRule) {
  for (const Primitive& p : primitives()) EXPECT_EQ(p.lanes.reads == LaneReads::NoRule, p.forward == nullptr) << p.name;
}

// A torch kernel runs only when an argument holds per-lane data: a row that reads none never gets there.
TEST(PrimLanes, ATorchKernelBelongsToARowThatReadsNumbers) {
  for (const Primitive& p : primitives())
    if (isTorchKernel(p.lanes.kernel)) {
      EXPECT_TRUE(p.lanes.reads == LaneReads::Arguments || p.lanes.reads == LaneReads::Lists) << p.name;
    }
}

TEST(PrimLanes, TheBatchMachinesBoxKernelsAreTheBoxPrimitivesAlone) {
  int boxSet = 0, boxRef = 0;
  for (const Primitive& p : primitives()) {
    boxSet += p.lanes.kernel == LaneKernel::BoxSet;
    boxRef += p.lanes.kernel == LaneKernel::BoxRef;
  }
  EXPECT_EQ(boxSet, 1);
  EXPECT_EQ(boxRef, 1);
  EXPECT_EQ(prim(primId("%box-set!")).lanes.kernel, LaneKernel::BoxSet);
  EXPECT_EQ(prim(primId("%box-ref")).lanes.kernel, LaneKernel::BoxRef);
}

}  // namespace
}  // namespace dmci
