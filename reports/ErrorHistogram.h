// A histogram of log10 relative error as a hand-written SVG, for embedding in a Markdown report.
#pragma once
#include <string>
#include <vector>

namespace dmci::reports {

// Bins: "0" (exact), "< -17", then one per decade [-17,-16) ... [-1,0), then ">= 0" (infinite included).
struct ErrorBins {
  std::vector<std::string> labels;
  std::vector<size_t> counts;
  std::vector<double> upper;  // each bin's upper edge as a relative error (0 for exact, inf for the last)
};

ErrorBins binErrors(const std::vector<double>& errors);

// An inline <svg> (no blank lines, so Markdown keeps it one HTML block). Bars
// at or under `tolerance` are green, those over it red; a dashed line marks it.
std::string errorHistogramSvg(const std::string& title, const std::vector<double>& errors, double tolerance);

}  // namespace dmci::reports
