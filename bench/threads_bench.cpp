// Native engine lanes over threads: throughput on 1 thread and on every core, and the parallel efficiency.
#include <benchmark/benchmark.h>

#include <chrono>
#include <thread>

#include "driver/Lanes.h"

namespace {
using namespace dmci;

const char* kPoly = "(define (poly x n) (if (= n 0) alpha (+ (* x (poly x (- n 1))) alpha))) (poly x 3)";
const char* kAlpha = "(* alpha (* x x))";

double lanesPerSecond(const Program& p, const EvalOptions& o, const std::vector<std::vector<double>>& v, int threads) {
  auto r = evaluateLanes(p, {"alpha", "x"}, v, o, threads);
  return r ? static_cast<double>(v[0].size()) / r->seconds : 0.0;
}

// Efficiency = (lanes/s on N threads) / (N * lanes/s on 1 thread), both measured in this benchmark.
void BM_NativeLanes(benchmark::State& state, const char* src, Route route) {
  auto p = Program::fromText(src, "bench.scm");
  EvalOptions o;
  o.route = route;
  o.wrt = {"alpha", "x"};
  const size_t lanes = static_cast<size_t>(state.range(0));
  std::vector<std::vector<double>> v{std::vector<double>(lanes, 0.5), std::vector<double>(lanes)};
  for (size_t k = 0; k < lanes; ++k) v[1][k] = 1.0 + 1e-3 * static_cast<double>(k);
  const int n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double one = 0, all = 0;
  for (auto _ : state) {
    one += lanesPerSecond(*p, o, v, 1);
    all += lanesPerSecond(*p, o, v, n);
  }
  if (one == 0 || all == 0) return state.SkipWithError("lanes failed");
  state.counters["threads"] = n;
  state.counters["lanes_per_s_1"] = one / static_cast<double>(state.iterations());
  state.counters["lanes_per_s_all"] = all / static_cast<double>(state.iterations());
  state.counters["efficiency"] = all / (n * one);
}

BENCHMARK_CAPTURE(BM_NativeLanes, alpha_x2_direct, kAlpha, Route::Direct)->Arg(65536)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NativeLanes, alpha_x2_dmci, kAlpha, Route::Dmci)->Arg(65536)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NativeLanes, poly3_direct, kPoly, Route::Direct)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NativeLanes, poly3_dmci, kPoly, Route::Dmci)->Arg(16384)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
