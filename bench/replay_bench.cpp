// Staged replay against the interpreter and the tensor engine, side by side in one run.
//
// Names: BM_Replay/<program>/<engine>/<B>: value + gradient (every parameter) of B lanes through the engine
// seam (runLanesInto: the batch kept between runs, as a fit's loop keeps it), the program run as data by
// mce.scm (route dmci; DMCI_REPLAY_ROUTE=direct for the compiled program).
// Engines: native (the register machine, lanes on every core), tensor (LibTorch; skipped with a message when its
// plugin cannot be opened), replay (the trace recorded once, replayed in blocks on every core), compiled (the
// trace emitted as C++, built at -O3 by the system compiler, a call per lane on every core).
// Counters: evals_per_s = B / time per batch; roofline = the fraction of the machine's memory bandwidth (a triad
// on every core, measured once) used by the compulsory traffic, (2P + 1) doubles per evaluation.
// Also: BM_ReplayOne/<program> (one lane through Replayer::runOne, no seam), BM_Hand/alpha_x2|poly3/<B> (the value
// and gradient written by hand in C++, the floor), and BM_RecordThenReplay/<program> vs BM_Interpret/<program>
// (recording pays when one record + one replay costs at most two interpreted runs).
// Programs as the batch bench's: alpha_x2 `(* alpha (* x x))`, poly3 (recursive, n = 3), divergent (lanes
// differ in recursion depth and branch taken).
// BM_Kalman/<engine>/<B>: the 80-step, 2-state Kalman filter log-likelihood (bench/KalmanFilter.h) and its
// gradient in 4 parameters, B = 1 (one seed through run()) and B = 4096 (lanes); engine `hand` is the filter
// written by hand in C++ with its reverse pass. Every engine's gradient is checked against the hand one first.
// BM_KalmanTensor/<engine>/<B>: the same filter written with tensors (kalmanTensorSource): the compiled engine
// runs its tensor steps as Eigen code; the replay engine interprets it (the block replayer has no tensor steps).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "BatchPrograms.h"
#include "KalmanFilter.h"
#include "driver/Engine.h"
#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "engines/replay/Replay.h"
#include "support/ParallelLanes.h"

namespace {
using namespace dmci;

using bench::Case;
using bench::cases;

Route route() {
  const char* r = std::getenv("DMCI_REPLAY_ROUTE");
  return r && std::string(r) == "direct" ? Route::Direct : Route::Dmci;
}

EvalOptions options(const Case& c) {
  EvalOptions o;
  o.route = route();
  o.wrt = c.params;
  return o;
}

std::vector<std::vector<double>> lanes(const Case& c, int64_t b) {
  std::vector<std::vector<double>> v(c.params.size(), std::vector<double>(static_cast<size_t>(b)));
  for (size_t k = 0; k < c.params.size(); ++k)
    for (int64_t l = 0; l < b; ++l) v[k][static_cast<size_t>(l)] = c.value(k, l, b);
  return v;
}

// Bytes per second of a triad a = b + 3c over 2^24 doubles on every core, the best of 5.
double bandwidth() {
  static const double bw = [] {
    const size_t n = size_t{1} << 24;
    std::vector<double> a(n), b(n, 1.0), c(n, 2.0);
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    double best = 0;
    for (int rep = 0; rep < 5; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          size_t lo = n * t / threads, hi = n * (t + 1) / threads;
          for (size_t i = lo; i < hi; ++i) a[i] = b[i] + 3.0 * c[i];
        });
      for (auto& th : pool) th.join();
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, 3.0 * 8.0 * static_cast<double>(n) / s);
    }
    benchmark::DoNotOptimize(a.data());
    return best;
  }();
  return bw;
}

// `engineName`: an engine, or "tensor-replay" (the tensor engine replaying the recorded traces).
void BM_Replay(benchmark::State& state, const Case& c, const std::string& engineName) {
  const int64_t b = state.range(0);
  const bool tensorReplay = engineName == "tensor-replay";
  auto engine = engineNamed(tensorReplay ? "tensor" : engineName);
  if (!engine) {
    state.SkipWithError(("engine " + engineName + " unavailable: " + engine.error().message).c_str());
    return;
  }
  auto prog = Program::fromText(c.source, c.name + ".scm");
  EvalOptions o = options(c);
  o.tensor.replay = tensorReplay;
  auto run = (*engine)->prepare(*prog, c.params, o);
  if (!run) {
    state.SkipWithError(run.error().str().c_str());
    return;
  }
  auto values = lanes(c, b);
  LaneEvaluation warm;                                   // the batch kept between runs, as a fit's loop keeps it
  if (auto e = (*run)->runLanesInto(values, b, warm)) {  // records the traces, warms the caches
    state.SkipWithError(e->str().c_str());
    return;
  }
  LaneEvaluation out;
  for (auto _ : state) {
    auto e = (*run)->runLanesInto(values, b, out);
    benchmark::DoNotOptimize(e);
    benchmark::DoNotOptimize(out.value.data());
  }
  const double perSecond = static_cast<double>(b);
  state.counters["evals_per_s"] = benchmark::Counter(perSecond, benchmark::Counter::kIsIterationInvariantRate);
  const double bytes = static_cast<double>(2 * c.params.size() + 1) * 8.0 * perSecond;
  state.counters["roofline"] = benchmark::Counter(bytes / bandwidth(), benchmark::Counter::kIsIterationInvariantRate);
  for (const auto& [name, v] : warm.counters)
    if (std::string(name) != "seconds" && std::string(name) != "utilisation") state.counters[name] = v;
}

void BM_ReplayOne(benchmark::State& state, const Case& c) {
  auto prog = Program::fromText(c.source, c.name + ".scm");
  EvalOptions o = options(c);
  o.leafParameters = true;
  Evaluator ev(*prog, c.params, o);
  std::vector<double> seed = {c.value(0, 0, 1), c.value(1, 0, 1)};
  replay::Trace t;
  if (!ev.record(seed, t) || !t.replayable()) {
    state.SkipWithError("not replayable");
    return;
  }
  std::vector<std::vector<int32_t>> leaves;
  for (auto& [k, s] : ev.gradientLeaves()) leaves.push_back(s);
  replay::Replayer rep(std::move(t), leaves, true);
  replay::Workspace ws;
  double v, g[2];
  for (auto _ : state) {
    bool ok = rep.runOne(seed.data(), v, g, ws);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(v);
    benchmark::DoNotOptimize(g);
  }
}

// A hand-written value + gradient kernel over a program's lanes: body(alpha, x, lo, hi, value, d/dalpha, d/dx) on
// every core (one thread at small B), an even share per worker of the engines' lane pool (support/ParallelLanes),
// into outputs kept between runs. The floor a specialised evaluator can reach.
template <class Body>
void handBench(benchmark::State& state, const Case& c, Body body) {
  const int64_t b = state.range(0);
  auto v = lanes(c, b);
  std::vector<double> out(static_cast<size_t>(b)), ga(out.size()), gx(out.size());
  const int threads = b >= 4096 ? laneThreads(EvalOptions{}) : 1;
  const size_t n = out.size();
  for (auto _ : state) {
    forChunks(threads, static_cast<size_t>(threads), [&](size_t t, int) {
      body(v[0].data(), v[1].data(), n * t / threads, n * (t + 1) / threads, out.data(), ga.data(), gx.data());
    });
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(b), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Hand(benchmark::State& state) {
  handBench(state, cases()[0],
            [](const double* al, const double* x, size_t lo, size_t hi, double* out, double* ga, double* gx) {
              for (size_t i = lo; i < hi; ++i) {
                double xx = x[i] * x[i];
                out[i] = al[i] * xx;
                ga[i] = xx;
                gx[i] = 2.0 * al[i] * x[i];
              }
            });
}

// poly3: p1 = a x + a, p2 = p1 x + a, p3 = p2 x + a.
void BM_HandPoly3(benchmark::State& state) {
  handBench(state, cases()[1],
            [](const double* al, const double* x, size_t lo, size_t hi, double* out, double* ga, double* gx) {
              for (size_t i = lo; i < hi; ++i) {
                double a = al[i], t = x[i];
                double p1 = t * a + a, p2 = t * p1 + a, p3 = t * p2 + a;
                out[i] = p3;
                ga[i] = 1.0 + t * (1.0 + t * (1.0 + t));
                gx[i] = p2 + t * (p1 + t * a);
              }
            });
}

// One interpreted run vs record + one replay, each from a fresh prepared run (set-up excluded).
void BM_Interpret(benchmark::State& state, const Case& c) {
  auto prog = Program::fromText(c.source, c.name + ".scm");
  auto run = nativeEngine().prepare(*prog, c.params, options(c));
  std::vector<double> seed = {c.value(0, 0, 1), c.value(1, 0, 1)};
  for (auto _ : state) benchmark::DoNotOptimize((*run)->run(seed));
}

void BM_RecordThenReplay(benchmark::State& state, const Case& c) {
  auto prog = Program::fromText(c.source, c.name + ".scm");
  EvalOptions o = options(c);
  o.leafParameters = true;
  Evaluator ev(*prog, c.params, o);
  std::vector<double> seed = {c.value(0, 0, 1), c.value(1, 0, 1)};
  std::vector<std::vector<int32_t>> leaves;
  {
    replay::Trace t;
    (void)ev.record(seed, t);
    for (auto& [k, s] : ev.gradientLeaves()) leaves.push_back(s);
  }
  replay::Workspace ws;
  double v, g[2];
  for (auto _ : state) {
    replay::Trace t;
    benchmark::DoNotOptimize(ev.record(seed, t, false));  // as the engine records: the trace replays the gradient
    replay::Replayer rep(std::move(t), leaves, true);
    ws.oneOwner = nullptr;
    benchmark::DoNotOptimize(rep.runOne(seed.data(), v, g, ws));
  }
}

// The filter's parameters in lane l of b: phi varies, the rest is fixed.
std::vector<double> kalmanTheta(int64_t l, int64_t b) {
  return {0.85 + 0.1 * static_cast<double>(l) / static_cast<double>(b), 0.95, 0.1, 0.2};
}

void BM_Kalman(benchmark::State& state, const std::string& engineName, bool tensors) {
  const int64_t b = state.range(0);
  auto engine = engineNamed(engineName);
  if (!engine) return state.SkipWithError(engine.error().message.c_str());
  auto prog = Program::fromText(tensors ? bench::kalmanTensorSource() : bench::kalmanSource(), "kalman.scm");
  if (!prog) return state.SkipWithError(prog.error().str().c_str());
  EvalOptions o;
  o.route = route();
  o.wrt = bench::kalmanParams();
  auto run = (*engine)->prepare(*prog, bench::kalmanParams(), o);
  if (!run) return state.SkipWithError(run.error().str().c_str());
  std::vector<double> seed = kalmanTheta(0, 1), hand(4);
  const double expected = bench::kalmanByHand(seed.data(), hand.data());
  auto first = (*run)->run(seed);  // records the trace; the engine must agree with the hand-written filter
  if (!first) return state.SkipWithError(first.error().str().c_str());
  double worst = std::fabs(first->value - expected) / std::max(1.0, std::fabs(expected));
  for (size_t k = 0; k < 4 && k < first->gradient.size(); ++k)
    worst = std::max(worst, std::fabs(first->gradient[k].second - hand[k]) / std::max(1.0, std::fabs(hand[k])));
  if (first->gradient.size() != 4 || worst > 1e-9)
    return state.SkipWithError(("disagrees with the hand-written filter: " + std::to_string(worst)).c_str());
  std::vector<std::vector<double>> values(4, std::vector<double>(static_cast<size_t>(b)));
  for (int64_t l = 0; l < b; ++l) {
    auto th = kalmanTheta(l, b);
    for (size_t k = 0; k < 4; ++k) values[k][static_cast<size_t>(l)] = th[k];
  }
  LaneEvaluation out;
  if (b > 1 && (*run)->runLanesInto(values, b, out)) return state.SkipWithError("lanes failed");
  for (auto _ : state) {
    if (b == 1)
      benchmark::DoNotOptimize((*run)->run(seed));
    else
      benchmark::DoNotOptimize((*run)->runLanesInto(values, b, out));
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(b), benchmark::Counter::kIsIterationInvariantRate);
}

// The hand-written filter: one lane, or B lanes on every core through the engines' lane pool.
void BM_KalmanHand(benchmark::State& state) {
  const int64_t b = state.range(0);
  std::vector<std::vector<double>> theta;
  for (int64_t l = 0; l < b; ++l) theta.push_back(kalmanTheta(l, b));
  std::vector<double> value(static_cast<size_t>(b)), grad(static_cast<size_t>(4 * b));
  const int threads = b == 1 ? 1 : laneThreads(EvalOptions{});
  for (auto _ : state) {
    forChunks(threads, static_cast<size_t>(threads), [&](size_t t, int) {
      for (int64_t l = b * static_cast<int64_t>(t) / threads; l < b * static_cast<int64_t>(t + 1) / threads; ++l)
        value[static_cast<size_t>(l)] =
            bench::kalmanByHand(theta[static_cast<size_t>(l)].data(), grad.data() + 4 * static_cast<size_t>(l));
    });
    benchmark::DoNotOptimize(value.data());
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(b), benchmark::Counter::kIsIterationInvariantRate);
}

const bool kRegistered = [] {
  for (const auto& c : cases()) {
    for (const char* e : {"native", "tensor", "tensor-replay", "replay", "compiled"})
      benchmark::RegisterBenchmark(("BM_Replay/" + c.name + "/" + e).c_str(), BM_Replay, c, std::string(e))
          ->Arg(1)
          ->Arg(65536)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_ReplayOne/" + c.name).c_str(), BM_ReplayOne, c)->Unit(benchmark::kNanosecond);
    benchmark::RegisterBenchmark(("BM_Interpret/" + c.name).c_str(), BM_Interpret, c)->Unit(benchmark::kNanosecond);
    benchmark::RegisterBenchmark(("BM_RecordThenReplay/" + c.name).c_str(), BM_RecordThenReplay, c)
        ->Unit(benchmark::kNanosecond);
  }
  benchmark::RegisterBenchmark("BM_Hand/alpha_x2", BM_Hand)->Arg(1)->Arg(65536)->UseRealTime();
  benchmark::RegisterBenchmark("BM_Hand/poly3", BM_HandPoly3)->Arg(1)->Arg(65536)->UseRealTime();
  for (const char* e : {"native", "replay", "compiled"})
    for (bool tensors : {false, true})
      benchmark::RegisterBenchmark((std::string(tensors ? "BM_KalmanTensor/" : "BM_Kalman/") + e).c_str(), BM_Kalman,
                                   std::string(e), tensors)
          ->Arg(1)
          ->Arg(4096)
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_Kalman/hand", BM_KalmanHand)
      ->Arg(1)
      ->Arg(4096)
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace

// Each batch returns its values and gradients in fresh vectors (the seam's LaneEvaluation). glibc would map
// every vector over 128 KiB afresh and fault its pages in again each batch; keeping freed memory in the heap
// (the same for every engine here) measures the engines, not the kernel's page faults.
int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
