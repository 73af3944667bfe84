// Runs each corpus pair through the triangle (direct, interpreted routes, finite difference) and judges it.
#include "oracle/gate/Gate.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "driver/Regex.h"
#include "lantern/Lantern.h"
#include "syntax/Datum.h"

namespace dmci::gate {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr size_t kMaxReasonsPerComparison = 5;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// The larger of an optional running maximum and a new error.
void raise(std::optional<double>& worst, double e) {
  if (!worst || e > *worst || std::isnan(e)) worst = e;
}

// Reads corpus_dir/file and names the program `file`, so literal keys are relative to the corpus.
Result<Program> loadProgram(const std::string& dir, const std::string& file) {
  std::string path = dir.empty() ? file : dir + (dir.back() == '/' ? "" : "/") + file;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read " + path, {}};
  std::ostringstream s;
  s << in.rdbuf();
  return Program::fromText(s.str(), file);
}

EvalOptions pairOptions(const GatePair& pair, Route route, const GateOptions& gate) {
  EvalOptions opts;
  opts.route = route;
  opts.gradient = true;
  opts.wrt = pair.wrt;
  opts.wrtLiterals = pair.literals;
  opts.budget = gate.budget;
  opts.threads = gate.threads;
  opts.tensor = gate.tensor;
  return opts;
}

Engine& engineOf(const GateOptions& gate) { return gate.engine ? *gate.engine : nativeEngine(); }

RouteRun runRoute(const Program& program, const GatePair& pair, Route route, const GateOptions& gate) {
  auto t0 = Clock::now();
  RouteRun r;
  r.route = route;
  EvalOptions opts = pairOptions(pair, route, gate);
  auto ev = engineOf(gate).evaluate(program, pair.bind, opts);
  if (ev) {
    r.ok = true;
    r.value = ev->value;
    r.gradient = ev->gradient;
  } else {
    r.error = ev.error().str();
  }
  r.seconds = since(t0);
  return r;
}

OracleRun runOracle(const Program& program, const GatePair& pair, const oracle::FdOptions& fd) {
  auto t0 = Clock::now();
  OracleRun r;
  auto g = oracle::finiteDifference(program, pair.bind, pair.wrt, pair.literals, fd);
  if (g) {
    r.ok = true;
    r.value = g->value;
    r.gradient = g->gradient;
    r.differentiable = g->differentiable;
    r.reason = g->reason;
  } else {
    r.error = g.error().str();
  }
  r.seconds = since(t0);
  return r;
}

// Adds failure reasons to one pair's verdict, capping repeats per comparison.
class Verdict {
 public:
  Verdict(PairResult& r, const Criteria& c) : r_(r), c_(c) {}

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
double vsOracle(PairResult& r, Verdict& v, const Criteria& c, const std::string& name, double got) {
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
void compareValues(PairResult& r, Verdict& v, const Criteria& c) {
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

// Whether some component of `got` misses `ref`'s by more than `tol` (a component one lacks is left to
// Verdict::gradients).
bool gradientMisses(const Gradient& got, const Gradient& ref, double tol, double floor) {
  std::map<std::string, double> refs(ref.begin(), ref.end());
  for (const auto& [k, a] : got) {
    auto it = refs.find(k);
    if (it != refs.end() && !(relativeError(a, it->second, floor) <= tol)) return true;
  }
  return false;
}

// When an engine's value misses the oracle's, how far rounding to double can move it; when an engine's
// gradient misses the finite difference at a smooth seed, how far rounding can move each component.
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
void compareGradients(PairResult& r, Verdict& v, const Criteria& c, bool smooth) {
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
void compareClosedForms(PairResult& r, Verdict& v, const Criteria& c, bool smooth) {
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
  PairResult scratch;  // Verdict's reasons land here
  Criteria c;
  c.floor = floor;
  Verdict v(scratch, c);
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

// Lanes: each route runs the pair's lanes as one batch, and each lane alone; value and every gradient
// component must agree within criteria.batched (0: bit for bit). At most 3 failing lanes are named per route.
void checkLanes(const Program& program, PairResult& r, const GateOptions& opts) {
  const GatePair& pair = r.pair;
  if (pair.lanes.empty()) return;
  const size_t n = pair.laneCount();
  r.lanes = n;
  LaneBatch lanes{{}, {}, 1};
  for (const auto& b : pair.bind) {
    lanes.params.push_back(b.name);
    auto it = std::find_if(pair.lanes.begin(), pair.lanes.end(), [&](const auto& l) { return l.first == b.name; });
    lanes.values.push_back(it != pair.lanes.end() ? it->second : std::vector<double>(n, b.value));
  }
  for (Route route : pair.routes) {
    if (byLantern(route)) continue;  // lantern runs one lane at a time on the native engine
    EvalOptions eo = pairOptions(pair, route, opts);
    auto batch = engineOf(opts).evaluateLanes(program, lanes, eo);
    auto alone = [&](size_t lane) { return engineOf(opts).evaluate(program, lanes.seed(lane), eo); };
    auto cmp = compareLanes(std::string("lanes, ") + routeName(route), lanes, batch, alone, opts.criteria.batched,
                            opts.criteria.floor);
    raise(r.errors.batchedVsAlone, cmp.worst);
    for (auto& why : cmp.reasons) r.reasons.push_back(std::move(why));
  }
}

// A status other than the manifest's expectation is a failure.
void checkExpectation(PairResult& r, Verdict& v) {
  if (!r.oracle.ok) return;
  if (r.pair.expect == Expect::Pass && !r.oracle.differentiable)
    v.fail("expected pass, but the oracle finds the program nondifferentiable at the seed: " + r.oracle.reason);
  if (r.pair.expect == Expect::Nondifferentiable && r.oracle.differentiable)
    v.fail("expected nondifferentiable, but the oracle finds the program smooth at the seed");
}

void judge(PairResult& r, const Criteria& c) {
  Verdict v(r, c);
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
    r.status = Status::Fail;
  else
    r.status = r.oracle.differentiable ? Status::Pass : Status::Nondifferentiable;
}

// Runs on a thread of its own with a large stack: the oracle is a recursive
// tree-walker, and corpus programs recurse 1,000 deep and more.
class Worker {
 public:
  static constexpr size_t kStackBytes = size_t{256} << 20;

  explicit Worker(std::function<void()> body) : body_(std::move(body)) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kStackBytes);
    int rc = pthread_create(&thread_, &attr, &Worker::enter, this);
    pthread_attr_destroy(&attr);
    if (rc != 0) throw std::runtime_error("dmci check: cannot start a worker thread");
  }
  ~Worker() { pthread_join(thread_, nullptr); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

 private:
  static void* enter(void* self) {
    static_cast<Worker*>(self)->body_();
    return nullptr;
  }
  std::function<void()> body_;
  pthread_t thread_{};
};

}  // namespace

const char* statusName(Status s) {
  switch (s) {
    case Status::Pass:
      return "pass";
    case Status::Fail:
      return "fail";
    case Status::Nondifferentiable:
      return "nondifferentiable";
  }
  return "?";
}

double relativeError(double a, double b, double floor) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return 0;
  if (!std::isfinite(a) || !std::isfinite(b)) return kInf;
  return std::fabs(a - b) / std::max(std::fabs(b), floor);
}

std::vector<GatePair> selectPairs(const std::vector<GatePair>& pairs, const std::string& filter) {
  if (filter.empty()) return pairs;
  std::optional<std::regex> re;
  try {
    re.emplace(filter);
  } catch (const std::regex_error&) {
    re.reset();  // not a regular expression: match it as a substring
  }
  std::vector<GatePair> out;
  for (const auto& p : pairs) {
    bool hit = re ? std::regex_search(p.name, *re) : p.name.find(filter) != std::string::npos;
    if (hit) out.push_back(p);
  }
  return out;
}

PairResult checkPair(const std::string& dir, const GatePair& pair, const GateOptions& opts) {
  auto t0 = Clock::now();
  PairResult r;
  r.pair = pair;
  try {
    auto program = loadProgram(dir, pair.file);
    if (!program) {
      r.reasons.push_back("program " + pair.file + ": " + program.error().str());
    } else {
      std::vector<Route> routes = pair.routes;
      if (opts.lantern && std::find(routes.begin(), routes.end(), Route::Lantern) == routes.end())
        routes.push_back(Route::Lantern);
      for (const auto& name : lanternUncoveredIn(*program->core()))
        r.lanternUncovered += (r.lanternUncovered.empty() ? "" : " ") + name;
      for (Route route : routes)
        if (!byLantern(route) || r.lanternUncovered.empty()) r.routes.push_back(runRoute(*program, pair, route, opts));
      r.oracle = runOracle(*program, pair, opts.fd);
      measureRounding(*program, r, opts);
      checkLanes(*program, r, opts);
      judge(r, opts.criteria);
    }
  } catch (const std::exception& e) {
    // An escaped exception is a bug in an engine or the oracle: the pair fails and says so.
    r.reasons.push_back(std::string("internal error: ") + e.what());
  }
  if (!r.reasons.empty()) r.status = Status::Fail;
  r.seconds = since(t0);
  return r;
}

GateRun runGate(const std::string& dir, const std::vector<GatePair>& pairs, const GateOptions& opts) {
  auto t0 = Clock::now();
  GateRun run;
  run.dir = dir;
  run.criteria = opts.criteria;
  run.results.resize(pairs.size());
  size_t jobs = static_cast<size_t>(std::max(1, opts.jobs));
  jobs = std::max<size_t>(1, std::min(jobs, pairs.size()));
  run.jobs = static_cast<int>(jobs);
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::mutex mu;
  auto work = [&] {
    for (size_t k; (k = next++) < pairs.size();) {
      PairResult r = checkPair(dir, pairs[k], opts);
      std::lock_guard<std::mutex> lock(mu);
      run.results[k] = std::move(r);
      if (opts.progress) opts.progress(++done, pairs.size(), pairs[k].name);
    }
  };
  {
    std::vector<std::unique_ptr<Worker>> workers;
    for (size_t j = 0; j < jobs; ++j) workers.push_back(std::make_unique<Worker>(work));
  }  // joined here
  run.seconds = since(t0);
  return run;
}

bool gatePassed(const GateRun& run) {
  return std::none_of(run.results.begin(), run.results.end(),
                      [](const PairResult& r) { return r.status == Status::Fail; });
}

}  // namespace dmci::gate
