// Writes the gate's JSON report (per pair, summary, provenance), its Markdown report with SVG error histograms, and
// its JUnit XML.
#include "reports/GateReport.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/ErrorHistogram.h"
#include "support/AtomicFile.h"
#include "support/JsonNumber.h"

namespace dmci::reports {
namespace {

using json = nlohmann::ordered_json;

json num(double x) { return jsonNumber(x); }  // non-finite as "inf", "-inf", "nan"

json num(const std::optional<double>& x) { return x ? num(*x) : json(nullptr); }

json gradientJson(const gate::Gradient& g) {
  json o = json::object();
  for (const auto& [k, v] : g) o[k] = num(v);
  return o;
}

json pairErrorsJson(const gate::PairErrors& e) {
  json o{{"value", num(e.value)},
         {"dmci_vs_direct", num(e.dmciVsDirect)},
         {"direct_vs_fd", num(e.directVsFd)},
         {"dmci_vs_fd", num(e.dmciVsFd)},
         {"closed_form", num(e.closedForm)},
         {"batched_vs_alone", num(e.batchedVsAlone)},
         {"lantern_vs_direct", num(e.lanternVsDirect)},
         {"lantern_vs_fd", num(e.lanternVsFd)}};
  json byRoute = json::object();
  for (const auto& r : e.byRoute)
    byRoute[routeName(r.route)] = {{"vs_direct", num(r.vsDirect)}, {"vs_fd", num(r.vsFd)}};
  o["by_route"] = byRoute;
  return o;
}

json pairJson(const gate::PairResult& r) {
  json values = json::object(), grads = json::object(), seconds = json::object();
  for (const auto& rr : r.routes) {
    values[routeName(rr.route)] = rr.ok ? num(rr.value) : json(nullptr);
    if (rr.ok) grads[routeName(rr.route)] = gradientJson(rr.gradient);
    seconds[routeName(rr.route)] = rr.seconds;
  }
  values["oracle"] = r.oracle.ok ? num(r.oracle.value) : json(nullptr);
  if (r.oracle.ok) grads["fd"] = gradientJson(r.oracle.gradient);
  grads["closed_form"] = gradientJson(r.pair.closedForm);
  if (r.pair.closedValue) values["closed_form"] = num(*r.pair.closedValue);
  seconds["oracle"] = r.oracle.seconds;
  json o{{"name", r.pair.name},
         {"family", r.pair.family},
         {"file", r.pair.file},
         {"status", verdictName(r.status)},
         {"expect", gate::expectName(r.pair.expect)},
         {"reasons", r.reasons},
         {"value", values},
         {"gradient", grads},
         {"errors", pairErrorsJson(r.errors)},
         {"oracle", {{"differentiable", r.oracle.differentiable}, {"reason", r.oracle.reason}}},
         {"seconds", r.seconds},
         {"route_seconds", seconds}};
  if (!r.pair.note.empty()) o["note"] = r.pair.note;
  if (!r.notes.empty()) o["notes"] = r.notes;
  if (!r.lanternUncovered.empty()) o["lantern_uncovered"] = r.lanternUncovered;
  if (r.lanes) o["lanes"] = r.lanes;
  if (r.smooth) {
    const gate::SmoothCheck& c = *r.smooth;
    o["smooth"] = c.skipped.empty() ? json{{"sigma", gate::SmoothCheck::kSigma},
                                           {"dea", true},
                                           {"samples", gate::SmoothCheck::kSamples},
                                           {"smoothed_comparisons", c.smoothed},
                                           {"si", gradientJson(c.si)},
                                           {"pgo", gradientJson(c.reference)},
                                           {"pgo_error", gradientJson(c.referenceError)},
                                           {"worst_z", num(c.worstZ)},
                                           {"agrees", c.agrees}}
                                    : json{{"skipped", c.skipped}};
  }
  if (r.oracle.roundingSpread) o["oracle"]["rounding_spread"] = *r.oracle.roundingSpread;
  if (r.oracle.gradientRoundingSpread)
    o["oracle"]["gradient_rounding_spread"] = gradientJson(*r.oracle.gradientRoundingSpread);
  return o;
}

json countsJson(const gate::StatusCounts& c) {
  return {{"total", c.total},
          {"pass", c.pass},
          {"fail", c.fail},
          {"nondifferentiable", c.nondifferentiable},
          {"ill_conditioned", c.illConditioned},
          {"seconds", c.seconds}};
}

json namedJson(const std::vector<std::pair<std::string, double>>& v, const char* what) {
  json a = json::array();
  for (const auto& [name, x] : v) a.push_back({{"name", name}, {what, num(x)}});
  return a;
}

json summaryJson(const gate::GateRun& run, const gate::GateSummary& s) {
  json families = json::object();
  for (const auto& [f, c] : s.families) families[f] = countsJson(c);
  json errors = json::object();
  for (const auto& d : s.comparisons)
    errors[d.comparison] = {{"tolerance", d.tolerance},
                            {"compared", d.errors.size()},
                            {"median", num(d.median)},
                            {"max", num(d.max)},
                            {"worst", namedJson(d.worst, "error")}};
  const gate::Criteria& c = run.criteria;
  return {{"passed", s.passed},
          {"counts", countsJson(s.all)},
          {"families", families},
          {"errors", errors},
          {"slowest", namedJson(s.slowest, "seconds")},
          {"seconds", s.seconds},
          {"jobs", run.jobs},
          {"corpus", run.dir},
          {"criteria",
           {{"value", c.value},
            {"ad", c.ad},
            {"fd", c.fd},
            {"closed_form", c.closedForm},
            {"batched", c.batched},
            {"floor", c.floor},
            {"rounding", c.rounding},
            {"relative_error", "|a - b| / max(|b|, floor), b the reference"}}}};
}

std::string sci(const std::optional<double>& x) {
  if (!x) return "–";
  if (*x == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", *x);
  return buf;
}

std::string secs(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", x);
  return buf;
}

// Markdown table cells may not hold '|' or newlines.
std::string cell(std::string s) {
  for (char& ch : s)
    if (ch == '|' || ch == '\n') ch = ch == '|' ? '/' : ' ';
  return s;
}

// Which shards a report covers: nothing for an unsharded run's.
std::string shardWords(const Provenance& from) {
  if (!from.merged.empty()) return " Merged from " + std::to_string(from.shards) + " shards.";
  if (from.shards > 1) return " Shard " + from.shardText() + ".";
  return "";
}

void mdSummary(std::ostringstream& o, const gate::GateRun& run, const gate::GateSummary& s, const Provenance& from) {
  const gate::Criteria& c = run.criteria;
  o << "# Gradient-correctness gate\n\n";
  o << "Corpus `" << run.dir << "`: " << s.all.total << " pairs, " << run.jobs << " jobs, " << secs(s.seconds)
    << " s wall." << shardWords(from) << " **" << (s.passed ? "PASSED" : "FAILED") << "**\n\n";
  o << "| status | pairs |\n| --- | ---: |\n| pass | " << s.all.pass << " |\n| fail | " << s.all.fail
    << " |\n| nondifferentiable | " << s.all.nondifferentiable << " |\n| total | " << s.all.total << " |\n\n";
  if (s.all.illConditioned)
    o << s.all.illConditioned << " passing pairs have a value that misses the oracle's by more than the value "
      << "tolerance, or a gradient component that misses the finite difference by more than its tolerance, but by "
      << "at most " << sci(c.rounding) << " times the oracle's rounding spread (ill-conditioned programs; the "
      << "pair's `notes` in the JSON give the numbers).\n\n";
  o << "Criteria: value " << sci(c.value) << ", dmci vs direct " << sci(c.ad) << ", vs finite difference " << sci(c.fd)
    << ", closed form " << sci(c.closedForm) << ", lanes batched vs alone "
    << (c.batched == 0 ? std::string("bit for bit") : sci(c.batched)) << "; relative error = |a − b| / max(|b|, "
    << sci(c.floor) << "), b the reference.\n\n";
  o << "## Errors\n\n| comparison | tolerance | compared | median | max | worst pair |\n"
       "| --- | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto& d : s.comparisons)
    o << "| " << d.comparison << " | " << sci(d.tolerance) << " | " << d.errors.size() << " | " << sci(d.median)
      << " | " << sci(d.max) << " | " << (d.worst.empty() ? "–" : cell(d.worst.front().first)) << " |\n";
  o << "\n";
}

void mdFamilies(std::ostringstream& o, const gate::GateSummary& s) {
  o << "## Families\n\n| family | pairs | pass | fail | nondifferentiable | seconds |\n"
       "| --- | ---: | ---: | ---: | ---: | ---: |\n";
  for (const auto& [f, c] : s.families)
    o << "| " << cell(f) << " | " << c.total << " | " << c.pass << " | " << c.fail << " | " << c.nondifferentiable
      << " | " << secs(c.seconds) << " |\n";
  o << "\n";
}

void mdHistograms(std::ostringstream& o, const gate::GateSummary& s) {
  o << "## Error distributions\n\nLargest relative error per pair, by decade of log10; green bars are within "
       "the tolerance, the dashed line marks it.\n\n";
  const std::pair<const char*, const char*> shown[] = {{"dmci_vs_direct", "dmci vs direct"},
                                                       {"direct_vs_fd", "direct vs finite difference"},
                                                       {"dmci_vs_fd", "dmci vs finite difference"},
                                                       {"lantern_vs_direct", "lantern vs direct"},
                                                       {"lantern_vs_fd", "lantern vs finite difference"}};
  for (const auto& [key, title] : shown) {
    const gate::ErrorDistribution* d = gate::distribution(s, key);
    if (d->errors.empty() && std::string(key).rfind("lantern", 0) == 0) continue;  // a run without --lantern
    o << "### " << title << "\n\n" << errorHistogramSvg(title, d->errors, d->tolerance) << "\n\n";
  }
}

void mdWorstAndSlowest(std::ostringstream& o, const gate::GateSummary& s) {
  o << "## Worst pairs\n\n| comparison | pair | error |\n| --- | --- | ---: |\n";
  for (const auto& d : s.comparisons)
    for (const auto& [name, e] : d.worst) o << "| " << d.comparison << " | " << cell(name) << " | " << sci(e) << " |\n";
  o << "\n## Slowest pairs\n\n| pair | seconds |\n| --- | ---: |\n";
  for (const auto& [name, t] : s.slowest) o << "| " << cell(name) << " | " << secs(t) << " |\n";
  o << "\n";
}

void mdFailures(std::ostringstream& o, const gate::GateRun& run) {
  o << "## Failures\n\n";
  bool any = false;
  for (const auto& r : run.results) {
    if (r.status != Verdict::Fail) continue;
    any = true;
    o << "### " << r.pair.name << "\n\n`" << r.pair.file << "`, expected " << gate::expectName(r.pair.expect) << "\n\n";
    for (const auto& why : r.reasons) o << "- " << why << "\n";
    o << "\n";
  }
  if (!any) o << "None.\n\n";
  o << "## Nondifferentiable seeds\n\n";
  any = false;
  for (const auto& r : run.results)
    if (r.status == Verdict::Nondifferentiable) {
      any = true;
      o << "- " << r.pair.name << ": " << r.oracle.reason << "\n";
    }
  if (!any) o << "None.\n";
}

void mdSmooth(std::ostringstream& o, const gate::GateRun& run) {
  o << "\n## Smoothed gradients at the nondifferentiable seeds\n\nsi (`--smooth " << gate::SmoothCheck::kSigma
    << " --smooth-dea`) against a pgo reference of " << gate::SmoothCheck::kSamples
    << " runs; it agrees when every component is within 4 of the reference's standard errors. It informs and "
       "fails no pair: si is exact only where each smoothed distance (a comparison's, min's, max's, abs's, a "
       "step's) is linear in the parameters with a gradient dea derives, and the arms do not move.\n\n"
       "| pair | smoothed comparisons | si | pgo reference | worst error / standard error | agrees |\n"
       "| --- | ---: | --- | --- | ---: | --- |\n";
  size_t rows = 0, agree = 0;
  auto comps = [](const gate::Gradient& g) {
    std::string t;
    for (const auto& [k, v] : g) t += (t.empty() ? "" : ", ") + k + " " + sci(v);
    return t;
  };
  for (const auto& r : run.results) {
    if (!r.smooth) continue;
    const gate::SmoothCheck& c = *r.smooth;
    ++rows;
    if (!c.skipped.empty()) {
      o << "| " << cell(r.pair.name) << " | | not run: " << cell(c.skipped) << " | | | |\n";
      continue;
    }
    agree += c.agrees ? 1 : 0;
    o << "| " << cell(r.pair.name) << " | " << c.smoothed << " | " << cell(comps(c.si)) << " | "
      << cell(comps(c.reference)) << " | " << sci(c.worstZ) << " | " << (c.agrees ? "yes" : "no") << " |\n";
  }
  o << "\n" << agree << " of " << rows << " agree.\n";
}

Result<bool> writeFile(const std::string& path, const std::string& text) { return writeFileAtomically(path, text); }

JUnitCase pairCase(const gate::PairResult& r) {
  JUnitCase c{"gate." + r.pair.family, r.pair.name, r.seconds, std::nullopt, ""};
  if (r.status == Verdict::Fail) {
    std::string text = r.pair.file + ", expected " + gate::expectName(r.pair.expect) + "\n";
    for (const auto& why : r.reasons) text += "- " + why + "\n";
    c.failure = JUnitFailure{r.reasons.empty() ? "failed" : r.reasons.front(), "gate.fail", text};
  } else if (r.status == Verdict::Nondifferentiable) {
    c.output = "nondifferentiable, as expected: " + r.oracle.reason;
  }
  for (const auto& note : r.notes) c.output += (c.output.empty() ? "" : "\n") + note;
  return c;
}

}  // namespace

nlohmann::ordered_json gateJson(const gate::GateRun& run, const gate::GateSummary& summary, const Provenance& from) {
  json pairs = json::array();
  for (const auto& r : run.results) pairs.push_back(pairJson(r));
  return {{"provenance", provenanceJson(from)}, {"pairs", pairs}, {"summary", summaryJson(run, summary)}};
}

JUnitSuite gateJUnit(const gate::GateRun& run, const Provenance& from) {
  JUnitSuite s{"dmci.gate",
               run.seconds,
               {{"corpus", run.dir},
                {"shard", from.shardText()},
                {"build", from.build},
                {"corpus_hash", from.input},
                {"settings", from.settings}},
               {}};
  for (const auto& r : run.results) s.cases.push_back(pairCase(r));
  return s;
}

std::string gateMarkdown(const gate::GateRun& run, const gate::GateSummary& summary, const Provenance& from) {
  std::ostringstream o;
  mdSummary(o, run, summary, from);
  mdFamilies(o, summary);
  mdHistograms(o, summary);
  mdWorstAndSlowest(o, summary);
  mdFailures(o, run);
  mdSmooth(o, run);
  return o.str();
}

Result<bool> writeGateReports(const gate::GateRun& run, const gate::GateSummary& summary, const Provenance& from,
                              const GateReportPaths& paths) {
  if (!paths.json.empty()) {
    auto w = writeFile(paths.json, gateJson(run, summary, from).dump(1) + "\n");
    if (!w) return w;
  }
  if (!paths.md.empty()) {
    auto w = writeFile(paths.md, gateMarkdown(run, summary, from));
    if (!w) return w;
  }
  if (!paths.junit.empty()) return writeJUnit(paths.junit, "dmci check", {gateJUnit(run, from)});
  return true;
}

}  // namespace dmci::reports
