// The tensor engine behind the seam: builds its state from a PreparedProgram, runs batches, assembles per-lane
// results, and registers itself as the engine "tensor".
#include "engines/tensor/TensorEngine.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "engines/replay/ReplayEngine.h"
#include "engines/tensor/BatchMachine.h"
#include "engines/tensor/TraceReplay.h"
#include "machine/ValueText.h"

namespace dmci {

using lanes::GroupEnd;

struct BatchEvaluator::State {
  EvalOptions opts;
  std::vector<std::string> params;
  std::shared_ptr<const ComputeGraph> graph;
  Runtime rt;
  lanes::LaneStore store;
  std::unique_ptr<lanes::BatchMachine> machine;
  Value analysed;
  std::vector<Literal> literals;  // dmci: the program's literals as slots
  Runtime::Mark mark{};
  SrcPos valuePos;
  bool setup = false;
  Error setupErr;

  State(EvalOptions o, std::vector<std::string> p) : opts(std::move(o)), params(std::move(p)), rt(opts.budget) {}
  bool literalLeaves() const { return opts.gradient && opts.wrtLiterals; }
  const std::vector<Literal>& programLiterals() const {
    return opts.route == Route::Direct ? machine->literals() : literals;
  }
  void prepare(const PreparedProgram& p);
  std::vector<GroupEnd> runEnds(const std::vector<std::vector<double>>& values, int64_t lanes,
                                std::vector<int32_t>& paramSlots);
  void raiseFirstError(const std::vector<GroupEnd>& ends, bool needNumbers);
  Evaluation oneLane(const std::vector<GroupEnd>& ends, const std::vector<int32_t>& paramSlots);
  LaneEvaluation finish(const std::vector<GroupEnd>& ends, const std::vector<int32_t>& paramSlots);
};

namespace {

// The one value of a run that must not split (the evaluator's analysis of the program).
Value single(const std::vector<GroupEnd>& ends) {
  if (ends.size() == 1 && !ends[0].failed) return ends[0].value;
  for (const auto& e : ends)
    if (e.failed) throw DmciError(e.error);
  throw DmciError(ErrorKind::Graph, "tensor engine: the evaluator's analysis split into lane groups");
}

}  // namespace

void BatchEvaluator::State::prepare(const PreparedProgram& p) {
  valuePos = p.valuePos;
  graph = p.graph;
  rt.reset();
  rt.taping = false;
  store.configure(opts.tensor.device, opts.tensor.float32);
  machine = std::make_unique<lanes::BatchMachine>(*graph, rt, store);
  machine->loadConstants(opts.route == Route::Direct && literalLeaves());
  if (opts.route != Route::Direct) {
    auto args = p.dmciInput(rt, literalLeaves() ? &literals : nullptr);
    store.keepSlots(rt);
    store.beginRun(rt, 1);
    analysed = single(machine->run(args.graph));
    if (opts.route == Route::Dmci2) analysed = single(machine->call(analysed, {args.tower}));
  }
  store.keepSlots(rt);
  mark = rt.mark();
}

BatchEvaluator::BatchEvaluator(const PreparedProgram& p, EvalOptions opts)
    : s_(std::make_unique<State>(std::move(opts), p.params)) {
  if (s_->opts.threads > 0) lanes::setThreads(s_->opts.threads);
  auto ok = catchErrors([&] {
    s_->prepare(p);
    return true;
  });
  if (!ok) {
    s_->setupErr = ok.error();
    return;
  }
  s_->setup = true;
}

BatchEvaluator::~BatchEvaluator() = default;

const Error* BatchEvaluator::setupError() const { return s_->setup ? nullptr : &s_->setupErr; }

std::vector<GroupEnd> BatchEvaluator::State::runEnds(const std::vector<std::vector<double>>& values, int64_t lanes,
                                                     std::vector<int32_t>& paramSlots) {
  if (values.size() != params.size())
    throw DmciError(ErrorKind::Usage, "expected " + std::to_string(params.size()) + " parameter values");
  int64_t b = values.empty() ? lanes : static_cast<int64_t>(values[0].size());
  for (const auto& v : values)
    if (static_cast<int64_t>(v.size()) != b)
      throw DmciError(ErrorKind::Usage, "every parameter needs one value per lane");
  if (b < 1) throw DmciError(ErrorKind::Usage, "a batch needs at least one lane");
  rt.resetTo(mark);
  rt.taping = false;
  store.beginRun(rt, b);
  if (literalLeaves())
    for (const auto& lit : programLiterals()) store.literalLeaf(lit.slot, lit.value, true);
  std::vector<Value> ps;
  paramSlots.clear();
  for (size_t k = 0; k < params.size(); ++k) {
    bool grad = opts.gradient && std::find(opts.wrt.begin(), opts.wrt.end(), params[k]) != opts.wrt.end();
    ps.push_back(store.param(rt, values[k], grad));
    paramSlots.push_back(ps.back().i);
  }
  if (opts.route == Route::Direct) return machine->run(ps);
  return machine->call(analysed, {heapList(rt, ps)});
}

// The error of the first lane that failed, or (with needNumbers) whose value is not a number or a tensor.
void BatchEvaluator::State::raiseFirstError(const std::vector<GroupEnd>& ends, bool needNumbers) {
  const GroupEnd* first = nullptr;
  for (const auto& e : ends) {
    bool bad = e.failed || (needNumbers && e.value.tag != Tag::Real && e.value.tag != Tag::Tensor);
    if (bad && (!first || e.firstLane < first->firstLane)) first = &e;
  }
  if (!first) return;
  if (first->failed) throw DmciError(first->error);
  Value shown = store.hydrate(rt, first->value, first->set, 0);
  throw DmciError(notANumberOrTensor(rt.show(shown), valuePos));
}

LaneEvaluation BatchEvaluator::State::finish(const std::vector<GroupEnd>& ends,
                                             const std::vector<int32_t>& paramSlots) {
  raiseFirstError(ends, true);
  // Every lane's value of one shape (numbers, or tensors of one shape), else the first lane whose differs from
  // lane 0's: their values cannot stand in one batch, and a sum would pass for a number.
  auto shapeOf = [&](const GroupEnd& e) {
    if (e.value.tag != Tag::Tensor) return valueShape(false, 0, 0, 0);
    const TensorRec& r = rt.tensor(e.value);
    return valueShape(true, r.rank, r.rows, r.cols);
  };
  if (!ends.empty()) {
    const GroupEnd& lane0 = *std::min_element(
        ends.begin(), ends.end(), [](const GroupEnd& a, const GroupEnd& b) { return a.firstLane < b.firstLane; });
    const GroupEnd* odd = nullptr;
    for (const auto& e : ends)
      if (shapeOf(e) != shapeOf(lane0) && (!odd || e.firstLane < odd->firstLane)) odd = &e;
    if (odd) {
      Error e = laneShapeDiffers(shapeOf(*odd), shapeOf(lane0), valuePos);
      e.message = "lane " + std::to_string(odd->firstLane) + ": " + e.message;
      throw DmciError(e);
    }
  }
  // Gradient keys: wrt names in order, then literals in source order (one key per position, summed).
  std::vector<std::pair<std::string, std::vector<int32_t>>> keys;
  if (opts.gradient) {
    for (const auto& w : opts.wrt) {
      auto it = std::find(params.begin(), params.end(), w);
      keys.push_back({w, {it == params.end() ? -1 : paramSlots[static_cast<size_t>(it - params.begin())]}});
    }
    if (opts.wrtLiterals) {
      const std::vector<Literal>& lits = programLiterals();
      for (const auto& [key, at] : literalKeys(lits)) {
        keys.push_back({key, {}});
        for (size_t k : at) keys.back().second.push_back(lits[k].slot);
      }
    }
  }
  std::vector<int32_t> slots;
  for (const auto& k : keys)
    for (int32_t s : k.second)
      if (s >= 0) slots.push_back(s);
  auto a = store.assemble(rt, ends, slots);
  LaneEvaluation ev;
  ev.value = std::move(a.value);
  ev.isTensor = !a.entries.empty();
  ev.rank = a.rank, ev.rows = a.rows, ev.cols = a.cols;
  ev.tensor = std::move(a.entries);
  size_t at = 0;
  for (const auto& k : keys) {
    ev.gradientKeys.push_back(k.first);
    std::vector<double> g(ev.value.size(), 0.0);
    for (int32_t s : k.second) {
      if (s < 0) continue;
      const std::vector<double>& part = a.grad[at++];
      for (size_t lane = 0; lane < g.size(); ++lane) g[lane] += part[lane];
    }
    ev.gradient.push_back(std::move(g));
  }
  const auto& st = machine->stats();
  ev.counters.add("steps", static_cast<double>(st.steps));
  ev.counters.add("groups", static_cast<double>(st.groups));
  ev.counters.add("splits", static_cast<double>(st.splits));
  ev.counters.add("max_groups", static_cast<double>(st.maxGroups));
  ev.counters.add("syncs", static_cast<double>(store.counters.syncs));
  ev.counters.add("torch_ops", static_cast<double>(store.counters.torchOps));
  ev.counters.add("lane_loops", static_cast<double>(store.counters.laneLoops));
  return ev;
}

// One lane's run: a number or a tensor as a batch of one gives it; any other value (`dmci run` without a
// gradient) is written from lane 0 of its group.
Evaluation BatchEvaluator::State::oneLane(const std::vector<GroupEnd>& ends, const std::vector<int32_t>& paramSlots) {
  raiseFirstError(ends, !opts.anyValue || opts.gradient);
  const GroupEnd& e = ends.front();
  if (e.value.tag != Tag::Real && e.value.tag != Tag::Tensor) {
    Value shown = store.hydrate(rt, e.value, e.set, 0);
    Evaluation ev;
    ev.written = writeValue(rt, shown);
    ev.json = valueJson(rt, shown);
    ev.counters.add("steps", static_cast<double>(machine->stats().steps));
    return ev;
  }
  return finish(ends, paramSlots).lane(0);
}

Result<LaneEvaluation> BatchEvaluator::runLanes(const std::vector<std::vector<double>>& values, int64_t lanes) {
  if (!s_->setup) return s_->setupErr;
  return catchErrors([&] {
    std::vector<int32_t> paramSlots;
    auto ends = s_->runEnds(values, lanes, paramSlots);
    return s_->finish(ends, paramSlots);
  });
}

Result<Evaluation> BatchEvaluator::run(const std::vector<double>& values) {
  if (!s_->setup) return s_->setupErr;
  return catchErrors([&] {
    std::vector<std::vector<double>> lanes;
    for (double v : values) lanes.push_back({v});
    std::vector<int32_t> paramSlots;
    auto ends = s_->runEnds(lanes, 1, paramSlots);
    return s_->oneLane(ends, paramSlots);
  });
}

Result<std::vector<std::array<double, 14>>> BatchEvaluator::layout14(const std::vector<std::vector<double>>& values,
                                                                     int64_t lanes) {
  if (!s_->setup) return s_->setupErr;
  return catchErrors([&] {
    std::vector<int32_t> paramSlots;
    auto ends = s_->runEnds(values, lanes, paramSlots);
    s_->raiseFirstError(ends, false);
    return s_->store.layout14(s_->rt, ends);
  });
}

namespace {

class TensorEngine final : public Engine {
 public:
  std::string name() const override { return "tensor"; }
  std::optional<std::string> unsupported(const EvalOptions& opts) const override {
    if (byLantern(opts.route)) return std::string("--via ") + routeName(opts.route) + ": runs on the native engine";
    if (opts.tensor.device != "cpu" && opts.tensor.device != "cuda")
      return "--device " + opts.tensor.device + ": expected cpu or cuda";
    if (!tensorDeviceAvailable(opts.tensor.device))
      return "--device " + opts.tensor.device + ": LibTorch finds no such device on this machine";
    return std::nullopt;
  }
  Result<std::unique_ptr<PreparedRun>> prepare(const PreparedProgram& p, const EvalOptions& opts) override {
    if (opts.tensor.replay) {  // traces recorded natively, replayed here as whole-batch tensor ops
      if (opts.threads > 0) lanes::setThreads(opts.threads);
      return prepareBatchReplay(p, opts, lanes::tensorTraceLoader(opts.tensor));
    }
    return preparedOrError(std::make_unique<BatchEvaluator>(p, opts));
  }
  using Engine::prepare;
};

// The tensor engine registers itself, linked in or opened as a plugin.
const EngineRegistration kRegistration(
    "tensor", [] { return std::make_unique<TensorEngine>(); }, 30);

}  // namespace

bool tensorDeviceAvailable(const std::string& device) { return lanes::deviceAvailable(device); }

}  // namespace dmci
