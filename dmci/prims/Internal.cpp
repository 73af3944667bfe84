// Internal primitives: the few hooks mce.scm needs into the engine. Users cannot name them.
//
// %at marks the user's expression being applied, so errors name the user's
// source; %address reads a variable's lexical address off its node; %global resolves a free name to a primitive;
// %check-arity raises the same arity error as the direct route; boxes are the cells of letrec* variables.
#include <cstdio>
#include <string>

#include "prims/PrimTable.h"

namespace dmci {
namespace {

Value at(Runtime& rt, const Value* a, int) {
  if (rt.isUserNode(a[0])) rt.userNode = a[0].i;
  return Value::boolean(true);
}

SrcPos userPosOf(const Runtime& rt, const Value& node) {
  if (!rt.isUserNode(node)) return {};
  return rt.positionOf(node.i);
}

// (%global (%ref . name)): the primitive called name, or an unbound-variable error.
Value global(Runtime& rt, const Value* a, int) {
  if (a[0].tag != Tag::Pair || rt.cdr(a[0]).tag != Tag::Symbol) wrongType(rt, "%global", 0, a[0], "a reference node");
  const std::string& name = symbolName(rt.cdr(a[0]).i);
  int id = primId(name);
  if (id >= 0 && !prim(id).prelude) return Value::make(Tag::Prim, id);
  throw DmciError(ErrorKind::Unbound, "unbound variable: " + name, userPosOf(rt, a[0]));
}

// (%primitive (%ref . name)): the primitive called name, or #f.
Value primitiveNamed(Runtime& rt, const Value* a, int) {
  if (a[0].tag != Tag::Pair || rt.cdr(a[0]).tag != Tag::Symbol)
    wrongType(rt, "%primitive", 0, a[0], "a reference node");
  int id = primId(symbolName(rt.cdr(a[0]).i));
  return id >= 0 && !prim(id).prelude ? Value::make(Tag::Prim, id) : Value::boolean(false);
}

// (%address (%local name . |depth index boxed vector|)): the list (depth index boxed? vector?) dmci/mce/Mce.cpp
// wrote on a reference to a variable the program binds. Its numbers are constants, not literals of the program.
Value address(Runtime& rt, const Value* a, int) {
  Value rest = a[0].tag == Tag::Pair ? rt.cdr(a[0]) : Value::nil();
  Value text = rest.tag == Tag::Pair ? rt.cdr(rest) : Value::nil();
  if (text.tag != Tag::Symbol) wrongType(rt, "%address", 0, a[0], "a local reference node");
  int depth = -1, index = -1, boxed = -1, vector = -1;
  if (std::sscanf(symbolName(text.i).c_str(), "%d %d %d %d", &depth, &index, &boxed, &vector) != 4 || depth < 0 ||
      index < 0)
    wrongType(rt, "%address", 0, a[0], "a local reference node");
  Value r = rt.cons(Value::boolean(vector == 1), Value::nil());
  r = rt.cons(Value::boolean(boxed == 1), r);
  r = rt.cons(Value::real(index), r);
  return rt.cons(Value::real(depth), r);
}

int listLength(const Runtime& rt, Value l) {
  int n = 0;
  for (; l.tag == Tag::Pair; l = rt.cdr(l)) ++n;
  return n;
}

// (%check-arity (%lambda params rest? body name [hidden]) args): the counts in the error are the source's,
// without the `hidden` leading parameters the control conversion added (a symbol naming their count).
Value checkArityPrim(Runtime& rt, const Value* a, int) {
  Value f = rt.cdr(a[0]);  // (params rest? body name [hidden])
  bool rest = !rt.car(rt.cdr(f)).isFalse();
  int nfixed = listLength(rt, rt.car(f)) - (rest ? 1 : 0);
  int argc = listLength(rt, a[1]);
  if (argc == nfixed || (rest && argc >= nfixed)) return Value::boolean(true);
  Value nameCell = rt.cdr(rt.cdr(rt.cdr(f)));
  Value nameV = rt.car(nameCell);
  std::string name = nameV.tag == Tag::Symbol ? symbolName(nameV.i) : "lambda";
  if (Value more = rt.cdr(nameCell); more.tag == Tag::Pair && rt.car(more).tag == Tag::Symbol) {
    const int hidden = std::stoi(symbolName(rt.car(more).i));
    nfixed -= hidden, argc -= hidden;
  }
  std::string want = std::to_string(nfixed);
  if (rest) want = "at least " + want;
  throw DmciError(ErrorKind::Arity, name + ": expects " + want + " argument" + (nfixed == 1 && !rest ? "" : "s") +
                                        ", got " + std::to_string(argc));
}

Value boxNew(Runtime& rt, const Value*, int) { return Value::make(Tag::Box, rt.alloc(1)); }

// Written once by letrec*, and again each time a continuation re-enters the initialiser (lower/Control.cpp).
Value boxSet(Runtime& rt, const Value* a, int) {
  if (a[0].tag != Tag::Box) wrongType(rt, "%box-set!", 0, a[0], "a box");
  rt.heap[a[0].i] = a[1];
  return Value::boolean(true);
}

Value boxRef(Runtime& rt, const Value* a, int) {
  if (a[0].tag != Tag::Box) wrongType(rt, "%box-ref", 0, a[0], "a box");
  const Value& v = rt.heap[a[0].i];
  if (v.tag == Tag::Unset) {
    Value name = a[1].tag == Tag::Pair ? rt.cdr(a[1]) : a[1];
    if (name.tag == Tag::Pair) name = rt.car(name);  // (%local name . address)
    throw DmciError(ErrorKind::Unbound,
                    (name.tag == Tag::Symbol ? symbolName(name.i) : std::string("?")) + ": used before its definition",
                    userPosOf(rt, a[1]));
  }
  return v;
}

Value isBox(Runtime&, const Value* a, int) { return Value::boolean(a[0].tag == Tag::Box); }

}  // namespace

void addInternalPrims(std::vector<Primitive>& t) {
  auto row = [&](const char* name, int lo, int hi, PrimFn f, const char* doc, LaneKernel k = LaneKernel::None) {
    t.push_back({name, lo, hi, f, nullptr, nullptr, PrimFamily::Internal, doc, "", laneUse(LaneReads::Nothing, k)});
  };
  row("%at", 1, 1, at, "(%at node) marks the user's expression being applied, for error positions");
  row("%global", 1, 1, global, "(%global (%ref . name)) is the primitive called name, else an unbound-variable error");
  row("%primitive", 1, 1, primitiveNamed, "(%primitive (%ref . name)) is the primitive called name, or #f");
  row("%address", 1, 1, address,
      "(%address (%local name . address)) is the list (depth index boxed? vector?) of a variable the program binds");
  row("%check-arity", 2, 2, checkArityPrim,
      "(%check-arity lambda-node args) is #t or raises the arity error of the direct route");
  row("%box-new", 0, 0, boxNew, "(%box-new) is a fresh, unset cell for a letrec* variable");
  row("%box-set!", 2, 2, boxSet,
      "(%box-set! box v) initialises a box (again, when a continuation re-enters its initialiser)", LaneKernel::BoxSet);
  row("%box-ref", 2, 2, boxRef,
      "(%box-ref box (%ref . name)) is the box's value, or a used-before-definition error at the reference",
      LaneKernel::BoxRef);
  row("%box?", 1, 1, isBox, "(%box? v) is #t for a box");
}

}  // namespace dmci
