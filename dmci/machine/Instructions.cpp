// The errors of the shared instruction semantics: cold paths, out of the machines' loops.
#include "machine/Instructions.h"

#include <string>

namespace dmci::instr {

void notProcedure(const Runtime& rt, const Value& shown) {
  throw DmciError(ErrorKind::NotProcedure, "attempt to apply a non-procedure: " + rt.show(shown));
}

// The counts are the source's: without the parameters the control conversion added (every caller passes them).
void wrongArity(const CodeBlock& b, int argc) {
  const int n = b.nparams - b.hidden;
  std::string want = std::to_string(n);
  if (b.variadic) want = "at least " + want;
  throw DmciError(ErrorKind::Arity, b.name + ": expects " + want + " argument" + (n == 1 && !b.variadic ? "" : "s") +
                                        ", got " + std::to_string(argc - b.hidden));
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
