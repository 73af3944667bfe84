// The core AST: what the expander produces and everything after it consumes.
//
// Seven forms. Every derived form in LANGUAGE.md becomes one of these:
//   Const   a quoted datum or a self-evaluating literal (numbers in it are literals)
//   Ref     a variable reference
//   If      (if c t e); a two-armed if gets an Unspecified else
//   Lambda  fixed or variadic parameters, one body expression
//   App     application
//   Begin   a sequence (at least one expression)
//   Let     parallel bindings, then body
//   Letrec  letrec* bindings (internal and top-level defines), then body
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "syntax/Datum.h"

namespace dmci {

enum class CoreKind { Const, Ref, If, Lambda, App, Begin, Let, Letrec };

struct CoreExpr;
using ExprPtr = std::shared_ptr<const CoreExpr>;
using Binding = std::pair<std::string, ExprPtr>;

struct CoreExpr {
  CoreKind kind = CoreKind::Const;
  SrcPos pos;
  DatumPtr datum;                   // Const: the value (Nil for the unspecified value)
  std::string name;                 // Ref: variable; Lambda: a name for messages ("f", or "")
  std::vector<ExprPtr> kids;        // If: c t e; App: f args...; Begin: exprs
  std::vector<std::string> params;  // Lambda: parameter names; the last is the rest list when variadic
  bool variadic = false;            // Lambda
  int hidden = 0;                   // Lambda: leading parameters a pass added (lower/Control.h), not the source's
  std::vector<Binding> bindings;    // Let, Letrec
  ExprPtr body;                     // Lambda, Let, Letrec

  CoreExpr() = default;
  CoreExpr(const CoreExpr&) = delete;
  CoreExpr& operator=(const CoreExpr&) = delete;
  // Frees a chain of any length without recursion (a long let* nests as deep as it is long).
  ~CoreExpr();

  static ExprPtr constant(DatumPtr d, SrcPos p);
  static ExprPtr ref(std::string n, SrcPos p);
  static ExprPtr if_(ExprPtr c, ExprPtr t, ExprPtr e, SrcPos p);
  static ExprPtr lambda(std::vector<std::string> params, bool variadic, ExprPtr body, SrcPos p, std::string name = "",
                        int hidden = 0);
  static ExprPtr app(std::vector<ExprPtr> fAndArgs, SrcPos p);
  static ExprPtr begin(std::vector<ExprPtr> exprs, SrcPos p);
  static ExprPtr let(std::vector<Binding> b, ExprPtr body, SrcPos p);
  static ExprPtr letrec(std::vector<Binding> b, ExprPtr body, SrcPos p);
};

// Prints the core AST as an S-expression (for tests and `dmci expand`); neither recurses in C++.
DatumPtr toDatum(const CoreExpr& e);
std::string print(const CoreExpr& e);

}  // namespace dmci
