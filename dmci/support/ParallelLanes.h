// Chunks of a batch of lanes on every core, through one persistent pool of threads (TBB's task arenas), so
// that a batch pays microseconds to wake the workers rather than tens of microseconds to start threads. The
// replay and compiled engines run their lane slices here; a warm loop over batches (a fit, a bench) then costs
// its kernels and memory traffic only.
#pragma once
#include <cstddef>
#include <functional>

namespace dmci {

// body(chunk, worker) for every chunk in [0, chunks), on at most `threads` workers at once. `worker` is in
// [0, threads) and held by one thread at a time, so it can index per-worker scratch space. With one thread or
// one chunk, everything runs on the calling thread. Returns the number of workers the pool may use.
int forChunks(int threads, size_t chunks, const std::function<void(size_t chunk, int worker)>& body);

}  // namespace dmci
