// The fit's outputs.
#include "fit/FitReport.h"

#include <cmath>
#include <cstdio>

#include "fit/Literals.h"
#include "fit/Svg.h"
#include "support/AtomicFile.h"
#include "support/JsonNumber.h"
#include "support/JsonText.h"

namespace dmci::fit {

namespace {

std::string g(double x, const char* f = "%.10g") {
  char buf[40];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

}  // namespace

nlohmann::ordered_json resultJson(const Fitted& fitted, const FitResult& r, const FitInfo& info) {
  const std::optional<Uncertainty>& u = r.uncertainty;
  const nlohmann::ordered_json null(nullptr);
  auto maybe = [&](const std::optional<double>& x) { return x ? jsonNumber(*x) : null; };
  auto byName = [&](auto value) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (size_t j = 0; j < fitted.names.size(); ++j) o[fitted.names[j]] = value(j);
    return o;
  };
  auto matrix = [&](const std::vector<std::vector<std::optional<double>>>& m) {
    return byName([&](size_t i) { return byName([&](size_t j) { return maybe(m[i][j]); }); });
  };
  auto interval = [&](size_t j) {
    if (!u->stderrs[j]) return null;
    double h = u->t975 * *u->stderrs[j];
    return nlohmann::ordered_json::array({jsonNumber(r.theta[j] - h), jsonNumber(r.theta[j] + h)});
  };
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
          {"stop_message", r.stopMessage},
          {"optimizer", info.optimizer},
          {"seed", info.seed},
          {"rss", u ? jsonNumber(u->rss) : null},
          {"dof", u ? nlohmann::ordered_json(u->dof) : null},
          {"stderr", u ? byName([&](size_t j) { return maybe(u->stderrs[j]); }) : null},
          {"ci95", u ? byName(interval) : null},
          {"covariance", u ? matrix(u->covariance) : null},
          {"correlation", u ? matrix(u->correlation) : null},
          {"uncertainty_note", u && !u->note.empty() ? nlohmann::ordered_json(u->note) : null},
          {"dropped_rows", info.droppedRows ? nlohmann::ordered_json(*info.droppedRows) : null},
          {"unused", fitted.unused}};
}

Result<nlohmann::ordered_json> fitJson(const ModelSpec& spec, const FitSettings& settings, FitInfo info) {
  auto model = makeModel(spec);
  if (!model) return model.error();
  auto r = runFit(**model, settings);
  if (!r) return r.error();
  if (info.optimizer.empty())
    info.optimizer = settings.optimizer.empty() ? (spec.data && spec.loss.kind != LossKind::Mae ? "lm" : "lbfgs")
                                                : settings.optimizer;
  if (spec.data && !info.droppedRows) info.droppedRows = spec.data->dropped;
  return resultJson((*model)->fitted(), *r, info);
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
    out += jsonText(line) + "\n";
  }
  return out;
}

std::string unusedWarning(const Fitted& fitted) {
  if (fitted.unused.empty()) return "";
  std::string names;
  for (const auto& n : fitted.unused) names += (names.empty() ? "" : ", ") + n;
  const bool one = fitted.unused.size() == 1;
  return "the program does not use --bind " + names + ": " + (one ? "it has" : "they have") +
         " no effect on the fit (a fitted one keeps its start, with no standard error)";
}

std::string resultTable(const Fitted& fitted, const FitResult& r) {
  const std::optional<Uncertainty>& u = r.uncertainty;
  std::string out = "  name                              start              fitted";
  if (u) out += "      std. error            95% interval";
  out += "\n";
  for (size_t k = 0; k < fitted.names.size(); ++k) {
    char line[240];
    std::snprintf(line, sizeof line, "  %-28s %18.10g %19.12g", fitted.names[k].c_str(), fitted.start[k], r.theta[k]);
    out += line;
    if (u && u->stderrs[k]) {
      double se = *u->stderrs[k], h = u->t975 * se;
      std::snprintf(line, sizeof line, " %15.6g  [%.6g, %.6g]", se, r.theta[k] - h, r.theta[k] + h);
      out += line;
    } else if (u) {
      out += fitted.isUnused(fitted.names[k]) ? "               -  (not used by the program)"
                                              : "               -  (not identified)";
    } else if (fitted.isUnused(fitted.names[k])) {
      out += "  (not used by the program)";
    }
    out += "\n";
  }
  if (u) {
    out += "residual sum of squares " + g(u->rss, "%.10g") + " on " + std::to_string(u->dof) +
           " degrees of freedom (s = " + g(std::sqrt(u->sigma2), "%.6g") + ")\n";
    if (!u->note.empty()) out += "note: " + u->note + "\n";
  }
  out += "loss " + g(r.loss, "%.6g");
  if (r.holdout) out += "  held-out loss " + g(*r.holdout, "%.6g");
  out += "\niterations " + std::to_string(r.iterations) + ", evaluations " + std::to_string(r.evaluations) + ", " +
         g(r.seconds, "%.3g") + " s; " + (r.converged ? "converged" : "not converged") + " (" + r.stop +
         "): " + r.stopMessage + "\n";
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
        g(r.seconds, "%.3g") + " s; " + (r.converged ? "converged" : "not converged") + " (" + r.stop +
        "): " + r.stopMessage + "\n\n";
  const std::optional<Uncertainty>& u = r.uncertainty;
  md += u ? "| fitted | start | value | std. error | 95% interval |\n|---|---:|---:|---:|---|\n"
          : "| fitted | start | value |\n|---|---:|---:|\n";
  for (size_t k = 0; k < fitted.names.size(); ++k) {
    md += "| `" + fitted.names[k] + "` | " + g(fitted.start[k]) + " | " + g(r.theta[k], "%.12g") + " |";
    if (u && u->stderrs[k]) {
      double se = *u->stderrs[k], h = u->t975 * se;
      md += " " + g(se, "%.6g") + " | [" + g(r.theta[k] - h, "%.6g") + ", " + g(r.theta[k] + h, "%.6g") + "] |";
    } else if (u) {
      md += " (not identified) | |";
    }
    md += "\n";
  }
  if (u) {
    md += "\nResidual sum of squares " + g(u->rss, "%.10g") + " on " + std::to_string(u->dof) +
          " degrees of freedom; standard errors from s²(JᵀJ)⁻¹ on the exact Jacobian, intervals from the t "
          "distribution.\n";
    if (!u->note.empty()) md += "\nNote: " + u->note + ".\n";
    md += "\nCorrelation:\n\n|   |";
    for (const auto& n : fitted.names) md += " `" + n + "` |";
    md += "\n|---|";
    for (size_t k = 0; k < fitted.names.size(); ++k) md += "---:|";
    md += "\n";
    for (size_t i = 0; i < fitted.names.size(); ++i) {
      md += "| `" + fitted.names[i] + "` |";
      for (size_t j = 0; j < fitted.names.size(); ++j)
        md += " " + (u->correlation[i][j] ? g(*u->correlation[i][j], "%.3f") : std::string("-")) + " |";
      md += "\n";
    }
  }
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
