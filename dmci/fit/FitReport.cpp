// The fit's outputs.
#include "fit/FitReport.h"

#include <cstdio>

#include "driver/AtomicFile.h"
#include "driver/JsonNumber.h"
#include "fit/Literals.h"
#include "fit/Svg.h"

namespace dmci::fit {

namespace {

std::string g(double x, const char* f = "%.10g") {
  char buf[40];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

}  // namespace

nlohmann::ordered_json resultJson(const Fitted& fitted, const FitResult& r, const FitInfo& info) {
  nlohmann::ordered_json params = nlohmann::ordered_json::object(), literals = nlohmann::ordered_json::object();
  for (size_t k = 0; k < fitted.names.size(); ++k)
    (k < fitted.parameters ? params : literals)[fitted.names[k]] = jsonNumber(r.theta[k]);
  return {{"loss", jsonNumber(r.loss)},
          {"holdout_loss", r.holdout ? jsonNumber(*r.holdout) : nlohmann::ordered_json(nullptr)},
          {"params", params},
          {"literals", literals},
          {"iterations", r.iterations},
          {"evaluations", r.evaluations},
          {"seconds", r.seconds},
          {"converged", r.converged},
          {"stop", r.stop},
          {"optimizer", info.optimizer},
          {"seed", info.seed}};
}

std::string bestTraceJsonl(const Fitted& fitted, const FitResult& r) {
  std::string out;
  for (const auto& b : r.bests) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object(), literals = nlohmann::ordered_json::object();
    for (size_t k = 0; k < fitted.names.size(); ++k)
      (k < fitted.parameters ? params : literals)[fitted.names[k]] = jsonNumber(b.theta[k]);
    const CurvePoint& p = b.point;
    nlohmann::ordered_json line = {
        {"restart", p.restart},
        {"iteration", p.iteration},
        {"evaluations", p.evaluations},
        {"seconds", p.seconds},
        {"loss", jsonNumber(p.loss)},
        {"holdout_loss", p.holdout ? jsonNumber(*p.holdout) : nlohmann::ordered_json(nullptr)},
        {"params", params},
        {"literals", literals}};
    out += line.dump() + "\n";
  }
  return out;
}

std::string resultTable(const Fitted& fitted, const FitResult& r) {
  std::string out = "  name                              start              fitted\n";
  for (size_t k = 0; k < fitted.names.size(); ++k) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-28s %18.10g %19.12g\n", fitted.names[k].c_str(), fitted.start[k], r.theta[k]);
    out += line;
  }
  out += "loss " + g(r.loss, "%.6g");
  if (r.holdout) out += "  held-out loss " + g(*r.holdout, "%.6g");
  out += "\niterations " + std::to_string(r.iterations) + ", evaluations " + std::to_string(r.evaluations) + ", " +
         g(r.seconds, "%.3g") + " s; " + r.stop + "\n";
  return out;
}

std::string curveCsv(const FitResult& r) {
  std::string out = "restart,iteration,evaluations,seconds,loss,best,holdout_loss\n";
  for (const auto& p : r.curve)
    out += std::to_string(p.restart) + "," + std::to_string(p.iteration) + "," + std::to_string(p.evaluations) + "," +
           g(p.seconds, "%.6g") + "," + g(p.loss, "%.17g") + "," + g(p.best, "%.17g") + "," +
           (p.holdout ? g(*p.holdout, "%.17g") : "") + "\n";
  return out;
}

namespace {

std::string lossSvg(const FitResult& r) {
  Chart c{"Loss by evaluation", "evaluations", "loss (log scale)", true, {}};
  Series loss{"loss at the iterate", {}, {}, false, "#1f77b4"}, best{"best", {}, {}, false, "#d62728"};
  Series held{"held-out loss", {}, {}, false, "#2ca02c"};
  for (const auto& p : r.curve) {
    double e = static_cast<double>(p.evaluations);
    loss.x.push_back(e), loss.y.push_back(p.loss), best.x.push_back(e), best.y.push_back(p.best);
    if (p.holdout) held.x.push_back(e), held.y.push_back(*p.holdout);
  }
  c.series = {loss, best};
  if (!held.x.empty()) c.series.push_back(held);
  return svgChart(c);
}

std::string fitSvg(const FitPlot& p, const FitInfo& info) {
  Chart c{"Data and fitted values", p.xName, info.target, false, {}};
  c.series.push_back({"data", p.x, p.observed, true, "#7f7f7f"});
  c.series.push_back({"fitted", p.x, p.predicted, true, "#d62728"});
  return svgChart(c);
}

std::string markdown(const Fitted& fitted, const FitResult& r, const FitInfo& info, bool plot) {
  std::string md = "# dmci fit: " + info.program + "\n\n";
  md += "- data: " + (info.data.empty() ? std::string("none (objective mode)") : info.data) +
        (info.target.empty() ? "" : ", target `" + info.target + "`, loss " + info.loss) + "\n";
  md += "- optimizer: " + info.optimizer + ", engine " + info.engine + ", seed " + std::to_string(info.seed) + "\n";
  md += "- loss " + g(r.loss, "%.6g") + (r.holdout ? ", held-out loss " + g(*r.holdout, "%.6g") : "") + "\n";
  md += "- " + std::to_string(r.iterations) + " iterations, " + std::to_string(r.evaluations) + " evaluations, " +
        g(r.seconds, "%.3g") + " s; " + r.stop + "\n\n";
  md += "| fitted | start | value |\n|---|---:|---:|\n";
  for (size_t k = 0; k < fitted.names.size(); ++k)
    md += "| `" + fitted.names[k] + "` | " + g(fitted.start[k]) + " | " + g(r.theta[k], "%.12g") + " |\n";
  md += "\n![loss curve](loss.svg)\n";
  if (plot) md += "\n![data and fitted values](fit.svg)\n";
  return md;
}

}  // namespace

Result<bool> writeReport(const std::string& dir, const Fitted& fitted, const FitResult& r, const FitInfo& info,
                         const FitPlot* plot) {
  auto ok = writeFileAtomically(dir + "/loss.svg", lossSvg(r));
  if (ok && plot) ok = writeFileAtomically(dir + "/fit.svg", fitSvg(*plot, info));
  if (ok) ok = writeFileAtomically(dir + "/report.md", markdown(fitted, r, info, plot != nullptr));
  return ok;
}

}  // namespace dmci::fit
