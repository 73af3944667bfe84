// The fit driver: restarts, iterations, stopping rules, budgets and checkpoints around one optimizer.
#include "fit/Fit.h"

#include <chrono>
#include <cmath>
#include <deque>
#include <random>

#include "support/AtomicFile.h"

namespace dmci::fit {

namespace {

// The model's loss in the optimizer's coordinates u (θ = T(u) per coordinate), counted, with the last few
// evaluations remembered: an optimizer that asks again for a point it has just evaluated gets it at no cost. In
// data mode it is also a least-squares problem: the training rows' residuals and their Jacobian in u. With
// `realBounds` (a method that keeps bounds), an interval transform [lo,hi] is no transform but a bound.
class Coordinates : public Objective {
 public:
  Coordinates(Model& m, uint64_t& evaluations, bool realBounds)
      : model_(m), evaluations_(evaluations), transforms_(m.fitted().transforms) {
    if (realBounds)
      for (auto& t : transforms_)
        if (t.kind == Transform::Interval)
          bounds_.push_back({t.lo, t.hi}), t = Transform{};
        else
          bounds_.push_back({-INFINITY, INFINITY});
  }
  size_t dimension() const override { return transforms_.size(); }

  std::vector<double> theta(const std::vector<double>& u) const {
    std::vector<double> th(u.size());
    for (size_t j = 0; j < u.size(); ++j) th[j] = transforms_[j].toParam(u[j]);
    return th;
  }
  std::vector<double> free(const std::vector<double>& theta) const {
    std::vector<double> u(theta.size());
    for (size_t j = 0; j < u.size(); ++j) u[j] = transforms_[j].toFree(theta[j]);
    return u;
  }

  double loss(const std::vector<double>& u, std::vector<double>* grad) override {
    for (const auto& c : cache_)
      if (c.u == u && (!grad || c.hasGradient)) {
        if (grad) *grad = c.grad;
        return c.loss;
      }
    Remembered r{u, 0, {}, grad != nullptr};
    r.loss = model_.loss(theta(u), grad ? &r.grad : nullptr);
    ++evaluations_;
    for (size_t j = 0; j < r.grad.size(); ++j) r.grad[j] *= transforms_[j].slope(u[j]);
    if (grad) *grad = r.grad;
    remember(std::move(r));
    return cache_.front().loss;
  }

  size_t residualCount() const override {
    const Loss* l = model_.rowLoss();
    return l && l->kind != LossKind::Mae ? model_.residualRows() : 0;
  }
  void residuals(const std::vector<double>& u, double* r, double* jacobian) override {
    const size_t n = u.size();
    model_.residuals(theta(u), r_, jacobian ? &J_ : nullptr);
    ++evaluations_;
    std::copy(r_.begin(), r_.end(), r);
    if (jacobian)
      for (size_t i = 0; i < r_.size(); ++i)
        for (size_t j = 0; j < n; ++j) jacobian[i * n + j] = J_[i * n + j] * transforms_[j].slope(u[j]);
    double sum = 0;  // the loss at u, remembered: the driver asks for it after the iteration
    for (double ri : r_) sum += model_.rowLoss()->value(ri);
    remember({u, sum / static_cast<double>(r_.size()), {}, false});
  }
  Robust robust() const override {
    const Loss* l = model_.rowLoss();
    if (!l || l->kind == LossKind::Mse) return {};
    return {l->name(), l->delta};
  }
  double residualScale() const override { return model_.targetNorm(); }
  std::pair<double, double> bounds(size_t j) const override {
    return bounds_.empty() ? Objective::bounds(j) : bounds_[j];
  }

 private:
  struct Remembered {
    std::vector<double> u;
    double loss;
    std::vector<double> grad;
    bool hasGradient;
  };
  Model& model_;
  uint64_t& evaluations_;
  std::vector<Transform> transforms_;
  std::vector<std::pair<double, double>> bounds_;
  std::deque<Remembered> cache_;
  std::vector<double> r_, J_;

  void remember(Remembered r) {
    cache_.push_front(std::move(r));
    if (cache_.size() > 8) cache_.pop_back();
  }
};

// The methods that keep real bounds (an interval transform becomes a bound for them).
bool keepsBounds(const std::string& optimizer) { return optimizer == "lm" || optimizer == "dogleg"; }

class Driver {
 public:
  Driver(Model& m, const FitSettings& s, OptimizerMaker make, FitState st, const FitProgress& progress)
      : model_(m),
        s_(s),
        make_(std::move(make)),
        st_(std::move(st)),
        progress_(progress),
        f_(m, st_.evaluations, keepsBounds(s.optimizer)),
        began_(std::chrono::steady_clock::now()),
        secondsBefore_(st_.seconds) {}

  FitResult run() {
    bool resumed = !st_.optimizer.empty();
    for (; st_.restart <= s_.restarts && stop_.empty(); ++st_.restart) {
      auto opt = make_(startOf(st_.restart), settingsOf(st_.restart));
      if (resumed) opt->load(st_.optimizer);
      resumed = false;
      if (st_.iteration == 0 && !st_.current.found) keepStart(*opt);
      if (opt->solves())
        solve(*opt);
      else
        while (!st_.restartDone && st_.iteration < s_.steps && stop_.empty()) iterate(*opt);
      if (!stop_.empty() && !st_.current.found) break;
      if (st_.current.stop.empty()) st_.current.stop = "steps", st_.current.stopMessage = "the step limit was reached";
      st_.current.iterations = st_.iteration;
      st_.finished.push_back(st_.current);
      st_.current = RestartBest{}, st_.iteration = 0, st_.restartDone = false, st_.stale = 0, st_.unchanged = 0;
      st_.previous.clear();
    }
    return result();
  }

 private:
  Model& model_;
  const FitSettings& s_;
  OptimizerMaker make_;
  FitState st_;
  const FitProgress& progress_;
  Coordinates f_;
  std::chrono::steady_clock::time_point began_;
  double secondsBefore_;
  std::string stop_, stopMessage_;  // why the whole fit stopped early: "budget" or "nonfinite", and in words
  bool nonFinite_ = false;
  double lastCheckpoint_ = -INFINITY;
  double traceKey_ = INFINITY;    // the best held-out loss (or loss) traced so far
  std::vector<BestPoint> bests_;  // traceBests: the new bests, in order

  double seconds() const {
    return secondsBefore_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
  }

  // Restart r's start: the given values, or jittered ones from the seed.
  std::vector<double> startOf(int r) const {
    std::vector<double> u = f_.free(model_.fitted().start);
    if (r == 0) return u;
    std::mt19937_64 rng(s_.seed * 1000003u + static_cast<uint64_t>(r));
    std::normal_distribution<double> normal;
    for (double& x : u) x += s_.jitter * std::max(1.0, std::fabs(x)) * normal(rng);
    return u;
  }

  OptimizerSettings settingsOf(int r) const {
    OptimizerSettings o = s_.method;
    o.ftol = s_.ftol, o.xtol = s_.xtol, o.gtol = s_.gtol, o.steps = s_.steps;
    o.seed = s_.seed + static_cast<uint64_t>(r);
    return o;
  }

  // A budget spent: the whole fit stops (true).
  bool budgetSpent() {
    if (s_.budgetEvals && st_.evaluations >= s_.budgetEvals)
      stop_ = "budget", stopMessage_ = "the evaluation budget (" + std::to_string(s_.budgetEvals) + ") is spent";
    else if (s_.budgetSeconds > 0 && seconds() >= s_.budgetSeconds)
      stop_ = "budget", stopMessage_ = "the time budget is spent";
    return !stop_.empty();
  }

  // A step method's iteration.
  void iterate(Optimizer& opt) {
    if (budgetSpent()) return;
    opt.step(f_);
    std::vector<double> u = opt.point(), grad;
    double loss = opt.usesGradient() ? f_.loss(u, &grad) : opt.pointLoss();
    if (std::isnan(loss)) loss = f_.loss(u, nullptr);
    if (!record(opt, u, loss)) return;
    checkConvergence(u, grad, opt.usesGradient());
    st_.previous = u;
    finishIteration(opt, u);
  }

  // A whole solve: the method runs to its own stop, and each of its iterations is recorded here as a step's is.
  void solve(Optimizer& opt) {
    if (budgetSpent()) return;
    opt.solve(f_, [&](const std::vector<double>& u) {
      if (!record(opt, u, f_.loss(u, nullptr))) return false;
      finishIteration(opt, u);
      return !st_.restartDone && st_.iteration < s_.steps && !budgetSpent();
    });
    if (!stop_.empty() || !st_.current.stop.empty()) return;  // the fit's own stop, or early stopping
    Optimizer::Stop why = opt.stopReason();
    if (why.reason == "ended") return;  // the step limit (the driver's count)
    st_.current.stop = why.reason, st_.current.stopMessage = why.message;
    st_.current.converged = why.reason == "ftol" || why.reason == "xtol" || why.reason == "gtol";
    st_.restartDone = true;
  }

  // Counts the iteration and keeps its point; false (and the fit stops) on a loss that is NaN or infinite.
  bool record(const Optimizer&, const std::vector<double>& u, double loss) {
    ++st_.iteration, ++st_.iterations;
    if (!std::isfinite(loss)) {
      nonFinite_ = true;
      stop_ = "nonfinite";
      stopMessage_ = "the loss became " + std::string(std::isnan(loss) ? "NaN" : "infinite") + " at iteration " +
                     std::to_string(st_.iterations) + "; the best parameters found before it are kept";
      return false;
    }
    std::optional<double> holdout = model_.holdoutLoss(f_.theta(u));
    keepBest(u, loss, holdout);
    CurvePoint p{st_.restart, st_.iteration, st_.evaluations, seconds(), loss, bestLoss(), holdout};
    st_.curve.push_back(p);
    traceBest(p, u);
    if (progress_) progress_(p);
    return true;
  }

  void finishIteration(const Optimizer& opt, const std::vector<double>&) {
    bool due = seconds() - lastCheckpoint_ >= s_.checkpointSeconds || st_.restartDone || st_.iteration == s_.steps;
    if (!s_.checkpoint.empty() && due) checkpoint(opt);
  }

  // The restart's start is a candidate too: no iterate may come out worse than where the restart began. A
  // gradient method's first step evaluates the start anyway (the coordinates remember it), so it costs nothing.
  void keepStart(Optimizer& opt) {
    std::vector<double> u = startOf(st_.restart), grad;
    const double loss = f_.loss(u, opt.usesGradient() ? &grad : nullptr);
    if (!std::isfinite(loss)) return;
    std::optional<double> holdout = model_.holdoutLoss(f_.theta(u));
    keepBest(u, loss, holdout);
    traceBest({st_.restart, 0, st_.evaluations, seconds(), loss, bestLoss(), holdout}, u);
  }

  // Keeps the iterate `p` (at u) when it is the best of the whole fit so far (traceBests only).
  void traceBest(const CurvePoint& p, const std::vector<double>& u) {
    if (!s_.traceBests) return;
    double key = p.holdout ? *p.holdout : p.loss;
    if (!(key < traceKey_)) return;
    traceKey_ = key;
    bests_.push_back({p, f_.theta(u)});
  }

  void keepBest(const std::vector<double>& u, double loss, std::optional<double> holdout) {
    RestartBest& b = st_.current;
    bool better = !b.found || (holdout ? *holdout < *b.holdout : loss < b.loss);
    if (holdout) st_.stale = better ? 0 : st_.stale + 1;
    if (better) b.u = u, b.loss = loss, b.holdout = holdout, b.found = true;
    if (holdout && st_.stale >= s_.patience && !st_.restartDone) {  // early stopping
      st_.restartDone = true;
      b.stop = "patience";
      b.stopMessage = "the held-out loss has not improved for " + std::to_string(s_.patience) + " iterations";
    }
  }

  // A step method's stated test: the gradient's largest entry ≤ gtol. A point that has not moved for three
  // iterations without it is a stall, not convergence. (Population methods state no test: they run their steps.)
  void checkConvergence(const std::vector<double>& u, const std::vector<double>& grad, bool gradientMethod) {
    if (st_.restartDone || !gradientMethod) return;
    double gmax = 0;
    for (double g : grad) gmax = std::max(gmax, std::fabs(g));
    st_.unchanged = u == st_.previous ? st_.unchanged + 1 : 0;
    RestartBest& b = st_.current;
    char buf[96];
    if (gmax <= s_.gtol) {
      std::snprintf(buf, sizeof buf, "the gradient's largest entry %.3g <= gtol %.3g", gmax, s_.gtol);
      b.converged = true, b.stop = "gtol", b.stopMessage = buf, st_.restartDone = true;
    } else if (st_.unchanged >= 3) {
      std::snprintf(buf, sizeof buf, "the point has not moved for 3 iterations; the gradient's largest entry is %.3g",
                    gmax);
      b.stop = "stalled", b.stopMessage = buf, st_.restartDone = true;
    }
  }

  double bestLoss() const {
    double best = st_.current.found ? st_.current.loss : INFINITY;
    for (const auto& b : st_.finished) best = std::min(best, b.loss);
    return best;
  }

  void checkpoint(const Optimizer& opt) {
    st_.optimizer = opt.save();
    st_.seconds = lastCheckpoint_ = seconds();
    auto ok = writeFileAtomically(s_.checkpoint, checkpointText(st_, s_.fingerprint));
    if (!ok) throw DmciError(ok.error());
  }

  FitResult result() {
    FitResult r;
    const RestartBest* best = nullptr;
    for (size_t k = 0; k < st_.finished.size(); ++k) {
      const RestartBest& b = st_.finished[k];
      if (!b.found) continue;
      bool better = !best || (b.holdout ? *b.holdout < *best->holdout : b.loss < best->loss);
      if (better) best = &b, r.bestRestart = static_cast<int>(k);
    }
    if (best) r.theta = f_.theta(best->u), r.loss = best->loss, r.holdout = best->holdout;
    if (!best) r.theta = model_.fitted().start, r.loss = NAN;
    r.converged = best && best->converged;
    r.iterations = st_.iterations, r.evaluations = st_.evaluations, r.seconds = seconds();
    r.nonFinite = nonFinite_;
    if (!stop_.empty())
      r.stop = stop_, r.stopMessage = stopMessage_;
    else if (best)
      r.stop = best->stop, r.stopMessage = best->stopMessage;
    r.curve = st_.curve;
    r.bests = std::move(bests_);
    return r;
  }
};

}  // namespace

int defaultSteps(const std::string& optimizer) {
  return optimizer == "lm" || optimizer == "dogleg" || optimizer == "lbfgs" || optimizer == "bfgs" ? 5000 : 500;
}

Result<FitResult> runFit(Model& model, const FitSettings& asked, const FitProgress& progress) {
  FitSettings settings = asked;
  if (settings.optimizer.empty())
    settings.optimizer = model.residualRows() > 0 && model.rowLoss()->kind != LossKind::Mae ? "lm" : "lbfgs";
  if (settings.steps <= 0) settings.steps = defaultSteps(settings.optimizer);
  auto make = optimizerNamed(settings.optimizer);
  if (!make) return make.error();
  FitState state;
  if (settings.resume) {
    auto saved = readCheckpoint(settings.checkpoint, settings.fingerprint);
    if (!saved) return saved.error();
    state = std::move(*saved);
  }
  return catchErrors([&] {
    FitResult r = Driver(model, settings, *make, std::move(state), progress).run();
    // A name the program does not use keeps its start: a gradient method never moves it (its gradient is zero),
    // and a population method's wandering in it changed nothing (the loss does not depend on it).
    const Fitted& fitted = model.fitted();
    for (size_t k = 0; k < r.theta.size() && k < fitted.names.size(); ++k)
      if (fitted.isUnused(fitted.names[k])) r.theta[k] = fitted.start[k];
    if (settings.uncertainty && !r.theta.empty() && std::isfinite(r.loss))
      r.uncertainty = uncertaintyOf(model, r.theta);
    // A stated test that held where the data cannot identify some value (its Jacobian column is zero, or the
    // columns are dependent) held only on the others: the fit is not converged, and says which values and why.
    // A name the program does not use is unidentifiable by construction (the user was told it is unused; the note
    // says why its error is absent): it does not undo a stop that held on the values the program uses.
    std::vector<std::string> unidentified;
    if (r.uncertainty)
      for (const auto& n : r.uncertainty->unidentifiable)
        if (!fitted.isUnused(n)) unidentified.push_back(n);
    if (r.converged && !unidentified.empty()) {
      std::string names;
      for (const auto& n : unidentified) names += (names.empty() ? "" : ", ") + n;
      r.stopMessage = r.stop + " held (" + r.stopMessage + "), but the data cannot identify " + names +
                      " at this point (the Jacobian's rank is deficient): not converged";
      r.stop = "stalled", r.converged = false;
    }
    return r;
  });
}

}  // namespace dmci::fit
