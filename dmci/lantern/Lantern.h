// The lantern routes' program: a user program whose gradient comes from lantern.scm's continuation-based
// reverse mode (shift/reset, no tape) instead of an engine's tape.
//
// The program's primitives are rebound to the library's (each differentiable one shifts to the rest of the
// computation and returns the adjoints); its seed parameters and numeric literals become the library's dual
// numbers; the whole runs under reset with seed adjoint 1, and the result is a list (value adjoint ...) of
// the program's value and the adjoint of each parameter, then of each literal. The engines run it with their
// own gradient off: `--via lantern` lowers it directly, `--via lantern-dmci` runs it through mce.scm. A program
// that uses shift and reset itself is converted (lower/Control.h) before lantern.scm is put around it, so that
// its resets do not delimit lantern.scm's shifts, nor lantern.scm's reset its own.
#pragma once
#include <string>
#include <vector>

#include "expand/CoreExpr.h"

namespace dmci {

struct LanternProgram {
  ExprPtr core;                  // the program to link and run
  std::vector<SrcPos> literals;  // the position of each literal leaf, in the result's order (after parameters)
};

// Builds it from the user's expanded program and the seed's parameter names.
LanternProgram lanternProgram(const ExprPtr& user, const std::vector<std::string>& params);

// The primitives lantern.scm differentiates (for reports): their names, and those it does not cover.
std::vector<std::string> lanternCovered();
std::vector<std::string> lanternNotCovered();
// The primitives a program names that lantern.scm does not cover (its run would stop at the first one used).
std::vector<std::string> lanternUncoveredIn(const CoreExpr& user);

}  // namespace dmci
