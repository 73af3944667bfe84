// Tensor steps as Eigen code (EmitTensor.h says how): one function per direction, a case per primitive.
#include "engines/replay/EmitTensor.h"

#include <cmath>
#include <cstdio>

#include "prims/PrimTable.h"

namespace dmci::replay::emit {

std::string hexLiteral(double x) {
  if (std::isnan(x)) return "std::nan(\"\")";
  if (std::isinf(x)) return x > 0 ? "HUGE_VAL" : "(-HUGE_VAL)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

namespace {
std::string num(int64_t n) { return std::to_string(n); }
// A name: "t7", "u7". (Built by insert, not "t" + to_string: GCC 12 warns falsely there.)
std::string named(const char* prefix, int64_t n) { return num(n).insert(0, prefix); }
}  // namespace

TensorEmitter::TensorEmitter(const Trace& t) : t_(t), fixed_(t.tensors.size(), false) {
  int64_t bytes = 0;
  for (size_t k = 0; k < t.tensors.size(); ++k) {
    const TensorSlot& s = t.tensors[k];
    if (s.rows > kMaxFixedSide || s.cols > kMaxFixedSide) continue;
    const int64_t need = s.data >= 0 ? 0 : int64_t{2} * s.size() * 8;  // a step's value and adjoint
    if (bytes + need > kMaxFixedBytes) continue;
    bytes += need;
    fixed_[k] = true;
  }
}

std::string TensorEmitter::type(int32_t k) const {
  const TensorSlot& s = slot(k);
  return fixed_[static_cast<size_t>(k)] ? "Eigen::Matrix<double, " + num(s.rows) + ", " + num(s.cols) + ">"
                                        : std::string("Eigen::MatrixXd");
}

std::string TensorEmitter::sized(int32_t k) const {
  const TensorSlot& s = slot(k);
  if (fixed_[static_cast<size_t>(k)]) return "";
  std::string out = "(";
  return out + num(s.rows) + ", " + num(s.cols) + ")";
}

std::string TensorEmitter::text(const Value& v) const {
  if (v.tag == Tag::Tensor) return named("t", v.i);
  return v.i >= 0 ? named("s", v.i) : hexLiteral(v.num);
}

bool TensorEmitter::active(const Value& v) const {
  if (v.tag == Tag::Tensor) return slot(v.i).data < 0;
  return v.i >= 0;
}

std::string TensorEmitter::adjoint(const Value& v) const { return named(v.tag == Tag::Tensor ? "u" : "a", v.i); }

std::string TensorEmitter::helpers() {
  return R"(// log det A from A's LU factors (as prims/TensorLinalg.cpp computes it); ok: the determinant is positive.
template <class M>
double dmci_logdet(const M& A, bool& ok) {
  Eigen::PartialPivLU<M> lu(A);
  double sign = lu.permutationP().determinant(), logAbs = 0.0;
  for (Eigen::Index k = 0; k < lu.matrixLU().rows(); ++k) {
    const double u = lu.matrixLU()(k, k);
    if (u < 0) sign = -sign;
    logAbs += std::log(std::fabs(u));
    if (u == 0.0) sign = 0.0;
  }
  ok = sign > 0 && !std::isnan(logAbs);
  return logAbs;
}

// Nonsingular to working precision: finite, smallest singular value above n*eps times the largest.
template <class M>
bool dmci_invertible(const M& A) {
  if (!A.allFinite()) return false;
  const Eigen::JacobiSVD<M> svd(A);
  const auto& sv = svd.singularValues();
  return sv(sv.size() - 1) > sv(0) * static_cast<double>(A.rows()) * std::numeric_limits<double>::epsilon();
}

// Eigen's full-pivoting LU of A, its threshold set to the default value (diagonal size times epsilon) explicitly:
// the same factors and rank, and GCC does not then warn of the unset threshold.
#define DMCI_FULL_PIV_LU(M, lu, A) \
  Eigen::FullPivLU<M> lu(A);       \
  lu.setThreshold(static_cast<double>(lu.matrixLU().diagonalSize()) * Eigen::NumTraits<double>::epsilon())

// inv(A) and the solution x of A x = b, by the full-pivoting LU (as the native inv and solve).
template <class M, class E>
M dmci_inverse(const E& A) {
  DMCI_FULL_PIV_LU(M, lu, A);
  return lu.inverse();
}
template <class M, class E, class B>
B dmci_solve(const E& A, const B& b) {
  DMCI_FULL_PIV_LU(M, lu, A);
  return lu.solve(b);
}

// The adjugate det(A)*inv(A), by cofactors when A is singular.
template <class M>
M dmci_adjugate(const M& A, double det) {
  const Eigen::Index n = A.rows();
  M adj = M::Ones(n, n);
  if (n == 1) return adj;
  DMCI_FULL_PIV_LU(M, lu, A);
  if (det != 0.0 && lu.isInvertible()) return det * lu.inverse();
  Eigen::MatrixXd minor(n - 1, n - 1);
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

)";
}

std::string TensorEmitter::constants(const std::string& ind) const {
  std::string o;
  for (size_t k = 0; k < t_.tensors.size(); ++k) {
    const TensorSlot& s = t_.tensors[k];
    if (s.data < 0) continue;
    const int32_t i = static_cast<int32_t>(k);
    o += ind + "static const double d" + num(i) + "[] = {";
    for (int32_t j = 0; j < s.size(); ++j)
      o += (j ? ", " : "") + hexLiteral(t_.tensorData[static_cast<size_t>(s.data + j)]);
    o += "};\n" + ind + "static const " + type(i) + " t" + num(i) +
         " = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(d" + num(i) +
         ", " + num(s.rows) + ", " + num(s.cols) + ");\n";
  }
  return o;
}

std::string TensorEmitter::adjoints(const std::string& ind) const {
  std::string o;
  for (size_t k = 0; k < t_.tensors.size(); ++k) {
    const TensorSlot& s = t_.tensors[k];
    if (s.data >= 0) continue;
    const int32_t i = static_cast<int32_t>(k);
    o += ind + type(i) + " u" + num(i) + " = " + type(i) + "::Zero(" + num(s.rows) + ", " + num(s.cols) + ");\n";
  }
  return o;
}

Result<std::string> TensorEmitter::forward(const TensorStep& s, const std::string& ind) const {
  const std::string name = prim(s.prim).name;
  const std::string o = num(s.out);
  auto x = [&](int k) { return text(arg(s, k)); };
  auto tensorArg = [&](int k) { return arg(s, k).tag == Tag::Tensor ? arg(s, k).i : -1; };
  const std::string T = s.outTensor ? type(s.out) : std::string();
  auto guard = [&](const std::string& cond) {
    return ind + "if (!(" + cond + ")) return 1;  // " + name + " fails natively\n";
  };
  auto value = [&](const std::string& e) {
    return s.outTensor ? ind + "const " + T + " t" + o + " = " + e + ";\n"
                       : ind + "const double s" + o + " = " + e + ";\n";
  };
  if (name == "vec" || name == "mat") {
    std::string init = ind + T + " t" + o + sized(s.out) + ";\n" + ind + "t" + o + " <<";
    for (int k = 0; k < s.argc; ++k) init += (k ? ", " : " ") + x(k);
    return init + ";\n";
  }
  if (name == "ref") {
    const TensorSlot& v = slot(tensorArg(0));
    const std::string i = num(static_cast<int64_t>(arg(s, 1).num));
    const std::string j = v.rank == 2 ? num(static_cast<int64_t>(arg(s, 2).num)) : "0";
    return value(x(0) + "(" + i + ", " + j + ")");
  }
  if (name == "dot") return value(x(0) + ".cwiseProduct(" + x(1) + ").sum()");
  if (name == "matvec" || name == "matmul") return value(x(0) + " * " + x(1));
  if (name == "transpose") return value(x(0) + ".transpose()");
  if (name == "outer") return value(x(0) + " * " + x(1) + ".transpose()");
  if (name == "trace") return value(x(0) + ".trace()");
  if (name == "norm") return value(x(0) + ".norm()");
  if (name == "vsum") return value(x(0) + ".sum()");
  if (name == "scale") return value(x(0) + " * " + x(1));
  if (name == "det") return value("Eigen::PartialPivLU<" + type(tensorArg(0)) + ">(" + x(0) + ").determinant()");
  if (name == "logdet")
    return ind + "bool ok" + o + " = false;\n" + value("dmci_logdet(" + x(0) + ", ok" + o + ")") + guard("ok" + o);
  if (name == "inv")
    return guard("dmci_invertible(" + x(0) + ")") + value("dmci_inverse<" + type(tensorArg(0)) + ">(" + x(0) + ")");
  if (name == "solve")
    return guard("dmci_invertible(" + x(0) + ")") +
           value("dmci_solve<" + type(tensorArg(0)) + ">(" + x(0) + ", " + x(1) + ")");
  if (name == "cholesky") {
    const std::string A = type(tensorArg(0)), llt = "llt" + o;
    return ind + "const Eigen::LLT<" + A + "> " + llt + "(" + A + "(0.5 * (" + x(0) + " + " + x(0) +
           ".transpose())));\n" + guard(llt + ".info() == Eigen::Success && " + llt + ".matrixLLT().allFinite()") +
           ind + "const " + T + " t" + o + " = " + llt + ".matrixL();\n";
  }
  if (name.size() == 8 && name.rfind("%tensor", 0) == 0) {
    const char op = name[7];
    auto at = [&](int k) { return tensorArg(k) >= 0 ? x(k) + ".data()[k]" : x(k); };
    return ind + T + " t" + o + sized(s.out) + ";\n" + ind + "for (int k = 0; k < " + num(slot(s.out).size()) +
           "; ++k) t" + o + ".data()[k] = " + at(0) + " " + op + " " + at(1) + ";\n";
  }
  return Error{ErrorKind::Usage, "cannot emit the tensor primitive " + name, {}};
}

std::string TensorEmitter::reverse(const TensorStep& s, const std::string& ind) const {
  const std::string name = prim(s.prim).name;
  const std::string o = num(s.out);
  const std::string g = named(s.outTensor ? "u" : "a", s.out);  // the result's adjoint
  auto x = [&](int k) { return text(arg(s, k)); };
  auto on = [&](int k) { return active(arg(s, k)); };
  auto add = [&](int k, const std::string& e) { return on(k) ? ind + adjoint(arg(s, k)) + " += " + e + ";\n" : ""; };
  auto A = [&]() { return type(arg(s, 0).i); };
  std::string r;
  if (name == "vec" || name == "mat") {
    const int32_t cols = slot(s.out).cols;
    for (int k = 0; k < s.argc; ++k) r += add(k, g + "(" + num(k / cols) + ", " + num(k % cols) + ")");
    return r;
  }
  if (name == "ref") {
    if (!on(0)) return r;
    const TensorSlot& v = slot(arg(s, 0).i);
    const std::string i = num(static_cast<int64_t>(arg(s, 1).num));
    const std::string j = v.rank == 2 ? num(static_cast<int64_t>(arg(s, 2).num)) : "0";
    return ind + adjoint(arg(s, 0)) + "(" + i + ", " + j + ") += " + g + ";\n";
  }
  if (name == "dot") return add(0, g + " * " + x(1)) + add(1, g + " * " + x(0));
  if (name == "matvec" || name == "matmul")
    return add(0, g + " * " + x(1) + ".transpose()") + add(1, x(0) + ".transpose() * " + g);
  if (name == "transpose") return add(0, g + ".transpose()");
  if (name == "outer") return add(0, g + " * " + x(1)) + add(1, g + ".transpose() * " + x(0));
  if (name == "trace") {
    const TensorSlot& a = slot(arg(s, 0).i);
    return add(0, g + " * " + A() + "::Identity(" + num(a.rows) + ", " + num(a.cols) + ")");
  }
  if (name == "norm") {  // not differentiable at 0: the subgradient 0
    const std::string e = add(0, "(" + g + " / s" + o + ") * " + x(0));
    return e.empty() ? e : ind + "if (s" + o + " != 0.0) {\n" + "  " + e + ind + "}\n";
  }
  if (name == "vsum") return on(0) ? ind + adjoint(arg(s, 0)) + ".array() += " + g + ";\n" : "";
  if (name == "scale") return add(0, g + ".cwiseProduct(" + x(1) + ").sum()") + add(1, x(0) + " * " + g);
  if (name == "det") return add(0, g + " * dmci_adjugate<" + A() + ">(" + x(0) + ", s" + o + ").transpose()");
  if (name == "logdet") return add(0, g + " * Eigen::PartialPivLU<" + A() + ">(" + x(0) + ").inverse().transpose()");
  if (name == "inv") return add(0, "-t" + o + ".transpose() * " + g + " * t" + o + ".transpose()");
  if (name == "solve") {
    const std::string G = "G" + o, T = type(s.out);
    r = ind + "{\n" + ind + "  const " + T + " " + G + " = dmci_solve<" + A() + ">(" + x(0) + ".transpose(), " + g +
        ");  // inv(A)^T dX\n";
    if (on(0)) r += ind + "  " + adjoint(arg(s, 0)) + " += -" + G + " * t" + o + ".transpose();\n";
    if (on(1)) r += ind + "  " + adjoint(arg(s, 1)) + " += " + G + ";\n";
    return r + ind + "}\n";
  }
  if (name == "cholesky") {  // Murray (2016): dA = sym(L^-T Phi(L^T dL) L^-1), Phi: lower triangle, half diagonal
    if (!on(0)) return r;
    const std::string M = type(s.out), L = "t" + o;
    return ind + "{\n" + ind + "  const " + M + " dL = " + g + ".triangularView<Eigen::Lower>();\n" + ind + "  " + M +
           " P = (" + L + ".transpose() * dL).triangularView<Eigen::Lower>();\n" + ind + "  P.diagonal() *= 0.5;\n" +
           ind + "  const " + M + " X = " + L + ".transpose().triangularView<Eigen::Upper>().solve(" + M +
           "(P.transpose()));\n" + ind + "  const " + M + " S = " + L +
           ".transpose().triangularView<Eigen::Upper>().solve(" + M + "(X.transpose()));\n" + ind + "  " +
           adjoint(arg(s, 0)) + " += 0.5 * (S + S.transpose());\n" + ind + "}\n";
  }
  if (name.size() == 8 && name.rfind("%tensor", 0) == 0) {  // entry by entry, an entry whose adjoint is 0 skipped
    const char op = name[7];
    auto at = [&](int k) { return arg(s, k).tag == Tag::Tensor ? x(k) + ".data()[k]" : x(k); };
    auto acc = [&](int k, const char* partial) -> std::string {
      if (!on(k)) return "";
      const std::string to = arg(s, k).tag == Tag::Tensor ? adjoint(arg(s, k)) + ".data()[k]" : adjoint(arg(s, k));
      return ind + "  " + to + " += g * " + partial + ";\n";
    };
    const char* dx = op == '*' ? "y" : op == '/' ? "(1.0 / y)" : "1.0";
    const char* dy = op == '+' ? "1.0" : op == '-' ? "-1.0" : op == '*' ? "x" : "(-x / (y * y))";
    return ind + "for (int k = 0; k < " + num(slot(s.out).size()) + "; ++k) {\n" + ind + "  const double g = " + g +
           ".data()[k];\n" + ind + "  if (g == 0.0) continue;\n" + ind + "  const double x = " + at(0) +
           ", y = " + at(1) + ";\n" + ind + "  (void)x;\n" + ind + "  (void)y;\n" + acc(0, dx) + acc(1, dy) + ind +
           "}\n";
  }
  return r;
}

}  // namespace dmci::replay::emit
