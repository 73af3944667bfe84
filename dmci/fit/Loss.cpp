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
    case LossKind::SoftL1:
      return delta * delta * (std::sqrt(1 + r * r / (delta * delta)) - 1);
    case LossKind::Cauchy:
      return 0.5 * delta * delta * std::log1p(r * r / (delta * delta));
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
    case LossKind::SoftL1:
      return r / std::sqrt(1 + r * r / (delta * delta));
    case LossKind::Cauchy:
      return r / (1 + r * r / (delta * delta));
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
    case LossKind::SoftL1:
      return "softl1";
    case LossKind::Cauchy:
      return "cauchy";
  }
  return "?";
}

std::optional<Loss> parseLoss(const std::string& text) {
  if (text == "mse") return Loss{LossKind::Mse};
  if (text == "mae") return Loss{LossKind::Mae};
  for (auto [name, kind] : {std::pair{"huber", LossKind::Huber}, std::pair{"softl1", LossKind::SoftL1},
                            std::pair{"cauchy", LossKind::Cauchy}}) {
    const std::string n = name;
    if (text == n) return Loss{kind};
    if (text.rfind(n + ":", 0) != 0) continue;
    char* end = nullptr;
    double d = std::strtod(text.c_str() + n.size() + 1, &end);
    if (*end == '\0' && d > 0 && std::isfinite(d)) return Loss{kind, d};
  }
  return std::nullopt;
}

}  // namespace dmci::fit
