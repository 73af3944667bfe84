// Scoring a candidate: the reader and expander, the name check, one budgeted run, the in-process fit, the
// held-out error.
#include "search/Score.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <memory>
#include <optional>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "fit/Fit.h"
#include "fit/Model.h"
#include "fit/Names.h"
#include "fit/Optimizer.h"
#include "syntax/Datum.h"

namespace dmci::search {

namespace {

// The name candidates' positions carry: "candidate:1:7: unbound-variable: ...".
const char* const kFile = "candidate";

using fit::contains;
using fit::joined;

bool hasNumber(const Expr& e) {
  if (e.isNumber()) return true;
  return std::any_of(e.items.begin(), e.items.end(), hasNumber);
}

// Every row's prediction at the candidate's own values, without a gradient, under the budgets.
Result<std::vector<double>> predictRows(const Task& t, const ScoreSettings& s, const Program& p,
                                        const std::vector<std::string>& inputs, const std::vector<std::string>& used,
                                        const std::map<std::string, double>& params) {
  auto engine = engineNamed(s.engine);
  if (!engine) return engine.error();
  EvalOptions o;
  o.gradient = false, o.threads = 1, o.budget = s.budget;
  std::vector<std::string> names = inputs;
  names.insert(names.end(), used.begin(), used.end());
  auto run = (*engine)->prepare(p, names, o);
  if (!run) return run.error();
  size_t n = t.data->rows();
  std::vector<std::vector<double>> values;
  for (const auto& in : inputs) values.push_back(t.data->columns[static_cast<size_t>(t.data->find(in))]);
  for (const auto& u : used) values.emplace_back(n, params.at(u));
  auto ev = (*run)->runLanes(values, static_cast<int64_t>(n));
  if (!ev) return ev.error();
  if (ev->isTensor)
    return Error{ErrorKind::Type, "the program's value must be a number at every row, not a tensor", {}};
  return ev->value;
}

// The first row whose prediction is NaN or infinite, said with its line in the data file; or "".
std::string nonFiniteRow(const Task& t, const std::vector<double>& predicted) {
  for (size_t r = 0; r < predicted.size(); ++r)
    if (!std::isfinite(predicted[r]))
      return "the prediction is " + std::string(std::isnan(predicted[r]) ? "NaN" : "infinite") + " at row " +
             std::to_string(r + 1) + " of the data (" + t.data->rowPlace(r) + ")";
  return "";
}

// The fit of the named parameters and the literals on `rows`: its values and its predictions (every row), or
// nullopt when the fit does not run or does no better on `rows` than the start.
struct Fitted {
  std::vector<double> theta;
  std::vector<double> predicted;
};

struct FitRun {
  std::unique_ptr<fit::Model> model;
  std::optional<Fitted> fitted;
  bool smoothed = false;  // fitted through the smoothed program first
};

// The smoothed fit (ScoreSettings::smoothSigma): lm on the smoothed program in stages of width sigma 4^-k, each from
// where the last ended, then lm on the crisp `model` from there. The values reached, or nullopt when the candidate
// has no constant in a branch (its smoothed program is its crisp one) or a stage fails.
std::optional<std::vector<double>> smoothedFit(const fit::ModelSpec& crisp, const ScoreSettings& s,
                                               const fit::FitSettings& fs, fit::Model& model) {
  fit::ModelSpec spec = crisp;
  spec.smoothSigma = s.smoothSigma, spec.smoothDea = s.smoothDea;
  auto smoothed = fit::makeModel(spec);
  if (!smoothed || (*smoothed)->fitted().smoothed == 0) return std::nullopt;
  fit::FitSettings stage = fs;
  stage.restarts = 0;
  stage.budgetSeconds = fs.budgetSeconds / (s.smoothStages + 1);
  std::vector<double> theta;
  double sigma = s.smoothSigma;
  for (int k = 0; k < s.smoothStages; ++k, sigma /= 4) {
    (*smoothed)->setSmoothSigma(sigma);
    if (k > 0) (*smoothed)->restartFrom(theta);
    auto r = fit::runFit(**smoothed, stage);
    if (!r || r->theta.empty() || r->nonFinite) return std::nullopt;
    theta = r->theta;
  }
  model.restartFrom(theta);
  auto r = fit::runFit(model, stage);
  if (!r || r->theta.empty()) return theta;
  return r->theta;
}

FitRun fitCandidate(const Task& t, const ScoreSettings& s, const Candidate& c, const std::string& text,
                    const std::vector<std::string>& used, const std::map<std::string, double>& fixed,
                    const std::vector<size_t>& rows, double startRmse, uint64_t seed) {
  fit::ModelSpec spec;
  spec.programPath = kFile, spec.programText = text, spec.wrt = {"all"};
  // --edit: the edited definition's literals only (printForms writes form k on line k + 1); the rest stays.
  if (c.edited >= 0) spec.literalLines = {static_cast<uint32_t>(c.edited + 1)};
  for (const auto& name : used) spec.binds.emplace_back(name, c.params.at(name));
  if (!fixed.empty()) {  // bound, not fitted: every literal and the named parameters only
    spec.wrt = {"literals"};
    spec.wrt.insert(spec.wrt.end(), used.begin(), used.end());
    for (const auto& [name, v] : fixed) spec.binds.emplace_back(name, v);
  }
  spec.engine = s.engine, spec.options.threads = 1, spec.options.budget = s.budget;
  spec.data = t.data, spec.target = t.target, spec.trainRows = rows;  // selected on the training rows only
  auto model = fit::makeModel(spec);
  if (!model) return {};
  FitRun out{std::move(*model), std::nullopt};
  fit::FitSettings fs;
  // Least squares by Levenberg–Marquardt on the exact Jacobian: deterministic from the start, so the same structure
  // from the same start scores the same.
  fs.optimizer = "lm", fs.steps = s.iterations, fs.restarts = s.restarts, fs.seed = seed;
  fs.budgetSeconds = s.seconds, fs.patience = s.iterations + 1, fs.uncertainty = false;
  auto r = fit::runFit(*out.model, fs);
  // Each fit's values, scored crisply on `rows`: the crisp fit's, then the smoothed one's where there is one.
  auto consider = [&](const std::vector<double>& theta, bool smoothed) {
    auto predicted = catchErrors([&] { return out.model->predict(theta); });
    if (!predicted || !nonFiniteRow(t, *predicted).empty()) return;
    const double e = rmse(t, *predicted, rows);
    if (!(e < (out.fitted ? rmse(t, out.fitted->predicted, rows) : startRmse))) return;
    out.fitted = Fitted{theta, std::move(*predicted)};
    out.smoothed = smoothed;
  };
  if (r && !r->theta.empty()) consider(r->theta, false);
  if (s.smoothSigma > 0)
    if (auto theta = smoothedFit(spec, s, fs, *out.model)) consider(*theta, true);
  return out;
}

// `c` with the values `theta` in place of its parameters and literals (in the order of the model's names).
std::optional<Candidate> withValues(const Candidate& c, const std::string& text, const fit::Fitted& f,
                                    const std::vector<double>& theta) {
  Candidate out = c;
  for (size_t k = 0; k < f.parameters; ++k) out.params[f.names[k]] = theta[k];
  std::vector<std::string> tokens;
  for (size_t k = 0; k < f.literals.size(); ++k) tokens.push_back(formatNumber(theta[f.parameters + k]));
  auto forms = readForms(fit::replaceTokens(text, f.literals, tokens), kFile);
  if (!forms) return std::nullopt;
  out.forms = std::move(*forms);
  return out;
}

// The rows of `a` that are also in `b` (both sorted).
std::vector<size_t> common(const std::vector<size_t>& a, const std::vector<size_t>& b) {
  std::vector<size_t> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::optional<Error> fitterMissing(const ScoreSettings& s) {
  if (!s.gradient) return std::nullopt;
  auto lm = fit::optimizerNamed("lm");
  if (lm) return std::nullopt;
  return Error{ErrorKind::Usage,
               "dmci search fits every candidate by Levenberg-Marquardt (lm), which is not available: " +
                   lm.error().message + " (or search without fitting: --no-gradient)",
               {}};
}

double rmse(const Task& task, const std::vector<double>& predicted, const std::vector<size_t>& rows) {
  const auto& y = task.data->columns[static_cast<size_t>(task.data->find(task.target))];
  double sum = 0;
  for (size_t r : rows) sum += (predicted[r] - y[r]) * (predicted[r] - y[r]);
  return std::sqrt(sum / static_cast<double>(std::max<size_t>(1, rows.size())));
}

Score scoreCandidate(const Task& task, const ScoreSettings& s, const Candidate& c, uint64_t seed,
                     const std::map<std::string, double>& fixed) {
  auto began = std::chrono::steady_clock::now();
  Score out;
  out.complexity = complexity(c.value()), out.fitted = c;
  auto done = [&](std::string error) {
    out.ok = error.empty(), out.error = std::move(error);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return out;
  };
  std::string text = printForms(c.forms);
  auto program = Program::fromText(text, kFile);
  if (!program) return done(program.error().str());
  std::vector<std::string> inputs, used;
  std::map<std::string, double> fixedUsed;
  for (const auto& name : program->freeParameters()) {
    if (contains(task.vars, name)) {
      inputs.push_back(name);
    } else if (auto it = fixed.find(name); it != fixed.end()) {
      fixedUsed.insert(*it);
    } else if (contains(task.params, name)) {
      used.push_back(name);
    } else {
      return done("unbound name '" + name + "': not a variable (" + joined(task.vars) + ")" +
                  (task.params.empty() ? "" : " nor a parameter (" + joined(task.params) + ")"));
    }
  }
  for (const auto& name : task.params)
    if (!out.fitted.params.count(name)) out.fitted.params[name] = 1.0;
  std::vector<std::string> named = used;
  std::map<std::string, double> values = out.fitted.params;
  for (const auto& [name, v] : fixedUsed) named.push_back(name), values[name] = v;
  auto start = predictRows(task, s, *program, inputs, named, values);
  if (!start) return done(start.error().str());
  if (auto bad = nonFiniteRow(task, *start); !bad.empty()) return done(bad);
  std::vector<double> predicted = std::move(*start);
  bool fittable = !used.empty() || (c.edited >= 0 ? hasNumber(c.value())  // --edit: the edited body's literals
                                                  : std::any_of(c.forms.begin(), c.forms.end(), hasNumber));
  if (s.gradient && fittable && task.groups.empty()) {
    auto run =
        fitCandidate(task, s, out.fitted, text, used, fixedUsed, task.train, rmse(task, predicted, task.train), seed);
    if (run.fitted)
      if (auto fitted = withValues(out.fitted, text, run.model->fitted(), run.fitted->theta)) {
        out.fitted = std::move(*fitted);
        out.smoothed = run.smoothed;
        predicted = std::move(run.fitted->predicted);
      }
  } else if (s.gradient && fittable) {
    // One fit per group on its training rows; its predictions replace the start's on the group's rows.
    std::vector<std::vector<double>> thetas;
    const fit::Fitted* names = nullptr;
    std::vector<double> pooled = predicted;
    std::vector<std::unique_ptr<fit::Model>> models;
    for (size_t g = 0; g < task.groups.size(); ++g) {
      std::vector<size_t> rows = common(task.train, task.groups[g]);
      if (rows.empty()) continue;
      auto run = fitCandidate(task, s, out.fitted, text, used, fixedUsed, rows, rmse(task, predicted, rows), seed + g);
      if (!run.fitted) continue;
      for (size_t r : task.groups[g]) pooled[r] = run.fitted->predicted[r];
      out.smoothed = out.smoothed || run.smoothed;
      thetas.push_back(run.fitted->theta);
      names = &run.model->fitted();
      models.push_back(std::move(run.model));
    }
    if (!thetas.empty()) {
      std::vector<double> mid(thetas[0].size());
      for (size_t k = 0; k < mid.size(); ++k) {
        std::vector<double> v;
        for (const auto& th : thetas) v.push_back(th[k]);
        mid[k] = median(v);
      }
      if (auto fitted = withValues(out.fitted, text, *names, mid)) out.fitted = std::move(*fitted);
      predicted = std::move(pooled);
    }
  }
  out.trainRmse = rmse(task, predicted, task.train);
  out.holdoutRmse = rmse(task, predicted, task.holdout);
  if (s.scoreAll) {
    std::vector<size_t> every(task.data->rows());
    for (size_t r = 0; r < every.size(); ++r) every[r] = r;
    out.score = rmse(task, predicted, every);
  } else {
    out.score = out.holdoutRmse;
  }
  return done("");
}

}  // namespace dmci::search
