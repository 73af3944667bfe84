// Node arenas: the Datum and CoreExpr nodes one pass makes, allocated side by side in large chunks and freed
// all at once.
//
// A long program is a tree of hundreds of thousands of small nodes. Taken one by one from malloc they land
// wherever the heap has room, every walk over the tree chases pointers across it, and freeing it costs as much
// as building it. The reader, the expander and the prelude linker each open an ArenaScope: the nodes they make
// are bump-allocated in their arena, in the order a walk meets them, and a node's control block holds a
// reference to its arena, so the arena lives exactly as long as the last of its nodes (a node shared into a
// later tree keeps it alive; freeing a node is free). Nodes made outside any scope come from the heap, as
// before. A scope is per thread: only the thread that opened it allocates from its arena.
#pragma once
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace dmci {

class NodeArena {
 public:
  NodeArena() = default;
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;
  ~NodeArena();
  // `bytes` of storage aligned for any node, valid until the arena dies.
  void* allocate(size_t bytes) {
    bytes = (bytes + kAlign - 1) & ~(kAlign - 1);
    if (bytes > left_) grow(bytes);
    void* p = cur_;
    cur_ += bytes;
    left_ -= bytes;
    return p;
  }
  size_t reserved() const { return reserved_; }  // bytes taken from the heap

 private:
  static constexpr size_t kAlign = alignof(std::max_align_t);
  void grow(size_t atLeast);
  std::vector<char*> chunks_;
  char* cur_ = nullptr;
  size_t left_ = 0, reserved_ = 0;
};

// Asks the cache for the nodes a walk is about to meet. A walk over a long program's tree misses the cache at
// nearly every node once the tree outgrows it, one miss after another. But an arena holds the nodes in the
// order they were made, which is the order of the program's forms, so the nodes a walk meets next lie a few
// KiB past the one it is at: asking for those now lets their misses overlap the work on this one. (An
// address past the arena's end is harmless: a prefetch never faults.)
inline void prefetchAfter(const void* node) {
  constexpr size_t kAhead = 4096, kBytes = 192;  // about two forms ahead; a node and its control block
  const char* c = static_cast<const char*>(node) + kAhead;
  for (size_t off = 0; off < kBytes; off += 64) __builtin_prefetch(c + off);
}

// The arena this thread's new nodes go into; null: the heap.
std::shared_ptr<NodeArena>& currentArena();

// Makes a fresh arena (or none, with nullptr) this thread's current one until the scope ends.
class ArenaScope {
 public:
  explicit ArenaScope(std::shared_ptr<NodeArena> a = std::make_shared<NodeArena>())
      : saved_(std::exchange(currentArena(), std::move(a))) {}
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;
  ~ArenaScope() { currentArena() = std::move(saved_); }

 private:
  std::shared_ptr<NodeArena> saved_;
};

// An allocator over an arena, holding a reference to it (allocate_shared keeps a copy in the control block).
template <class T>
struct ArenaAllocator {
  using value_type = T;
  std::shared_ptr<NodeArena> arena;
  explicit ArenaAllocator(std::shared_ptr<NodeArena> a) : arena(std::move(a)) {}
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>& o) : arena(o.arena) {}
  T* allocate(size_t n) { return static_cast<T*>(arena->allocate(n * sizeof(T))); }
  void deallocate(T*, size_t) {}  // the arena frees everything at once
  template <class U>
  bool operator==(const ArenaAllocator<U>& o) const {
    return arena == o.arena;
  }
};

// A new node in this thread's current arena, or on the heap when there is none.
template <class T>
std::shared_ptr<T> makeNode() {
  const std::shared_ptr<NodeArena>& a = currentArena();
  if (!a) return std::make_shared<T>();
  return std::allocate_shared<T>(ArenaAllocator<T>(a));
}

}  // namespace dmci
