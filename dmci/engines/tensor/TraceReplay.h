// The tensor engine's replay (`--engine tensor --replay`): a recorded trace run as whole-batch LibTorch ops.
//
// The replay engine records a program's trace on the native machine and keeps its cache of paths
// (engines/replay/ReplayEngine.h); this loader puts each trace on the tensor engine's device: every operation one
// tensor op over all the lanes, every guard one comparison folded into a mask (one host synchronisation per batch, for
// the mask), and the reverse sweep as explicit tensor ops with the native rules' partials (no autograd graph).
// It runs in float64 or float32, on the CPU or a GPU (EvalOptions::tensor). A trace with an operation or guard
// it has no kernel for is refused, and the CPU replayer runs it. No LibTorch types here.
#pragma once
#include "driver/Options.h"
#include "engines/replay/BatchTrace.h"

namespace dmci::lanes {

replay::BatchLoader tensorTraceLoader(const TensorSettings& settings);

}  // namespace dmci::lanes
