// The optimizers `dmci fit` drives, behind one small interface, found by name in a registry.
//
// An optimizer minimises an Objective: a loss of n unconstrained coordinates, with its gradient on request. The
// fit driver calls step() once per iteration (a gradient method's update with its line search, or a population
// method's generation) and checkpoints save() between steps. The optimizers come from well-kept libraries in
// plugins opened on demand, so that the core tool links neither: lbfgs and adam (torch::optim) in
// `dmci-optimizer-torch.so`, de and cmaes (pagmo2) in `dmci-optimizer-pagmo.so`. A plugin registers its
// optimizers from a static initialiser, as an engine's plugin does.
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
};

struct OptimizerSettings {
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
