// Native lanes in parallel: contiguous chunks of lanes, one Evaluator per thread.
#include "driver/Lanes.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

namespace dmci {
namespace {

using Clock = std::chrono::steady_clock;

struct Chunk {
  size_t from = 0, to = 0;
  std::optional<Error> error;
  size_t errorLane = 0;
  double seconds = 0;
};

void runChunk(const Program& p, const std::vector<std::string>& params, const std::vector<std::vector<double>>& values,
              const EvalOptions& opts, Chunk& c, LaneResults& out) {
  auto t0 = Clock::now();
  Evaluator ev(p, params, opts);
  if (ev.setupError()) {
    c.error = *ev.setupError(), c.errorLane = c.from;
    return;
  }
  std::vector<double> seed(params.size());
  for (size_t lane = c.from; lane < c.to; ++lane) {
    for (size_t k = 0; k < seed.size(); ++k) seed[k] = values[k][lane];
    auto r = ev.run(seed);
    if (!r) {
      c.error = r.error(), c.errorLane = lane;
      return;
    }
    out.value[lane] = r->value;
    for (size_t k = 0; k < r->gradient.size() && k < out.gradient.size(); ++k) out.gradient[k][lane] = r->gradient[k].second;
  }
  c.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
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
  std::vector<Chunk> chunks(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t)
    chunks[t].from = lanes * static_cast<size_t>(t) / static_cast<size_t>(n),
    chunks[t].to = lanes * static_cast<size_t>(t + 1) / static_cast<size_t>(n);
  auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(runChunk, std::cref(p), std::cref(params), std::cref(values), std::cref(opts),
                                                std::ref(chunks[t]), std::ref(out));
  runChunk(p, params, values, opts, chunks[0], out);
  for (auto& th : pool) th.join();
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  out.threads = n;
  for (const auto& c : chunks) {
    if (c.error) {
      Error e = *c.error;
      e.message = "lane " + std::to_string(c.errorLane) + ": " + e.message;
      return e;
    }
    out.busySeconds += c.seconds;
  }
  out.steps = first->stats.steps * lanes;
  return out;
}

}  // namespace dmci
