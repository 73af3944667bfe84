// Reads a gate report's JSON back into a GateRun, and joins the reports of a run's shards into the whole run.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "reports/GateReport.h"
#include "reports/JsonFields.h"
#include "support/JsonParse.h"

namespace dmci::reports {
namespace {

using json = nlohmann::ordered_json;
using gate::PairResult;

Verdict statusNamed(const Fields& f, const std::string& key) {
  std::string name = f.text(key);
  for (auto s : {Verdict::Pass, Verdict::Fail, Verdict::Nondifferentiable})
    if (name == verdictName(s)) return s;
  f.fail(key, "'" + name + "' is not a status");
}

gate::Expect expectNamed(const Fields& f, const std::string& key) {
  std::string name = f.text(key);
  for (auto e : {gate::Expect::Pass, gate::Expect::Nondifferentiable})
    if (name == gate::expectName(e)) return e;
  f.fail(key, "'" + name + "' is not an expectation");
}

// The routes, in the order written (route_seconds holds every route, then the oracle).
void readRoutes(const Fields& p, PairResult& r) {
  Fields values = p.object("value"), grads = p.object("gradient"), secs = p.object("route_seconds");
  for (const auto& [name, t] : secs.raw().items()) {
    if (name == "oracle") continue;
    auto route = parseRoute(name);
    if (!route) secs.fail(name, "not a route");
    gate::RouteRun rr;
    rr.route = *route;
    rr.seconds = secs.number(name);
    auto v = values.maybeNumber(name);
    rr.ok = v.has_value();
    if (rr.ok) rr.value = *v, rr.gradient = grads.numbers(name);
    r.routes.push_back(rr);
  }
  auto oracleValue = values.maybeNumber("oracle");
  Fields oracle = p.object("oracle");
  r.oracle.ok = oracleValue.has_value();
  if (r.oracle.ok) r.oracle.value = *oracleValue, r.oracle.gradient = grads.numbers("fd");
  r.oracle.differentiable = oracle.flag("differentiable");
  r.oracle.reason = oracle.text("reason");
  if (oracle.has("rounding_spread")) r.oracle.roundingSpread = oracle.number("rounding_spread");
  if (oracle.has("gradient_rounding_spread"))
    r.oracle.gradientRoundingSpread = oracle.numbers("gradient_rounding_spread");
  r.oracle.seconds = secs.number("oracle");
  r.pair.closedForm = grads.numbers("closed_form");
  if (values.has("closed_form")) r.pair.closedValue = values.maybeNumber("closed_form");
}

gate::PairErrors readErrors(const Fields& e) {
  gate::PairErrors out;
  out.value = e.maybeNumber("value");
  out.dmciVsDirect = e.maybeNumber("dmci_vs_direct");
  out.directVsFd = e.maybeNumber("direct_vs_fd");
  out.dmciVsFd = e.maybeNumber("dmci_vs_fd");
  out.closedForm = e.maybeNumber("closed_form");
  out.batchedVsAlone = e.maybeNumber("batched_vs_alone");
  if (e.has("lantern_vs_direct")) out.lanternVsDirect = e.maybeNumber("lantern_vs_direct");
  if (e.has("lantern_vs_fd")) out.lanternVsFd = e.maybeNumber("lantern_vs_fd");
  Fields byRoute = e.object("by_route");
  for (const auto& [name, v] : byRoute.raw().items()) {
    auto route = parseRoute(name);
    if (!route) byRoute.fail(name, "not a route");
    Fields r = byRoute.object(name);
    out.byRoute.push_back({*route, r.maybeNumber("vs_direct"), r.maybeNumber("vs_fd")});
  }
  return out;
}

// The smooth row of a nondifferentiable pair, as GateReport writes it (its sigma, samples and dea are the gate's
// constants, checked so that reports made with other settings are not merged as if they were the same).
gate::SmoothCheck readSmooth(const Fields& f) {
  gate::SmoothCheck c;
  if (f.has("skipped")) {
    c.skipped = f.text("skipped");
    return c;
  }
  if (f.number("sigma") != gate::SmoothCheck::kSigma) f.fail("sigma", "not this gate's");
  if (f.number("samples") != static_cast<double>(gate::SmoothCheck::kSamples)) f.fail("samples", "not this gate's");
  if (!f.flag("dea")) f.fail("dea", "not this gate's (it smooths with --smooth-dea)");
  c.smoothed = static_cast<int>(f.count("smoothed_comparisons"));
  c.si = f.numbers("si");
  c.reference = f.numbers("pgo");
  c.referenceError = f.numbers("pgo_error");
  c.worstZ = f.maybeNumber("worst_z").value_or(std::numeric_limits<double>::quiet_NaN());
  c.agrees = f.flag("agrees");
  return c;
}

PairResult readPair(const Fields& p) {
  PairResult r;
  r.pair.name = p.text("name");
  r.pair.family = p.text("family");
  r.pair.file = p.text("file");
  r.pair.expect = expectNamed(p, "expect");
  if (p.has("note")) r.pair.note = p.text("note");
  r.status = statusNamed(p, "status");
  r.reasons = p.texts("reasons");
  if (p.has("notes")) r.notes = p.texts("notes");
  if (p.has("lantern_uncovered")) r.lanternUncovered = p.text("lantern_uncovered");
  readRoutes(p, r);
  r.errors = readErrors(p.object("errors"));
  if (p.has("lanes")) r.lanes = static_cast<size_t>(p.count("lanes"));
  if (p.has("smooth")) r.smooth = readSmooth(p.object("smooth"));
  r.seconds = p.number("seconds");
  return r;
}

gate::GateRun readRun(const json& report, const std::string& path) {
  Fields top(report, path);
  gate::GateRun run;
  Fields summary = top.object("summary"), c = summary.object("criteria");
  run.dir = summary.text("corpus");
  run.jobs = static_cast<int>(summary.count("jobs"));
  run.seconds = summary.number("seconds");
  run.criteria = {c.number("value"), c.number("ad"), c.number("fd"), c.number("closed_form"), c.number("floor")};
  run.criteria.rounding = c.number("rounding");
  run.criteria.batched = c.number("batched");
  const json& pairs = top.at("pairs");
  if (!pairs.is_array()) top.fail("pairs", "not an array");
  for (size_t k = 0; k < pairs.size(); ++k) {
    std::string where = path + ": pairs[" + std::to_string(k) + "]";
    if (pairs[k].is_object() && pairs[k].contains("name") && pairs[k]["name"].is_string())
      where += " (" + pairs[k]["name"].get<std::string>() + ")";
    run.results.push_back(readPair(Fields(pairs[k], where)));
  }
  return run;
}

// How many of `selected` positions fall to shard s of n (positions s, s + n, ...).
size_t shardSize(uint64_t selected, int s, int n) {
  return selected > static_cast<uint64_t>(s) ? (selected - static_cast<uint64_t>(s) + n - 1) / n : 0;
}

}  // namespace

Result<GateReportFile> readGateReport(const json& report, const std::string& path) {
  auto from = provenanceFromJson(report, path);
  if (!from) return from.error();
  if (from->kind != "gate") return Error{ErrorKind::Io, path + ": a " + from->kind + " report, not a gate report", {}};
  try {
    return catchErrors([&] { return GateReportFile{path, readRun(report, path), *from}; });
  } catch (const nlohmann::json::exception& e) {  // a type Fields did not check: refused, never an abort
    return Error{ErrorKind::Io, path + ": " + jsonMessage(e), {}};
  }
}

Result<GateReportFile> mergeGateReports(const std::vector<GateReportFile>& shards) {
  std::vector<std::pair<std::string, Provenance>> named;
  for (const auto& s : shards) named.emplace_back(s.path, s.from);
  auto order = shardOrder(named);
  if (!order) return order.error();
  const Provenance& first = shards.front().from;
  for (const auto& s : shards)
    if (size_t want = shardSize(first.selected, s.from.shard, s.from.shards); s.run.results.size() != want)
      return Error{ErrorKind::Io,
                   s.path + ": shard " + s.from.shardText() + " of " + std::to_string(first.selected) +
                       " pairs holds " + std::to_string(s.run.results.size()) + " pairs, not " + std::to_string(want),
                   {}};
  GateReportFile out{"", shards[order->front()].run, {}};
  out.run.results.assign(first.selected, PairResult{});
  out.run.jobs = 0;
  out.run.seconds = 0;
  std::vector<Provenance> inOrder;
  for (size_t k : *order) {
    const GateReportFile& s = shards[k];
    inOrder.push_back(s.from);
    for (size_t j = 0; j < s.run.results.size(); ++j)
      out.run.results[static_cast<size_t>(s.from.shard) + j * static_cast<size_t>(s.from.shards)] = s.run.results[j];
    out.run.jobs += s.run.jobs;
    out.run.seconds = std::max(out.run.seconds, s.run.seconds);
  }
  out.from = mergedProvenance(inOrder);
  return out;
}

}  // namespace dmci::reports
