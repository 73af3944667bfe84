// The pipeline's set-up for every engine: link the prelude, then lower the program or take the evaluator's graph.
#include "driver/Prepare.h"

#include <algorithm>
#include <tuple>

#include "driver/Program.h"
#include "lantern/Lantern.h"
#include "lower/Control.h"
#include "lower/LinkPrelude.h"
#include "lower/Lower.h"
#include "mce/Mce.h"

namespace dmci {
namespace {

// The position of the expression whose value is the program's value.
SrcPos valuePosition(const CoreExpr* e) {
  for (;;) {
    if (e->kind == CoreKind::Let || e->kind == CoreKind::Letrec)
      e = e->body.get();
    else if (e->kind == CoreKind::Begin)
      e = e->kids.back().get();
    else
      return e->pos;
  }
}

}  // namespace

Result<PreparedProgram> prepareProgram(const Program& p, std::vector<std::string> params, const EvalOptions& opts) {
  return catchErrors([&]() -> PreparedProgram {
    PreparedProgram out;
    out.route = opts.route;
    out.params = std::move(params);
    out.valuePos = valuePosition(p.core().get());
    ExprPtr program = p.core();
    if (byLantern(opts.route)) {
      LanternProgram lp = lanternProgram(p.core(), out.params);
      program = lp.core;
      out.lanternLiterals = std::move(lp.literals);
    }
    out.linked = convertControl(linkPrelude(program, out.params), out.params);
    if (!interpreted(opts.route)) {
      auto g = lower(out.linked, LowerOptions{out.params});
      if (!g) throw DmciError(g.error());
      out.graph = std::make_shared<const ComputeGraph>(std::move(*g));
    } else if (opts.evaluator) {
      out.graph = opts.evaluator;
    } else {
      auto g = mceGraph();
      if (!g) throw DmciError(g.error());
      out.graph = *g;
    }
    return out;
  });
}

PreparedProgram::DmciInput PreparedProgram::dmciInput(Runtime& rt, std::vector<Literal>* literals) const {
  auto args = mceArguments(rt, *programData(*linked, params), params, literals, route == Route::Dmci2);
  return {std::move(args.graph), args.tower};
}

std::vector<std::pair<std::string, std::vector<size_t>>> literalKeys(const std::vector<Literal>& literals) {
  std::vector<size_t> order(literals.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const SrcPos &pa = literals[a].pos, &pb = literals[b].pos;
    return std::tie(pa.file, pa.line, pa.col) < std::tie(pb.file, pb.line, pb.col);
  });
  std::vector<std::pair<std::string, std::vector<size_t>>> keys;
  for (size_t j = 0; j < order.size(); ++j) {
    if (j > 0 && literals[order[j]].pos == literals[order[j - 1]].pos)
      keys.back().second.push_back(order[j]);
    else
      keys.push_back({literals[order[j]].pos.str(), {order[j]}});
  }
  return keys;
}

}  // namespace dmci
