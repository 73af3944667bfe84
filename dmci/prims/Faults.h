// Planted adjoint faults: a test's way to show that the gate catches a wrong derivative rule. A fault multiplies
// the partials an elementary scalar primitive (sin, exp, atan, ...) records by a factor; its values are unchanged.
//
// A fault is decided once, when an engine builds what runs a program: the native machine takes its primitive rows
// from primitiveRows(), a replayer its rules from sweptRule(), each told once whether a fault is planted. Without
// one, these are the primitive table's own rows and rules, so an ordinary run carries no fault code per operation;
// with one, they are copies (defined beside the rules, in Elementary.cpp) whose partials carry the planted factor.
//
// The rule: plant a fault before the program is prepared. A fault planted after an engine has prepared a program
// does not reach that program's runs, on any thread: the machines an engine builds later for the same program (a
// batch's extra threads, the replayers of traces recorded at its runs) follow the decision made at prepare
// (FaultDecision.h); prepare the program again to run it with the fault. The factors themselves are read as the
// runs go, so clearing the faults (or planting one on another primitive) after a faulty prepare changes what those
// copies compute. The tensor engine's kernels ask adjointFaultPlanted() at each operation and do not follow it.
// fault_decision_test shows the rule on the native and replay engines.
#pragma once
#include <string>

#include "prims/PrimTable.h"
#include "prims/ScalarRule.h"

namespace dmci {

// --- test-only: plant and clear ---
// Multiplies the partials that the elementary scalar primitive `prim` records by `scale` in every engine, in every
// thread, for the runs prepared from now on. Throws std::invalid_argument for a name that is not such a primitive
// with a partial. Never called outside tests and `dmci check`'s DMCI_PLANT_ADJOINT.
void plantAdjointFault(const std::string& prim, double scale);
void clearAdjointFaults();

// --- what an engine asks once, when it prepares a run ---
// Whether any fault is planted.
bool adjointFaultPlanted();
// The primitive rows a machine runs: primitives() itself, or with `planted` the copy with planted elementary rows.
const Primitive* primitiveRows(bool planted);
// The elementary rule of primitive `id` as a sweep differentiates it: scalarRule(id), or with `planted` its copy
// whose partial rules return the partials times the planted factor. nullptr when `id` has no rule.
const ScalarRule* sweptRule(int id, bool planted);
// The factor planted on primitive `id`'s partials, 1 where none is: for partials a rule does not compute (the
// tensor engine's torch kernels).
double plantedScale(int id);

// --- the planted copies, defined with the rules (Elementary.cpp) ---
// Primitive `id`'s forward rule recording planted partials, or nullptr when `id` has no elementary rule.
PrimFn plantedForward(int id);
// Primitive `id`'s rule with planted partial rules, or nullptr when `id` has no elementary rule.
const ScalarRule* plantedRule(int id);

}  // namespace dmci
