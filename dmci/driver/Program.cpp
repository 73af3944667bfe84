// The pipeline driver: reads, expands, links, lowers and runs a program by either route.
#include "driver/Program.h"

#include <algorithm>
#include <fstream>
#include <sstream>

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
  auto core = expandProgram(*forms);
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
  } else {
    auto g = mceGraph();
    if (!g) {
      setupErr_ = g.error();
      return;
    }
    graph_ = *g;
    programData_ = programData(**linked);
  }
  setup_ = true;
}

Result<Evaluation> Evaluator::run(const std::vector<double>& values) {
  if (!setup_) return setupErr_;
  return catchErrors([&]() -> Evaluation {
    rt_.reset();
    rt_.taping = opts_.gradient;
    Machine m(*graph_, rt_);
    m.loadConstants(opts_.route == Route::Direct && opts_.wrtLiterals);
    std::vector<Value> params;
    for (size_t k = 0; k < values.size(); ++k) {
      bool active = std::find(opts_.wrt.begin(), opts_.wrt.end(), params_[k]) != opts_.wrt.end();
      params.push_back(active && opts_.gradient ? rt_.leaf(values[k]) : Value::real(values[k]));
    }
    if (opts_.route == Route::Direct) {
      Value out = m.run(params);
      return finish(out, m, params, m.literals());
    }
    std::vector<Literal> literals;
    auto mceParams = mceArguments(rt_, *programData_, params_, params, opts_.wrtLiterals ? &literals : nullptr,
                                  opts_.route == Route::Dmci2);
    Value out = m.run(mceParams);
    return finish(out, m, params, literals);
  });
}

Evaluation Evaluator::finish(const Value& out, Machine& m, const std::vector<Value>& params,
                             const std::vector<Literal>& literals) {
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
                    SrcPos{});
  }
  ev.stats = m.stats();
  ev.heapCells = rt_.heap.size();
  ev.tapeEntries = rt_.tape.size();
  if (!opts_.gradient) return ev;
  std::vector<double> adj = rt_.backward(out);
  auto grad = [&](int32_t slot) { return slot >= 0 && slot < static_cast<int32_t>(adj.size()) ? adj[slot] : 0.0; };
  for (const auto& w : opts_.wrt) {
    auto it = std::find(params_.begin(), params_.end(), w);
    ev.gradient.emplace_back(w, grad(params[static_cast<size_t>(it - params_.begin())].i));
  }
  if (opts_.wrtLiterals)
    for (const auto& l : literals) ev.gradient.emplace_back(l.pos.str(), grad(l.slot));
  return ev;
}

}  // namespace dmci
