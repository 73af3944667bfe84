// Numbers in the tool's JSON output (dmci run/grad --json, the gate's and the campaign's reports).
//
// JSON has no infinities or NaN, and nlohmann writes them as null, which reads as "no value". A non-finite
// number is written instead as the string "inf", "-inf" or "nan": what strtod and Python's float() read back.
#pragma once
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

namespace dmci {

inline nlohmann::ordered_json jsonNumber(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

inline nlohmann::ordered_json jsonNumbers(const std::vector<double>& xs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (double x : xs) out.push_back(jsonNumber(x));
  return out;
}

}  // namespace dmci
