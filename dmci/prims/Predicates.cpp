// Placeholder: the predicate primitives (being written).
#include "prims/PrimTable.h"
namespace dmci {
void addPredicatePrims(std::vector<Primitive>&) {}

}  // namespace dmci
