// Builds the primitive table from the family files and looks primitives up by name.
#include "prims/PrimTable.h"

#include <string>
#include <unordered_map>

namespace dmci {

const char* familyName(PrimFamily f) {
  switch (f) {
    case PrimFamily::Arithmetic:
      return "arithmetic";
    case PrimFamily::Predicate:
      return "predicate";
    case PrimFamily::List:
      return "list";
    case PrimFamily::Vector:
      return "vector";
    case PrimFamily::Tensor:
      return "tensor";
    case PrimFamily::Control:
      return "control";
    case PrimFamily::Internal:
      return "internal";
  }
  return "?";
}

// The R7RS families added for issue 42, declared here rather than in PrimTable.h so that a new family does not
// recompile every file that includes the table.
void addMultipleValuesPrims(std::vector<Primitive>& t);  // prims/MultipleValues.cpp
void addTextPrims(std::vector<Primitive>& t);            // prims/Text.cpp
void addNumberPrims(std::vector<Primitive>& t);          // prims/Numbers.cpp
void addContinuationPrims(std::vector<Primitive>& t);    // prims/Continuations.cpp
void addExceptionPrims(std::vector<Primitive>& t);       // prims/Exceptions.cpp

namespace {
struct Table {
  std::vector<Primitive> rows;
  std::unordered_map<std::string, int> byName;
  Table() {
    addArithmeticPrims(rows);
    addPredicatePrims(rows);
    addListPrims(rows);
    addVectorPrims(rows);
    addTensorPrims(rows);
    addControlPrims(rows);
    addInternalPrims(rows);
    addMultipleValuesPrims(rows);
    addTextPrims(rows);
    addNumberPrims(rows);
    addContinuationPrims(rows);
    addExceptionPrims(rows);
    for (size_t k = 0; k < rows.size(); ++k) byName.emplace(rows[k].name, static_cast<int>(k));
  }
};
const Table& table() {
  static const Table t;
  return t;
}
}  // namespace

const std::vector<Primitive>& primitives() { return table().rows; }

int primId(std::string_view name) {
  const auto& t = table();
  auto it = t.byName.find(std::string(name));
  if (it != t.byName.end()) return it->second;
  if (name.size() > 1 && name[0] == '%') {
    it = t.byName.find(std::string(name.substr(1)));
    if (it != t.byName.end()) return it->second;
  }
  return -1;
}

const char* primitiveName(int id) { return prim(id).name; }
AdjointFn primitiveAdjoint(int id) { return prim(id).adjoint; }

void checkArity(const Primitive& p, int argc) {
  if (argc >= p.minArgs && (p.maxArgs < 0 || argc <= p.maxArgs)) return;
  std::string want = std::to_string(p.minArgs);
  if (p.maxArgs < 0)
    want = "at least " + want;
  else if (p.maxArgs != p.minArgs)
    want += " to " + std::to_string(p.maxArgs);
  throw DmciError(ErrorKind::Arity, std::string(p.name) + ": expects " + want + " argument" +
                                        (p.minArgs == 1 && p.maxArgs == 1 ? "" : "s") + ", got " +
                                        std::to_string(argc));
}

}  // namespace dmci
