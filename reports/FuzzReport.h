// The fuzz campaign's report writer: the JSON report (every count, the failures with their shrunk programs) and
// the Markdown summary, with the tolerances read from the gate's criteria (the campaign judges by them).
#pragma once
#include <optional>
#include <string>

#include "properties/Campaign.h"

namespace dmci::reports {

// Writes the JSON and Markdown reports (an empty path: not that one), each atomically; an error message, or
// nullopt.
std::optional<std::string> writeFuzzReports(const props::CampaignReport& r, const std::string& jsonPath,
                                            const std::string& mdPath);

}  // namespace dmci::reports
