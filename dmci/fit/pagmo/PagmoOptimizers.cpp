// The gradient-free baselines of `dmci fit`, from pagmo2: differential evolution (pagmo::de) and CMA-ES
// (pagmo::cmaes, with its memory kept between generations). One step is one generation. The search box is the
// start ± span·max(1, |start|) per coordinate; the first individual is the start, the others are drawn
// uniformly in the box from the seed. Built into the plugin dmci-optimizer-pagmo.so.
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <cmath>
#include <limits>
#include <pagmo/algorithms/cmaes.hpp>
#include <pagmo/algorithms/de.hpp>
#include <pagmo/population.hpp>
#include <pagmo/problem.hpp>
#include <pagmo/s11n.hpp>
#include <random>
#include <sstream>

#include "fit/Optimizer.h"

namespace dmci::fit {

namespace {

// The fit's loss as a pagmo problem. A non-finite loss is the worst fitness there is: that candidate loses.
struct LossProblem {
  Objective* f = nullptr;
  pagmo::vector_double lo, hi;
  pagmo::vector_double fitness(const pagmo::vector_double& x) const {
    double v = f->loss(x, nullptr);
    return {std::isfinite(v) ? v : std::numeric_limits<double>::max()};
  }
  std::pair<pagmo::vector_double, pagmo::vector_double> get_bounds() const { return {lo, hi}; }
};

template <class Algorithm>
class PagmoMethod : public Optimizer {
 public:
  PagmoMethod(const std::vector<double>& start, const OptimizerSettings& s, Algorithm algo, size_t size)
      : start_(start), settings_(s), algo_(std::move(algo)), size_(size) {
    for (double x : start) {
      double w = s.span * std::max(1.0, std::fabs(x));
      problem_.lo.push_back(x - w);
      problem_.hi.push_back(x + w);
    }
  }
  bool usesGradient() const override { return false; }
  std::vector<double> point() const override { return xs_.empty() ? start_ : xs_[best()]; }
  double pointLoss() const override { return fs_.empty() ? Optimizer::pointLoss() : fs_[best()]; }

  void step(Objective& f) override {
    problem_.f = &f;
    pagmo::population pop(problem_, 0u, static_cast<unsigned>(settings_.seed));
    if (xs_.empty()) {  // the first generation: the start and random individuals in the box
      std::mt19937_64 rng(settings_.seed);
      pop.push_back(start_);
      for (size_t k = 1; k < size_; ++k) {
        pagmo::vector_double x(start_.size());
        for (size_t d = 0; d < x.size(); ++d)
          x[d] = std::uniform_real_distribution<double>(problem_.lo[d], problem_.hi[d])(rng);
        pop.push_back(x);
      }
    } else {
      for (size_t k = 0; k < xs_.size(); ++k) pop.push_back(xs_[k], {fs_[k]});
    }
    pop = algo_.evolve(pop);
    xs_ = pop.get_x();
    fs_.clear();
    for (const auto& fit : pop.get_f()) fs_.push_back(fit[0]);
  }

  std::string save() const override {
    std::ostringstream out;
    {
      boost::archive::binary_oarchive ar(out);
      ar << algo_ << xs_ << fs_;
    }
    return out.str();
  }

  void load(const std::string& state) override {
    std::istringstream in(state);
    boost::archive::binary_iarchive ar(in);
    ar >> algo_ >> xs_ >> fs_;
  }

 private:
  std::vector<double> start_;
  OptimizerSettings settings_;
  Algorithm algo_;
  size_t size_;
  LossProblem problem_;
  std::vector<pagmo::vector_double> xs_;  // the population, after the last generation
  std::vector<double> fs_;                // and its losses

  size_t best() const { return static_cast<size_t>(std::min_element(fs_.begin(), fs_.end()) - fs_.begin()); }
};

std::unique_ptr<Optimizer> makeDe(const std::vector<double>& start, const OptimizerSettings& s) {
  size_t size = s.population > 0 ? static_cast<size_t>(s.population) : std::max<size_t>(10, 5 * start.size());
  // One generation per step; no tolerance stop (the driver decides when to stop).
  pagmo::de algo(1u, 0.8, 0.9, 2u, 0.0, 0.0, static_cast<unsigned>(s.seed));
  return std::make_unique<PagmoMethod<pagmo::de>>(start, s, algo, std::max<size_t>(size, 5));
}

std::unique_ptr<Optimizer> makeCmaes(const std::vector<double>& start, const OptimizerSettings& s) {
  size_t size = s.population > 0 ? static_cast<size_t>(s.population)
                                 : 4 + static_cast<size_t>(std::floor(3 * std::log(static_cast<double>(start.size()))));
  pagmo::cmaes algo(1u, -1, -1, -1, -1, 0.5, 0.0, 0.0, true, false, static_cast<unsigned>(s.seed));
  return std::make_unique<PagmoMethod<pagmo::cmaes>>(start, s, algo, std::max<size_t>(size, 5));
}

const OptimizerRegistration de("de", makeDe);
const OptimizerRegistration cmaes("cmaes", makeCmaes);

}  // namespace

}  // namespace dmci::fit
