// The losses of a data-mode fit: a row's residual r = prediction - target scored by mse (r²), mae (|r|), or a
// robust loss with scale δ, each ½ρ(r²) for Ceres Solver's ρ of the same name: huber (r²/2 within δ,
// δ(|r| - δ/2) beyond), softl1 (δ²(√(1 + r²/δ²) - 1)) and cauchy (δ²/2·log(1 + r²/δ²)); each with its derivative
// in r. The fit's loss is their mean.
#pragma once
#include <optional>
#include <string>

namespace dmci::fit {

enum class LossKind { Mse, Mae, Huber, SoftL1, Cauchy };

struct Loss {
  LossKind kind = LossKind::Mse;
  double delta = 1;  // the robust losses' scale
  double value(double r) const;
  double derivative(double r) const;
  std::string name() const;
};

// "mse", "mae", or "huber", "softl1", "cauchy" with an optional ":DELTA"; nullopt for anything else.
std::optional<Loss> parseLoss(const std::string& text);

}  // namespace dmci::fit
