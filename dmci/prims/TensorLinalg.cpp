// The dense linear-algebra primitives (det, logdet, inv, solve, cholesky) and
// their exact reverse-mode rules, on Eigen's LU and Cholesky factorisations.
#include <cmath>
#include <limits>
#include <string>

#include "prims/TensorRules.h"
#include "syntax/Datum.h"

namespace dmci {

using namespace tensorops;

namespace {

using LU = Eigen::FullPivLU<Mat>;

// The adjugate adj(A) = det(A)·inv(A), by cofactors when A is singular.
Mat adjugate(const Mat& A, double det) {
  const Eigen::Index n = A.rows();
  if (n == 1) return Mat::Ones(1, 1);
  LU lu(A);
  if (det != 0.0 && lu.isInvertible()) return det * lu.inverse();
  Mat adj(n, n), minor(n - 1, n - 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      for (Eigen::Index r = 0, mr = 0; r < n; ++r) {
        if (r == i) continue;
        for (Eigen::Index c = 0, mc = 0; c < n; ++c)
          if (c != j) minor(mr, mc++) = A(r, c);
        ++mr;
      }
      adj(j, i) = ((i + j) % 2 ? -1.0 : 1.0) * minor.partialPivLu().determinant();
    }
  }
  return adj;
}

Value detPrim(Runtime& rt, const Value* a, int) {
  needSquare(rt, "det", 0, a[0]);
  double d = Eigen::PartialPivLU<Mat>(Mat(view(rt, a[0]))).determinant();
  static const int id = primId("det");
  return record(rt, id, {a[0]}, Value::real(d));
}

void detAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  addAdjoint(rt, op.in[0], adj[op.out.i] * adjugate(view(rt, op.in[0]), op.out.num).transpose(), adj);
}

// log det A, computed from the LU factors so that a large determinant does not overflow.
Value logdetPrim(Runtime& rt, const Value* a, int) {
  needSquare(rt, "logdet", 0, a[0]);
  Eigen::PartialPivLU<Mat> lu{Mat(view(rt, a[0]))};
  double sign = lu.permutationP().determinant(), logAbs = 0.0;
  for (Eigen::Index k = 0; k < lu.matrixLU().rows(); ++k) {
    double u = lu.matrixLU()(k, k);
    if (u < 0) sign = -sign;
    logAbs += std::log(std::fabs(u));
    if (u == 0.0) sign = 0.0;
  }
  if (!(sign > 0) || std::isnan(logAbs))
    throw DmciError(ErrorKind::Domain, "logdet: the determinant must be positive, got " +
                                           formatNumber(sign == 0.0 ? 0.0 : lu.determinant()));
  static const int id = primId("logdet");
  return record(rt, id, {a[0]}, Value::real(logAbs));
}

void logdetAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  Mat Ainv = Eigen::PartialPivLU<Mat>(Mat(view(rt, op.in[0]))).inverse();
  addAdjoint(rt, op.in[0], adj[op.out.i] * Ainv.transpose(), adj);
}

// The LU factors of a square matrix argument, or a Domain error when it is singular.
// A matrix is singular to working precision when its smallest singular value is at most n·ε times its
// largest (numpy's matrix_rank test; the tensor engine applies the same one), or when it is not finite.
LU invertible(Runtime& rt, const char* prim, const Value& A) {
  Mat M(view(rt, A));
  Eigen::VectorXd sv = Eigen::JacobiSVD<Mat>(M).singularValues();  // descending
  const double n = static_cast<double>(M.rows());
  if (!M.allFinite() || !(sv(sv.size() - 1) > sv(0) * n * std::numeric_limits<double>::epsilon()))
    throw DmciError(ErrorKind::Domain, std::string(prim) + ": the matrix is singular: " + rt.show(A));
  return LU{M};
}

Value invPrim(Runtime& rt, const Value* a, int) {
  needSquare(rt, "inv", 0, a[0]);
  Mat y = invertible(rt, "inv", a[0]).inverse();
  static const int id = primId("inv");
  return record(rt, id, {a[0]}, makeTensor(rt, 2, y));
}

void invAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  MatView Y = view(rt, op.out);
  addAdjoint(rt, op.in[0], -Y.transpose() * outAdjoint(rt, op, adj) * Y.transpose(), adj);
}

Value solvePrim(Runtime& rt, const Value* a, int) {
  TensorRec rA = needSquare(rt, "solve", 0, a[0]);
  TensorRec rb = needTensor(rt, "solve", 1, a[1], 0);
  if (rb.rows != rA.rows) shapeMismatch("solve", "matrix rows differ from right-hand side rows", rA, rb);
  Mat x = invertible(rt, "solve", a[0]).solve(Mat(view(rt, a[1])));
  static const int id = primId("solve");
  return record(rt, id, {a[0], a[1]}, makeTensor(rt, rb.rank, x));
}

void solveAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  Mat G = LU(Mat(view(rt, op.in[0]).transpose())).solve(outAdjoint(rt, op, adj));  // inv(A)ᵀ·dX
  if (isActive(rt, op.in[0])) addAdjoint(rt, op.in[0], -G * view(rt, op.out).transpose(), adj);
  addAdjoint(rt, op.in[1], G, adj);
}

// L lower-triangular with L·Lᵀ = (A + Aᵀ)/2: only A's symmetric part is used,
// so the rule below is the gradient for every entry of A.
Value choleskyPrim(Runtime& rt, const Value* a, int) {
  needSquare(rt, "cholesky", 0, a[0]);
  MatView A = view(rt, a[0]);
  Eigen::LLT<Mat> llt{Mat(0.5 * (A + A.transpose()))};
  if (llt.info() != Eigen::Success || !llt.matrixLLT().allFinite())
    throw DmciError(ErrorKind::Domain, "cholesky: the matrix is not positive definite: " + rt.show(a[0]));
  Mat L = llt.matrixL();
  static const int id = primId("cholesky");
  return record(rt, id, {a[0]}, makeTensor(rt, 2, L));
}

// Murray (2016): dA = sym(L⁻ᵀ·Φ(Lᵀ·dL)·L⁻¹), Φ = lower triangle with the diagonal halved.
void choleskyAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  Mat L = view(rt, op.out);
  Mat dL = outAdjoint(rt, op, adj).triangularView<Eigen::Lower>();  // the upper zeros are constants
  Mat P = (L.transpose() * dL).triangularView<Eigen::Lower>();
  P.diagonal() *= 0.5;
  auto Lt = L.transpose().triangularView<Eigen::Upper>();
  Mat X = Lt.solve(Mat(P.transpose()));  // L⁻ᵀ·Pᵀ = (P·L⁻¹)ᵀ
  Mat S = Lt.solve(Mat(X.transpose()));  // L⁻ᵀ·P·L⁻¹
  addAdjoint(rt, op.in[0], 0.5 * (S + S.transpose()), adj);
}

}  // namespace

namespace tensorops {

void addTensorLinalgPrims(std::vector<Primitive>& t) {
  const auto T = PrimFamily::Tensor;
  using R = LaneReads;
  using K = LaneKernel;
  t.push_back({"det", 1, 1, detPrim, detAdjoint, nullptr, T, "(det A) the determinant of a square matrix",
               "dA = dy·adj(A)ᵀ = dy·det(A)·inv(A)ᵀ", laneUse(R::Arguments, K::Det)});
  t.push_back({"logdet", 1, 1, logdetPrim, logdetAdjoint, nullptr, T,
               "(logdet A) log det A of a square matrix with positive determinant (else a domain error)",
               "dA = dy·inv(A)ᵀ", laneUse(R::Arguments, K::Logdet)});
  t.push_back({"inv", 1, 1, invPrim, invAdjoint, nullptr, T, "(inv A) the inverse of a nonsingular square matrix",
               "dA = -inv(A)ᵀ·dY·inv(A)ᵀ", laneUse(R::Arguments, K::Inv)});
  t.push_back({"solve", 2, 2, solvePrim, solveAdjoint, nullptr, T,
               "(solve A b) x with A·x = b, for a nonsingular A and a vector or matrix b",
               "db = inv(A)ᵀ·dx, dA = -(inv(A)ᵀ·dx)·xᵀ", laneUse(R::Arguments, K::Solve)});
  t.push_back({"cholesky", 1, 1, choleskyPrim, choleskyAdjoint, nullptr, T,
               "(cholesky A) lower-triangular L with L·Lᵀ = A, for A symmetric positive definite (uses (A+Aᵀ)/2)",
               "dA = sym(L⁻ᵀ·Φ(Lᵀ·dL)·L⁻¹), Φ = lower triangle with halved diagonal (Murray 2016)",
               laneUse(R::Arguments, K::Cholesky)});
}

}  // namespace tensorops
}  // namespace dmci
