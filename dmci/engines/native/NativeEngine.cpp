// The native engine behind the seam: one seed on an Evaluator (the register machine with its tape), and lanes in
// parallel, one Evaluator per thread, lanes handed out in chunks from a shared counter, so that a thread slowed
// by the machine (or by dearer lanes) takes fewer chunks instead of holding up the rest.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "prims/FaultDecision.h"
#include "prims/Faults.h"

namespace dmci {
namespace {

using Clock = std::chrono::steady_clock;

// What the threads share: the next chunk to take, and the first failing lane so far.
struct Work {
  size_t lanes = 0, chunk = 1;
  std::atomic<size_t> next{0};
  std::atomic<size_t> stopAt{SIZE_MAX};  // no lane at or past the first failure needs running
  std::mutex mu;
  std::optional<Error> error;
  size_t errorLane = SIZE_MAX;

  void fail(size_t lane, const Error& e) {
    std::lock_guard<std::mutex> g(mu);
    if (lane >= errorLane) return;
    errorLane = lane, error = e;
    stopAt.store(lane);  // only ever lowered, and only here, under the lock
  }
};

// Why a lane's value cannot stand in the batch lane 0 shaped: a list or other datum, or a number where lane 0
// gave a tensor (or the reverse, or a tensor of another shape); nullopt when it fits.
std::optional<Error> misfit(const Evaluation& r, const LaneEvaluation& out, SrcPos pos) {
  if (r.isData()) return notANumberOrTensor(r.written, pos);
  std::string mine = valueShape(r.isTensor, r.rank, r.rows, r.cols);
  std::string first = valueShape(out.isTensor, out.rank, out.rows, out.cols);
  if (mine == first) return std::nullopt;
  return laneShapeDiffers(mine, first, pos);
}

// One thread's chunks on its own Evaluator, until none is left. A tensor value's entries go to out.tensor (its
// value is their sum, as a single run's).
void runChunks(Evaluator& ev, const std::vector<std::vector<double>>& values, Work& w, LaneEvaluation& out,
               SrcPos pos) {
  std::vector<double> seed(values.size());
  for (;;) {
    size_t from = w.next.fetch_add(w.chunk);
    if (from >= w.lanes || from >= w.stopAt.load(std::memory_order_relaxed)) break;
    size_t to = std::min(from + w.chunk, w.lanes);
    for (size_t lane = from; lane < to; ++lane) {
      for (size_t k = 0; k < seed.size(); ++k) seed[k] = values[k][lane];
      auto r = ev.run(seed);
      if (!r) {
        w.fail(lane, r.error());
        break;
      }
      if (auto bad = misfit(*r, out, pos)) {
        w.fail(lane, *bad);
        break;
      }
      out.value[lane] = r->value;
      if (out.isTensor) std::copy(r->tensor.begin(), r->tensor.end(), out.tensor.begin() + lane * r->tensor.size());
      for (size_t k = 0; k < r->gradient.size() && k < out.gradient.size(); ++k)
        out.gradient[k][lane] = r->gradient[k].second;
    }
  }
}

class NativeRun final : public PreparedRun {
 public:
  NativeRun(const PreparedProgram& p, const EvalOptions& opts)
      : prepared_(p), opts_(opts), planted_(adjointFaultPlanted()), first_(p, opts) {}
  const Error* setupError() const { return first_.setupError(); }

  Result<Evaluation> run(const std::vector<double>& values) override { return first_.run(values); }

  Result<LaneEvaluation> runLanes(const std::vector<std::vector<double>>& values, int64_t laneCount) override {
    if (values.size() != prepared_.params.size())
      return Error{ErrorKind::Usage, "expected " + std::to_string(prepared_.params.size()) + " parameter values", {}};
    size_t lanes = values.empty() ? static_cast<size_t>(std::max<int64_t>(1, laneCount)) : values[0].size();
    for (const auto& v : values)
      if (v.size() != lanes) return Error{ErrorKind::Usage, "every parameter needs one value per lane", {}};
    LaneEvaluation out;
    // Lane 0 first, alone: it names the gradient's keys and reports a set-up error once.
    std::vector<double> seed0;
    for (const auto& v : values) seed0.push_back(v[0]);
    auto first = first_.run(seed0);
    if (!first) return first.error();
    // A lane's value goes into a vector of numbers: any other value is an error here even when a single run
    // would print it.
    if (first->isData()) return notANumberOrTensor(first->written, prepared_.valuePos);
    if (first->isTensor) {
      out.isTensor = true, out.rank = first->rank, out.rows = first->rows, out.cols = first->cols;
      out.tensor.assign(lanes * first->tensor.size(), 0.0);
    }
    for (const auto& [key, g] : first->gradient) out.gradientKeys.push_back(key);
    out.value.assign(lanes, 0.0);
    out.gradient.assign(out.gradientKeys.size(), std::vector<double>(lanes, 0.0));
    int n = laneThreads(opts_);
    n = static_cast<int>(std::min<size_t>(static_cast<size_t>(n), lanes));
    Work w;
    w.lanes = lanes;
    // Chunks small enough to balance (about 32 per thread), large enough that threads rarely meet at the
    // counter and write different cache lines.
    w.chunk = std::clamp<size_t>(lanes / (static_cast<size_t>(n) * 32), 16, 4096);
    std::vector<double> busy(static_cast<size_t>(n), 0.0);
    auto t0 = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 1; t < n; ++t)
      pool.emplace_back([&, t] {
        auto t1 = Clock::now();
        FaultDecision prepared(planted_);  // this thread's machine follows first_'s, built at prepare
        Evaluator ev(prepared_, opts_);
        if (ev.setupError())
          w.fail(0, *ev.setupError());
        else
          runChunks(ev, values, w, out, prepared_.valuePos);
        busy[static_cast<size_t>(t)] = std::chrono::duration<double>(Clock::now() - t1).count();
      });
    runChunks(first_, values, w, out, prepared_.valuePos);
    busy[0] = std::chrono::duration<double>(Clock::now() - t0).count();
    for (auto& th : pool) th.join();
    double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (w.error) {
      Error e = *w.error;
      e.message = "lane " + std::to_string(w.errorLane) + ": " + e.message;
      return e;
    }
    double busySum = 0;
    for (double b : busy) busySum += b;
    out.counters.add("steps", static_cast<double>(first->stats.steps * lanes));
    out.counters.add("threads", n);
    out.counters.add("seconds", seconds);
    // utilisation: time busy over threads x wall time
    out.counters.add("utilisation", busySum / (n * std::max(seconds, 1e-12)));
    return out;
  }

 private:
  PreparedProgram prepared_;
  EvalOptions opts_;
  bool planted_;     // whether a fault was planted at prepare (prims/Faults.h): every thread's machine follows it
  Evaluator first_;  // runs single seeds, lane 0, and the first thread's chunks
};

class NativeEngine final : public Engine {
 public:
  std::string name() const override { return "native"; }
  std::optional<std::string> unsupported(const EvalOptions& opts) const override {
    if (opts.tensor.device != "cpu")
      return "--device " + opts.tensor.device + ": the native engine runs on the CPU; use --engine tensor";
    if (opts.tensor.float32) return "--float32: the native engine computes in double; use --engine tensor";
    return std::nullopt;
  }
  Result<std::unique_ptr<PreparedRun>> prepare(const PreparedProgram& p, const EvalOptions& opts) override {
    return preparedOrError(std::make_unique<NativeRun>(p, opts));
  }
  using Engine::prepare;
};

}  // namespace

// First in the registry's order: every other engine is checked against this one.
const EngineRegistration kRegistration(
    "native", [] { return std::make_unique<NativeEngine>(); }, 0);

// Asked for by name at link time (CMake's DMCI_ENGINE_ANCHORS), so that a program linking the core as a static
// library keeps this object and its registration.
extern "C" const int dmci_engine_native = 0;

}  // namespace dmci
