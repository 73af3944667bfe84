// Links the library procedures written in Scheme (map, fold-left, ...) into a program.
//
// The primitive table holds their source. A program that uses `map` (free,
// not a seed parameter) gets the definition of %map, and of whatever %map
// uses, in a letrec* around it, and its free references to `map` become
// `%map`. The result is self-contained, so the direct route and mce.scm run
// the same code and differentiate through it the same way.
#pragma once
#include <string>
#include <vector>

#include "expand/CoreExpr.h"

namespace dmci {

ExprPtr linkPrelude(const ExprPtr& program, const std::vector<std::string>& params);

}  // namespace dmci
