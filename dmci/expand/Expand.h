// The expander: Datums to the core AST.
//
// It removes every derived form of LANGUAGE.md (internal defines, let*, named
// let, letrec, cond with else and =>, case, and, or, when, unless, do,
// loop/recur, quasiquote) and rejects set! and malformed forms with the
// position of the offending datum. Names beginning with '%' are reserved for
// the implementation: a user program may not bind or mention them unless
// `allowInternal` is set (mce.scm and the prelude set it). Derived forms that
// need a primitive refer to it as "%name" (e.g. %eqv?, %cons), so rebinding
// `eqv?` or `cons` in a user program cannot change what `case` or quasiquote mean.
#pragma once
#include <string>
#include <vector>

#include "expand/CoreExpr.h"
#include "syntax/Error.h"

namespace dmci {

struct ExpandOptions {
  bool allowInternal = false;
  std::string file;  // names the source in the error for an empty program (reported at file:1:1)
};

// Expands a whole program (a body: defines then expressions) into one core
// expression: a Letrec of the top-level defines around a Begin of the rest.
// The program's value is its last expression; a program with no expression is an error.
Result<ExprPtr> expandProgram(const std::vector<DatumPtr>& forms, const ExpandOptions& opts = {});
// Expands a single expression (no defines at its top).
Result<ExprPtr> expandExpr(const DatumPtr& form, const ExpandOptions& opts = {});

}  // namespace dmci
