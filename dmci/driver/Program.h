// The pipeline as one API: read -> expand -> link prelude -> lower -> run, by either route, on the native engine
// (engines/native/Evaluator.h is that engine's prepared program, for repeated runs).
//
//   direct  the program itself is lowered to a ComputeGraph and run;
//   dmci    the compiled mce.scm runs the program as data (see mce/Mce.h);
//   dmci2   mce.scm runs mce.scm running the program (the tower).
// Both routes run on the native engine with reverse mode, and report the
// gradient of the program's value with respect to the named seed parameters
// and, on request, every numeric literal (keyed "file:line:col").
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "driver/Evaluation.h"
#include "driver/Options.h"
#include "driver/Prepare.h"
#include "expand/CoreExpr.h"
#include "lower/ComputeGraph.h"

namespace dmci {

// A program read and expanded once, ready to run with any seed by any route.
class Program {
 public:
  static Result<Program> fromText(const std::string& text, const std::string& file);
  // "-" reads standard input (named "<stdin>" in positions).
  static Result<Program> fromFile(const std::string& path);
  // Forms already read (and perhaps rewritten) expanded as one program named `file`: `dmci fit` binds its data
  // columns and fitted literals on the read forms this way, with each form's own positions kept.
  static Result<Program> fromForms(const std::vector<DatumPtr>& forms, const std::string& file);
  // A program whose expanded form a pass rewrote (smooth/Smooth.h), named as the program it came from.
  Program withCore(ExprPtr core) const {
    Program p;
    p.file_ = file_;
    p.core_ = std::move(core);
    return p;
  }

  const ExprPtr& core() const { return core_; }
  const std::string& file() const { return file_; }
  // The free variables of the program that are not primitives or library procedures.
  std::vector<std::string> freeParameters() const;

  // The direct route's graph for these parameter names.
  Result<ComputeGraph> compile(const std::vector<std::string>& params) const;
  // Runs once on the native engine (preparing on every call; use an Engine's prepare, or the native Evaluator, to
  // repeat).
  Result<Evaluation> evaluate(const std::vector<SeedValue>& seed, const EvalOptions& opts) const;

 private:
  std::string file_;
  ExprPtr core_;
};

}  // namespace dmci
