// The C++ emitter's tensor half (engines/replay/EmitCpp.h): a trace's tensor steps written as Eigen code,
// forward and reverse, for EmitCpp.cpp to place among the scalar operations and guards.
//
// A tensor slot k is `t<k>`, an Eigen::Matrix<double, R, C> of its fixed shape (a vector is R x 1), and its
// adjoint `u<k>` of the same type. A slot larger than kMaxFixedSide on a side, or one past kMaxFixedBytes of
// fixed-size values and adjoints in one function (they live on the stack), is an Eigen::MatrixXd instead: the
// same code, sized at run time. A constant tensor is a static const initialised once from its exact numbers.
// Each rule is the native one (prims/Tensor.cpp, TensorLinalg.cpp) written as Eigen expressions, so a value and
// gradient agree with the native engine's to rounding (the native rules run on dynamic row-major matrices; the
// order of a few sums differs). The primitives that raise a domain error natively (logdet of a matrix whose
// determinant is not positive, inv and solve of a singular matrix, cholesky of a matrix that is not positive
// definite) get a guard on the native condition, so a lane that would fail natively leaves the path.
#pragma once
#include <string>
#include <vector>

#include "syntax/Error.h"
#include "trace/Trace.h"

namespace dmci::replay::emit {

inline constexpr int32_t kMaxFixedSide = 16;
inline constexpr int64_t kMaxFixedBytes = int64_t{1} << 18;

// A double as an exact C++ literal (hexadecimal floating point; HUGE_VAL, nan).
std::string hexLiteral(double x);

class TensorEmitter {
 public:
  explicit TensorEmitter(const Trace& t);
  // The helper functions the steps call (logdet, the adjugate, the invertibility test), once per file.
  static std::string helpers();
  // The constant tensors, and the steps' adjoints (zero), as declarations.
  std::string constants(const std::string& ind) const;
  std::string adjoints(const std::string& ind) const;
  // A step's forward code, with its guard (`return 1` when it fails) in the one-lane function (the lane loop of a
  // trace with tensor steps calls that function for each lane).
  Result<std::string> forward(const TensorStep& s, const std::string& ind) const;
  // A step's reverse code: its operands' adjoints accumulated from its result's.
  std::string reverse(const TensorStep& s, const std::string& ind) const;

 private:
  const Trace& t_;
  std::vector<bool> fixed_;
  std::string type(int32_t k) const;
  std::string sized(int32_t k) const;  // "(R, C)" for a dynamic slot's declaration, "" for a fixed one
  const TensorSlot& slot(int32_t k) const { return t_.tensors[static_cast<size_t>(k)]; }
  const Value& arg(const TensorStep& s, int k) const { return t_.args[static_cast<size_t>(s.firstArg + k)]; }
  std::string text(const Value& v) const;  // an operand: t<k>, s<k> or a constant number
  bool active(const Value& v) const;       // an operand with an adjoint (a step's result or a scalar slot)
  std::string adjoint(const Value& v) const;
};

}  // namespace dmci::replay::emit
