// The replay engine behind the seam: the trace cache, lanes in blocks on all cores, native reruns off the path.
// The prepared run (ReplayRun.h) keeps the cache and routes lanes here; ReplayBackends.cpp runs them on a trace.
#include "engines/replay/ReplayEngine.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "engines/replay/ReplayRun.h"
#include "prims/FaultDecision.h"

namespace dmci {
namespace replay {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxTraces = 16;

}  // namespace

Result<Evaluation> ReplayRun::run(const std::vector<double>& values) {
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

Result<LaneEvaluation> ReplayRun::runLanes(const std::vector<std::vector<double>>& values, int64_t laneCount) {
  LaneEvaluation out;
  if (auto e = runLanesInto(values, laneCount, out)) return *e;
  return out;
}

std::optional<Error> ReplayRun::runLanesInto(const std::vector<std::vector<double>>& values, int64_t laneCount,
                                             LaneEvaluation& out) {
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
  double* const* grad = outColumns_.empty() ? nullptr : outColumns_.data();
  if (auto e = replayAll(in, lanes, {out.value.data(), grad, outColumns_.size(), 1}, tally)) return e;
  finishCounters(out.counters, tally, lanes, t0);
  return std::nullopt;
}

std::optional<Error> ReplayRun::runLanesIn(LaneArrays& a) {
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
  double* const* grad = a.gradient.empty() ? nullptr : a.gradient.data();
  if (auto e = replayAll(in, lanes, {a.value, grad, a.gradient.size(), a.gradientStride}, tally)) return e;
  a.isTensor = false;
  a.counters = {};
  finishCounters(a.counters, tally, lanes, t0);
  return std::nullopt;
}

std::optional<Error> ReplayRun::recordFirst(const LaneIn& in, Tally& tally) {
  if (!traces_.empty() || notReplayable_ > 0) return std::nullopt;
  std::vector<double> seed0(in.count);
  for (size_t k = 0; k < in.count; ++k) seed0[k] = in.at(k, 0);
  auto r = rerun(seed0, tally);
  if (r) return std::nullopt;
  Error e = r.error();
  e.message = "lane 0: " + e.message;
  return e;
}

void ReplayRun::finishCounters(Counters& c, const Tally& tally, size_t lanes, Clock::time_point t0) const {
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  count(c, tally, lanes);
  c.add("threads", threadsUsed_);
  c.add("seconds", seconds);
}

std::optional<Error> ReplayRun::replayAll(const LaneIn& in, size_t lanes, const LaneOut& out, Tally& tally) {
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
    if (r->isData() || r->isTensor) {  // lane 0 gave a number (its path is replayable): this lane's value differs
      Error e = r->isData() ? notANumberOrTensor(r->written, native_.valuePos())
                            : laneShapeDiffers(valueShape(true, r->rank, r->rows, r->cols), valueShape(false, 0, 0, 0),
                                               native_.valuePos());
      e.message = "lane " + std::to_string(lane) + ": " + e.message;
      return e;
    }
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

Result<LaneEvaluation> ReplayRun::interpretAll(const std::vector<std::vector<double>>& values, int64_t laneCount,
                                               Tally& tally) {
  if (!nativeLanes_) {
    FaultDecision prepared(planted_);
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

void ReplayRun::shape(LaneEvaluation& out, size_t lanes) const {
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

Result<Evaluation> ReplayRun::rerun(const std::vector<double>& seed, Tally& tally) {
  FaultDecision prepared(planted_);  // the replayer, batch trace or compiled trace made here follows native_'s machine
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

Result<Evaluation> ReplayRun::runOneLane(const std::vector<double>& values) {
  std::vector<std::vector<double>> columns;
  for (double v : values) columns.push_back({v});
  auto r = runLanes(columns, 1);
  if (!r) return r.error();
  return r->lane(0);
}

Result<std::vector<size_t>> ReplayRun::route(size_t k, Left left, const LaneIn& in, const LaneOut& out, Tally& tally) {
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

int ReplayRun::nextTrace(size_t k, int g) {
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

bool ReplayRun::sameTest(const replay::Trace& ta, const replay::Guard& a, const replay::Trace& tb,
                         const replay::Guard& b) {
  if (a.kind != b.kind || a.prim != b.prim || a.argc != b.argc || a.afterOp != b.afterOp) return false;
  for (int32_t i = 0; i < a.argc; ++i) {
    const Value& x = ta.args[static_cast<size_t>(a.firstArg + i)];
    const Value& y = tb.args[static_cast<size_t>(b.firstArg + i)];
    if (x.tag != y.tag || x.i != y.i) return false;
    if (x.tag == Tag::Real ? x.i < 0 && std::memcmp(&x.num, &y.num, sizeof x.num) != 0 : x.code != y.code) return false;
  }
  return true;
}

void ReplayRun::count(Counters& c, const Tally& t, size_t lanes) const {
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
  if (compile_) {
    c.add("emit_refused", static_cast<double>(emitRefused_));
    size_t atO1 = 0;  // traces long enough to be built at -O1 (Compiled.h: kMaxLinesAtO3)
    for (const auto& fn : compiled_) atO1 += fn && fn->optimisation() == "-O1";
    c.add("compiled_at_o1", static_cast<double>(atO1));
  }
  if (loader_) c.add("batch_refused", static_cast<double>(batchRefused_));
}

}  // namespace replay

namespace {

using replay::ReplayRun;

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

// After the native engine, whose machine records their traces.
const EngineRegistration kReplayRegistration("replay", makeReplayEngine, 10);
const EngineRegistration kCompiledRegistration("compiled", makeCompiledEngine, 20);

// Asked for by name at link time (CMake's DMCI_ENGINE_ANCHORS), so that a program linking the core as a static
// library keeps this object and its registrations.
extern "C" const int dmci_engine_replay = 0;

Result<std::unique_ptr<PreparedRun>> prepareBatchReplay(const PreparedProgram& p, const EvalOptions& opts,
                                                        replay::BatchLoader loader) {
  return preparedOrError(std::make_unique<ReplayRun>(p, opts, false, std::move(loader)));
}

}  // namespace dmci
