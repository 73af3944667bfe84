// The compiled meta-circular evaluator: its graph, and programs as data for it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "expand/CoreExpr.h"
#include "lower/ComputeGraph.h"
#include "runtime/Materialise.h"

namespace dmci {

// The text of mce.scm, embedded at build time.
const std::string& mceSource();
// mce.scm's ComputeGraph, lowered at build time and embedded (loaded once).
Result<std::shared_ptr<const ComputeGraph>> mceGraph();
// Compiles mce.scm from source (what the build does; tests compare the two).
Result<ComputeGraph> compileMce();
// The parameters of mce.scm's graph, in order.
const std::vector<std::string>& mceParams();

// A linked core program as the %-tagged data mce.scm reads, with positions; `params` are the seed's names
// (the outermost frame), and each reference to a bound variable carries its lexical address.
DatumPtr programData(const CoreExpr& linked, const std::vector<std::string>& params);

// The arguments of mce.scm's graph for a program: its data (numbers become
// leaves recorded in `literals` when non-null) and the seed's names. Running
// the graph on them gives the analysed program, a procedure of the list of
// seed values. With `tower`, that procedure is mce.scm's analysis of the
// program as interpreted by mce.scm.
struct MceArguments {
  std::vector<Value> graph;  // for the graph: (program, param-names)
  Value tower;               // tower only: the seed list (program param-names) for the outer procedure
};
MceArguments mceArguments(Runtime& rt, const Datum& program, const std::vector<std::string>& names,
                          std::vector<Literal>* literals, bool tower);

}  // namespace dmci
