// Free-variable analysis over the core AST.
#pragma once
#include <string>
#include <vector>

#include "expand/CoreExpr.h"

namespace dmci {

// The names referenced in `e` and not bound inside it, in order of first occurrence.
std::vector<std::string> freeVars(const CoreExpr& e);

// Renames the free occurrences of `from[k]` to `to[k]` (bound occurrences are untouched).
ExprPtr renameFree(const ExprPtr& e, const std::vector<std::string>& from, const std::vector<std::string>& to);

}  // namespace dmci
