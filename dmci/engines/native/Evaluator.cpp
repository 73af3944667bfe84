// The native engine's prepared program (engines/native/Evaluator.h): the register machine with its tape, set
// up once for a set of parameter names and run for one seed at a time, recording a trace on request.
#include "engines/native/Evaluator.h"

#include <algorithm>

#include "machine/ValueText.h"
#include "prims/PrimTable.h"
#include "trace/Recorder.h"

namespace dmci {

Evaluator::Evaluator(const Program& p, std::vector<std::string> params, EvalOptions opts)
    : opts_(std::move(opts)), params_(std::move(params)), rt_(opts_.budget) {
  auto prepared = prepareProgram(p, params_, opts_);
  if (!prepared) {
    setupErr_ = prepared.error();
    return;
  }
  graph_ = prepared->graph;
  auto ok = catchErrors([&] {
    prepare(*prepared);
    return true;
  });
  if (!ok) {
    setupErr_ = ok.error();
    return;
  }
  setup_ = true;
}

Evaluator::Evaluator(const PreparedProgram& p, EvalOptions opts)
    : opts_(std::move(opts)), params_(p.params), graph_(p.graph), rt_(opts_.budget) {
  auto ok = catchErrors([&] {
    prepare(p);
    return true;
  });
  if (!ok) {
    setupErr_ = ok.error();
    return;
  }
  setup_ = true;
}

void Evaluator::prepare(const PreparedProgram& p) {
  valuePos_ = p.valuePos;
  rt_.reset();
  for (const auto& name : params_) {
    bool active = opts_.leafParameters || (opts_.gradient && !byLantern(opts_.route) &&
                                           std::find(opts_.wrt.begin(), opts_.wrt.end(), name) != opts_.wrt.end());
    paramSlots_.push_back(active ? rt_.newSlot() : -1);
  }
  for (const auto& w : opts_.wrt) {
    auto it = std::find(params_.begin(), params_.end(), w);
    wrtSlots_.push_back(it == params_.end() ? -1 : paramSlots_[static_cast<size_t>(it - params_.begin())]);
  }
  machine_ = std::make_unique<Machine>(*graph_, rt_);
  bool literalLeaves = opts_.gradient && opts_.wrtLiterals && !byLantern(opts_.route);
  lanternLiterals_ = p.lanternLiterals;
  machine_->loadConstants(!interpreted(opts_.route) && literalLeaves);
  if (interpreted(opts_.route)) {
    auto args = p.dmciInput(rt_, literalLeaves ? &literals_ : nullptr);
    analysed_ = machine_->run(args.graph);
    if (opts_.route == Route::Dmci2) analysed_ = machine_->call(analysed_, {args.tower});
  }
  mark_ = rt_.mark();
}

Result<Evaluation> Evaluator::run(const std::vector<double>& values) {
  if (!setup_) return setupErr_;
  if (values.size() != params_.size())
    return Error{ErrorKind::Usage, "expected " + std::to_string(params_.size()) + " parameter values", {}};
  return catchErrors([&]() -> Evaluation {
    rt_.resetTo(mark_);
    rt_.taping = (opts_.gradient && !byLantern(opts_.route)) || opts_.leafParameters;
    rt_.collectAfter = opts_.collectAfter;
    std::vector<Value>& params = params_scratch_;
    params.clear();
    for (size_t k = 0; k < values.size(); ++k) params.push_back(Value::real(values[k], paramSlots_[k]));
    Value out;
    if (!interpreted(opts_.route)) {
      out = machine_->run(params);
    } else {
      args_scratch_.assign(1, heapList(rt_, params));
      out = machine_->call(analysed_, args_scratch_);
    }
    if (recorder_) static_cast<replay::Recorder*>(recorder_)->finish(out);
    if (byLantern(opts_.route)) return finishLantern(out);
    return finish(out, !interpreted(opts_.route) ? machine_->literals() : literals_);
  });
}

Result<Evaluation> Evaluator::record(const std::vector<double>& values, replay::Trace& trace, bool nativeGradient) {
  if (!setup_) return setupErr_;
  trace = replay::Trace{};
  if (!opts_.leafParameters) {
    trace.notReplayable = "the evaluator was not prepared for recording";
    return run(values);
  }
  const auto leaves = mark_.nslots;
  replay::Recorder rec(rt_, trace, leaves, static_cast<int32_t>(params_.size()));
  trace.leafNames.assign(static_cast<size_t>(leaves), "?");
  trace.leafValues.assign(static_cast<size_t>(leaves), 0.0);
  for (size_t k = 0; k < params_.size() && k < values.size(); ++k) {
    auto s = static_cast<size_t>(paramSlots_[k]);
    trace.leafNames[s] = params_[k], trace.leafValues[s] = values[k];
  }
  const std::vector<Literal>& literals = !interpreted(opts_.route) ? machine_->literals() : literals_;
  for (const auto& [key, at] : literalKeys(literals))
    for (size_t j : at) {
      auto s = static_cast<size_t>(literals[j].slot);
      if (s < trace.leafNames.size()) trace.leafNames[s] = key, trace.leafValues[s] = literals[j].value;
    }
  if (mark_.tape > 0) trace.notReplayable = "the evaluator computed with leaves while preparing";
  recorder_ = &rec;
  rt_.trace = &rec;
  skipReplayableGradient_ = !nativeGradient;
  auto r = run(values);
  skipReplayableGradient_ = false;
  rt_.trace = nullptr;
  recorder_ = nullptr;
  if (!r && trace.replayable()) trace.notReplayable = "the run failed: " + r.error().message;
  return r;
}

std::vector<std::pair<std::string, std::vector<int32_t>>> Evaluator::gradientLeaves() const {
  std::vector<std::pair<std::string, std::vector<int32_t>>> out;
  if (!opts_.gradient) return out;
  for (size_t k = 0; k < opts_.wrt.size(); ++k)
    out.push_back({opts_.wrt[k], wrtSlots_[k] >= 0 ? std::vector<int32_t>{wrtSlots_[k]} : std::vector<int32_t>{}});
  if (!opts_.wrtLiterals) return out;
  const std::vector<Literal>& literals = !interpreted(opts_.route) ? machine_->literals() : literals_;
  for (const auto& [key, at] : literalKeys(literals)) {
    std::vector<int32_t> slots;
    for (size_t j : at) slots.push_back(literals[j].slot);
    out.push_back({key, slots});
  }
  return out;
}

std::vector<std::string> Evaluator::gradientKeys() const {
  std::vector<std::string> keys;
  if (!opts_.gradient) return keys;
  if (!byLantern(opts_.route)) {
    for (const auto& [key, slots] : gradientLeaves()) keys.push_back(key);
    return keys;
  }
  keys = opts_.wrt;  // a lantern run's keys (finishLantern): the wrt names, then its literal leaves by position
  if (!opts_.wrtLiterals) return keys;
  std::vector<Literal> leaves;
  for (const auto& pos : lanternLiterals_) leaves.push_back({0, pos, 0.0});
  for (const auto& [key, at] : literalKeys(leaves)) keys.push_back(key);
  return keys;
}

// A lantern run's result, (value adjoint ...): the parameters' adjoints, then the literals', summed by position.
Evaluation Evaluator::finishLantern(const Value& out) {
  std::vector<Value> items;
  for (Value l = out; l.tag == Tag::Pair; l = rt_.cdr(l)) items.push_back(rt_.car(l));
  if (items.size() != 1 + params_.size() + lanternLiterals_.size())
    throw DmciError(ErrorKind::Graph, "lantern: the run gave " + rt_.show(out) + ", not (value adjoint ...)");
  Evaluation ev;
  if (items[0].tag == Tag::Tensor) {  // a tensor value: its gradient is that of the sum of its entries
    const TensorRec& r = rt_.tensor(items[0]);
    ev.isTensor = true;
    ev.rank = r.rank, ev.rows = r.rows, ev.cols = r.cols;
    ev.tensor.assign(rt_.tdata(items[0]), rt_.tdata(items[0]) + r.size());
    for (double x : ev.tensor) ev.value += x;
  } else if (items[0].tag == Tag::Real) {
    ev.value = items[0].num;
  } else if (opts_.anyValue && !opts_.gradient) {  // any value, plain (lantern.scm strips its duals): `dmci run`
    ev.written = writeValue(rt_, items[0]);
    ev.json = valueJson(rt_, items[0]);
  } else {
    throw DmciError(notANumberOrTensor(rt_.show(items[0]), valuePos_));
  }
  for (size_t k = 1; k < items.size(); ++k)  // each leaf is a number, so each adjoint is one
    if (items[k].tag != Tag::Real)
      throw DmciError(ErrorKind::Graph, "lantern: a leaf's adjoint is " + rt_.show(items[k]) + ", not a number");
  ev.stats = machine_->stats();
  ev.heapCells = rt_.heap.size();
  ev.counters.add("steps", static_cast<double>(ev.stats.steps));
  ev.counters.add("calls", static_cast<double>(ev.stats.calls));
  ev.counters.add("heap_cells", static_cast<double>(ev.heapCells));
  if (!opts_.gradient) return ev;
  for (const auto& w : opts_.wrt) {
    auto it = std::find(params_.begin(), params_.end(), w);
    ev.gradient.emplace_back(w, it == params_.end() ? 0.0 : items[1 + static_cast<size_t>(it - params_.begin())].num);
  }
  if (!opts_.wrtLiterals) return ev;
  std::vector<Literal> leaves;
  for (size_t k = 0; k < lanternLiterals_.size(); ++k)
    leaves.push_back({static_cast<int32_t>(1 + params_.size() + k), lanternLiterals_[k], 0.0});
  for (const auto& [key, at] : literalKeys(leaves)) {
    double g = 0;
    for (size_t j : at) g += items[static_cast<size_t>(leaves[j].slot)].num;
    ev.gradient.emplace_back(key, g);
  }
  return ev;
}

Evaluation Evaluator::finish(const Value& out, const std::vector<Literal>& literals) {
  Evaluation ev;
  if (out.tag == Tag::Real) {
    ev.value = out.num;
  } else if (out.tag == Tag::Tensor) {
    const TensorRec& r = rt_.tensor(out);
    ev.isTensor = true;
    ev.rank = r.rank, ev.rows = r.rows, ev.cols = r.cols;
    ev.tensor.assign(rt_.tdata(out), rt_.tdata(out) + r.size());
    for (double x : ev.tensor) ev.value += x;
  } else if (opts_.anyValue && !opts_.gradient) {  // any value: `dmci run` prints it
    ev.written = writeValue(rt_, out);
    ev.json = valueJson(rt_, out);
  } else {
    throw DmciError(notANumberOrTensor(rt_.show(out), valuePos_));
  }
  ev.stats = machine_->stats();
  ev.heapCells = rt_.heap.size();
  ev.tapeEntries = rt_.tape.size();
  ev.counters.add("steps", static_cast<double>(ev.stats.steps));
  ev.counters.add("calls", static_cast<double>(ev.stats.calls));
  ev.counters.add("max_frames", static_cast<double>(ev.stats.maxFrames));
  ev.counters.add("heap_cells", static_cast<double>(ev.heapCells));
  ev.counters.add("tape_entries", static_cast<double>(ev.tapeEntries));
  if (!opts_.gradient) return ev;
  if (skipReplayableGradient_ && recorder_ && static_cast<replay::Recorder*>(recorder_)->trace().replayable())
    return ev;
  rt_.backward(out, adj_);
  const std::vector<double>& adj = adj_;
  auto grad = [&](int32_t slot) { return slot >= 0 && slot < static_cast<int32_t>(adj.size()) ? adj[slot] : 0.0; };
  if (opts_.wrtLiterals && !literalKeysReady_) {
    literalKeys_ = literalKeys(literals);
    literalKeysReady_ = true;
  }
  ev.gradient.reserve(opts_.wrt.size() + (opts_.wrtLiterals ? literalKeys_.size() : 0));
  for (size_t k = 0; k < opts_.wrt.size(); ++k) ev.gradient.emplace_back(opts_.wrt[k], grad(wrtSlots_[k]));
  if (opts_.wrtLiterals) {
    for (const auto& [key, at] : literalKeys_) {
      double g = grad(literals[at[0]].slot);
      for (size_t j = 1; j < at.size(); ++j) g += grad(literals[at[j]].slot);
      ev.gradient.emplace_back(key, g);
    }
  }
  return ev;
}

}  // namespace dmci
