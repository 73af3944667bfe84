// Private to the arithmetic family: the argument check it shares and the
// elementary-function rows (Elementary.cpp) that addArithmeticPrims adds.
#pragma once
#include <vector>

#include "prims/PrimTable.h"

namespace dmci {

// The double in argument k, or a Type error naming the primitive.
inline double numberArg(const Runtime& rt, const char* name, const Value* args, int k) {
  if (!args[k].isNumber()) wrongType(rt, name, k, args[k], "a number");
  return args[k].num;
}

// abs, rounding, square, exp, log, sqrt, expt, trigonometric and activation functions.
void addElementaryPrims(std::vector<Primitive>& t);

}  // namespace dmci
