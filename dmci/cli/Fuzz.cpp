// `dmci fuzz`: runs a seeded campaign of the properties, shows progress, writes JSON and Markdown reports.
#include "cli/Fuzz.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/Shard.h"
#include "driver/Engine.h"
#include "properties/Campaign.h"
#include "reports/FuzzReport.h"

namespace dmci::cli {
namespace {

using props::CampaignReport;
using json = nlohmann::ordered_json;
constexpr int kOk = 0, kFailed = 1, kUsage = 2;

// What made this campaign: the build, the seed, and the options that change which cases run and how they are judged.
Result<reports::Provenance> provenanceOf(const FuzzArgs& a, const props::CampaignOptions& o, const Shard& shard,
                                         const std::string& lanesOff) {
  auto build = reports::executableHash();
  if (!build) return build.error();
  std::ostringstream s;
  s << "max depth " << o.maxDepth << "; dmci route " << (o.triangle.dmci ? "on" : "off") << "; lanes every "
    << a.lanesEvery << (lanesOff.empty() ? "" : " (off: " + lanesOff + ")") << "; bad input every " << o.badInputEvery
    << "; " << (o.seconds > 0 ? "seconds " + std::to_string(o.seconds) : "cases " + std::to_string(o.cases));
  return reports::Provenance{"fuzz", shard.index, shard.count, {}, 0, *build, "seed " + std::to_string(o.seed),
                             s.str()};
}

void progressLine(const CampaignReport& r, const props::CampaignOptions& o) {
  double total = o.seconds > 0 ? o.seconds : static_cast<double>(o.cases);
  double done = o.seconds > 0 ? r.seconds : static_cast<double>(r.cases);
  std::fprintf(stderr, "\r[%3.0f%%] %llu cases, %llu failed, %llu nondiff, %.1f cases/s\x1b[K",
               total > 0 ? 100.0 * done / total : 0.0, static_cast<unsigned long long>(r.cases),
               static_cast<unsigned long long>(r.failed), static_cast<unsigned long long>(r.nondifferentiable),
               reports::casesPerSecond(r));
}

}  // namespace

CLI::App* addFuzzCommand(CLI::App& app, FuzzArgs& a) {
  auto* c = app.add_subcommand("fuzz",
                               "property-based campaign: generated programs through the triangle, "
                               "syntax round trips and bad input");
  auto* cases = c->add_option("--cases", a.cases, "run this many cases (default 1000)");
  c->add_option("--seconds", a.seconds, "run for this long")->excludes(cases);
  c->add_option("--seed", a.seed, "campaign seed (default: from the clock; always printed)");
  c->add_option("--shard", a.shard,
                "run shard i of N: the case indices equal to i modulo N (default: GTEST_SHARD_INDEX/"
                "GTEST_TOTAL_SHARDS, else SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else 0/1)");
  c->add_option("--json", a.json, "JSON report path ('' for none)");
  c->add_option("--md", a.md, "Markdown report path ('' for none)");
  c->add_option("--junit", a.junit, "JUnit XML: a test case per property, a failing one per failure");
  c->add_option("--save", a.save,
                "write shrunk failures here: triangle and lane failures as .scm files plus manifest.json pairs (dmci "
                "check DIR), others as .txt");
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
  auto shard = shardFromFlagOrEnvironment(a.shard);
  if (!shard) {
    std::cerr << "dmci fuzz: " << shard.error().message << "\n";
    return kUsage;
  }
  o.shard = shard->index, o.shards = shard->count;
  o.seed =
      a.seed ? a.seed : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007;
  o.cases = a.cases == 0 && a.seconds <= 0 ? 1000 : a.cases;
  o.seconds = a.seconds;
  o.jobs = a.jobs;
  o.maxDepth = a.maxDepth;
  o.triangle.dmci = !a.noDmci;
  o.lanesEvery = a.lanesEvery;
  std::string lanesOff;  // why the lane checks cannot run, said in the output (never skipped silently)
  if (a.lanesEvery > 0) {
    auto tensor = engineNamed("tensor");
    if (!tensor) {
      lanesOff = tensor.error().message;
    } else {
      bool dmci = !a.noDmci;
      o.lanes = [dmci](const props::Case& c, Route route) {
        props::LaneOptions lo;
        lo.route = dmci ? route : Route::Direct;
        lo.threads = 1;  // the campaign's jobs use the cores
        if (lo.route == Route::Dmci) lo.lanes = 5;
        return props::checkLanes(c, lo);
      };
    }
  }
  std::printf(
      "dmci fuzz: seed %llu, shard %d/%d, %d jobs, %s\n", static_cast<unsigned long long>(o.seed), o.shard, o.shards,
      o.jobs,
      o.seconds > 0 ? (std::to_string(o.seconds) + " s").c_str() : (std::to_string(o.cases) + " cases").c_str());
  if (!lanesOff.empty()) std::printf("dmci fuzz: lane checks off: %s\n", lanesOff.c_str());
  auto from = provenanceOf(a, o, *shard, lanesOff);
  if (!from) {
    std::cerr << "dmci fuzz: " << from.error().message << "\n";
    return kUsage;
  }
  std::fflush(stdout);
  if (!a.quiet && isatty(fileno(stderr))) o.progress = [&o](const CampaignReport& r) { progressLine(r, o); };
  CampaignReport r = props::runCampaign(o);
  if (o.progress) std::fprintf(stderr, "\n");
  auto unwritten = reports::writeFuzzReports(r, *from, {a.json, a.md, a.junit});
  if (unwritten) std::cerr << "dmci fuzz: " << *unwritten << "\n";
  for (const auto& f : r.failures)
    std::printf("\nFAIL case %llu (%s):\n%s\n%s\n", static_cast<unsigned long long>(f.index), f.property.c_str(),
                props::describe(f.shrunk).c_str(), f.detail.c_str());
  if (!a.save.empty() && !r.failures.empty()) {
    size_t written = 0;
    std::string err = props::saveFailures(r, a.save, &written);
    if (!err.empty()) std::cerr << "dmci fuzz: " << err << "\n";
    std::printf("saved %zu failure files in %s (rerun: dmci check %s)\n", written, a.save.c_str(), a.save.c_str());
  }
  std::printf(
      "dmci fuzz: seed %llu: %llu cases in %.1f s (%.1f cases/s), %.1f%% recursive, %.1f%% higher-order, "
      "%llu nondifferentiable, %llu failed\n",
      static_cast<unsigned long long>(r.seed), static_cast<unsigned long long>(r.cases), r.seconds,
      reports::casesPerSecond(r), reports::percent(r.recursive, r.cases), reports::percent(r.higherOrder, r.cases),
      static_cast<unsigned long long>(r.nondifferentiable), static_cast<unsigned long long>(r.failed));
  if (unwritten) return kUsage;  // a report asked for is missing: not a result to trust
  return r.failed ? kFailed : kOk;
}

}  // namespace dmci::cli
