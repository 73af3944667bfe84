// Reads a fuzz campaign's JSON report back, and joins the reports of a campaign's shards into the campaign's.
#include <algorithm>
#include <set>
#include <tuple>

#include "reports/FuzzReport.h"
#include "reports/JsonFields.h"
#include "support/JsonParse.h"

namespace dmci::reports {
namespace {

using json = nlohmann::ordered_json;
using props::CampaignReport;
using props::Failure;

Failure readFailure(const Fields& f) {
  Failure out;
  out.index = f.count("index");
  out.property = f.text("property");
  out.shrunk.family = f.text("family");
  out.shrunk.text = f.text("program");
  for (const auto& [name, value] : f.numbers("seed")) out.shrunk.seed.push_back({name, value});
  out.shrunk.wrt = f.texts("wrt");
  out.shrunk.wrtLiterals = f.flag("literals");
  out.detail = f.text("detail");
  out.original = f.text("original");
  out.shrinkSteps = static_cast<int>(f.count("shrink_steps"));
  return out;
}

CampaignReport readCampaign(const json& report, const std::string& path, const Provenance& from) {
  Fields top(report, path);
  CampaignReport r;
  r.seed = top.count("seed");
  r.shard = from.shard, r.shards = from.shards;
  r.jobs = static_cast<int>(top.count("jobs"));
  r.cases = top.count("cases");
  r.pass = top.count("pass");
  r.nondifferentiable = top.count("nondifferentiable");
  r.illConditioned = top.count("ill_conditioned");
  r.failed = top.count("failed");
  r.recursive = top.count("recursive");
  r.higherOrder = top.count("higher_order");
  r.syntaxChecks = top.count("syntax_checks");
  r.badInputChecks = top.count("bad_input_checks");
  r.laneChecks = top.count("lane_checks");
  r.laneIllConditioned = top.count("lane_checks_ill_conditioned");
  r.byFamily = top.counts("by_family");
  r.byDepth = top.counts("by_depth");
  r.byTag = top.counts("by_tag");
  r.nondifferentiableReasons = top.texts("nondifferentiable_reasons");
  r.seconds = top.number("seconds");
  const json& failures = top.at("failures");
  if (!failures.is_array()) top.fail("failures", "not an array");
  for (size_t k = 0; k < failures.size(); ++k)
    r.failures.push_back(readFailure(Fields(failures[k], path + ": failures[" + std::to_string(k) + "]")));
  return r;
}

void addCounts(std::map<std::string, uint64_t>& to, const std::map<std::string, uint64_t>& from) {
  for (const auto& [k, v] : from) to[k] += v;
}

// Adds one shard's counts and failures to the campaign.
void add(CampaignReport& to, const CampaignReport& r) {
  to.cases += r.cases, to.pass += r.pass, to.nondifferentiable += r.nondifferentiable, to.failed += r.failed;
  to.illConditioned += r.illConditioned, to.recursive += r.recursive, to.higherOrder += r.higherOrder;
  to.syntaxChecks += r.syntaxChecks, to.badInputChecks += r.badInputChecks, to.laneChecks += r.laneChecks;
  to.laneIllConditioned += r.laneIllConditioned;
  addCounts(to.byFamily, r.byFamily);
  addCounts(to.byDepth, r.byDepth);
  addCounts(to.byTag, r.byTag);
  for (const auto& why : r.nondifferentiableReasons)
    if (to.nondifferentiableReasons.size() < 10) to.nondifferentiableReasons.push_back(why);
  to.failures.insert(to.failures.end(), r.failures.begin(), r.failures.end());
  to.jobs += r.jobs;
  to.seconds = std::max(to.seconds, r.seconds);
}

// The failures in case order, one per (property, shrunk program): the lowest case index is kept.
size_t deduplicate(std::vector<Failure>& failures) {
  std::sort(failures.begin(), failures.end(), [](const Failure& a, const Failure& b) { return a.index < b.index; });
  std::set<std::pair<std::string, std::string>> seen;
  size_t before = failures.size();
  std::erase_if(failures, [&](const Failure& f) { return !seen.emplace(f.property, f.shrunk.text).second; });
  return before - failures.size();
}

}  // namespace

Result<FuzzReportFile> readFuzzReport(const json& report, const std::string& path) {
  auto from = provenanceFromJson(report, path);
  if (!from) return from.error();
  if (from->kind != "fuzz") return Error{ErrorKind::Io, path + ": a " + from->kind + " report, not a fuzz report", {}};
  try {
    return catchErrors([&] { return FuzzReportFile{path, readCampaign(report, path, *from), *from}; });
  } catch (const nlohmann::json::exception& e) {  // a type Fields did not check: refused, never an abort
    return Error{ErrorKind::Io, path + ": " + jsonMessage(e), {}};
  }
}

Result<FuzzReportFile> mergeFuzzReports(const std::vector<FuzzReportFile>& shards, size_t* duplicates) {
  std::vector<std::pair<std::string, Provenance>> named;
  for (const auto& s : shards) named.emplace_back(s.path, s.from);
  auto order = shardOrder(named);
  if (!order) return order.error();
  FuzzReportFile out;
  out.report.seed = shards.front().report.seed;
  out.report.jobs = 0;
  std::vector<Provenance> inOrder;
  for (size_t k : *order) {
    add(out.report, shards[k].report);
    inOrder.push_back(shards[k].from);
  }
  size_t dropped = deduplicate(out.report.failures);
  if (duplicates) *duplicates = dropped;
  out.from = mergedProvenance(inOrder);
  out.report.shard = 0, out.report.shards = out.from.shards;
  return out;
}

}  // namespace dmci::reports
