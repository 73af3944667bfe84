// The default optimizers of `dmci fit`, from Ceres Solver, built into the plugin dmci-optimizer-ceres.so (the core
// tool links no Ceres):
//   lm, dogleg     data mode: nonlinear least squares by a trust region on the exact Jacobian, whose rows are the
//                  lanes' per-row gradients. Levenberg–Marquardt regularises with diag(JᵀJ) (Moré's scaling);
//                  dogleg is Powell's. Bounds are real bounds; --loss huber, softl1 and cauchy are Ceres's robust
//                  losses on the squared residuals.
//   lbfgs, bfgs    any fit (objective mode's default): a line search (strong Wolfe) on the loss and its gradient.
//                  With at most kNewtonMax coordinates the line search gets half the iterations and its end is then
//                  checked by a trust-region Newton method on the exact gradient (its Hessian by forward
//                  differences of the gradient, the trust region scaled by Moré's diag(√|H_jj|), its step solved
//                  exactly on the eigendecomposition):
//                  unless the line search ended on the gradient test at a point whose Hessian has no negative
//                  curvature, the Newton method continues from there with the iterations left. It leaves saddles
//                  and plateaus by their negative curvature and finishes valleys where the line search crawls or
//                  stops early (Moré–Garbow–Hillstrom's Biggs EXP6 from every start, Beale, Kowalik–Osborne and
//                  Osborne 1 from 100x theirs: ci/fit-objective).
// Each is a whole solve (fit/Optimizer.h): Ceres runs to its own stop and calls the driver after every iteration.
// Its stop is then judged here, honestly:
//   gtol      least squares: the residuals are orthogonal to the Jacobian's columns to within gtol, i.e.
//             ‖P_J r‖/‖r‖ ≤ gtol (the scaled gradient, free of the parameters' and the data's scales; P_J projects
//             on J's column space); line search: the projected gradient's largest entry ≤ gtol.
//   ftol      the cost's relative change in a step ≤ ftol;  xtol  the step ≤ xtol·(‖x‖ + xtol) (Ceres's tests).
// A trust region or line search cannot tell a step too small to matter at the optimum from one too small to make
// progress anywhere, so an ftol or xtol stop counts as converged only where the point passes the gradient test
// with the looser bound 1e4·gtol (least squares: or where the residuals have vanished, ‖r‖ ≤ 1e-10‖y‖; line
// search: the gradient relative to max(1, |f|)); elsewhere it is "stalled", as is Ceres's minimum trust region
// radius, a failed line search or too many invalid steps. (On the NIST StRD problems every such stop at a point
// with 6 correct digits has a scaled gradient below 3e-7: 1e-6 with the default gtol.)
#include <ceres/ceres.h>
#include <glog/logging.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>

#include "fit/Optimizer.h"

namespace dmci::fit {

namespace {

constexpr double kConfirm = 1e4;  // an ftol or xtol stop is convergence where the gradient test holds at 1e4·gtol
constexpr int kRounds = 20;       // least squares: solves restarted after an ftol or xtol stop short of gtol

std::string g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// ‖P_J r‖/‖r‖: how much of the residual vector the Jacobian's columns can still explain (0 at a least-squares
// optimum). Columns are scaled to unit norm first and the rank is found by a column-pivoted QR, so that badly scaled
// parameters (1e-6 beside 1e3) do not matter. 0 when r is zero.
double scaledGradient(const double* r, const double* jac, size_t m, size_t n) {
  Eigen::Map<const Eigen::VectorXd> rv(r, static_cast<Eigen::Index>(m));
  double rn = rv.norm();
  if (rn == 0 || n == 0) return 0;
  Eigen::MatrixXd J = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      jac, static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(n));
  for (Eigen::Index j = 0; j < J.cols(); ++j) {
    double c = J.col(j).norm();
    if (c > 0) J.col(j) /= c;
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(J);
  qr.setThreshold(1e-12);
  Eigen::VectorXd qtr = qr.householderQ().transpose() * rv;
  return qtr.head(qr.rank()).norm() / rn;
}

// The residuals as one Ceres cost function of one parameter block (all the coordinates). Ceres asks for the
// Jacobian only where it needs one; the last residuals and Jacobian evaluated are kept for the gradient test. A
// program error is kept and the evaluation reported as failed; the solve then ends and the error is rethrown.
class Residuals : public ceres::CostFunction {
 public:
  Residuals(Objective& f, size_t n) : f_(f), x_(n) {
    set_num_residuals(static_cast<int>(f.residualCount()));
    mutable_parameter_block_sizes()->push_back(static_cast<int>(n));
  }
  bool Evaluate(double const* const* p, double* r, double** jac) const override {
    if (error_) return false;
    std::copy(p[0], p[0] + x_.size(), x_.begin());
    try {
      f_.residuals(x_, r, jac ? jac[0] : nullptr);
    } catch (...) {
      error_ = std::current_exception();
      return false;
    }
    const size_t m = static_cast<size_t>(num_residuals()), n = x_.size();
    for (size_t i = 0; i < m; ++i)
      if (!std::isfinite(r[i])) return false;
    if (jac) {
      for (size_t k = 0; k < m * n; ++k)
        if (!std::isfinite(jac[0][k])) return false;
      lastX_ = x_, lastR_.assign(r, r + m), lastJ_.assign(jac[0], jac[0] + m * n);
    }
    return true;
  }
  // The scaled gradient at x, when x is where the Jacobian was last evaluated.
  std::optional<double> scaledGradientAt(const std::vector<double>& x) const {
    if (x != lastX_ || lastJ_.empty()) return std::nullopt;
    return scaledGradient(lastR_.data(), lastJ_.data(), lastR_.size(), x.size());
  }
  std::exception_ptr error() const { return error_; }

 private:
  Objective& f_;
  mutable std::vector<double> x_, lastX_, lastR_, lastJ_;
  mutable std::exception_ptr error_;
};

// The loss and its gradient as a Ceres first-order function (the line-search methods).
class LossFunction : public ceres::FirstOrderFunction {
 public:
  LossFunction(Objective& f, size_t n) : f_(f), n_(n) {}
  bool Evaluate(const double* p, double* cost, double* gradient) const override {
    if (error_) return false;
    std::vector<double> x(p, p + n_), grad;
    try {
      *cost = f_.loss(x, gradient ? &grad : nullptr);
    } catch (...) {
      error_ = std::current_exception();
      return false;
    }
    if (gradient) std::copy(grad.begin(), grad.end(), gradient);
    if (!std::isfinite(*cost)) return false;
    if (gradient) lastX_ = x, lastCost_ = *cost, lastGrad_ = grad;
    return true;
  }
  int NumParameters() const override { return static_cast<int>(n_); }
  // The gradient's largest entry at x, when x is where it was last evaluated.
  std::optional<double> gradientAt(const std::vector<double>& x) const {
    if (x != lastX_) return std::nullopt;
    double gmax = 0;
    for (double v : lastGrad_) gmax = std::max(gmax, std::fabs(v));
    return gmax;
  }
  std::exception_ptr error() const { return error_; }

 private:
  Objective& f_;
  size_t n_;
  mutable std::vector<double> lastX_, lastGrad_;
  mutable double lastCost_ = 0;
  mutable std::exception_ptr error_;
};

// Calls the driver after every iteration (not iteration 0, the start), and ends the solve on the gradient test or
// when the driver says so.
class AfterEach : public ceres::IterationCallback {
 public:
  AfterEach(const std::vector<double>& x, const Optimizer::AfterIteration& after,
            std::function<std::optional<double>(const std::vector<double>&)> gradientTest, double gtol)
      : x_(x), after_(after), test_(std::move(gradientTest)), gtol_(gtol) {}
  ceres::CallbackReturnType operator()(const ceres::IterationSummary& s) override {
    if (s.iteration == 0) return ceres::SOLVER_CONTINUE;
    lastReported_ = x_;
    if (!after_(x_)) {
      ended = true;
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    if (auto gnorm = test_(x_); gnorm && *gnorm <= gtol_) {
      gradientHeld = *gnorm;
      return ceres::SOLVER_TERMINATE_SUCCESSFULLY;
    }
    return ceres::SOLVER_CONTINUE;
  }
  // Ceres's solution after the solve, when the callbacks never saw it (the line search can end on a point its last
  // callback did not report): reported as the last iteration, unless the driver ended the solve itself.
  void reportFinal(bool report) {
    if (report && x_ != lastReported_ && !x_.empty()) after_(x_);  // a budget it spends is the driver's stop
  }
  bool ended = false;
  std::optional<double> gradientHeld;

 private:
  std::vector<double> lastReported_;
  const std::vector<double>& x_;
  const Optimizer::AfterIteration& after_;
  std::function<std::optional<double>(const std::vector<double>&)> test_;
  double gtol_;
};

constexpr size_t kNewtonMax = 100;  // line search: the trust-region Newton check up to this many coordinates

// The loss's Hessian at x by forward differences of its exact gradient `g` there (n more gradients), symmetrised.
Eigen::MatrixXd hessianAt(Objective& f, const std::vector<double>& x, const std::vector<double>& g) {
  const size_t n = x.size();
  Eigen::MatrixXd H(n, n);
  std::vector<double> xh = x, gh;
  for (size_t j = 0; j < n; ++j) {
    const double h = 1.49e-8 * std::max(1.0, std::fabs(x[j]));
    xh[j] = x[j] + h;
    const double dh = xh[j] - x[j];  // the step as represented
    double v = f.loss(xh, &gh);
    xh[j] = x[j];
    for (size_t i = 0; i < n; ++i)
      H(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = std::isfinite(v) ? (gh[i] - g[i]) / dh : 0.0;
  }
  return 0.5 * (H + H.transpose());
}

// The step p minimising gᵀp + ½pᵀHp over ‖p‖ ≤ radius, exactly, on H's eigendecomposition (Moré and Sorensen's
// characterisation: (H + μI)p = −g with H + μI positive semidefinite, μ(radius − ‖p‖) = 0; the hard case is met
// along the lowest eigenvector).
Eigen::VectorXd trustRegionStep(const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>& eig, const Eigen::VectorXd& g,
                                double radius) {
  const Eigen::VectorXd& lambda = eig.eigenvalues();
  const Eigen::MatrixXd& V = eig.eigenvectors();
  const Eigen::VectorXd gt = V.transpose() * g;
  const double lmin = lambda(0), scale = std::max(1e-300, lambda.cwiseAbs().maxCoeff());
  auto stepNorm = [&](double mu) {
    double s = 0;
    for (Eigen::Index i = 0; i < gt.size(); ++i) {
      double d = lambda(i) + mu;
      if (d <= 0) return std::numeric_limits<double>::infinity();
      s += gt(i) * gt(i) / (d * d);
    }
    return std::sqrt(s);
  };
  auto stepFor = [&](double mu) {
    Eigen::VectorXd c(gt.size());
    for (Eigen::Index i = 0; i < gt.size(); ++i) c(i) = lambda(i) + mu > 0 ? -gt(i) / (lambda(i) + mu) : 0.0;
    return Eigen::VectorXd(V * c);
  };
  if (lmin > 1e-12 * scale && stepNorm(0) <= radius) return stepFor(0);  // the Newton step fits
  double lo = std::max(0.0, -lmin) + 1e-14 * scale;
  if (stepNorm(lo) <= radius) {  // the hard case: the rest of the radius along the lowest curvature
    Eigen::VectorXd p = stepFor(lo);
    double tau = std::sqrt(std::max(0.0, radius * radius - p.squaredNorm()));
    return p + tau * V.col(0);
  }
  double hi = lo + g.norm() / radius + scale;
  while (stepNorm(hi) > radius) hi *= 2;
  for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
    double mid = 0.5 * (lo + hi);
    (stepNorm(mid) > radius ? lo : hi) = mid;
  }
  return stepFor(hi);
}

enum class Method { Lm, Dogleg, Lbfgs, Bfgs };

class CeresMethod : public Optimizer {
 public:
  CeresMethod(Method m, const std::vector<double>& start, const OptimizerSettings& s)
      : method_(m), x_(start), settings_(s) {}
  bool usesGradient() const override { return true; }
  bool solves() const override { return true; }
  void step(Objective&) override {}
  std::vector<double> point() const override { return x_; }
  // A whole solve's state between iterations is its point: a resumed solve starts afresh from it.
  std::string save() const override {
    return std::string(reinterpret_cast<const char*>(x_.data()), x_.size() * sizeof(double));
  }
  void load(const std::string& state) override {
    if (state.size() != x_.size() * sizeof(double)) return;
    std::memcpy(x_.data(), state.data(), state.size());
  }
  Stop stopReason() const override { return stop_; }

  void solve(Objective& f, const AfterIteration& after) override {
    if (method_ == Method::Lm || method_ == Method::Dogleg)
      leastSquares(f, after);
    else
      lineSearch(f, after);
  }

 private:
  Method method_;
  std::vector<double> x_;
  OptimizerSettings settings_;
  Stop stop_;

  void leastSquares(Objective& f, const AfterIteration& after) {
    if (f.residualCount() == 0)
      throw DmciError(ErrorKind::Usage,
                      "--optimizer lm and dogleg fit residuals (data mode: --data and --target); this fit's loss is "
                      "the program's value: use lbfgs or bfgs");
    ceres::Problem::Options po;
    ceres::Problem problem(po);
    auto* residuals = new Residuals(f, x_.size());
    ceres::LossFunction* loss = nullptr;
    Objective::Robust robust = f.robust();
    double a = robust.scale;
    if (robust.kind == "huber") loss = new ceres::HuberLoss(a);
    if (robust.kind == "softl1") loss = new ceres::SoftLOneLoss(a);
    if (robust.kind == "cauchy") loss = new ceres::CauchyLoss(a);
    problem.AddResidualBlock(residuals, loss, x_.data());
    for (size_t j = 0; j < x_.size(); ++j) {
      auto [lo, hi] = f.bounds(j);
      if (std::isfinite(lo)) problem.SetParameterLowerBound(x_.data(), static_cast<int>(j), lo);
      if (std::isfinite(hi)) problem.SetParameterUpperBound(x_.data(), static_cast<int>(j), hi);
    }
    ceres::Solver::Options o;
    o.minimizer_type = ceres::TRUST_REGION;
    o.trust_region_strategy_type = method_ == Method::Lm ? ceres::LEVENBERG_MARQUARDT : ceres::DOGLEG;
    o.linear_solver_type = ceres::DENSE_QR;
    o.function_tolerance = settings_.ftol;
    o.parameter_tolerance = settings_.xtol;
    o.gradient_tolerance = 0;  // the scale-free gradient test is ours (AfterEach)
    o.logging_type = ceres::SILENT;
    o.num_threads = 1;
    o.update_state_every_iteration = true;
    const bool plain = robust.kind.empty();  // the gradient test is the least-squares one: plain squares only
    AfterEach each(
        x_, after, [&](const std::vector<double>& x) { return plain ? residuals->scaledGradientAt(x) : std::nullopt; },
        settings_.gtol);
    o.callbacks.push_back(&each);
    // Ceres's ftol and xtol fire on one small step, which is often a short step of a trust region that has shrunk
    // on a curved valley (NIST's Nelson from its second start stops so at 5.9 correct digits). While the gradient
    // test has not held, such a stop starts the solve again from its point, with a fresh trust region and the
    // iterations left and no cost test (at 1e-14 of a cost the parameters can still be off in their 7th digit),
    // as long as the last round lowered the cost; the stop is judged after the last round.
    ceres::Solver::Summary summary;
    int left = settings_.steps;
    auto solveRounds = [&] {
      o.function_tolerance = settings_.ftol;
      for (int round = 0;; ++round) {
        o.max_num_iterations = left;
        ceres::Solve(o, &problem, &summary);
        if (auto e = residuals->error()) std::rethrow_exception(e);
        left -= std::max(0, static_cast<int>(summary.iterations.size()) - 1);
        const bool tolerance =
            summary.termination_type == ceres::CONVERGENCE && (summary.message.rfind("Function tolerance", 0) == 0 ||
                                                               summary.message.rfind("Parameter tolerance", 0) == 0);
        const bool lowered = summary.final_cost < summary.initial_cost;
        if (!settings_.polish || !plain || !tolerance || !lowered || each.ended || each.gradientHeld || left <= 0 ||
            round >= kRounds)
          break;
        o.function_tolerance = 0;  // again: until the step, the gradient or the trust region says stop
      }
      each.reportFinal(summary.termination_type != ceres::USER_SUCCESS);
    };
    const std::vector<double> start = x_;
    solveRounds();
    // The point passes the gradient test at 1e4·gtol? (An ftol or xtol stop is convergence only there.)
    auto confirmed = [&] {
      if (!plain) return true;  // robust losses: Ceres's tests as they are
      std::vector<double> r(f.residualCount()), J(f.residualCount() * x_.size());
      f.residuals(x_, r.data(), J.data());
      lastGradient_ = scaledGradient(r.data(), J.data(), r.size(), x_.size());
      double rn = 0;
      for (double ri : r) rn += ri * ri;
      vanished_ = std::sqrt(rn) <= 1e-10 * f.residualScale();  // zero residuals, to rounding
      return vanished_ || lastGradient_ <= kConfirm * settings_.gtol;
    };
    judge(summary, each, confirmed, "the scaled gradient ‖P_J r‖/‖r‖", plain);
    // Moré's scaling makes Levenberg–Marquardt blind to a parameter's units, which also lets it walk out along a
    // plateau where a parameter's column vanishes (NIST's BoxBOD from its first start: b2 → ∞ as 1 − exp(−b2 x)
    // → 1; MINPACK's lmder stalls there too, scipy's trf with unit scaling does not). A stalled solve is tried
    // once more from its start without the scaling, with the iterations left; the lower cost is kept, and its stop.
    if (method_ != Method::Lm || !plain || stop_.reason != "stalled" || each.ended || left <= 0) return;
    const std::vector<double> first = x_;
    const Stop firstStop = stop_;
    const double firstCost = summary.final_cost;
    std::copy(start.begin(), start.end(), x_.begin());
    o.jacobi_scaling = false;  // unit scaling: Levenberg's damping by the identity, not by diag(JᵀJ)
    o.min_lm_diagonal = o.max_lm_diagonal = 1;
    solveRounds();
    if (summary.final_cost < firstCost && !each.ended) {
      judge(summary, each, confirmed, "the scaled gradient ‖P_J r‖/‖r‖", plain);
      stop_.message += " (Levenberg–Marquardt with Moré's scaling stalled: " + firstStop.message +
                       "; solved again from the start with unit scaling)";
    } else {
      std::copy(first.begin(), first.end(), x_.begin());
      stop_ = firstStop;
    }
  }

  void lineSearch(Objective& f, const AfterIteration& after) {
    for (size_t j = 0; j < x_.size(); ++j) {
      auto [lo, hi] = f.bounds(j);
      if (std::isfinite(lo) || std::isfinite(hi))
        throw DmciError(ErrorKind::Usage,
                        "--optimizer lbfgs and bfgs keep no bounds: give --transform positive, "
                        "unit or [lo,hi] a smooth transform, or use --optimizer lm");
    }
    auto* fn = new LossFunction(f, x_.size());
    ceres::GradientProblem problem(fn);
    ceres::GradientProblemSolver::Options o;
    o.line_search_direction_type = method_ == Method::Lbfgs ? ceres::LBFGS : ceres::BFGS;
    o.line_search_type = ceres::WOLFE;
    o.max_lbfgs_rank = std::max(1, settings_.history);
    o.use_approximate_eigenvalue_bfgs_scaling = true;
    const bool newton = x_.size() <= kNewtonMax;
    o.max_num_iterations = newton ? std::max(1, settings_.steps / 2) : settings_.steps;
    o.function_tolerance = settings_.ftol;
    o.parameter_tolerance = settings_.xtol;
    o.gradient_tolerance = settings_.gtol;
    o.logging_type = ceres::SILENT;
    o.update_state_every_iteration = true;
    AfterEach each(
        x_, after, [&](const std::vector<double>& x) { return fn->gradientAt(x); }, settings_.gtol);
    o.callbacks.push_back(&each);
    ceres::GradientProblemSolver::Summary summary;
    ceres::Solve(o, problem, x_.data(), &summary);
    if (auto e = fn->error()) std::rethrow_exception(e);
    each.reportFinal(summary.termination_type != ceres::USER_SUCCESS);
    auto confirmed = [&] {
      std::vector<double> grad;
      double v = f.loss(x_, &grad);
      lastGradient_ = 0;
      for (double gj : grad) lastGradient_ = std::max(lastGradient_, std::fabs(gj));
      return lastGradient_ <= kConfirm * settings_.gtol * std::max(1.0, std::fabs(v));
    };
    judge(summary, each, confirmed, "the gradient's largest entry", false);
    if (newton && !each.ended) {
      int left = settings_.steps - std::max(0, static_cast<int>(summary.iterations.size()) - 1);
      newtonPolish(f, after, std::max(0, left));
    }
  }

  // The trust-region Newton check after a line search (see the top of this file). Its stops are judged as the line
  // search's are: gtol where the gradient's largest entry ≤ gtol and the Hessian has no negative curvature beyond
  // rounding; a trust region shrunk below xtol·(‖x‖ + xtol), or a step that lowered the cost by ≤ ftol of it,
  // converged where the gradient passes 1e4·gtol·max(1, |f|), else stalled; the iterations spent, steps.
  void newtonPolish(Objective& f, const AfterIteration& after, int left) {
    const size_t n = x_.size();
    std::vector<double> g, gTrial, x = x_;
    double fx = f.loss(x, &g);
    if (!std::isfinite(fx)) return;
    auto gmax = [](const std::vector<double>& v) {
      double m = 0;
      for (double e : v) m = std::max(m, std::fabs(e));
      return m;
    };
    // The trust region is an ellipsoid, ‖D p‖ ≤ radius, with Moré's scaling D = diag(√|H_jj|) (each entry the largest
    // seen so far): values of scales 1e-6 and 1e4 side by side then move alike (Meyer's function).
    Eigen::VectorXd D = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(n));
    auto hessian = [&] {
      Eigen::MatrixXd H = hessianAt(f, x, g);
      for (Eigen::Index j = 0; j < H.rows(); ++j) D(j) = std::max(D(j), std::sqrt(std::fabs(H(j, j))));
      const double floor = std::max(1e-300, 1e-12 * D.maxCoeff());
      for (Eigen::Index j = 0; j < H.rows(); ++j) D(j) = std::max(D(j), floor);
      Eigen::MatrixXd Hs = D.cwiseInverse().asDiagonal() * H * D.cwiseInverse().asDiagonal();
      return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(0.5 * (Hs + Hs.transpose()));
    };
    auto eig = hessian();
    auto curved = [&] {  // no negative curvature beyond the differences' rounding
      const auto& l = eig.eigenvalues();
      return l(0) >= -1e-6 * std::max(1.0, l.cwiseAbs().maxCoeff());
    };
    if (stop_.reason == "gtol" && curved()) return;  // the line search's stop stands
    auto norm = [](const std::vector<double>& v) {
      double s = 0;
      for (double e : v) s += e * e;
      return std::sqrt(s);
    };
    double radius = 1.0;  // in the scaled coordinates D·x
    const std::string words = "the gradient's largest entry";
    for (int it = 0;; ++it) {
      if (gmax(g) <= settings_.gtol && curved()) {
        stop_ = {"gtol", "trust-region Newton: " + words + " " + g_(gmax(g)) + " <= gtol " + g_(settings_.gtol)};
        return;
      }
      if (it >= left) {
        stop_ = {"steps", "trust-region Newton: the iteration limit"};
        return;
      }
      // Iterate until a step is taken or the region has shrunk to nothing.
      bool taken = false;
      double reduction = 0, stepNorm = INFINITY;
      while (!taken) {
        if (stepNorm <= settings_.xtol * (norm(x) + settings_.xtol)) {
          bool ok = gmax(g) <= kConfirm * settings_.gtol * std::max(1.0, std::fabs(fx));
          stop_ =
              ok ? Stop{"xtol", "trust-region Newton: the trust region shrank below xtol; " + words + " " + g_(gmax(g))}
                 : Stop{"stalled", "trust-region Newton: the trust region shrank to nothing while " + words +
                                       " is still " + g_(gmax(g)) + ": the method cannot make progress here"};
          return;
        }
        // The step in the scaled coordinates: the model gᵀp + ½pᵀHp with g and H scaled by D⁻¹.
        Eigen::VectorXd gv = Eigen::Map<const Eigen::VectorXd>(g.data(), static_cast<Eigen::Index>(n));
        Eigen::VectorXd gs = D.cwiseInverse().asDiagonal() * gv;
        Eigen::VectorXd ps = trustRegionStep(eig, gs, radius);
        const Eigen::VectorXd& lambda = eig.eigenvalues();
        Eigen::VectorXd pt = eig.eigenvectors().transpose() * ps;
        double model = gs.dot(ps) + 0.5 * (pt.array().square() * lambda.array()).sum();
        Eigen::VectorXd p = D.cwiseInverse().asDiagonal() * ps;
        stepNorm = p.norm();
        std::vector<double> trial(n);
        for (size_t j = 0; j < n; ++j) trial[j] = x[j] + p(static_cast<Eigen::Index>(j));
        double ft = f.loss(trial, &gTrial);
        double rho = std::isfinite(ft) && model < 0 ? (ft - fx) / model : -1;
        if (!std::isfinite(ft) || !(ft < fx) || rho < 1e-4) {
          radius = 0.25 * std::min(radius, ps.norm());
          continue;
        }
        if (rho > 0.75 && ps.norm() > 0.99 * radius) radius *= 2;
        if (rho < 0.25) radius = 0.25 * ps.norm();
        reduction = fx - ft;
        x = trial, fx = ft, g = gTrial, taken = true;
      }
      x_ = x;
      if (!after(x_)) {
        stop_ = {"ended", "ended by the fit driver"};
        return;
      }
      eig = hessian();
      if (reduction <= settings_.ftol * std::fabs(fx) && !(gmax(g) <= settings_.gtol)) {
        bool ok = gmax(g) <= kConfirm * settings_.gtol * std::max(1.0, std::fabs(fx)) && curved();
        stop_ = ok ? Stop{"ftol",
                          "trust-region Newton: a step lowered the cost by <= ftol of it; " + words + " " + g_(gmax(g))}
                   : Stop{"stalled", "trust-region Newton: a step lowered the cost by <= ftol of it while " + words +
                                         " is still " + g_(gmax(g)) + ": the method cannot make progress here"};
        return;
      }
    }
  }
  static std::string g_(double v) { return g(v); }

  double lastGradient_ = 0;
  bool vanished_ = false;  // the residuals vanished (a zero-residual fit)

  // confirmCeresGradient: least squares, where Ceres's own gradient test (its tolerance is 0 there) fires on a
  // projected gradient that rounds to exactly 0 beside large parameters (BoxBOD from its first start, by dogleg,
  // at b2 = 306 where b2's column is 1e-131): that stop is judged as ftol and xtol are, by the scaled gradient.
  template <class Summary, class Confirm>
  void judge(const Summary& summary, const AfterEach& each, Confirm confirmed, const std::string& gradientWords,
             bool confirmCeresGradient) {
    const std::string& msg = summary.message;
    auto starts = [&](const char* p) { return msg.rfind(p, 0) == 0; };
    if (each.ended) {
      stop_ = {"ended", "ended by the fit driver"};
    } else if (each.gradientHeld || (!confirmCeresGradient && summary.termination_type == ceres::CONVERGENCE &&
                                     starts("Gradient tolerance"))) {
      stop_ = {"gtol", gradientWords + " " + g(each.gradientHeld.value_or(0)) + " <= gtol " + g(settings_.gtol)};
      if (!each.gradientHeld) stop_.message = msg;
    } else if (summary.termination_type == ceres::CONVERGENCE &&
               (starts("Function tolerance") || starts("Parameter tolerance") || starts("Gradient tolerance"))) {
      const std::string test = starts("Function tolerance") ? "ftol" : starts("Parameter tolerance") ? "xtol" : "gtol";
      // Ceres's gradient stop is confirmed by the gradient test itself, at gtol; ftol and xtol at 1e4·gtol.
      const double bound = test == "gtol" ? settings_.gtol : kConfirm * settings_.gtol;
      if (confirmed() && (test != "gtol" || vanished_ || lastGradient_ <= bound))
        stop_ = {test, msg + "; " +
                           (vanished_ ? std::string("the residuals vanished (|r| <= 1e-10 |y|)")
                                      : gradientWords + " " + g(lastGradient_))};
      else
        stop_ = {"stalled", msg + " but " + gradientWords + " is still " + g(lastGradient_) + " (> " +
                                (test == "gtol" ? "gtol " : "1e4*gtol ") + g(bound) +
                                "): the method cannot make progress here"};
    } else if (summary.termination_type == ceres::NO_CONVERGENCE) {
      stop_ = {"steps", msg};
    } else {
      stop_ = {"stalled", msg};  // minimum trust region radius, failed line search, invalid steps
    }
  }
};

std::unique_ptr<Optimizer> make(Method m, const std::vector<double>& start, const OptimizerSettings& s) {
  return std::make_unique<CeresMethod>(m, start, s);
}

// Ceres logs through glog, to stderr when glog is not initialised (a failed start, a line search's warnings): the
// fit reports its stops itself, so only fatal messages pass.
const bool quiet = [] {
  FLAGS_minloglevel = google::GLOG_FATAL;
  return true;
}();

const OptimizerRegistration lm("lm", [](const auto& x, const auto& s) { return make(Method::Lm, x, s); });
const OptimizerRegistration dogleg("dogleg", [](const auto& x, const auto& s) { return make(Method::Dogleg, x, s); });
const OptimizerRegistration lbfgs("lbfgs", [](const auto& x, const auto& s) { return make(Method::Lbfgs, x, s); });
const OptimizerRegistration bfgs("bfgs", [](const auto& x, const auto& s) { return make(Method::Bfgs, x, s); });

}  // namespace

}  // namespace dmci::fit
