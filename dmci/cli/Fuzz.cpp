// `dmci fuzz`: runs a seeded campaign of the properties, shows progress, writes JSON and Markdown reports.
#include "cli/Fuzz.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "properties/Campaign.h"
#ifdef DMCI_HAVE_TORCH
#include "engine/tensor/TensorEngine.h"
#endif

namespace dmci::cli {
namespace {

using props::CampaignReport;
using json = nlohmann::ordered_json;
constexpr int kOk = 0, kFailed = 1, kUsage = 2;

double pct(uint64_t k, uint64_t n) { return n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0.0; }
double rate(const CampaignReport& r) { return r.seconds > 0 ? static_cast<double>(r.cases) / r.seconds : 0.0; }

json failureJson(const props::Failure& f) {
  json seed = json::object();
  for (const auto& s : f.shrunk.seed) seed[s.name] = s.value;
  return {{"index", f.index},       {"property", f.property}, {"family", f.shrunk.family},
          {"program", f.shrunk.text}, {"seed", seed},          {"wrt", f.shrunk.wrt},
          {"literals", f.shrunk.wrtLiterals}, {"detail", f.detail}, {"original", f.original},
          {"shrink_steps", f.shrinkSteps}, {"reproduce", props::describe(f.shrunk)}};
}

json reportJson(const CampaignReport& r) {
  json failures = json::array();
  for (const auto& f : r.failures) failures.push_back(failureJson(f));
  return {{"seed", r.seed},
          {"shard", std::to_string(r.shard) + "/" + std::to_string(r.shards)},
          {"jobs", r.jobs},
          {"cases", r.cases},
          {"pass", r.pass},
          {"nondifferentiable", r.nondifferentiable},
          {"ill_conditioned", r.illConditioned},
          {"failed", r.failed},
          {"recursive_percent", pct(r.recursive, r.cases)},
          {"higher_order_percent", pct(r.higherOrder, r.cases)},
          {"syntax_checks", r.syntaxChecks},
          {"bad_input_checks", r.badInputChecks},
          {"lane_checks", r.laneChecks},
          {"lane_checks_ill_conditioned", r.laneIllConditioned},
          {"by_family", r.byFamily},
          {"by_depth", r.byDepth},
          {"by_tag", r.byTag},
          {"nondifferentiable_reasons", r.nondifferentiableReasons},
          {"seconds", r.seconds},
          {"cases_per_second", rate(r)},
          {"failures", failures}};
}

void countTable(std::ostream& out, const char* what, const std::map<std::string, uint64_t>& counts, uint64_t n) {
  out << "\n| " << what << " | cases | % |\n| --- | ---: | ---: |\n";
  for (const auto& [k, v] : counts) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", pct(v, n));
    out << "| " << k << " | " << v << " | " << buf << " |\n";
  }
}

void writeMarkdown(std::ostream& out, const CampaignReport& r) {
  char line[256];
  out << "# dmci fuzz report\n\n";
  std::snprintf(line, sizeof line,
                "Seed %llu, shard %d/%d, %d jobs: **%llu cases** in %.1f s (%.1f cases/s); %llu pass, %llu "
                "nondifferentiable, **%llu failed**.\n",
                static_cast<unsigned long long>(r.seed), r.shard, r.shards, r.jobs,
                static_cast<unsigned long long>(r.cases), r.seconds, rate(r), static_cast<unsigned long long>(r.pass),
                static_cast<unsigned long long>(r.nondifferentiable), static_cast<unsigned long long>(r.failed));
  out << line;
  std::snprintf(line, sizeof line,
                "\nRecursive: %.1f%%. Higher-order: %.1f%%. Syntax checks: %llu. Bad-input checks: %llu. Lane checks "
                "(batched = alone, tensor = native): %llu.\n",
                pct(r.recursive, r.cases), pct(r.higherOrder, r.cases), static_cast<unsigned long long>(r.syntaxChecks),
                static_cast<unsigned long long>(r.badInputChecks), static_cast<unsigned long long>(r.laneChecks));
  out << line;
  std::snprintf(line, sizeof line,
                "\nIll-conditioned: %llu cases passed with a value that misses the 100-digit oracle's by more than "
                "1e-12 relative but by at most 8x its rounding spread (random-rounding runs of the oracle).\n",
                static_cast<unsigned long long>(r.illConditioned));
  out << line;
  std::snprintf(line, sizeof line,
                "Lane checks passed as ill-conditioned (tensor and native differ by more than 1e-12: values within "
                "the rounding spread, gradients both within 1e-6 of the finite difference and 1e-8 of each other): "
                "%llu.\n",
                static_cast<unsigned long long>(r.laneIllConditioned));
  out << line;
  countTable(out, "family (top form)", r.byFamily, r.cases);
  countTable(out, "tag (anywhere)", r.byTag, r.cases);
  countTable(out, "depth", r.byDepth, r.cases);
  if (!r.nondifferentiableReasons.empty()) {
    out << "\n## Nondifferentiable seeds (first few)\n\n";
    for (const auto& why : r.nondifferentiableReasons) out << "- " << why << "\n";
  }
  out << "\n## Failures\n\n" << (r.failures.empty() ? "None.\n" : "");
  for (const auto& f : r.failures) {
    out << "### case " << f.index << ": " << f.property << " (" << f.shrunk.family << ", " << f.shrinkSteps
        << " shrink steps)\n\n```scheme\n" << props::describe(f.shrunk) << "\n```\n\n```\n" << f.detail << "\n```\n\n";
  }
}

bool writeFile(const std::string& path, const std::string& text) {
  if (path.empty()) return true;
  auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return bool(out);
}

bool parseShard(const std::string& s, int& shard, int& shards) {
  auto slash = s.find('/');
  if (slash == std::string::npos) return false;
  try {
    shard = std::stoi(s.substr(0, slash));
    shards = std::stoi(s.substr(slash + 1));
  } catch (const std::exception&) {
    return false;
  }
  return shards >= 1 && shard >= 0 && shard < shards;
}

void progressLine(const CampaignReport& r, const props::CampaignOptions& o) {
  double total = o.seconds > 0 ? o.seconds : static_cast<double>(o.cases);
  double done = o.seconds > 0 ? r.seconds : static_cast<double>(r.cases);
  std::fprintf(stderr, "\r[%3.0f%%] %llu cases, %llu failed, %llu nondiff, %.1f cases/s\x1b[K",
               total > 0 ? 100.0 * done / total : 0.0, static_cast<unsigned long long>(r.cases),
               static_cast<unsigned long long>(r.failed), static_cast<unsigned long long>(r.nondifferentiable),
               rate(r));
}

}  // namespace

CLI::App* addFuzzCommand(CLI::App& app, FuzzArgs& a) {
  auto* c = app.add_subcommand("fuzz", "property-based campaign: generated programs through the triangle, "
                                       "syntax round trips and bad input");
  auto* cases = c->add_option("--cases", a.cases, "run this many cases (default 1000)");
  c->add_option("--seconds", a.seconds, "run for this long")->excludes(cases);
  c->add_option("--seed", a.seed, "campaign seed (default: from the clock; always printed)");
  c->add_option("--shard", a.shard, "run shard i of N: the case indices equal to i modulo N");
  c->add_option("--json", a.json, "JSON report path ('' for none)");
  c->add_option("--md", a.md, "Markdown report path ('' for none)");
  c->add_option("--save", a.save, "write shrunk failures here: triangle and lane failures as .scm files plus manifest.json pairs (dmci check DIR), others as .txt");
  c->add_option("--jobs,-j", a.jobs, "worker threads")->check(CLI::Range(1, 256));
  c->add_option("--max-depth", a.maxDepth, "largest expression depth budget (1..6)")->check(CLI::Range(1, 6));
  c->add_flag("--no-dmci", a.noDmci, "skip the interpreted route (direct vs the oracle only)");
  c->add_option("--lanes-every", a.lanesEvery,
                "every Nth case also runs as 8 lanes: batched = alone, tensor engine = native (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  c->add_flag("--quiet,-q", a.quiet, "no progress line");
  return c;
}

int fuzzCommand(const FuzzArgs& a) {
  props::CampaignOptions o;
  if (!parseShard(a.shard, o.shard, o.shards)) {
    std::cerr << "dmci fuzz: --shard expects i/N with 0 <= i < N, got '" << a.shard << "'\n";
    return kUsage;
  }
  o.seed = a.seed ? a.seed
                  : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007;
  o.cases = a.cases == 0 && a.seconds <= 0 ? 1000 : a.cases;
  o.seconds = a.seconds;
  o.jobs = a.jobs;
  o.maxDepth = a.maxDepth;
  o.triangle.dmci = !a.noDmci;
  o.lanesEvery = a.lanesEvery;
#ifdef DMCI_HAVE_TORCH
  if (a.lanesEvery > 0) {
    setTensorEngineThreads(1);  // the campaign's jobs use the cores
    bool dmci = !a.noDmci;
    o.lanes = [dmci](const props::Case& c, Route route) {
      props::LaneOptions lo;
      lo.route = dmci ? route : Route::Direct;
      lo.threads = 1;
      if (lo.route == Route::Dmci) lo.lanes = 5;
      return props::checkLanes(c, lo);
    };
  }
#endif
  std::printf("dmci fuzz: seed %llu, shard %d/%d, %d jobs, %s\n", static_cast<unsigned long long>(o.seed), o.shard,
              o.shards, o.jobs,
              o.seconds > 0 ? (std::to_string(o.seconds) + " s").c_str() : (std::to_string(o.cases) + " cases").c_str());
  std::fflush(stdout);
  if (!a.quiet && isatty(fileno(stderr))) o.progress = [&o](const CampaignReport& r) { progressLine(r, o); };
  CampaignReport r = props::runCampaign(o);
  if (o.progress) std::fprintf(stderr, "\n");
  std::ostringstream md;
  writeMarkdown(md, r);
  if (!writeFile(a.json, reportJson(r).dump(2) + "\n") || !writeFile(a.md, md.str()))
    std::cerr << "dmci fuzz: cannot write the reports\n";
  for (const auto& f : r.failures)
    std::printf("\nFAIL case %llu (%s):\n%s\n%s\n", static_cast<unsigned long long>(f.index), f.property.c_str(),
                props::describe(f.shrunk).c_str(), f.detail.c_str());
  if (!a.save.empty() && !r.failures.empty()) {
    size_t written = 0;
    std::string err = props::saveFailures(r, a.save, &written);
    if (!err.empty()) std::cerr << "dmci fuzz: " << err << "\n";
    std::printf("saved %zu failure files in %s (rerun: dmci check %s)\n", written, a.save.c_str(), a.save.c_str());
  }
  std::printf("dmci fuzz: seed %llu: %llu cases in %.1f s (%.1f cases/s), %.1f%% recursive, %.1f%% higher-order, "
              "%llu nondifferentiable, %llu failed\n",
              static_cast<unsigned long long>(r.seed), static_cast<unsigned long long>(r.cases), r.seconds, rate(r),
              pct(r.recursive, r.cases), pct(r.higherOrder, r.cases),
              static_cast<unsigned long long>(r.nondifferentiable), static_cast<unsigned long long>(r.failed));
  return r.failed ? kFailed : kOk;
}

}  // namespace dmci::cli
