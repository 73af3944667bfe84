// Standard errors, covariance, correlation and confidence intervals from the Jacobian's SVD.
#include "fit/Uncertainty.h"

#include <Eigen/Dense>
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "fit/Model.h"

namespace dmci::fit {

// A name the program does not use (Fitted::unused) takes no part: the errors are those of the fit without it (its
// degrees of freedom too), and it is named as one the data cannot identify, with no error and the reason.
std::optional<Uncertainty> uncertaintyOf(Model& model, const std::vector<double>& theta) {
  const Loss* loss = model.rowLoss();
  const Fitted& f = model.fitted();
  std::vector<size_t> used;
  for (size_t k = 0; k < f.names.size(); ++k)
    if (!f.isUnused(f.names[k])) used.push_back(k);
  if (!loss || loss->kind != LossKind::Mse || model.residualRows() <= used.size()) return std::nullopt;
  std::vector<double> r, J;
  model.residuals(theta, r, &J);
  if (used.size() == f.names.size()) return uncertaintyOf(r, J, f.names);
  const size_t n = r.size(), p = f.names.size(), q = used.size();
  std::vector<double> usedJ(n * q);
  std::vector<std::string> usedNames;
  for (size_t j = 0; j < q; ++j) usedNames.push_back(f.names[used[j]]);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < q; ++j) usedJ[i * q + j] = J[i * p + used[j]];
  auto part = uncertaintyOf(r, usedJ, usedNames);
  if (!part) return std::nullopt;
  Uncertainty u = *part;
  u.stderrs.assign(p, std::nullopt);
  u.covariance.assign(p, std::vector<std::optional<double>>(p));
  u.correlation = u.covariance;
  for (size_t a = 0; a < q; ++a) {
    u.stderrs[used[a]] = part->stderrs[a];
    for (size_t b = 0; b < q; ++b) {
      u.covariance[used[a]][used[b]] = part->covariance[a][b];
      u.correlation[used[a]][used[b]] = part->correlation[a][b];
    }
  }
  u.unidentifiable.clear();
  std::string unused;
  for (const auto& name : f.names) {
    bool off = f.isUnused(name);
    if (off) unused += (unused.empty() ? "" : ", ") + name;
    if (off || std::find(part->unidentifiable.begin(), part->unidentifiable.end(), name) != part->unidentifiable.end())
      u.unidentifiable.push_back(name);
  }
  const bool one = u.unidentifiable.size() - part->unidentifiable.size() == 1;
  u.note = (part->note.empty() ? "" : part->note + "; ") + "the data cannot identify " + unused +
           (one ? ": the program does not use it (its error is absent)"
                : ": the program does not use them (their errors are absent)");
  return u;
}

std::optional<Uncertainty> uncertaintyOf(const std::vector<double>& residuals, const std::vector<double>& jacobian,
                                         const std::vector<std::string>& names) {
  const size_t n = residuals.size(), p = names.size();
  if (n <= p || p == 0 || jacobian.size() != n * p) return std::nullopt;
  Uncertainty u;
  u.rows = n, u.values = p, u.dof = n - p;
  for (double ri : residuals) u.rss += ri * ri;
  u.sigma2 = u.rss / static_cast<double>(u.dof);
  // J = Js·D with unit-norm columns (a zero column stays zero: that value does not move the prediction).
  Eigen::MatrixXd Js = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      jacobian.data(), static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
  Eigen::VectorXd d(static_cast<Eigen::Index>(p));
  for (Eigen::Index j = 0; j < Js.cols(); ++j) {
    d(j) = Js.col(j).norm();
    if (d(j) > 0 && std::isfinite(d(j))) Js.col(j) /= d(j);
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(Js, Eigen::ComputeThinV);
  const Eigen::VectorXd& sv = svd.singularValues();
  const Eigen::MatrixXd& V = svd.matrixV();
  const double cut = (sv.size() ? sv(0) : 0) * 1e-12;
  // A value is unidentifiable when the null space of J (the singular vectors below the cut) moves it.
  std::vector<bool> free(p, true);
  for (Eigen::Index k = 0; k < sv.size(); ++k) {
    if (sv(k) > cut) continue;
    for (size_t j = 0; j < p; ++j)
      if (std::fabs(V(static_cast<Eigen::Index>(j), k)) > 1e-6) free[j] = false;
  }
  for (size_t j = 0; j < p; ++j)
    if (!(d(static_cast<Eigen::Index>(j)) > 0) || !std::isfinite(d(static_cast<Eigen::Index>(j)))) free[j] = false;
  // (JsᵀJs)⁺ = V Σ⁻² Vᵀ over the kept singular values; Cov = s² D⁻¹ (JsᵀJs)⁺ D⁻¹.
  Eigen::MatrixXd inv = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
  for (Eigen::Index k = 0; k < sv.size(); ++k)
    if (sv(k) > cut) inv += V.col(k) * V.col(k).transpose() / (sv(k) * sv(k));
  boost::math::students_t t(static_cast<double>(u.dof));
  u.t975 = boost::math::quantile(boost::math::complement(t, 0.025));
  u.covariance.assign(p, std::vector<std::optional<double>>(p));
  u.correlation = u.covariance;
  u.stderrs.assign(p, std::nullopt);
  auto at = [&](size_t i, size_t j) {
    auto a = static_cast<Eigen::Index>(i), b = static_cast<Eigen::Index>(j);
    return u.sigma2 * inv(a, b) / (d(a) * d(b));
  };
  for (size_t i = 0; i < p; ++i)
    for (size_t j = 0; j < p; ++j)
      if (free[i] && free[j]) u.covariance[i][j] = at(i, j);
  for (size_t j = 0; j < p; ++j) {
    if (!free[j]) {
      u.unidentifiable.push_back(names[j]);
      continue;
    }
    double se = std::sqrt(std::max(0.0, *u.covariance[j][j]));
    u.stderrs[j] = se;
  }
  for (size_t i = 0; i < p; ++i)
    for (size_t j = 0; j < p; ++j)
      if (u.stderrs[i] && u.stderrs[j] && *u.stderrs[i] > 0 && *u.stderrs[j] > 0)
        u.correlation[i][j] = i == j ? 1.0 : *u.covariance[i][j] / (*u.stderrs[i] * *u.stderrs[j]);
  if (!u.unidentifiable.empty()) {
    u.note = "the Jacobian's rank is deficient: the data cannot identify ";
    for (size_t k = 0; k < u.unidentifiable.size(); ++k) u.note += (k ? ", " : "") + u.unidentifiable[k];
    u.note += " (their errors are absent)";
  }
  return u;
}

}  // namespace dmci::fit
