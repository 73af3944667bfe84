// The ComputeGraph: the closure-converted, register-machine form every engine runs.
//
// A graph is a list of code blocks, one per lambda plus the entry block. Each
// block has numbered slots: its parameters first, then locals and temporaries.
// Closures are flat: an environment record copies the captured values (safe,
// since nothing is mutable); the lambdas of one letrec group share one record,
// and a reference to a sibling is rebuilt as (code, same record) without
// allocating. Tail calls reuse the frame; a non-tail call pushes a frame on a
// stack the engine owns, so recursion depth is bounded by the heap budget,
// never by the C++ stack. Write-once boxes serve letrec* variables that are
// referenced before their definition is reached.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "syntax/Datum.h"
#include "syntax/Error.h"

namespace dmci {

enum class Op : uint8_t {
  Const,        // dst <- constant a
  Move,         // dst <- slot a
  Env,          // dst <- cell a of the current environment record
  Param,        // dst <- program parameter a (a seed binding)
  PrimRef,      // dst <- the primitive a as a first-class value
  Prim,         // dst <- primitive a applied to slots [b, b+c)
  Prim1,        // dst <- primitive a applied to slot b
  Prim2,        // dst <- primitive a applied to slots b and c
  Closure,      // dst <- closure of block a over a new record of slots [b, b+c);
                //        c = -1: over the record of the closure in slot b (letrec groups)
  Sibling,      // dst <- closure of block a over the current environment record
  Call,         // dst <- (slot a) applied to slots [b, b+c)
  TailCall,     // return (slot a) applied to slots [b, b+c)
  Apply,        // dst <- (apply slot a  slots [b, b+c)), the last a list
  TailApply,    // return (apply ...)
  Return,       // return slot a
  Jump,         // pc <- a
  JumpIfFalse,  // if slot a is #f then pc <- b
  BoxNew,       // dst <- a fresh, unset write-once box
  BoxSet,       // box in slot a <- slot b
  BoxGet,       // dst <- content of box in slot a ("used before its definition" if unset); b = symbol name const
  Unbound,      // raise "unbound variable" for the symbol in constant a
};
const char* opName(Op op);

struct Instr {
  Op op;
  int32_t dst = 0;
  int32_t a = 0;
  int32_t b = 0;
  int32_t c = 0;
};

struct CodeBlock {
  std::string name;     // for messages: the defined name, or "lambda"
  int32_t nparams = 0;  // fixed parameters (the rest list is one more slot when variadic)
  bool variadic = false;
  int32_t hidden = 0;  // leading parameters the control conversion added: arity errors count without them
  int32_t nslots = 0;  // frame size
  int32_t nfree = 0;   // size of the environment record it expects
  SrcPos pos;          // the lambda's position
  std::vector<Instr> code;
  std::vector<SrcPos> where;  // one position per instruction, for run-time errors
};

struct ComputeGraph {
  std::vector<CodeBlock> blocks;
  std::vector<DatumPtr> consts;     // numbers are the program's literals (differentiable leaves)
  std::vector<std::string> params;  // the program's free variables bound by a seed, in slot order
  int32_t entry = 0;
};

// The stable text format: print and parse, print(parse(print(g))) == print(g).
std::string printGraph(const ComputeGraph& g);
Result<ComputeGraph> parseGraph(const std::string& text, const std::string& file = "<graph>");
// Checks a graph is well formed (slot, block, constant and jump indices in range).
void validateGraph(const ComputeGraph& g);

}  // namespace dmci
