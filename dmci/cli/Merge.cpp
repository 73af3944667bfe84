// `dmci merge REPORT.json ...`: reads the shards' reports, checks that they are
// one run's, each shard once, and writes the merged report through the gate's
// or the campaign's own writers.
#include "cli/Merge.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "oracle/gate/Summary.h"
#include "reports/FuzzReport.h"
#include "reports/GateReport.h"
#include "support/JsonParse.h"
#include "syntax/TerminalText.h"

namespace dmci::cli {
namespace {

using json = nlohmann::ordered_json;
constexpr int kPassed = 0, kFailed = 1, kUsage = 2;

struct MergeArgs {
  std::vector<std::string> reports;
  std::string json, md, junit;
  bool quiet = false;
};

// A report file as JSON; a syntax error or a number past double's range is
// placed at its line and column.
Result<json> readJson(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read " + path, {}};
  std::string text(std::istreambuf_iterator<char>(in), {});
  return parseJsonText<json>(text, path, ErrorKind::Io);
}

int fail(const Error &e) {
  std::cerr << "dmci merge: " << escapeControls((e.pos.known() ? e.pos.str() + ": " : "") + e.message, true) << "\n";
  return kFailed;
}

void printWritten(const MergeArgs &a) {
  for (const auto &path : {a.json, a.md, a.junit})
    if (!a.quiet && !path.empty()) std::printf("wrote %s\n", escapeControls(path).c_str());
}

int mergeGate(const std::vector<json> &docs, const MergeArgs &a) {
  std::vector<reports::GateReportFile> shards;
  for (size_t k = 0; k < docs.size(); ++k) {
    auto r = reports::readGateReport(docs[k], a.reports[k]);
    if (!r) return fail(r.error());
    shards.push_back(std::move(*r));
  }
  auto merged = reports::mergeGateReports(shards);
  if (!merged) return fail(merged.error());
  gate::GateSummary s = gate::summarize(merged->run);
  auto w = reports::writeGateReports(merged->run, s, merged->from, {a.json, a.md, a.junit});
  if (!w) {
    std::cerr << "dmci merge: " << escapeControls(w.error().message, true) << "\n";
    return kUsage;
  }
  for (const auto &r : merged->run.results)
    if (r.status == Verdict::Fail) {
      std::printf("FAIL %s (%s)\n", escapeControls(r.pair.name).c_str(), escapeControls(r.pair.file).c_str());
      for (const auto &why : r.reasons) std::printf("  - %s\n", escapeControls(why).c_str());
    }
  std::printf(
      "merge: gate, %d shards (%s; corpus %s): %zu pairs: %zu pass, "
      "%zu fail, %zu nondifferentiable\n",
      merged->from.shards, merged->from.build.c_str(), merged->from.input.c_str(), s.all.total, s.all.pass, s.all.fail,
      s.all.nondifferentiable);
  printWritten(a);
  std::printf("merge: %s\n", s.passed ? "PASSED" : "FAILED");
  return s.passed ? kPassed : kFailed;
}

int mergeFuzz(const std::vector<json> &docs, const MergeArgs &a) {
  std::vector<reports::FuzzReportFile> shards;
  for (size_t k = 0; k < docs.size(); ++k) {
    auto r = reports::readFuzzReport(docs[k], a.reports[k]);
    if (!r) return fail(r.error());
    shards.push_back(std::move(*r));
  }
  size_t duplicates = 0;
  auto merged = reports::mergeFuzzReports(shards, &duplicates);
  if (!merged) return fail(merged.error());
  const props::CampaignReport &r = merged->report;
  if (auto err = reports::writeFuzzReports(r, merged->from, {a.json, a.md, a.junit})) {
    std::cerr << "dmci merge: " << escapeControls(*err, true) << "\n";
    return kUsage;
  }
  for (const auto &f : r.failures)
    std::printf("FAIL case %llu (%s):\n%s\n", static_cast<unsigned long long>(f.index),
                escapeControls(f.property).c_str(), escapeControls(props::describe(f.shrunk), true).c_str());
  std::printf(
      "merge: fuzz, %d shards (%s; %s): %llu cases, %llu nondifferentiable, "
      "%llu failed (%zu distinct shrunk "
      "programs, %zu duplicates dropped)\n",
      merged->from.shards, merged->from.build.c_str(), merged->from.input.c_str(),
      static_cast<unsigned long long>(r.cases), static_cast<unsigned long long>(r.nondifferentiable),
      static_cast<unsigned long long>(r.failed), r.failures.size(), duplicates);
  printWritten(a);
  std::printf("merge: %s\n", r.failed ? "FAILED" : "PASSED");
  return r.failed ? kFailed : kPassed;
}

int mergeCommand(const MergeArgs &a) {
  std::vector<json> docs;
  std::vector<std::pair<std::string, reports::Provenance>> from;
  for (const auto &path : a.reports) {
    auto doc = readJson(path);
    if (!doc) return fail(doc.error());
    auto p = reports::provenanceFromJson(*doc, path);
    if (!p) return fail(p.error());
    docs.push_back(std::move(*doc));
    from.emplace_back(path, *p);
  }
  if (auto order = reports::shardOrder(from); !order) return fail(order.error());  // every problem at once
  return from.front().second.kind == "gate" ? mergeGate(docs, a) : mergeFuzz(docs, a);
}

}  // namespace

std::function<int()> addMergeCommand(CLI::App &app) {
  auto a = std::make_shared<MergeArgs>();
  auto *c = app.add_subcommand("merge",
                               "join the JSON reports of a sharded `dmci "
                               "check` or `dmci fuzz` run into one report; "
                               "fails on a missing or duplicated shard, "
                               "mixed builds or inputs, or any failure");
  c->add_option("reports", a->reports, "the shards' JSON reports (every shard of one run, once each)")->required();
  c->add_option("--json", a->json, "the merged JSON report");
  c->add_option("--md", a->md, "the merged Markdown report");
  c->add_option("--junit", a->junit, "the merged JUnit XML");
  c->add_flag("--quiet,-q", a->quiet, "do not list the files written");
  return [c, a] { return *c ? mergeCommand(*a) : -1; };
}

}  // namespace dmci::cli
