// Runs a function on a thread with a large stack, so the recursive oracle can follow deep recursion.
#pragma once
#include <functional>

namespace dmci::oracle {

// Runs `body` on a fresh thread whose stack reserves `bytes` of (virtual) memory, and waits for it.
// An exception thrown by `body` is rethrown here.
void runWithBigStack(const std::function<void()>& body, size_t bytes = size_t{1} << 30);

}  // namespace dmci::oracle
