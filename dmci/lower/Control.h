// Gives `reset` and `shift` their meaning: a program that uses them is converted to continuation-passing style.
//
// The expander turns (reset e) into (%reset (lambda () e)) and (shift k e) into (%shift (lambda (k) e)).
// This pass, run on the program linked with its prelude, rewrites every procedure to take its continuation
// (a one-argument closure) and a flag saying whether a `reset` delimits it, then gives the two forms their
// standard meaning (Danvy and Filinski, "Abstracting Control"):
//   (reset e)    runs e with the identity continuation and returns its value to the continuation of reset;
//   (shift k e)  binds k to the continuation up to the nearest reset, as a procedure of one argument, and
//                runs e in its place, under that reset.
// Continuations are closures on the single-assignment heap, so capturing one is taking a reference: nothing
// is copied, and a continuation may be called zero, one or many times. Every engine, mce.scm (which sees the
// converted program as data) and the oracle run the result unchanged. A program without shift or reset is
// returned as it is. Errors: `shift` outside any reset (at the shift), a continuation called with other than
// one argument (at the call); every other error (arity, a variable used before its definition) is the one the
// unconverted program raises. A continuation that re-enters a define's initialiser defines the variable again.
#pragma once
#include <string>
#include <vector>

#include "expand/CoreExpr.h"

namespace dmci {

// True when the program refers to %reset or %shift.
bool usesControl(const CoreExpr& program);

// The program in continuation-passing style when it uses shift or reset, else the program itself. `params`
// are the seed's names: free variables, never primitives.
ExprPtr convertControl(const ExprPtr& program, const std::vector<std::string>& params);

}  // namespace dmci
