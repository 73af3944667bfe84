// The external proposer: any command, run through /bin/sh, that reads one JSON prompt on its standard input and
// writes candidate programs on its standard output as a JSON array of strings. This is how a user plugs in any
// LLM client (examples/proposers/openai_proposer.py is one) or a scripted stand-in.
//
// The command runs in a process group of its own and is time-limited: past the limit its whole group is killed,
// and so it is when dmci gets SIGINT or SIGTERM (support/ChildGroups.h): nothing it started is left behind. A command
// that fails (it cannot start, exits non-zero, is killed, or prints anything but a JSON array) gives an error in words,
// and the search goes on with the built-in proposer. Array items that are not strings are reported one by one.
#pragma once
#include <string>
#include <vector>

namespace dmci::search {

struct ProposerReply {
  std::vector<std::string> programs;
  std::vector<std::string> rejected;  // why each non-string item was refused
  std::string error;                  // the whole reply's failure, or ""
  double seconds = 0;
};

ProposerReply askProposer(const std::string& command, const std::string& prompt, double timeoutSeconds);
// The reply's part that comes from the command's standard output alone: its programs, the items refused, or the
// whole output's error (not a JSON array). askProposer uses it; the fuzzer reads hostile output through it.
ProposerReply parseProposerOutput(const std::string& out);

}  // namespace dmci::search
