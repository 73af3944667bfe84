// The Monte Carlo estimators of the smoothed program's gradient (smooth/Smooth.h): the program's own runs at
// theta + s u, made as lanes of one batch on whatever engine prepared the run, so every engine and route gives the
// same draws and, where their runs agree, the same numbers. dgo's runs are those of the si transform at the kernel
// width (Smooth.h), with their AD gradients.
#include <algorithm>
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

// N draws u; a column per parameter of `theta` (values[p][lane]) with the perturbed ones at theta + s u.
std::vector<std::vector<double>> perturbedLanes(const std::vector<double>& theta, const std::vector<size_t>& perturbed,
                                                const SmoothSettings& s, std::vector<double>& u) {
  const size_t k = perturbed.size(), n = static_cast<size_t>(s.samples);
  std::mt19937_64 rng(s.seed);
  std::normal_distribution<double> normal;
  u.assign(n * k, 0);
  for (double& x : u) x = normal(rng);
  std::vector<std::vector<double>> values(theta.size());
  for (size_t p = 0; p < theta.size(); ++p) values[p].assign(n, theta[p]);
  for (size_t d = 0; d < n; ++d)
    for (size_t j = 0; j < k; ++j) values[perturbed[j]][d] += s.sigma * u[d * k + j];
  return values;
}

// dgo: the mean of the perturbed runs' gradients of the si transform at the kernel width (see Smooth.h), made by
// `runs`.
Result<Estimate> dgoEstimate(const RunPoints& runs, const std::vector<double>& theta,
                             const std::vector<size_t>& perturbed, const SmoothSettings& s) {
  std::vector<double> u;
  auto ev = runs(perturbedLanes(theta, perturbed, s, u), s.samples);
  if (!ev) return ev.error();
  Estimate out;
  out.runs = s.samples;
  std::tie(out.value, out.valueError) = meanAndError(ev->value);
  for (size_t j = 0; j < perturbed.size(); ++j) {
    // The runs differentiate the perturbed parameters in their order.
    if (ev->gradient.size() != perturbed.size())
      return Error{ErrorKind::Usage, "dgo: the run gave no gradient for each smoothed parameter", {}};
    auto [g, e] = meanAndError(ev->gradient[j]);
    out.gradient.push_back(g);
    out.gradientError.push_back(e);
  }
  return out;
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
  if (s == "dgo") return Estimator::Dgo;
  return std::nullopt;
}

const char* modeName(Mode m) { return m == Mode::Si ? "si" : "mc"; }
const char* estimatorName(Estimator e) {
  switch (e) {
    case Estimator::Pgo:
      return "pgo";
    case Estimator::Reinforce:
      return "reinforce";
    case Estimator::Dgo:
      return "dgo";
  }
  return "?";
}

double dgoBandwidth(const SmoothSettings& s) {
  if (s.bandwidth > 0) return s.bandwidth;
  return 1.06 * s.sigma * std::pow(static_cast<double>(std::max<int64_t>(s.samples, 1)), -0.2);
}

Result<std::unique_ptr<PreparedRun>> prepareMc(Engine& engine, const Program& program,
                                               const std::vector<std::string>& names,
                                               const std::vector<std::string>& wrt, const SmoothSettings& s,
                                               EvalOptions opts, SiStats* stats) {
  if (s.estimator != Estimator::Dgo) {
    opts.gradient = false;  // the runs' values only
    return engine.prepare(program, names, opts);
  }
  opts.gradient = true;
  opts.wrt = wrt;
  opts.wrtLiterals = false;
  std::vector<std::string> all = names;
  all.push_back(kSigmaName);
  auto smoothed = catchErrors([&] { return smoothProgram(program.core(), wrt, s, stats); });
  if (!smoothed) return smoothed.error();
  return engine.prepare(program.withCore(*smoothed), all, opts);
}

std::optional<std::string> checkSettings(const SmoothSettings& s) {
  if (!(s.sigma > 0) || !std::isfinite(s.sigma))
    return "--smooth: the smoothing width must be a positive finite number (got " + formatNumber(s.sigma) + ")";
  if (s.samples < 0) return "--samples: a sample count cannot be negative (got " + std::to_string(s.samples) + ")";
  if (s.samples > kMaxSamples)
    return "--samples: at most " + std::to_string(kMaxSamples) +
           " (each run is a lane of one batch, held at once; got " + std::to_string(s.samples) + ")";
  if (s.mode == Mode::Mc && s.samples < 2)
    return "--samples: Monte Carlo smoothing needs at least 2 samples (got " + std::to_string(s.samples) + ")";
  if (!(s.minWeight >= 0 && s.minWeight < 0.5))
    return "--smooth-min-weight: must lie in [0, 0.5) (got " + formatNumber(s.minWeight) + ")";
  if (s.maxPaths < 0)
    return "--smooth-max-paths: a path count cannot be negative (got " + std::to_string(s.maxPaths) + "; 0: no limit)";
  if (!(s.bandwidth >= 0) || !std::isfinite(s.bandwidth))
    return "--smooth-bandwidth: must be a positive finite number, or 0 for the rule (got " + formatNumber(s.bandwidth) +
           ")";
  return std::nullopt;
}

Result<Estimate> mcGradient(PreparedRun& run, const std::vector<double>& theta, const std::vector<size_t>& perturbed,
                            const SmoothSettings& s) {
  // One runLanes call of all the runs; dgo's run (prepareMc's) takes the kernel width after theta's parameters.
  const bool dgo = s.estimator == Estimator::Dgo;
  return mcEstimate(
      [&](const std::vector<std::vector<double>>& points, int64_t count) -> Result<Runs> {
        std::vector<std::vector<double>> values = points;
        if (dgo) values.emplace_back(static_cast<size_t>(count), dgoBandwidth(s));
        auto ev = run.runLanes(values, count);
        if (!ev) return ev.error();
        return Runs{std::move(ev->value), std::move(ev->gradient)};
      },
      theta, perturbed, s);
}

Result<Estimate> mcEstimate(const RunPoints& runs, const std::vector<double>& theta,
                            const std::vector<size_t>& perturbed, const SmoothSettings& s) {
  if (s.estimator == Estimator::Dgo) return dgoEstimate(runs, theta, perturbed, s);
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
  auto ev = runs(values, lanes);
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
