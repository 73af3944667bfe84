// The replay engine (`--engine replay`): records a program's trace on the native machine, then replays it.
//
// A prepared run keeps a cache of traces, one per control path met (keyed by the path: its guards and their
// outcomes), at most kMaxTraces. A run or a batch replays each lane on the first cached trace whose guards it
// passes; a lane that passes none is rerun by the native machine, which records its path's trace while the
// cache has room. Past the cap, or when a path's trace cannot be replayed (a tensor operation, say), lanes are
// interpreted, and the counts say so (`--stats`: traces, replayed, recorded, interpreted). Every number it
// returns is either replayed from a trace whose guards held for that lane, or computed by the native machine.
#pragma once
#include <memory>

#include "driver/Engine.h"
#include "engines/replay/BatchTrace.h"

namespace dmci {

std::unique_ptr<Engine> makeReplayEngine();
// The compiled engine (`--engine compiled`): the same, with each trace emitted as C++
// (engines/replay/EmitCpp.h), built at -O3 by the system's compiler and loaded
// (engines/replay/Compiled.h); a trace that cannot be emitted is replayed.
std::unique_ptr<Engine> makeCompiledEngine();
// A replay run whose traces are loaded onto another machine (engines/replay/BatchTrace.h) and run there a batch at a
// time: the tensor engine's replay (`--engine tensor --replay`).
Result<std::unique_ptr<PreparedRun>> prepareBatchReplay(const PreparedProgram& p, const EvalOptions& opts,
                                                        replay::BatchLoader loader);

}  // namespace dmci
