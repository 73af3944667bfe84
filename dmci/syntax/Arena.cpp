// Node arenas (Arena.h): chunks from the heap, growing geometrically, freed when the arena dies.
#include "syntax/Arena.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace dmci {

NodeArena::~NodeArena() {
  for (char* c : chunks_) std::free(c);
}

void NodeArena::grow(size_t atLeast) {
  // 64 KiB first (a small program's nodes fit), doubling to 4 MiB: a long program takes few chunks.
  const size_t size = std::max(atLeast, std::clamp<size_t>(reserved_, size_t{64} << 10, size_t{4} << 20));
  char* c = static_cast<char*>(std::malloc(size));
  if (!c) throw std::bad_alloc();
  chunks_.push_back(c);
  cur_ = c;
  left_ = size;
  reserved_ += size;
}

std::shared_ptr<NodeArena>& currentArena() {
  static thread_local std::shared_ptr<NodeArena> current;
  return current;
}

}  // namespace dmci
