// Stages a recorded trace into C++ (the staging half of the Lantern seed): one self-contained function computing
// the value and the gradient along the trace's path, with its guards.
//
//   extern "C" int NAME(const double* params, double* value, double* gradient);
//
// params: the parameters in the trace's order; gradient: one number per gradient key (null: value only). It
// returns 0, or 1 when a guard fails ("path changed", as CppAD's generated code reports it): then nothing it
// wrote means anything and the caller must interpret that input. The arithmetic is the native rules' own, in the
// native tape's order (forward, then the reverse sweep skipping a zero adjoint as the native sweep does), so a
// build without floating-point contraction (-ffp-contract=off; `dmci emit` says so in the file) gives the
// native engine's numbers bit for bit. Constants are written as hexadecimal floating literals: exact.
// Tensor steps are Eigen code (replay/EmitTensor.h: fixed-size matrices, dynamic past 16 on a side), the native
// rules forward and in reverse; their numbers agree with the native engine's to rounding, not bit for bit, and
// the file then includes <Eigen/Dense> (CompiledTrace passes Eigen's include directory to the compiler).
// Not every trace can be emitted: a Step through a native rule, a guard through one other than a comparison,
// a number test or min/max, and the elementary functions without a one-line formula here (sigmoid, softplus,
// round, asin, acos), and traces longer than kMaxEmittedSteps are refused with the reason.
#pragma once
#include <string>
#include <vector>

#include "replay/Trace.h"
#include "syntax/Error.h"

namespace dmci::replay {

// Longer traces (deep recursions unrolled) are refused: a compiler takes seconds on such a function.
inline constexpr size_t kMaxEmittedSteps = 4000;

struct EmitRequest {
  std::string function = "dmci_trace";
  std::string origin;                        // what the header comment says the code was made from
  std::vector<std::string> gradientKeys;     // in the gradient's order
  std::vector<std::vector<int32_t>> leaves;  // per key, the leaves whose adjoints it sums
  bool gradient = true;
};

Result<std::string> emitCpp(const Trace& t, const EmitRequest& req);

}  // namespace dmci::replay
