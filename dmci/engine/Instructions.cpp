// The errors of the shared instruction semantics: cold paths, out of the machines' loops.
#include "engine/Instructions.h"

#include <string>

namespace dmci::instr {

void notProcedure(const Runtime& rt, const Value& shown) {
  throw DmciError(ErrorKind::NotProcedure, "attempt to apply a non-procedure: " + rt.show(shown));
}

void wrongArity(const CodeBlock& b, int argc) {
  std::string want = std::to_string(b.nparams);
  if (b.variadic) want = "at least " + want;
  throw DmciError(ErrorKind::Arity, b.name + ": expects " + want + " argument" +
                                        (b.nparams == 1 && !b.variadic ? "" : "s") + ", got " + std::to_string(argc));
}

void improperApplyList(const Runtime& rt, const Value& shown) {
  throw DmciError(ErrorKind::Type, "apply: last argument must be a proper list, got " + rt.show(shown));
}

void usedBeforeDefinition(const ComputeGraph& g, int32_t name) {
  throw DmciError(ErrorKind::Unbound, g.consts[static_cast<size_t>(name)]->text + ": used before its definition");
}

void unbound(const ComputeGraph& g, int32_t name) {
  throw DmciError(ErrorKind::Unbound, "unbound variable: " + g.consts[static_cast<size_t>(name)]->text);
}

}  // namespace dmci::instr
