// The lane properties: batched = one lane at a time, and the tensor engine = the native engine, on a generated
// case whose seed is varied over B lanes. Both engines are taken from the registry (the tensor engine linked in,
// or its plugin).
#include <cmath>
#include <optional>
#include <sstream>

#include "driver/Engine.h"
#include "properties/Properties.h"

namespace dmci::props {
namespace {

// |a - b| <= rel * max(|b|, scale), or both the same non-finite value.
bool close(double a, double b, double rel, double scale) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  if (!std::isfinite(a) || !std::isfinite(b)) return false;
  return std::fabs(a - b) <= rel * std::max(std::fabs(b), scale);
}

std::string num(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

}  // namespace

Outcome checkLanes(const Case& c, const LaneOptions& opts) {
  auto program = Program::fromText(c.text, "case.scm");
  if (!program) return {Verdict::Fail, "generated program does not expand: " + program.error().str()};
  const int lanes = std::max(1, opts.lanes);
  LaneBatch batch;
  batch.count = lanes;
  for (auto& [name, values] : caseLanes(c, lanes)) {
    batch.params.push_back(name);
    batch.values.push_back(std::move(values));
  }
  auto tensorEngine = engineNamed("tensor");
  if (!tensorEngine)
    return {Verdict::Fail, "the lane property needs the tensor engine: " + tensorEngine.error().message};
  EvalOptions eopts;
  eopts.route = opts.route, eopts.wrt = c.wrt, eopts.wrtLiterals = c.wrtLiterals, eopts.budget = opts.budget;
  EvalOptions lopts = eopts;
  lopts.threads = opts.threads;
  lopts.tensor.device = opts.device;

  // Each lane alone, by the native engine.
  std::vector<Result<Evaluation>> alone;
  std::vector<std::vector<SeedValue>> seeds;
  for (int k = 0; k < lanes; ++k) {
    seeds.emplace_back();
    for (size_t j = 0; j < batch.params.size(); ++j) seeds.back().push_back({batch.params[j], batch.values[j][k]});
    alone.push_back(program->evaluate(seeds.back(), eopts));
  }
  auto native = nativeEngine().evaluateLanes(*program, batch, lopts);
  auto tensor = (*tensorEngine)->evaluateLanes(*program, batch, lopts);
  std::string route = std::string(" [") + routeName(opts.route) + "]";

  // A lane that fails alone fails both batches (the first such lane, with its error).
  for (int k = 0; k < lanes; ++k) {
    if (alone[static_cast<size_t>(k)]) continue;
    if (alone[static_cast<size_t>(k)].error().kind == ErrorKind::Budget) return {};  // runaway: nothing to compare
    std::string why = alone[static_cast<size_t>(k)].error().str();
    if (native)
      return {Verdict::Fail,
              "lane " + std::to_string(k) + " fails alone (" + why + ") but not in the native batch" + route};
    if (tensor)
      return {Verdict::Fail,
              "lane " + std::to_string(k) + " fails alone (" + why + ") but not in the tensor batch" + route};
    return {};
  }
  if (!native)
    return {Verdict::Fail, "native batch fails where every lane alone runs: " + native.error().str() + route};
  if (!tensor)
    return {Verdict::Fail, "tensor batch fails where every lane alone runs: " + tensor.error().str() + route};

  const gate::Criteria criteria;
  Outcome out;
  auto fail = [&](const std::string& why) {
    out.verdict = Verdict::Fail;
    out.detail += (out.detail.empty() ? "" : "\n") + why + route;
  };
  // Batched native = alone, bit for bit: the same machine, prepared once instead of per run (the gate's lane
  // comparison).
  auto same = gate::compareLanes(
      "native batch", batch, native, [&](size_t k) { return alone[k]; }, 0, criteria.floor);
  for (const auto& why : same.reasons) fail(why);
  for (int k = 0; k < lanes && out.ok(); ++k) {
    const Evaluation& one = *alone[static_cast<size_t>(k)];
    const std::string lane = "lane " + std::to_string(k) + ": ";
    size_t l = static_cast<size_t>(k);
    auto ng = native->laneGradient(l);
    double scale = criteria.floor;  // as the gate's relative errors: never below its floor
    for (const auto& [key, g] : one.gradient)
      if (std::isfinite(g)) scale = std::max(scale, std::fabs(g));
    // Tensor = native: values within 1e-12 relative, or, for an ill-conditioned value, within the oracle's
    // rounding spread.
    if (!close(tensor->value[l], one.value, criteria.value, criteria.floor)) {
      oracle::Point at;
      for (const auto& s : seeds[l]) at.params.emplace_back(s.name, oracle::Wide(s.value));
      auto spread = oracle::roundingSpread(*program, at, opts.budget, criteria.roundingSamples);
      if (!spread || !(std::fabs(tensor->value[l] - one.value) <= 2 * criteria.rounding * *spread)) {
        fail(lane + "tensor value " + num(tensor->value[l]) + " vs native " + num(one.value) +
             (spread ? " (rounding spread " + num(*spread) + ")" : ""));
        continue;
      }
      out.illConditioned = true;
    }
    auto tg = tensor->laneGradient(l);
    if (tg.size() != ng.size()) {
      fail(lane + "tensor has " + std::to_string(tg.size()) + " gradient components, native " +
           std::to_string(ng.size()));
      continue;
    }
    // Gradients within 1e-12 relative (of the largest component, for one that cancels). A component that
    // misses that is ill-conditioned at this seed (adjoints summed in another order round differently, and the
    // program amplifies it) when both engines are right by the gate's own test, within its finite-difference
    // tolerance (1e-6) of the oracle's 100-digit finite difference, and differ by at most 1e-8 of the scale.
    // A wrong rule in either engine fails the first; lanes that disagree more than rounding, the second.
    std::optional<Result<oracle::FdGradient>> fd;
    for (size_t j = 0; j < tg.size(); ++j) {
      double t = tg[j].second, n = ng[j].second;
      if (tg[j].first == ng[j].first && close(t, n, criteria.value, scale)) continue;
      if (!fd) {
        oracle::FdOptions fo;
        fo.budget = opts.budget;
        fd = oracle::finiteDifference(*program, seeds[l], c.wrt, c.wrtLiterals, fo);
      }
      std::optional<double> f;
      if (*fd && (**fd).differentiable)
        for (const auto& [key, g] : (**fd).gradient)
          if (key == ng[j].first) f = g;
      if (tg[j].first == ng[j].first && f && gate::relativeError(t, *f, criteria.floor) <= criteria.fd &&
          gate::relativeError(n, *f, criteria.floor) <= criteria.fd && close(t, n, criteria.closedForm, scale)) {
        out.illConditioned = true;
        continue;
      }
      fail(lane + "tensor d/d " + tg[j].first + " = " + num(t) + " vs native d/d " + ng[j].first + " = " + num(n) +
           (f ? " (finite difference " + num(*f) + ")" : ""));
    }
  }
  return out;
}

}  // namespace dmci::props
