// The 80-step, 2-state Kalman filter log-likelihood of the staged-replay bench: its Scheme source and the same
// filter's value and gradient written by hand in C++ (the floor the compiled engine is measured against).
//
// State (level, drift); F = [[phi, 1], [0, rho]], H = [1, 0], Q = diag(q, 0.01), R = r; the filter starts at
// x = 0, P = I and sums the exact Gaussian negative log-likelihood 0.5 (log 2 pi s + v^2 / s) of every
// innovation v with variance s. Parameters: phi, rho, q, r. The observations are a fixed series (a seeded
// simulation of the same model), written into the source as a quoted list.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace dmci::bench {

inline constexpr int kKalmanSteps = 80;

// The observations: the model simulated at phi = 0.9, rho = 0.95, q = 0.1, r = 0.2 with a fixed LCG.
inline const std::vector<double>& kalmanObservations() {
  static const std::vector<double> ys = [] {
    std::vector<double> out;
    uint64_t state = 42;
    auto normal = [&] {  // Box-Muller on a 64-bit LCG
      auto uniform = [&] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
      };
      double u = uniform(), v = uniform();
      return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
    };
    double level = 0, drift = 0.5;
    for (int t = 0; t < kKalmanSteps; ++t) {
      level = 0.9 * level + drift + std::sqrt(0.1) * normal();
      drift = 0.95 * drift + 0.1 * normal();
      out.push_back(level + std::sqrt(0.2) * normal());
    }
    return out;
  }();
  return ys;
}

inline std::string kalmanSource() {
  std::ostringstream s;
  s.precision(17);
  s << "(define ys '(";
  for (double y : kalmanObservations()) s << y << " ";
  s << "))\n"
       "(define (filter ys x1 x2 p11 p12 p22 nll)\n"
       "  (if (null? ys)\n"
       "      nll\n"
       "      (let* ((m1 (+ (* phi x1) x2)) (m2 (* rho x2))\n"
       "             (a (+ (* phi p11) p12)) (b (+ (* phi p12) p22))\n"
       "             (c11 (+ (* a phi) b q)) (c12 (* b rho)) (c22 (+ (* (* rho p22) rho) 0.01))\n"
       "             (v (- (car ys) m1)) (s (+ c11 r)) (k1 (/ c11 s)) (k2 (/ c12 s)))\n"
       "        (filter (cdr ys) (+ m1 (* k1 v)) (+ m2 (* k2 v))\n"
       "                (- c11 (* k1 c11)) (- c12 (* k1 c12)) (- c22 (* k2 c12))\n"
       "                (+ nll (* 0.5 (+ (log (* 6.283185307179586 s)) (/ (* v v) s))))))))\n"
       "(filter ys 0 0 1 0 1 0)\n";
  return s.str();
}

// The same filter written with tensors (mat, matvec, matmul, transpose, outer, dot, scale): the same value and
// gradient to rounding, a trace of tensor steps (the compiled engine's Eigen code; the replay engine interprets it).
inline std::string kalmanTensorSource() {
  std::ostringstream s;
  s.precision(17);
  s << "(define ys '(";
  for (double y : kalmanObservations()) s << y << " ";
  s << "))\n"
       "(define F (mat (list phi 1) (list 0 rho)))\n"
       "(define Ft (transpose F))\n"
       "(define Q (mat (list q 0) (list 0 0.01)))\n"
       "(define h (vec 1 0))\n"
       "(define (filter ys x P nll)\n"
       "  (if (null? ys)\n"
       "      nll\n"
       "      (let* ((xp (matvec F x)) (Pp (+ (matmul (matmul F P) Ft) Q)) (Ph (matvec Pp h))\n"
       "             (s (+ (dot h Ph) r)) (v (- (car ys) (dot h xp))) (K (scale (/ 1 s) Ph)))\n"
       "        (filter (cdr ys) (+ xp (scale v K)) (- Pp (outer K Ph))\n"
       "                (+ nll (* 0.5 (+ (log (* 6.283185307179586 s)) (/ (* v v) s))))))))\n"
       "(filter ys (zeros 2) (eye 2) 0)\n";
  return s.str();
}

inline const std::vector<std::string>& kalmanParams() {
  static const std::vector<std::string> p = {"phi", "rho", "q", "r"};
  return p;
}

// The value and gradient (d/d phi, rho, q, r) by hand: the forward pass keeps each step's inputs, the reverse
// pass recomputes the step's intermediates and propagates the adjoints through the update and the prediction.
inline double kalmanByHand(const double* theta, double* grad) {
  const double phi = theta[0], rho = theta[1], q = theta[2], r = theta[3];
  const std::vector<double>& ys = kalmanObservations();
  struct In {
    double x1, x2, p11, p12, p22;
  };
  std::array<In, kKalmanSteps> in;
  double x1 = 0, x2 = 0, p11 = 1, p12 = 0, p22 = 1, nll = 0;
  for (int t = 0; t < kKalmanSteps; ++t) {
    in[static_cast<size_t>(t)] = {x1, x2, p11, p12, p22};
    const double m1 = phi * x1 + x2, m2 = rho * x2;
    const double a = phi * p11 + p12, b = phi * p12 + p22;
    const double c11 = a * phi + b + q, c12 = b * rho, c22 = rho * p22 * rho + 0.01;
    const double v = ys[static_cast<size_t>(t)] - m1, s = c11 + r, k1 = c11 / s, k2 = c12 / s;
    x1 = m1 + k1 * v, x2 = m2 + k2 * v;
    p11 = c11 - k1 * c11, p12 = c12 - k1 * c12, p22 = c22 - k2 * c12;
    nll += 0.5 * (std::log(6.283185307179586 * s) + v * v / s);
  }
  double gphi = 0, grho = 0, gq = 0, gr = 0;
  double bx1 = 0, bx2 = 0, bp11 = 0, bp12 = 0, bp22 = 0;  // adjoints of the step's outputs
  for (int t = kKalmanSteps; t-- > 0;) {
    const In& i = in[static_cast<size_t>(t)];
    const double m1 = phi * i.x1 + i.x2;
    const double a = phi * i.p11 + i.p12, b = phi * i.p12 + i.p22;
    const double c11 = a * phi + b + q, c12 = b * rho;
    const double v = ys[static_cast<size_t>(t)] - m1, s = c11 + r, k1 = c11 / s, k2 = c12 / s;
    double bs = 0.5 * (1.0 / s - v * v / (s * s)), bv = v / s;
    double bm1 = bx1, bm2 = bx2, bk1 = bx1 * v, bk2 = bx2 * v;
    bv += bx1 * k1 + bx2 * k2;
    double bc11 = bp11 * (1.0 - k1), bc12 = bp12 * (1.0 - k1) - bp22 * k2, bc22 = bp22;
    bk1 -= bp11 * c11 + bp12 * c12;
    bk2 -= bp22 * c12;
    bc11 += bk1 / s, bs -= bk1 * k1 / s;
    bc12 += bk2 / s, bs -= bk2 * k2 / s;
    bc11 += bs, gr += bs;
    bm1 -= bv;
    grho += bc22 * 2.0 * rho * i.p22;
    const double np22 = bc22 * rho * rho;
    double bb = bc12 * rho;
    grho += bc12 * b;
    const double ba = bc11 * phi;
    gphi += bc11 * a, bb += bc11, gq += bc11;
    gphi += bb * i.p12 + ba * i.p11 + bm1 * i.x1;
    grho += bm2 * i.x2;
    bx1 = bm1 * phi;
    bx2 = bm2 * rho + bm1;
    bp11 = ba * phi;
    bp12 = bb * phi + ba;
    bp22 = np22 + bb;
  }
  grad[0] = gphi, grad[1] = grho, grad[2] = gq, grad[3] = gr;
  return nll;
}

}  // namespace dmci::bench
