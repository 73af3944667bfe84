// The cost of a smoothed gradient (--smooth) against one crisp run, side by side in one run, on the threshold
// model (if (< x alpha) (* beta x) (* gamma x)) at x = 0.8, alpha = 1, beta = 2, gamma = 0.5, the gradient in alpha.
//
// Names: BM_Crisp/<engine> (one run with the gradient through the engine seam, the program prepared once);
// BM_Si/<engine> (the si-smoothed program's run with the gradient, --smooth 0.5); BM_Mc/<engine>/<N> (pgo with N
// samples: N lanes of one batch, values only); BM_Dgo/<engine>/<N> (dgo with N samples: N lanes of the si transform
// with the gradient). The targets: si within 10x of one crisp run; mc with N
// samples on the replay engine within 2N x of one crisp run. ci/smooth-bench prints the ratios.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "smooth/Smooth.h"

namespace {
using namespace dmci;

const char* kThreshold = "(if (< x alpha) (* beta x) (* gamma x))";
const std::vector<std::string> kParams = {"x", "alpha", "beta", "gamma"};
const std::vector<double> kValues = {0.8, 1.0, 2.0, 0.5};

std::unique_ptr<PreparedRun> prepared(const Program& p, const std::string& engine, std::vector<std::string> params,
                                      bool gradient, benchmark::State& state) {
  EvalOptions o;
  o.gradient = gradient;
  if (gradient) o.wrt = {"alpha"};
  o.threads = 1;
  auto e = engineNamed(engine);
  if (!e) {
    state.SkipWithError(e.error().message.c_str());
    return nullptr;
  }
  auto run = (*e)->prepare(p, params, o);
  if (!run) {
    state.SkipWithError(run.error().message.c_str());
    return nullptr;
  }
  return std::move(*run);
}

void BM_Crisp(benchmark::State& state, const std::string& engine) {
  auto p = Program::fromText(kThreshold, "threshold.scm");
  auto run = prepared(*p, engine, kParams, true, state);
  if (!run) return;
  for (auto _ : state) benchmark::DoNotOptimize(run->run(kValues));
}

void BM_Si(benchmark::State& state, const std::string& engine) {
  auto p = Program::fromText(kThreshold, "threshold.scm");
  smooth::SmoothSettings s;
  s.sigma = 0.5;
  Program sp = p->withCore(smooth::smoothProgram(p->core(), {"alpha"}, s));
  std::vector<std::string> params = kParams;
  params.push_back(smooth::kSigmaName);
  std::vector<double> values = kValues;
  values.push_back(0.5);
  auto run = prepared(sp, engine, params, true, state);
  if (!run) return;
  for (auto _ : state) benchmark::DoNotOptimize(run->run(values));
}

void BM_Mc(benchmark::State& state, const std::string& engine) {
  auto p = Program::fromText(kThreshold, "threshold.scm");
  auto run = prepared(*p, engine, kParams, false, state);
  if (!run) return;
  smooth::SmoothSettings s;
  s.sigma = 0.5;
  s.mode = smooth::Mode::Mc;
  s.samples = state.range(0);
  for (auto _ : state) benchmark::DoNotOptimize(smooth::mcGradient(*run, kValues, {1}, s));
}

// dgo with N samples: N lanes of the si transform at the kernel width, with the gradient (prepareMc's run).
void BM_Dgo(benchmark::State& state, const std::string& engine) {
  auto p = Program::fromText(kThreshold, "threshold.scm");
  smooth::SmoothSettings s;
  s.sigma = 0.5;
  s.mode = smooth::Mode::Mc;
  s.estimator = smooth::Estimator::Dgo;
  s.samples = state.range(0);
  EvalOptions o;
  o.threads = 1;
  auto e = engineNamed(engine);
  auto run = e ? smooth::prepareMc(**e, *p, kParams, {"alpha"}, s, o) : Result<std::unique_ptr<PreparedRun>>(e.error());
  if (!run) {
    state.SkipWithError(run.error().message.c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(smooth::mcGradient(**run, kValues, {1}, s));
}

}  // namespace

BENCHMARK_CAPTURE(BM_Crisp, native, std::string("native"));
BENCHMARK_CAPTURE(BM_Crisp, replay, std::string("replay"));
BENCHMARK_CAPTURE(BM_Si, native, std::string("native"));
BENCHMARK_CAPTURE(BM_Si, replay, std::string("replay"));
BENCHMARK_CAPTURE(BM_Mc, replay, std::string("replay"))->Arg(100)->Arg(1000);
BENCHMARK_CAPTURE(BM_Mc, native, std::string("native"))->Arg(100)->Arg(1000);
BENCHMARK_CAPTURE(BM_Dgo, replay, std::string("replay"))->Arg(100)->Arg(1000);
BENCHMARK_MAIN();
