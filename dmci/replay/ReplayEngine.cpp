// The replay engine behind the seam: the trace cache, lanes in blocks on all cores, native reruns off the path.
#include "replay/ReplayEngine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "driver/Program.h"
#include "replay/Replay.h"

namespace dmci {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxTraces = 16;

struct Tally {
  uint64_t replayed = 0, recorded = 0, interpreted = 0, offPath = 0;
};

class ReplayRun final : public PreparedRun {
 public:
  ReplayRun(const PreparedProgram& p, const EvalOptions& opts)
      : prepared_(p), opts_(opts), native_(p, recordingOptions(opts)) {}
  const Error* setupError() const { return native_.setupError(); }

  Result<Evaluation> run(const std::vector<double>& values) override {
    if (values.size() != static_cast<size_t>(paramCount()))
      return Error{ErrorKind::Usage, "expected " + std::to_string(paramCount()) + " parameter values", {}};
    Tally tally;
    Evaluation ev;
    if (!replayOne(values, ev)) {
      auto r = rerun(values, tally);
      if (!r) return r.error();
      if (!replayOne(values, ev)) {  // the path's trace is not replayable, or the cache is full: interpreted
        ++tally.interpreted;
        ev = std::move(*r);
        ev.counters = {};
        count(ev.counters, tally, 1);
        return ev;
      }
    }
    ++tally.replayed;
    count(ev.counters, tally, 1);
    return ev;
  }

  Result<LaneEvaluation> runLanes(const std::vector<std::vector<double>>& values, int64_t laneCount) override {
    if (values.size() != static_cast<size_t>(paramCount()))
      return Error{ErrorKind::Usage, "expected " + std::to_string(paramCount()) + " parameter values", {}};
    const size_t lanes = values.empty() ? static_cast<size_t>(std::max<int64_t>(1, laneCount)) : values[0].size();
    for (const auto& v : values)
      if (v.size() != lanes) return Error{ErrorKind::Usage, "every parameter needs one value per lane", {}};
    const auto t0 = Clock::now();
    Tally tally;
    if (traces_.empty() && notReplayable_ == 0) {  // lane 0 records the first path
      std::vector<double> seed0;
      for (const auto& v : values) seed0.push_back(v[0]);
      auto r = rerun(seed0, tally);
      if (!r) {
        Error e = r.error();
        e.message = "lane 0: " + e.message;
        return e;
      }
    }
    if (traces_.empty()) return interpretAll(values, laneCount, tally);
    LaneEvaluation out;
    out.value.assign(lanes, 0.0);
    std::vector<size_t> todo(lanes);
    for (size_t l = 0; l < lanes; ++l) todo[l] = l;
    std::vector<double> seed(values.size());
    bool shaped = false;
    int threadsUsed = 1;
    while (!todo.empty()) {
      // Every cached trace in turn takes the lanes still to do that stay on its path.
      for (size_t k = 0; k < traces_.size() && !todo.empty(); ++k) {
        if (!shaped) shape(out, lanes), shaped = true;
        threadsUsed = std::max(threadsUsed, replayLanes(*traces_[k], values, todo, out, tally));
      }
      if (todo.empty()) break;
      // The first lane left takes the native machine, which records its path while the cache has room.
      const size_t lane = todo.front();
      for (size_t p = 0; p < values.size(); ++p) seed[p] = values[p][lane];
      const size_t cached = traces_.size();
      auto r = rerun(seed, tally);
      if (!r) {
        Error e = r.error();
        e.message = "lane " + std::to_string(lane) + ": " + e.message;
        return e;
      }
      if (r->isData()) return notANumberOrTensor(r->written, native_.valuePos());
      if (r->isTensor) return Error{ErrorKind::Type, "the replay engine's lanes take numbers, not tensors", {}};
      if (traces_.size() > cached) continue;  // a new path: its trace takes this lane and those like it
      // No trace for this lane: interpreted. Lanes after it may still be on a cached path.
      if (!shaped) shape(out, lanes), shaped = true;
      ++tally.interpreted;
      out.value[lane] = r->value;
      for (size_t k = 0; k < r->gradient.size() && k < out.gradient.size(); ++k)
        out.gradient[k][lane] = r->gradient[k].second;
      todo.erase(todo.begin());
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    count(out.counters, tally, lanes);
    out.counters.add("threads", threadsUsed);
    out.counters.add("seconds", seconds);
    return out;
  }

 private:
  PreparedProgram prepared_;
  EvalOptions opts_;
  Evaluator native_;  // records traces, and interprets the lanes no trace takes
  std::vector<std::unique_ptr<replay::Replayer>> traces_;
  std::vector<std::string> gradientKeys_;
  replay::Workspace one_;
  size_t notReplayable_ = 0;  // paths recorded whose traces cannot be replayed

  static EvalOptions recordingOptions(EvalOptions o) {
    o.leafParameters = true;
    return o;
  }
  int32_t paramCount() const { return static_cast<int32_t>(native_.parameterCount()); }

  // No path replayable (a tensor program, say): the native engine's lanes, on all cores.
  Result<LaneEvaluation> interpretAll(const std::vector<std::vector<double>>& values, int64_t laneCount, Tally& tally) {
    if (!nativeLanes_) {
      auto run = nativeEngine().prepare(prepared_, opts_);
      if (!run) return run.error();
      nativeLanes_ = std::move(*run);
    }
    auto r = nativeLanes_->runLanes(values, laneCount);
    if (!r) return r;
    tally.interpreted = r->lanes();
    Counters native = r->counters;
    r->counters = {};
    count(r->counters, tally, r->lanes());
    for (const auto& [name, v] : native)
      if (std::string(name) == "threads" || std::string(name) == "seconds") r->counters.add(name, v);
    return r;
  }
  std::unique_ptr<PreparedRun> nativeLanes_;

  void shape(LaneEvaluation& out, size_t lanes) const {
    out.gradientKeys = gradientKeys_;
    out.gradient.assign(gradientKeys_.size(), std::vector<double>(lanes, 0.0));
  }

  // The native run of one seed, recording its path's trace while the cache has room.
  Result<Evaluation> rerun(const std::vector<double>& seed, Tally& tally) {
    if (traces_.size() >= kMaxTraces || notReplayable_ > 0) return native_.run(seed);
    replay::Trace t;
    auto r = native_.record(seed, t);
    if (!r) return r;
    ++tally.recorded;
    if (gradientKeys_.empty())
      for (const auto& [key, g] : r->gradient) gradientKeys_.push_back(key);
    if (!t.replayable()) {
      ++notReplayable_;
      notReplayableWhy_ = t.notReplayable;
      return r;
    }
    std::vector<std::vector<int32_t>> leaves;
    for (auto& [key, slots] : native_.gradientLeaves()) leaves.push_back(std::move(slots));
    traces_.push_back(std::make_unique<replay::Replayer>(std::move(t), std::move(leaves), opts_.gradient));
    return r;
  }
  std::string notReplayableWhy_;

  bool replayOne(const std::vector<double>& values, Evaluation& ev) {
    std::vector<double> grad;
    for (const auto& tr : traces_) {
      grad.assign(tr->gradientSize(), 0.0);
      double v;
      if (!tr->runOne(values.data(), v, grad.data(), one_)) continue;
      ev = Evaluation{};
      ev.value = v;
      if (opts_.gradient) {
        ev.gradient.reserve(grad.size());
        for (size_t k = 0; k < grad.size(); ++k) ev.gradient.emplace_back(gradientKeys_[k], grad[k]);
      }
      return true;
    }
    return false;
  }

  // Replays the lanes in `todo` on one trace, in blocks on all cores; `todo` keeps the lanes off its path.
  // Returns the threads used.
  int replayLanes(const replay::Replayer& tr, const std::vector<std::vector<double>>& values, std::vector<size_t>& todo,
                  LaneEvaluation& out, Tally& tally) {
    // Contiguous runs of lanes go by blocks; a sparse rest (lanes left by another path) by gathering them.
    std::vector<std::vector<double>> gathered;
    const std::vector<std::vector<double>>* src = &values;
    const bool contiguous = todo.back() - todo.front() + 1 == todo.size();
    if (!contiguous) {
      gathered.assign(values.size(), std::vector<double>(todo.size()));
      for (size_t p = 0; p < values.size(); ++p)
        for (size_t j = 0; j < todo.size(); ++j) gathered[p][j] = values[p][todo[j]];
      src = &gathered;
    }
    const size_t n = todo.size(), base = contiguous ? todo.front() : 0;
    std::vector<double> value(contiguous ? 0 : n);
    std::vector<std::vector<double>> grad(contiguous ? 0 : out.gradient.size(), std::vector<double>(n));
    std::vector<double>& vdst = contiguous ? out.value : value;
    std::vector<std::vector<double>>& gdst = contiguous ? out.gradient : grad;
    std::vector<uint8_t> ok(n, 0);
    const size_t blocks = (n + replay::kBlock - 1) / replay::kBlock;
    int threads =
        opts_.threads > 0 ? opts_.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), (blocks + 7) / 8));
    threads = std::max(threads, 1);
    std::atomic<size_t> next{0};
    auto work = [&](replay::Workspace& ws) {
      for (size_t b; (b = next.fetch_add(1)) < blocks;) {
        const size_t from = b * replay::kBlock;
        const int count = static_cast<int>(std::min<size_t>(replay::kBlock, n - from));
        tr.runBlock(*src, base + from, count, vdst, gdst, ok.data() + from, ws);
      }
    };
    if (threads == 1) {
      work(one_);
    } else {
      std::vector<std::thread> pool;
      std::vector<replay::Workspace> spaces(static_cast<size_t>(threads - 1));
      for (int t = 1; t < threads; ++t) pool.emplace_back([&, t] { work(spaces[static_cast<size_t>(t - 1)]); });
      work(one_);
      for (auto& th : pool) th.join();
    }
    std::vector<size_t> left;
    for (size_t j = 0; j < n; ++j) {
      if (!ok[j]) {
        left.push_back(todo[j]);
        continue;
      }
      ++tally.replayed;
      if (contiguous) continue;
      out.value[todo[j]] = value[j];
      for (size_t k = 0; k < grad.size(); ++k) out.gradient[k][todo[j]] = grad[k][j];
    }
    tally.offPath += left.size();
    todo.swap(left);
    return threads;
  }

  void count(Counters& c, const Tally& t, size_t lanes) const {
    size_t ops = 0, guards = 0;
    for (const auto& tr : traces_) ops += tr->trace().ops.size(), guards += tr->trace().guards.size();
    c.add("traces", static_cast<double>(traces_.size()));
    c.add("trace_ops", static_cast<double>(ops));
    c.add("guards", static_cast<double>(guards));
    c.add("lanes", static_cast<double>(lanes));
    c.add("replayed", static_cast<double>(t.replayed));
    c.add("recorded", static_cast<double>(t.recorded));
    c.add("off_path", static_cast<double>(t.offPath));
    c.add("interpreted", static_cast<double>(t.interpreted));
    c.add("not_replayable", static_cast<double>(notReplayable_));
  }
};

class ReplayEngine final : public Engine {
 public:
  std::string name() const override { return "replay"; }
  std::optional<std::string> unsupported(const EvalOptions& opts) const override {
    if (opts.tensor.device != "cpu")
      return "--device " + opts.tensor.device + ": the replay engine runs on the CPU; use --engine tensor";
    if (opts.tensor.float32) return "--float32: the replay engine computes in double; use --engine tensor";
    return std::nullopt;
  }
  Result<std::unique_ptr<PreparedRun>> prepare(const PreparedProgram& p, const EvalOptions& opts) override {
    return preparedOrError(std::make_unique<ReplayRun>(p, opts));
  }
  using Engine::prepare;
};

}  // namespace

std::unique_ptr<Engine> makeReplayEngine() { return std::make_unique<ReplayEngine>(); }

}  // namespace dmci
