// The optimizers `dmci fit` drives, behind one small interface, found by name in a registry.
//
// An optimizer minimises an Objective: a loss of n coordinates, with its gradient on request and, in data mode,
// the rows' residuals with their exact Jacobian (a least-squares problem). Two kinds of method:
//   step methods   the fit driver calls step() once per iteration (adam's update, a population method's
//                  generation) and checkpoints save() between steps;
//   whole solves   solve() runs the method to its own stop and calls the driver back after every iteration (the
//                  driver keeps the curve, the budgets and early stopping, and can end the solve); stopReason()
//                  then says which of the method's stated tests ended it.
// The optimizers come from well-kept libraries in plugins opened on demand, so that the core tool links none of
// them: lm, dogleg, lbfgs and bfgs (Ceres Solver) in `dmci-optimizer-ceres.so`, adam and torch-lbfgs
// (torch::optim) in `dmci-optimizer-torch.so`, de and cmaes (pagmo2) in `dmci-optimizer-pagmo.so`. A plugin
// registers its optimizers from a static initialiser, as an engine's plugin does.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "syntax/Error.h"

namespace dmci::fit {

// What an optimizer minimises.
class Objective {
 public:
  virtual ~Objective() = default;
  virtual size_t dimension() const = 0;
  // The loss at x and, when `grad` is non-null, its gradient (resized to dimension()). A loss may be NaN or
  // infinite; the optimizer sees it as it is and the driver stops on it.
  virtual double loss(const std::vector<double>& x, std::vector<double>* grad) = 0;
  // Least squares (data mode): the number of residuals (0: the loss is not a sum over residuals), and the
  // residuals at x with, when `jacobian` is non-null, their Jacobian in x (row-major, residualCount() × n). The
  // loss is then the mean over residuals of `robust`'s ρ (fit/Loss.h).
  virtual size_t residualCount() const { return 0; }
  virtual void residuals(const std::vector<double>& x, double* r, double* jacobian);
  struct Robust {
    std::string kind;  // "" (plain squares), "huber", "softl1", "cauchy"
    double scale = 1;
  };
  virtual Robust robust() const { return {}; }
  // The size of what the residuals are measured against (‖y‖, the targets' norm): residuals below 1e-10 of it
  // are a zero-residual fit solved to rounding. 0: unknown.
  virtual double residualScale() const { return 0; }
  // Coordinate j's bounds (±infinity: none); a method that cannot keep bounds refuses bounded coordinates.
  virtual std::pair<double, double> bounds(size_t j) const;
};

struct OptimizerSettings {
  // The stated convergence tests of the whole-solve methods (Ceres's function, parameter and gradient tolerances):
  // the relative reduction of the cost in a step |Δf|/f ≤ ftol; the step ‖Δx‖ ≤ xtol·(‖x‖ + xtol); the projected
  // gradient's largest entry ≤ gtol.
  double ftol = 1e-14, xtol = 1e-14, gtol = 1e-10;
  int steps = 500;  // whole solves: the iteration limit
  // lm, dogleg: an ftol or xtol stop where the gradient test has not held resumes the solve from its point, without
  // the cost test (see fit/ceres/CeresOptimizers.cpp). The default tolerances are such a pause; tolerances a user
  // states (--ftol, --xtol) are stops as stated, so dmci fit turns this off when either is given.
  bool polish = true;
  double lr = 0.05;    // adam's step size; lbfgs's first step length
  double clip = 0;     // adam: the gradient's norm is clipped to this (0: no clipping)
  uint64_t seed = 0;   // de, cmaes: their random engines
  int population = 0;  // de, cmaes: individuals per generation (0: the method's default for the dimension)
  double span = 1;     // de, cmaes: the search box is start ± span·max(1, |start|) per coordinate
  int history = 20;    // lbfgs: the curvature pairs kept
};

// One run of an optimizer from one start.
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // True for gradient methods (the driver then checks the gradient's norm for convergence).
  virtual bool usesGradient() const = 0;
  // One iteration.
  virtual void step(Objective& f) = 0;
  // The point reached: the iterate of a gradient method, the best individual of a population method.
  virtual std::vector<double> point() const = 0;
  // The loss at point() when the method knows it (a population's best), else NaN (the driver evaluates it).
  virtual double pointLoss() const { return std::numeric_limits<double>::quiet_NaN(); }
  // The whole state (iterate, moments, curvature pairs, population, random engines), as bytes, and back: a run
  // resumed from it continues exactly as the uninterrupted run would.
  virtual std::string save() const = 0;
  virtual void load(const std::string& state) = 0;

  // Whole solves: true for a method that runs to its own stop in solve() (step() is then never called).
  virtual bool solves() const { return false; }
  // Runs the method from its start (or the point load() gave it). After every iteration it calls `after` with the
  // point reached; `after` returns false to end the solve there (a budget, early stopping).
  using AfterIteration = std::function<bool(const std::vector<double>& point)>;
  virtual void solve(Objective& f, const AfterIteration& after);
  // Why the last solve() ended: the test that held ("ftol", "xtol", "gtol"), "stalled" (no step could make
  // progress), "steps" (the iteration limit) or "ended" (by `after`), with the method's words for it.
  struct Stop {
    std::string reason, message;
  };
  virtual Stop stopReason() const { return {}; }
};

// Makes an optimizer that starts at `start` (nothing is evaluated before the first step).
using OptimizerMaker =
    std::function<std::unique_ptr<Optimizer>(const std::vector<double>& start, const OptimizerSettings& settings)>;

// The optimizer called `name`, opening its plugin the first time; a Usage error names the optimizers there are.
Result<OptimizerMaker> optimizerNamed(const std::string& name);
// The names `--optimizer` takes.
std::vector<std::string> optimizerNames();
// Registers an optimizer (a later registration of the same name replaces it).
void registerOptimizer(const std::string& name, OptimizerMaker make);
struct OptimizerRegistration {
  OptimizerRegistration(const std::string& name, OptimizerMaker make) { registerOptimizer(name, std::move(make)); }
};

}  // namespace dmci::fit
