// Per-evaluation latency of value + gradient at B=1 on the native engine, by route (PERF.md, bench item 1 and 3),
// lantern (continuation-based reverse mode, lantern/Lantern.h) included for its cost against direct.
//
// Most benchmarks prepare one Evaluator (set-up once: the direct route lowers the program, the dmci routes
// build it as data) and time ev.run(): one evaluation plus, unless forward-only, its reverse sweep. Names:
//   BM_Latency/<program>/<route>      value + gradient
//   BM_Forward/<program>/<route>      value alone
//   BM_Cold/<program>/<route>         value + gradient with set-up included (Program::evaluate each time)
//   BM_Depth/<program>/<route>/<T>    a T-step recursion through define; time_per_step shows linearity
// Counters (per evaluation): evals_per_s, steps (instructions executed), tape (tape entries), heap (cells).
// The reference system's published figures live in ci/bench, which compares against them.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "driver/Program.h"
#include "engines/native/Evaluator.h"

namespace {
using namespace dmci;

// One program with its parameters' names and values; every parameter is differentiated.
struct Case {
  std::string name;
  std::string source;
  std::vector<std::string> params;
  std::vector<double> values;
};

const std::vector<Case>& latencyCases() {
  static const std::vector<Case> cases = {
      {"alpha_x2", "(* alpha (* x x))", {"alpha", "x"}, {1.5, 2.0}},
      {"a_bx2", "(+ a (* b (* x x)))", {"a", "b", "x"}, {0.5, 1.5, 2.0}},
      {"poly3",
       "(define (poly x n) (if (= n 0) alpha (+ (* x (poly x (- n 1))) alpha)))\n"
       "(poly x 3)",
       {"alpha", "x"},
       {1.5, 2.0}},
      {"twice",
       "(define (twice f) (lambda (y) (f (f y))))\n"
       "((twice (lambda (y) (* alpha y))) x)",
       {"alpha", "x"},
       {1.5, 2.0}},
      {"compose",
       "(define (f y) (* alpha y))\n"
       "(define (g y) (+ y 1))\n"
       "(f (g x))",
       {"alpha", "x"},
       {1.5, 2.0}},
  };
  return cases;
}

// A T-step recursion through define, non-tail (a frame per step) or tail (an accumulator).
Case sumCase(bool tail, int depth) {
  std::string t = std::to_string(depth);
  if (tail)
    return {
        "sum_tail", "(define (sum n acc) (if (= n 0) acc (sum (- n 1) (+ acc x))))\n(sum " + t + " 0)", {"x"}, {0.25}};
  return {"sum", "(define (sum n) (if (= n 0) 0 (+ x (sum (- n 1)))))\n(sum " + t + ")", {"x"}, {0.25}};
}

// How one benchmark runs its case.
struct Mode {
  Route route = Route::Direct;
  bool gradient = true;  // value + gradient, or value alone
  bool cold = false;     // set-up included: Program::evaluate per iteration instead of one Evaluator's run()
  int depth = 0;         // > 0: a recursion of that many steps, reported per step too
};

// Times one evaluation of a case; skips with the error when the program fails.
void runCase(benchmark::State& state, const Case& c, Mode mode) {
  auto program = Program::fromText(c.source, "bench.scm");
  if (!program) {
    state.SkipWithError(program.error().str().c_str());
    return;
  }
  EvalOptions opts;
  opts.route = mode.route;
  opts.gradient = mode.gradient;
  if (mode.gradient) opts.wrt = c.params;
  std::vector<SeedValue> seed;
  for (size_t k = 0; k < c.params.size(); ++k) seed.push_back({c.params[k], c.values[k]});
  Evaluator ev(*program, c.params, opts);
  if (const Error* e = ev.setupError()) {
    state.SkipWithError(e->str().c_str());
    return;
  }
  Evaluation last;
  for (auto _ : state) {
    auto r = mode.cold ? program->evaluate(seed, opts) : ev.run(c.values);
    if (!r) {
      state.SkipWithError(r.error().str().c_str());
      return;
    }
    benchmark::DoNotOptimize(r->value);
    last = std::move(*r);
  }
  state.counters["evals_per_s"] = benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["steps"] = static_cast<double>(last.stats.steps);
  state.counters["tape"] = static_cast<double>(last.tapeEntries);
  state.counters["heap"] = static_cast<double>(last.heapCells);
  if (mode.depth > 0)
    state.counters["time_per_step"] =
        benchmark::Counter(mode.depth, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Registers one case under KIND/<case>/<route>.
void add(const std::string& kind, const Case& c, Mode mode, benchmark::TimeUnit unit) {
  std::string name = kind + "/" + c.name + "/" + routeName(mode.route);
  benchmark::RegisterBenchmark(name.c_str(), [c, mode](benchmark::State& s) { runCase(s, c, mode); })->Unit(unit);
}

void registerAll() {
  using benchmark::kMicrosecond, benchmark::kMillisecond, benchmark::kNanosecond;
  const Route all[] = {Route::Direct, Route::Dmci, Route::Dmci2};  // dmci2: mce.scm running mce.scm running it
  // lantern: the gradient by lantern.scm's shift/reset reverse mode, no tape (independent, not fast).
  for (const auto& c : latencyCases())
    for (Route r : {Route::Direct, Route::Dmci, Route::Dmci2, Route::Lantern})
      add("BM_Latency", c, {.route = r}, kNanosecond);
  for (bool tail : {false, true}) {
    Case c = sumCase(tail, 10000);
    c.name += "10000";
    for (Route r : {Route::Direct, Route::Dmci, Route::Lantern})
      add("BM_Latency", c, {.route = r, .depth = 10000}, kMillisecond);
  }
  for (Route r : all) add("BM_Forward", latencyCases().front(), {.route = r, .gradient = false}, kNanosecond);
  for (const auto& c : latencyCases())
    for (Route r : {Route::Direct, Route::Dmci}) add("BM_Cold", c, {.route = r, .cold = true}, kMicrosecond);
  for (bool tail : {false, true}) {
    for (Route r : {Route::Direct, Route::Dmci, Route::Lantern}) {
      std::string name = std::string("BM_Depth/") + (tail ? "sum_tail/" : "sum/") + routeName(r);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [tail, r](benchmark::State& s) {
                                     int depth = static_cast<int>(s.range(0));
                                     runCase(s, sumCase(tail, depth), {.route = r, .depth = depth});
                                   })
          ->Arg(10)
          ->Arg(100)
          ->Arg(1000)
          ->Arg(10000)
          ->Unit(kMicrosecond);
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
