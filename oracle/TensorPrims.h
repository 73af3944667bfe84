// Shared by the oracle's tensor primitives (TensorPrims.cpp) and its linear algebra (Linalg.cpp).
#pragma once
#include <string>

#include "oracle/Evaluator.h"

namespace dmci::oracle {

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
    throw DmciError(ErrorKind::Type,
                    std::string(c.name) + ": argument " + std::to_string(k + 1) +
                        " must be a square matrix, got a " + shapeName(t),
                    c.site->pos);
  return t;
}

template <class Num>
[[noreturn]] void shapeMismatch(const PrimCall<Num>& c, const char* what, const Tensor<Num>& a, const Tensor<Num>& b) {
  throw DmciError(ErrorKind::Type, std::string(c.name) + ": " + what + ": " + shapeName(a) + " and " + shapeName(b),
                  c.site->pos);
}

template <class Num>
void addLinalgPrims(PrimRegistry<Num>& r);  // Linalg.cpp

}  // namespace dmci::oracle
