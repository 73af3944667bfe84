// The source text of a library procedure written in Scheme (prims/prelude.scm), for its row of the primitive table.
#pragma once
#include <string>

namespace dmci {

// The top-level definition of `name` in prelude.scm. Throws std::logic_error when the file lacks it (a build
// defect, caught by the first use of the table).
const char* preludeSource(const std::string& name);

}  // namespace dmci
