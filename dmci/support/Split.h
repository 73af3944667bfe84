// A comma-separated option value (--wrt a,b) as its items, empty items dropped: one parser for every subcommand.
#pragma once
#include <sstream>
#include <string>
#include <vector>

namespace dmci::cli {

inline std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace dmci::cli
