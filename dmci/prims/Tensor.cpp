// The tensor primitives: construction, indexing, elementwise arithmetic and the
// basic algebra, each forward rule beside its exact reverse-mode rule.
#include <cmath>
#include <string>

#include "prims/TensorRules.h"

namespace dmci {
namespace tensorops {

std::string shapeName(const TensorRec& r) {
  if (r.rank == 1) return "vector of length " + std::to_string(r.rows);
  return std::to_string(r.rows) + "x" + std::to_string(r.cols) + " matrix";
}

TensorRec needTensor(Runtime& rt, const char* prim, int idx, const Value& v, int rank) {
  const char* want = rank == 1 ? "a vector" : rank == 2 ? "a matrix" : "a tensor";
  if (v.tag != Tag::Tensor) wrongType(rt, prim, idx, v, want);
  TensorRec r = rt.tensors[v.i];
  if (rank != 0 && r.rank != rank) wrongType(rt, prim, idx, v, want);
  return r;
}

TensorRec needSquare(Runtime& rt, const char* prim, int idx, const Value& v) {
  TensorRec r = needTensor(rt, prim, idx, v, 2);
  if (r.rows != r.cols)
    throw DmciError(ErrorKind::Type, std::string(prim) + ": argument " + std::to_string(idx + 1) +
                                         " must be a square matrix, got a " + shapeName(r));
  return r;
}

double needNumber(Runtime& rt, const char* prim, int idx, const Value& v) {
  if (!isNum(v)) wrongType(rt, prim, idx, v, "a number");
  return v.num;
}

void shapeMismatch(const char* prim, const char* what, const TensorRec& a, const TensorRec& b) {
  throw DmciError(ErrorKind::Type, std::string(prim) + ": " + what + ": " + shapeName(a) + " and " + shapeName(b));
}

Value makeTensor(Runtime& rt, int32_t rank, const Mat& m) {
  Value out = rt.newTensor(rank, static_cast<int32_t>(m.rows()), static_cast<int32_t>(m.cols()));
  std::copy(m.data(), m.data() + m.size(), rt.tdata(out));
  return out;
}

}  // namespace tensorops

using namespace tensorops;

namespace {

// --- construction ---

// A tensor of the given values whose element k is linked to tape slot src[k]
// (-1: constant) by a scalar tape entry, so any number of inputs can feed it.
Value fromElements(Runtime& rt, int32_t rank, int32_t rows, int32_t cols, const std::vector<double>& vals,
                   const std::vector<int32_t>& src) {
  Value out = rt.newTensor(rank, rows, cols);
  std::copy(vals.begin(), vals.end(), rt.tdata(out));
  bool active = false;
  for (int32_t s : src) active = active || s >= 0;
  if (!active || !rt.taping) return out;
  int32_t slot = rt.newSlots(static_cast<int32_t>(vals.size()));
  rt.tensors[out.i].slot = slot;
  for (size_t k = 0; k < src.size(); ++k)
    if (src[k] >= 0) rt.pushTape({slot + static_cast<int32_t>(k), src[k], -1, -1, 1.0, 0.0});
  return out;
}

Value vecPrim(Runtime& rt, const Value* a, int n) {
  std::vector<double> vals(static_cast<size_t>(n));
  std::vector<int32_t> src(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    vals[k] = needNumber(rt, "vec", k, a[k]);
    src[k] = slotOf(rt, a[k]);
  }
  return fromElements(rt, 1, n, 1, vals, src);
}

// Appends one row of `mat` (a proper list of numbers or a vector) to vals/src; returns its length.
int32_t matRow(Runtime& rt, int idx, const Value& row, std::vector<double>& vals, std::vector<int32_t>& src) {
  const char* want = "a proper list of numbers or a vector";
  if (row.tag == Tag::Tensor) {
    TensorRec r = needTensor(rt, "mat", idx, row, 1);
    const double* d = rt.tdata(row);
    for (int32_t j = 0; j < r.rows; ++j) {
      vals.push_back(d[j]);
      src.push_back(r.slot >= 0 ? r.slot + j : -1);
    }
    return r.rows;
  }
  int32_t len = 0;
  Value p = row;
  for (; p.tag == Tag::Pair; p = rt.cdr(p), ++len) {
    const Value& x = rt.car(p);
    if (!isNum(x)) wrongType(rt, "mat", idx, row, want);
    vals.push_back(x.num);
    src.push_back(slotOf(rt, x));
  }
  if (p.tag != Tag::Nil) wrongType(rt, "mat", idx, row, want);
  return len;
}

Value matPrim(Runtime& rt, const Value* a, int n) {
  std::vector<double> vals;
  std::vector<int32_t> src;
  int32_t cols = 0;
  for (int k = 0; k < n; ++k) {
    int32_t len = matRow(rt, k, a[k], vals, src);
    if (len == 0) throw DmciError(ErrorKind::Domain, "mat: row " + std::to_string(k + 1) + " is empty");
    if (k == 0) cols = len;
    if (len != cols)
      throw DmciError(ErrorKind::Type, "mat: row " + std::to_string(k + 1) + " has " + std::to_string(len) +
                                           " entries but row 1 has " + std::to_string(cols));
  }
  return fromElements(rt, 2, n, cols, vals, src);
}

// A dimension argument: a positive integer (Type error when not integral, Domain when < 1).
int32_t sizeArg(Runtime& rt, const char* prim, int idx, const Value& v) {
  double x = needNumber(rt, prim, idx, v);
  if (x != std::floor(x)) wrongType(rt, prim, idx, v, "an integer size");
  if (x < 1 || x > 1e8)
    throw DmciError(ErrorKind::Domain, std::string(prim) + ": size " + rt.show(v) + " is not in 1..100000000");
  return static_cast<int32_t>(x);
}

Value filled(Runtime& rt, const char* prim, const Value* a, int n, double fill) {
  int32_t rows = sizeArg(rt, prim, 0, a[0]);
  int32_t cols = n == 2 ? sizeArg(rt, prim, 1, a[1]) : 1;
  if (static_cast<double>(rows) * cols > 2e9)
    throw DmciError(ErrorKind::Domain,
                    std::string(prim) + ": " + std::to_string(rows) + "x" + std::to_string(cols) + " is too large");
  Value out = rt.newTensor(n == 2 ? 2 : 1, rows, cols);
  std::fill(rt.tdata(out), rt.tdata(out) + rt.tensor(out).size(), fill);
  return out;
}

Value zerosPrim(Runtime& rt, const Value* a, int n) { return filled(rt, "zeros", a, n, 0.0); }
Value onesPrim(Runtime& rt, const Value* a, int n) { return filled(rt, "ones", a, n, 1.0); }

Value eyePrim(Runtime& rt, const Value* a, int) {
  int32_t n = sizeArg(rt, "eye", 0, a[0]);
  if (static_cast<double>(n) * n > 2e9)
    throw DmciError(ErrorKind::Domain, "eye: size " + std::to_string(n) + " is too large");
  Value out = rt.newTensor(2, n, n);
  for (int32_t k = 0; k < n; ++k) rt.tdata(out)[k * n + k] = 1.0;
  return out;
}

// (shape t): the sizes of t, (n) or (rows cols), from its shape alone: a non-finite entry does not matter.
Value shapePrim(Runtime& rt, const Value* a, int) {
  TensorRec r = needTensor(rt, "shape", 0, a[0], 0);
  Value sizes = r.rank == 2 ? rt.cons(Value::real(r.cols), Value::nil()) : Value::nil();
  return rt.cons(Value::real(r.rows), sizes);
}

// A 0-based index below `limit` (Type error when not integral, Domain when out of range).
int32_t indexArg(Runtime& rt, int idx, const Value& v, int32_t limit) {
  if (!isNum(v)) wrongType(rt, "ref", idx, v, "an integer index");
  if (v.num != std::floor(v.num)) wrongType(rt, "ref", idx, v, "an integer index");
  if (v.num < 0 || v.num >= limit)
    throw DmciError(ErrorKind::Domain, "ref: index " + rt.show(v) + " is out of range 0.." + std::to_string(limit - 1));
  return static_cast<int32_t>(v.num);
}

Value refPrim(Runtime& rt, const Value* a, int n) {
  TensorRec r = needTensor(rt, "ref", 0, a[0], 0);
  if (n - 1 != r.rank)
    throw DmciError(ErrorKind::Arity, "ref: a " + shapeName(r) + " takes " + std::to_string(r.rank) + " index" +
                                          (r.rank == 1 ? "" : "es") + ", got " + std::to_string(n - 1));
  int32_t k = indexArg(rt, 1, a[1], r.rows);
  if (r.rank == 2) k = k * r.cols + indexArg(rt, 2, a[2], r.cols);
  double x = rt.tdata(a[0])[k];
  if (r.slot < 0) return Value::real(x);
  return rt.unary(x, Value::real(x, r.slot + k), 1.0);
}

// --- elementwise + - * / with scalar broadcasting ---

int elementwiseId(char op) {
  static const int ids[4] = {primId("%tensor+"), primId("%tensor-"), primId("%tensor*"), primId("%tensor/")};
  switch (op) {
    case '+':
      return ids[0];
    case '-':
      return ids[1];
    case '*':
      return ids[2];
    case '/':
      return ids[3];
  }
  throw DmciError(ErrorKind::Type, std::string("tensor arithmetic: unknown operator ") + op);
}

double apply(char op, double x, double y) {
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    default:
      return x / y;
  }
}

// Partials of x op y: returns d/dx, sets dy.
double partials(char op, double x, double y, double& dy) {
  switch (op) {
    case '+':
      dy = 1.0;
      return 1.0;
    case '-':
      dy = -1.0;
      return 1.0;
    case '*':
      dy = x;
      return y;
    default:
      dy = -x / (y * y);
      return 1.0 / y;
  }
}

template <char Op>
Value elementwisePrim(Runtime& rt, const Value* a, int) {
  return tensorElementwise(rt, Op, a[0], a[1]);
}

template <char Op>
void elementwiseAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  const Value& a = op.in[0];
  const Value& b = op.in[1];
  const TensorRec& out = rt.tensors[op.out.i];
  int32_t sa = slotOf(rt, a), sb = slotOf(rt, b);
  const double* pa = isTensor(a) ? rt.tdata(a) : nullptr;
  const double* pb = isTensor(b) ? rt.tdata(b) : nullptr;
  for (int32_t k = 0; k < out.size(); ++k) {
    double g = adj[out.slot + k];
    if (g == 0.0) continue;
    double x = pa ? pa[k] : a.num, y = pb ? pb[k] : b.num, dy = 0.0;
    double dx = partials(Op, x, y, dy);
    if (sa >= 0) adj[pa ? sa + k : sa] += g * dx;
    if (sb >= 0) adj[pb ? sb + k : sb] += g * dy;
  }
}

// --- algebra ---

Value dotPrim(Runtime& rt, const Value* a, int) {
  TensorRec ra = needTensor(rt, "dot", 0, a[0], 1), rb = needTensor(rt, "dot", 1, a[1], 1);
  if (ra.rows != rb.rows) shapeMismatch("dot", "lengths differ", ra, rb);
  double s = view(rt, a[0]).cwiseProduct(view(rt, a[1])).sum();
  static const int id = primId("dot");
  return record(rt, id, {a[0], a[1]}, Value::real(s));
}

void dotAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  double g = adj[op.out.i];
  addAdjoint(rt, op.in[0], g * view(rt, op.in[1]), adj);
  addAdjoint(rt, op.in[1], g * view(rt, op.in[0]), adj);
}

Value matvecPrim(Runtime& rt, const Value* a, int) {
  TensorRec rA = needTensor(rt, "matvec", 0, a[0], 2), rx = needTensor(rt, "matvec", 1, a[1], 1);
  if (rA.cols != rx.rows) shapeMismatch("matvec", "matrix columns differ from vector length", rA, rx);
  Mat y = view(rt, a[0]) * view(rt, a[1]);
  static const int id = primId("matvec");
  return record(rt, id, {a[0], a[1]}, makeTensor(rt, 1, y));
}

void matvecAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  Mat g = outAdjoint(rt, op, adj);
  if (isActive(rt, op.in[0])) addAdjoint(rt, op.in[0], g * view(rt, op.in[1]).transpose(), adj);
  if (isActive(rt, op.in[1])) addAdjoint(rt, op.in[1], view(rt, op.in[0]).transpose() * g, adj);
}

Value matmulPrim(Runtime& rt, const Value* a, int) {
  TensorRec rA = needTensor(rt, "matmul", 0, a[0], 2), rB = needTensor(rt, "matmul", 1, a[1], 2);
  if (rA.cols != rB.rows) shapeMismatch("matmul", "inner dimensions differ", rA, rB);
  Mat y = view(rt, a[0]) * view(rt, a[1]);
  static const int id = primId("matmul");
  return record(rt, id, {a[0], a[1]}, makeTensor(rt, 2, y));
}

void matmulAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  Mat g = outAdjoint(rt, op, adj);
  if (isActive(rt, op.in[0])) addAdjoint(rt, op.in[0], g * view(rt, op.in[1]).transpose(), adj);
  if (isActive(rt, op.in[1])) addAdjoint(rt, op.in[1], view(rt, op.in[0]).transpose() * g, adj);
}

// A vector is returned unchanged (as in NumPy): the only transpose a rank-1 tensor has.
Value transposePrim(Runtime& rt, const Value* a, int) {
  TensorRec r = needTensor(rt, "transpose", 0, a[0], 0);
  if (r.rank == 1) return a[0];
  Mat y = view(rt, a[0]).transpose();
  static const int id = primId("transpose");
  return record(rt, id, {a[0]}, makeTensor(rt, 2, y));
}

void transposeAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  addAdjoint(rt, op.in[0], outAdjoint(rt, op, adj).transpose(), adj);
}

Value outerPrim(Runtime& rt, const Value* a, int) {
  needTensor(rt, "outer", 0, a[0], 1);
  needTensor(rt, "outer", 1, a[1], 1);
  Mat y = view(rt, a[0]) * view(rt, a[1]).transpose();
  static const int id = primId("outer");
  return record(rt, id, {a[0], a[1]}, makeTensor(rt, 2, y));
}

void outerAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  Mat g = outAdjoint(rt, op, adj);
  if (isActive(rt, op.in[0])) addAdjoint(rt, op.in[0], g * view(rt, op.in[1]), adj);
  if (isActive(rt, op.in[1])) addAdjoint(rt, op.in[1], g.transpose() * view(rt, op.in[0]), adj);
}

Value tracePrim(Runtime& rt, const Value* a, int) {
  needSquare(rt, "trace", 0, a[0]);
  static const int id = primId("trace");
  return record(rt, id, {a[0]}, Value::real(view(rt, a[0]).trace()));
}

void traceAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  const TensorRec& r = rt.tensors[op.in[0].i];
  addAdjoint(rt, op.in[0], adj[op.out.i] * Mat::Identity(r.rows, r.cols), adj);
}

// Euclidean norm of a vector, Frobenius norm of a matrix.
Value normPrim(Runtime& rt, const Value* a, int) {
  needTensor(rt, "norm", 0, a[0], 0);
  static const int id = primId("norm");
  return record(rt, id, {a[0]}, Value::real(view(rt, a[0]).norm()));
}

void normAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  double y = op.out.num;
  if (y == 0.0) return;  // not differentiable at 0: the subgradient 0
  addAdjoint(rt, op.in[0], (adj[op.out.i] / y) * view(rt, op.in[0]), adj);
}

Value vsumPrim(Runtime& rt, const Value* a, int) {
  needTensor(rt, "vsum", 0, a[0], 0);
  static const int id = primId("vsum");
  return record(rt, id, {a[0]}, Value::real(view(rt, a[0]).sum()));
}

void vsumAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  const TensorRec& r = rt.tensors[op.in[0].i];
  addAdjoint(rt, op.in[0], Mat::Constant(r.rows, r.cols, adj[op.out.i]), adj);
}

Value scalePrim(Runtime& rt, const Value* a, int) {
  double s = needNumber(rt, "scale", 0, a[0]);
  TensorRec r = needTensor(rt, "scale", 1, a[1], 0);
  Mat y = s * view(rt, a[1]);
  static const int id = primId("scale");
  return record(rt, id, {a[0], a[1]}, makeTensor(rt, r.rank, y));
}

void scaleAdjoint(Runtime& rt, const TensorOp& op, std::vector<double>& adj) {
  Mat g = outAdjoint(rt, op, adj);
  if (isActive(rt, op.in[0]))
    addAdjoint(rt, op.in[0], Mat::Constant(1, 1, g.cwiseProduct(view(rt, op.in[1])).sum()), adj);
  if (isActive(rt, op.in[1])) addAdjoint(rt, op.in[1], op.in[0].num * g, adj);
}

}  // namespace

Value tensorElementwise(Runtime& rt, char op, const Value& a, const Value& b) {
  int id = elementwiseId(op);
  const char name[2] = {op, '\0'};
  bool at = isTensor(a), bt = isTensor(b);
  if (!at && !isNum(a)) wrongType(rt, name, 0, a, "a number or a tensor");
  if (!bt && !isNum(b)) wrongType(rt, name, 1, b, "a number or a tensor");
  if (!at && !bt) {  // two numbers: an ordinary scalar op
    double dy = 0.0, dx = partials(op, a.num, b.num, dy);
    return rt.binary(apply(op, a.num, b.num), a, dx, b, dy);
  }
  TensorRec shape = at ? rt.tensors[a.i] : rt.tensors[b.i];
  if (at && bt) {
    const TensorRec &ra = rt.tensors[a.i], &rb = rt.tensors[b.i];
    if (ra.rank != rb.rank || ra.rows != rb.rows || ra.cols != rb.cols) shapeMismatch(name, "shapes differ", ra, rb);
  }
  Value out = rt.newTensor(shape.rank, shape.rows, shape.cols);
  double* y = rt.tdata(out);
  const double* pa = at ? rt.tdata(a) : nullptr;
  const double* pb = bt ? rt.tdata(b) : nullptr;
  for (int32_t k = 0; k < shape.size(); ++k) y[k] = apply(op, pa ? pa[k] : a.num, pb ? pb[k] : b.num);
  return record(rt, id, {a, b}, out);
}

void addTensorPrims(std::vector<Primitive>& t) {
  const auto T = PrimFamily::Tensor;
  using R = LaneReads;
  using K = LaneKernel;
  t.push_back({"vec", 1, -1, vecPrim, nullptr, nullptr, T, "(vec x ...) the vector of the numbers x ...", "dx_k = dY_k",
               laneUse(R::Arguments, K::Vec)});
  t.push_back({"mat", 1, -1, matPrim, nullptr, nullptr, T,
               "(mat row ...) the matrix whose rows are lists of numbers or vectors, all of one length",
               "d(row_i[j]) = dY_ij", laneUse(R::Lists, K::Mat)});
  t.push_back({"zeros", 1, 2, zerosPrim, nullptr, nullptr, T, "(zeros n) / (zeros r c) a vector / matrix of zeros", "",
               laneUse(R::Arguments)});
  t.push_back({"ones", 1, 2, onesPrim, nullptr, nullptr, T, "(ones n) / (ones r c) a vector / matrix of ones", "",
               laneUse(R::Arguments)});
  t.push_back(
      {"eye", 1, 1, eyePrim, nullptr, nullptr, T, "(eye n) the n x n identity matrix", "", laneUse(R::Arguments)});
  t.push_back({"shape", 1, 1, shapePrim, nullptr, nullptr, T,
               "(shape t) the list of t's sizes: (n) for a vector, (r c) for a matrix, whatever its entries", "",
               laneUse(R::Arguments)});
  t.push_back({"ref", 2, 3, refPrim, nullptr, nullptr, T,
               "(ref v i) / (ref m i j) the entry at 0-based index i (row i, column j)", "dt[i] = dy, other entries 0",
               laneUse(R::Arguments, K::Ref)});
  t.push_back({"dot", 2, 2, dotPrim, dotAdjoint, nullptr, T, "(dot a b) the inner product of two vectors of one length",
               "da = dy·b, db = dy·a", laneUse(R::Arguments, K::Dot)});
  t.push_back({"matvec", 2, 2, matvecPrim, matvecAdjoint, nullptr, T, "(matvec A x) the matrix-vector product A·x",
               "dA = dy·xᵀ, dx = Aᵀ·dy", laneUse(R::Arguments, K::Matvec)});
  t.push_back({"matmul", 2, 2, matmulPrim, matmulAdjoint, nullptr, T, "(matmul A B) the matrix product A·B",
               "dA = dY·Bᵀ, dB = Aᵀ·dY", laneUse(R::Arguments, K::Matmul)});
  t.push_back({"transpose", 1, 1, transposePrim, transposeAdjoint, nullptr, T,
               "(transpose A) Aᵀ; a vector is returned unchanged", "dA = dYᵀ (a vector: dv = dy)",
               laneUse(R::Arguments, K::Transpose)});
  t.push_back({"outer", 2, 2, outerPrim, outerAdjoint, nullptr, T, "(outer a b) the matrix a·bᵀ of two vectors",
               "da = dY·b, db = dYᵀ·a", laneUse(R::Arguments, K::Outer)});
  t.push_back({"trace", 1, 1, tracePrim, traceAdjoint, nullptr, T,
               "(trace A) the sum of the diagonal of a square matrix", "dA = dy·I", laneUse(R::Arguments, K::Trace)});
  t.push_back({"norm", 1, 1, normPrim, normAdjoint, nullptr, T,
               "(norm t) the Euclidean norm of a vector, the Frobenius norm of a matrix", "dt = dy·t/‖t‖ (0 at t = 0)",
               laneUse(R::Arguments, K::Norm)});
  t.push_back({"vsum", 1, 1, vsumPrim, vsumAdjoint, nullptr, T, "(vsum t) the sum of all entries of a tensor",
               "dt = dy in every entry", laneUse(R::Arguments, K::Vsum)});
  t.push_back({"scale", 2, 2, scalePrim, scaleAdjoint, nullptr, T, "(scale s t) the tensor t times the number s",
               "ds = Σ dY∘t, dt = s·dY", laneUse(R::Arguments, K::Scale)});
  addTensorLinalgPrims(t);
  const auto I = PrimFamily::Internal;
  t.push_back({"%tensor+", 2, 2, elementwisePrim<'+'>, elementwiseAdjoint<'+'>, nullptr, I,
               "elementwise a + b of tensors of one shape, or a tensor and a broadcast number",
               "da = dY, db = dY (summed over a broadcast number)", laneUse(R::Arguments)});
  t.push_back({"%tensor-", 2, 2, elementwisePrim<'-'>, elementwiseAdjoint<'-'>, nullptr, I,
               "elementwise a - b of tensors of one shape, or a tensor and a broadcast number",
               "da = dY, db = -dY (summed over a broadcast number)", laneUse(R::Arguments)});
  t.push_back({"%tensor*", 2, 2, elementwisePrim<'*'>, elementwiseAdjoint<'*'>, nullptr, I,
               "elementwise a * b of tensors of one shape, or a tensor and a broadcast number",
               "da = dY∘b, db = dY∘a (summed over a broadcast number)", laneUse(R::Arguments)});
  t.push_back({"%tensor/", 2, 2, elementwisePrim<'/'>, elementwiseAdjoint<'/'>, nullptr, I,
               "elementwise a / b of tensors of one shape, or a tensor and a broadcast number (x/0 is ±inf)",
               "da = dY/b, db = -dY∘a/b² (summed over a broadcast number)", laneUse(R::Arguments)});
}

}  // namespace dmci
