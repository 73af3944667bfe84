// The search's saved state: everything a search carries from one generation to the next (the random
// generator, the islands, the archive, the programs seen, the counts), and its JSON form, written after every
// generation and read back by `dmci search --resume` so that a resumed search continues as the uninterrupted
// one would. The loop that changes it is Search.cpp.
#pragma once
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "search/Search.h"

namespace dmci::search {

// What a search carries from one generation to the next.
struct State {
  std::mt19937_64 rng;
  std::vector<std::vector<Member>> islands;
  EliteArchive archive;
  std::set<uint64_t> seen;
  uint64_t evaluations = 0, failed = 0, generation = 0;
  uint64_t smoothed = 0;  // candidates whose kept fit went through their smoothed program (--smooth)
  uint64_t duplicates = 0, algebraicKeys = 0;  // children seen before; keys by the algebraic normal form
  double seconds = 0;
  std::vector<std::pair<uint64_t, double>> history;
  std::deque<Failure> failures;           // the built-in proposer's recent failures
  std::vector<Failure> proposerFailures;  // the external proposer's, since its last call
  ProposerCounts proposer;
};

// A member, and failures, as JSON: in the state, and in the external proposer's prompt.
nlohmann::json memberJson(const Member& m);
nlohmann::json failuresJson(const std::vector<Failure>& fs);

// The state as the text of its file; `fingerprint` names the search's inputs and settings.
std::string stateText(const State& st, const std::string& fingerprint);

// Reads a state written by stateText into `st`; an error when the file is unreadable, not a state, or saved by a
// search with another fingerprint.
Result<bool> loadState(State& st, const std::string& path, const std::string& fingerprint);

}  // namespace dmci::search
