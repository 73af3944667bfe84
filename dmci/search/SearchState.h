// The search's saved state: everything a search carries from one epoch to the next (each island's random
// generator, members and generation count, the archive, the programs seen, the external proposer's programs
// waiting to be scored, the counts), and its JSON form. The same text is the epoch's checkpoint (written by rank 0,
// read back by `dmci search --resume`) and what rank 0 broadcasts to every rank at the epoch's end, so that every
// rank, and a resumed search, continues from the one state. An island's report of its epoch (IslandReport) is what
// each rank sends rank 0. The loop that changes them is Search.cpp.
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

struct Island {
  std::mt19937_64 rng;  // seeded from (seed, island): every draw the island makes
  std::vector<Member> members;
  uint64_t generation = 0;          // the island's generations so far (a fit's seed: island, generation, slot)
  std::vector<Candidate> incoming;  // the external proposer's programs, scored in the island's next epoch
};

// What a search carries from one epoch to the next.
struct State {
  std::vector<Island> islands;
  EliteArchive archive;
  std::set<uint64_t> seen;
  uint64_t epoch = 0;  // epochs done (0: the first generation, the seed and the probe's programs)
  uint64_t evaluations = 0, failed = 0;
  uint64_t smoothed = 0;  // candidates whose kept fit went through their smoothed program (--smooth)
  uint64_t duplicates = 0, algebraicKeys = 0;  // children seen before; keys by the algebraic normal form
  uint64_t barren = 0;                         // epochs in a row that scored nothing new
  double seconds = 0;
  std::vector<std::pair<uint64_t, double>> history;
  std::deque<Failure> failures;           // the built-in proposer's recent failures
  std::vector<Failure> proposerFailures;  // the external proposer's, since its last call
  ProposerCounts proposer;
  std::string stop;  // why the search stops after this epoch ("" goes on): "done", "signal", "barren"
};

// One scored candidate of an island's epoch, in the island's order.
struct Outcome {
  bool ok = false, external = false, smoothed = false;
  Member member;    // when ok; its evaluation is the island's sequence number until the merge numbers it
  Failure failure;  // when not
};

// An island's epoch, as its rank sends it to rank 0.
struct IslandReport {
  size_t index = 0;
  Island island;  // after the epoch
  std::vector<Outcome> outcomes;
  std::vector<uint64_t> seen;  // the keys the island saw first
  uint64_t duplicates = 0, algebraicKeys = 0;
};

// A member, and failures, as JSON: in the state, and in the external proposer's prompt.
nlohmann::json memberJson(const Member& m);
nlohmann::json failuresJson(const std::vector<Failure>& fs);

// The state as the text of its file; `fingerprint` names the search's inputs and settings.
std::string stateText(const State& st, const std::string& fingerprint);

// Reads a state written by stateText (the text of the file `path`) into `st`; an error when it is not a state, or
// saved by a search with another fingerprint.
Result<bool> loadStateText(State& st, const std::string& text, const std::string& path, const std::string& fingerprint);
// The same, from the file.
Result<bool> loadState(State& st, const std::string& path, const std::string& fingerprint);

// A rank's reports (its islands' epochs) as text, and back.
std::string reportsText(const std::vector<IslandReport>& reports, const nlohmann::json& rank);
Result<std::vector<IslandReport>> loadReports(const std::string& text, nlohmann::json& rank);

}  // namespace dmci::search
