// What every dmci subcommand shares: its exit codes, and how an error reaches the user.
#pragma once
#include <string>

#include "syntax/Error.h"

namespace dmci::cli {

// 0 success, 1 the program (or a check) failed, 2 the command was used wrongly.
constexpr int kOk = 0, kProgramError = 1, kUsageError = 2;
// `dmci search` stopped by SIGUSR1 (or SIGTERM under --mpi) after writing its checkpoint: run it again with
// --resume (sysexits.h's EX_TEMPFAIL; ci/slurm/search.sbatch requeues on it).
constexpr int kRequeue = 75;

// A usage error found while reading the command line: main prints "dmci: MESSAGE" and exits 2.
struct UsageError {
  std::string message;
};

// Prints `e` (as {"error": {...}} on stdout with `asJson`, else as file:line:col: kind: message on stderr) and
// returns its exit code: 2 for a usage error, else 1. JSON leaves the position out when there is none.
int reportError(const Error& e, bool asJson);

}  // namespace dmci::cli
