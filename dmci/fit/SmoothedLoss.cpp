// The Monte Carlo smoothed loss of a fit (fit/SmoothedLoss.h): smooth::mcEstimate over a Model's whole loss.
#include "fit/SmoothedLoss.h"

namespace dmci::fit {

SmoothedLoss::SmoothedLoss(std::vector<std::unique_ptr<ModelSpec>> specs, std::unique_ptr<Model> crisp,
                           std::unique_ptr<Model> kernel, const smooth::SmoothSettings& s)
    : specs_(std::move(specs)), crisp_(std::move(crisp)), kernel_(std::move(kernel)), settings_(s) {
  fitted_ = crisp_->fitted();
  for (size_t k = 0; k < fitted_.variables.size(); ++k)
    if (!fitted_.isUnused(fitted_.variables[k])) perturbed_.push_back(k);
  setSmoothSigma(s.sigma);
}

void SmoothedLoss::setSmoothSigma(double sigma) {
  settings_.sigma = sigma;
  if (kernel_) kernel_->setSmoothSigma(smooth::dgoBandwidth(settings_));
}

double SmoothedLoss::loss(const std::vector<double>& theta, std::vector<double>* grad) {
  smooth::SmoothSettings s = settings_;
  s.seed = settings_.seed + draws_++ * 0x9E3779B97F4A7C15ull;
  const bool dgo = s.estimator == smooth::Estimator::Dgo;
  auto runs = [&](const std::vector<std::vector<double>>& points, int64_t count) -> Result<smooth::Runs> {
    smooth::Runs out;
    out.value.resize(static_cast<size_t>(count));
    if (dgo) out.gradient.assign(perturbed_.size(), std::vector<double>(static_cast<size_t>(count)));
    std::vector<double> at(theta.size()), g;
    for (size_t r = 0; r < static_cast<size_t>(count); ++r) {
      for (size_t p = 0; p < theta.size(); ++p) at[p] = points[p][r];
      out.value[r] = dgo ? kernel_->loss(at, &g) : crisp_->loss(at, nullptr);
      if (dgo)
        for (size_t j = 0; j < perturbed_.size(); ++j) out.gradient[j][r] = g[perturbed_[j]];
    }
    return out;
  };
  auto est = smooth::mcEstimate(runs, theta, perturbed_, s);
  if (!est) throw DmciError(est.error());
  last_ = std::move(*est);
  if (grad) {
    grad->assign(theta.size(), 0.0);
    for (size_t j = 0; j < perturbed_.size(); ++j) (*grad)[perturbed_[j]] = last_.gradient[j];
  }
  return last_.value;
}

Result<std::unique_ptr<SmoothedLoss>> makeSmoothedLoss(const ModelSpec& spec, const smooth::SmoothSettings& s) {
  std::vector<std::unique_ptr<ModelSpec>> specs;
  specs.push_back(std::make_unique<ModelSpec>(spec));
  specs.back()->smoothSigma = 0;
  auto crisp = makeModel(*specs.back());
  if (!crisp) return crisp.error();
  std::unique_ptr<Model> kernel;
  if (s.estimator == smooth::Estimator::Dgo) {
    specs.push_back(std::make_unique<ModelSpec>(spec));
    specs.back()->smoothSigma = smooth::dgoBandwidth(s);
    specs.back()->smoothMinWeight = s.minWeight;
    specs.back()->smoothDea = s.dea;
    auto k = makeModel(*specs.back());
    if (!k) return k.error();
    kernel = std::move(*k);
  }
  return std::make_unique<SmoothedLoss>(std::move(specs), std::move(*crisp), std::move(kernel), s);
}

}  // namespace dmci::fit
