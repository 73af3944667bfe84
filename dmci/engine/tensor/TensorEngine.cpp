// The tensor engine's driver: prepares a program once (as Evaluator does), runs batches, assembles per-lane results.
#include "engine/tensor/TensorEngine.h"

#include "driver/Lanes.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <tuple>

#include "engine/tensor/BatchMachine.h"
#include "lower/FreeVars.h"
#include "lower/LinkPrelude.h"
#include "lower/Lower.h"
#include "mce/Mce.h"

namespace dmci {

using lanes::GroupEnd;

struct BatchEvaluator::State {
  TensorOptions opts;
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

  State(TensorOptions o, std::vector<std::string> p) : opts(std::move(o)), params(std::move(p)), rt(opts.budget) {}
  bool literalLeaves() const { return opts.gradient && opts.wrtLiterals; }
  const std::vector<Literal>& programLiterals() const {
    return opts.route == Route::Direct ? machine->literals() : literals;
  }
  void prepare(const ExprPtr& linked);
  std::vector<GroupEnd> runEnds(const std::vector<std::vector<double>>& values, int64_t lanes,
                                std::vector<int32_t>& paramSlots);
  void raiseFirstError(const std::vector<GroupEnd>& ends, bool needNumbers);
  BatchEvaluation finish(const std::vector<GroupEnd>& ends, const std::vector<int32_t>& paramSlots);
};

namespace {

// The position of the expression whose value is the program's value (as Evaluator reports it).
SrcPos valuePosition(const CoreExpr* e) {
  for (;;) {
    if (e->kind == CoreKind::Let || e->kind == CoreKind::Letrec) e = e->body.get();
    else if (e->kind == CoreKind::Begin) e = e->kids.back().get();
    else return e->pos;
  }
}

// The one value of a run that must not split (the evaluator's analysis of the program).
Value single(const std::vector<GroupEnd>& ends) {
  if (ends.size() == 1 && !ends[0].failed) return ends[0].value;
  for (const auto& e : ends)
    if (e.failed) throw DmciError(e.error);
  throw DmciError(ErrorKind::Graph, "tensor engine: the evaluator's analysis split into lane groups");
}

}  // namespace

void BatchEvaluator::State::prepare(const ExprPtr& linked) {
  valuePos = valuePosition(linked.get());
  rt.reset();
  rt.taping = false;
  store.configure(opts.device, opts.float32);
  machine = std::make_unique<lanes::BatchMachine>(*graph, rt, store);
  machine->loadConstants(opts.route == Route::Direct && literalLeaves());
  if (opts.route != Route::Direct) {
    bool tower = opts.route == Route::Dmci2;
    auto args = mceArguments(rt, *programData(*linked), params, literalLeaves() ? &literals : nullptr, tower);
    store.keepSlots(rt);
    store.beginRun(rt, 1);
    analysed = single(machine->run(args.graph));
    if (tower) analysed = single(machine->call(analysed, {args.tower}));
  }
  store.keepSlots(rt);
  mark = rt.mark();
}

BatchEvaluator::BatchEvaluator(const Program& p, std::vector<std::string> params, TensorOptions opts)
    : s_(std::make_unique<State>(std::move(opts), std::move(params))) {
  auto ok = catchErrors([&] {
    ExprPtr linked = linkPrelude(p.core(), s_->params);
    if (s_->opts.route == Route::Direct) {
      auto g = lower(linked, LowerOptions{s_->params});
      if (!g) throw DmciError(g.error());
      s_->graph = std::make_shared<const ComputeGraph>(std::move(*g));
    } else if (s_->opts.evaluator) {
      s_->graph = s_->opts.evaluator;
    } else {
      auto g = mceGraph();
      if (!g) throw DmciError(g.error());
      s_->graph = *g;
    }
    s_->prepare(linked);
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
    if (static_cast<int64_t>(v.size()) != b) throw DmciError(ErrorKind::Usage, "every parameter needs one value per lane");
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
  throw DmciError(ErrorKind::Type, "the program's value must be a number or a tensor, got " + rt.show(shown), valuePos);
}

BatchEvaluation BatchEvaluator::State::finish(const std::vector<GroupEnd>& ends, const std::vector<int32_t>& paramSlots) {
  raiseFirstError(ends, true);
  // Gradient keys: wrt names in order, then literals in source order (one key per position, summed).
  std::vector<std::pair<std::string, std::vector<int32_t>>> keys;
  if (opts.gradient) {
    for (const auto& w : opts.wrt) {
      auto it = std::find(params.begin(), params.end(), w);
      keys.push_back({w, {it == params.end() ? -1 : paramSlots[static_cast<size_t>(it - params.begin())]}});
    }
    if (opts.wrtLiterals) {
      std::vector<Literal> sorted = programLiterals();
      std::stable_sort(sorted.begin(), sorted.end(), [](const Literal& a, const Literal& b) {
        return std::tie(a.pos.file, a.pos.line, a.pos.col) < std::tie(b.pos.file, b.pos.line, b.pos.col);
      });
      for (size_t k = 0; k < sorted.size(); ++k) {
        if (k > 0 && sorted[k].pos == sorted[k - 1].pos) keys.back().second.push_back(sorted[k].slot);
        else keys.push_back({sorted[k].pos.str(), {sorted[k].slot}});
      }
    }
  }
  std::vector<int32_t> slots;
  for (const auto& k : keys)
    for (int32_t s : k.second)
      if (s >= 0) slots.push_back(s);
  auto a = store.assemble(rt, ends, slots);
  BatchEvaluation ev;
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
  ev.stats = {st.groups, st.splits, st.maxGroups, store.counters.syncs, store.counters.torchOps,
              store.counters.laneLoops, st.steps};
  return ev;
}

Result<BatchEvaluation> BatchEvaluator::run(const std::vector<std::vector<double>>& values, int64_t lanes) {
  if (!s_->setup) return s_->setupErr;
  return catchErrors([&] {
    std::vector<int32_t> paramSlots;
    auto ends = s_->runEnds(values, lanes, paramSlots);
    return s_->finish(ends, paramSlots);
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

// The checks Program::evaluate makes of a seed, for a batch.
}  // namespace

Result<BatchEvaluation> evaluateBatch(const Program& p, const LaneBatch& batch, const TensorOptions& opts) {
  if (auto err = checkLaneBatch(p, batch, opts.wrt)) return *err;
  BatchEvaluator ev(p, batch.params, opts);
  if (ev.setupError()) return *ev.setupError();
  return ev.run(batch.values, batch.count);
}

EvalOptions nativeOptions(const TensorOptions& opts) {
  EvalOptions eo;
  eo.route = opts.route;
  eo.gradient = opts.gradient;
  eo.wrt = opts.wrt;
  eo.wrtLiterals = opts.wrtLiterals;
  eo.budget = opts.budget;
  eo.evaluator = opts.evaluator;
  return eo;
}

TensorOptions tensorOptions(const EvalOptions& opts, const std::string& device, bool float32) {
  TensorOptions o;
  o.route = opts.route;
  o.gradient = opts.gradient;
  o.wrt = opts.wrt;
  o.wrtLiterals = opts.wrtLiterals;
  o.budget = opts.budget;
  o.evaluator = opts.evaluator;
  o.device = device;
  o.float32 = float32;
  return o;
}

Result<BatchEvaluation> evaluateBatchNative(const Program& p, const LaneBatch& batch, const TensorOptions& opts) {
  if (auto err = checkLaneBatch(p, batch, opts.wrt)) return *err;
  auto r = evaluateLanes(p, batch.params, batch.values, nativeOptions(opts), opts.threads,
                         static_cast<size_t>(batch.lanes()));
  if (!r) return r.error();
  BatchEvaluation out;
  out.value = std::move(r->value);
  out.gradientKeys = std::move(r->gradientKeys);
  out.gradient = std::move(r->gradient);
  out.stats.steps = r->steps;
  out.stats.groups = static_cast<uint64_t>(batch.lanes());
  out.threads = r->threads;
  out.seconds = r->seconds;
  out.busySeconds = r->busySeconds;
  return out;
}

Result<Evaluation> evaluateOnTensorEngine(const Program& p, const std::vector<SeedValue>& seed,
                                          const EvalOptions& opts, const std::string& device, bool float32) {
  LaneBatch batch;
  for (const auto& s : seed) batch.params.push_back(s.name), batch.values.push_back({s.value});
  TensorOptions o = tensorOptions(opts, device, float32);
  auto b = evaluateBatch(p, batch, o);
  if (!b) return b.error();
  Evaluation ev;
  ev.value = b->value[0];
  ev.isTensor = b->isTensor;
  ev.rank = b->rank, ev.rows = b->rows, ev.cols = b->cols;
  ev.tensor = b->tensor;
  ev.gradient = b->laneGradient(0);
  ev.stats.steps = b->stats.steps;
  return ev;
}

bool tensorDeviceAvailable(const std::string& device) { return lanes::deviceAvailable(device); }

void setTensorEngineThreads(int threads) { lanes::setThreads(threads); }

double deviceBandwidth(const std::string& device, bool float32, int64_t elements, int repeats) {
  return lanes::triadBandwidth(device, float32, elements, repeats);
}

}  // namespace dmci
