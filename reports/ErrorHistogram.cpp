// Draws the log10 relative error histogram as SVG: bars over decade bins, an exact bin, a tolerance marker.
#include "reports/ErrorHistogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace dmci::reports {
namespace {

constexpr int kLowestDecade = -17;  // bins [-17,-16) ... [-1,0)
constexpr int kWidth = 720, kHeight = 240;
constexpr int kLeft = 40, kRight = 10, kTop = 28, kBottom = 44;

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

// The bin of one error: 0 exact, 1 below 1e-17, 2.. the decades, last 1 and over.
size_t binOf(double e, size_t bins) {
  if (e == 0) return 0;
  if (!std::isfinite(e) || e >= 1) return bins - 1;
  int decade = static_cast<int>(std::floor(std::log10(e)));
  if (decade < kLowestDecade) return 1;
  return static_cast<size_t>(2 + decade - kLowestDecade);
}

void drawBars(std::ostringstream& o, const ErrorBins& b, double tolerance) {
  size_t n = b.counts.size();
  double plotW = kWidth - kLeft - kRight, plotH = kHeight - kTop - kBottom, bw = plotW / static_cast<double>(n);
  size_t most = std::max<size_t>(1, *std::max_element(b.counts.begin(), b.counts.end()));
  for (size_t k = 0; k < n; ++k) {
    double h = plotH * static_cast<double>(b.counts[k]) / static_cast<double>(most);
    double x = kLeft + bw * static_cast<double>(k), y = kTop + plotH - h;
    const char* colour = b.upper[k] <= tolerance ? "#3a8f3a" : "#c0392b";
    o << "<rect x=\"" << fmt(x + 1) << "\" y=\"" << fmt(y) << "\" width=\"" << fmt(bw - 2) << "\" height=\"" << fmt(h)
      << "\" fill=\"" << colour << "\"><title>" << escape(b.labels[k]) << ": " << b.counts[k] << "</title></rect>\n";
    if (b.counts[k] > 0)
      o << "<text x=\"" << fmt(x + bw / 2) << "\" y=\"" << fmt(y - 3) << "\" font-size=\"10\" text-anchor=\"middle\">"
        << b.counts[k] << "</text>\n";
    o << "<text x=\"" << fmt(x + bw / 2) << "\" y=\"" << kTop + plotH + 14
      << "\" font-size=\"9\" text-anchor=\"middle\">" << escape(b.labels[k]) << "</text>\n";
  }
}

// A dashed line at the tolerance's place on the axis: the left edge of its decade's bin.
void drawTolerance(std::ostringstream& o, const ErrorBins& b, double tolerance) {
  if (!(tolerance > 0)) return;
  size_t n = b.counts.size();
  double bw = (kWidth - kLeft - kRight) / static_cast<double>(n);
  double pos = static_cast<double>(binOf(tolerance, n)) + std::log10(tolerance) - std::floor(std::log10(tolerance));
  double x = kLeft + bw * pos;
  o << "<line x1=\"" << fmt(x) << "\" y1=\"" << kTop - 6 << "\" x2=\"" << fmt(x) << "\" y2=\"" << kHeight - kBottom
    << "\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n";
  char label[48];
  std::snprintf(label, sizeof label, "tolerance %.0e", tolerance);
  o << "<text x=\"" << fmt(x + 3) << "\" y=\"" << kTop - 8 << "\" font-size=\"10\">" << label << "</text>\n";
}

}  // namespace

ErrorBins binErrors(const std::vector<double>& errors) {
  ErrorBins b;
  b.labels.push_back("0");
  b.upper.push_back(0);
  b.labels.push_back(std::string("<").append(std::to_string(kLowestDecade)));
  b.upper.push_back(std::pow(10.0, kLowestDecade));
  for (int d = kLowestDecade; d < 0; ++d) {
    b.labels.push_back(std::to_string(d));
    b.upper.push_back(std::pow(10.0, d + 1));
  }
  b.labels.push_back("\u22650");
  b.upper.push_back(std::numeric_limits<double>::infinity());
  b.counts.assign(b.labels.size(), 0);
  for (double e : errors) ++b.counts[binOf(e, b.counts.size())];
  return b;
}

std::string errorHistogramSvg(const std::string& title, const std::vector<double>& errors, double tolerance) {
  ErrorBins b = binErrors(errors);
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
    << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"sans-serif\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"" << kLeft << "\" y=\"14\" font-size=\"12\" font-weight=\"bold\">" << escape(title) << " ("
    << errors.size() << " pairs)</text>\n";
  drawBars(o, b, tolerance);
  drawTolerance(o, b, tolerance);
  int axisY = kHeight - kBottom;
  o << "<line x1=\"" << kLeft << "\" y1=\"" << axisY << "\" x2=\"" << kWidth - kRight << "\" y2=\"" << axisY
    << "\" stroke=\"black\"/>\n";
  o << "<text x=\"" << (kLeft + kWidth - kRight) / 2 << "\" y=\"" << kHeight - 12
    << "\" font-size=\"11\" text-anchor=\"middle\">log10 relative error (bin = [k, k+1); 0 = exact)</text>\n";
  o << "</svg>";
  return o.str();
}

}  // namespace dmci::reports
