// The fuzz campaign's report writer: the JSON report (every count, the failures with their shrunk programs) and
// the Markdown summary, with the tolerances read from the gate's criteria (the campaign judges by them).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "properties/Campaign.h"

namespace dmci::reports {

// k of n as a percentage (0 when n is 0), and a campaign's cases per second: as the reports and the progress
// line print them.
double percent(uint64_t k, uint64_t n);
double casesPerSecond(const props::CampaignReport& r);

// Writes the JSON and Markdown reports (an empty path: not that one), each atomically; an error message, or
// nullopt.
std::optional<std::string> writeFuzzReports(const props::CampaignReport& r, const std::string& jsonPath,
                                            const std::string& mdPath);

}  // namespace dmci::reports
