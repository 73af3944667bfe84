// The gate's judging half: a pair's route and oracle runs, already made, held against each other and the
// manifest's expectations (values, gradients, closed forms, the expected status).
//
// Gate.cpp runs the routes and the oracle for a pair; Judge.cpp compares what they returned and writes the
// pair's reasons, notes, errors and status. This header is the seam between the two (the gate's public
// interface stays Gate.h).
#pragma once
#include <optional>

#include "driver/Program.h"
#include "oracle/gate/Gate.h"

namespace dmci::gate {

// The larger of an optional running maximum and a new error.
void raise(std::optional<double>& worst, double e);

// When an engine's value misses the oracle's, how far rounding to double can move it (sets
// r.oracle.roundingSpread; the judge then forgives a miss within criteria.rounding times it).
void measureRounding(const Program& program, PairResult& r, const GateOptions& opts);

// Compares the pair's runs and sets its reasons, notes, errors and status.
void judge(PairResult& r, const Criteria& c);

}  // namespace dmci::gate
