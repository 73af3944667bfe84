// Lanes from command-line bindings: NAME=NUMBER in every lane, or NAME=linspace(a,b,B).
#include <cstdlib>
#include <string>

#include "engine/tensor/TensorEngine.h"

namespace dmci {
namespace {

[[noreturn]] void usage(const std::string& msg) { throw DmciError(ErrorKind::Usage, msg); }

double number(const std::string& text, const std::string& what) {
  char* end = nullptr;
  double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') usage(what + ": '" + text + "' is not a number");
  return x;
}

// The lanes one binding gives: one value, or linspace(a,b,B)'s B values.
std::vector<double> laneValues(const std::string& name, const std::string& v) {
  const std::string open = "linspace(";
  if (v.rfind(open, 0) != 0) return {number(v, "--bind " + name)};
  if (v.back() != ')') usage("--bind " + name + ": expected linspace(a,b,B), got '" + v + "'");
  std::string inner = v.substr(open.size(), v.size() - open.size() - 1);
  size_t c1 = inner.find(','), c2 = c1 == std::string::npos ? c1 : inner.find(',', c1 + 1);
  if (c2 == std::string::npos) usage("--bind " + name + ": expected linspace(a,b,B), got '" + v + "'");
  double a = number(inner.substr(0, c1), "--bind " + name);
  double b = number(inner.substr(c1 + 1, c2 - c1 - 1), "--bind " + name);
  double count = number(inner.substr(c2 + 1), "--bind " + name);
  if (count < 1 || count != static_cast<double>(static_cast<int64_t>(count)) || count > 1e9)
    usage("--bind " + name + ": the lane count of linspace must be a positive integer");
  std::vector<double> out(static_cast<size_t>(count));
  for (size_t k = 0; k < out.size(); ++k)
    out[k] = out.size() == 1 ? a : a + (b - a) * static_cast<double>(k) / static_cast<double>(out.size() - 1);
  return out;
}

}  // namespace

Result<LaneBatch> parseLaneBindings(const std::vector<std::string>& binds) {
  return catchErrors([&] {
    LaneBatch batch;
    size_t lanes = 1;
    for (const auto& b : binds) {
      auto eq = b.find('=');
      if (eq == std::string::npos || eq == 0) usage("--bind expects NAME=NUMBER or NAME=linspace(a,b,B), got '" + b + "'");
      batch.params.push_back(b.substr(0, eq));
      batch.values.push_back(laneValues(batch.params.back(), b.substr(eq + 1)));
      size_t n = batch.values.back().size();
      if (n > 1 && lanes > 1 && n != lanes) usage("--bind " + batch.params.back() + ": lane counts differ");
      if (n > 1) lanes = n;
    }
    for (auto& v : batch.values)
      if (v.size() == 1 && lanes > 1) v.assign(lanes, v[0]);
    batch.count = static_cast<int64_t>(lanes);
    return batch;
  });
}

}  // namespace dmci
