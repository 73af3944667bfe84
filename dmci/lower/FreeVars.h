// Free-variable analysis over the core AST, and renaming of free references.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "expand/CoreExpr.h"

namespace dmci {

// The names referenced in `e` and not bound inside it, in order of first occurrence.
std::vector<std::string> freeVars(const CoreExpr& e);

// Renames free references in one walk: rename(name) is asked once for each free name, in order of first
// occurrence, and gives its new name or null to keep it (the answer must stay valid until renameFree
// returns). Bound occurrences are untouched; e itself comes back when nothing is renamed.
using Renaming = std::function<const std::string*(const std::string& name)>;
ExprPtr renameFree(const ExprPtr& e, const Renaming& rename);

}  // namespace dmci
