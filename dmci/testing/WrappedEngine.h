// A test engine in one header: it runs the native engine behind the seam, counts its calls, and lets a test
// change what it returns (a planted fault). It shows what adding an engine takes: a class derived from Engine,
// one for its prepared runs, and a registration.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "driver/Engine.h"

namespace dmci::testing {

class WrappedEngine final : public Engine {
 public:
  // Called on each single run's result: the prepared parameter names, the values, the result.
  std::function<void(const std::vector<std::string>&, const std::vector<double>&, Result<Evaluation>&)> onRun;
  // Called on each batch's result.
  std::function<void(Result<LaneEvaluation>&)> onLanes;
  std::atomic<int> prepares{0}, runs{0}, laneRuns{0};

  std::string name() const override { return "wrapped"; }
  std::optional<std::string> unsupported(const EvalOptions& o) const override { return nativeEngine().unsupported(o); }
  Result<std::unique_ptr<PreparedRun>> prepare(const PreparedProgram& p, const EvalOptions& o) override {
    ++prepares;
    auto inner = nativeEngine().prepare(p, o);
    if (!inner) return inner.error();
    return std::unique_ptr<PreparedRun>(std::make_unique<Run>(*this, p.params, std::move(*inner)));
  }
  using Engine::prepare;

 private:
  struct Run final : PreparedRun {
    Run(WrappedEngine& e, std::vector<std::string> params, std::unique_ptr<PreparedRun> inner)
        : engine(e), params(std::move(params)), inner(std::move(inner)) {}
    Result<Evaluation> run(const std::vector<double>& values) override {
      ++engine.runs;
      auto r = inner->run(values);
      if (engine.onRun) engine.onRun(params, values, r);
      return r;
    }
    Result<LaneEvaluation> runLanes(const std::vector<std::vector<double>>& values, int64_t lanes) override {
      ++engine.laneRuns;
      auto r = inner->runLanes(values, lanes);
      if (engine.onLanes) engine.onLanes(r);
      return r;
    }
    WrappedEngine& engine;
    std::vector<std::string> params;
    std::unique_ptr<PreparedRun> inner;
  };
};

}  // namespace dmci::testing
