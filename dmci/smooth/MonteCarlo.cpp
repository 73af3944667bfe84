// The Monte Carlo estimators of the smoothed program's gradient (smooth/Smooth.h): the program's own runs at
// theta + s u, made as lanes of one batch on whatever engine prepared the run, so every engine and route gives the
// same draws and, where their runs agree, the same numbers.
#include <cmath>
#include <random>

#include "smooth/Smooth.h"
#include "support/JsonNumber.h"

namespace dmci::smooth {
namespace {

// The mean and the standard error of the mean of xs (0 for a single x).
std::pair<double, double> meanAndError(const std::vector<double>& xs) {
  const double n = static_cast<double>(xs.size());
  double mean = 0;
  for (double x : xs) mean += x;
  mean /= n;
  if (xs.size() < 2) return {mean, 0.0};
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return {mean, std::sqrt(ss / (n - 1) / n)};
}

}  // namespace

std::optional<Mode> parseMode(const std::string& s) {
  if (s == "si") return Mode::Si;
  if (s == "mc") return Mode::Mc;
  return std::nullopt;
}

std::optional<Estimator> parseEstimator(const std::string& s) {
  if (s == "pgo") return Estimator::Pgo;
  if (s == "reinforce") return Estimator::Reinforce;
  return std::nullopt;
}

const char* modeName(Mode m) { return m == Mode::Si ? "si" : "mc"; }
const char* estimatorName(Estimator e) { return e == Estimator::Pgo ? "pgo" : "reinforce"; }

std::optional<std::string> checkSettings(const SmoothSettings& s) {
  if (!(s.sigma > 0) || !std::isfinite(s.sigma))
    return "--smooth: the smoothing width must be a positive finite number (got " + formatNumber(s.sigma) + ")";
  if (s.samples < 0) return "--samples: a sample count cannot be negative (got " + std::to_string(s.samples) + ")";
  if (s.mode == Mode::Mc && s.samples < 2)
    return "--samples: Monte Carlo smoothing needs at least 2 samples (got " + std::to_string(s.samples) + ")";
  if (!(s.minWeight >= 0 && s.minWeight < 0.5))
    return "--smooth-min-weight: must lie in [0, 0.5) (got " + formatNumber(s.minWeight) + ")";
  return std::nullopt;
}

Result<Estimate> mcGradient(PreparedRun& run, const std::vector<double>& theta, const std::vector<size_t>& perturbed,
                            const SmoothSettings& s) {
  const bool pgo = s.estimator == Estimator::Pgo;
  // pgo: pairs of lanes theta + s u, theta - s u; reinforce: one lane per draw.
  const int64_t draws = pgo ? (s.samples + 1) / 2 : s.samples;
  const int64_t lanes = pgo ? 2 * draws : draws;
  const size_t k = perturbed.size();
  std::mt19937_64 rng(s.seed);
  std::normal_distribution<double> normal;
  std::vector<double> u(static_cast<size_t>(draws) * k);  // [draw][parameter]
  for (double& x : u) x = normal(rng);

  std::vector<std::vector<double>> values(theta.size());
  for (size_t p = 0; p < theta.size(); ++p) values[p].assign(static_cast<size_t>(lanes), theta[p]);
  for (int64_t d = 0; d < draws; ++d)
    for (size_t j = 0; j < k; ++j) {
      const double step = s.sigma * u[static_cast<size_t>(d) * k + j];
      auto& col = values[perturbed[j]];
      if (pgo) {
        col[static_cast<size_t>(2 * d)] += step;
        col[static_cast<size_t>(2 * d + 1)] -= step;
      } else {
        col[static_cast<size_t>(d)] += step;
      }
    }
  auto ev = run.runLanes(values, lanes);
  if (!ev) return ev.error();
  const std::vector<double>& f = ev->value;

  Estimate out;
  out.runs = lanes;
  std::vector<double> samples(static_cast<size_t>(draws));
  if (pgo) {
    for (int64_t d = 0; d < draws; ++d)
      samples[static_cast<size_t>(d)] = 0.5 * (f[static_cast<size_t>(2 * d)] + f[static_cast<size_t>(2 * d + 1)]);
  } else {
    samples = f;
  }
  std::tie(out.value, out.valueError) = meanAndError(samples);

  // reinforce's baseline for draw d: the mean of the other draws' values (leave one out), so it is independent of
  // u_d and the estimate stays unbiased.
  double total = 0;
  for (double x : f) total += x;
  for (size_t j = 0; j < k; ++j) {
    for (int64_t d = 0; d < draws; ++d) {
      const size_t i = static_cast<size_t>(d);
      const double uj = u[i * k + j];
      if (pgo)
        samples[i] = (f[2 * i] - f[2 * i + 1]) / (2 * s.sigma) * uj;
      else
        samples[i] = (f[i] - (total - f[i]) / static_cast<double>(draws - 1)) / s.sigma * uj;
    }
    auto [g, e] = meanAndError(samples);
    out.gradient.push_back(g);
    out.gradientError.push_back(e);
  }
  return out;
}

}  // namespace dmci::smooth
