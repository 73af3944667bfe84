// Output files written whole or not at all: the text goes to a temporary file beside the target, which is then
// renamed over it, so a reader (or a crash) never sees a half-written report, graph or result.
#pragma once
#include <string>

#include "syntax/Error.h"

namespace dmci {

// Writes `text` to `path` (creating its folder); an Io error names the path when it cannot.
Result<bool> writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace dmci
