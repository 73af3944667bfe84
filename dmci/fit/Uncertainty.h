// How sure a least-squares fit is: the fitted values' standard errors, covariance, correlation and 95% confidence
// intervals, as scipy's curve_fit, R's nls and NIST's StRD report them. At the fitted θ̂ with the training rows'
// Jacobian J (n rows, p fitted values; the lanes' exact per-row gradients) and residual sum of squares RSS:
//   s² = RSS / (n − p)            (the residual variance, on n − p degrees of freedom)
//   Cov = s² (JᵀJ)⁻¹              (from the SVD of J with unit-norm columns, so that scales of 1e-6 beside 1e3
//                                  do not matter)
//   stderr_j = √Cov_jj,  corr_jk = Cov_jk / (stderr_j stderr_k),  CI = θ̂_j ± t_{0.975, n−p} stderr_j.
// A Jacobian of deficient rank leaves some values unidentifiable by the data: they are named, and their entries are
// absent (null in JSON), never NaN. Only plain least squares (mse) has these errors: a robust loss, mae, or
// objective mode has none, nor a fit with no more rows than values.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace dmci::fit {

class Model;

struct Uncertainty {
  size_t rows = 0, values = 0;                                 // n, p
  size_t dof = 0;                                              // n − p
  double rss = 0, sigma2 = 0;                                  // RSS, s²
  std::vector<std::optional<double>> stderrs;                  // per fitted value (absent: unidentifiable)
  std::vector<std::vector<std::optional<double>>> covariance;  // p × p
  std::vector<std::vector<std::optional<double>>> correlation;
  double t975 = 0;  // the t distribution's 97.5% quantile on dof: the 95% interval is θ̂ ± t975·stderr
  std::vector<std::string> unidentifiable;  // the names of the values the data cannot fix
  std::string note;                         // why some are absent, in words
};

// The uncertainty of `theta` on the model's training rows; nullopt when the fit is not plain least squares or
// has no residual degrees of freedom. A fitted name the program does not use (Fitted::unused) takes no part:
// p and n − p count the others, and it is named unidentifiable with no error, the note saying why. A program error
// evaluating the Jacobian is thrown (DmciError).
std::optional<Uncertainty> uncertaintyOf(Model& model, const std::vector<double>& theta);

// The same from the residuals and their Jacobian (row-major n × p) directly; `names` name the p columns.
std::optional<Uncertainty> uncertaintyOf(const std::vector<double>& residuals, const std::vector<double>& jacobian,
                                         const std::vector<std::string>& names);

}  // namespace dmci::fit
