// The elementary scalar functions' rules, as data: each function's value and its local partials side by side.
//
// Elementary.cpp builds the primitive table's rows for abs, floor, exp, log, sin, ... from these rules, and the
// replay engine (engines/replay/) evaluates the same function pointers for every lane of a recorded trace, so a
// replayed value and partial are the native engine's own, bit for bit.
#pragma once
#include "prims/LaneUse.h"

namespace dmci {

// A scalar function of one argument, of two, or of either (log, atan). A null
// partial rule marks a piecewise-constant function: its result is a constant.
struct ScalarRule {
  const char* name = nullptr;
  double (*f1)(double x) = nullptr;                      // the one-argument form
  double (*dx)(double x, double y) = nullptr;            // df1/dx, given y = f1(x)
  double (*f2)(double a, double b) = nullptr;            // the two-argument form
  double (*da)(double a, double b, double y) = nullptr;  // df2/da, given y = f2(a, b)
  double (*db)(double a, double b, double y) = nullptr;  // df2/db
  const char* doc = "";
  const char* partials = "";
  LaneKernel kernel = LaneKernel::None;  // its torch kernel on the tensor engine
};

// The rule of the primitive with this id, or nullptr when it is not an elementary scalar function.
const ScalarRule* scalarRule(int primId);

}  // namespace dmci
