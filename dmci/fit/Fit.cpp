// The fit driver: restarts, iterations, stopping rules, budgets and checkpoints around one optimizer.
#include "fit/Fit.h"

#include <chrono>
#include <cmath>
#include <deque>
#include <random>

#include "driver/AtomicFile.h"

namespace dmci::fit {

namespace {

// The model's loss in the optimizer's coordinates u (θ = T(u) per coordinate), counted, with the last few
// evaluations remembered: an optimizer that asks again for a point it has just evaluated gets it at no cost.
class Coordinates : public Objective {
 public:
  Coordinates(Model& m, uint64_t& evaluations) : model_(m), evaluations_(evaluations) {}
  size_t dimension() const override { return model_.fitted().transforms.size(); }

  std::vector<double> theta(const std::vector<double>& u) const {
    std::vector<double> th(u.size());
    for (size_t j = 0; j < u.size(); ++j) th[j] = model_.fitted().transforms[j].toParam(u[j]);
    return th;
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
    for (size_t j = 0; j < r.grad.size(); ++j) r.grad[j] *= model_.fitted().transforms[j].slope(u[j]);
    if (grad) *grad = r.grad;
    cache_.push_front(std::move(r));
    if (cache_.size() > 8) cache_.pop_back();
    return cache_.front().loss;
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
  std::deque<Remembered> cache_;
};

class Driver {
 public:
  Driver(Model& m, const FitSettings& s, OptimizerMaker make, FitState st, const FitProgress& progress)
      : model_(m),
        s_(s),
        make_(std::move(make)),
        st_(std::move(st)),
        progress_(progress),
        f_(m, st_.evaluations),
        began_(std::chrono::steady_clock::now()),
        secondsBefore_(st_.seconds) {}

  FitResult run() {
    bool resumed = !st_.optimizer.empty();
    for (; st_.restart <= s_.restarts && stop_.empty(); ++st_.restart) {
      auto opt = make_(startOf(st_.restart), settingsOf(st_.restart));
      if (resumed) opt->load(st_.optimizer);
      resumed = false;
      if (st_.iteration == 0 && !st_.current.found) keepStart(*opt);
      while (!st_.restartDone && st_.iteration < s_.steps && stop_.empty()) iterate(*opt);
      if (!stop_.empty() && !st_.current.found) break;
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
  std::string stop_;  // why the whole fit stopped early
  bool nonFinite_ = false;
  double lastCheckpoint_ = -INFINITY;
  double traceKey_ = INFINITY;    // the best held-out loss (or loss) traced so far
  std::vector<BestPoint> bests_;  // traceBests: the new bests, in order

  double seconds() const {
    return secondsBefore_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
  }

  // Restart r's start: the given values, or jittered ones from the seed.
  std::vector<double> startOf(int r) const {
    const Fitted& fit = model_.fitted();
    std::vector<double> u(fit.start.size());
    for (size_t j = 0; j < u.size(); ++j) u[j] = fit.transforms[j].toFree(fit.start[j]);
    if (r == 0) return u;
    std::mt19937_64 rng(s_.seed * 1000003u + static_cast<uint64_t>(r));
    std::normal_distribution<double> normal;
    for (double& x : u) x += s_.jitter * std::max(1.0, std::fabs(x)) * normal(rng);
    return u;
  }

  OptimizerSettings settingsOf(int r) const {
    OptimizerSettings o = s_.method;
    o.seed = s_.seed + static_cast<uint64_t>(r);
    return o;
  }

  void iterate(Optimizer& opt) {
    if (s_.budgetEvals && st_.evaluations >= s_.budgetEvals) {
      stop_ = "the evaluation budget (" + std::to_string(s_.budgetEvals) + ") is spent";
      return;
    }
    if (s_.budgetSeconds > 0 && seconds() >= s_.budgetSeconds) {
      stop_ = "the time budget is spent";
      return;
    }
    opt.step(f_);
    ++st_.iteration, ++st_.iterations;
    std::vector<double> u = opt.point(), grad;
    double loss = opt.usesGradient() ? f_.loss(u, &grad) : opt.pointLoss();
    if (std::isnan(loss)) loss = f_.loss(u, nullptr);
    if (!std::isfinite(loss)) {
      nonFinite_ = true;
      stop_ = "the loss became " + std::string(std::isnan(loss) ? "NaN" : "infinite") + " at iteration " +
              std::to_string(st_.iterations) + "; the best parameters found before it are kept";
      return;
    }
    std::optional<double> holdout = model_.holdoutLoss(f_.theta(u));
    keepBest(u, loss, holdout);
    checkConvergence(u, grad, opt.usesGradient());
    st_.previous = u;
    CurvePoint p{st_.restart, st_.iteration, st_.evaluations, seconds(), loss, bestLoss(), holdout};
    st_.curve.push_back(p);
    traceBest(p, u);
    bool due = seconds() - lastCheckpoint_ >= s_.checkpointSeconds || st_.restartDone || st_.iteration == s_.steps;
    if (!s_.checkpoint.empty() && due) checkpoint(opt);
    if (progress_) progress_(p);
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
    if (holdout && st_.stale >= s_.patience) st_.restartDone = true;  // early stopping
  }

  void checkConvergence(const std::vector<double>& u, const std::vector<double>& grad, bool gradientMethod) {
    double gmax = 0;
    for (double g : grad) gmax = std::max(gmax, std::fabs(g));
    st_.unchanged = u == st_.previous ? st_.unchanged + 1 : 0;
    bool converged = st_.current.loss == 0 || (gradientMethod && (gmax <= s_.gtol || st_.unchanged >= 3));
    if (converged) st_.current.converged = true, st_.restartDone = true;
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
    r.stop = !stop_.empty() ? stop_ : r.converged ? "converged" : "the step limit was reached";
    r.curve = st_.curve;
    r.bests = std::move(bests_);
    return r;
  }
};

}  // namespace

Result<FitResult> runFit(Model& model, const FitSettings& settings, const FitProgress& progress) {
  auto make = optimizerNamed(settings.optimizer);
  if (!make) return make.error();
  FitState state;
  if (settings.resume) {
    auto saved = readCheckpoint(settings.checkpoint, settings.fingerprint);
    if (!saved) return saved.error();
    state = std::move(*saved);
  }
  return catchErrors([&] { return Driver(model, settings, *make, std::move(state), progress).run(); });
}

}  // namespace dmci::fit
