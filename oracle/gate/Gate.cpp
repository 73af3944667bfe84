// Runs each corpus pair through the triangle (direct, interpreted routes, finite difference), on worker threads;
// Judge.cpp judges what the runs return.
#include "oracle/gate/Gate.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "lantern/Lantern.h"
#include "oracle/gate/Judge.h"
#include "smooth/Smooth.h"
#include "support/Regex.h"
#include "syntax/Datum.h"

namespace dmci::gate {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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
      if (r.status == dmci::Verdict::Nondifferentiable) r.smooth = smoothCheck(*program, pair, opts);
    }
  } catch (const std::exception& e) {
    // An escaped exception is a bug in an engine or the oracle: the pair fails and says so.
    r.reasons.push_back(std::string("internal error: ") + e.what());
  }
  if (!r.reasons.empty()) r.status = dmci::Verdict::Fail;
  r.seconds = since(t0);
  return r;
}

SmoothCheck smoothCheck(const Program& program, const GatePair& pair, const GateOptions& opts) {
  SmoothCheck c;
  std::vector<std::string> names;
  std::vector<double> theta;
  for (const auto& b : pair.bind) names.push_back(b.name), theta.push_back(b.value);
  std::vector<std::string> wrt;
  std::vector<size_t> perturbed;
  for (const auto& w : pair.wrt)
    for (size_t k = 0; k < names.size(); ++k)
      if (names[k] == w) wrt.push_back(w), perturbed.push_back(k);
  if (wrt.empty()) {
    c.skipped = "no named parameter to smooth over";
    return c;
  }
  smooth::SmoothSettings s;
  s.sigma = SmoothCheck::kSigma;
  s.dea = true;  // the exact smoothing of a linear distance, whatever its gradient
  EvalOptions eo = pairOptions(pair, Route::Direct, opts);
  eo.wrt = wrt;
  eo.wrtLiterals = false;
  smooth::SiStats st;
  std::vector<SeedValue> seed = pair.bind;
  seed.push_back({smooth::kSigmaName, s.sigma});
  auto si = engineOf(opts).evaluate(program.withCore(smooth::smoothProgram(program.core(), wrt, s, &st)), seed, eo);
  if (!si) {
    c.skipped = "si: " + si.error().str();
    return c;
  }
  c.si = si->gradient;
  c.smoothed = st.smoothed;
  s.mode = smooth::Mode::Mc;
  s.samples = SmoothCheck::kSamples;
  auto run = smooth::prepareMc(engineOf(opts), program, names, wrt, s, eo);
  auto ref = run ? smooth::mcGradient(**run, theta, perturbed, s) : Result<smooth::Estimate>(run.error());
  if (!ref) {
    c.skipped = "pgo: " + ref.error().str();
    return c;
  }
  c.agrees = true;
  for (size_t j = 0; j < wrt.size(); ++j) {
    c.reference.emplace_back(wrt[j], ref->gradient[j]);
    c.referenceError.emplace_back(wrt[j], ref->gradientError[j]);
    double siJ = 0;
    for (const auto& [k, v] : c.si)
      if (k == wrt[j]) siJ = v;
    const double miss = std::fabs(siJ - ref->gradient[j]);
    const double z = miss == 0 ? 0 : std::isnan(miss) ? HUGE_VAL : miss / ref->gradientError[j];
    c.worstZ = std::max(c.worstZ, z);
    if (!(z <= 4)) c.agrees = false;
  }
  return c;
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
                      [](const PairResult& r) { return r.status == dmci::Verdict::Fail; });
}

}  // namespace dmci::gate
