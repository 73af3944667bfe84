// The compiled meta-circular evaluator: its graph, and programs as data for it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/Materialise.h"
#include "expand/CoreExpr.h"
#include "lower/ComputeGraph.h"

namespace dmci {

// The text of mce.scm, embedded at build time.
const std::string& mceSource();
// mce.scm's ComputeGraph, lowered at build time and embedded (loaded once).
Result<std::shared_ptr<const ComputeGraph>> mceGraph();
// Compiles mce.scm from source (what the build does; tests compare the two).
Result<ComputeGraph> compileMce();
// The parameters of mce.scm's graph, in order.
const std::vector<std::string>& mceParams();

// A linked core program as the %-tagged data mce.scm reads, with positions.
DatumPtr programData(const CoreExpr& linked);

// The arguments of mce.scm's graph for a program: its data (numbers become
// leaves recorded in `literals` when non-null), the seed names and values.
// With `tower`, the program is run by mce.scm interpreting mce.scm.
std::vector<Value> mceArguments(Runtime& rt, const Datum& program, const std::vector<std::string>& names,
                                const std::vector<Value>& values, std::vector<Literal>* literals, bool tower);

}  // namespace dmci
