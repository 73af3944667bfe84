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
// Tensor steps are Eigen code (engines/replay/EmitTensor.h: fixed-size matrices, dynamic past 16 on a side), the native
// rules forward and in reverse; their numbers agree with the native engine's to rounding, not bit for bit, and
// the file then includes <Eigen/Dense> (CompiledTrace passes Eigen's include directory to the compiler).
// Not every trace can be emitted: a Step through a native rule, a guard through one other than a comparison,
// a number test or min/max, and the elementary functions without a one-line formula here (sigmoid, softplus,
// round, asin, acos), and traces longer than kMaxEmittedSteps are refused with the reason.
//
// Names stay data: nothing the program, its file name or the caller's names say is copied into the code. Leaves
// and gradient keys are numbers there (params[p], gradient[k]); their names are the trace's leafNames and the
// request's gradientKeys, which the caller keeps (the compiled engine holds them beside the library). `dmci emit`
// asks for a header comment naming them for a reader (EmitRequest::names): every name in it goes through
// commentText, whose output has no byte that could end a // comment or continue it onto the next line.
#pragma once
#include <string>
#include <vector>

#include "syntax/Error.h"
#include "trace/Trace.h"

namespace dmci::replay {

// Longer traces (deep recursions unrolled) are refused: a compiler takes seconds on such a function.
inline constexpr size_t kMaxEmittedSteps = 4000;

struct EmitRequest {
  std::string function = "dmci_trace";       // a C identifier (anything else is refused)
  std::string origin;                        // with `names`: what the header says the code was made from (escaped)
  std::vector<std::string> gradientKeys;     // in the gradient's order
  std::vector<std::vector<int32_t>> leaves;  // per key, the leaves whose adjoints it sums
  bool gradient = true;
  bool names = false;  // a header comment naming params[p] and gradient[k] (escaped); false: no names at all
};

Result<std::string> emitCpp(const Trace& t, const EmitRequest& req);

// Any bytes as text for a // comment: letters, digits, space and punctuation that cannot end or continue a
// comment (no newline or other control byte, no backslash, no '*', '/' or '?', nothing past ASCII) are kept; every
// other byte, and '%' itself, is written %XX (two upper-case hex digits), so the text reads back exactly.
std::string commentText(const std::string& s);

// Whether `s` is a C identifier ([A-Za-z_][A-Za-z0-9_]*, at most 200 characters): what `function` must be.
bool isCIdentifier(const std::string& s);

}  // namespace dmci::replay
