// The pipeline driver: reads, expands, links, lowers and runs a program by either route.
#include "driver/Program.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

#include "expand/Expand.h"
#include "lower/FreeVars.h"
#include "lower/LinkPrelude.h"
#include "lower/Lower.h"
#include "mce/Mce.h"
#include "prims/PrimTable.h"
#include "syntax/Reader.h"

namespace dmci {

const char* routeName(Route r) {
  switch (r) {
    case Route::Direct: return "direct";
    case Route::Dmci: return "dmci";
    case Route::Dmci2: return "dmci2";
  }
  return "?";
}

Result<Program> Program::fromText(const std::string& text, const std::string& file) {
  auto forms = readAll(text, file);
  if (!forms) return forms.error();
  ExpandOptions opts;
  opts.file = file;
  auto core = expandProgram(*forms, opts);
  if (!core) return core.error();
  Program p;
  p.file_ = file;
  p.core_ = *core;
  return p;
}

Result<Program> Program::fromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read " + path, {}};
  std::ostringstream s;
  s << in.rdbuf();
  return fromText(s.str(), path);
}

std::vector<std::string> Program::freeParameters() const {
  std::vector<std::string> out;
  for (const auto& n : freeVars(*core_)) {
    int id = primId(n);
    if (id < 0) out.push_back(n);
  }
  return out;
}

Result<ComputeGraph> Program::compile(const std::vector<std::string>& params) const {
  return catchErrors([&]() -> ComputeGraph {
    auto g = lower(linkPrelude(core_, params), LowerOptions{params});
    if (!g) throw DmciError(g.error());
    return std::move(*g);
  });
}

Result<Evaluation> Program::evaluate(const std::vector<SeedValue>& seed, const EvalOptions& opts) const {
  std::vector<std::string> names;
  std::vector<double> values;
  for (const auto& b : seed) {
    if (std::find(names.begin(), names.end(), b.name) != names.end())
      return Error{ErrorKind::Usage, "parameter '" + b.name + "' is bound twice", {}};
    names.push_back(b.name);
    values.push_back(b.value);
  }
  for (const auto& w : opts.wrt)
    if (std::find(names.begin(), names.end(), w) == names.end())
      return Error{ErrorKind::Usage, "--wrt names '" + w + "', which has no --bind value", {}};
  Evaluator ev(*this, names, opts);
  if (ev.setupError()) return *ev.setupError();
  return ev.run(values);
}

Evaluator::Evaluator(const Program& p, std::vector<std::string> params, EvalOptions opts)
    : opts_(std::move(opts)), params_(std::move(params)), rt_(opts_.budget) {
  auto linked = catchErrors([&] { return linkPrelude(p.core(), params_); });
  if (!linked) {
    setupErr_ = linked.error();
    return;
  }
  if (opts_.route == Route::Direct) {
    auto g = lower(*linked, LowerOptions{params_});
    if (!g) {
      setupErr_ = g.error();
      return;
    }
    graph_ = std::make_shared<const ComputeGraph>(std::move(*g));
  } else if (opts_.evaluator) {
    graph_ = opts_.evaluator;
  } else {
    auto g = mceGraph();
    if (!g) {
      setupErr_ = g.error();
      return;
    }
    graph_ = *g;
  }
  auto prepared = catchErrors([&] {
    prepare(*linked);
    return true;
  });
  if (!prepared) {
    setupErr_ = prepared.error();
    return;
  }
  setup_ = true;
}

// The position of the expression whose value is the program's value.
static SrcPos valuePosition(const CoreExpr* e) {
  for (;;) {
    if (e->kind == CoreKind::Let || e->kind == CoreKind::Letrec) e = e->body.get();
    else if (e->kind == CoreKind::Begin) e = e->kids.back().get();
    else return e->pos;
  }
}

void Evaluator::prepare(const ExprPtr& linked) {
  valuePos_ = valuePosition(linked.get());
  rt_.reset();
  for (const auto& name : params_) {
    bool active = opts_.gradient && std::find(opts_.wrt.begin(), opts_.wrt.end(), name) != opts_.wrt.end();
    paramSlots_.push_back(active ? rt_.newSlot() : -1);
  }
  for (const auto& w : opts_.wrt) {
    auto it = std::find(params_.begin(), params_.end(), w);
    wrtSlots_.push_back(it == params_.end() ? -1 : paramSlots_[static_cast<size_t>(it - params_.begin())]);
  }
  machine_ = std::make_unique<Machine>(*graph_, rt_);
  bool literalLeaves = opts_.gradient && opts_.wrtLiterals;
  machine_->loadConstants(opts_.route == Route::Direct && literalLeaves);
  if (opts_.route != Route::Direct) {
    bool tower = opts_.route == Route::Dmci2;
    auto args = mceArguments(rt_, *programData(*linked), params_, literalLeaves ? &literals_ : nullptr, tower);
    analysed_ = machine_->run(args.graph);
    if (tower) analysed_ = machine_->call(analysed_, {args.tower});
  }
  mark_ = rt_.mark();
}

Result<Evaluation> Evaluator::run(const std::vector<double>& values) {
  if (!setup_) return setupErr_;
  if (values.size() != params_.size())
    return Error{ErrorKind::Usage, "expected " + std::to_string(params_.size()) + " parameter values", {}};
  return catchErrors([&]() -> Evaluation {
    rt_.resetTo(mark_);
    rt_.taping = opts_.gradient;
    rt_.collectAfter = opts_.collectAfter;
    std::vector<Value>& params = params_scratch_;
    params.clear();
    for (size_t k = 0; k < values.size(); ++k) params.push_back(Value::real(values[k], paramSlots_[k]));
    if (opts_.route == Route::Direct) return finish(machine_->run(params), machine_->literals());
    args_scratch_.assign(1, heapList(rt_, params));
    return finish(machine_->call(analysed_, args_scratch_), literals_);
  });
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
  } else {
    throw DmciError(ErrorKind::Type, "the program's value must be a number or a tensor, got " + rt_.show(out),
                    valuePos_);
  }
  ev.stats = machine_->stats();
  ev.heapCells = rt_.heap.size();
  ev.tapeEntries = rt_.tape.size();
  if (!opts_.gradient) return ev;
  rt_.backward(out, adj_);
  const std::vector<double>& adj = adj_;
  auto grad = [&](int32_t slot) { return slot >= 0 && slot < static_cast<int32_t>(adj.size()) ? adj[slot] : 0.0; };
  if (opts_.wrtLiterals && literalOrder_.size() != literals.size()) {
    // Literals in source order, once: a literal the expander duplicated counts once, with the summed gradient.
    literalOrder_.resize(literals.size());
    for (size_t k = 0; k < literals.size(); ++k) literalOrder_[k] = k;
    std::stable_sort(literalOrder_.begin(), literalOrder_.end(), [&](size_t a, size_t b) {
      const SrcPos &pa = literals[a].pos, &pb = literals[b].pos;
      return std::tie(pa.file, pa.line, pa.col) < std::tie(pb.file, pb.line, pb.col);
    });
    literalKeys_.clear();
    for (size_t k : literalOrder_) literalKeys_.push_back(literals[k].pos.str());
  }
  ev.gradient.reserve(opts_.wrt.size() + (opts_.wrtLiterals ? literals.size() : 0));
  for (size_t k = 0; k < opts_.wrt.size(); ++k) ev.gradient.emplace_back(opts_.wrt[k], grad(wrtSlots_[k]));
  if (opts_.wrtLiterals) {
    for (size_t k = 0; k < literalOrder_.size(); ++k) {
      const Literal& lit = literals[literalOrder_[k]];
      if (k > 0 && lit.pos == literals[literalOrder_[k - 1]].pos) {
        ev.gradient.back().second += grad(lit.slot);
        continue;
      }
      ev.gradient.emplace_back(literalKeys_[k], grad(lit.slot));
    }
  }
  return ev;
}

}  // namespace dmci
