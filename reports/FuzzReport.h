// The fuzz campaign's reports: the JSON report (every count, the failures with their shrunk programs, the run's
// provenance), the Markdown summary, with the tolerances read from the gate's criteria (the campaign judges by
// them), and JUnit XML (a test case per property, or per failure). The JSON is also read back: `dmci merge` joins
// shards' reports into the campaign's, written by the same writers.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "properties/Campaign.h"
#include "reports/JUnit.h"
#include "reports/Provenance.h"

namespace dmci::reports {

// k of n as a percentage (0 when n is 0), and a campaign's cases per second: as the reports and the progress
// line print them.
double percent(uint64_t k, uint64_t n);
double casesPerSecond(const props::CampaignReport& r);

// A passing test case per property checked, a failing one per failure (named "PROPERTY: case K").
JUnitSuite fuzzJUnit(const props::CampaignReport& r, const Provenance& from);

// Where the reports go; an empty path skips that one.
struct FuzzReportPaths {
  std::string json, md, junit;
};
// Writes the reports, each atomically; an error message, or nullopt.
std::optional<std::string> writeFuzzReports(const props::CampaignReport& r, const Provenance& from,
                                            const FuzzReportPaths& paths);

// A campaign's report read back from its JSON (a case's tags and depth, which the JSON does not keep, are not
// restored; describe() does not need them).
struct FuzzReportFile {
  std::string path;
  props::CampaignReport report;
  Provenance from;
};
// Errors name the file, the failure (by index) and the field.
Result<FuzzReportFile> readFuzzReport(const nlohmann::ordered_json& report, const std::string& path);

// The campaign from its shards' reports (shardOrder's checks first): counts and tables summed, seconds the slowest
// shard's (the wall time when the shards run at once), jobs the shards' sum, and the failures deduplicated by
// property and shrunk program (the lowest case index kept), in case order. `duplicates` (when given) is set to how
// many failures were dropped as the same as one kept.
Result<FuzzReportFile> mergeFuzzReports(const std::vector<FuzzReportFile>& shards, size_t* duplicates = nullptr);

}  // namespace dmci::reports
