// Native engine lanes over threads: throughput on 1 thread and on every core, and the parallel efficiency.
//
// Efficiency = (lanes/s on N threads) / (N * lanes/s on 1 thread), both measured in this benchmark, each the
// best of its runs: on a shared virtual machine, interference from outside only ever slows a run down, so the
// best run is the closest to what the code itself does. `efficiency_mean` uses the mean runs instead. The
// `machine` case is a pure arithmetic loop with nothing shared: its efficiency is the ceiling this machine
// allows at that moment.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "driver/Engine.h"
#include "driver/Program.h"

namespace {
using namespace dmci;
using Clock = std::chrono::steady_clock;

const char* kPoly = "(define (poly x n) (if (= n 0) alpha (+ (* x (poly x (- n 1))) alpha))) (poly x 3)";
const char* kAlpha = "(* alpha (* x x))";

int cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// Best and mean of a throughput measured repeatedly.
struct Rate {
  double best = 0, sum = 0;
  int n = 0;
  void add(double r) { best = std::max(best, r), sum += r, ++n; }
  double mean() const { return n ? sum / n : 0; }
};

void report(benchmark::State& state, const Rate& one, const Rate& all, int n) {
  if (one.best == 0 || all.best == 0) return state.SkipWithError("lanes failed");
  state.counters["threads"] = n;
  state.counters["lanes_per_s_1"] = one.best;
  state.counters["lanes_per_s_all"] = all.best;
  state.counters["efficiency"] = all.best / (n * one.best);
  state.counters["efficiency_mean"] = all.mean() / (n * one.mean());
}

void BM_NativeLanes(benchmark::State& state, const char* src, Route route) {
  auto p = Program::fromText(src, "bench.scm");
  EvalOptions o;
  o.route = route;
  o.wrt = {"alpha", "x"};
  const size_t lanes = static_cast<size_t>(state.range(0));
  std::vector<std::vector<double>> v{std::vector<double>(lanes, 0.5), std::vector<double>(lanes)};
  for (size_t k = 0; k < lanes; ++k) v[1][k] = 1.0 + 1e-3 * static_cast<double>(k);
  const int n = cores();
  auto rate = [&](int threads) {
    EvalOptions ot = o;
    ot.threads = threads;
    auto r = nativeEngine().evaluateLanes(*p, LaneBatch{{"alpha", "x"}, v, 1}, ot);
    return r ? static_cast<double>(lanes) / r->counters.get("seconds") : 0.0;
  };
  Rate one, all;
  for (auto _ : state) {
    one.add(rate(1));
    all.add(rate(n));
  }
  report(state, one, all, n);
}

// The ceiling: the same measurement on an arithmetic loop per lane, no memory and nothing shared.
double spin(size_t steps) {
  double x = 1.0;
  for (size_t i = 0; i < steps; ++i) {
    x = x * 1.0000001 + 1e-9;
    if (x > 2) x -= 1;
  }
  return x;
}

void BM_MachineCeiling(benchmark::State& state) {
  const size_t lanes = static_cast<size_t>(state.range(0)), steps = 400;
  const int n = cores();
  auto rate = [&](int threads) {
    auto t0 = Clock::now();
    std::vector<std::thread> pool;
    std::vector<double> sink(static_cast<size_t>(threads) * 16);
    for (int t = 1; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (size_t k = t; k < lanes; k += static_cast<size_t>(threads))
          sink[static_cast<size_t>(t) * 16] += spin(steps);
      });
    for (size_t k = 0; k < lanes; k += static_cast<size_t>(threads)) sink[0] += spin(steps);
    for (auto& th : pool) th.join();
    benchmark::DoNotOptimize(sink.data());
    return static_cast<double>(lanes) / std::chrono::duration<double>(Clock::now() - t0).count();
  };
  Rate one, all;
  for (auto _ : state) {
    one.add(rate(1));
    all.add(rate(n));
  }
  report(state, one, all, n);
}

BENCHMARK_CAPTURE(BM_NativeLanes, alpha_x2_direct, kAlpha, Route::Direct)->Arg(65536)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NativeLanes, alpha_x2_dmci, kAlpha, Route::Dmci)->Arg(65536)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NativeLanes, poly3_direct, kPoly, Route::Direct)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NativeLanes, poly3_dmci, kPoly, Route::Dmci)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MachineCeiling)->Arg(65536)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
