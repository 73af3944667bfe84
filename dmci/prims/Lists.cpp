// Placeholder: the list primitives (being written).
#include "prims/PrimTable.h"
namespace dmci {
void addListPrims(std::vector<Primitive>&) {}

}  // namespace dmci
