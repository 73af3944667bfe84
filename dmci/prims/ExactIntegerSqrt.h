// R7RS exact-integer-sqrt on the subset's numbers: the integer square root and remainder of an integral double,
// computed exactly (a multiprecision integer: the double is exact, 2^140 included) and rounded to double once.
// Shared by the native row (prims/Numbers.cpp) and the oracle's (oracle/TextPrims.cpp).
#pragma once
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <string>
#include <utility>

#include "syntax/Datum.h"
#include "syntax/Error.h"

namespace dmci {

// (s, r) with s*s + r = n and s the largest such; n must be a finite non-negative integer.
inline std::pair<double, double> exactIntegerSqrt(double n) {
  if (!std::isfinite(n) || n < 0 || std::floor(n) != n)
    throw DmciError(ErrorKind::Domain, "exact-integer-sqrt: expects a non-negative integer, got " + formatNumber(n));
  boost::multiprecision::cpp_int big(n);
  boost::multiprecision::cpp_int s = boost::multiprecision::sqrt(big);
  boost::multiprecision::cpp_int r = big - s * s;
  return {s.convert_to<double>(), r.convert_to<double>()};
}

}  // namespace dmci
