// Lists of names as the fit and the search check and quote them in messages ("free variables: a, b").
#pragma once
#include <algorithm>
#include <string>
#include <vector>

namespace dmci::fit {

inline bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// "a, b, c", or "none".
inline std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

}  // namespace dmci::fit
