// A program's numeric trace: the straight line of scalar operations one control path performs on the values
// that depend on its leaves (its parameters and differentiated literals), with the guards that say when
// another input would take another path.
//
// Recorded once by the native machine (trace/Recorder.h), a trace is replayed forward and in reverse for new
// parameter values and many lanes without interpreting again (engines/replay/Replay.h). Recorded through mce.scm it is
// the evaluator specialised to the program: the interpretive work leaves nothing in it. The text form
// (writeTrace) is stable: `dmci trace` prints it and the tests compare it.
//
// Slots: [0, leaves) are the leaves, numbered as the native tape numbers them (the parameters in the prepared
// order, then the literals); the operations' results follow. An operand is a Ref: a slot (>= 0) or a constant
// (-1 - k: consts[k]).
//
// Tensors: a tensor that depends on a leaf is a tensor slot t0, t1, ... of a fixed shape (shapes come from list
// lengths and size arguments, never from a dependent number, so they are fixed along a path); a constant tensor
// that meets one is a tensor slot holding its numbers. Each tensor primitive applied to a dependent tensor, or
// building one from dependent numbers (vec, mat), is a TensorStep: its operands are Trace::args (a Real: a scalar
// slot or a constant number; a Tensor: tensor slot i), its result a tensor slot or a scalar slot (ref, dot, det,
// ...). Tensor steps are kept apart from `ops`, placed by the number of operations and guards recorded before
// them, so a trace without tensors reads exactly as before; the block replayer and the LibTorch trace replay
// refuse a trace that has them (hasTensorSteps), the C++ emitter writes them as Eigen fixed-size code.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "runtime/Value.h"

namespace dmci::replay {

using Ref = int32_t;
inline bool isConst(Ref r) { return r < 0; }
inline int32_t constIndex(Ref r) { return -1 - r; }

enum class OpKind : uint8_t {
  Add,    // a + b
  Sub,    // a - b
  Mul,    // a * b
  Div,    // a / b
  Neg,    // -a
  Inv,    // 1 / a
  Rule1,  // the elementary rule of `prim` (prims/ScalarRule.h), one argument
  Rule2,  // the same, two arguments
  Step,   // the native rule of `prim` on args: a value with no partial (floor, quotient, ...)
};
const char* opName(OpKind k);

struct Op {
  OpKind kind;
  int32_t prim;      // Rule1, Rule2, Step: the primitive
  Ref a = 0, b = 0;  // operands (Step: args[firstArg, firstArg + argc) instead)
  int32_t out;       // the result's slot
  int32_t firstArg = 0, argc = 0;
};

enum class GuardKind : uint8_t {
  Outcome,  // the native rule of `prim` on args gives the boolean `expected`
  Select,   // min or max of args selects argument `expected`
};

struct Guard {
  GuardKind kind;
  int32_t prim;
  int32_t firstArg, argc;
  int32_t expected;
  int32_t afterOp;  // the number of operations recorded before it
};

struct TensorSlot {
  int32_t rank, rows, cols;  // rank 1: a vector, rows x 1
  int32_t data = -1;         // a constant: its numbers (row-major) from Trace::tensorData[data]; -1: a step's result
  int32_t size() const { return rows * cols; }
};

// One tensor primitive: `prim` (vec, mat, ref, dot, matvec, matmul, transpose, outer, trace, norm, vsum, scale,
// det, logdet, inv, solve, cholesky, %tensor+ %tensor- %tensor* %tensor/) on args[firstArg, firstArg + argc).
// mat's operands are its entries, row by row (a vector given as a row is read by ref steps first).
struct TensorStep {
  int32_t prim;
  int32_t firstArg, argc;
  int32_t out;  // the result: tensor slot `out` when outTensor, else scalar slot `out`
  bool outTensor;
  int32_t afterOp;     // the number of operations recorded before it
  int32_t afterGuard;  // the number of guards recorded before it
};

struct Trace {
  int32_t leaves = 0;                  // slots [0, leaves)
  int32_t params = 0;                  // of which the first `params` are the parameters, lane by lane
  std::vector<double> leafValues;      // the values at recording (a literal's stays fixed)
  std::vector<std::string> leafNames;  // a parameter's name, or a literal's key "file:line:col"
  int32_t slots = 0;                   // leaves + operations' results
  std::vector<double> consts;
  std::vector<Op> ops;
  std::vector<Guard> guards;
  // The arguments of Step operations, guards and tensor steps: a Real with i >= 0 is that slot, i < 0 a constant
  // number; a Tensor (tensor steps only) is tensor slot i; any other tag is that constant value (a symbol, a
  // boolean: nothing that points into a heap).
  std::vector<Value> args;
  std::vector<TensorSlot> tensors;
  std::vector<double> tensorData;  // the constant tensors' numbers
  std::vector<TensorStep> tensorSteps;
  bool hasTensorSteps() const { return !tensorSteps.empty(); }
  Ref output = 0;
  std::string notReplayable;  // why this path cannot be replayed (a tensor operation, ...); empty: it can
  bool replayable() const { return notReplayable.empty(); }
  // The path's identity: a hash of every guard and its outcome, the number of operations and the tensor steps.
  uint64_t pathKey() const;
  double constant(Ref r) const { return consts[static_cast<size_t>(constIndex(r))]; }
};

// The trace's operations, guards and tensor steps in the order they were recorded.
enum class StepKind : uint8_t { Op, Guard, Tensor };
struct StepRef {
  StepKind kind;
  size_t index;  // into ops, guards or tensorSteps
};
std::vector<StepRef> stepsInOrder(const Trace& t);

// A tensor slot's shape as the text form writes it: "2x3" (a matrix), "v3" (a vector).
std::string shapeText(const TensorSlot& s);

// The stable text form: a header, the leaves, the constants, the operations and guards in order, the output.
void writeTrace(std::ostream& out, const Trace& t);
std::string traceText(const Trace& t);

}  // namespace dmci::replay
