// The gradient optimizers of `dmci fit`, from LibTorch's torch::optim: L-BFGS with its strong-Wolfe line search,
// and Adam (with optional gradient-norm clipping). The fit's loss is not a torch graph: each closure asks the
// Objective for the loss and the gradient (computed by a dmci engine) and hands the gradient to torch as the
// parameter's .grad. Built into the plugin dmci-optimizer-torch.so, so the core tool links no LibTorch.
#include <torch/torch.h>

#include <cmath>
#include <deque>
#include <sstream>
#include <type_traits>

#include "fit/Optimizer.h"
#include "fit/torch/TorchCompat.h"

namespace dmci::fit {

namespace {

torch::Tensor tensorOf(const std::vector<double>& x) { return torch::tensor(x, torch::dtype(torch::kFloat64)).clone(); }

std::vector<double> valuesOf(const torch::Tensor& t) {
  auto c = t.detach().contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

// L-BFGS's state, field by field: torch's own LBFGS::save cannot write the tensors that are still undefined early
// in a run (its H_diag, say), so each tensor goes with a flag.
void writeTensor(torch::serialize::OutputArchive& a, const std::string& key, const torch::Tensor& t) {
  a.write(key + ".defined", c10::IValue(t.defined()));
  if (t.defined()) a.write(key, t);
}

torch::Tensor readTensor(torch::serialize::InputArchive& a, const std::string& key) {
  c10::IValue defined;
  a.read(key + ".defined", defined);
  torch::Tensor t;
  if (defined.toBool()) a.read(key, t);
  return t;
}

void writeTensors(torch::serialize::OutputArchive& a, const std::string& key, const std::deque<torch::Tensor>& ts) {
  a.write(key + ".size", c10::IValue(static_cast<int64_t>(ts.size())));
  for (size_t k = 0; k < ts.size(); ++k) writeTensor(a, key + "." + std::to_string(k), ts[k]);
}

std::deque<torch::Tensor> readTensors(torch::serialize::InputArchive& a, const std::string& key) {
  c10::IValue size;
  a.read(key + ".size", size);
  std::deque<torch::Tensor> out;
  for (int64_t k = 0; k < size.toInt(); ++k) out.push_back(readTensor(a, key + "." + std::to_string(k)));
  return out;
}

void saveLbfgsState(const torch::optim::LBFGS& opt, const torch::Tensor& x, torch::serialize::OutputArchive& a) {
  auto it = opt.state().find(torchcompat::optimizerStateKey(opt, x));
  a.write("started", c10::IValue(it != opt.state().end()));
  if (it == opt.state().end()) return;
  const auto& s = static_cast<const torch::optim::LBFGSParamState&>(*it->second);
  a.write("func_evals", c10::IValue(s.func_evals()));
  a.write("n_iter", c10::IValue(s.n_iter()));
  a.write("t", c10::IValue(s.t()));
  a.write("prev_loss", c10::IValue(s.prev_loss()));
  writeTensor(a, "d", s.d());
  writeTensor(a, "H_diag", s.H_diag());
  writeTensor(a, "prev_flat_grad", s.prev_flat_grad());
  writeTensors(a, "old_dirs", s.old_dirs());
  writeTensors(a, "old_stps", s.old_stps());
  writeTensors(a, "ro", s.ro());
  auto al = s.al() ? std::deque<torch::Tensor>(s.al()->begin(), s.al()->end()) : std::deque<torch::Tensor>{};
  a.write("has_al", c10::IValue(s.al().has_value()));
  writeTensors(a, "al", al);
}

void loadLbfgsState(torch::optim::LBFGS& opt, const torch::Tensor& x, torch::serialize::InputArchive& a) {
  c10::IValue started, v;
  a.read("started", started);
  if (!started.toBool()) return;
  auto s = std::make_unique<torch::optim::LBFGSParamState>();
  a.read("func_evals", v), s->func_evals(v.toInt());
  a.read("n_iter", v), s->n_iter(v.toInt());
  a.read("t", v), s->t(v.toDouble());
  a.read("prev_loss", v), s->prev_loss(v.toDouble());
  s->d(readTensor(a, "d"));
  s->H_diag(readTensor(a, "H_diag"));
  s->prev_flat_grad(readTensor(a, "prev_flat_grad"));
  s->old_dirs(readTensors(a, "old_dirs"));
  s->old_stps(readTensors(a, "old_stps"));
  s->ro(readTensors(a, "ro"));
  auto al = readTensors(a, "al");
  a.read("has_al", v);
  if (v.toBool()) s->al(std::vector<torch::Tensor>(al.begin(), al.end()));
  opt.state()[torchcompat::optimizerStateKey(opt, x)] = std::move(s);
}

// Far above any loss a fit meets, yet small enough that the line search's cubic interpolation stays finite.
constexpr double kLineSearchWall = 1e30;

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
      if constexpr (std::is_same_v<TorchOptimizer, torch::optim::LBFGS>)
        if (!std::isfinite(loss)) {
          // A trial point of the line search where the loss is NaN or infinite (a step too long for the
          // program, e.g. an unstable filter): seen as a very high loss with zero slope, so that the strong-Wolfe
          // search brackets it and steps back. The iterate it returns is its best point, which is finite; the
          // driver still stops when an iterate's loss is not (it asks the objective itself).
          loss = kLineSearchWall, g.assign(g.size(), 0.0);
        }
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
    if constexpr (std::is_same_v<TorchOptimizer, torch::optim::LBFGS>)
      saveLbfgsState(opt_, x_, inner);
    else
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
    if constexpr (std::is_same_v<TorchOptimizer, torch::optim::LBFGS>)
      loadLbfgsState(opt_, x_, inner);
    else
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
