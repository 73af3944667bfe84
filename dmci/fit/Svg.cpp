// The SVG chart: scales, axes with ticks, then each series.
#include "fit/Svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dmci::fit {

namespace {

constexpr double W = 640, H = 400, L = 80, R = 20, T = 40, B = 50;

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

struct Scale {
  double lo = INFINITY, hi = -INFINITY;
  bool log = false;
  double value(double v) const { return log ? std::log10(v) : v; }
  void take(double v) {
    if (!std::isfinite(v) || (log && v <= 0)) return;
    lo = std::min(lo, value(v)), hi = std::max(hi, value(v));
  }
  void settle() {
    if (!std::isfinite(lo)) lo = 0, hi = 1;
    if (hi - lo < 1e-300) lo -= 0.5, hi += 0.5;
  }
  double at(double v, double from, double to) const { return from + (value(v) - lo) / (hi - lo) * (to - from); }
};

std::string axes(const Chart& c, const Scale& sx, const Scale& sy) {
  std::string s = "<rect x='" + fmt(L) + "' y='" + fmt(T) + "' width='" + fmt(W - L - R) + "' height='" +
                  fmt(H - T - B) + "' fill='none' stroke='#444'/>\n";
  for (int k = 0; k <= 4; ++k) {
    double fx = sx.lo + (sx.hi - sx.lo) * k / 4, fy = sy.lo + (sy.hi - sy.lo) * k / 4;
    double px = L + (W - L - R) * k / 4, py = H - B - (H - T - B) * k / 4;
    s += "<text x='" + fmt(px) + "' y='" + fmt(H - B + 16) + "' text-anchor='middle' font-size='11'>" + fmt(fx) +
         "</text>\n";
    s += "<text x='" + fmt(L - 6) + "' y='" + fmt(py + 4) + "' text-anchor='end' font-size='11'>" +
         fmt(sy.log ? std::pow(10, fy) : fy) + "</text>\n";
  }
  s += "<text x='" + fmt(W / 2) + "' y='22' text-anchor='middle' font-size='15'>" + escape(c.title) + "</text>\n";
  s += "<text x='" + fmt((L + W - R) / 2) + "' y='" + fmt(H - 12) + "' text-anchor='middle' font-size='12'>" +
       escape(c.xLabel) + "</text>\n";
  s += "<text x='16' y='" + fmt((T + H - B) / 2) + "' transform='rotate(-90 16 " + fmt((T + H - B) / 2) +
       ")' text-anchor='middle' font-size='12'>" + escape(c.yLabel) + "</text>\n";
  return s;
}

std::string series(const Series& s, const Scale& sx, const Scale& sy, size_t index) {
  std::string out, path;
  for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
    if (!std::isfinite(s.x[k]) || !std::isfinite(s.y[k]) || (sy.log && s.y[k] <= 0)) continue;
    double px = sx.at(s.x[k], L, W - R), py = sy.at(s.y[k], H - B, T);
    if (s.points)
      out += "<circle cx='" + fmt(px) + "' cy='" + fmt(py) + "' r='2.5' fill='" + s.colour + "'/>\n";
    else
      path += (path.empty() ? "M" : " L") + fmt(px) + " " + fmt(py);
  }
  if (!path.empty()) out += "<path d='" + path + "' fill='none' stroke='" + s.colour + "' stroke-width='1.8'/>\n";
  double ly = T + 14 + 16 * static_cast<double>(index);
  out += "<rect x='" + fmt(W - R - 150) + "' y='" + fmt(ly - 9) + "' width='10' height='10' fill='" + s.colour +
         "'/><text x='" + fmt(W - R - 135) + "' y='" + fmt(ly) + "' font-size='11'>" + escape(s.name) + "</text>\n";
  return out;
}

}  // namespace

std::string svgChart(const Chart& c) {
  Scale sx, sy;
  sy.log = c.logY;
  for (const auto& s : c.series) {
    for (double v : s.x) sx.take(v);
    for (double v : s.y) sy.take(v);
  }
  sx.settle(), sy.settle();
  std::string out = "<svg xmlns='http://www.w3.org/2000/svg' width='" + fmt(W) + "' height='" + fmt(H) +
                    "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n";
  out += axes(c, sx, sy);
  for (size_t k = 0; k < c.series.size(); ++k) out += series(c.series[k], sx, sy, k);
  return out + "</svg>\n";
}

}  // namespace dmci::fit
