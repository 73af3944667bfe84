// The fuzz campaign's reports: JSON with every count, failure and the provenance, a Markdown summary, JUnit XML.
#include "reports/FuzzReport.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "oracle/gate/Gate.h"
#include "support/AtomicFile.h"

namespace dmci::reports {
namespace {

using props::CampaignReport;
using json = nlohmann::ordered_json;

double pct(uint64_t k, uint64_t n) { return percent(k, n); }
double rate(const CampaignReport& r) { return casesPerSecond(r); }

json failureJson(const props::Failure& f) {
  json seed = json::object();
  for (const auto& s : f.shrunk.seed) seed[s.name] = s.value;
  return {{"index", f.index},
          {"property", f.property},
          {"family", f.shrunk.family},
          {"program", f.shrunk.text},
          {"seed", seed},
          {"wrt", f.shrunk.wrt},
          {"literals", f.shrunk.wrtLiterals},
          {"detail", f.detail},
          {"original", f.original},
          {"shrink_steps", f.shrinkSteps},
          {"reproduce", props::describe(f.shrunk)}};
}

json reportJson(const CampaignReport& r, const Provenance& from) {
  json failures = json::array();
  for (const auto& f : r.failures) failures.push_back(failureJson(f));
  return {{"provenance", provenanceJson(from)},
          {"seed", r.seed},
          {"shard", from.shardText()},
          {"jobs", r.jobs},
          {"cases", r.cases},
          {"pass", r.pass},
          {"nondifferentiable", r.nondifferentiable},
          {"ill_conditioned", r.illConditioned},
          {"failed", r.failed},
          {"recursive", r.recursive},
          {"higher_order", r.higherOrder},
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

void writeMarkdown(std::ostream& out, const CampaignReport& r, const Provenance& from) {
  const gate::Criteria c;  // the criteria the campaign judges by: the gate's
  char line[320];
  out << "# dmci fuzz report\n\n";
  std::snprintf(line, sizeof line,
                "Seed %llu, shard %s, %d jobs: **%llu cases** in %.1f s (%.1f cases/s); %llu pass, %llu "
                "nondifferentiable, **%llu failed**.\n",
                static_cast<unsigned long long>(r.seed), from.shardText().c_str(), r.jobs,
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
                "%g relative, or a gradient that misses its finite difference by more than %g, but by at most %gx "
                "the rounding spread (random-rounding runs of the oracle).\n",
                static_cast<unsigned long long>(r.illConditioned), c.value, c.fd, c.rounding);
  out << line;
  std::snprintf(line, sizeof line,
                "Lane checks passed as ill-conditioned (tensor and native differ by more than %g: values within "
                "the rounding spread, gradients both within %g of the finite difference and %g of each other): "
                "%llu.\n",
                c.value, c.fd, c.closedForm, static_cast<unsigned long long>(r.laneIllConditioned));
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
        << " shrink steps)\n\n```scheme\n"
        << props::describe(f.shrunk) << "\n```\n\n```\n"
        << f.detail << "\n```\n\n";
  }
}

// The properties a campaign checks, with how many times each ran.
std::vector<std::pair<std::string, uint64_t>> propertiesChecked(const CampaignReport& r) {
  return {{"triangle", r.cases},
          {"expand", r.syntaxChecks},
          {"print-read", r.syntaxChecks},
          {"lanes", r.laneChecks},
          {"bad-input", r.badInputChecks}};
}

JUnitCase failureCase(const props::Failure& f) {
  std::string first = f.detail.substr(0, f.detail.find('\n'));
  return {"fuzz." + f.property, f.property + ": case " + std::to_string(f.index), 0,
          JUnitFailure{first.empty() ? "failed" : first, "fuzz." + f.property,
                       props::describe(f.shrunk) + "\n\n" + f.detail},
          "shrunk in " + std::to_string(f.shrinkSteps) + " steps from:\n" + f.original};
}

}  // namespace

JUnitSuite fuzzJUnit(const CampaignReport& r, const Provenance& from) {
  JUnitSuite s{"dmci.fuzz",
               r.seconds,
               {{"seed", std::to_string(r.seed)},
                {"shard", from.shardText()},
                {"build", from.build},
                {"settings", from.settings}},
               {}};
  for (const auto& [property, checks] : propertiesChecked(r)) {
    bool failed = false;
    for (const auto& f : r.failures)
      if (f.property == property) failed = true, s.cases.push_back(failureCase(f));
    if (!failed && checks > 0)
      s.cases.push_back({"fuzz." + property, property, 0, std::nullopt, std::to_string(checks) + " checks passed"});
  }
  return s;
}

double percent(uint64_t k, uint64_t n) { return n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0.0; }

double casesPerSecond(const CampaignReport& r) {
  return r.seconds > 0 ? static_cast<double>(r.cases) / r.seconds : 0.0;
}

std::optional<std::string> writeFuzzReports(const CampaignReport& r, const Provenance& from,
                                            const FuzzReportPaths& paths) {
  if (!paths.json.empty())
    if (auto w = writeFileAtomically(paths.json, reportJson(r, from).dump(2) + "\n"); !w) return w.error().message;
  if (!paths.md.empty()) {
    std::ostringstream md;
    writeMarkdown(md, r, from);
    if (auto w = writeFileAtomically(paths.md, md.str()); !w) return w.error().message;
  }
  if (!paths.junit.empty())
    if (auto w = writeJUnit(paths.junit, "dmci fuzz", {fuzzJUnit(r, from)}); !w) return w.error().message;
  return std::nullopt;
}

}  // namespace dmci::reports
