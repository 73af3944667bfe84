// The pipeline's set-up, once, for every engine: a read and expanded program, linked with the prelude for one set
// of parameter names, and the graph that runs it by the asked route (the program's own graph for `direct`, the
// evaluator's for `dmci`/`dmci2`, `--evaluator FILE` included). Engines take a PreparedProgram and build only
// their own state from it, so a new engine repeats none of this.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "driver/Options.h"
#include "expand/CoreExpr.h"
#include "lower/ComputeGraph.h"
#include "runtime/Materialise.h"  // Literal

namespace dmci {

class Program;

struct PreparedProgram {
  Route route = Route::Direct;
  std::vector<std::string> params;            // the parameter names, in the order values are given
  ExprPtr linked;                             // the program with the prelude it uses
  std::shared_ptr<const ComputeGraph> graph;  // direct: the program's; dmci, dmci2: the evaluator's
  SrcPos valuePos;                            // the expression giving the program's value
  std::vector<SrcPos> lanternLiterals;        // lantern routes: each literal leaf's position (lantern/Lantern.h)

  // dmci routes: the evaluator's arguments for this program on `rt` (its numbers become leaves recorded in
  // `literals` when non-null). Running the graph on `graph`, then, for dmci2, the result on `tower`, gives
  // the analysed program: a procedure of the list of parameter values.
  struct DmciInput {
    std::vector<Value> graph;
    Value tower;
  };
  DmciInput dmciInput(Runtime& rt, std::vector<Literal>* literals) const;
};

// Prepares `p` for runs with these parameter names by the options' route.
Result<PreparedProgram> prepareProgram(const Program& p, std::vector<std::string> params, const EvalOptions& opts);

// The gradient's literal keys: the literals in source order, one key ("file:line:col") per position, with the
// indices (into `literals`) of every literal at that position: a literal the expander duplicated counts once,
// its gradient summed.
std::vector<std::pair<std::string, std::vector<size_t>>> literalKeys(const std::vector<Literal>& literals);

}  // namespace dmci
