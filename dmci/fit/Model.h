// The fit's objective: the program, prepared once on an engine, as a loss of the fitted values θ (parameters,
// then literals) with its exact gradient.
//
//   data mode       (a target column) every row of the data is a lane; the columns bind the program's free
//                   variables of the same names; the program's value is the prediction; the loss is the mean of
//                   the rows' losses. One runLanes call with the gradient gives every row's prediction and
//                   gradient at once, and the chain rule sums them.
//   objective mode  (no target) the program's value is the loss. Whole columns can be bound as data: a list
//                   (--data-list ys=FILE.csv:COL) or a vector (--data-vec), defined before the program.
//
// The program text is read once: the columns are bound as datums put before its forms, and the literals fitted as
// fresh variables standing in their datums (fit/Literals.h), with no text written and read back. Every engine is driven
// through the seam (Engine::prepare, PreparedRun::run/runLanes), so any engine fits.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "fit/DataTable.h"
#include "fit/Literals.h"
#include "fit/Loss.h"
#include "fit/Transform.h"

namespace dmci::fit {

// A column bound as a whole: `name` is defined as a list (or a vector) of the column's numbers.
struct DataBinding {
  std::string name, path, column;
  bool vector = false;
};

struct ModelSpec {
  std::string programPath, programText;
  std::vector<std::string> wrt;  // names, "literals", "all"; empty: --bind names, else literals
  // With literals fitted: only the literals on these lines of the program text (empty: every line). dmci search
  // --edit fits the edited definition's literals and keeps the rest of the program (an integrator's 0.5 and 6) as
  // written.
  std::vector<uint32_t> literalLines;
  std::vector<std::pair<std::string, double>> binds;  // --bind NAME=NUMBER: starts of fitted names, else fixed
  std::map<std::string, Transform> transforms;
  std::string engine = "replay";
  EvalOptions options;  // route, threads, budgets, tensor settings
  // Data mode.
  const DataTable* data = nullptr;
  std::string target;
  Loss loss;
  std::vector<size_t> trainRows, holdoutRows;  // empty train rows: every row
  // Objective mode.
  std::vector<DataBinding> dataBindings;
  // Smoothing (smooth/Smooth.h, si): > 0 fits the Gaussian-smoothed program over the fitted parameters, with this
  // width to start with (Model::setSmoothSigma changes it).
  double smoothSigma = 0;
  double smoothMinWeight = 1e-20;
  bool smoothDea = false;      // each comparison's width sigma |grad d| (smooth::SmoothSettings::dea)
  int64_t smoothMaxPaths = 8;  // the paths forks may run (smooth::SmoothSettings::maxPaths; 0: no limit)
  // Objective mode, held out: the same program with these bindings in place of the ones of the same names; its
  // value at each iterate is the held-out loss (early stopping, and the pick of the best iterate).
  std::vector<DataBinding> holdoutBindings;
};

// What a fit changes: parameters, then literals.
struct Fitted {
  std::vector<std::string> names;      // parameter names, then literal keys ("file:line:col")
  std::vector<std::string> variables;  // the variable each is bound as
  std::vector<double> start;           // θ0: --bind values, the literals' own values
  std::vector<Transform> transforms;
  std::vector<LiteralSite> literals;  // the literal sites, in the order of their names
  size_t parameters = 0;              // how many of `names` are parameters
  // The --bind names (fitted or fixed) the program does not use, as scipy or R's nls take a parameter with no
  // effect: a fitted one keeps its start (the run is not given it; its gradient and Jacobian column are zero), a
  // fixed one is dropped. Said on stderr and in the JSON ("unused"); a real free variable left unbound (a misspelt
  // --bind) is still an error.
  std::vector<std::string> unused;
  // Smoothing (ModelSpec::smoothSigma): the comparisons, selects and steps the transform smoothed over the fitted
  // variables (0: the smoothed program is the crisp one, as for a candidate whose constants sit in no branch).
  int smoothed = 0;
  bool isUnused(const std::string& name) const;
};

class Model {
 public:
  virtual ~Model() = default;
  const Fitted& fitted() const { return fitted_; }
  // The loss at θ and, with `grad`, its gradient in θ. A program error (at a row, in data mode) is thrown as a
  // DmciError.
  virtual double loss(const std::vector<double>& theta, std::vector<double>* grad) = 0;
  // The held-out rows' loss (data mode with a holdout), or nullopt.
  virtual std::optional<double> holdoutLoss(const std::vector<double>& theta) = 0;
  // Every row's prediction (data mode), for the report's plot; empty in objective mode.
  virtual std::vector<double> predict(const std::vector<double>& theta) = 0;
  // The data columns bound per row (data mode).
  virtual std::vector<std::string> inputs() const = 0;
  // Data mode, as least squares: the training rows' count, their residuals r_i = prediction − target at θ and,
  // with `jacobian`, the residuals' Jacobian in θ (row-major, rows × θ.size(): the lanes' per-row gradients), and
  // the loss of a row's residual. Objective mode has no rows and no row loss.
  virtual size_t residualRows() const { return 0; }
  virtual void residuals(const std::vector<double>& theta, std::vector<double>& r, std::vector<double>* jacobian);
  virtual const Loss* rowLoss() const { return nullptr; }
  // The training targets' norm ‖y‖ (data mode; 0 in objective mode).
  virtual double targetNorm() const { return 0; }
  // Smoothing: the width from now on (a model made without smoothing ignores it).
  virtual void setSmoothSigma(double) {}
  // The start of the next runFit: the values reached by the last (a fit in stages, as an annealed smoothing).
  void restartFrom(const std::vector<double>& theta) { fitted_.start = theta; }

 protected:
  Fitted fitted_;
};

// Reads the program, finds what is fitted, and prepares it on the engine. Usage errors name the --wrt name,
// --bind name, column or literal at fault. The model refers to `spec` and its data: they must outlive it.
Result<std::unique_ptr<Model>> makeModel(const ModelSpec& spec);

}  // namespace dmci::fit
