// dmci: the command-line tool. It registers the subcommands (one file each) and dispatches to the one parsed.
// Exit codes: 0 success, 1 program error (or a failed check), 2 usage error.
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <new>
#include <vector>

#include "cli/Check.h"
#include "cli/Compile.h"
#include "cli/Completion.h"
#include "cli/Exit.h"
#include "cli/Fit.h"
#include "cli/Fuzz.h"
#include "cli/Man.h"
#include "cli/Merge.h"
#include "cli/Run.h"
#include "cli/Search.h"
#include "cli/Version.h"
#include "syntax/TerminalText.h"

int main(int argc, char** argv) {
  using namespace dmci::cli;
  CLI::App app{"dmci: differentiable meta-circular interpretation of a Scheme subset"};
  app.require_subcommand(1);
  std::vector<std::function<int()>> commands = {addRunCommand(app, false),      addRunCommand(app, true),
                                                addRunCommand(app, true, true), addRunCommand(app, false, false, true),
                                                addCompileCommand(app),         addExpandCommand(app),
                                                addPrimsCommand(app),           addEnginesCommand(app),
                                                addMergeCommand(app),           addFitCommand(app),
                                                addSearchCommand(app)};
  CheckArgs checkArgs;
  auto* check = addCheckCommand(app, checkArgs);
  commands.push_back([&] { return *check ? checkCommand(checkArgs) : -1; });
  FuzzArgs fuzzArgs;
  auto* fuzz = addFuzzCommand(app, fuzzArgs);
  commands.push_back([&] { return *fuzz ? fuzzCommand(fuzzArgs) : -1; });
  commands.push_back(addVersionCommand(app));  // and --version
  // The generated documents read the whole tree: they come last (man's argument lists the commands before it).
  commands.push_back(addCompletionCommand(app));
  commands.push_back(addManCommand(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsageError;
  }
  try {
    for (const auto& command : commands)
      if (int code = command(); code >= 0) return code;
  } catch (const UsageError& e) {
    std::cerr << "dmci: " << dmci::escapeControls(e.message, true) << "\n";
    return kUsageError;
  } catch (const std::bad_alloc&) {  // a size the machine cannot hold (--samples, lanes): said, not an abort
    std::cerr << "dmci: out of memory: the run asked for more memory than this machine gives it\n";
    return kProgramError;
  }
  return kUsageError;
}
