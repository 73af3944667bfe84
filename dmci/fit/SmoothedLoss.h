// The fit's objective smoothed by Monte Carlo (`dmci fit --smooth SIGMA --smooth-mode mc`): the Gaussian-smoothed
// LOSS E_u[L(theta + SIGMA u)], u ~ N(0, I) over the fitted values the program uses, with its gradient estimated by
// smooth::mcEstimate's estimators from the whole data loss L of a Model (Model::loss, one function of theta: no
// per-row code here). pgo and reinforce evaluate the crisp model's loss at the perturbed points; dgo averages the
// AD gradients of the loss of the si-smoothed model at the kernel width h (a Model made with smoothSigma = h: what
// smooth/MonteCarlo.cpp's dgo does per run of the program). Each evaluation draws afresh: the k-th (k = 0, 1, ...,
// the start's first) from the seed S + k * 0x9E3779B97F4A7C15 (mod 2^64), so the start's estimate is `dmci grad
// --smooth-mode mc --seed S`'s, and the same seed gives the same fit. The objective is noisy, so only a stochastic
// optimizer (adam) can take it; the held-out loss, the predictions and the inputs are the crisp model's.
#pragma once
#include <memory>

#include "fit/Model.h"
#include "smooth/Smooth.h"

namespace dmci::fit {

class SmoothedLoss : public Model {
 public:
  // `crisp` is the unsmoothed model, `kernel` (dgo only, else null) the si-smoothed one, whose width this sets;
  // `specs` are what they were made from (a model refers to its spec), kept as long as they are.
  SmoothedLoss(std::vector<std::unique_ptr<ModelSpec>> specs, std::unique_ptr<Model> crisp,
               std::unique_ptr<Model> kernel, const smooth::SmoothSettings& s);
  // The estimate of the smoothed loss at theta (a fresh draw), and with `grad` the estimated gradient (0 for a
  // fitted name the program does not use).
  double loss(const std::vector<double>& theta, std::vector<double>* grad) override;
  // The last estimate made (value, gradient and their standard errors).
  const smooth::Estimate& last() const { return last_; }
  std::optional<double> holdoutLoss(const std::vector<double>& theta) override { return crisp_->holdoutLoss(theta); }
  std::vector<double> predict(const std::vector<double>& theta) override { return crisp_->predict(theta); }
  std::vector<std::string> inputs() const override { return crisp_->inputs(); }
  // SIGMA from now on (dgo: its kernel width too, by dgoBandwidth unless --smooth-bandwidth fixed it).
  void setSmoothSigma(double sigma) override;
  // The draws made so far (the next one's k).
  uint64_t draws() const { return draws_; }

 private:
  std::vector<std::unique_ptr<ModelSpec>> specs_;
  std::unique_ptr<Model> crisp_, kernel_;
  smooth::SmoothSettings settings_;
  std::vector<size_t> perturbed_;  // the places in theta of the fitted values the program uses
  uint64_t draws_ = 0;
  smooth::Estimate last_;
};

// The model of `spec` (its smoothing fields ignored) smoothed by `s` (mode mc, checked by smooth::checkSettings).
Result<std::unique_ptr<SmoothedLoss>> makeSmoothedLoss(const ModelSpec& spec, const smooth::SmoothSettings& s);

}  // namespace dmci::fit
