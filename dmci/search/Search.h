// The search's outer loop: islands of candidates, a MAP-Elites archive and a Pareto front (search/Archive.h),
// children from the built-in proposer and, when given, an external one, each child scored in-process
// (search/Score.h), in parallel.
//
// One generation: every island draws `children` parents (a tournament of three in the island, or an elite of the
// archive one time in four) and the built-in proposer edits each; the external proposer, every `proposerEvery`
// generations, adds its programs. A child whose canonical key (search/Canon.h) was seen before is drawn again (up
// to eight times) and never evaluated twice. The batch is scored on `jobs` threads and taken in batch order, so the
// search is the same for any number of jobs: every random draw is made on the one thread, from the seed, and a
// candidate's fit is seeded by its place. A scored child joins its island (the oldest member leaves when the
// island is full: regularized evolution, which keeps islands exploring while the archive keeps the elites) and
// is offered to the archive; a failed one is kept, with its error, for the next prompt.
// Every `migrateEvery` generations each island receives the best member of the next. The state after each
// generation can be saved (JSON) and a search resumed from it continues as the uninterrupted one would.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "search/Archive.h"
#include "search/BuiltinProposer.h"
#include "search/Canon.h"
#include "search/Pick.h"
#include "search/Score.h"
#include "search/Snap.h"

namespace dmci::search {

struct SearchSettings {
  uint64_t seed = 1;
  int jobs = 1;
  uint64_t evals = 2000;  // stop after this many evaluations (0: no limit)
  double seconds = 0;     // stop after this much time (0: no limit)
  double goal = 0;        // stop once the best held-out RMSE is at most this (0: never)
  int islands = 4, population = 20, children = 4, migrateEvery = 5;
  Grammar grammar;
  ScoreSettings score;
  std::string edit;      // --edit NAME: the definition whose body is edited (Candidate::edited), or ""
  std::string proposer;  // the external proposer's command, or ""
  double proposerTimeout = 30;
  int proposerEvery = 1;
  int proposerWant = 8;
  std::string stateFile;               // written after every generation when given
  bool resume = false;                 // start from stateFile
  std::string fingerprint;             // names the search's inputs and settings in its state
  CanonKind canon = CanonKind::Ginac;  // candidates' keys: algebraic normal forms when the plugin is there
  PickRule pick;                       // the final pick from the front (search/Pick.h)
  bool probe = true;                   // the power-law probe's programs join the first generation (search/Probe.h)
  int enumerate = 4;                   // small forms up to this size scored before it (search/Enumerate.h; 0: off)
  uint64_t enumerateLimit = 1000;      // the most forms the stage scores, and at most a third of `evals`
  bool snap = true;                    // snap the pick's constants to simple forms at the end (search/Snap.h)
  SnapSettings snapping;
};

struct Failure {
  std::string program, error;
};

struct ProposerCounts {
  uint64_t calls = 0, failedCalls = 0, programs = 0, scored = 0;
};

struct SearchResult {
  Member best;         // the lowest score (what --goal and the history follow)
  bool found = false;  // some candidate scored
  std::vector<Member> front;
  FrontPick pick;   // the final pick: front[pick.index] (when found)
  Snapped snapped;  // the pick with its constants snapped (after the last generation, with SearchSettings::snap)
  uint64_t evaluations = 0, failed = 0, generations = 0;
  uint64_t smoothed = 0;       // candidates whose kept fit went through their smoothed program (--smooth)
  uint64_t duplicates = 0;     // children not scored: their key was seen before
  uint64_t algebraicKeys = 0;  // keys computed by the algebraic normal form (search/Canon.h), not the hash
  double seconds = 0;
  std::vector<std::pair<uint64_t, double>> history;  // (evaluation, best held-out RMSE) at each improvement
  ProposerCounts proposer;
};

struct SearchEvents {
  std::function<void(const SearchResult&)> generation;  // after every generation
  std::function<void(const std::string&)> note;         // the external proposer's failures, in words
};

// The picked member (the front's knee, search/Pick.h); r.found must hold.
const Member& picked(const SearchResult& r);

// Runs the search from `seed` (its named parameters start at their values in seed.params).
Result<SearchResult> runSearch(const Task& task, const SearchSettings& settings, const Candidate& seed,
                               const SearchEvents& events = {});

// The prompt the external proposer reads (the tests and the example script read the same fields).
std::string proposerPrompt(const Task& task, const SearchSettings& settings, const std::vector<Member>& best,
                           const std::vector<Failure>& failures, uint64_t call);

}  // namespace dmci::search
