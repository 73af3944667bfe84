// What the runtime knows of a primitive, by id: its name, to show a first-class
// primitive, and its adjoint rule, for the backward sweep over tensor ops.
//
// The primitive table defines both (prims/PrimTable.cpp), so the dependency
// goes one way: the table's rows are built on the runtime, and the runtime
// names no primitive.
#pragma once
#include <vector>

namespace dmci {

class Runtime;
struct TensorOp;

// Reverse rule of a tensor op: adds to the input adjoints (adj[slot]) given the output's.
using AdjointFn = void (*)(Runtime& rt, const TensorOp& op, std::vector<double>& adj);

const char* primitiveName(int id);
AdjointFn primitiveAdjoint(int id);

}  // namespace dmci
