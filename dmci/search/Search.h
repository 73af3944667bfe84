// The search's outer loop: islands of candidates, a MAP-Elites archive and a Pareto front (search/Archive.h),
// children from the built-in proposer and, when given, an external one, each child scored in-process
// (search/Score.h), in parallel, on one process or on many (MPI ranks, search/Exchange.h) with the same result.
//
// The search runs in epochs. In an epoch each island, on its own, scores `epochEvals` children (fewer only when it
// finds nothing new; the budget `evals` ends the search at the first epoch's end that reaches it, so that a search
// resumed with a larger budget is the uninterrupted one): generation after generation it draws
// `children` parents (a tournament of three in the island, or an elite of the archive as it stood when the epoch
// began, one time in four) and the built-in proposer edits each. Every draw of island i comes from its own
// generator, seeded from (seed, i); the fit of the child in slot k of the island's generation g is seeded from
// (seed, i, g, k). A child whose canonical key (search/Canon.h) the search saw before the epoch, or the island
// during it, is drawn again (up to eight times). A scored child joins its island (the oldest member leaves when
// the island is full: regularized evolution); a failed one is kept, with its error, for the next prompt. So an
// island's epoch depends only on the state at the epoch's start: not on which rank runs it, the number of ranks,
// the threads (`jobs`, shared by a rank's islands) or timing.
//
// At an epoch's end the islands' reports are merged (on rank 0) in island order, each island's outcomes in their
// order: every scored child is numbered (its evaluation), offered to the archive and the history; the keys seen
// join the search's. Then migration: each island receives the best member of the next (a ring) and one member of
// the front (the front's members in turn). The external proposer, every `proposerEvery` epochs, is asked then; its
// programs are scored by the islands in the next epoch. The state after each epoch is saved (the checkpoint,
// search/SearchState.h; the last two are kept) and broadcast to every rank; a search resumed from it continues as
// the uninterrupted one would, on any number of ranks.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "search/Archive.h"
#include "search/BuiltinProposer.h"
#include "search/Canon.h"
#include "search/Exchange.h"
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
  int islands = 4, population = 20, children = 4;
  int epochEvals = 20;  // evaluations per island per epoch (the islands exchange at its end)
  Grammar grammar;
  ScoreSettings score;
  std::string edit;      // --edit NAME: the definition whose body is edited (Candidate::edited), or ""
  std::string proposer;  // the external proposer's command, or ""
  double proposerTimeout = 30;
  int proposerEvery = 1;
  int proposerWant = 8;
  std::string stateFile;               // the checkpoint, written after every epoch when given (and the one before)
  bool resume = false;                 // start from stateFile
  std::string fingerprint;             // names the search's inputs and settings in its state
  CanonKind canon = CanonKind::Ginac;  // candidates' keys: algebraic normal forms when the plugin is there
  PickRule pick;                       // the final pick from the front (search/Pick.h)
  bool probe = true;                   // the power-law probe's programs join the first generation (search/Probe.h)
  int enumerate = 4;                   // small forms up to this size scored before it (search/Enumerate.h; 0: off)
  uint64_t enumerateLimit = 1000;      // the most forms the stage scores, and at most a third of `evals`
  int terms = 0;     // the most terms of the sparse regression's sums before it (search/Terms.h; 0: off)
  bool snap = true;  // snap the pick's constants to simple forms at the end (search/Snap.h)
  SnapSettings snapping;
  IslandExchange* exchange = nullptr;                // the ranks (nullptr: one process)
  const std::atomic<bool>* stopRequested = nullptr;  // set (by a signal): end after the epoch, checkpointed
  // A planted fault for the tests (DMCI_SEARCH_FAULT): "kill:RANK:EPOCH" (that rank SIGKILLs itself in the middle
  // of that epoch) or "torn:EPOCH" (rank 0 SIGKILLs itself between writing that epoch's checkpoint and its rename).
  std::string fault;
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
  std::vector<Member> archive;  // every elite, in cell order
  FrontPick pick;               // the final pick: front[pick.index] (when found)
  Snapped snapped;  // the pick with its constants snapped (after the last generation, with SearchSettings::snap)
  uint64_t evaluations = 0, failed = 0, generations = 0;  // generations: the islands' together
  uint64_t epochs = 0;
  int ranks = 1;
  bool follower = false;  // a rank other than 0: its result is not the search's (rank 0 reports)
  bool stopped = false;   // ended by stopRequested before the budget: resume from the checkpoint
  // Each rank's evaluations per second of its own work (scoring and proposing, not waiting) in this run.
  std::vector<double> rankRates;
  uint64_t smoothed = 0;       // candidates whose kept fit went through their smoothed program (--smooth)
  uint64_t duplicates = 0;     // children not scored: their key was seen before
  uint64_t algebraicKeys = 0;  // keys computed by the algebraic normal form (search/Canon.h), not the hash
  double seconds = 0;
  std::vector<std::pair<uint64_t, double>> history;  // (evaluation, best held-out RMSE) at each improvement
  ProposerCounts proposer;
};

struct SearchEvents {
  std::function<void(const SearchResult&)> generation;  // after every epoch (on rank 0)
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
