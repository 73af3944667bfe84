// The primitive table: the single source of truth for every built-in procedure.
//
// Like chibi-scheme's opcodes.c, each primitive is one row: name, arity,
// forward rule, reverse-mode adjoint rule, a doc line and how the tensor
// engine runs it for many lanes. The reader's name lookup, the lowering pass,
// both engines, mce.scm's primitive-apply, the oracle and `dmci prims` (the
// docs) all read this table.
//
// Forward rules run on Runtime values. A scalar rule records its local
// partials on the tape as it runs (Runtime::unary/binary), so its adjoint is
// the `partials` doc and the values it records; a tensor rule records a
// TensorOp and supplies `adjoint`, which the backward sweep calls.
// Library procedures that take procedures (map, fold-left, ...) are written in
// Scheme: `prelude` holds their definition, compiled like user code so that
// they run, and differentiate, under every engine and under mce.scm.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "prims/LaneUse.h"
#include "runtime/Runtime.h"
#include "runtime/RuntimePrims.h"

namespace dmci {

// Forward rule: args[0..argc) already checked against the arity.
using PrimFn = Value (*)(Runtime& rt, const Value* args, int argc);

enum class PrimFamily { Arithmetic, Predicate, List, Vector, Tensor, Control, Internal };
const char* familyName(PrimFamily f);

struct Primitive {
  const char* name;
  int minArgs;
  int maxArgs;          // -1: variadic
  PrimFn forward;       // nullptr for prelude procedures and VM-level ones (apply)
  AdjointFn adjoint;    // tensor ops only
  const char* prelude;  // Scheme source of a library procedure, or nullptr
  PrimFamily family;
  const char* doc;       // one line: what it computes
  const char* partials;  // one line: the reverse-mode rule ("dx = cos x"), or "" when not differentiable
  LaneUse lanes = {};    // how the tensor engine runs it for a group of lanes (prims/LaneUse.h)
};

// The table, built once. Ids are indices into it and are stable within a build.
const std::vector<Primitive>& primitives();
// Id of a primitive by name, or -1. "%name" finds the primitive "name" too
// (the expander's hygienic references), and internal "%..." primitives exist
// only under their % name.
int primId(std::string_view name);
inline const Primitive& prim(int id) { return primitives()[static_cast<size_t>(id)]; }
// Checks the argument count, throwing an Arity error that names the primitive.
void checkArity(const Primitive& p, int argc);

// Each family adds its rows (one file per family).
void addArithmeticPrims(std::vector<Primitive>& t);
void addPredicatePrims(std::vector<Primitive>& t);
void addListPrims(std::vector<Primitive>& t);
void addVectorPrims(std::vector<Primitive>& t);
void addTensorPrims(std::vector<Primitive>& t);
void addControlPrims(std::vector<Primitive>& t);
void addInternalPrims(std::vector<Primitive>& t);  // mce.scm's hooks into the engine

// Elementwise tensor arithmetic (op is one of + - * /), used by the
// arithmetic primitives when an argument is a tensor. A scalar operand is
// broadcast. Defined with the tensor primitives.
Value tensorElementwise(Runtime& rt, char op, const Value& a, const Value& b);

}  // namespace dmci
