// `dmci fit PROG.scm`: reads the program and the data, builds the fit's objective on the asked engine, runs the
// optimizer, and writes what was asked (table or JSON, --log, --report, --out), each file whole or not at all.
#include "cli/Fit.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>

#include "cli/Exit.h"
#include "fit/Fit.h"
#include "fit/FitReport.h"
#include "fit/FittedProgram.h"
#include "fit/SmoothedLoss.h"
#include "smooth/Smooth.h"
#include "support/AtomicFile.h"
#include "support/JsonText.h"
#include "support/Split.h"
#include "syntax/TerminalText.h"

namespace dmci::cli {

namespace {

using namespace dmci::fit;

struct FitArgs {
  std::string program, data, target, loss = "mse";
  std::vector<std::string> dataLists, dataVecs, holdoutLists, binds;
  std::string wrt, transforms;
  std::string optimizer;  // default: lm in data mode (lbfgs with --loss mae), lbfgs in objective mode
  int steps = 0, restarts = 0, population = 0, history = 20, patience = 20;
  double lr = 0, clip = 0, jitter = 0.3, span = 1, ftol = 1e-14, xtol = 1e-14, gtol = 1e-10;
  bool tolerancesGiven = false;  // --ftol or --xtol given: they stop as stated (no polish)
  uint64_t seed = 1;
  double holdout = 0;
  std::string split;
  double budgetSeconds = 0;
  uint64_t budgetEvals = 0;
  std::string checkpoint;
  double checkpointSeconds = 1;
  bool resume = false, json = false, quiet = false, dropNonFinite = false;
  std::string log, report, out, bestTrace;
  std::string engine = "replay", via = "direct", device = "cpu";
  int threads = 0;
  // --smooth SIGMA: fit the smoothed program (si) or loss (mc) (smooth/Smooth.h), then score the result crisply.
  double smooth = 0, smoothMinWeight = 1e-20, smoothBandwidth = 0;
  int64_t smoothMaxPaths = 8;
  bool smoothGiven = false, anneal = false, smoothDea = false;
  int annealStages = 6;
  std::string smoothMode = "si", estimator;  // estimator: mc only (default pgo)
  int64_t samples = 1000;
  std::string smoothOptionAlone;  // a --smooth-... option given without --smooth
  bool samplesGiven = false, bandwidthGiven = false;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DmciError(ErrorKind::Io, "cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double numberOf(const std::string& text, const std::string& what) {
  char* end = nullptr;
  double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(x)) throw UsageError{what + ": '" + text + "' is not a number"};
  return x;
}

std::vector<std::pair<std::string, double>> bindings(const std::vector<std::string>& binds) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& b : binds) {
    size_t eq = b.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError{"--bind " + b + ": expected NAME=NUMBER"};
    out.emplace_back(b.substr(0, eq), numberOf(b.substr(eq + 1), "--bind " + b.substr(0, eq)));
  }
  return out;
}

// --data-list NAME=FILE.csv:COL (the column after the last ':').
DataBinding dataBinding(const std::string& text, bool vector) {
  const std::string opt = vector ? "--data-vec " : "--data-list ";
  size_t eq = text.find('='), colon = text.rfind(':');
  if (eq == std::string::npos || eq == 0 || colon == std::string::npos || colon < eq || colon + 1 == text.size())
    throw UsageError{opt + text + ": expected NAME=FILE.csv:COLUMN"};
  return {text.substr(0, eq), text.substr(eq + 1, colon - eq - 1), text.substr(colon + 1), vector};
}

// The rows held out: --holdout FRAC (a seeded shuffle) or --split COL<VALUE (rows with COL < VALUE are fitted).
Result<std::pair<std::vector<size_t>, std::vector<size_t>>> splitRows(const FitArgs& a, const DataTable& t) {
  std::vector<size_t> train, held;
  if (a.holdout > 0 && !a.split.empty()) throw UsageError{"give --holdout or --split, not both"};
  if (a.holdout > 0) {
    if (a.holdout >= 1) throw UsageError{"--holdout: a fraction between 0 and 1, got " + std::to_string(a.holdout)};
    std::vector<size_t> rows(t.rows());
    for (size_t r = 0; r < rows.size(); ++r) rows[r] = r;
    std::shuffle(rows.begin(), rows.end(), std::mt19937_64(a.seed));
    size_t n = static_cast<size_t>(std::ceil(a.holdout * static_cast<double>(rows.size())));
    held.assign(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n));
    train.assign(rows.begin() + static_cast<std::ptrdiff_t>(n), rows.end());
    std::sort(held.begin(), held.end()), std::sort(train.begin(), train.end());
  } else if (!a.split.empty()) {
    size_t lt = a.split.find('<');
    if (lt == std::string::npos || lt == 0) throw UsageError{"--split " + a.split + ": expected COLUMN<VALUE"};
    auto col = t.column(a.split.substr(0, lt), "--split");
    if (!col) return col.error();
    double v = numberOf(a.split.substr(lt + 1), "--split");
    for (size_t r = 0; r < t.rows(); ++r) (t.columns[static_cast<size_t>(*col)][r] < v ? train : held).push_back(r);
  }
  if ((a.holdout > 0 || !a.split.empty()) && (train.empty() || held.empty()))
    throw UsageError{"the holdout split leaves no rows to " + std::string(train.empty() ? "fit" : "hold out")};
  return std::make_pair(train, held);
}

// Names the fit in its checkpoint: the program, the data and every setting that changes the path taken.
std::string fingerprint(const FitArgs& a, const ModelSpec& spec) {
  std::string all = spec.programText + "\x1f" + (a.data.empty() ? "" : slurp(a.data));
  for (const auto& s : {a.target, a.loss, a.wrt, a.transforms, a.optimizer, a.split, a.engine, a.via})
    all += "\x1f" + s;
  for (const auto& b : a.binds) all += "\x1f" + b;
  for (const auto& b : a.dataLists) all += "\x1f" + b;
  for (const auto& b : a.dataVecs) all += "\x1f" + b;
  for (const auto& b : a.holdoutLists) all += "\x1fheld:" + b;
  for (double x : {a.lr, a.clip, a.jitter, a.span, a.ftol, a.xtol, a.gtol, a.holdout})
    all += "\x1f" + std::to_string(x);
  for (long long x : {a.restarts, a.population, a.history, a.patience}) all += "\x1f" + std::to_string(x);
  all += "\x1f" + std::to_string(a.seed);
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016zx", std::hash<std::string>{}(all));
  return buf;
}

FitSettings fitSettings(const FitArgs& a, const ModelSpec& spec) {
  FitSettings s;
  s.optimizer = a.optimizer;
  s.method.lr = a.lr > 0 ? a.lr : a.optimizer == "torch-lbfgs" ? 1.0 : 0.05;
  s.method.clip = a.clip, s.method.population = a.population, s.method.span = a.span, s.method.history = a.history;
  s.steps = a.steps, s.restarts = a.restarts, s.jitter = a.jitter, s.seed = a.seed;
  s.ftol = a.ftol, s.xtol = a.xtol, s.gtol = a.gtol;
  s.method.polish = !a.tolerancesGiven;
  s.patience = a.patience, s.budgetSeconds = a.budgetSeconds, s.budgetEvals = a.budgetEvals;
  s.checkpoint = a.checkpoint, s.checkpointSeconds = a.checkpointSeconds, s.resume = a.resume;
  s.traceBests = !a.bestTrace.empty();
  if (a.resume && a.checkpoint.empty()) throw UsageError{"--resume needs --checkpoint FILE"};
  s.fingerprint = fingerprint(a, spec);
  return s;
}

// The progress line on a terminal: iteration, loss, best, rate and time left.
FitProgress progressLine(const FitArgs& a) {
  if (a.quiet || !isatty(fileno(stderr))) return {};
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  auto done = std::make_shared<int>(0);
  int total = (a.steps > 0 ? a.steps : fit::defaultSteps(a.optimizer)) * (a.restarts + 1);
  return [last, done, total](const CurvePoint& p) {
    ++*done;  // iterations so far in this process (ETA: at most every start runs every step)
    auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::milliseconds(100)) return;
    *last = now;
    double rate = p.seconds > 0 ? static_cast<double>(p.evaluations) / p.seconds : 0;
    double eta = p.seconds / *done * std::max(0, total - *done);
    std::fprintf(stderr, "\r\033[Kfit: restart %d iteration %d  loss %.6g  best %.6g  %.0f evals/s  ETA %.0f s",
                 p.restart, p.iteration, p.loss, p.best, rate, eta);
    std::fflush(stderr);
  };
}

ModelSpec modelSpec(const FitArgs& a, const DataTable* data) {
  ModelSpec spec;
  spec.programPath = a.program;
  spec.programText = slurp(a.program);
  spec.wrt = splitCommas(a.wrt);
  spec.binds = bindings(a.binds);
  if (!a.transforms.empty()) {
    auto t = parseTransforms(a.transforms);
    if (!t) throw DmciError(t.error());
    spec.transforms = *t;
  }
  spec.engine = a.engine;
  if (a.smoothGiven)
    spec.smoothSigma = a.smooth, spec.smoothMinWeight = a.smoothMinWeight, spec.smoothDea = a.smoothDea;
  spec.smoothMaxPaths = a.smoothMaxPaths;
  spec.options.route = *parseRoute(a.via);
  spec.options.threads = a.threads;
  spec.options.tensor.device = a.device;
  spec.data = data;
  spec.target = a.target;
  auto loss = parseLoss(a.loss);
  if (!loss) throw UsageError{"--loss: mse, mae, huber, softl1 or cauchy (each with :SCALE), got '" + a.loss + "'"};
  spec.loss = *loss;
  for (const auto& d : a.dataLists) spec.dataBindings.push_back(dataBinding(d, false));
  for (const auto& d : a.dataVecs) spec.dataBindings.push_back(dataBinding(d, true));
  for (const auto& d : a.holdoutLists) {
    DataBinding held = dataBinding(d, false);
    for (const auto& b : spec.dataBindings)
      if (b.name == held.name) held.vector = b.vector;  // bound as the training binding of its name is
    spec.holdoutBindings.push_back(held);
  }
  return spec;
}

// Every output, each whole: the table or JSON on stdout, then --log, --report, --out.
int writeOutputs(const FitArgs& a, Model& model, const ModelSpec& spec, const FitResult& r,
                 const nlohmann::ordered_json& extra = {}) {
  FitInfo info{a.program, a.data, a.target, a.optimizer, spec.loss.name(), a.engine, a.seed, std::nullopt};
  if (!model.fitted().unused.empty() && !a.quiet)
    std::cerr << "dmci fit: warning: " << escapeControls(unusedWarning(model.fitted()), true) << "\n";
  if (spec.data) info.droppedRows = spec.data->dropped;
  if (!a.log.empty())
    if (auto ok = writeFileAtomically(a.log, curveCsv(r)); !ok) return reportError(ok.error(), a.json);
  if (!a.bestTrace.empty())
    if (auto ok = writeFileAtomically(a.bestTrace, bestTraceJsonl(model.fitted(), r)); !ok)
      return reportError(ok.error(), a.json);
  if (!a.report.empty()) {
    FitPlot plot;
    bool data = spec.data != nullptr;
    if (data) {
      auto inputs = model.inputs();
      plot.xName = inputs.empty() ? "row" : inputs[0];
      plot.observed = spec.data->columns[static_cast<size_t>(spec.data->find(spec.target))];
      for (size_t k = 0; k < spec.data->rows(); ++k)
        plot.x.push_back(inputs.empty() ? static_cast<double>(k + 1)
                                        : spec.data->columns[static_cast<size_t>(spec.data->find(inputs[0]))][k]);
      plot.predicted = model.predict(r.theta);
    }
    if (auto ok = writeReport(a.report, model.fitted(), r, info, data ? &plot : nullptr); !ok)
      return reportError(ok.error(), a.json);
  }
  if (!a.out.empty()) {
    char loss[32];
    std::snprintf(loss, sizeof loss, "%.6g", r.loss);
    std::string about =
        a.optimizer + " to " + (a.data.empty() ? "loss" : spec.loss.name()) + " " + loss +
        (a.data.empty() ? std::string(" (objective mode)") : " on " + a.data + " (target " + a.target + ")");
    if (auto ok = writeFileAtomically(a.out, fittedProgram(spec.programText, model.fitted(), r.theta, about)); !ok)
      return reportError(ok.error(), a.json);
  }
  if (a.json) {
    auto j = resultJson(model.fitted(), r, info);
    for (const auto& [k, v] : extra.items()) j[k] = v;
    std::cout << jsonText(j) << "\n";
  } else {
    std::cout << resultTable(model.fitted(), r);
    for (const auto& [k, v] : extra.items()) std::cout << k << ": " << jsonText(v) << "\n";
  }
  if (r.nonFinite) {
    std::cerr << "dmci fit: " << escapeControls(r.stopMessage, true) << "\n";
    return kProgramError;
  }
  return kOk;
}

// --smooth's settings from the options, checked: a bad width or count, an mc option without mc, an optimizer that
// cannot take the objective.
smooth::SmoothSettings smoothSettings(const FitArgs& a) {
  smooth::SmoothSettings s;
  auto mode = smooth::parseMode(a.smoothMode);
  if (!mode) throw UsageError{"--smooth-mode: si or mc, got '" + a.smoothMode + "'"};
  s.mode = *mode;
  s.sigma = a.smooth, s.minWeight = a.smoothMinWeight, s.dea = a.smoothDea, s.seed = a.seed;
  s.samples = a.samples, s.bandwidth = a.smoothBandwidth, s.maxPaths = a.smoothMaxPaths;
  const bool mc = s.mode == smooth::Mode::Mc;
  if (!mc && !a.estimator.empty()) throw UsageError{"--estimator needs --smooth-mode mc"};
  if (!mc && a.samplesGiven) throw UsageError{"--samples needs --smooth-mode mc"};
  if (!a.estimator.empty()) {
    auto e = smooth::parseEstimator(a.estimator);
    if (!e) throw UsageError{"--estimator: pgo, reinforce or dgo, got '" + a.estimator + "'"};
    s.estimator = *e;
  }
  const bool dgo = mc && s.estimator == smooth::Estimator::Dgo;
  if (a.bandwidthGiven && !dgo) throw UsageError{"--smooth-bandwidth needs --smooth-mode mc --estimator dgo"};
  if (a.smoothDea && mc && !dgo)
    throw UsageError{"--smooth-dea widens the smoothed comparisons of si (and of dgo's kernel): not " +
                     std::string(smooth::estimatorName(s.estimator)) + "'s runs of the crisp program"};
  if (auto why = smooth::checkSettings(s)) throw UsageError{*why};
  if (a.annealStages < 1) throw UsageError{"--smooth-stages: at least 1"};
  if (!a.checkpoint.empty() || a.resume)
    throw UsageError{"--smooth fits in stages: --checkpoint and --resume do not apply"};
  if (a.optimizer == "de" || a.optimizer == "cmaes")
    throw UsageError{"--optimizer " + a.optimizer +
                     " uses no gradient: --smooth gives a gradient where the program branches, which a population "
                     "method does not need (fit the crisp program with it)"};
  if (mc && a.optimizer != "adam")
    throw UsageError{"--optimizer " + a.optimizer +
                     ": --smooth-mode mc draws afresh at every evaluation, so the objective is noisy and a line "
                     "search or trust region cannot use it: use adam (the default with mc)"};
  return s;
}

// --smooth: the fit runs on the smoothed program (si) or the Monte Carlo smoothed loss (mc, fit/SmoothedLoss.h), in
// stages of shrinking width with --smooth-anneal (each stage starts where the last ended: width SIGMA 4^-k; with mc
// adam's step size lr 2^-k), and
// the values reached are scored on the crisp program: that is the loss reported, the smoothed one beside it (mc:
// a fresh estimate at the values reached, with its standard error).
int smoothFit(const FitArgs& a, const ModelSpec& spec) {
  const smooth::SmoothSettings ss = smoothSettings(a);
  const bool mc = ss.mode == smooth::Mode::Mc;
  std::unique_ptr<Model> model, crisp;
  SmoothedLoss* mcModel = nullptr;
  if (mc) {
    auto m = makeSmoothedLoss(spec, ss);
    if (!m) return reportError(m.error(), a.json);
    mcModel = m->get();
    model = std::move(*m);
  } else {
    auto m = makeModel(spec);
    if (!m) return reportError(m.error(), a.json);
    model = std::move(*m);
  }
  ModelSpec crispSpec = spec;
  crispSpec.smoothSigma = 0;
  auto c = makeModel(crispSpec);
  if (!c) return reportError(c.error(), a.json);
  crisp = std::move(*c);
  FitSettings settings = fitSettings(a, spec);
  if (mc) settings.uncertainty = false;
  auto progress = progressLine(a);
  const int stages = a.anneal ? a.annealStages : 1;
  FitResult r;
  int iterations = 0;
  uint64_t evaluations = 0;
  double seconds = 0, sigma = a.smooth;
  for (int k = 0; k < stages; ++k, sigma /= 4) {
    model->setSmoothSigma(sigma);
    // mc: adam's step shrinks with the width, as its square root (lr 2^-k): its noisy steps would otherwise keep it
    // about lr from the optimum, and a step shrunk as fast as the width (lr 4^-k) stops the values the branch does
    // not move (measured on the threshold model, ci/smooth-fit).
    if (mc) settings.method.lr = fitSettings(a, spec).method.lr * std::sqrt(sigma / a.smooth);
    if (k > 0) model->restartFrom(r.theta);
    auto stage = runFit(*model, settings, progress);
    if (!stage) return reportError(stage.error(), a.json);
    r = std::move(*stage);
    iterations += r.iterations, evaluations += r.evaluations, seconds += r.seconds;
    if (r.nonFinite) break;
  }
  if (progress) std::fprintf(stderr, "\r\033[K");
  r.iterations = iterations, r.evaluations = evaluations, r.seconds = seconds;
  nlohmann::ordered_json extra;
  try {
    if (mc) {
      model->loss(r.theta, nullptr);  // a fresh estimate at the values reached
      extra["smoothed_loss"] = mcModel->last().value;
      extra["smoothed_loss_error"] = mcModel->last().valueError;
    } else {
      extra["smoothed_loss"] = r.loss;
    }
    r.loss = crisp->loss(r.theta, nullptr);
    r.holdout = crisp->holdoutLoss(r.theta);
  } catch (const DmciError& e) {
    return reportError(e.error(), a.json);
  }
  nlohmann::ordered_json info = {{"mode", smooth::modeName(ss.mode)}};
  if (mc) info["estimator"] = smooth::estimatorName(ss.estimator);
  info["sigma"] = a.smooth;
  if (mc) {
    info["samples"] = ss.samples, info["seed"] = ss.seed;
    if (ss.estimator == smooth::Estimator::Dgo) {
      smooth::SmoothSettings last = ss;
      last.sigma = sigma * 4;
      info["bandwidth"] = smooth::dgoBandwidth(last);
    }
    info["draws"] = mcModel->draws();
  }
  if (ss.dea) info["dea"] = true;
  info["stages"] = stages, info["final_sigma"] = sigma * 4;
  extra["smooth"] = info;
  return writeOutputs(a, *crisp, spec, r, extra);
}

int fitCommand(FitArgs a) {
  try {
    if (!a.smoothOptionAlone.empty()) throw UsageError{a.smoothOptionAlone + " needs --smooth SIGMA"};
    if (a.optimizer.empty() && a.smoothGiven && a.smoothMode == "mc") a.optimizer = "adam";
    if (a.optimizer.empty()) a.optimizer = !a.data.empty() && a.loss != "mae" ? "lm" : "lbfgs";
    if (!a.data.empty() && a.target.empty()) throw UsageError{"--data needs --target COLUMN (the column predicted)"};
    if (a.data.empty() && !a.target.empty()) throw UsageError{"--target needs --data FILE.csv"};
    std::unique_ptr<DataTable> data;
    if (!a.data.empty()) {
      auto t = readDataTable(a.data, a.dropNonFinite);
      if (!t) return reportError(t.error(), a.json);
      if (t->dropped && !a.quiet)
        std::cerr << "dmci fit: dropped " << t->dropped << " row" << (t->dropped == 1 ? "" : "s") << " of "
                  << escapeControls(a.data) << " with a NaN or infinite cell (--drop-nonfinite)\n";
      data = std::make_unique<DataTable>(std::move(*t));
    }
    ModelSpec spec = modelSpec(a, data.get());
    if (data) {
      auto rows = splitRows(a, *data);
      if (!rows) return reportError(rows.error(), a.json);
      spec.trainRows = rows->first, spec.holdoutRows = rows->second;
    } else if (a.holdout > 0 || !a.split.empty()) {
      throw UsageError{"--holdout and --split need --data and --target"};
    }
    if (data && !a.holdoutLists.empty())
      throw UsageError{"--holdout-data-list is for objective mode (no --data): give --holdout or --split"};
    if (a.smoothGiven) return smoothFit(a, spec);
    auto model = makeModel(spec);
    if (!model) return reportError(model.error(), a.json);
    FitSettings settings = fitSettings(a, spec);
    auto progress = progressLine(a);
    auto r = runFit(**model, settings, progress);
    if (progress) std::fprintf(stderr, "\r\033[K");
    if (!r) return reportError(r.error(), a.json);
    return writeOutputs(a, **model, spec, *r);
  } catch (const DmciError& e) {
    return reportError(e.error(), a.json);
  }
}

void addOptions(CLI::App* cmd, FitArgs& a);

}  // namespace

std::function<int()> addFitCommand(CLI::App& app) {
  auto a = std::make_shared<FitArgs>();
  auto* cmd = app.add_subcommand("fit",
                                 "calibrate a program's parameters and numeric literals to data by exact gradients "
                                 "(data mode: --data and --target; objective mode: the program's value is the loss)");
  addOptions(cmd, *a);
  return [cmd, a] {
    if (!*cmd) return -1;
    a->smoothGiven = cmd->count("--smooth") > 0;
    a->samplesGiven = cmd->count("--samples") > 0;
    a->bandwidthGiven = cmd->count("--smooth-bandwidth") > 0;
    for (const char* o : {"--smooth-anneal", "--smooth-stages", "--smooth-min-weight", "--smooth-dea", "--smooth-mode",
                          "--estimator", "--samples", "--smooth-bandwidth", "--smooth-max-paths"})
      if (!a->smoothGiven && a->smoothOptionAlone.empty() && cmd->count(o) > 0) a->smoothOptionAlone = o;
    return fitCommand(*a);
  };
}

namespace {

void addOptions(CLI::App* cmd, FitArgs& a) {
  cmd->add_option("program", a.program, "the program (.scm)")->required();
  cmd->add_option("--data", a.data, "data mode: a CSV file, a header of column names then one row per observation");
  cmd->add_option("--target", a.target, "data mode: the column the program's value predicts");
  cmd->add_flag("--drop-nonfinite", a.dropNonFinite,
                "data mode: drop the rows with a NaN or infinite cell (counted on stderr and in the JSON's "
                "\"dropped_rows\"); without it such a cell is an error at its file:line:col");
  cmd->add_option("--loss", a.loss,
                  "data mode: mse, mae, or a robust loss huber, softl1 or cauchy, each with an optional :SCALE (the "
                  "mean over rows; lm and dogleg fit the robust ones as Ceres's robust losses)")
      ->capture_default_str();
  cmd->add_option("--data-list", a.dataLists, "objective mode: bind NAME to a column as a list: NAME=FILE.csv:COL");
  cmd->add_option("--data-vec", a.dataVecs, "objective mode: bind NAME to a column as a vector: NAME=FILE.csv:COL");
  cmd->add_option("--bind,-b", a.binds, "NAME=NUMBER: the start of a fitted parameter, or a fixed value");
  cmd->add_option("--wrt", a.wrt,
                  "what is fitted: names, 'literals' (every numeric literal) or 'all' (every --bind name and every "
                  "literal); default: the --bind names, or the literals when nothing is bound");
  cmd->add_option("--transform", a.transforms, "a=positive,b=unit,c=[lo,hi]: optimise in an unconstrained space");
  cmd->add_option("--optimizer", a.optimizer,
                  "lm (Levenberg-Marquardt on the exact Jacobian; the default in data mode), dogleg, lbfgs (line "
                  "search, the default in objective mode and with --loss mae), bfgs; adam, torch-lbfgs "
                  "(LibTorch); de, cmaes (pagmo2, gradient-free)")
      ->check(CLI::IsMember({"lm", "dogleg", "lbfgs", "bfgs", "adam", "torch-lbfgs", "de", "cmaes"}));
  cmd->add_option("--steps", a.steps,
                  "iterations (generations for de, cmaes) per start; default 5000 for lm, dogleg, lbfgs and bfgs, "
                  "500 for the others");
  cmd->add_option("--lr", a.lr, "step size (default: 1 for torch-lbfgs, 0.05 for adam)");
  cmd->add_option("--restarts", a.restarts, "further starts, jittered from the first")->capture_default_str();
  cmd->add_option("--jitter", a.jitter, "restarts: u0 + jitter*max(1,|u0|)*N(0,1)")->capture_default_str();
  cmd->add_option("--seed", a.seed, "seed of restarts, holdout, de, cmaes and --smooth-mode mc's draws")
      ->capture_default_str();
  cmd->add_option("--clip", a.clip, "adam: clip the gradient's norm to this (0: none)")->capture_default_str();
  cmd->add_option("--population", a.population, "de, cmaes: individuals per generation (0: automatic)");
  cmd->add_option("--span", a.span, "de, cmaes: search box start +- span*max(1,|start|)")->capture_default_str();
  cmd->add_option("--history", a.history, "lbfgs, torch-lbfgs: curvature pairs kept")->capture_default_str();
  cmd->add_option("--ftol", a.ftol,
                  "converged when a step changes the cost by at most this fraction of it (lm, dogleg, lbfgs, bfgs; "
                  "only where the gradient test also holds at 1e4*gtol, else the fit is reported as stalled). With the "
                  "default ftol and xtol, lm and dogleg resume from a point where either held before gtol, without "
                  "the cost test, while that lowers the cost (up to 20 times); a tolerance given here stops as stated")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.tolerancesGiven = true; });
  cmd->add_option("--xtol", a.xtol,
                  "converged when a step is at most xtol*(|x| + xtol) (lm, dogleg, lbfgs, bfgs; confirmed as ftol is)")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.tolerancesGiven = true; });
  cmd->add_option("--gtol", a.gtol,
                  "converged when the gradient vanishes: lm, dogleg: |P_J r|/|r| <= gtol (the residuals orthogonal "
                  "to the Jacobian's columns); the other gradient methods: every gradient entry <= gtol. The JSON's "
                  "\"stop\" names the test that held (ftol, xtol, gtol), else stalled, steps, patience, budget or "
                  "nonfinite")
      ->capture_default_str();
  cmd->add_option("--holdout", a.holdout, "hold out this fraction of the rows (seeded) for early stopping");
  cmd->add_option("--split", a.split, "COL<VALUE: fit the rows with COL < VALUE, hold out the rest");
  cmd->add_option("--holdout-data-list", a.holdoutLists,
                  "objective mode: NAME=FILE.csv:COL in place of NAME's --data-list (or --data-vec) binding; the "
                  "program's value there is the held-out loss (early stopping; the best iterate by it is kept)");
  cmd->add_option("--patience", a.patience, "early stopping: iterations without a better held-out loss")
      ->capture_default_str();
  cmd->add_option("--budget-seconds", a.budgetSeconds, "stop after this much time");
  cmd->add_option("--budget-evals", a.budgetEvals, "stop after this many loss evaluations");
  cmd->add_option("--checkpoint", a.checkpoint,
                  "write the fit's state to this file (atomically) between iterations, for --resume");
  cmd->add_option("--checkpoint-seconds", a.checkpointSeconds,
                  "write the checkpoint at most this often, and at each start's end (0: after every iteration)")
      ->capture_default_str();
  cmd->add_flag("--resume", a.resume, "continue from --checkpoint FILE");
  cmd->add_flag("--json", a.json, "print one JSON object instead of the table");
  cmd->add_option("--log", a.log, "write the loss curve to this CSV file");
  cmd->add_option("--best-trace", a.bestTrace,
                  "write each iterate that was the fit's best when reached (by the held-out loss when there is one), "
                  "with its time and values, to this file as JSON Lines: what any shorter budget would have "
                  "returned");
  cmd->add_option("--report", a.report, "write report.md, loss.svg and fit.svg into this folder");
  cmd->add_option("--out", a.out, "write the program with its fitted literals (in place) to this file");
  cmd->add_flag("--quiet,-q", a.quiet, "no progress line");
  cmd->add_option("--engine", a.engine,
                  "engine (any in `dmci engines`; replay, the default, records the program's trace once and replays it "
                  "for every row and step)")
      ->capture_default_str();
  cmd->add_option("--via", a.via, "route: direct, dmci or dmci2")
      ->check(CLI::IsMember({"direct", "dmci", "dmci2"}))
      ->capture_default_str();
  cmd->add_option("--device", a.device, "tensor engine: cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--threads", a.threads, "threads for the rows' lanes (0: one per hardware thread)");
  cmd->add_option("--smooth", a.smooth,
                  "fit the Gaussian-smoothed objective over the fitted values the program uses, so that a value "
                  "that only moves a branch gets a gradient: si (the default) fits the smoothed program (a "
                  "comparison on a fitted value becomes Phi(d/SIGMA), `if` blends both arms); mc fits the smoothed "
                  "loss E[L(theta + SIGMA u)] by sampled gradients (--estimator, --samples, --seed). The values "
                  "reached are scored on the crisp program (the loss reported; smoothed_loss beside it)")
      ->option_text("SIGMA");
  cmd->add_option("--smooth-mode", a.smoothMode,
                  "si: smooth interpretation, deterministic (any optimizer but de and cmaes); mc: Monte Carlo, fresh "
                  "draws at every evaluation (seeded from --seed), so a stochastic optimizer: adam (its default)")
      ->check(CLI::IsMember({"si", "mc"}))
      ->capture_default_str();
  cmd->add_option("--estimator", a.estimator,
                  "mc: pgo (randomised finite differences of the loss in antithetic pairs; the default), reinforce "
                  "(score function with a leave-one-out baseline) or dgo (the mean of the AD gradients of the loss "
                  "of the si-smoothed program at the kernel width --smooth-bandwidth, at the perturbed points)")
      ->check(CLI::IsMember({"pgo", "reinforce", "dgo"}));
  cmd->add_option("--samples", a.samples, "mc: loss evaluations per estimate (one estimate per iteration)")
      ->capture_default_str();
  cmd->add_option("--smooth-bandwidth", a.smoothBandwidth,
                  "mc dgo: the kernel's width h (0: Silverman's rule 1.06 SIGMA N^-1/5, shrinking with SIGMA)")
      ->capture_default_str();
  cmd->add_flag("--smooth-dea", a.smoothDea,
                "si (and dgo's kernel): each comparison's width SIGMA |grad d|, from d's gradient in the fitted "
                "values where it can be derived");
  cmd->add_flag("--smooth-anneal", a.anneal,
                "with --smooth: fit in stages of shrinking width SIGMA 4^-k, each from where the last ended");
  cmd->add_option("--smooth-stages", a.annealStages, "--smooth-anneal: the stages")->capture_default_str();
  cmd->add_option("--smooth-min-weight", a.smoothMinWeight,
                  "--smooth si (and dgo's kernel): an arm whose path is less likely than this is not run")
      ->capture_default_str();
  cmd->add_option("--smooth-max-paths", a.smoothMaxPaths,
                  "--smooth si (and dgo's kernel): the paths forks may run, all told (see dmci grad; 0: no limit)")
      ->capture_default_str();
}

}  // namespace

}  // namespace dmci::cli
