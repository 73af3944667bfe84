// The replay engine's back-ends: lanes run on one cached trace by its compiled function (the compiled engine),
// by a batch machine's copy of it (the tensor engine's replay), or by the block replayer, in slices on all
// cores; the lanes off the trace's path go back to the cache's routing (ReplayEngine.cpp).
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>

#include "engines/replay/ReplayRun.h"
#include "support/ParallelLanes.h"

namespace dmci::replay {

bool ReplayRun::replayOne(const std::vector<double>& values, Evaluation& ev) {
  std::vector<double>& grad = oneGrad_;
  for (size_t k = 0; k < traces_.size(); ++k) {
    const auto& tr = traces_[k];
    grad.assign(tr->gradientSize(), 0.0);
    double v;
    const replay::CompiledTrace* fn = k < compiled_.size() ? compiled_[k].get() : nullptr;
    if (fn ? (*fn)(values.data(), &v, opts_.gradient ? grad.data() : nullptr) != 0
           : !tr->runOne(values.data(), v, grad.data(), one_))
      continue;
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

Result<ReplayRun::Left> ReplayRun::replayLanes(size_t index, const LaneIn& in, const size_t* pick, size_t n,
                                               const LaneOut& out, Tally& tally) {
  const replay::Replayer& tr = *traces_[index];
  const replay::CompiledTrace* fn = index < compiled_.size() ? compiled_[index].get() : nullptr;
  replay::BatchTrace* batch = index < batch_.size() ? batch_[index].get() : nullptr;
  std::vector<std::vector<double>> gathered, grad;
  std::vector<const double*> gatheredColumns;
  std::vector<double*> gradColumns;
  std::vector<double> value;
  if (pick) {
    gathered.assign(in.count, std::vector<double>(n));
    for (size_t p = 0; p < in.count; ++p) {
      for (size_t j = 0; j < n; ++j) gathered[p][j] = in.at(p, pick[j]);
      gatheredColumns.push_back(gathered[p].data());
    }
    value.resize(n);
    if (out.gradient) grad.assign(out.keys, std::vector<double>(n));
    for (auto& g : grad) gradColumns.push_back(g.data());
  }
  const LaneIn src = pick ? LaneIn{gatheredColumns.data(), in.count, 1} : in;
  const LaneOut dst =
      pick ? LaneOut{value.data(), gradColumns.empty() ? nullptr : gradColumns.data(), gradColumns.size(), 1} : out;
  std::vector<uint8_t>& ok = verdicts_;  // every slice writes its lanes' verdicts
  ok.resize(n);
  if (batch) {  // the whole batch in one call on the batch machine (its lanes in columns: runLanesIn copies)
    std::vector<const double*> p(src.param, src.param + src.count);
    std::vector<double*> g;
    if (opts_.gradient && dst.gradient) g.assign(dst.gradient, dst.gradient + dst.keys);
    if (auto err = batch->run(p, n, dst.value, g, ok.data())) return *err;
    return finishLanes(pick, n, ok, value, grad, out, tally);
  }
  // A compiled lane loop takes slices of about the same work, whatever the trace's length: up to 8 blocks for
  // a short trace (its calls and pointer tables are then a small part of the work), down to 64 lanes for a
  // long one, so that a batch of a long trace (the 2,800 operations of the Kalman bench) still spreads over
  // every core. The replayer's slices are its blocks.
  const replay::Trace& trace = tr.trace();
  const size_t perLane = trace.ops.size() + trace.guards.size() + 64 * trace.tensorSteps.size() + 1;
  const size_t slice = fn ? std::clamp<size_t>((size_t{1} << 14) / perLane / 64 * 64, 64, size_t{8} * replay::kBlock)
                          : size_t{replay::kBlock};
  const size_t blocks = (n + slice - 1) / slice;
  // A worker for every 4 slices at least: waking one costs about as much as a few slices.
  const int threads =
      static_cast<int>(std::clamp<size_t>((blocks + 3) / 4, 1, static_cast<size_t>(laneThreads(opts_))));
  if (spaces_.size() < static_cast<size_t>(threads)) spaces_.resize(static_cast<size_t>(threads));
  if (sliceColumns_.size() < static_cast<size_t>(threads)) sliceColumns_.resize(static_cast<size_t>(threads));
  std::atomic<size_t> off{0};  // lanes off the path, counted per slice: none, and nothing is scanned after
  const int used = forChunks(threads, blocks, [&](size_t b, int worker) {
    const size_t from = b * slice;
    const int count = static_cast<int>(std::min<size_t>(slice, n - from));
    uint8_t* verdict = ok.data() + from;
    auto& scratch = sliceColumns_[static_cast<size_t>(worker)];
    if (fn && !fn->guarded()) {  // no guards: every lane on the path, nothing to check
      runCompiled(*fn, src, from, count, dst, nullptr, scratch);
      if (pick) std::memset(verdict, replay::kOnPath, static_cast<size_t>(count));
      return;
    }
    if (fn)
      runCompiled(*fn, src, from, count, dst, verdict, scratch);
    else
      tr.runBlock(src.param, src.stride, from, count, dst.value, dst.gradient, dst.stride, verdict,
                  spaces_[static_cast<size_t>(worker)]);
    size_t bad = 0;
    for (int j = 0; j < count; ++j) bad += verdict[j] != replay::kOnPath;
    if (bad) off.fetch_add(bad, std::memory_order_relaxed);
  });
  threadsUsed_ = std::max(threadsUsed_, used);
  if (off.load() == 0 && !pick) {
    tally.replayed += n;
    return Left{};
  }
  return finishLanes(pick, n, ok, value, grad, out, tally);
}

ReplayRun::Left ReplayRun::finishLanes(const size_t* pick, size_t n, const std::vector<uint8_t>& ok,
                                       const std::vector<double>& value, const std::vector<std::vector<double>>& grad,
                                       const LaneOut& out, Tally& tally) {
  Left left;
  for (size_t j = 0; j < n; ++j) {
    const size_t lane = pick ? pick[j] : j;
    if (ok[j] != replay::kOnPath) {
      left.lanes.push_back(lane);
      left.guard.push_back(replay::failedGuard(ok[j]));
      continue;
    }
    ++tally.replayed;
    if (!pick) continue;
    out.value[lane] = value[j];
    for (size_t k = 0; k < grad.size(); ++k) out.gradient[k][lane * out.stride] = grad[k][j];
  }
  tally.offPath += left.lanes.size();
  return left;
}

void ReplayRun::runCompiled(const replay::CompiledTrace& fn, const LaneIn& src, size_t from, int n, const LaneOut& dst,
                            uint8_t* ok, std::vector<double>& scratch) const {
  // The pointer tables on the stack for the usual few parameters: a slice allocates nothing.
  constexpr size_t kFew = 16;
  std::array<const double*, kFew> pFew;
  std::array<double*, kFew> gFew;
  std::vector<const double*> pMany;
  std::vector<double*> gMany;
  const double** p = pFew.data();
  double** g = gFew.data();
  const size_t keys = dst.gradient ? dst.keys : 0, lanes = static_cast<size_t>(n);
  if (src.count > kFew) pMany.resize(src.count), p = pMany.data();
  if (keys > kFew) gMany.resize(keys), g = gMany.data();
  const bool strided = src.stride != 1 || (keys && dst.stride != 1);
  if (strided && scratch.size() < (src.count + keys) * lanes) scratch.resize((src.count + keys) * lanes);
  for (size_t k = 0; k < src.count; ++k) {
    if (!strided) {
      p[k] = src.param[k] + from;
      continue;
    }
    double* col = scratch.data() + k * lanes;
    for (size_t l = 0; l < lanes; ++l) col[l] = src.at(k, from + l);
    p[k] = col;
  }
  for (size_t k = 0; k < keys; ++k) g[k] = strided ? scratch.data() + (src.count + k) * lanes : dst.gradient[k] + from;
  fn.lanes(n, p, dst.value + from, opts_.gradient && keys ? g : nullptr, ok);
  if (!strided) return;
  for (size_t k = 0; k < keys; ++k)
    for (size_t l = 0; l < lanes; ++l) dst.gradient[k][(from + l) * dst.stride] = g[k][l];
}

}  // namespace dmci::replay
