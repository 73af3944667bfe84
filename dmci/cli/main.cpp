// dmci: the command-line tool. Exit codes: 0 success, 1 program error, 2 usage error.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/Check.h"
#include "cli/Fuzz.h"
#include "driver/JsonNumber.h"
#include "driver/Lanes.h"
#include "driver/Program.h"
#include "expand/Expand.h"
#include "mce/Mce.h"
#include "prims/PrimTable.h"
#include "syntax/Reader.h"
#ifdef DMCI_HAVE_TORCH
#include "engine/tensor/TensorEngine.h"
#endif

namespace {
using namespace dmci;
using json = nlohmann::ordered_json;

constexpr int kOk = 0, kProgramError = 1, kUsageError = 2;

// Options shared by run and grad.
struct RunArgs {
  std::string file;
  std::vector<std::string> binds;
  std::string laneFile;
  std::string via = "direct";
  std::string engine = "native";
  std::string device = "cpu";
  bool float32 = false;
  std::string wrt;
  std::string evaluator;
  bool json = false;
  bool stats = false;
  uint64_t steps = Budget{}.steps;
  uint64_t heap = Budget{}.heapCells;
  double seconds = Budget{}.seconds;
};

void addRunOptions(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("program", a.file, "the program (.scm)")->required();
  cmd->add_option("--bind,-b", a.binds,
                  "bind a free variable: NAME=NUMBER, or NAME=linspace(A,B,N) for N lanes (repeatable)");
  cmd->add_option("--lanes", a.laneFile,
                  "lanes from a file: CSV (a header of names, then one row of numbers per lane) or JSON "
                  "({\"x\": [...], ...} or [{\"x\": ...}, ...]); --bind NAME=NUMBER adds a value for every lane");
  cmd->add_option("--via", a.via, "route: direct (the program compiled), dmci (run as data by mce.scm), "
                                  "dmci2 (mce.scm running mce.scm running it)")
      ->check(CLI::IsMember({"direct", "dmci", "dmci2"}));
  cmd->add_option("--evaluator", a.evaluator, "for --via dmci/dmci2: load the evaluator's graph from this file "
                                              "(written by `dmci compile dmci/mce/mce.scm -o mce.cg`) instead of "
                                              "the one embedded at build time");
  cmd->add_option("--engine", a.engine, "engine: native (the register machine) or tensor (LibTorch, lanes batched)")
      ->check(CLI::IsMember({"native", "tensor"}));
  cmd->add_option("--device", a.device, "device of the tensor engine: cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_flag("--float32", a.float32, "tensor engine: float32 lanes instead of float64");
  cmd->add_flag("--json", a.json, "print one JSON object (a non-finite number as the string \"inf\", \"-inf\" or \"nan\")");
  cmd->add_flag("--stats", a.stats, "also print counts: instructions, calls, heap cells, tape entries");
  cmd->add_option("--max-steps", a.steps, "step budget (instructions)");
  cmd->add_option("--max-heap", a.heap, "heap budget (cells, frames and tape entries)");
  cmd->add_option("--max-seconds", a.seconds, "wall-time budget");
}

struct UsageError {
  std::string message;
};

std::vector<SeedValue> parseBinds(const std::vector<std::string>& binds) {
  std::vector<SeedValue> out;
  for (const auto& b : binds) {
    auto eq = b.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError{"--bind expects NAME=NUMBER, got '" + b + "'"};
    std::string v = b.substr(eq + 1);
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0') throw UsageError{"--bind " + b.substr(0, eq) + ": '" + v + "' is not a number"};
    out.push_back({b.substr(0, eq), x});
  }
  return out;
}

Route parseRoute(const std::string& via) {
  if (via == "dmci") return Route::Dmci;
  if (via == "dmci2") return Route::Dmci2;
  return Route::Direct;
}

std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string num(double x) { return formatNumber(x); }

int reportError(const Error& e, bool asJson) {
  if (asJson) {
    json j{{"error", {{"kind", errorKindName(e.kind)}, {"message", e.message}, {"position", e.pos.str()}}}};
    std::cout << j.dump() << "\n";
  } else {
    std::cerr << e.str() << "\n";
  }
  return e.kind == ErrorKind::Usage ? kUsageError : kProgramError;
}

json valueJson(const Evaluation& ev) {
  if (!ev.isTensor) return jsonNumber(ev.value);
  return json{{"shape", ev.rank == 1 ? json::array({ev.rows}) : json::array({ev.rows, ev.cols})}, {"data", jsonNumbers(ev.tensor)}};
}

// The names a list of --bind options binds, in order.
std::vector<std::string> bindNames(const std::vector<std::string>& binds) {
  std::vector<std::string> out;
  for (const auto& b : binds) out.push_back(b.substr(0, b.find('=')));
  return out;
}

// Lanes: a lane file or bindings with linspace(...) run as a batch, one lane per value.
int lanesCommand(const RunArgs& a, const Program& program, const LaneBatch& batch, const EvalOptions& eo) {
  if (auto err = checkLaneBatch(program, batch, eo.wrt)) return reportError(*err, a.json);
  std::vector<double> value;
  std::vector<std::string> keys;
  std::vector<std::vector<double>> gradient;
  json stats;
  if (a.engine == "tensor") {
#ifdef DMCI_HAVE_TORCH
    auto ev = evaluateBatch(program, batch, tensorOptions(eo, a.device, a.float32));
    if (!ev) return reportError(ev.error(), a.json);
    value = std::move(ev->value), keys = std::move(ev->gradientKeys), gradient = std::move(ev->gradient);
    const TensorStats& st = ev->stats;
    stats = {{"groups", st.groups}, {"splits", st.splits}, {"max_groups", st.maxGroups}, {"syncs", st.syncs},
             {"torch_ops", st.torchOps}, {"lane_loops", st.laneLoops}, {"steps", st.steps}};
#else
    throw UsageError{"--engine tensor: this dmci was built without LibTorch"};
#endif
  } else {
    auto ev = evaluateLanes(program, batch.params, batch.values, eo, 0, static_cast<size_t>(batch.lanes()));
    if (!ev) return reportError(ev.error(), a.json);
    value = std::move(ev->value), keys = std::move(ev->gradientKeys), gradient = std::move(ev->gradient);
    // utilisation: time busy over threads x wall time
    stats = {{"steps", ev->steps}, {"threads", ev->threads}, {"seconds", ev->seconds},
             {"utilisation", ev->busySeconds / (ev->threads * std::max(ev->seconds, 1e-12))}};
  }
  json grad = json::object();
  for (size_t k = 0; k < keys.size(); ++k) grad[keys[k]] = jsonNumbers(gradient[k]);
  json j{{"lanes", value.size()}, {"value", jsonNumbers(value)}};
  if (eo.gradient) j["gradient"] = grad;
  if (a.stats) j["stats"] = stats;
  std::cout << j.dump() << "\n";
  return kOk;
}

// One evaluation on the engine the options name.
Result<Evaluation> evaluateOn(const RunArgs& a, const Program& program, const std::vector<SeedValue>& seed,
                              const EvalOptions& opts) {
  if (a.engine == "native") return program.evaluate(seed, opts);
#ifdef DMCI_HAVE_TORCH
  return evaluateOnTensorEngine(program, seed, opts, a.device, a.float32);
#else
  return Error{ErrorKind::Usage, "--engine tensor: this dmci was built without LibTorch", {}};
#endif
}

int runCommand(const RunArgs& a, bool gradient) {
  bool lanes = !a.laneFile.empty() || std::any_of(a.binds.begin(), a.binds.end(), [](const std::string& b) {
                 return b.find("linspace(") != std::string::npos;
               });
  if (a.engine == "native" && a.device != "cpu") throw UsageError{"--device cuda needs --engine tensor"};
  auto program = Program::fromFile(a.file);
  if (!program) return reportError(program.error(), a.json);
  EvalOptions opts;
  opts.route = parseRoute(a.via);
  opts.gradient = gradient;
  opts.budget = Budget{a.steps, a.heap, a.seconds};
  if (!a.evaluator.empty()) {
    std::ifstream in(a.evaluator, std::ios::binary);
    if (!in) return reportError(Error{ErrorKind::Io, "cannot read " + a.evaluator, {}}, a.json);
    std::stringstream text;
    text << in.rdbuf();
    auto g = parseGraph(text.str(), a.evaluator);
    if (!g) return reportError(g.error(), a.json);
    if (g->params != mceParams())
      return reportError(Error{ErrorKind::Usage, a.evaluator + " is not an evaluator graph (its parameters differ)", {}},
                         a.json);
    opts.evaluator = std::make_shared<const ComputeGraph>(std::move(*g));
  }
  std::optional<LaneBatch> batch;
  if (lanes) {
    auto b = makeLanes(a.binds, a.laneFile);
    if (!b) return reportError(b.error(), a.json);
    batch = std::move(*b);
  }
  if (gradient) {  // "all": every bound parameter (a lane file's included) and every literal
    std::string wrt = a.wrt.empty() ? "all" : a.wrt;
    for (const auto& w : splitCommas(wrt)) {
      if (w == "literals" || w == "all") opts.wrtLiterals = true;
      if (w == "all")
        for (const auto& n : batch ? batch->params : bindNames(a.binds)) opts.wrt.push_back(n);
      else if (w != "literals")
        opts.wrt.push_back(w);
    }
  }
  if (batch) return lanesCommand(a, *program, *batch, opts);
  auto seed = parseBinds(a.binds);
  auto free = program->freeParameters();
  for (const auto& s : seed)
    if (std::find(free.begin(), free.end(), s.name) == free.end())
      return reportError(Error{ErrorKind::Usage, "--bind " + s.name + ": not a free variable of " + a.file, {}}, a.json);
  auto ev = evaluateOn(a, *program, seed, opts);
  if (!ev) return reportError(ev.error(), a.json);
  json stats{{"steps", ev->stats.steps}, {"calls", ev->stats.calls}, {"max_frames", ev->stats.maxFrames},
             {"heap_cells", ev->heapCells}, {"tape_entries", ev->tapeEntries}};
  if (a.stats && !a.json) std::cerr << "stats: " << stats.dump() << "\n";
  if (a.json) {
    json j{{"value", valueJson(*ev)}};
    if (a.stats) j["stats"] = stats;
    if (gradient) {
      json g = json::object();
      for (const auto& [k, v] : ev->gradient) g[k] = jsonNumber(v);
      j["gradient"] = g;
    }
    std::cout << j.dump() << "\n";
    return kOk;
  }
  if (ev->isTensor) {
    std::cout << "value: [";
    for (size_t k = 0; k < ev->tensor.size(); ++k) std::cout << (k ? " " : "") << num(ev->tensor[k]);
    std::cout << "] (sum " << num(ev->value) << ")\n";
  } else {
    std::cout << (gradient ? "value: " : "") << num(ev->value) << "\n";
  }
  for (const auto& [k, v] : ev->gradient) std::cout << "d/d " << k << " = " << num(v) << "\n";
  return kOk;
}

int compileCommand(const std::string& file, const std::string& out, const std::vector<std::string>& params) {
  // mce.scm is compiled as the evaluator (its internal names allowed), anything else as a user program.
  Result<ComputeGraph> g = Error{};
  if (file.size() >= 7 && file.substr(file.size() - 7) == "mce.scm") {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    if (s.str() != mceSource())
      return reportError(Error{ErrorKind::Usage, file + " differs from the mce.scm this dmci was built with", {}}, false);
    g = compileMce();
  } else {
    auto program = Program::fromFile(file);
    if (!program) return reportError(program.error(), false);
    g = program->compile(params.empty() ? program->freeParameters() : params);
  }
  if (!g) return reportError(g.error(), false);
  std::string text = printGraph(*g);
  if (out.empty() || out == "-") {
    std::cout << text;
  } else {
    std::ofstream o(out, std::ios::binary);
    o << text;
    if (!o) return reportError(Error{ErrorKind::Io, "cannot write " + out, {}}, false);
  }
  return kOk;
}

int primsCommand(bool asJson) {
  json rows = json::array();
  for (const auto& p : primitives()) {
    if (p.family == PrimFamily::Internal) continue;
    if (asJson) {
      rows.push_back({{"name", p.name}, {"min", p.minArgs}, {"max", p.maxArgs}, {"family", familyName(p.family)},
                      {"doc", p.doc}, {"adjoint", p.partials}, {"scheme", p.prelude != nullptr}});
    } else {
      std::string arity = std::to_string(p.minArgs) + (p.maxArgs < 0 ? "+" : p.maxArgs == p.minArgs ? "" : "-" + std::to_string(p.maxArgs));
      std::cout << p.name << "\t" << arity << "\t" << familyName(p.family) << "\t" << p.doc;
      if (p.partials && *p.partials) std::cout << "  [adjoint: " << p.partials << "]";
      std::cout << "\n";
    }
  }
  if (asJson) std::cout << rows.dump(1) << "\n";
  return kOk;
}

int expandCommand(const std::string& file) {
  auto program = Program::fromFile(file);
  if (!program) return reportError(program.error(), false);
  std::cout << print(*program->core()) << "\n";
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dmci: differentiable meta-circular interpretation of a Scheme subset"};
  app.require_subcommand(1);
  RunArgs runArgs, gradArgs;
  auto* run = app.add_subcommand("run", "run a program and print its value");
  addRunOptions(run, runArgs);
  auto* grad = app.add_subcommand("grad", "run a program and print its value and gradient");
  addRunOptions(grad, gradArgs);
  grad->add_option("--wrt", gradArgs.wrt,
                   "what to differentiate: comma-separated parameter names, 'literals' (every numeric literal, "
                   "keyed file:line:col), or 'all' (the default: every bound parameter and every literal)");
  std::string cfile, cout;
  std::vector<std::string> cparams;
  auto* compile = app.add_subcommand("compile", "lower a program to its ComputeGraph text");
  compile->add_option("program", cfile, "the program (.scm); dmci/mce/mce.scm gives the evaluator's graph")->required();
  compile->add_option("-o,--output", cout, "output file (default: standard output)");
  compile->add_option("--params", cparams, "parameter names in order (default: the program's free variables)")->delimiter(',');
  bool primsJson = false;
  auto* prims = app.add_subcommand("prims", "list the primitive table: arity, family, doc and adjoint rule");
  prims->add_flag("--json", primsJson, "print JSON");
  std::string efile;
  auto* expand = app.add_subcommand("expand", "print a program's core AST after expansion");
  expand->add_option("program", efile, "the program (.scm)")->required();
  cli::CheckArgs checkArgs;
  auto* check = cli::addCheckCommand(app, checkArgs);
  cli::FuzzArgs fuzzArgs;
  auto* fuzz = cli::addFuzzCommand(app, fuzzArgs);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsageError;
  }
  try {
    if (*run) return runCommand(runArgs, false);
    if (*grad) return runCommand(gradArgs, true);
    if (*compile) return compileCommand(cfile, cout, cparams);
    if (*prims) return primsCommand(primsJson);
    if (*expand) return expandCommand(efile);
    if (*check) return cli::checkCommand(checkArgs);
    if (*fuzz) return cli::fuzzCommand(fuzzArgs);
  } catch (const UsageError& e) {
    std::cerr << "dmci: " << e.message << "\n";
    return kUsageError;
  }
  return kUsageError;
}
