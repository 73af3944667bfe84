// The lane pool (ParallelLanes.h): one TBB arena per thread count asked for, made once and kept for the process.
#include "support/ParallelLanes.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

namespace dmci {
namespace {

tbb::task_arena& arenaFor(int threads) {
  static std::mutex m;
  static std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
  std::lock_guard<std::mutex> lock(m);
  auto& a = arenas[threads];
  if (!a) {
    a = std::make_unique<tbb::task_arena>(threads);
    a->initialize();
  }
  return *a;
}

}  // namespace

int forChunks(int threads, size_t chunks, const std::function<void(size_t chunk, int worker)>& body) {
  threads = static_cast<int>(std::clamp<size_t>(chunks, 1, static_cast<size_t>(std::max(1, threads))));
  if (threads == 1) {
    for (size_t c = 0; c < chunks; ++c) body(c, 0);
    return 1;
  }
  // One task per worker, each taking chunks from a shared counter until none is left: a worker that the system
  // leaves unscheduled holds up one chunk at most (a stolen half of a split range would hold up half the batch).
  std::atomic<size_t> next{0};
  tbb::task_arena& arena = arenaFor(threads);
  arena.execute([&] {
    tbb::parallel_for(
        0, threads,
        [&](int) {
          const int worker = tbb::this_task_arena::current_thread_index();
          for (size_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;) body(c, worker);
        },
        tbb::simple_partitioner());
  });
  return threads;
}

}  // namespace dmci
