// Parameter transforms: a constrained parameter θ is optimised as an unconstrained coordinate u, θ = T(u).
//   positive  θ = exp(u)                       (θ > 0)
//   unit      θ = 1 / (1 + exp(-u))            (0 < θ < 1)
//   [lo,hi]   θ = lo + (hi - lo) / (1 + exp(-u)) (lo < θ < hi)
//   free      θ = u
// The optimizer sees u; the engine's gradient in θ is carried to u by T'(u).
#pragma once
#include <map>
#include <string>

#include "syntax/Error.h"

namespace dmci::fit {

struct Transform {
  enum Kind { Free, Positive, Unit, Interval } kind = Free;
  double lo = 0, hi = 1;
  double toParam(double u) const;     // θ = T(u)
  double toFree(double theta) const;  // u = T⁻¹(θ); θ must lie inside the range
  double slope(double u) const;       // T'(u)
  bool contains(double theta) const;  // θ lies strictly inside the range
  std::string text() const;           // as --transform writes it
};

// --transform a=positive,b=unit,c=[lo,hi]: the transform of each name. Usage errors name the bad item.
Result<std::map<std::string, Transform>> parseTransforms(const std::string& text);

}  // namespace dmci::fit
