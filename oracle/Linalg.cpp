// Dense linear algebra in the oracle's number type (det, logdet, inv, solve,
// cholesky), by LU with partial pivoting and the Cholesky–Banachiewicz scheme.
#include <cmath>

#include "oracle/Oracle.h"
#include "oracle/TensorPrims.h"

namespace dmci::oracle {
namespace {

template <class Num>
using V = Value<Num>;

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
    throw DmciError(ErrorKind::Domain,
                    "logdet: the determinant must be positive, got " + show(V<Num>::number(sign == 0 ? Num(0) : lu.det())),
                    c.site->pos);
  return V<Num>::number(logAbs);
}

template <class Num>
const LU<Num> invertible(const PrimCall<Num>& c, const LU<Num>& lu) {
  if (lu.singular)
    throw DmciError(ErrorKind::Domain, std::string(c.name) + ": the matrix is singular: " + show(c[0]), c.site->pos);
  return lu;
}

template <class Num>
V<Num> invPrim(const PrimCall<Num>& c) {
  const Tensor<Num>& a = needSquare(c, 0);
  LU<Num> lu = invertible(c, LU<Num>(a));
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
  LU<Num> lu = invertible(c, LU<Num>(a));
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

template <class Num>
void addLinalgPrims(PrimRegistry<Num>& r) {
  r.add("det", detPrim<Num>);
  r.add("logdet", logdetPrim<Num>);
  r.add("inv", invPrim<Num>);
  r.add("solve", solvePrim<Num>);
  r.add("cholesky", choleskyPrim<Num>);
}

template void addLinalgPrims<Wide>(PrimRegistry<Wide>&);

}  // namespace dmci::oracle
