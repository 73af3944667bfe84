// Batch sweep of the tensor engine (PERF.md bench item 2, targets P4-P6): value + gradient for B lanes at once.
//
// Names: BM_Batch/<program>/<route>/<device>/<dtype>/<B>. Each benchmark prepares
// one BatchEvaluator (set-up once) and times run(): B lanes' values and their
// gradients with respect to every parameter. A route `direct+replay` or `dmci+replay` is the tensor engine
// replaying the recorded traces as whole-batch tensor ops (--replay) instead of interpreting. Counters:
//   evals_per_s  B / time per run
//   speedup      (time per evaluation at B=1) / (time per evaluation at this B), same program, route, device, dtype
//   groups, splits, syncs, torch_ops   the engine's counts for one run (they do not drift)
//   roofline     the fraction of the device's memory bandwidth that the compulsory traffic uses: each lane
//                reads its parameters and writes a value and a gradient component per parameter, so
//                (2P + 1) numbers per evaluation, times evals/s, over the bandwidth (PERF.md P9)
// BM_Bandwidth/<device>/<dtype> reports that bandwidth (bytes_per_s): STREAM's triad c = a + 3b over 2^25
// numbers (2^28 on cuda), the best of 5 runs, by LibTorch and (on the CPU) by a plain loop on every core.
// Programs: `(* alpha (* x x))` and recursive `poly` (n = 3), whose lanes differ in x only (same
// control path), and `divergent`, whose lanes differ in recursion depth and branch taken.
// Environment: DMCI_BATCH_DEVICE=cpu|cuda (default cpu), DMCI_BATCH_MAX_LANES (default 65536 on cpu,
// 1048576 on cuda), DMCI_BATCH_ROUTES=direct,dmci,direct+replay,dmci+replay (default all),
// DMCI_BATCH_DTYPES=f64,f32 (default both).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#ifdef DMCI_HAVE_TORCH
#include "Bandwidth.h"
#include "BatchPrograms.h"
#include "driver/Program.h"
#include "engines/tensor/TensorEngine.h"

namespace {
using namespace dmci;

using bench::Case;
using bench::cases;

struct Setting {
  Route route;
  std::string device;
  bool float32;
  bool replay = false;
};

std::string key(const Case& c, const Setting& s) {
  return c.name + "/" + routeName(s.route) + (s.replay ? "+replay" : "") + "/" + s.device + "/" +
         (s.float32 ? "f32" : "f64");
}

// The device's bandwidth in bytes/s, measured once per device and dtype.
double bandwidth(const std::string& device, bool float32) {
  static std::map<std::string, double> m;
  std::string k = device + (float32 ? "/f32" : "/f64");
  if (!m.count(k))
    m[k] = bench::deviceBandwidth(device, float32, device == "cuda" ? int64_t{1} << 28 : int64_t{1} << 25);
  return m[k];
}

void runBandwidth(benchmark::State& state, const std::string& device, bool float32) {
  for (auto _ : state) benchmark::DoNotOptimize(bandwidth(device, float32));
  state.counters["bytes_per_s"] = bandwidth(device, float32);
}

// Seconds per evaluation at B=1, per program and setting (B=1 runs first).
std::map<std::string, double>& baseline() {
  static std::map<std::string, double> m;
  return m;
}

void runBatch(benchmark::State& state, const Case& c, const Setting& s) {
  int64_t b = state.range(0);
  auto program = Program::fromText(c.source, "bench.scm");
  if (!program) return state.SkipWithError(program.error().str().c_str());
  EvalOptions o;
  o.route = s.route;
  o.tensor = {s.device, s.float32, s.replay};
  o.wrt = c.params;
  auto prepared = (*engineNamed("tensor"))->prepare(*program, c.params, o);
  if (!prepared) return state.SkipWithError(prepared.error().str().c_str());
  PreparedRun& ev = **prepared;
  std::vector<std::vector<double>> values(c.params.size(), std::vector<double>(static_cast<size_t>(b)));
  for (size_t k = 0; k < values.size(); ++k)
    for (int64_t l = 0; l < b; ++l) values[k][static_cast<size_t>(l)] = c.value(k, l, b);
  LaneEvaluation last;
  double seconds = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = ev.runLanes(values, b);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r) return state.SkipWithError(r.error().str().c_str());
    benchmark::DoNotOptimize(r->value.data());
    last = std::move(*r);
  }
  double perEval = seconds / static_cast<double>(state.iterations()) / static_cast<double>(b);
  if (b == 1) baseline()[key(c, s)] = perEval;
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(b), benchmark::Counter::kIsIterationInvariantRate);
  if (baseline().count(key(c, s))) state.counters["speedup"] = baseline()[key(c, s)] / perEval;
  for (const char* count : {"groups", "splits", "syncs", "torch_ops", "traces", "replayed"})
    state.counters[count] = last.counters.get(count);
  double bytes = static_cast<double>(2 * c.params.size() + 1) * (s.float32 ? 4.0 : 8.0);
  if (double bw = bandwidth(s.device, s.float32); bw > 0) state.counters["roofline"] = bytes / perEval / bw;
}

std::vector<std::string> listFromEnv(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  std::string s = v ? v : fallback;
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    if (comma > at) out.push_back(s.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

void registerAll() {
  const char* dev = std::getenv("DMCI_BATCH_DEVICE");
  std::string device = dev ? dev : "cpu";
  const char* maxEnv = std::getenv("DMCI_BATCH_MAX_LANES");
  int64_t maxLanes = maxEnv ? std::atoll(maxEnv) : device == "cuda" ? (int64_t{1} << 20) : 65536;
  for (const auto& d : listFromEnv("DMCI_BATCH_DTYPES", "f64,f32")) {
    std::string name = "BM_Bandwidth/" + device + "/" + d;
    benchmark::RegisterBenchmark(name.c_str(),
                                 [device, d](benchmark::State& st) { runBandwidth(st, device, d == "f32"); })
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  for (const auto& c : cases()) {
    for (const auto& r : listFromEnv("DMCI_BATCH_ROUTES", "direct,dmci,direct+replay,dmci+replay")) {
      for (const auto& d : listFromEnv("DMCI_BATCH_DTYPES", "f64,f32")) {
        const bool replay = r.ends_with("+replay");
        Setting s{r.starts_with("dmci") ? Route::Dmci : Route::Direct, device, d == "f32", replay};
        std::string name = "BM_Batch/" + key(c, s);
        auto* bm = benchmark::RegisterBenchmark(name.c_str(), [c, s](benchmark::State& st) { runBatch(st, c, s); });
        for (int64_t b = 1; b <= maxLanes; b *= 4) bm->Arg(b);
        if (maxLanes > 1 && (maxLanes & (maxLanes - 1)) == 0 &&
            __builtin_ctzll(static_cast<unsigned long long>(maxLanes)) % 2)
          bm->Arg(maxLanes);  // a power of two that the 4x steps skip (2^17, 2^19, ...)
        bm->Unit(benchmark::kMillisecond)->UseRealTime();
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

#else
int main() {
  std::printf("batch_bench: built without LibTorch; nothing to run\n");
  return 0;
}
#endif
