// A recorded trace loaded onto another machine that runs a whole batch of lanes at once.
//
// The replay engine's own sweeps (engines/replay/Replay.h) run blocks of lanes on the CPU's cores. An engine with its
// own machine (the tensor engine: LibTorch on the CPU or a GPU) loads each trace the recorder makes through a
// BatchLoader and runs every lane on the path in one call; the replay engine keeps what is common (the trace
// cache keyed by path, native reruns off the path, the counters). A loader may refuse a trace (an operation it
// has no kernel for): that trace is then replayed by the CPU sweeps, and `--stats` counts it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "syntax/Error.h"
#include "trace/Trace.h"

namespace dmci::replay {

class BatchTrace {
 public:
  virtual ~BatchTrace() = default;
  // n lanes: params[p] points at lane 0 of n numbers. Writes value[0..n), gradient[k][0..n) (no gradient
  // pointers: value only) and ok[0..n) (1: on the path; a lane off it gets no number). An error is the machine's
  // (out of device memory, say), not the program's.
  virtual std::optional<Error> run(const std::vector<const double*>& params, size_t n, double* value,
                                   const std::vector<double*>& gradient, uint8_t* ok) = 0;
};

// Loads a trace; `gradientLeaves` as for a Replayer. Null, with `refused` saying why, when it cannot run it.
using BatchLoader = std::function<std::unique_ptr<BatchTrace>(const Trace& trace,
                                                              const std::vector<std::vector<int32_t>>& gradientLeaves,
                                                              bool wantGradient, std::string& refused)>;

}  // namespace dmci::replay
