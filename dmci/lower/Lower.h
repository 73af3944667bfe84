// Lowering: the core AST to a ComputeGraph.
//
// Sub-passes, in order: free-variable analysis (FreeVars.h) gives every lambda
// its flat environment layout; closure conversion turns each lambda into a
// code block; letrec* analysis finds the variables read before their
// definition is reached and gives them write-once boxes; tail-call marking
// emits TailCall/TailApply in tail position. Free variables of the program
// are seed parameters when named in `params`, else primitives, else they
// lower to an Unbound instruction that raises at run time (as in Scheme,
// an unbound reference is an error only when evaluated).
#pragma once
#include <string>
#include <vector>

#include "expand/CoreExpr.h"
#include "lower/ComputeGraph.h"

namespace dmci {

struct LowerOptions {
  std::vector<std::string> params;  // the seed's names, in the order their values are passed
};

Result<ComputeGraph> lower(const ExprPtr& program, const LowerOptions& opts);

}  // namespace dmci
