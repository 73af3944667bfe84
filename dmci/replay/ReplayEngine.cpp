// The replay engine behind the seam: the trace cache, lanes in blocks on all cores, native reruns off the path.
#include "replay/ReplayEngine.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>

#include "driver/ParallelLanes.h"
#include "driver/Program.h"
#include "replay/Compiled.h"
#include "replay/Replay.h"

namespace dmci {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxTraces = 16;

struct Tally {
  uint64_t replayed = 0, recorded = 0, interpreted = 0, offPath = 0;
};

// The lanes' parameters where they lie: parameter k of lane l at param[k][l * stride] (the engine's columns, the
// caller's rows, or the lanes gathered for another trace).
struct LaneIn {
  const double* const* param;
  size_t count;  // parameters
  size_t stride;
  double at(size_t k, size_t lane) const { return param[k][lane * stride]; }
};

// Where the lanes' results go: lane l's value at value[l], its gradient entry k at gradient[k][l * stride] (no
// gradient: null).
struct LaneOut {
  double* value;
  double* const* gradient;
  size_t keys;
  size_t stride;
};

template <class T>
T* const* columnsOrNull(const std::vector<T*>& columns) {
  return columns.empty() ? nullptr : columns.data();
}

class ReplayRun final : public PreparedRun {
 public:
  ReplayRun(const PreparedProgram& p, const EvalOptions& opts, bool compiled, replay::BatchLoader loader = {})
      : prepared_(p), opts_(opts), native_(p, recordingOptions(opts)), compile_(compiled), loader_(std::move(loader)) {}
  const Error* setupError() const { return native_.setupError(); }

  Result<Evaluation> run(const std::vector<double>& values) override {
    if (values.size() != static_cast<size_t>(paramCount()))
      return Error{ErrorKind::Usage, "expected " + std::to_string(paramCount()) + " parameter values", {}};
    if (loader_ && !opts_.anyValue) return runOneLane(values);  // any value: the CPU's, lists and all
    Tally tally;
    Evaluation ev;
    if (!replayOne(values, ev)) {
      auto r = rerun(values, tally);
      if (!r) return r.error();
      if (!replayOne(values, ev)) {  // the path's trace is not replayable, or the cache is full: interpreted
        if (gradientSkipped_) r = native_.run(values);  // (a trace that fails its own seed: never expected)
        if (!r) return r.error();
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
    LaneEvaluation out;
    if (auto e = runLanesInto(values, laneCount, out)) return *e;
    return out;
  }

  // Every lane of `out` is written: by a trace's replay, or by the native machine (its value and gradient).
  std::optional<Error> runLanesInto(const std::vector<std::vector<double>>& values, int64_t laneCount,
                                    LaneEvaluation& out) override {
    if (values.size() != static_cast<size_t>(paramCount()))
      return Error{ErrorKind::Usage, "expected " + std::to_string(paramCount()) + " parameter values", {}};
    const size_t lanes = values.empty() ? static_cast<size_t>(std::max<int64_t>(1, laneCount)) : values[0].size();
    for (const auto& v : values)
      if (v.size() != lanes) return Error{ErrorKind::Usage, "every parameter needs one value per lane", {}};
    const auto t0 = Clock::now();
    Tally tally;
    threadsUsed_ = 1;
    inColumns_.clear();
    for (const auto& v : values) inColumns_.push_back(v.data());
    const LaneIn in{inColumns_.data(), values.size(), 1};
    if (auto e = recordFirst(in, tally)) return e;
    if (traces_.empty()) {
      auto all = interpretAll(values, laneCount, tally);
      if (!all) return all.error();
      out = std::move(*all);
      return std::nullopt;
    }
    shape(out, lanes);
    outColumns_.clear();
    for (auto& g : out.gradient) outColumns_.push_back(g.data());
    if (auto e = replayAll(in, lanes, {out.value.data(), columnsOrNull(outColumns_), outColumns_.size(), 1}, tally))
      return e;
    finishCounters(out.counters, tally, lanes, t0);
    return std::nullopt;
  }

  // The caller's arrays read and written in place, strided as they are (the C API's row-major B x p). The batch
  // machine reads columns, and a program no trace runs goes to the native engine: both through the default's
  // copies.
  std::optional<Error> runLanesIn(LaneArrays& a) override {
    if (loader_) return PreparedRun::runLanesIn(a);
    if (a.param.size() != static_cast<size_t>(paramCount()))
      return Error{ErrorKind::Usage, "expected " + std::to_string(paramCount()) + " parameter values", {}};
    if (a.lanes < 1 || !a.value) return Error{ErrorKind::Usage, "a batch needs one lane or more and its values", {}};
    const size_t lanes = static_cast<size_t>(a.lanes);
    const auto t0 = Clock::now();
    Tally tally;
    threadsUsed_ = 1;
    const LaneIn in{a.param.data(), a.param.size(), a.paramStride};
    if (auto e = recordFirst(in, tally)) return e;
    if (traces_.empty()) return PreparedRun::runLanesIn(a);
    if (!a.gradient.empty() && (!opts_.gradient || a.gradient.size() != gradientKeys_.size()))
      return Error{ErrorKind::Usage,
                   "the batch has " + std::to_string(opts_.gradient ? gradientKeys_.size() : 0) + " gradient entries",
                   {}};
    if (auto e = replayAll(in, lanes, {a.value, columnsOrNull(a.gradient), a.gradient.size(), a.gradientStride}, tally))
      return e;
    a.isTensor = false;
    a.counters = {};
    finishCounters(a.counters, tally, lanes, t0);
    return std::nullopt;
  }

 private:
  PreparedProgram prepared_;
  EvalOptions opts_;
  Evaluator native_;  // records traces, and interprets the lanes no trace takes
  std::vector<std::unique_ptr<replay::Replayer>> traces_;
  // The compiled engine: each trace built as C++ (null where the trace cannot be emitted: the replayer runs it).
  bool compile_ = false;
  std::vector<std::unique_ptr<replay::CompiledTrace>> compiled_;
  size_t emitRefused_ = 0;
  // A batch machine's replay (the tensor engine's): each trace loaded there too (null where it was refused: the
  // replayer runs it).
  replay::BatchLoader loader_;
  std::vector<std::unique_ptr<replay::BatchTrace>> batch_;
  size_t batchRefused_ = 0;
  std::vector<std::string> gradientKeys_;
  replay::Workspace one_;
  std::vector<double> oneGrad_;   // one seed's gradient, reused
  size_t notReplayable_ = 0;      // paths recorded whose traces cannot be replayed
  bool gradientSkipped_ = false;  // the last rerun recorded a replayable trace and left out the native gradient

  static EvalOptions recordingOptions(EvalOptions o) {
    o.leafParameters = true;
    return o;
  }
  int32_t paramCount() const { return static_cast<int32_t>(native_.parameterCount()); }
  std::vector<const double*> inColumns_;  // runLanesInto's columns as a LaneIn, kept between batches
  std::vector<double*> outColumns_;

  // Lane 0 records the first path, when nothing is recorded yet.
  std::optional<Error> recordFirst(const LaneIn& in, Tally& tally) {
    if (!traces_.empty() || notReplayable_ > 0) return std::nullopt;
    std::vector<double> seed0(in.count);
    for (size_t k = 0; k < in.count; ++k) seed0[k] = in.at(k, 0);
    auto r = rerun(seed0, tally);
    if (r) return std::nullopt;
    Error e = r.error();
    e.message = "lane 0: " + e.message;
    return e;
  }

  void finishCounters(Counters& c, const Tally& tally, size_t lanes, Clock::time_point t0) const {
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    count(c, tally, lanes);
    c.add("threads", threadsUsed_);
    c.add("seconds", seconds);
  }

  // Every lane through the traces. The first trace takes every lane on its path. A lane it leaves goes on by the
  // guard it failed first, down the tree the traces' guards make (route); those that find no trace there try
  // every trace in turn; the lanes left then take the native machine, which records their paths while the cache
  // has room.
  std::optional<Error> replayAll(const LaneIn& in, size_t lanes, const LaneOut& out, Tally& tally) {
    auto first = replayLanes(0, in, nullptr, lanes, out, tally);
    if (!first) return first.error();
    auto routed = route(0, std::move(*first), in, out, tally);
    if (!routed) return routed.error();
    std::vector<size_t> todo = std::move(*routed);
    for (size_t k = 0; k < traces_.size() && !todo.empty(); ++k) {
      auto left = replayLanes(k, in, todo.data(), todo.size(), out, tally);
      if (!left) return left.error();
      todo = std::move(left->lanes);
    }
    std::vector<double> seed(in.count);
    for (size_t next = 0; next < todo.size();) {
      const size_t lane = todo[next];
      for (size_t p = 0; p < in.count; ++p) seed[p] = in.at(p, lane);
      const size_t cached = traces_.size();
      auto r = rerun(seed, tally);
      if (!r) {
        Error e = r.error();
        e.message = "lane " + std::to_string(lane) + ": " + e.message;
        return e;
      }
      if (traces_.size() > cached) {  // a new path: its trace takes this lane and those like it
        auto left = replayLanes(traces_.size() - 1, in, todo.data() + next, todo.size() - next, out, tally);
        if (!left) return left.error();
        auto rest = route(traces_.size() - 1, std::move(*left), in, out, tally);
        if (!rest) return rest.error();
        todo = std::move(*rest);
        next = 0;
        continue;
      }
      if (r->isData() || r->isTensor) return notANumberOrTensor(r->written, native_.valuePos());
      // No trace for this lane (the cache is full): interpreted.
      ++tally.interpreted;
      out.value[lane] = r->value;
      if (out.gradient)
        for (size_t k = 0; k < out.keys; ++k)
          out.gradient[k][lane * out.stride] = k < r->gradient.size() ? r->gradient[k].second : 0.0;
      ++next;
    }
    return std::nullopt;
  }

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

  // `out` sized for `lanes` scalar lanes, its vectors kept where they fit: their entries are left as they are,
  // since every lane is written.
  void shape(LaneEvaluation& out, size_t lanes) const {
    out.value.resize(lanes);
    out.isTensor = false;
    out.rank = out.rows = out.cols = 0;
    out.tensor.clear();
    if (!opts_.gradient) {  // as the native engine: a value-only batch has no gradient
      out.gradientKeys.clear();
      out.gradient.clear();
    } else if (out.gradientKeys != gradientKeys_) {
      out.gradientKeys = gradientKeys_;
    }
    out.gradient.resize(out.gradientKeys.size());
    for (auto& g : out.gradient) g.resize(lanes);
    out.counters = {};
  }

  // The native run of one seed, recording its path's trace while the cache has room. A path whose trace is
  // cached gets no native gradient (gradientSkipped_): the trace is replayed for it, so recording costs a
  // forward run.
  Result<Evaluation> rerun(const std::vector<double>& seed, Tally& tally) {
    gradientSkipped_ = false;
    if (traces_.size() >= kMaxTraces || notReplayable_ > 0) return native_.run(seed);
    replay::Trace t;
    auto r = native_.record(seed, t, false);
    if (!r) return r;
    ++tally.recorded;
    gradientSkipped_ = opts_.gradient && t.replayable();
    if (gradientKeys_.empty())
      for (const auto& [key, slots] : native_.gradientLeaves()) gradientKeys_.push_back(key);
    if (!t.replayable()) {
      ++notReplayable_;
      return r;
    }
    std::vector<std::vector<int32_t>> leaves;
    for (auto& [key, slots] : native_.gradientLeaves()) leaves.push_back(std::move(slots));
    // Tensor steps run only in a compiled trace: the batch machine and the block replayer refuse them.
    const bool tensorSteps = t.hasTensorSteps();
    if (loader_) {
      std::string refused;
      batch_.push_back(tensorSteps ? nullptr : loader_(t, leaves, opts_.gradient, refused));
      if (!batch_.back()) ++batchRefused_;
    }
    std::unique_ptr<replay::CompiledTrace> fn;
    if (compile_) {
      replay::EmitRequest req;
      req.function = "dmci_trace";
      req.origin = "the compiled engine";
      req.gradientKeys = gradientKeys_;
      req.leaves = leaves;
      req.gradient = opts_.gradient;
      if (auto code = replay::emitCpp(t, req)) {  // emittable: a failed build is an error, not a fallback
        auto built = replay::CompiledTrace::build(*code, req.function);
        if (!built) return built.error();
        fn = std::move(*built);
      } else {
        ++emitRefused_;
      }
    }
    if (tensorSteps && !fn) {  // nothing here runs it: this path, and every later one, is interpreted
      if (loader_) batch_.pop_back();
      ++notReplayable_;
      if (!gradientSkipped_) return r;
      gradientSkipped_ = false;
      return native_.run(seed);
    }
    if (compile_) compiled_.push_back(std::move(fn));
    traces_.push_back(std::make_unique<replay::Replayer>(std::move(t), std::move(leaves), opts_.gradient));
    return r;
  }

  // One seed on a batch machine: a batch of one lane, so that its numbers are that machine's (float32, say).
  Result<Evaluation> runOneLane(const std::vector<double>& values) {
    std::vector<std::vector<double>> columns;
    for (double v : values) columns.push_back({v});
    auto r = runLanes(columns, 1);
    if (!r) return r.error();
    return r->lane(0);
  }

  bool replayOne(const std::vector<double>& values, Evaluation& ev) {
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

  // The lanes a trace left, each with the first guard it failed there (-1: unknown).
  struct Left {
    std::vector<size_t> lanes;
    std::vector<int> guard;
  };

  // Routes the lanes trace k left down the tree of the traces' guards: a lane that failed guard g first goes to
  // a trace that agrees with trace k on every guard before g and tests g with the other outcome (nextTrace),
  // and so on; each step passes a later guard, so a lane takes at most one trace per level of the tree rather
  // than every trace in turn. Returns the lanes no trace took this way.
  Result<std::vector<size_t>> route(size_t k, Left left, const LaneIn& in, const LaneOut& out, Tally& tally) {
    struct Group {
      size_t trace;
      int guard;
      std::vector<size_t> lanes;
    };
    std::vector<Group> work;
    std::vector<size_t> unrouted;
    auto split = [&](size_t from, Left&& l) {
      std::map<int, std::vector<size_t>> byGuard;
      for (size_t i = 0; i < l.lanes.size(); ++i) byGuard[l.guard[i]].push_back(l.lanes[i]);
      for (auto& [g, lanes] : byGuard) work.push_back({from, g, std::move(lanes)});
    };
    split(k, std::move(left));
    while (!work.empty()) {
      Group g = std::move(work.back());
      work.pop_back();
      const int j = nextTrace(g.trace, g.guard);
      if (j < 0) {
        unrouted.insert(unrouted.end(), g.lanes.begin(), g.lanes.end());
        continue;
      }
      auto l = replayLanes(static_cast<size_t>(j), in, g.lanes.data(), g.lanes.size(), out, tally);
      if (!l) return l.error();
      // Only a failure past guard g goes on down the tree: each step then goes deeper, so routing ends.
      Left deeper;
      for (size_t i = 0; i < l->lanes.size(); ++i) {
        if (l->guard[i] > g.guard) {
          deeper.lanes.push_back(l->lanes[i]);
          deeper.guard.push_back(l->guard[i]);
        } else {
          unrouted.push_back(l->lanes[i]);
        }
      }
      split(static_cast<size_t>(j), std::move(deeper));
    }
    std::sort(unrouted.begin(), unrouted.end());
    return unrouted;
  }

  // The trace for a lane that failed trace k first at guard g: the first that makes every test before g with
  // trace k's outcome and the same test at g with another; -1 when there is none or g is unknown.
  int nextTrace(size_t k, int g) {
    if (g < 0) return -1;
    if (routesFor_ != traces_.size()) {  // a trace was added: routes may have changed
      routes_.clear();
      routesFor_ = traces_.size();
    }
    const uint64_t key = (static_cast<uint64_t>(k) << 32) | static_cast<uint32_t>(g);
    if (auto it = routes_.find(key); it != routes_.end()) return it->second;
    const replay::Trace& a = traces_[k]->trace();
    int found = -1;
    for (size_t j = 0; j < traces_.size() && found < 0; ++j) {
      const replay::Trace& b = traces_[j]->trace();
      if (j == k || b.guards.size() <= static_cast<size_t>(g) || a.guards.size() <= static_cast<size_t>(g)) continue;
      bool agree = true;
      for (int i = 0; i < g && agree; ++i)
        agree = sameTest(a, a.guards[static_cast<size_t>(i)], b, b.guards[static_cast<size_t>(i)]) &&
                a.guards[static_cast<size_t>(i)].expected == b.guards[static_cast<size_t>(i)].expected;
      const auto& ga = a.guards[static_cast<size_t>(g)];
      const auto& gb = b.guards[static_cast<size_t>(g)];
      if (agree && sameTest(a, ga, b, gb) && ga.expected != gb.expected) found = static_cast<int>(j);
    }
    routes_.emplace(key, found);
    return found;
  }
  // Whether two traces' guards make the same test: the same primitive on the same slots and constants, after
  // the same number of operations (traces that agree up to there recorded the same operations).
  static bool sameTest(const replay::Trace& ta, const replay::Guard& a, const replay::Trace& tb,
                       const replay::Guard& b) {
    if (a.kind != b.kind || a.prim != b.prim || a.argc != b.argc || a.afterOp != b.afterOp) return false;
    for (int32_t i = 0; i < a.argc; ++i) {
      const Value& x = ta.args[static_cast<size_t>(a.firstArg + i)];
      const Value& y = tb.args[static_cast<size_t>(b.firstArg + i)];
      if (x.tag != y.tag || x.i != y.i) return false;
      if (x.tag == Tag::Real ? x.i < 0 && std::memcmp(&x.num, &y.num, sizeof x.num) != 0 : x.code != y.code)
        return false;
    }
    return true;
  }
  std::map<uint64_t, int> routes_;  // nextTrace's answers, for routesFor_ traces
  size_t routesFor_ = 0;

  // Replays lanes on one trace, in blocks on all cores: lanes [0, n) when `pick` is null, else pick[0..n) (the
  // lanes another path left, gathered). Returns the lanes off this trace's path.
  Result<Left> replayLanes(size_t index, const LaneIn& in, const size_t* pick, size_t n, const LaneOut& out,
                           Tally& tally) {
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
    const LaneOut dst = pick ? LaneOut{value.data(), columnsOrNull(gradColumns), gradColumns.size(), 1} : out;
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
  // The lanes off the path; those on it that were gathered are scattered back into `out`.
  Left finishLanes(const size_t* pick, size_t n, const std::vector<uint8_t>& ok, const std::vector<double>& value,
                   const std::vector<std::vector<double>>& grad, const LaneOut& out, Tally& tally) {
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
  // Lanes [from, from + n) through a compiled trace's lane loop, which reads and writes columns: strided lanes
  // are gathered into `scratch` (one slice's, in cache) and their gradient scattered back.
  void runCompiled(const replay::CompiledTrace& fn, const LaneIn& src, size_t from, int n, const LaneOut& dst,
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
    for (size_t k = 0; k < keys; ++k)
      g[k] = strided ? scratch.data() + (src.count + k) * lanes : dst.gradient[k] + from;
    fn.lanes(n, p, dst.value + from, opts_.gradient && keys ? g : nullptr, ok);
    if (!strided) return;
    for (size_t k = 0; k < keys; ++k)
      for (size_t l = 0; l < lanes; ++l) dst.gradient[k][(from + l) * dst.stride] = g[k][l];
  }
  std::deque<std::vector<double>> sliceColumns_;  // the workers' gathered slices (strided lanes, compiled), kept
  std::deque<replay::Workspace> spaces_;          // the workers' buffers, kept between batches
  std::vector<uint8_t> verdicts_;                 // a slice's lanes: on the path (1) or not, kept between batches
  int threadsUsed_ = 1;

  void count(Counters& c, const Tally& t, size_t lanes) const {
    size_t ops = 0, guards = 0, tensorSteps = 0;
    for (const auto& tr : traces_) {
      ops += tr->trace().ops.size(), guards += tr->trace().guards.size();
      tensorSteps += tr->trace().tensorSteps.size();
    }
    c.add("traces", static_cast<double>(traces_.size()));
    c.add("trace_ops", static_cast<double>(ops));
    if (tensorSteps) c.add("tensor_steps", static_cast<double>(tensorSteps));  // compiled traces with tensors
    c.add("guards", static_cast<double>(guards));
    c.add("lanes", static_cast<double>(lanes));
    c.add("replayed", static_cast<double>(t.replayed));
    c.add("recorded", static_cast<double>(t.recorded));
    c.add("off_path", static_cast<double>(t.offPath));
    c.add("interpreted", static_cast<double>(t.interpreted));
    c.add("not_replayable", static_cast<double>(notReplayable_));
    if (compile_) c.add("emit_refused", static_cast<double>(emitRefused_));
    if (loader_) c.add("batch_refused", static_cast<double>(batchRefused_));
  }
};

class ReplayEngine final : public Engine {
 public:
  explicit ReplayEngine(bool compiled) : compiled_(compiled) {}
  std::string name() const override { return compiled_ ? "compiled" : "replay"; }
  std::optional<std::string> unsupported(const EvalOptions& opts) const override {
    if (byLantern(opts.route)) return std::string("--via ") + routeName(opts.route) + ": runs on the native engine";
    if (opts.tensor.device != "cpu")
      return "--device " + opts.tensor.device + ": the " + name() + " engine runs on the CPU; use --engine tensor";
    if (opts.tensor.float32) return "--float32: the " + name() + " engine computes in double; use --engine tensor";
    return std::nullopt;
  }
  Result<std::unique_ptr<PreparedRun>> prepare(const PreparedProgram& p, const EvalOptions& opts) override {
    return preparedOrError(std::make_unique<ReplayRun>(p, opts, compiled_));
  }
  using Engine::prepare;

 private:
  bool compiled_;
};

}  // namespace

std::unique_ptr<Engine> makeReplayEngine() { return std::make_unique<ReplayEngine>(false); }
std::unique_ptr<Engine> makeCompiledEngine() { return std::make_unique<ReplayEngine>(true); }

Result<std::unique_ptr<PreparedRun>> prepareBatchReplay(const PreparedProgram& p, const EvalOptions& opts,
                                                        replay::BatchLoader loader) {
  return preparedOrError(std::make_unique<ReplayRun>(p, opts, false, std::move(loader)));
}

}  // namespace dmci
