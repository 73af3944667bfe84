// Torch rules for the tensor primitives (vec, mat, ref, the algebra and the factorisations) on [n, rows, cols] lanes.
//
// Each mirrors prims/Tensor.cpp and TensorLinalg.cpp: the same checks and
// messages, the same values; LibTorch's derivatives are the same exact rules
// (cholesky is taken of (A + Aᵀ)/2, as natively, so its gradient is symmetric).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engines/tensor/LaneTensors.h"
#include "prims/PrimTable.h"
#include "syntax/Datum.h"

namespace dmci::lanes {
namespace {

std::string shapeName(const TensorRec& r) {
  if (r.rank == 1) return "vector of length " + std::to_string(r.rows);
  return std::to_string(r.rows) + "x" + std::to_string(r.cols) + " matrix";
}

[[noreturn]] void typeError(Ctx& c, const char* prim, int k, const Value& v, const char* expected, int64_t lane = 0) {
  wrongType(c.rt, prim, k, c.store.hydrate(c.rt, v, c.set, lane), expected);
}

// --- argument checks, with the native messages ---

TensorRec needTensor(Ctx& c, const char* prim, int idx, const Value& v, int rank) {
  const char* want = rank == 1 ? "a vector" : rank == 2 ? "a matrix" : "a tensor";
  if (v.tag != Tag::Tensor) typeError(c, prim, idx, v, want);
  TensorRec r = c.rt.tensors[static_cast<size_t>(v.i)];
  if (rank != 0 && r.rank != rank) typeError(c, prim, idx, v, want);
  return r;
}

TensorRec needSquare(Ctx& c, const char* prim, int idx, const Value& v) {
  TensorRec r = needTensor(c, prim, idx, v, 2);
  if (r.rows != r.cols)
    throw DmciError(ErrorKind::Type, std::string(prim) + ": argument " + std::to_string(idx + 1) +
                                         " must be a square matrix, got a " + shapeName(r));
  return r;
}

void needNumber(Ctx& c, const char* prim, int idx, const Value& v) {
  if (v.tag != Tag::Real && v.tag != Tag::Int) typeError(c, prim, idx, v, "a number");
}

[[noreturn]] void shapeMismatch(const char* prim, const char* what, const TensorRec& a, const TensorRec& b) {
  throw DmciError(ErrorKind::Type, std::string(prim) + ": " + what + ": " + shapeName(a) + " and " + shapeName(b));
}

// A number as an [n] column.
at::Tensor column(Ctx& c, const Value& v) { return v.i >= 0 ? c.num(v) : at::full({c.n}, v.num, c.im.real); }
// A tensor value broadcast to all n lanes.
at::Tensor lanesOf(Ctx& c, const Value& t) {
  at::Tensor x = c.ten(t);
  return x.size(0) == c.n ? x : x.expand({c.n, x.size(1), x.size(2)});
}

// --- construction ---

Outcome vecRule(Ctx& c, const Value* a, int argc) {
  std::vector<at::Tensor> cols;
  for (int k = 0; k < argc; ++k) {
    needNumber(c, "vec", k, a[k]);
    cols.push_back(column(c, a[k]));
  }
  return Outcome::of(c.tensor(1, at::stack(cols, 1).unsqueeze(2)));
}

// One row of `mat` as [n, len]: a proper list of numbers, or a vector.
at::Tensor matRow(Ctx& c, int idx, const Value& row) {
  const char* want = "a proper list of numbers or a vector";
  if (row.tag == Tag::Tensor) {
    needTensor(c, "mat", idx, row, 1);
    return lanesOf(c, row).squeeze(2);
  }
  std::vector<at::Tensor> items;
  Value p = row;
  for (; p.tag == Tag::Pair; p = c.rt.cdr(p)) {
    const Value& x = c.rt.car(p);
    if (x.tag != Tag::Real && x.tag != Tag::Int) typeError(c, "mat", idx, row, want);
    items.push_back(column(c, x));
  }
  if (p.tag != Tag::Nil) typeError(c, "mat", idx, row, want);
  if (items.empty()) return at::zeros({c.n, 0}, c.im.real);
  return at::stack(items, 1);
}

Outcome matRule(Ctx& c, const Value* a, int argc) {
  std::vector<at::Tensor> rows;
  int64_t cols = 0;
  for (int k = 0; k < argc; ++k) {
    at::Tensor r = matRow(c, k, a[k]);
    int64_t len = r.size(1);
    if (len == 0) throw DmciError(ErrorKind::Domain, "mat: row " + std::to_string(k + 1) + " is empty");
    if (k == 0) cols = len;
    if (len != cols)
      throw DmciError(ErrorKind::Type, "mat: row " + std::to_string(k + 1) + " has " + std::to_string(len) +
                                           " entries but row 1 has " + std::to_string(cols));
    rows.push_back(r);
  }
  return Outcome::of(c.tensor(2, at::stack(rows, 1)));
}

// A 0-based index below `limit`, per lane: the native checks, the first failing lane's message.
at::Tensor indexArg(Ctx& c, int idx, const Value& v, int64_t limit) {
  if (v.tag != Tag::Real && v.tag != Tag::Int) typeError(c, "ref", idx, v, "an integer index");
  std::vector<double> xs = v.i >= 0 ? c.host(c.num(v)) : std::vector<double>{v.num};
  for (size_t k = 0; k < xs.size(); ++k) {
    double x = xs[k];
    Value shown = Value::real(x);
    if (x != std::floor(x)) wrongType(c.rt, "ref", idx, shown, "an integer index");
    if (x < 0 || x >= static_cast<double>(limit))
      throw DmciError(ErrorKind::Domain,
                      "ref: index " + c.rt.show(shown) + " is out of range 0.." + std::to_string(limit - 1));
  }
  if (v.i < 0) return at::full({c.n}, static_cast<int64_t>(v.num), c.im.index);
  return c.num(v).detach().to(at::kLong);
}

Outcome refRule(Ctx& c, const Value* a, int argc) {
  TensorRec r = needTensor(c, "ref", 0, a[0], 0);
  if (argc - 1 != r.rank)
    throw DmciError(ErrorKind::Arity, "ref: a " + shapeName(r) + " takes " + std::to_string(r.rank) + " index" +
                                          (r.rank == 1 ? "" : "es") + ", got " + std::to_string(argc - 1));
  at::Tensor k = indexArg(c, 1, a[1], r.rows);
  if (r.rank == 2) k = k * r.cols + indexArg(c, 2, a[2], r.cols);
  at::Tensor flat = lanesOf(c, a[0]).reshape({c.n, r.rows * r.cols});
  return Outcome::of(c.real(flat.gather(1, k.unsqueeze(1)).squeeze(1)));
}

// --- algebra ---

Outcome dotRule(Ctx& c, const Value* a, int) {
  TensorRec ra = needTensor(c, "dot", 0, a[0], 1), rb = needTensor(c, "dot", 1, a[1], 1);
  if (ra.rows != rb.rows) shapeMismatch("dot", "lengths differ", ra, rb);
  return Outcome::of(c.real((c.ten(a[0]) * c.ten(a[1])).sum({1, 2})));
}

Outcome matvecRule(Ctx& c, const Value* a, int) {
  TensorRec rA = needTensor(c, "matvec", 0, a[0], 2), rx = needTensor(c, "matvec", 1, a[1], 1);
  if (rA.cols != rx.rows) shapeMismatch("matvec", "matrix columns differ from vector length", rA, rx);
  return Outcome::of(c.tensor(1, at::matmul(c.ten(a[0]), c.ten(a[1]))));
}

Outcome matmulRule(Ctx& c, const Value* a, int) {
  TensorRec rA = needTensor(c, "matmul", 0, a[0], 2), rB = needTensor(c, "matmul", 1, a[1], 2);
  if (rA.cols != rB.rows) shapeMismatch("matmul", "inner dimensions differ", rA, rB);
  return Outcome::of(c.tensor(2, at::matmul(c.ten(a[0]), c.ten(a[1]))));
}

Outcome transposeRule(Ctx& c, const Value* a, int) {
  TensorRec r = needTensor(c, "transpose", 0, a[0], 0);
  if (r.rank == 1) return Outcome::of(a[0]);
  return Outcome::of(c.tensor(2, c.ten(a[0]).transpose(1, 2)));
}

Outcome outerRule(Ctx& c, const Value* a, int) {
  needTensor(c, "outer", 0, a[0], 1);
  needTensor(c, "outer", 1, a[1], 1);
  return Outcome::of(c.tensor(2, at::matmul(c.ten(a[0]), c.ten(a[1]).transpose(1, 2))));
}

Outcome traceRule(Ctx& c, const Value* a, int) {
  needSquare(c, "trace", 0, a[0]);
  return Outcome::of(c.real(at::diagonal(c.ten(a[0]), 0, 1, 2).sum(1)));
}

Outcome normRule(Ctx& c, const Value* a, int) {
  needTensor(c, "norm", 0, a[0], 0);
  at::Tensor x = c.ten(a[0]);
  return Outcome::of(c.real(at::linalg_vector_norm(x.reshape({x.size(0), -1}), 2, at::IntArrayRef{1})));
}

Outcome vsumRule(Ctx& c, const Value* a, int) {
  needTensor(c, "vsum", 0, a[0], 0);
  return Outcome::of(c.real(c.ten(a[0]).sum({1, 2})));
}

Outcome scaleRule(Ctx& c, const Value* a, int) {
  needNumber(c, "scale", 0, a[0]);
  TensorRec r = needTensor(c, "scale", 1, a[1], 0);
  return Outcome::of(c.tensor(r.rank, c.numFor3d(a[0]) * c.ten(a[1])));
}

// --- factorisations: a lane whose matrix fails raises the native Domain error, showing that lane's matrix ---

[[noreturn]] void domainAt(Ctx& c, int64_t lane, const std::string& what, const Value& A) {
  throw DmciError(ErrorKind::Domain, what + c.rt.show(c.store.hydrate(c.rt, A, c.set, lane)));
}

Outcome detRule(Ctx& c, const Value* a, int) {
  needSquare(c, "det", 0, a[0]);
  return Outcome::of(c.real(at::linalg_det(c.ten(a[0]))));
}

Outcome logdetRule(Ctx& c, const Value* a, int) {
  needSquare(c, "logdet", 0, a[0]);
  at::Tensor A = c.ten(a[0]);
  auto [sign, logAbs] = at::linalg_slogdet(A);
  int64_t bad = c.firstWhere(at::logical_or(at::logical_not(at::gt(sign, 0)), at::isnan(logAbs)));
  if (bad >= 0) {
    double d = c.host(at::linalg_det(A.detach()).expand({c.n}))[static_cast<size_t>(bad)];
    std::vector<double> s = c.host(sign);
    throw DmciError(ErrorKind::Domain, "logdet: the determinant must be positive, got " +
                                           formatNumber(s[static_cast<size_t>(bad)] == 0.0 ? 0.0 : d));
  }
  return Outcome::of(c.real(logAbs));
}

// Lanes whose factorisation failed (info != 0) or gave a non-finite result.
int64_t singularLane(Ctx& c, const at::Tensor& info, const at::Tensor& result) {
  at::Tensor finite = at::isfinite(result.detach()).reshape({result.size(0), -1}).all(1);
  return c.firstWhere(at::logical_or(at::ne(info, 0).expand({c.n}), at::logical_not(finite).expand({c.n})));
}

// The same, and lanes whose matrix A ([b, n, n]) is singular to working precision: its smallest singular
// value is at most n·ε times its largest, as the native engine decides (prims/TensorLinalg.cpp).
int64_t singularLane(Ctx& c, const at::Tensor& A, const at::Tensor& info, const at::Tensor& result) {
  const int64_t n = A.size(-1);
  const double eps =
      A.scalar_type() == at::kFloat ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  at::Tensor sv = at::linalg_svdvals(A.detach());  // descending
  at::Tensor rankDeficient =
      at::logical_not(at::gt(sv.select(-1, n - 1), sv.select(-1, 0) * (static_cast<double>(n) * eps)));
  at::Tensor finite = at::isfinite(result.detach()).reshape({result.size(0), -1}).all(1);
  at::Tensor bad = at::logical_or(at::ne(info, 0), at::logical_not(finite));
  return c.firstWhere(at::logical_or(bad, rankDeficient).expand({c.n}));
}

Outcome invRule(Ctx& c, const Value* a, int) {
  needSquare(c, "inv", 0, a[0]);
  at::Tensor A = c.ten(a[0]);
  auto [Y, info] = at::linalg_inv_ex(A);
  int64_t bad = singularLane(c, A, info, Y);
  if (bad >= 0) domainAt(c, bad, "inv: the matrix is singular: ", a[0]);
  return Outcome::of(c.tensor(2, Y));
}

Outcome solveRule(Ctx& c, const Value* a, int) {
  TensorRec rA = needSquare(c, "solve", 0, a[0]);
  TensorRec rb = needTensor(c, "solve", 1, a[1], 0);
  if (rb.rows != rA.rows) shapeMismatch("solve", "matrix rows differ from right-hand side rows", rA, rb);
  at::Tensor A = c.ten(a[0]), B = c.ten(a[1]);
  if (A.size(0) != B.size(0)) A = lanesOf(c, a[0]), B = lanesOf(c, a[1]);
  auto [X, info] = at::linalg_solve_ex(A, B);
  int64_t bad = singularLane(c, A, info, X);
  if (bad >= 0) domainAt(c, bad, "solve: the matrix is singular: ", a[0]);
  return Outcome::of(c.tensor(rb.rank, X));
}

Outcome choleskyRule(Ctx& c, const Value* a, int) {
  needSquare(c, "cholesky", 0, a[0]);
  at::Tensor A = c.ten(a[0]);
  auto [L, info] = at::linalg_cholesky_ex(0.5 * (A + A.transpose(1, 2)));
  int64_t bad = singularLane(c, info, L);
  if (bad >= 0) domainAt(c, bad, "cholesky: the matrix is not positive definite: ", a[0]);
  return Outcome::of(c.tensor(2, L));
}

}  // namespace

std::vector<KernelRule> tensorRules() {
  using K = LaneKernel;
  return {{K::Vec, vecRule},
          {K::Mat, matRule},
          {K::Ref, refRule},
          {K::Dot, dotRule},
          {K::Matvec, matvecRule},
          {K::Matmul, matmulRule},
          {K::Transpose, transposeRule},
          {K::Outer, outerRule},
          {K::Trace, traceRule},
          {K::Norm, normRule},
          {K::Vsum, vsumRule},
          {K::Scale, scaleRule},
          {K::Det, detRule},
          {K::Logdet, logdetRule},
          {K::Inv, invRule},
          {K::Solve, solveRule},
          {K::Cholesky, choleskyRule}};
}

}  // namespace dmci::lanes
