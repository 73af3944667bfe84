// The gate's reports: reports/gate.json (every pair's values, gradients, errors, status and time, and
// a summary) and reports/gate.md (tables, worst and failing pairs, error histograms as inline SVG).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "oracle/gate/Gate.h"
#include "oracle/gate/Summary.h"

namespace dmci::reports {

nlohmann::ordered_json gateJson(const gate::GateRun& run, const gate::GateSummary& summary);
std::string gateMarkdown(const gate::GateRun& run, const gate::GateSummary& summary);

// Writes both (an empty path skips that one); the error names the file that could not be written.
Result<bool> writeGateReports(const gate::GateRun& run, const gate::GateSummary& summary, const std::string& jsonPath,
                              const std::string& mdPath);

}  // namespace dmci::reports
