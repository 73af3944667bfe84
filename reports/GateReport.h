// The gate's reports: reports/gate.json (every pair's values, gradients, errors, status and time, a summary, and
// the run's provenance: which shard, which build and corpus), reports/gate.md (tables, worst and failing pairs,
// error histograms as inline SVG) and JUnit XML (a test case per pair). The JSON is also read back: `dmci merge`
// joins shards' reports into the report of the whole run, written by the same writers.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "oracle/gate/Gate.h"
#include "oracle/gate/Summary.h"
#include "reports/JUnit.h"
#include "reports/Provenance.h"

namespace dmci::reports {

nlohmann::ordered_json gateJson(const gate::GateRun& run, const gate::GateSummary& summary, const Provenance& from);
std::string gateMarkdown(const gate::GateRun& run, const gate::GateSummary& summary, const Provenance& from);
// One test case per pair (classname "gate.FAMILY"); a failing pair's failure holds its reasons.
JUnitSuite gateJUnit(const gate::GateRun& run, const Provenance& from);

// Where the reports go; an empty path skips that one.
struct GateReportPaths {
  std::string json, md, junit;
};
// Writes each atomically; the error names the file that could not be written.
Result<bool> writeGateReports(const gate::GateRun& run, const gate::GateSummary& summary, const Provenance& from,
                              const GateReportPaths& paths);

// A gate report read back from its JSON: the run (what the summary, the Markdown and the JUnit are made from;
// a route's error text, which the JSON keeps only in the pair's reasons, is not restored) and its provenance.
struct GateReportFile {
  std::string path;
  gate::GateRun run;
  Provenance from;
};
// Errors name the file, the pair (by index and name) and the field.
Result<GateReportFile> readGateReport(const nlohmann::ordered_json& report, const std::string& path);

// The whole run from its shards' reports: shardOrder's checks, then each shard's pairs back in their places
// (shard s of N ran positions s, s + N, s + 2N, ... of the selected pairs). Seconds are the slowest shard's (the
// wall time when the shards run at once), jobs the shards' sum.
Result<GateReportFile> mergeGateReports(const std::vector<GateReportFile>& shards);

}  // namespace dmci::reports
