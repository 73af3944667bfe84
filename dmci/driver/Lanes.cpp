// Native lanes in parallel: one Evaluator per thread, and lanes handed out in chunks from a shared counter, so
// a thread slowed by the machine (or by dearer lanes) takes fewer chunks instead of holding up the rest.
#include "driver/Lanes.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

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

// One thread: its own Evaluator, then chunks until none is left. Returns the seconds it was busy.
double runThread(const Program& p, const std::vector<std::string>& params, const std::vector<std::vector<double>>& values,
                 const EvalOptions& opts, Work& w, LaneResults& out) {
  auto t0 = Clock::now();
  Evaluator ev(p, params, opts);
  if (ev.setupError()) {
    w.fail(0, *ev.setupError());
    return 0;
  }
  std::vector<double> seed(params.size());
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
      out.value[lane] = r->value;
      for (size_t k = 0; k < r->gradient.size() && k < out.gradient.size(); ++k) out.gradient[k][lane] = r->gradient[k].second;
    }
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

Result<LaneResults> evaluateLanes(const Program& p, const std::vector<std::string>& params,
                                  const std::vector<std::vector<double>>& values, const EvalOptions& opts,
                                  int threads, size_t laneCount) {
  size_t lanes = values.empty() ? std::max<size_t>(1, laneCount) : values[0].size();
  for (const auto& v : values)
    if (v.size() != lanes) return Error{ErrorKind::Usage, "every parameter needs one value per lane", {}};
  LaneResults out;
  // Lane 0 first, alone: it names the gradient's keys and reports a set-up error once.
  std::vector<SeedValue> seed0;
  for (size_t k = 0; k < params.size(); ++k) seed0.push_back({params[k], values[k][0]});
  auto first = p.evaluate(seed0, opts);
  if (!first) return first.error();
  for (const auto& [key, g] : first->gradient) out.gradientKeys.push_back(key);
  out.value.assign(lanes, 0.0);
  out.gradient.assign(out.gradientKeys.size(), std::vector<double>(lanes, 0.0));
  int n = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  n = static_cast<int>(std::min<size_t>(static_cast<size_t>(n), lanes));
  Work w;
  w.lanes = lanes;
  // Chunks small enough to balance (about 32 per thread), large enough that threads rarely meet at the counter
  // and write different cache lines.
  w.chunk = std::clamp<size_t>(lanes / (static_cast<size_t>(n) * 32), 16, 4096);
  std::vector<double> busy(static_cast<size_t>(n), 0.0);
  auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t)
    pool.emplace_back([&, t] { busy[static_cast<size_t>(t)] = runThread(p, params, values, opts, w, out); });
  busy[0] = runThread(p, params, values, opts, w, out);
  for (auto& th : pool) th.join();
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  out.threads = n;
  if (w.error) {
    Error e = *w.error;
    e.message = "lane " + std::to_string(w.errorLane) + ": " + e.message;
    return e;
  }
  for (double b : busy) out.busySeconds += b;
  out.steps = first->stats.steps * lanes;
  return out;
}

}  // namespace dmci
