// `dmci check`: runs the corpus through the gate, prints a line per pair and a summary, writes the reports.
#include "cli/Check.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/Shard.h"
#include "driver/Engine.h"
#include "oracle/gate/Gate.h"
#include "oracle/gate/Summary.h"
#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "reports/GateReport.h"
#include "syntax/TerminalText.h"

namespace dmci::cli {
namespace {

using namespace dmci::gate;

constexpr int kOk = 0, kFailed = 1, kUsage = 2;

int usage(const std::string& message) {
  std::cerr << "dmci check: " << escapeControls(message, true) << "\n";
  return kUsage;
}

std::string sci(const std::optional<double>& x) {
  if (!x) return "-";
  if (*x == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", *x);
  return buf;
}

// One table row: name, status, the three gradient comparisons, time. What came from the manifest (names, file
// names, reasons quoting them) is printed with its control characters escaped.
void printRow(const PairResult& r, size_t nameWidth) {
  std::printf("%-*s  %-17s  %-12s %-12s %-12s %8.3fs\n", static_cast<int>(nameWidth),
              escapeControls(r.pair.name).c_str(), verdictName(r.status), sci(r.errors.dmciVsDirect).c_str(),
              sci(r.errors.directVsFd).c_str(), sci(r.errors.dmciVsFd).c_str(), r.seconds);
}

void printTable(const GateRun& run, bool quiet) {
  size_t width = 4;
  for (const auto& r : run.results) width = std::max(width, escapeControls(r.pair.name).size());
  width = std::min<size_t>(width, 60);
  if (!quiet) {
    std::printf("%-*s  %-17s  %-12s %-12s %-12s %9s\n", static_cast<int>(width), "pair", "status", "dmci-direct",
                "direct-fd", "dmci-fd", "time");
    for (const auto& r : run.results) printRow(r, width);
  }
  for (const auto& r : run.results) {
    if (r.status != Verdict::Fail) continue;
    std::printf("\nFAIL %s (%s, expected %s)\n", escapeControls(r.pair.name).c_str(),
                escapeControls(r.pair.file).c_str(), expectName(r.pair.expect));
    for (const auto& why : r.reasons) std::printf("  - %s\n", escapeControls(why).c_str());
  }
}

void printSummary(const GateRun& run, const GateSummary& s) {
  std::printf("\ngate: %zu pairs: %zu pass, %zu fail, %zu nondifferentiable; %.2f s on %d jobs\n", s.all.total,
              s.all.pass, s.all.fail, s.all.nondifferentiable, s.seconds, run.jobs);
  if (s.all.illConditioned)
    std::printf(
        "  %zu ill-conditioned: a value or a gradient within %g times the oracle's rounding spread, not within "
        "its tolerance\n",
        s.all.illConditioned, run.criteria.rounding);
  if (s.all.lanternUncovered)
    std::printf("  lantern: %zu pairs not run: they name primitives lantern.scm does not cover\n",
                s.all.lanternUncovered);
  for (const auto& d : s.comparisons) {
    if (d.errors.empty() && d.comparison.rfind("lantern", 0) == 0) continue;  // a run without --lantern
    char tol[32];
    if (d.tolerance == 0)
      std::snprintf(tol, sizeof tol, "exact");
    else
      std::snprintf(tol, sizeof tol, "%.0e", d.tolerance);
    std::printf("  %-16s median %-9s max %-9s (tolerance %s, %zu compared)", d.comparison.c_str(),
                sci(d.median).c_str(), sci(d.max).c_str(), tol, d.errors.size());
    if (!d.worst.empty()) std::printf("  worst: %s", escapeControls(d.worst.front().first).c_str());
    std::printf("\n");
  }
  std::printf("  slowest:");
  for (size_t k = 0; k < s.slowest.size() && k < 3; ++k)
    std::printf("%s %s %.2fs", k ? "," : "", escapeControls(s.slowest[k].first).c_str(), s.slowest[k].second);
  std::printf("\ngate: %s\n", s.passed ? "PASSED" : "FAILED");
}

// A single updating line on a terminal: "[k/n] name" (the name escaped: its bytes must not drive the terminal).
std::function<void(size_t, size_t, const std::string&)> progressLine(bool enabled) {
  if (!enabled) return nullptr;
  return [](size_t done, size_t total, const std::string& name) {
    std::fprintf(stderr, "\r[%zu/%zu] %s\x1b[K", done, total, escapeControls(name).c_str());
    std::fflush(stderr);
  };
}

// The engine the flags name, with their settings checked by the engine itself.
Result<Engine*> engineFor(const CheckArgs& a) {
  if (a.jobs < 0) return Error{ErrorKind::Usage, "--jobs must be at least 1 (or 0 for one per hardware thread)", {}};
  auto engine = engineNamed(a.engine);
  if (!engine) return engine;
  EvalOptions probe;
  probe.tensor.device = a.device;
  if (auto why = (*engine)->unsupported(probe)) return Error{ErrorKind::Usage, *why, {}};
  return engine;
}

// A tolerance: a positive, finite number.
const CLI::Validator kTolerance(
    [](std::string& s) {
      char* end = nullptr;
      double x = std::strtod(s.c_str(), &end);
      bool ok = !s.empty() && *end == '\0' && x > 0 && std::isfinite(x);
      return ok ? std::string() : "'" + s + "' is not a positive number";
    },
    "POSITIVE");

// The pairs of shard i of N: positions i, i + N, i + 2N, ... of the selected pairs.
std::vector<GatePair> shardOf(const std::vector<GatePair>& pairs, const Shard& shard) {
  std::vector<GatePair> out;
  for (size_t k = static_cast<size_t>(shard.index); k < pairs.size(); k += static_cast<size_t>(shard.count))
    out.push_back(pairs[k]);
  return out;
}

// What made this run: shard, build, corpus content and the options that change results.
Result<reports::Provenance> provenanceOf(const CheckArgs& a, const Manifest& manifest, size_t selected,
                                         const Shard& shard) {
  reports::Provenance p{"gate", shard.index, shard.count, {}, selected, "", "", ""};
  auto build = reports::executableHash();
  if (!build) return build.error();
  std::vector<std::string> files;
  for (const auto& pair : manifest.pairs) files.push_back(pair.file);
  auto corpus = reports::corpusHash(a.dir, files);
  if (!corpus) return corpus.error();
  p.build = *build, p.input = *corpus;
  std::ostringstream s;
  s << "engine " << a.engine << (a.engine == "tensor" && a.replay ? " (replay)" : "")
    << (a.engine == "native" ? "" : " on " + a.device) << "; filter '" << a.filter << "'; tolerances value "
    << a.tolValue << ", ad " << a.tolAd << ", fd " << a.tolFd << ", closed form " << a.tolClosed << "; rounding "
    << a.rounding;
  p.settings = s.str();
  return p;
}

// DMCI_PLANT_ADJOINT=PRIM:SCALE plants a wrong adjoint rule in the engines' tape (prims/Faults.h), to show
// the gate catching and attributing it (with --lantern, the tape-free route agrees with the finite difference).
std::optional<std::string> plantFromEnvironment() {
  const char* plant = std::getenv("DMCI_PLANT_ADJOINT");
  if (!plant || !*plant) return std::nullopt;
  std::string spec = plant;
  size_t colon = spec.find(':');
  char* end = nullptr;
  double scale = colon == std::string::npos ? 0 : std::strtod(spec.c_str() + colon + 1, &end);
  if (colon == std::string::npos || !end || *end != '\0')
    return "DMCI_PLANT_ADJOINT must be PRIM:SCALE (e.g. sin:1.5), got '" + spec + "'";
  try {
    plantAdjointFault(spec.substr(0, colon), scale);
  } catch (const std::invalid_argument& e) {
    return std::string("DMCI_PLANT_ADJOINT: ") + e.what();
  }
  std::fprintf(stderr, "dmci check: planted fault: the tape's %s partials times %g (DMCI_PLANT_ADJOINT)\n",
               spec.substr(0, colon).c_str(), scale);
  return std::nullopt;
}

}  // namespace

CLI::App* addCheckCommand(CLI::App& app, CheckArgs& a) {
  auto* c = app.add_subcommand("check", "the gradient-correctness gate: every corpus pair through the triangle");
  c->add_option("corpus", a.dir, "the corpus directory, holding manifest.json")->capture_default_str();
  c->add_option("--json", a.json, "the JSON report ('' for none; by default none for a --filter or tensor-engine run)")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.jsonGiven = true; });
  c->add_option("--md", a.md, "the Markdown report ('' for none; by default none for a --filter or tensor-engine run)")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.mdGiven = true; });
  c->add_option("--junit", a.junit, "JUnit XML: a test case per pair");
  c->add_option("--filter", a.filter, "only pairs whose name matches: a regular expression, else a substring");
  c->add_option("--shard", a.shard,
                "run shard i of N: the selected pairs at positions i, i + N, ... (default: GTEST_SHARD_INDEX/"
                "GTEST_TOTAL_SHARDS, else SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else all pairs)");
  c->add_option("--jobs,-j", a.jobs, "pairs run in parallel (0: one per hardware thread)")->capture_default_str();
  c->add_option("--tol-value", a.tolValue, "relative tolerance: values")->check(kTolerance)->capture_default_str();
  c->add_option("--tol-ad", a.tolAd, "relative tolerance: dmci vs direct gradients")
      ->check(kTolerance)
      ->capture_default_str();
  c->add_option("--tol-fd", a.tolFd, "relative tolerance: gradients vs finite difference")
      ->check(kTolerance)
      ->capture_default_str();
  c->add_option("--tol-closed", a.tolClosed, "relative tolerance: closed forms")
      ->check(kTolerance)
      ->capture_default_str();
  c->add_option("--rounding", a.rounding,
                "a value that misses the oracle's by more than --tol-value, or a gradient component the finite "
                "difference by more than --tol-fd, still agrees when within this many times the oracle's rounding "
                "spread of it (random-rounding runs; 0: off)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  c->add_flag("--quiet,-q", a.quiet, "print only failures and the summary");
  c->add_option(
       "--engine", a.engine,
       "engine for the dmci and direct routes: native, replay (the recorded trace, replayed), compiled (the trace "
       "as C++, built and loaded) or tensor (LibTorch)")
      ->capture_default_str();
  c->add_option("--device", a.device, "device of the tensor engine: cpu or cuda")->capture_default_str();
  c->add_flag("--replay", a.replay, "tensor engine: replay each recorded trace as whole-batch tensor ops");
  c->add_flag("--lantern", a.lantern,
              "also run every pair by the lantern route (continuation-based reverse mode, no tape): the fourth "
              "corner, compared with direct and the finite difference");
  return c;
}

int checkCommand(const CheckArgs& a) {
  if (auto bad = plantFromEnvironment()) return usage(*bad);
  auto engine = engineFor(a);
  if (!engine) return usage(engine.error().message);
  auto shard = shardFromFlagOrEnvironment(a.shard);
  if (!shard) return usage(shard.error().message);
  auto manifest = loadManifest(a.dir);
  if (!manifest) return usage(manifest.error().message);
  std::vector<GatePair> selected = selectPairs(manifest->pairs, a.filter);
  if (selected.empty())
    return usage(a.filter.empty() ? manifest->path + " lists no pairs" : "no pair matches --filter " + a.filter);
  auto from = provenanceOf(a, *manifest, selected.size(), *shard);
  if (!from) return usage(from.error().message);
  std::vector<GatePair> pairs = shardOf(selected, *shard);
  if (shard->count > 1)
    std::printf("gate: shard %s (from %s): %zu of %zu pairs\n", shard->str().c_str(), shard->source.c_str(),
                pairs.size(), selected.size());
  GateOptions opts;
  opts.criteria = Criteria{a.tolValue, a.tolAd, a.tolFd, a.tolClosed};
  opts.criteria.rounding = a.rounding;
  opts.jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  opts.engine = *engine;
  opts.lantern = a.lantern;
  opts.tensor.device = a.device;
  opts.tensor.replay = a.replay;
  if (a.engine != "native") {
    if (opts.jobs > 1) opts.threads = 1;  // pairs run in parallel; one engine thread each
    // An engine whose kernels may round a batch differently from one lane (LibTorch's vectorised ones) is held
    // to the value tolerance for batched vs alone; the native engine to bit-for-bit equality.
    opts.criteria.batched = a.tolValue;
  }
  bool terminal = !a.quiet && isatty(fileno(stderr));
  opts.progress = progressLine(terminal);
  GateRun run = runGate(a.dir, pairs, opts);
  if (terminal) std::fprintf(stderr, "\r\x1b[K");
  GateSummary summary = summarize(run);
  printTable(run, a.quiet);
  printSummary(run, summary);
  // A partial run (--filter, a shard) or another engine's must not overwrite the committed full report by default.
  bool partial = !a.filter.empty() || a.engine != "native" || shard->count > 1 || a.lantern;
  std::string json = partial && !a.jsonGiven ? "" : a.json, md = partial && !a.mdGiven ? "" : a.md;
  auto written = reports::writeGateReports(run, summary, *from, {json, md, a.junit});
  if (!written) return usage(written.error().message);
  for (const auto& path : {json, md, a.junit})
    if (!a.quiet && !path.empty()) std::printf("wrote %s\n", escapeControls(path).c_str());
  return summary.passed ? kOk : kFailed;
}

}  // namespace dmci::cli
