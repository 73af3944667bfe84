// Placeholder: the arithmetic primitives (being written).
#include "prims/PrimTable.h"
namespace dmci {
void addArithmeticPrims(std::vector<Primitive>&) {}

}  // namespace dmci
