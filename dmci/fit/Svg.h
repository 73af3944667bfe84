// A small SVG chart for the fit's report: a loss curve (log scale) or data points with a fitted line, with
// axes, ticks and a legend. Plain text, deterministic: the same numbers give the same file.
#pragma once
#include <string>
#include <vector>

namespace dmci::fit {

struct Series {
  std::string name;
  std::vector<double> x, y;
  bool points = false;  // dots; else a line
  std::string colour = "#1f77b4";
};

struct Chart {
  std::string title, xLabel, yLabel;
  bool logY = false;  // non-positive values are left out
  std::vector<Series> series;
};

std::string svgChart(const Chart& chart);

}  // namespace dmci::fit
