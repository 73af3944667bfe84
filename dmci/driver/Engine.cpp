// The engine seam: the checks every engine's evaluate makes, and the registry that finds engines by name,
// opening an engine's plugin the first time it is asked for.
#include "driver/Engine.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <thread>

#include "driver/Program.h"
#include "support/Plugin.h"

namespace dmci {

Result<std::unique_ptr<PreparedRun>> Engine::prepare(const Program& p, const std::vector<std::string>& params,
                                                     const EvalOptions& opts) {
  if (auto why = unsupported(opts)) return Error{ErrorKind::Usage, *why, {}};
  auto prepared = prepareProgram(p, params, opts);
  if (!prepared) return prepared.error();
  return prepare(*prepared, opts);
}

Result<Evaluation> Engine::evaluate(const Program& p, const std::vector<SeedValue>& seed, const EvalOptions& opts) {
  if (auto err = checkSeed(seed, opts.wrt)) return *err;
  std::vector<std::string> names;
  std::vector<double> values;
  for (const auto& s : seed) names.push_back(s.name), values.push_back(s.value);
  auto run = prepare(p, names, opts);
  if (!run) return run.error();
  return (*run)->run(values);
}

Result<LaneEvaluation> Engine::evaluateLanes(const Program& p, const LaneBatch& batch, const EvalOptions& opts) {
  if (auto err = checkLaneBatch(p, batch, opts.wrt)) return *err;
  auto run = prepare(p, batch.params, opts);
  if (!run) return run.error();
  return (*run)->runLanes(batch.values, batch.count);
}

std::optional<Error> PreparedRun::runLanesIn(LaneArrays& a) {
  if (a.lanes < 1 || !a.value) return Error{ErrorKind::Usage, "a batch needs one lane or more and its values", {}};
  const size_t lanes = static_cast<size_t>(a.lanes);
  columns_.resize(a.param.size());
  for (size_t k = 0; k < a.param.size(); ++k) {
    columns_[k].resize(lanes);
    for (size_t l = 0; l < lanes; ++l) columns_[k][l] = a.param[k][l * a.paramStride];
  }
  if (auto e = runLanesInto(columns_, a.lanes, batch_)) return e;
  if (!a.gradient.empty() && a.gradient.size() != batch_.gradient.size())
    return Error{ErrorKind::Usage, "the batch has " + std::to_string(batch_.gradient.size()) + " gradient entries", {}};
  std::copy(batch_.value.begin(), batch_.value.end(), a.value);
  for (size_t k = 0; k < a.gradient.size(); ++k)
    for (size_t l = 0; l < lanes; ++l) a.gradient[k][l * a.gradientStride] = batch_.gradient[k][l];
  a.isTensor = batch_.isTensor;
  a.counters = batch_.counters;
  return std::nullopt;
}

int laneThreads(const EvalOptions& opts) {
  static const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return opts.threads > 0 ? opts.threads : hardware;
}

namespace {

// Engines known by name: the ones registered (each engine's static initialiser in engines/, or a plugin already
// opened), and the plugins that may be opened. `order` is the one `engineNames` gives: by rank, then by arrival.
struct Registry {
  std::mutex mu;
  std::vector<std::pair<int, std::string>> order;
  std::map<std::string, std::function<std::unique_ptr<Engine>()>> makers;
  std::map<std::string, std::unique_ptr<Engine>> engines;
  std::vector<std::unique_ptr<Engine>> retired;     // made from a registration that was later replaced
  std::map<std::string, std::string> pluginErrors;  // a plugin that failed to open: why
};

Registry& registry() {
  static Registry r;
  return r;
}

// Engines that live in plugins (each `dmci-engine-NAME.so`): the core tool does not link their libraries.
const char* const kPluginEngines[] = {"tensor"};

// Opens NAME's plugin (its static initialisers register its engines); an empty string on success, else why not.
std::string openEnginePlugin(const std::string& name) {
  const std::string file = "dmci-engine-" + name + ".so";
  return openPlugin(file, "the " + name + " engine is not built into this dmci and its plugin " + file +
                              " is not installed (build with -DDMCI_TENSOR=ON)");
}

bool isPlugin(const std::string& name) {
  for (const char* p : kPluginEngines)
    if (name == p) return true;
  return false;
}

}  // namespace

void registerEngine(const std::string& name, std::function<std::unique_ptr<Engine>()> make, int rank) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.makers.count(name)) {
    auto at = std::find_if(r.order.begin(), r.order.end(), [&](const auto& e) { return e.first > rank; });
    r.order.insert(at, {rank, name});
  }
  r.makers[name] = std::move(make);
  // An engine made from the old registration may still be in use: it is kept, not destroyed.
  if (auto it = r.engines.find(name); it != r.engines.end()) {
    r.retired.push_back(std::move(it->second));
    r.engines.erase(it);
  }
}

Result<Engine*> engineNamed(const std::string& name) {
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mu);
  if (auto it = r.engines.find(name); it != r.engines.end()) return it->second.get();
  if (!r.makers.count(name)) {
    if (!isPlugin(name)) {
      std::string known;
      for (const auto& [rank, n] : r.order) known += (known.empty() ? "" : ", ") + n;
      for (const char* p : kPluginEngines)
        if (!r.makers.count(p)) known += (known.empty() ? "" : ", ") + std::string(p);
      return Error{ErrorKind::Usage, "no engine called '" + name + "' (engines: " + known + ")", {}};
    }
    if (auto it = r.pluginErrors.find(name); it != r.pluginErrors.end()) return Error{ErrorKind::Usage, it->second, {}};
    lock.unlock();  // the plugin's initialisers call registerEngine
    std::string why = openEnginePlugin(name);
    lock.lock();
    // Another thread may have opened the plugin and made the engine meanwhile.
    if (auto it = r.engines.find(name); it != r.engines.end()) return it->second.get();
    if (why.empty() && !r.makers.count(name))
      why = "the " + name + " engine's plugin registered no engine '" + name + "'";
    if (!why.empty()) {
      r.pluginErrors[name] = why;
      return Error{ErrorKind::Usage, why, {}};
    }
  }
  auto engine = r.makers[name]();
  Engine* out = engine.get();
  r.engines[name] = std::move(engine);
  return out;
}

Engine& nativeEngine() { return **engineNamed("native"); }

std::vector<std::string> engineNames() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [rank, n] : r.order) out.push_back(n);
  for (const char* p : kPluginEngines)
    if (!r.makers.count(p)) out.push_back(p);
  return out;
}

}  // namespace dmci
