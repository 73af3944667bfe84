// What a fit prints and writes: the terminal table, the --json object, the --log loss curve (CSV), and the
// --report folder (report.md with an SVG loss curve and, in data mode, an SVG of the data and the fitted values).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fit/Fit.h"
#include "fit/Model.h"

namespace dmci::fit {

// What the fit was, for the outputs' words.
struct FitInfo {
  std::string program, data, target, optimizer, loss, engine;
  uint64_t seed = 0;
  std::optional<size_t> droppedRows;  // data mode: the rows --drop-nonfinite dropped ("dropped_rows")
};

// {"loss", "holdout_loss", "params", "literals", "iterations", "evaluations", "seconds", "converged", ...}.
nlohmann::ordered_json resultJson(const Fitted& fitted, const FitResult& r, const FitInfo& info);
// One fit in-process, as `dmci fit --json` prints it: the model from `spec`, the fit by `settings` (an empty
// optimizer: the mode's default), and resultJson of the result. What an embedding (a C API, a binding) calls.
Result<nlohmann::ordered_json> fitJson(const ModelSpec& spec, const FitSettings& settings, FitInfo info);
// The words of the warning for Fitted::unused (empty when every --bind name is used): which names the program does
// not use, and what became of them.
std::string unusedWarning(const Fitted& fitted);
// The fitted values and the counts, as a table.
std::string resultTable(const Fitted& fitted, const FitResult& r);
// restart,iteration,evaluations,seconds,loss,best,holdout_loss: one line per iteration.
std::string curveCsv(const FitResult& r);
// --best-trace: one JSON object per line for each new best of the fit (FitResult::bests), {"restart",
// "iteration", "evaluations", "seconds", "loss", "holdout_loss", "params", "literals"}.
std::string bestTraceJsonl(const Fitted& fitted, const FitResult& r);

// The data and fitted values for the report's second plot (data mode): x is an input column or the row number.
struct FitPlot {
  std::string xName;
  std::vector<double> x, observed, predicted;
};

// Writes DIR/report.md, DIR/loss.svg and (with a plot) DIR/fit.svg, each atomically.
Result<bool> writeReport(const std::string& dir, const Fitted& fitted, const FitResult& r, const FitInfo& info,
                         const FitPlot* plot);

}  // namespace dmci::fit
