// Row-gradient evaluations per second of `dmci fit`'s data-mode objective: the damped
// oscillator amp·e^(−b t)·cos(w t) over 10,000 rows, each row a lane, loss and gradient in (amp, b, w) per call,
// through the engine seam exactly as the fit drives it (fit::Model::loss).
//
// Names: BM_FitRows/<engine>/<threads>, and BM_FitJacobian/<engine>/<threads>: the same rows as least squares
// (fit::Model::residuals with the Jacobian, what Levenberg–Marquardt asks for). Counter row_gradients_per_s =
// 10,000 / time per call. Engines: native (its
// lanes), tensor (LibTorch, linked in when built), and replay when an engine by that name is registered at run
// time (looked up by name, its plugin opened if it has one; the rows are skipped, with the registry's message, when
// there is none).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "fit/Model.h"

namespace {

using namespace dmci;
using namespace dmci::fit;

constexpr size_t kRows = 10000;

DataTable oscillatorData() {
  DataTable t;
  t.path = "oscillator.csv";
  t.names = {"t", "y"};
  t.columns.assign(2, {});
  for (size_t i = 0; i < kRows; ++i) {
    double x = 20.0 * static_cast<double>(i) / kRows;
    t.columns[0].push_back(x), t.columns[1].push_back(2.0 * std::exp(-0.3 * x) * std::cos(1.7 * x));
    t.lines.push_back(static_cast<uint32_t>(i + 2));
  }
  return t;
}

void BM_FitRows(benchmark::State& state, const std::string& engine, bool jacobian) {
  static const DataTable data = oscillatorData();
  ModelSpec spec;
  spec.programPath = "oscillator.scm";
  spec.programText = "(* amp (exp (- (* b t))) (cos (* w t)))";
  spec.binds = {{"amp", 1.4}, {"b", 0.4}, {"w", 1.2}};
  spec.engine = engine;
  spec.options.threads = static_cast<int>(state.range(0));
  spec.data = &data;
  spec.target = std::string(1, 'y');
  auto model = makeModel(spec);
  if (!model) {
    state.SkipWithError(model.error().str().c_str());
    return;
  }
  std::vector<double> theta{1.4, 0.4, 1.2}, grad, r, J;
  if (jacobian)
    for (auto _ : state) (*model)->residuals(theta, r, &J), benchmark::DoNotOptimize(J.data());
  else
    for (auto _ : state) benchmark::DoNotOptimize((*model)->loss(theta, &grad));
  state.counters["row_gradients_per_s"] = benchmark::Counter(kRows, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* engine : {"native", "tensor", "replay"}) {
    if (auto e = dmci::engineNamed(engine); !e) {
      std::printf("fit_bench: the %s engine's rows are skipped: %s\n", engine, e.error().message.c_str());
      continue;
    }
    for (bool jacobian : {false, true})
      for (int threads : {1, 2})
        benchmark::RegisterBenchmark((std::string(jacobian ? "BM_FitJacobian/" : "BM_FitRows/") + engine).c_str(),
                                     BM_FitRows, engine, jacobian)
            ->Arg(threads)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
