// The optimizer registry: optimizers registered (linked in, or by a plugin already opened), and the plugins
// that provide the others.
#include "fit/Optimizer.h"

#include <limits>
#include <map>
#include <mutex>

#include "support/Plugin.h"

namespace dmci::fit {

namespace {

// Each optimizer and the plugin (`dmci-optimizer-NAME.so`) that provides it.
const std::pair<const char*, const char*> kPluginOptimizers[] = {
    {"lm", "ceres"},   {"dogleg", "ceres"},      {"lbfgs", "ceres"}, {"bfgs", "ceres"},
    {"adam", "torch"}, {"torch-lbfgs", "torch"}, {"de", "pagmo"},    {"cmaes", "pagmo"}};

struct Registry {
  std::mutex mu;
  std::map<std::string, OptimizerMaker> makers;
  std::map<std::string, std::string> pluginErrors;  // a plugin that failed to open: why
};

Registry& registry() {
  static Registry r;
  return r;
}

const char* pluginOf(const std::string& name) {
  for (const auto& [opt, plugin] : kPluginOptimizers)
    if (name == opt) return plugin;
  return nullptr;
}

}  // namespace

void Objective::residuals(const std::vector<double>&, double*, double*) {
  throw DmciError(ErrorKind::Usage, "this fit's loss is not a sum of squared residuals (no --data)");
}

std::pair<double, double> Objective::bounds(size_t) const {
  return {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
}

void Optimizer::solve(Objective&, const AfterIteration&) {
  throw DmciError(ErrorKind::Usage, "this optimizer runs by steps, not whole solves");
}

void registerOptimizer(const std::string& name, OptimizerMaker make) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.makers[name] = std::move(make);
}

Result<OptimizerMaker> optimizerNamed(const std::string& name) {
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mu);
  if (auto it = r.makers.find(name); it != r.makers.end()) return it->second;
  const char* plugin = pluginOf(name);
  if (!plugin) {
    std::string known;
    for (const auto& n : optimizerNames()) known += (known.empty() ? "" : ", ") + n;
    return Error{ErrorKind::Usage, "no optimizer called '" + name + "' (optimizers: " + known + ")", {}};
  }
  const std::string file = std::string("dmci-optimizer-") + plugin + ".so";
  if (auto it = r.pluginErrors.find(file); it != r.pluginErrors.end()) return Error{ErrorKind::Usage, it->second, {}};
  lock.unlock();  // the plugin's initialisers call registerOptimizer
  std::string why = openPlugin(file, "the " + name + " optimizer's plugin " + file + " is not installed");
  lock.lock();
  if (auto it = r.makers.find(name); it != r.makers.end()) return it->second;
  if (why.empty()) why = "the plugin " + file + " registered no optimizer '" + name + "'";
  r.pluginErrors[file] = why;
  return Error{ErrorKind::Usage, why, {}};
}

std::vector<std::string> optimizerNames() {
  std::vector<std::string> out;
  for (const auto& [opt, plugin] : kPluginOptimizers) out.push_back(opt);
  return out;
}

}  // namespace dmci::fit
