// Runs a function on a thread with a large stack: for the passes that recurse as deep as the program nests (the
// recursive oracle following deep recursion, the control conversion of shift and reset).
#pragma once
#include <functional>

namespace dmci {

// Runs `body` on a fresh thread whose stack reserves `bytes` of (virtual) memory, and waits for it.
// An exception thrown by `body` is rethrown here.
void runWithBigStack(const std::function<void()>& body, size_t bytes = size_t{1} << 30);

}  // namespace dmci
