// The primitive table's column for the tensor engine: how it runs a primitive for a group of lanes.
//
// The tensor engine (engines/tensor/Dispatch.cpp) applies a primitive to a
// group of lanes by its row alone: what per-lane data the native rule reads,
// and which kernel, if any, runs it for every lane at once. So a renamed or
// new primitive needs no list elsewhere, and prims_lanes_test fails on a row
// that does not say.
#pragma once
#include <cstdint>

namespace dmci {

// The per-lane data a primitive's native rule reads. When an application's
// arguments hold none of it, the native rule runs once for the whole group;
// else the row's torch kernel runs, or failing one the native rule lane by lane.
enum class LaneReads : uint8_t {
  Unclassified,   // a row that says nothing: prims_lanes_test fails; the engine reads it as Arguments
  Nothing,        // no numbers: the native rule always runs once for the group
  Arguments,      // its arguments' numbers and tensors
  Lists,          // those inside list arguments too (a scan walks the lists)
  ListsByNumber,  // those inside lists only when argument 1 is a number (eqv? of a number and a non-number is #f)
  NoRule,         // no native rule: the machines run it (apply), or it is Scheme code (a prelude procedure)
};

// What runs a primitive for all the lanes of a group at once.
enum class LaneKernel : uint8_t {
  None,  // nothing: the native rule, once or lane by lane
  // torch kernels (engines/tensor/ScalarPrims.cpp, TensorPrims.cpp)
  Add,
  Subtract,
  Multiply,
  Divide,
  Equal,
  Less,
  Greater,
  LessEqual,
  GreaterEqual,
  Min,
  Max,
  Quotient,
  Remainder,
  Modulo,
  Zero,
  Positive,
  Negative,
  Even,
  Odd,
  Integer,
  Eqv,
  Abs,
  Floor,
  Ceiling,
  Round,
  Truncate,
  Square,
  Exp,
  Log,
  Sqrt,
  Expt,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Tanh,
  Sigmoid,
  Softplus,
  Vec,
  Mat,
  Ref,
  Dot,
  Matvec,
  Matmul,
  Transpose,
  Outer,
  Trace,
  Norm,
  Vsum,
  Scale,
  Det,
  Logdet,
  Inv,
  Solve,
  Cholesky,
  // the batch machine's own: a box seen through the group's overlay (engines/tensor/BatchMachine.cpp)
  BoxSet,
  BoxRef,
  Count
};
constexpr bool isTorchKernel(LaneKernel k) { return k > LaneKernel::None && k < LaneKernel::BoxSet; }

struct LaneUse {
  LaneReads reads = LaneReads::Unclassified;
  LaneKernel kernel = LaneKernel::None;
};
constexpr LaneUse laneUse(LaneReads reads, LaneKernel kernel = LaneKernel::None) { return {reads, kernel}; }

}  // namespace dmci
