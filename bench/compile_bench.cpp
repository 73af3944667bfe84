// Compile time of long programs on the direct route: read, expand, link the prelude and lower (PERF.md).
//
//   BM_Compile/<forms>           a program of <forms> top-level defines (testing/LongProgram.h)
//   BM_CompileLetStar/<bindings> one let* of <bindings> bindings
// Each iteration compiles the text from scratch and frees what it built. Counters: time_per_form
// (or time_per_binding), which stays flat when every pass is linear in the program, forms_per_s, and each pass's
// wall time per form (read_us, expand_us, freevars_us, link_us, lower_us, and free_us for freeing the trees and
// the graph) to find one that is not.
// bench/gen_long_program.py writes the same programs for timing `dmci run` as a whole process.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <array>
#include <chrono>
#include <string>

#include "expand/Expand.h"
#include "lower/FreeVars.h"
#include "lower/LinkPrelude.h"
#include "lower/Lower.h"
#include "prims/PrimTable.h"
#include "syntax/Reader.h"
#include "testing/LongProgram.h"

namespace {
using namespace dmci;

// The passes timed apart (seconds summed over iterations), so a pass that grows faster than the program shows.
enum Pass { kRead, kExpand, kFreeVars, kLink, kLower, kFree, kPasses };
constexpr std::array<const char*, kPasses> kPassNames = {"read", "expand", "freevars", "link", "lower", "free"};

// Adds the time since `start` to `total` and restarts the clock.
void lap(std::chrono::steady_clock::time_point& start, double& total) {
  auto now = std::chrono::steady_clock::now();
  total += std::chrono::duration<double>(now - start).count();
  start = now;
}

// text -> ComputeGraph as Program::fromText then Program::compile do it, with the program's free variables
// as parameters; returns the instruction count, or an error for SkipWithError.
Result<size_t> compileText(const std::string& text, std::array<double, kPasses>& seconds) {
  auto clock = std::chrono::steady_clock::now();
  Result<ExprPtr> core = ExprPtr{};
  {  // the datums are freed once expanded, as Program::fromText frees them
    auto forms = readAll(text, "long.scm");
    if (!forms) return forms.error();
    lap(clock, seconds[kRead]);
    core = expandProgram(*forms, ExpandOptions{false, "long.scm"});
    if (!core) return core.error();
  }
  lap(clock, seconds[kExpand]);
  std::vector<std::string> params;  // the free variables that are not primitives (Program::freeParameters)
  for (auto& n : freeVars(**core))
    if (primId(n) < 0) params.push_back(std::move(n));
  lap(clock, seconds[kFreeVars]);
  auto linked = catchErrors([&] { return linkPrelude(*core, params); });
  if (!linked) return linked.error();
  lap(clock, seconds[kLink]);
  auto graph = lower(*linked, LowerOptions{params});
  if (!graph) return graph.error();
  lap(clock, seconds[kLower]);
  size_t instrs = 0;
  for (const auto& b : graph->blocks) instrs += b.code.size();
  *graph = ComputeGraph{};  // the graph and the trees freed (timed apart: free_us)
  *linked = nullptr;
  *core = nullptr;
  lap(clock, seconds[kFree]);
  return instrs;
}

void runCompile(benchmark::State& state, const std::string& text, const char* perName) {
  size_t instrs = 0;
  std::array<double, kPasses> seconds{};
  for (auto _ : state) {
    auto r = compileText(text, seconds);
    if (!r) {
      state.SkipWithError(r.error().str().c_str());
      return;
    }
    instrs = *r;
    state.PauseTiming();  // hand the freed heap back, so each iteration starts as a fresh `dmci` process does
    malloc_trim(0);
    state.ResumeTiming();
  }
  double n = static_cast<double>(state.range(0));
  state.counters[perName] =
      benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["forms_per_s"] = benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["instrs"] = static_cast<double>(instrs);
  for (int p = 0; p < kPasses; ++p)  // wall time of each pass per form, in microseconds
    state.counters[std::string(kPassNames[p]) + "_us"] =
        1e6 * seconds[p] / (n * static_cast<double>(state.iterations()));
}

void BM_Compile(benchmark::State& state) {
  runCompile(state, test::longDefines(static_cast<int>(state.range(0))), "time_per_form");
}

void BM_CompileLetStar(benchmark::State& state) {
  runCompile(state, test::longLetStar(static_cast<int>(state.range(0))), "time_per_binding");
}

BENCHMARK(BM_Compile)->Arg(1000)->Arg(3000)->Arg(10000)->Arg(30000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CompileLetStar)->Arg(1000)->Arg(3000)->Arg(10000)->Arg(30000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
