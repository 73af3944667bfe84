// Private to the tensor primitives: argument checks, Eigen views of tensors and
// the plumbing that adjoint rules share (Tensor.cpp, TensorLinalg.cpp).
//
// Tensor data lives in Runtime::tensorData, which moves when a tensor is
// allocated: a view (or a raw pointer) is only valid until the next newTensor.
// Forward rules therefore compute into an Eigen matrix first and copy it into
// a fresh tensor last (makeTensor).
#pragma once
#include <Eigen/Dense>
#include <initializer_list>
#include <string>
#include <vector>

#include "prims/PrimTable.h"

namespace dmci::tensorops {

// Row-major, matching a tensor's layout; a vector is an n x 1 Mat.
using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatView = Eigen::Map<const Mat>;

inline bool isTensor(const Value& v) { return v.tag == Tag::Tensor; }
inline bool isNum(const Value& v) { return v.tag == Tag::Real || v.tag == Tag::Int; }

// "vector of length 3" or "2x3 matrix", for error messages.
std::string shapeName(const TensorRec& r);

// Argument checks; each throws a Type error naming the primitive and the argument.
// rank 0 accepts any tensor. Returns a copy of the record (references move).
TensorRec needTensor(Runtime& rt, const char* prim, int idx, const Value& v, int rank);
TensorRec needSquare(Runtime& rt, const char* prim, int idx, const Value& v);
double needNumber(Runtime& rt, const char* prim, int idx, const Value& v);
[[noreturn]] void shapeMismatch(const char* prim, const char* what, const TensorRec& a, const TensorRec& b);

// A read-only view of a tensor's data (valid until the next tensor allocation).
inline MatView view(Runtime& rt, const Value& t) {
  const TensorRec& r = rt.tensors[t.i];
  return MatView(rt.tdata(t), r.rows, r.cols);
}
// A fresh constant tensor holding m (rank 1 takes m as a column).
Value makeTensor(Runtime& rt, int32_t rank, const Mat& m);

// Records the op (a no-op when no input is active) and returns `out`, now with slots.
inline Value record(Runtime& rt, int primId, std::initializer_list<Value> in, Value out) {
  Value args[3];
  int n = 0;
  for (const Value& v : in) args[n++] = v;
  rt.recordTensorOp(primId, args, n, out);
  return out;
}

// --- adjoint plumbing ---

// First tape slot of an input (a tensor's first element, or a scalar's slot), -1 if constant.
inline int32_t slotOf(const Runtime& rt, const Value& v) {
  if (v.tag == Tag::Tensor) return rt.tensors[v.i].slot;
  return v.isActive() ? v.i : -1;
}
inline bool isActive(const Runtime& rt, const Value& v) { return slotOf(rt, v) >= 0; }
// The adjoint of a tensor output, as a matrix of its shape.
inline Mat outAdjoint(const Runtime& rt, const TensorOp& op, const std::vector<double>& adj) {
  const TensorRec& r = rt.tensors[op.out.i];
  return MatView(adj.data() + r.slot, r.rows, r.cols);
}
// Adds g (the input's shape; 1x1 for a scalar) into an active input's adjoint.
inline void addAdjoint(const Runtime& rt, const Value& v, const Mat& g, std::vector<double>& adj) {
  int32_t s = slotOf(rt, v);
  if (s < 0) return;
  if (v.tag != Tag::Tensor) {
    adj[s] += g(0, 0);
    return;
  }
  const TensorRec& r = rt.tensors[v.i];
  Eigen::Map<Mat>(adj.data() + s, r.rows, r.cols) += g;
}

// det, logdet, inv, solve and cholesky (TensorLinalg.cpp).
void addTensorLinalgPrims(std::vector<Primitive>& t);

}  // namespace dmci::tensorops
