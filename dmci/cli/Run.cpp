// `dmci run` and `dmci grad`: read the program (a file, `-` for standard input, or -e EXPR), bind its parameters
// (one parser for seeds and lanes), take the engine from the registry, and print the value and gradient.
#include "cli/Run.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/Exit.h"
#include "driver/Engine.h"
#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "engines/replay/EmitCpp.h"
#include "machine/ValueText.h"
#include "mce/Mce.h"
#include "smooth/Smooth.h"
#include "support/AtomicFile.h"
#include "support/JsonNumber.h"
#include "support/JsonText.h"
#include "support/Split.h"
#include "trace/Trace.h"

namespace dmci::cli {

struct RunArgs {
  bool gradient = false;
  bool trace = false;  // dmci trace: record and print the trace instead of the value
  bool emit = false;   // dmci emit: record, then write the trace as C++
  std::string output = "-", function = "dmci_trace";
  std::string file;
  std::string expr;  // -e
  std::vector<std::string> binds;
  std::string laneFile;
  std::string via = "direct";
  std::string evaluator;
  std::string engine = "native";
  std::string device = "cpu";
  bool float32 = false;
  bool replay = false;
  int threads = 0;
  std::string wrt;
  bool json = false;
  bool stats = false;
  uint64_t steps = Budget{}.steps;
  uint64_t heap = Budget{}.heapCells;
  double seconds = Budget{}.seconds;
  // --smooth (grad only)
  smooth::SmoothSettings smooth;
  std::string smoothMode = "si", estimator = "pgo";
  bool smoothGiven = false;       // --smooth was given
  std::string smoothOptionAlone;  // a --smooth-... option given without --smooth
};

namespace {

using json = nlohmann::ordered_json;

std::string num(double x) { return formatNumber(x); }

// The program: -e EXPR, `-` (standard input) or a file.
Result<Program> loadProgram(const RunArgs& a) {
  if (!a.expr.empty() && !a.file.empty())
    throw UsageError{"give a program file or -e EXPR, not both (got " + a.file + ")"};
  if (!a.expr.empty()) return Program::fromText(a.expr, "<expr>");
  if (a.file.empty()) throw UsageError{"no program: give a file, - for standard input, or -e EXPR"};
  return Program::fromFile(a.file);
}

// The evaluator's graph from --evaluator FILE.
Result<std::shared_ptr<const ComputeGraph>> loadEvaluator(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read " + path, {}};
  std::stringstream text;
  text << in.rdbuf();
  auto g = parseGraph(text.str(), path);
  if (!g) return g.error();
  if (g->params != mceParams())
    return Error{ErrorKind::Usage, path + " is not an evaluator graph (its parameters differ)", {}};
  return std::make_shared<const ComputeGraph>(std::move(*g));
}

// The options of the run, less the wrt names (which need the bindings).
Result<EvalOptions> evalOptions(const RunArgs& a) {
  EvalOptions o;
  o.route = *parseRoute(a.via);
  o.gradient = a.gradient;
  o.anyValue = true;  // run prints any value (grad still needs a number or a tensor)
  o.budget = Budget{a.steps, a.heap, a.seconds};
  o.threads = a.threads;
  o.tensor = {a.device, a.float32, a.replay};
  if (!a.evaluator.empty()) {
    auto g = loadEvaluator(a.evaluator);
    if (!g) return g.error();
    o.evaluator = *g;
  }
  return o;
}

// --wrt: names, 'literals', or 'all' (every bound parameter, a lane file's included, and every literal).
void setWrt(const RunArgs& a, const LaneBatch& batch, EvalOptions& o) {
  if (!a.gradient) return;
  for (const auto& w : splitCommas(a.wrt.empty() ? "all" : a.wrt)) {
    if (w == "literals" || w == "all") o.wrtLiterals = true;
    if (w == "all")
      o.wrt.insert(o.wrt.end(), batch.params.begin(), batch.params.end());
    else if (w != "literals")
      o.wrt.push_back(w);
  }
}

json countersJson(const Counters& c) {
  json j = json::object();
  for (const auto& [k, v] : c) {
    if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0)  // a count: written as an integer
      j[k] = static_cast<int64_t>(v);
    else
      j[k] = v;
  }
  return j;
}

// A number, a tensor as nested arrays, or any other value as valueJson wrote it.
json valueJson(const Evaluation& ev) {
  if (ev.isData()) return json::parse(ev.json);
  if (!ev.isTensor) return jsonNumber(ev.value);
  return tensorJson(ev.rank, ev.rows, ev.cols, ev.tensor.data());
}

int printOne(const RunArgs& a, const Evaluation& ev) {
  if (a.stats && !a.json) std::cerr << "stats: " << jsonText(countersJson(ev.counters)) << "\n";
  if (a.json) {
    json j{{"value", valueJson(ev)}};
    if (ev.isTensor) j["shape"] = ev.rank == 1 ? json::array({ev.rows}) : json::array({ev.rows, ev.cols});
    if (a.stats) j["stats"] = countersJson(ev.counters);
    if (a.gradient) {
      json g = json::object();
      for (const auto& [k, v] : ev.gradient) g[k] = jsonNumber(v);
      j["gradient"] = g;
    }
    std::cout << jsonText(j) << "\n";
    return kOk;
  }
  std::string value = ev.isData()   ? ev.written
                      : ev.isTensor ? writeTensor(ev.rank, ev.rows, ev.cols, ev.tensor.data())
                                    : num(ev.value);
  std::cout << (a.gradient ? "value: " : "") << value << "\n";
  for (const auto& [k, v] : ev.gradient) std::cout << "d/d " << k << " = " << num(v) << "\n";
  return kOk;
}

int printLanes(const RunArgs& a, const LaneEvaluation& ev) {
  json grad = json::object();
  for (size_t k = 0; k < ev.gradientKeys.size(); ++k) grad[ev.gradientKeys[k]] = jsonNumbers(ev.gradient[k]);
  json j{{"lanes", ev.lanes()}, {"value", jsonNumbers(ev.value)}};
  if (ev.isTensor && ev.lanes() > 0) {  // each lane's tensor, as a single run prints it; the sums stay in "sum"
    const size_t n = ev.tensor.size() / ev.lanes();
    json values = json::array();
    for (size_t l = 0; l < ev.lanes(); ++l)
      values.push_back(tensorJson(ev.rank, ev.rows, ev.cols, ev.tensor.data() + l * n));
    j["sum"] = j["value"];
    j["value"] = values;
    j["shape"] = ev.rank == 1 ? json::array({ev.rows}) : json::array({ev.rows, ev.cols});
  }
  if (a.gradient) j["gradient"] = grad;
  if (a.stats) j["stats"] = countersJson(ev.counters);
  std::cout << jsonText(j) << "\n";
  return kOk;
}

// dmci trace: the seed's run on the native machine, recorded, and its trace in the stable text form.
int traceCommand(const RunArgs& a, const Program& program, const LaneBatch& batch, EvalOptions opts) {
  if (asksForLanes(a.binds, a.laneFile)) throw UsageError{"dmci trace records one seed: bind each name to a number"};
  opts.leafParameters = true;
  auto prepared = prepareProgram(program, batch.params, opts);
  if (!prepared) return reportError(prepared.error(), a.json);
  Evaluator ev(*prepared, opts);
  if (ev.setupError()) return reportError(*ev.setupError(), a.json);
  std::vector<double> values;
  for (const auto& v : batch.values) values.push_back(v[0]);
  replay::Trace trace;
  auto r = ev.record(values, trace);
  if (!r) return reportError(r.error(), a.json);
  if (!a.emit) {
    replay::writeTrace(std::cout, trace);
    return kOk;
  }
  replay::EmitRequest req;
  req.function = a.function;
  req.origin = (a.file.empty() ? std::string("-e") : a.file) + " recorded at";
  for (size_t k = 0; k < batch.params.size(); ++k) req.origin += " " + batch.params[k] + "=" + num(values[k]);
  req.gradient = true;
  req.names = true;  // a header naming params[p] and gradient[k] for a reader, every name escaped
  for (auto& [key, leaves] : ev.gradientLeaves()) req.gradientKeys.push_back(key), req.leaves.push_back(leaves);
  auto code = replay::emitCpp(trace, req);
  if (!code) return reportError(code.error(), a.json);
  if (a.output == "-") {
    std::cout << *code;
    return kOk;
  }
  if (auto w = writeFileAtomically(a.output, *code); !w) return reportError(w.error(), a.json);
  std::cerr << "wrote " << a.output << "\n";
  return kOk;
}

// --smooth: the value and gradient of the Gaussian-smoothed program at the seed (smooth/Smooth.h), over the named
// parameters differentiated.
int smoothCommand(const RunArgs& a, const Program& program, const LaneBatch& batch, Engine& engine, EvalOptions opts) {
  smooth::SmoothSettings s = a.smooth;
  s.mode = *smooth::parseMode(a.smoothMode);
  s.estimator = *smooth::parseEstimator(a.estimator);
  if (auto why = smooth::checkSettings(s)) throw UsageError{*why};
  if (asksForLanes(a.binds, a.laneFile))
    throw UsageError{"--smooth estimates at one point: bind each name to a number (no lanes)"};
  // By default (or --wrt all) every bound parameter: literals are not smoothed.
  if (a.wrt.empty() || a.wrt == "all") opts.wrt = batch.params, opts.wrtLiterals = false;
  if (opts.wrtLiterals)
    throw UsageError{"--smooth smooths over named parameters only: give them with --wrt NAME,... (not literals)"};
  if (opts.wrt.empty()) throw UsageError{"--smooth: nothing to smooth over: bind a parameter and name it in --wrt"};
  if (byLantern(opts.route))
    throw UsageError{std::string("--smooth cannot run on --via ") + routeName(opts.route) +
                     ": lantern.scm takes the crisp program's gradient; use --via direct or dmci"};
  std::vector<SeedValue> seed = batch.seed(0);
  json j;
  json info{{"mode", smooth::modeName(s.mode)}, {"sigma", jsonNumber(s.sigma)}};
  // The time the estimate took (the transform, the engine's preparation and the runs; not reading the program or
  // starting the process): what ci/smooth-bench compares at equal time.
  const auto started = std::chrono::steady_clock::now();
  if (s.mode == smooth::Mode::Si) {
    smooth::SiStats st;
    auto core = catchErrors([&] { return smooth::smoothProgram(program.core(), opts.wrt, s, &st); });
    if (!core) return reportError(core.error(), a.json);
    Program smoothed = program.withCore(*core);
    seed.push_back({smooth::kSigmaName, s.sigma});
    auto ev = engine.evaluate(smoothed, seed, opts);
    if (!ev) return reportError(ev.error(), a.json);
    info["smoothed_comparisons"] = st.smoothed;
    info["crisp_comparisons"] = st.crisp;
    if (s.dea) info["dea_fallback"] = st.deaFallback;
    info["forks"] = st.forks;
    info["max_paths"] = s.maxPaths;
    j["value"] = valueJson(*ev);
    json g = json::object();
    for (const auto& [k, v] : ev->gradient) g[k] = jsonNumber(v);
    j["gradient"] = g;
    if (a.stats) j["stats"] = countersJson(ev->counters);
  } else {
    info["estimator"] = smooth::estimatorName(s.estimator);
    info["seed"] = s.seed;
    std::vector<size_t> perturbed;
    for (const auto& w : opts.wrt)
      for (size_t k = 0; k < batch.params.size(); ++k)
        if (batch.params[k] == w) perturbed.push_back(k);
    std::vector<double> theta;
    for (const auto& v : seed) theta.push_back(v.value);
    std::vector<std::string> names;
    for (const auto& v : seed) names.push_back(v.name);
    smooth::SiStats st;
    auto run = smooth::prepareMc(engine, program, names, opts.wrt, s, opts, &st);
    if (!run) return reportError(run.error(), a.json);
    if (s.estimator == smooth::Estimator::Dgo) {
      info["bandwidth"] = jsonNumber(smooth::dgoBandwidth(s));
      info["smoothed_comparisons"] = st.smoothed;
      info["crisp_comparisons"] = st.crisp;
    }
    auto est = smooth::mcGradient(**run, theta, perturbed, s);
    if (!est) return reportError(est.error(), a.json);
    info["runs"] = est->runs;
    j["value"] = jsonNumber(est->value);
    j["value_error"] = jsonNumber(est->valueError);
    json g = json::object(), e = json::object();
    for (size_t k = 0; k < perturbed.size(); ++k) {
      g[opts.wrt[k]] = jsonNumber(est->gradient[k]);
      e[opts.wrt[k]] = jsonNumber(est->gradientError[k]);
    }
    j["gradient"] = g;
    j["gradient_error"] = e;
  }
  info["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  j["smooth"] = info;
  if (a.json) {
    std::cout << jsonText(j) << "\n";
    return kOk;
  }
  if (a.stats) std::cerr << "smooth: " << jsonText(info) << "\n";
  auto pm = [&](const char* key, const std::string& name) -> std::string {
    if (!j.contains(key)) return "";
    const json& e = name.empty() ? j[key] : j[key][name];
    return " +/- " + (e.is_number() ? num(e.get<double>()) : jsonText(e));
  };
  auto shown = [](const json& v) { return v.is_number() ? num(v.get<double>()) : jsonText(v); };
  std::cout << "value: " << shown(j["value"]) << pm("value_error", "") << "\n";
  for (const auto& w : opts.wrt)
    std::cout << "d/d " << w << " = " << shown(j["gradient"][w]) << pm("gradient_error", w) << "\n";
  return kOk;
}

int runCommand(const RunArgs& a) {
  auto program = loadProgram(a);
  if (!program) return reportError(program.error(), a.json);
  auto engine = engineNamed(a.engine);
  if (!engine) return reportError(engine.error(), a.json);
  auto opts = evalOptions(a);
  if (!opts) return reportError(opts.error(), a.json);
  auto batch = makeLanes(a.binds, a.laneFile);
  if (!batch) return reportError(batch.error(), a.json);
  setWrt(a, *batch, *opts);
  if (auto err = checkLaneBatch(*program, *batch, opts->wrt)) return reportError(*err, a.json);
  if (a.trace) return traceCommand(a, *program, *batch, *opts);
  if (!a.smoothOptionAlone.empty()) throw UsageError{a.smoothOptionAlone + " needs --smooth SIGMA"};
  if (a.smoothGiven) return smoothCommand(a, *program, *batch, **engine, *opts);
  if (asksForLanes(a.binds, a.laneFile)) {
    auto ev = (*engine)->evaluateLanes(*program, *batch, *opts);
    return ev ? printLanes(a, *ev) : reportError(ev.error(), a.json);
  }
  auto ev = (*engine)->evaluate(*program, batch->seed(0), *opts);
  return ev ? printOne(a, *ev) : reportError(ev.error(), a.json);
}

}  // namespace

std::function<int()> addRunCommand(CLI::App& app, bool gradient, bool trace, bool emit) {
  auto a = std::make_shared<RunArgs>();
  a->gradient = gradient || trace || emit;
  a->trace = trace || emit;
  a->emit = emit;
  const char* what =
      emit       ? "record a program's trace for one seed and write it as a self-contained C++ function of the "
                   "parameters giving the value and gradient along that path, with its guards (it returns 1 when the "
                   "path changes)"
      : trace    ? "record a program's numeric trace for one seed on the native machine and print it: leaves, "
                   "constants, operations, guards, output (the replay engine's input)"
      : gradient ? "run a program and print its value and gradient"
                 : "run a program and print its value (any value: numbers, lists, booleans, symbols, strings, tensors)";
  auto* cmd = app.add_subcommand(emit ? "emit" : trace ? "trace" : gradient ? "grad" : "run", what);
  cmd->add_option("program", a->file, "the program (.scm), or - to read it from standard input");
  if (emit) {
    cmd->add_option("-o,--output", a->output, "the C++ file to write (atomically); - for standard output")
        ->capture_default_str();
    cmd->add_option("--function", a->function, "the emitted function's name")->capture_default_str();
  }
  cmd->add_option("-e,--expr", a->expr, "the program as an expression given here, e.g. -e '(list 1 (< 1 2))'");
  cmd->add_option("--bind,-b", a->binds,
                  "bind a free variable: NAME=NUMBER, or NAME=linspace(A,B,N) for N lanes (repeatable)");
  cmd->add_option("--lanes", a->laneFile,
                  "lanes from a file: CSV (a header of names, then one row of numbers per lane) or JSON "
                  "({\"x\": [...], ...} or [{\"x\": ...}, ...]); --bind NAME=NUMBER adds a value for every lane");
  cmd->add_option("--via", a->via,
                  "route: direct (the program compiled), dmci (run as data by mce.scm), "
                  "dmci2 (mce.scm running mce.scm running it), lantern (the gradient by continuation-based "
                  "reverse mode, lantern.scm, no tape), lantern-dmci (that, through mce.scm)")
      ->check(CLI::IsMember({"direct", "dmci", "dmci2", "lantern", "lantern-dmci"}))
      ->capture_default_str();
  cmd->add_option("--evaluator", a->evaluator,
                  "for --via dmci/dmci2: load the evaluator's graph from this file "
                  "(written by `dmci compile dmci/mce/mce.scm -o mce.cg`) instead of "
                  "the one embedded at build time");
  cmd->add_option("--engine", a->engine,
                  "engine: native (the register machine), replay (the recorded trace replayed, native reruns "
                  "off the path), compiled (the trace as C++, built by the system's compiler and loaded) or "
                  "tensor (LibTorch, lanes batched; a plugin loaded when asked for); "
                  "`dmci engines` lists them")
      ->capture_default_str();
  cmd->add_option("--device", a->device, "device of the tensor engine: cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_flag("--float32", a->float32, "tensor engine: float32 lanes instead of float64");
  cmd->add_flag("--replay", a->replay,
                "tensor engine: record each path's trace natively and replay it as whole-batch tensor ops "
                "(a trace with an operation it has no kernel for is replayed on the CPU; --stats: batch_refused)");
  cmd->add_option("--threads", a->threads, "threads for lanes (0: one per hardware thread)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  if (a->gradient)
    cmd->add_option("--wrt", a->wrt,
                    "what to differentiate: comma-separated parameter names, 'literals' (every numeric literal, "
                    "keyed file:line:col), or 'all' (the default: every bound parameter and every literal)");
  if (a->gradient && !a->trace) {
    cmd->add_option("--smooth", a->smooth.sigma,
                    "the gradient of the Gaussian-smoothed program E[P(theta + SIGMA u)], u ~ N(0, I) over the --wrt "
                    "parameters (named parameters only): a useful gradient where the program branches on them")
        ->option_text("SIGMA");
    cmd->add_option(
           "--smooth-mode", a->smoothMode,
           "si: smooth interpretation (a comparison on a parameter becomes Phi(d/SIGMA), `if` blends both "
           "arms; deterministic); mc: Monte Carlo over the program's own runs (--estimator, --samples, --seed)")
        ->check(CLI::IsMember({"si", "mc"}))
        ->capture_default_str();
    cmd->add_option("--estimator", a->estimator,
                    "mc: pgo (randomised finite differences in antithetic pairs), reinforce (score function with a "
                    "leave-one-out baseline) or dgo (the runs' AD gradients plus a kernel density estimate of each "
                    "branch condition at 0 times its gradient and the jump); each with its standard error")
        ->check(CLI::IsMember({"pgo", "reinforce", "dgo"}))
        ->capture_default_str();
    cmd->add_option("--samples", a->smooth.samples, "mc: program runs, made as lanes of one batch")
        ->capture_default_str();
    cmd->add_option("--seed", a->smooth.seed, "mc: the random draws' seed (the same seed: the same numbers)")
        ->capture_default_str();
    cmd->add_option("--smooth-min-weight", a->smooth.minWeight,
                    "si: an arm whose path's probability is below this is not run (so recursion on a smoothed test "
                    "ends)")
        ->capture_default_str();
    cmd->add_option("--smooth-max-paths", a->smooth.maxPaths,
                    "si: the paths forks may run, all told: two arms share their path's budget by their "
                    "probabilities, and a single path runs only the likelier arm (0: no limit). Numbers and lists "
                    "of one shape join at the `if`, so this bounds the paths a fork in a recursion's tail starts")
        ->capture_default_str();
    cmd->add_flag("--smooth-dea", a->smooth.dea,
                  "si: each comparison's width SIGMA |grad d| (d's gradient in the smoothed parameters, derived where "
                  "d is + - * / of parameters, data and variables that every binding moves at one constant rate; "
                  "elsewhere SIGMA, counted as dea_fallback)");
    cmd->add_option("--smooth-bandwidth", a->smooth.bandwidth,
                    "mc dgo: the kernel's width on the branch conditions (0: Silverman's rule 1.06 SIGMA N^-1/5)")
        ->capture_default_str();
  }
  cmd->add_flag("--json", a->json,
                "print one JSON object (a non-finite number as the string \"inf\", \"-inf\" or \"nan\")");
  cmd->add_flag("--stats", a->stats,
                "also print the engine's counts (instructions, calls, heap cells, tape entries; "
                "lane groups and torch operations on the tensor engine)");
  cmd->add_option("--max-steps", a->steps, "step budget (instructions)")->capture_default_str();
  cmd->add_option("--max-heap", a->heap, "heap budget (cells, frames and tape entries)")->capture_default_str();
  cmd->add_option("--max-seconds", a->seconds, "wall-time budget")->capture_default_str();
  return [cmd, a] {
    if (!*cmd) return -1;
    if (a->gradient && !a->trace) {
      a->smoothGiven = cmd->count("--smooth") > 0;
      for (const char* o : {"--smooth-mode", "--estimator", "--samples", "--seed", "--smooth-min-weight",
                            "--smooth-bandwidth", "--smooth-dea", "--smooth-max-paths"})
        if (!a->smoothGiven && cmd->count(o) > 0) a->smoothOptionAlone = o;
    }
    return runCommand(*a);
  };
}

}  // namespace dmci::cli
