// The losses and their derivatives, side by side.
#include "fit/Loss.h"

#include <cmath>
#include <cstdlib>

namespace dmci::fit {

double Loss::value(double r) const {
  switch (kind) {
    case LossKind::Mse:
      return r * r;
    case LossKind::Mae:
      return std::fabs(r);
    case LossKind::Huber:
      return std::fabs(r) <= delta ? 0.5 * r * r : delta * (std::fabs(r) - 0.5 * delta);
  }
  return NAN;
}

double Loss::derivative(double r) const {
  switch (kind) {
    case LossKind::Mse:
      return 2 * r;
    case LossKind::Mae:
      return r > 0 ? 1 : r < 0 ? -1 : 0;
    case LossKind::Huber:
      return std::fabs(r) <= delta ? r : (r > 0 ? delta : -delta);
  }
  return NAN;
}

std::string Loss::name() const {
  switch (kind) {
    case LossKind::Mse:
      return "mse";
    case LossKind::Mae:
      return "mae";
    case LossKind::Huber:
      return "huber";
  }
  return "?";
}

std::optional<Loss> parseLoss(const std::string& text) {
  if (text == "mse") return Loss{LossKind::Mse};
  if (text == "mae") return Loss{LossKind::Mae};
  if (text == "huber") return Loss{LossKind::Huber};
  if (text.rfind("huber:", 0) == 0) {
    char* end = nullptr;
    double d = std::strtod(text.c_str() + 6, &end);
    if (*end == '\0' && d > 0 && std::isfinite(d)) return Loss{LossKind::Huber, d};
  }
  return std::nullopt;
}

}  // namespace dmci::fit
