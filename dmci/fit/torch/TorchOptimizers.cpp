// The gradient optimizers of `dmci fit`, from LibTorch's torch::optim: L-BFGS with its strong-Wolfe line search,
// and Adam (with optional gradient-norm clipping). The fit's loss is not a torch graph: each closure asks the
// Objective for the loss and the gradient (computed by a dmci engine) and hands the gradient to torch as the
// parameter's .grad. Built into the plugin dmci-optimizer-torch.so, so the core tool links no LibTorch.
#include <torch/torch.h>

#include <sstream>

#include "fit/Optimizer.h"

namespace dmci::fit {

namespace {

torch::Tensor tensorOf(const std::vector<double>& x) { return torch::tensor(x, torch::dtype(torch::kFloat64)).clone(); }

std::vector<double> valuesOf(const torch::Tensor& t) {
  auto c = t.detach().contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

// The state of one of the two: the parameter tensor and its torch optimizer, saved together.
template <class TorchOptimizer, class Options>
class TorchMethod : public Optimizer {
 public:
  TorchMethod(const std::vector<double>& start, const OptimizerSettings& s, const Options& opts)
      : settings_(s), x_(tensorOf(start).requires_grad_(true)), opt_({x_}, opts) {}
  bool usesGradient() const override { return true; }
  std::vector<double> point() const override { return valuesOf(x_); }

  void step(Objective& f) override {
    auto closure = [&]() -> torch::Tensor {
      std::vector<double> g;
      double loss = f.loss(valuesOf(x_), &g);
      torch::NoGradGuard guard;
      x_.mutable_grad() = tensorOf(g);
      if (settings_.clip > 0) torch::nn::utils::clip_grad_norm_(std::vector<torch::Tensor>{x_}, settings_.clip);
      return torch::tensor(loss, torch::dtype(torch::kFloat64));
    };
    opt_.step(closure);
  }

  std::string save() const override {
    torch::serialize::OutputArchive archive, inner;
    archive.write("x", x_.detach());
    opt_.save(inner);
    archive.write("optimizer", inner);
    std::ostringstream out;
    archive.save_to(out);
    return out.str();
  }

  void load(const std::string& state) override {
    std::istringstream in(state);
    torch::serialize::InputArchive archive, inner;
    archive.load_from(in);
    torch::Tensor x;
    archive.read("x", x);
    {
      torch::NoGradGuard guard;
      x_.copy_(x);
    }
    archive.read("optimizer", inner);
    opt_.load(inner);
  }

 private:
  OptimizerSettings settings_;
  torch::Tensor x_;
  TorchOptimizer opt_;
};

std::unique_ptr<Optimizer> makeLbfgs(const std::vector<double>& start, const OptimizerSettings& s) {
  // One iteration per step (the driver checkpoints between them); the tolerances are the driver's, not torch's.
  auto opts = torch::optim::LBFGSOptions(s.lr)
                  .max_iter(1)
                  .max_eval(25)
                  .tolerance_grad(0)
                  .tolerance_change(0)
                  .history_size(s.history)
                  .line_search_fn("strong_wolfe");
  return std::make_unique<TorchMethod<torch::optim::LBFGS, torch::optim::LBFGSOptions>>(start, s, opts);
}

std::unique_ptr<Optimizer> makeAdam(const std::vector<double>& start, const OptimizerSettings& s) {
  return std::make_unique<TorchMethod<torch::optim::Adam, torch::optim::AdamOptions>>(start, s,
                                                                                      torch::optim::AdamOptions(s.lr));
}

const OptimizerRegistration lbfgs("lbfgs", makeLbfgs);
const OptimizerRegistration adam("adam", makeAdam);

}  // namespace

}  // namespace dmci::fit
