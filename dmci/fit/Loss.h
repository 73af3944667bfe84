// The losses of a data-mode fit: a row's residual r = prediction - target scored by mse (r²), mae (|r|) or
// huber (r²/2 within δ, δ(|r| - δ/2) beyond), each with its derivative in r; the fit's loss is their mean.
#pragma once
#include <optional>
#include <string>

namespace dmci::fit {

enum class LossKind { Mse, Mae, Huber };

struct Loss {
  LossKind kind = LossKind::Mse;
  double delta = 1;  // huber's threshold
  double value(double r) const;
  double derivative(double r) const;
  std::string name() const;
};

// "mse", "mae", "huber" or "huber:DELTA"; nullopt for anything else.
std::optional<Loss> parseLoss(const std::string& text);

}  // namespace dmci::fit
