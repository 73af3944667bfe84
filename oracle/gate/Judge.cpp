// Judges one corpus pair: every route's value and gradient against direct's, the oracle's and the manifest's
// closed forms, and the status against the manifest's expectation. The runs themselves are made in Gate.cpp.
#include "oracle/gate/Judge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace dmci::gate {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr size_t kMaxReasonsPerComparison = 5;

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

}  // namespace

void raise(std::optional<double>& worst, double e) {
  if (!worst || e > *worst || std::isnan(e)) worst = e;
}

namespace {

// Adds failure reasons to one pair's verdict, capping repeats per comparison.
class Findings {
 public:
  Findings(PairResult& r, const Criteria& c) : r_(r), c_(c) {}

  void fail(std::string reason) { r_.reasons.push_back(std::move(reason)); }

  // got vs ref by key; returns the largest relative error (infinite if the key sets differ). With `spread` (the
  // reference's rounding spread by key), a component over `tol` still agrees when it misses by at most
  // `rounding` times its spread: the gradient is ill-conditioned, and that is noted.
  double gradients(const std::string& gotName, const Gradient& got, const std::string& refName, const Gradient& ref,
                   double tol, const Gradient* spread = nullptr) {
    std::map<std::string, double> refs(ref.begin(), ref.end()), gots(got.begin(), got.end());
    std::map<std::string, double> spreads;
    if (spread) spreads.insert(spread->begin(), spread->end());
    std::string what = "gradient " + gotName + " vs " + refName;
    double worst = 0;
    size_t over = 0, noted = 0;
    for (const auto& [k, a] : got) {
      auto it = refs.find(k);
      if (it == refs.end()) {
        fail(what + ": " + gotName + " has a component d/d " + k + " that " + refName + " lacks");
        worst = kInf;
        continue;
      }
      double e = relativeError(a, it->second, c_.floor);
      worst = std::max(worst, e);
      auto s = spreads.find(k);
      if (!(e <= tol) && s != spreads.end() && std::isfinite(a) &&
          std::fabs(a - it->second) <= c_.rounding * s->second) {
        if (noted++ < kMaxReasonsPerComparison)
          r_.notes.push_back(what + ": d/d " + k + " = " + formatNumber(a) + " vs " + formatNumber(it->second) +
                             " (relative error " + sci(e) + ") is within " + formatNumber(c_.rounding) +
                             "x the rounding spread " + sci(s->second) + ": the gradient is ill-conditioned");
        continue;
      }
      if (!(e <= tol) && over++ < kMaxReasonsPerComparison)
        fail(what + ": d/d " + k + " = " + formatNumber(a) + " vs " + formatNumber(it->second) + " (relative error " +
             sci(e) + " > " + sci(tol) + ")");
    }
    if (over > kMaxReasonsPerComparison)
      fail(what + ": and " + std::to_string(over - kMaxReasonsPerComparison) + " more components over tolerance");
    for (const auto& [k, b] : ref)
      if (!gots.count(k)) {
        fail(what + ": " + gotName + " lacks the component d/d " + k + " that " + refName + " has");
        worst = kInf;
      }
    return worst;
  }

  // One number against a reference; returns the relative error.
  double value(const std::string& what, double got, double ref, double tol) {
    double e = relativeError(got, ref, c_.floor);
    if (!(e <= tol))
      fail(what + ": " + formatNumber(got) + " vs " + formatNumber(ref) + " (relative error " + sci(e) + " > " +
           sci(tol) + ")");
    return e;
  }

 private:
  PairResult& r_;
  const Criteria& c_;
};

// An engine's value against the oracle's: within `value`, or within `rounding` times the oracle's rounding
// spread (then noted). Returns the relative error.
double vsOracle(PairResult& r, Findings& v, const Criteria& c, const std::string& name, double got) {
  std::string what = "value " + name + " vs oracle";
  double e = relativeError(got, r.oracle.value, c.floor);
  if (!(e <= c.value) && r.oracle.roundingSpread && std::isfinite(got) &&
      std::fabs(got - r.oracle.value) <= c.rounding * *r.oracle.roundingSpread) {
    r.notes.push_back(what + ": " + formatNumber(got) + " vs " + formatNumber(r.oracle.value) + " (relative error " +
                      sci(e) + ") is within " + formatNumber(c.rounding) + "x the rounding spread " +
                      sci(*r.oracle.roundingSpread) + ": the value is ill-conditioned");
    return e;
  }
  std::string spread = r.oracle.roundingSpread ? ", rounding spread " + sci(*r.oracle.roundingSpread) : "";
  return v.value(what + spread, got, r.oracle.value, c.value);
}

// Every route = direct = the oracle's value.
void compareValues(PairResult& r, Findings& v, const Criteria& c) {
  const RouteRun& direct = r.routes.front();
  if (r.oracle.ok) raise(r.errors.value, vsOracle(r, v, c, "direct", direct.value));
  for (size_t k = 1; k < r.routes.size(); ++k) {
    const RouteRun& rr = r.routes[k];
    if (!rr.ok) continue;
    std::string name = routeName(rr.route);
    raise(r.errors.value, v.value("value " + name + " vs direct", rr.value, direct.value, c.value));
    if (r.oracle.ok) raise(r.errors.value, vsOracle(r, v, c, name, rr.value));
  }
}

}  // namespace

namespace {

// Whether some component of `got` misses `ref`'s by more than `tol` (a component one lacks is left to
// Findings::gradients).
bool gradientMisses(const Gradient& got, const Gradient& ref, double tol, double floor) {
  std::map<std::string, double> refs(ref.begin(), ref.end());
  for (const auto& [k, a] : got) {
    auto it = refs.find(k);
    if (it != refs.end() && !(relativeError(a, it->second, floor) <= tol)) return true;
  }
  return false;
}

}  // namespace

void measureRounding(const Program& program, PairResult& r, const GateOptions& opts) {
  const Criteria& c = opts.criteria;
  if (!r.oracle.ok || c.rounding <= 0 || c.roundingSamples <= 0) return;
  bool valueMisses = false, gradientMissesFd = false;
  for (const auto& rr : r.routes) {
    if (!rr.ok) continue;
    valueMisses = valueMisses || !(relativeError(rr.value, r.oracle.value, c.floor) <= c.value);
    gradientMissesFd = gradientMissesFd || gradientMisses(rr.gradient, r.oracle.gradient, c.fd, c.floor);
  }
  if (valueMisses) {
    oracle::Point point;
    for (const auto& s : r.pair.bind) point.params.emplace_back(s.name, oracle::Wide(s.value));
    auto spread = oracle::roundingSpread(program, point, opts.fd.budget, c.roundingSamples);
    if (spread) r.oracle.roundingSpread = *spread;
  }
  if (gradientMissesFd && r.oracle.differentiable) {
    auto spread =
        oracle::gradientRoundingSpread(program, r.pair.bind, r.pair.wrt, r.pair.literals, opts.fd, c.roundingSamples);
    if (spread) r.oracle.gradientRoundingSpread = *spread;
  }
}

namespace {

// Which routes disagree with the finite difference, when some do and some do not: a wrong adjoint rule in the
// engines' tape fails direct and dmci alike, and the tape-free lantern route shows which side is wrong.
void attribute(PairResult& r, const std::vector<std::pair<const char*, bool>>& agreesWithFd) {
  std::string fails, agrees;
  auto add = [](std::string& to, const char* name) { to += (to.empty() ? "" : ", ") + std::string(name); };
  for (const auto& [name, agreed] : agreesWithFd) add(agreed ? agrees : fails, name);
  if (!fails.empty() && !agrees.empty())
    r.reasons.push_back("disagreeing with the finite difference: " + fails + "; agreeing: " + agrees);
}

// Each interpreted route's gradient vs direct's, and (at a smooth seed) every engine's vs the FD: within
// `fd`, or within the rounding rule of the oracle's gradient spread (when measured).
void compareGradients(PairResult& r, Findings& v, const Criteria& c, bool smooth) {
  const Gradient* spread = r.oracle.gradientRoundingSpread ? &*r.oracle.gradientRoundingSpread : nullptr;
  std::vector<std::pair<const char*, bool>> agreesWithFd;
  auto vsFd = [&](const char* name, const Gradient& g) {
    const size_t before = r.reasons.size();
    double e = v.gradients(name, g, "fd", r.oracle.gradient, c.fd, spread);
    agreesWithFd.emplace_back(name, r.reasons.size() == before);
    return e;
  };
  const RouteRun& direct = r.routes.front();
  if (smooth) r.errors.directVsFd = vsFd("direct", direct.gradient);
  for (size_t k = 1; k < r.routes.size(); ++k) {
    const RouteRun& rr = r.routes[k];
    if (!rr.ok) continue;
    RouteErrors e{rr.route, std::nullopt, std::nullopt};
    const bool lantern = byLantern(rr.route);
    e.vsDirect = v.gradients(routeName(rr.route), rr.gradient, "direct", direct.gradient, c.ad);
    raise(lantern ? r.errors.lanternVsDirect : r.errors.dmciVsDirect, *e.vsDirect);
    if (smooth) {
      e.vsFd = vsFd(routeName(rr.route), rr.gradient);
      raise(lantern ? r.errors.lanternVsFd : r.errors.dmciVsFd, *e.vsFd);
    }
    r.errors.byRoute.push_back(e);
  }
  if (smooth) attribute(r, agreesWithFd);
}

// The manifest's closed forms vs every gradient that was computed (components only at a smooth seed).
void compareClosedForms(PairResult& r, Findings& v, const Criteria& c, bool smooth) {
  std::vector<std::pair<std::string, const Gradient*>> sources;
  for (const auto& rr : r.routes)
    if (rr.ok) sources.emplace_back(routeName(rr.route), &rr.gradient);
  if (r.oracle.ok) sources.emplace_back("fd", &r.oracle.gradient);
  for (const auto& [key, exact] : r.pair.closedForm) {
    if (!smooth) break;
    for (const auto& [name, g] : sources) {
      auto it = std::find_if(g->begin(), g->end(), [&](const auto& kv) { return kv.first == key; });
      if (it == g->end()) {
        v.fail("closed form: the " + name + " gradient has no component d/d " + key);
        raise(r.errors.closedForm, kInf);
        continue;
      }
      raise(r.errors.closedForm, v.value("closed form d/d " + key + " vs " + name, it->second, exact, c.closedForm));
    }
  }
  if (!r.pair.closedValue) return;
  for (const auto& rr : r.routes)
    if (rr.ok)
      raise(r.errors.closedForm, v.value(std::string("closed value vs ") + routeName(rr.route), rr.value,
                                         *r.pair.closedValue, c.closedForm));
  if (r.oracle.ok)
    raise(r.errors.closedForm, v.value("closed value vs oracle", r.oracle.value, *r.pair.closedValue, c.closedForm));
}

}  // namespace

LaneComparison compareLanes(const std::string& label, const LaneBatch& lanes, const Result<LaneEvaluation>& batch,
                            const std::function<Result<Evaluation>(size_t)>& alone, double tol, double floor) {
  constexpr size_t kMaxLaneFailures = 3;
  LaneComparison out;
  PairResult scratch;  // Findings' reasons land here
  Criteria c;
  c.floor = floor;
  Findings v(scratch, c);
  const size_t n = static_cast<size_t>(lanes.lanes());
  if (!batch) {
    v.fail(label + ": the batch of " + std::to_string(n) + " lanes failed: " + batch.error().str());
    out.worst = kInf;
    out.reasons = std::move(scratch.reasons);
    return out;
  }
  size_t failing = 0;
  for (size_t lane = 0; lane < n; ++lane) {
    std::string at = label + ", lane " + std::to_string(lane) + " (";
    for (size_t k = 0; k < lanes.params.size(); ++k)
      at += (k ? ", " : "") + lanes.params[k] + "=" + formatNumber(lanes.values[k][lane]);
    at += ")";
    auto one = alone(lane);
    ++out.lanesCompared;
    size_t before = scratch.reasons.size();
    if (!one) {
      v.fail(at + ": fails alone (" + one.error().str() + ") but not in the batch");
      out.worst = kInf;
    } else {
      out.worst = std::max(out.worst, v.value(at + ": value batched vs alone", batch->value[lane], one->value, tol));
      double e = v.gradients(at + " batched", batch->laneGradient(lane), "alone", one->gradient, tol);
      out.worst = std::isnan(e) ? e : std::max(out.worst, e);
    }
    if (scratch.reasons.size() > before && ++failing == kMaxLaneFailures && lane + 1 < n) {
      v.fail(label + ": lanes after " + std::to_string(lane) + " not compared (" + std::to_string(kMaxLaneFailures) +
             " lanes already disagree)");
      break;
    }
  }
  out.reasons = std::move(scratch.reasons);
  return out;
}

namespace {

// A status other than the manifest's expectation is a failure.
void checkExpectation(PairResult& r, Findings& v) {
  if (!r.oracle.ok) return;
  if (r.pair.expect == Expect::Pass && !r.oracle.differentiable)
    v.fail("expected pass, but the oracle finds the program nondifferentiable at the seed: " + r.oracle.reason);
  if (r.pair.expect == Expect::Nondifferentiable && r.oracle.differentiable)
    v.fail("expected nondifferentiable, but the oracle finds the program smooth at the seed");
}

}  // namespace

void judge(PairResult& r, const Criteria& c) {
  Findings v(r, c);
  for (const auto& rr : r.routes)
    if (!rr.ok) v.fail(std::string(routeName(rr.route)) + " failed: " + rr.error);
  if (!r.oracle.ok) v.fail("oracle failed: " + r.oracle.error);
  if (r.routes.front().ok) {
    bool smooth = r.oracle.ok && r.oracle.differentiable;
    compareValues(r, v, c);
    compareGradients(r, v, c, smooth);
    compareClosedForms(r, v, c, smooth);
  }
  checkExpectation(r, v);
  if (!r.reasons.empty())
    r.status = dmci::Verdict::Fail;
  else
    r.status = r.oracle.differentiable ? dmci::Verdict::Pass : dmci::Verdict::Nondifferentiable;
}

double relativeError(double a, double b, double floor) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return 0;
  if (!std::isfinite(a) || !std::isfinite(b)) return kInf;
  return std::fabs(a - b) / std::max(std::fabs(b), floor);
}

}  // namespace dmci::gate
