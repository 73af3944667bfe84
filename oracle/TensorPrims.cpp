// The tensor primitives in the oracle's number type: construction, indexing,
// elementwise arithmetic, the basic algebra and dense linear algebra (LU with
// partial pivoting, Cholesky). Sizes and indices are discrete arguments.
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "oracle/Interpreter.h"
#include "oracle/Oracle.h"

namespace dmci::oracle {
namespace {

template <class Num>
using V = Value<Num>;

template <class Num>
std::string shapeName(const Tensor<Num>& t) {
  if (t.rank == 1) return "vector of length " + std::to_string(t.rows);
  return std::to_string(t.rows) + "x" + std::to_string(t.cols) + " matrix";
}

// Argument k as a tensor of the given rank (0: either), or a Type error.
template <class Num>
const Tensor<Num>& needTensor(const PrimCall<Num>& c, int k, int rank) {
  const char* want = rank == 1 ? "a vector" : rank == 2 ? "a matrix" : "a tensor";
  if (c[k].kind != Kind::Tensor || (rank != 0 && c[k].tensor().rank != rank)) c.wrongType(k, want);
  return c[k].tensor();
}

template <class Num>
const Tensor<Num>& needSquare(const PrimCall<Num>& c, int k) {
  const Tensor<Num>& t = needTensor(c, k, 2);
  if (t.rows != t.cols)
    throw DmciError(
        ErrorKind::Type,
        std::string(c.name) + ": argument " + std::to_string(k + 1) + " must be a square matrix, got a " + shapeName(t),
        c.site->pos);
  return t;
}

template <class Num>
[[noreturn]] void shapeMismatch(const PrimCall<Num>& c, const char* what, const Tensor<Num>& a, const Tensor<Num>& b) {
  throw DmciError(ErrorKind::Type, std::string(c.name) + ": " + what + ": " + shapeName(a) + " and " + shapeName(b),
                  c.site->pos);
}

template <class Num>
Tensor<Num>& newTensor(const PrimCall<Num>& c, int rank, int rows, int cols) {
  return c.heap().tensor(rank, rows, cols);
}

// --- construction ---

template <class Num>
V<Num> vecPrim(const PrimCall<Num>& c) {
  Tensor<Num>& t = newTensor(c, 1, c.argc(), 1);
  for (int k = 0; k < c.argc(); ++k) t.data[k] = c.number(k);
  return Heap<Num>::value(t);
}

// The entries of one row of `mat`: a proper list of numbers, or a vector.
template <class Num>
std::vector<Num> matRow(const PrimCall<Num>& c, int k) {
  const char* want = "a proper list of numbers or a vector";
  if (c[k].kind == Kind::Tensor) return needTensor(c, k, 1).data;
  std::vector<Num> row;
  V<Num> p = c[k];
  for (; p.kind == Kind::Pair; p = p.pair().cdr) {
    if (!p.pair().car.isNumber()) c.wrongType(k, want);
    row.push_back(p.pair().car.num);
  }
  if (p.kind != Kind::Nil) c.wrongType(k, want);
  return row;
}

template <class Num>
V<Num> matPrim(const PrimCall<Num>& c) {
  std::vector<std::vector<Num>> rows;
  for (int k = 0; k < c.argc(); ++k) {
    rows.push_back(matRow(c, k));
    std::string row = "mat: row " + std::to_string(k + 1);
    if (rows[k].empty()) throw DmciError(ErrorKind::Domain, row + " is empty", c.site->pos);
    if (rows[k].size() != rows[0].size())
      throw DmciError(
          ErrorKind::Type,
          row + " has " + std::to_string(rows[k].size()) + " entries but row 1 has " + std::to_string(rows[0].size()),
          c.site->pos);
  }
  int cols = static_cast<int>(rows[0].size());
  Tensor<Num>& t = newTensor(c, 2, c.argc(), cols);
  for (int i = 0; i < c.argc(); ++i)
    for (int j = 0; j < cols; ++j) t.at(i, j) = rows[i][j];
  return Heap<Num>::value(t);
}

// A dimension argument: a positive integer (Type error when not integral, Domain when < 1).
template <class Num>
int sizeArg(const PrimCall<Num>& c, int k) {
  const Num& x = c.number(k);
  bool integral = isInteger(x), inRange = integral && x >= 1 && x <= 1e8;
  if (c.in.recording() && !integral) c.wrongType(k, "an integer size");
  if (c.in.recording() && !inRange)
    throw DmciError(ErrorKind::Domain, std::string(c.name) + ": size " + show(c[k]) + " is not in 1..100000000",
                    c.site->pos);
  std::optional<Num> natural;
  if (inRange) natural = x;
  return static_cast<int>(c.decide(DecisionKind::Discrete, natural, Closeness<Num>::between(x, x), x));
}

template <class Num>
Tensor<Num>& sized(const PrimCall<Num>& c) {
  int rows = sizeArg(c, 0);
  int cols = c.argc() == 2 ? sizeArg(c, 1) : 1;
  if (static_cast<double>(rows) * cols > 2e9)
    throw DmciError(ErrorKind::Domain,
                    std::string(c.name) + ": " + std::to_string(rows) + "x" + std::to_string(cols) + " is too large",
                    c.site->pos);
  return newTensor(c, c.argc() == 2 ? 2 : 1, rows, cols);
}

template <class Num, int Fill>
V<Num> filled(const PrimCall<Num>& c) {
  Tensor<Num>& t = sized(c);
  for (Num& x : t.data) x = Fill;
  return Heap<Num>::value(t);
}

// (shape t): the list (n) or (rows cols), whatever t's entries.
template <class Num>
V<Num> shapePrim(const PrimCall<Num>& c) {
  const Tensor<Num>& t = needTensor(c, 0, 0);
  V<Num> sizes = V<Num>::nil();
  if (t.rank == 2) sizes = c.heap().cons(V<Num>::number(Num(static_cast<double>(t.cols))), sizes);
  return c.heap().cons(V<Num>::number(Num(static_cast<double>(t.rows))), sizes);
}

template <class Num>
V<Num> eyePrim(const PrimCall<Num>& c) {
  int n = sizeArg(c, 0);
  if (static_cast<double>(n) * n > 2e9)
    throw DmciError(ErrorKind::Domain, "eye: size " + std::to_string(n) + " is too large", c.site->pos);
  Tensor<Num>& t = newTensor(c, 2, n, n);
  for (int k = 0; k < n; ++k) t.at(k, k) = 1;
  return Heap<Num>::value(t);
}

// A 0-based index below `limit`, a discrete argument.
template <class Num>
int indexArg(const PrimCall<Num>& c, int k, int limit) {
  bool integral = c[k].isNumber() && isInteger(c[k].num);
  bool inRange = integral && c[k].num >= 0 && c[k].num < limit;
  if (c.in.recording() && !integral) c.wrongType(k, "an integer index");
  if (c.in.recording() && !inRange)
    throw DmciError(ErrorKind::Domain, "ref: index " + show(c[k]) + " is out of range 0.." + std::to_string(limit - 1),
                    c.site->pos);
  std::optional<Num> natural;
  if (inRange) natural = c[k].num;
  Num x = c[k].isNumber() ? c[k].num : Num(0);
  return static_cast<int>(c.decide(DecisionKind::Discrete, natural, Closeness<Num>::between(x, x), x));
}

template <class Num>
V<Num> refPrim(const PrimCall<Num>& c) {
  const Tensor<Num>& t = needTensor(c, 0, 0);
  if (c.argc() - 1 != t.rank)
    throw DmciError(ErrorKind::Arity,
                    "ref: a " + shapeName(t) + " takes " + std::to_string(t.rank) + " index" +
                        (t.rank == 1 ? "" : "es") + ", got " + std::to_string(c.argc() - 1),
                    c.site->pos);
  int i = indexArg(c, 1, t.rows);
  int j = t.rank == 2 ? indexArg(c, 2, t.cols) : 0;
  return V<Num>::number(t.at(i, j));
}

// --- algebra ---

template <class Num>
V<Num> dotPrim(const PrimCall<Num>& c) {
  const Tensor<Num>&a = needTensor(c, 0, 1), &b = needTensor(c, 1, 1);
  if (a.rows != b.rows) shapeMismatch(c, "lengths differ", a, b);
  Num s = 0;
  for (int k = 0; k < a.rows; ++k) s += a.data[k] * b.data[k];
  return V<Num>::number(s);
}

// A·B for matrices, or A·x with x a vector (then the result is a vector).
template <class Num>
V<Num> product(const PrimCall<Num>& c, const Tensor<Num>& a, const Tensor<Num>& b, int rank) {
  Tensor<Num>& y = newTensor(c, rank, a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < b.cols; ++j) {
      Num s = 0;
      for (int k = 0; k < a.cols; ++k) s += a.at(i, k) * b.at(k, j);
      y.at(i, j) = s;
    }
  return Heap<Num>::value(y);
}

template <class Num>
V<Num> matvecPrim(const PrimCall<Num>& c) {
  const Tensor<Num>&a = needTensor(c, 0, 2), &x = needTensor(c, 1, 1);
  if (a.cols != x.rows) shapeMismatch(c, "matrix columns differ from vector length", a, x);
  return product(c, a, x, 1);
}

template <class Num>
V<Num> matmulPrim(const PrimCall<Num>& c) {
  const Tensor<Num>&a = needTensor(c, 0, 2), &b = needTensor(c, 1, 2);
  if (a.cols != b.rows) shapeMismatch(c, "inner dimensions differ", a, b);
  return product(c, a, b, 2);
}

// A vector is returned unchanged.
template <class Num>
V<Num> transposePrim(const PrimCall<Num>& c) {
  const Tensor<Num>& a = needTensor(c, 0, 0);
  if (a.rank == 1) return c[0];
  Tensor<Num>& y = newTensor(c, 2, a.cols, a.rows);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) y.at(j, i) = a.at(i, j);
  return Heap<Num>::value(y);
}

template <class Num>
V<Num> outerPrim(const PrimCall<Num>& c) {
  const Tensor<Num>&a = needTensor(c, 0, 1), &b = needTensor(c, 1, 1);
  Tensor<Num>& y = newTensor(c, 2, a.rows, b.rows);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < b.rows; ++j) y.at(i, j) = a.data[i] * b.data[j];
  return Heap<Num>::value(y);
}

template <class Num>
V<Num> tracePrim(const PrimCall<Num>& c) {
  const Tensor<Num>& a = needSquare(c, 0);
  Num s = 0;
  for (int k = 0; k < a.rows; ++k) s += a.at(k, k);
  return V<Num>::number(s);
}

// Euclidean norm of a vector, Frobenius norm of a matrix.
template <class Num>
V<Num> normPrim(const PrimCall<Num>& c) {
  using std::sqrt;
  Num s = 0;
  for (const Num& x : needTensor(c, 0, 0).data) s += x * x;
  return V<Num>::number(sqrt(s));
}

template <class Num>
V<Num> vsumPrim(const PrimCall<Num>& c) {
  Num s = 0;
  for (const Num& x : needTensor(c, 0, 0).data) s += x;
  return V<Num>::number(s);
}

template <class Num>
V<Num> scalePrim(const PrimCall<Num>& c) {
  const Num& s = c.number(0);
  const Tensor<Num>& a = needTensor(c, 1, 0);
  Tensor<Num>& y = newTensor(c, a.rank, a.rows, a.cols);
  for (int k = 0; k < a.size(); ++k) y.data[k] = s * a.data[k];
  return Heap<Num>::value(y);
}

template <class Num>
Num elementOp(char op, const Num& x, const Num& y) {
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

// --- dense linear algebra: LU with partial pivoting, Cholesky ---

// P·A = L·U, L unit lower-triangular and U upper, stored together in `lu`.
template <class Num>
struct LU {
  int n = 0;
  Tensor<Num> lu;
  std::vector<int> perm;  // row k of P·A is row perm[k] of A
  int sign = 1;           // det P
  bool singular = false;  // a zero pivot

  explicit LU(const Tensor<Num>& a) : n(a.rows), lu(a), perm(static_cast<size_t>(a.rows)) {
    using std::abs;
    for (int k = 0; k < n; ++k) perm[k] = k;
    for (int k = 0; k < n; ++k) {
      int p = k;
      for (int i = k + 1; i < n; ++i)
        if (abs(lu.at(i, k)) > abs(lu.at(p, k))) p = i;
      if (lu.at(p, k) == 0) {
        singular = true;
        continue;
      }
      if (p != k) swapRows(p, k);
      for (int i = k + 1; i < n; ++i) {
        Num f = lu.at(i, k) / lu.at(k, k);
        lu.at(i, k) = f;
        for (int j = k + 1; j < n; ++j) lu.at(i, j) -= f * lu.at(k, j);
      }
    }
  }

  void swapRows(int p, int k) {
    for (int j = 0; j < n; ++j) std::swap(lu.at(p, j), lu.at(k, j));
    std::swap(perm[p], perm[k]);
    sign = -sign;
  }

  Num det() const {
    Num d = sign;
    for (int k = 0; k < n; ++k) d *= lu.at(k, k);
    return d;
  }

  // X with A·X = B, column by column; B has n rows.
  void solve(const Tensor<Num>& b, Tensor<Num>& x) const {
    for (int c = 0; c < b.cols; ++c) {
      for (int i = 0; i < n; ++i) {
        Num s = b.at(perm[i], c);
        for (int j = 0; j < i; ++j) s -= lu.at(i, j) * x.at(j, c);
        x.at(i, c) = s;
      }
      for (int i = n - 1; i >= 0; --i) {
        Num s = x.at(i, c);
        for (int j = i + 1; j < n; ++j) s -= lu.at(i, j) * x.at(j, c);
        x.at(i, c) = s / lu.at(i, i);
      }
    }
  }
};

template <class Num>
V<Num> detPrim(const PrimCall<Num>& c) {
  return V<Num>::number(LU<Num>(needSquare(c, 0)).det());
}

// log det A from the LU factors, so a large determinant does not overflow; it must be positive.
template <class Num>
V<Num> logdetPrim(const PrimCall<Num>& c) {
  using std::abs;
  using std::isnan;
  using std::log;
  LU<Num> lu(needSquare(c, 0));
  int sign = lu.sign;
  Num logAbs = 0;
  for (int k = 0; k < lu.n; ++k) {
    const Num& u = lu.lu.at(k, k);
    if (u < 0) sign = -sign;
    if (u == 0) sign = 0;
    logAbs += log(abs(u));
  }
  if (sign <= 0 || isnan(logAbs))
    throw DmciError(
        ErrorKind::Domain,
        "logdet: the determinant must be positive, got " + show(V<Num>::number(sign == 0 ? Num(0) : lu.det())),
        c.site->pos);
  return V<Num>::number(logAbs);
}

template <class Num>
void requireInvertible(const PrimCall<Num>& c, const LU<Num>& lu) {
  if (lu.singular)
    throw DmciError(ErrorKind::Domain, std::string(c.name) + ": the matrix is singular: " + show(c[0]), c.site->pos);
}

template <class Num>
V<Num> invPrim(const PrimCall<Num>& c) {
  const Tensor<Num>& a = needSquare(c, 0);
  LU<Num> lu(a);
  requireInvertible(c, lu);
  Tensor<Num> identity{2, a.rows, a.rows, std::vector<Num>(static_cast<size_t>(a.size()))};
  for (int k = 0; k < a.rows; ++k) identity.at(k, k) = 1;
  Tensor<Num>& y = c.heap().tensor(2, a.rows, a.rows);
  lu.solve(identity, y);
  return Heap<Num>::value(y);
}

template <class Num>
V<Num> solvePrim(const PrimCall<Num>& c) {
  const Tensor<Num>& a = needSquare(c, 0);
  const Tensor<Num>& b = needTensor(c, 1, 0);
  if (b.rows != a.rows) shapeMismatch(c, "matrix rows differ from right-hand side rows", a, b);
  LU<Num> lu(a);
  requireInvertible(c, lu);
  Tensor<Num>& x = c.heap().tensor(b.rank, b.rows, b.cols);
  lu.solve(b, x);
  return Heap<Num>::value(x);
}

// L lower-triangular with L·Lᵀ = (A + Aᵀ)/2, as the engines take it.
template <class Num>
V<Num> choleskyPrim(const PrimCall<Num>& c) {
  using std::isfinite;
  using std::sqrt;
  const Tensor<Num>& a = needSquare(c, 0);
  int n = a.rows;
  Tensor<Num>& l = c.heap().tensor(2, n, n);
  for (int j = 0; j < n; ++j) {
    Num d = a.at(j, j);
    for (int k = 0; k < j; ++k) d -= l.at(j, k) * l.at(j, k);
    if (!(d > 0) || !isfinite(d))
      throw DmciError(ErrorKind::Domain, "cholesky: the matrix is not positive definite: " + show(c[0]), c.site->pos);
    l.at(j, j) = sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      Num s = (a.at(i, j) + a.at(j, i)) / 2;
      for (int k = 0; k < j; ++k) s -= l.at(i, k) * l.at(j, k);
      l.at(i, j) = s / l.at(j, j);
    }
  }
  return Heap<Num>::value(l);
}

}  // namespace

// x op y, elementwise over tensors of one shape, a number operand broadcast.
template <class Num>
Value<Num> tensorElementwise(const PrimCall<Num>& c, char op, const Value<Num>& a, const Value<Num>& b) {
  bool at = a.kind == Kind::Tensor, bt = b.kind == Kind::Tensor;
  if (!at && !bt) return V<Num>::number(elementOp(op, a.num, b.num));
  const Tensor<Num>& shape = at ? a.tensor() : b.tensor();
  if (at && bt) {
    const Tensor<Num>&ta = a.tensor(), &tb = b.tensor();
    if (ta.rank != tb.rank || ta.rows != tb.rows || ta.cols != tb.cols) shapeMismatch(c, "shapes differ", ta, tb);
  }
  Tensor<Num>& y = newTensor(c, shape.rank, shape.rows, shape.cols);
  for (int k = 0; k < shape.size(); ++k)
    y.data[k] = elementOp(op, at ? a.tensor().data[k] : a.num, bt ? b.tensor().data[k] : b.num);
  return Heap<Num>::value(y);
}

template <class Num>
void addTensorPrims(PrimRegistry<Num>& r) {
  r.add("vec", vecPrim<Num>);
  r.add("mat", matPrim<Num>);
  r.add("zeros", filled<Num, 0>);
  r.add("shape", shapePrim<Num>);
  r.add("ones", filled<Num, 1>);
  r.add("eye", eyePrim<Num>);
  r.add("ref", refPrim<Num>);
  r.add("dot", dotPrim<Num>);
  r.add("matvec", matvecPrim<Num>);
  r.add("matmul", matmulPrim<Num>);
  r.add("transpose", transposePrim<Num>);
  r.add("outer", outerPrim<Num>);
  r.add("trace", tracePrim<Num>);
  r.add("norm", normPrim<Num>);
  r.add("vsum", vsumPrim<Num>);
  r.add("scale", scalePrim<Num>);
  r.add("det", detPrim<Num>);
  r.add("logdet", logdetPrim<Num>);
  r.add("inv", invPrim<Num>);
  r.add("solve", solvePrim<Num>);
  r.add("cholesky", choleskyPrim<Num>);
}

template void addTensorPrims<Wide>(PrimRegistry<Wide>&);
template Value<Wide> tensorElementwise<Wide>(const PrimCall<Wide>&, char, const Value<Wide>&, const Value<Wide>&);

}  // namespace dmci::oracle
