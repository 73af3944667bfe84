// The subcommands' shared error reporting.
#include "cli/Exit.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "support/JsonText.h"
#include "syntax/TerminalText.h"

namespace dmci::cli {

int reportError(const Error& e, bool asJson) {
  if (asJson) {
    nlohmann::ordered_json err{{"kind", errorKindName(e.kind)}, {"message", e.message}};
    if (e.pos.known()) err["position"] = e.pos.str();
    std::cout << jsonText(nlohmann::ordered_json{{"error", err}}) << "\n";
  } else {
    std::cerr << escapeControls(e.str(), true) << "\n";  // a message may quote input: no control bytes
  }
  return e.kind == ErrorKind::Usage ? kUsageError : kProgramError;
}

}  // namespace dmci::cli
