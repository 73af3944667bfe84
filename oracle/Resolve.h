// Prepares a program for the oracle once: links the prelude, resolves every
// variable reference to its lexical address, and lists the literals.
//
// Scope is lexical, so where a reference finds its value is known before the
// program runs: a slot of an enclosing frame (the seed parameters are the
// outermost frame), a primitive by name, or nothing (an unbound-variable error
// if the reference is ever evaluated).
#pragma once
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "driver/Program.h"

namespace dmci::oracle {

struct Address {
  enum class Where { Frame, Primitive, Unbound };
  Where where = Where::Unbound;
  int depth = 0;  // Frame: how many frames out from the innermost
  int index = 0;  // Frame: the slot
  int prim = -1;  // Primitive: its id in the primitive table
};

struct Prepared {
  ExprPtr linked;                                          // the program with its library procedures
  std::vector<std::string> params;                         // the outermost frame's variables
  std::unordered_map<const CoreExpr*, Address> addresses;  // of every Ref node
  std::vector<std::pair<std::string, double>> literals;    // each key once, in source order
  SrcPos valuePos;                                         // the expression giving the program's value
};

Prepared prepare(const Program& program, const std::vector<std::string>& params);

}  // namespace dmci::oracle
