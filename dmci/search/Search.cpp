// The outer loop: generations of proposals, scored in parallel, kept by islands, archive and front; the state
// it carries and saves between generations is SearchState.h's.
#include "search/Search.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "search/Enumerate.h"
#include "search/ExternalProposer.h"
#include "search/Probe.h"
#include "search/SearchState.h"
#include "support/AtomicFile.h"

namespace dmci::search {

namespace {

using json = nlohmann::json;

constexpr size_t kFailuresKept = 20;
// Generations in a row with nothing new to score before the search gives up (every child was seen before).
constexpr int kBarrenGenerations = 200;

// The score with a small price on size: what tournaments and islands compare.
double fitness(const Member& m) { return m.score * (1 + 0.01 * m.complexity); }

struct Pending {
  Candidate candidate;
  size_t island = 0;
  bool external = false;
};

int hashDigits(const SearchSettings& s) { return s.score.gradient ? 2 : 12; }

// A candidate's key (search/Canon.h): with gradients its literals are fitted, so their values make no structure.
CanonicalKey keyOf(const Candidate& c, const SearchSettings& s) {
  if (c.forms.size() > 1) return {canonicalHash(c.value(), hashDigits(s)), false};  // definitions: the value's hash
  return canonicalKey(c.value(), s.canon, s.score.gradient ? 0 : 12, hashDigits(s));
}

uint64_t keyOf(const Candidate& c, const SearchSettings& s, State& st) {
  CanonicalKey k = keyOf(c, s);
  if (k.algebraic) ++st.algebraicKeys;
  return k.key;
}

// Whether `c`'s key is algebraic with its literals abstract (then its fitted form has the same key).
bool algebraicKey(const Candidate& c, const SearchSettings& s) { return s.score.gradient && keyOf(c, s).algebraic; }

class Loop {
 public:
  Loop(const Task& t, const SearchSettings& s, const Candidate& seed, const SearchEvents& ev)
      : t_(t), s_(s), seed_(seed), ev_(ev), proposer_(s.grammar, s.score.gradient), st_{}, began_(now()) {
    st_.archive = EliteArchive(t.spread);
  }

  Result<SearchResult> run() {
    if (s_.resume) {
      auto ok = loadState(st_, s_.stateFile, s_.fingerprint);
      if (!ok) return ok.error();
    } else {
      st_.rng.seed(s_.seed);
      st_.islands.assign(static_cast<size_t>(std::max(1, s_.islands)), {});
      std::vector<Pending> first{{seed_, 0, false}};
      st_.seen.insert(keyOf(seed_, s_, st_));
      if (s_.probe)
        for (auto& c : powerLawProbes(t_)) {
          uint64_t key = keyOf(c, s_, st_);
          if (!st_.seen.insert(key).second) continue;
          for (const auto& [name, v] : seed_.params) c.params.emplace(name, v);
          first.push_back({std::move(c), first.size() % st_.islands.size(), false});
        }
      take(first, scoreAll(first));
      for (size_t i = 1; i < st_.islands.size(); ++i)
        if (st_.islands[i].empty()) st_.islands[i] = st_.islands[0];
      if (s_.enumerate > 0 && s_.edit.empty()) enumerate();
    }
    secondsBefore_ = st_.seconds;
    for (int barren = 0; !finished();) {
      barren = generation() ? 0 : barren + 1;
      st_.seconds = seconds();
      if (!s_.stateFile.empty())
        if (auto ok = writeFileAtomically(s_.stateFile, stateText(st_, s_.fingerprint)); !ok) return ok.error();
      if (ev_.generation) ev_.generation(result());
      if (barren >= kBarrenGenerations) {
        if (ev_.note) ev_.note("no proposer found a new candidate in " + std::to_string(barren) + " generations");
        break;
      }
    }
    SearchResult r = result();
    if (r.found && s_.snap) {
      SnapSettings snap = s_.snapping;
      snap.floor = s_.pick.floor * t_.spread;
      r.snapped = snapConstants(t_, s_.score, picked(r), snap, s_.seed * 1000003u + st_.evaluations);
      // The snapped program is the reported pick when it fits as well, within the tolerance Snap keeps a form by.
      r.snapped.reported =
          !r.snapped.constants.empty() && r.snapped.score <= picked(r).score * (1 + snap.tolerance) + snap.floor;
    }
    return r;
  }

 private:
  const Task& t_;
  const SearchSettings& s_;
  const Candidate& seed_;
  const SearchEvents& ev_;
  BuiltinProposer proposer_;
  State st_;
  std::chrono::steady_clock::time_point began_;
  double secondsBefore_ = 0;

  static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
  double seconds() const { return secondsBefore_ + std::chrono::duration<double>(now() - began_).count(); }

  bool finished() const {
    if (s_.evals && st_.evaluations >= s_.evals) return true;
    if (s_.seconds > 0 && seconds() >= s_.seconds) return true;
    const Member* best = st_.archive.best();
    return s_.goal > 0 && best && best->score <= s_.goal;
  }

  size_t draw(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(st_.rng); }

  // A parent for island i: an archive elite one time in four, else the best of three drawn from the island.
  Candidate parent(size_t i) {
    const auto& island = st_.islands[i];
    bool fromArchive = std::uniform_real_distribution<double>(0, 1)(st_.rng) < 0.25;
    if (island.empty() || (fromArchive && !st_.archive.empty()))
      return st_.archive.empty() ? seed_ : st_.archive.draw(st_.rng).candidate;
    const Member* best = nullptr;
    for (int k = 0; k < 3; ++k) {
      const Member& m = island[draw(island.size())];
      if (!best || fitness(m) < fitness(*best)) best = &m;
    }
    return best->candidate;
  }

  // One generation; false when it had nothing new to score.
  bool generation() {
    std::vector<Pending> batch;
    std::set<uint64_t> inBatch;
    auto fresh = [&](const Candidate& c) {
      uint64_t h = keyOf(c, s_, st_);
      if (st_.seen.count(h) || inBatch.count(h)) return ++st_.duplicates, false;
      inBatch.insert(h);
      return true;
    };
    for (size_t i = 0; i < st_.islands.size(); ++i)
      for (int k = 0; k < s_.children; ++k) {
        Candidate p = parent(i), other = parent(draw(st_.islands.size()));
        for (int attempt = 0; attempt < 8; ++attempt) {
          Proposal child = proposer_.propose(p, other, st_.rng);
          if (!fresh(child.candidate)) continue;
          batch.push_back({std::move(child.candidate), i, false});
          break;
        }
      }
    if (!s_.proposer.empty() && st_.generation % static_cast<uint64_t>(std::max(1, s_.proposerEvery)) == 0)
      askExternal(batch, fresh);
    for (const auto& p : batch) st_.seen.insert(keyOf(p.candidate, s_, st_));
    uint64_t before = st_.evaluations;
    take(batch, scoreAll(batch));
    ++st_.generation;
    if (s_.migrateEvery > 0 && st_.generation % static_cast<uint64_t>(s_.migrateEvery) == 0) migrate();
    return st_.evaluations > before;
  }

  void askExternal(std::vector<Pending>& batch, const std::function<bool(const Candidate&)>& fresh) {
    std::vector<Member> best = st_.archive.members();
    std::sort(best.begin(), best.end(), better);
    if (best.size() > 8) best.resize(8);
    std::vector<Failure> failures = st_.proposerFailures;
    for (size_t k = 0; k < st_.failures.size() && k < 5; ++k) failures.push_back(st_.failures[k]);
    ++st_.proposer.calls;
    ProposerReply reply =
        askProposer(s_.proposer, proposerPrompt(t_, s_, best, failures, st_.proposer.calls), s_.proposerTimeout);
    st_.proposerFailures.clear();
    if (!reply.error.empty()) {
      ++st_.proposer.failedCalls;
      st_.proposerFailures.push_back({"", reply.error});
      if (ev_.note) ev_.note(reply.error + "; the search goes on with the built-in proposer");
      return;
    }
    for (const auto& why : reply.rejected) st_.proposerFailures.push_back({"", why});
    std::map<std::string, double> params = best.empty() ? seed_.params : best.front().candidate.params;
    size_t island = 0;
    for (const auto& text : reply.programs) {
      ++st_.proposer.programs;
      auto forms = readForms(text, "proposal");
      if (!forms) {
        ++st_.evaluations, ++st_.failed;
        st_.proposerFailures.push_back({text, forms.error().str()});
        continue;
      }
      Candidate c{std::move(*forms), params};
      if (!s_.edit.empty()) {  // the proposal must keep the definition the search edits
        auto k = editedForm(c.forms, s_.edit);
        if (!k) {
          ++st_.evaluations, ++st_.failed;
          st_.proposerFailures.push_back({text, k.error().message});
          continue;
        }
        c.edited = *k;
      }
      if (!fresh(c)) continue;
      batch.push_back({std::move(c), island++ % st_.islands.size(), true});
    }
  }

  std::vector<Score> scoreAll(const std::vector<Pending>& batch) {
    std::vector<Score> scores(batch.size());
    std::atomic<size_t> next{0};
    uint64_t base = st_.evaluations;
    auto work = [&] {
      for (size_t k; (k = next++) < batch.size();)
        scores[k] = scoreCandidate(t_, s_.score, batch[k].candidate, s_.seed * 1000003u + base + k);
    };
    size_t jobs = std::min(batch.size(), static_cast<size_t>(std::max(1, s_.jobs)));
    std::vector<std::thread> pool;
    for (size_t j = 1; j < jobs; ++j) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    return scores;
  }

  // The enumeration of small forms (search/Enumerate.h): scored as children are, its best members join the islands.
  void enumerate() {
    EnumerateSettings e;
    e.size = s_.enumerate;
    // A third of the budget at most: a resumed search given more --evals than its first part had ends where the
    // uninterrupted one does only when both reached the limit (or with the stage off).
    e.limit = s_.evals ? std::min<uint64_t>(s_.enumerateLimit, s_.evals / 3) : s_.enumerateLimit;
    auto fresh = [&](const Candidate& c) { return st_.seen.insert(keyOf(c, s_, st_)).second; };
    auto score = [&](const std::vector<Candidate>& cs) {
      std::vector<Pending> batch;
      for (const auto& c : cs) batch.push_back({c, 0, false});
      return take(batch, scoreAll(batch), false);
    };
    std::vector<Member> seeds = enumerateStage(t_, e, seed_.params, fresh, score);
    for (size_t k = 0; k < seeds.size(); ++k) join(k % st_.islands.size(), seeds[k]);
  }

  // Each scored candidate's member (nullopt: failed), offered to the archive and, with `joins`, to its island.
  std::vector<std::optional<Member>> take(const std::vector<Pending>& batch, const std::vector<Score>& scores,
                                          bool joins = true) {
    std::vector<std::optional<Member>> out(batch.size());
    for (size_t k = 0; k < batch.size(); ++k) {
      ++st_.evaluations;
      const Score& s = scores[k];
      if (s.ok && s.smoothed) ++st_.smoothed;
      if (batch[k].external) ++st_.proposer.scored;
      if (!s.ok) {
        ++st_.failed;
        Failure f{printForms(batch[k].candidate.forms), s.error};
        if (batch[k].external) {
          st_.proposerFailures.push_back(f);
        } else {
          st_.failures.push_front(f);
          if (st_.failures.size() > kFailuresKept) st_.failures.pop_back();
        }
        continue;
      }
      Member m{s.fitted, s.holdoutRmse, s.trainRmse, s.complexity, st_.evaluations, s.score};
      if (!algebraicKey(batch[k].candidate, s_))  // an algebraic key abstracts the literals: the fit keeps it
        st_.seen.insert(keyOf(m.candidate, s_, st_));
      const Member* before = st_.archive.best();
      double bestBefore = before ? before->score : INFINITY;
      st_.archive.offer(m);
      if (m.score < bestBefore) st_.history.emplace_back(st_.evaluations, m.score);
      if (joins) join(batch[k].island, m);
      out[k] = std::move(m);
    }
    return out;
  }

  void join(size_t island, const Member& m) {
    auto& members = st_.islands[island];
    members.push_back(m);
    if (members.size() <= static_cast<size_t>(s_.population)) return;
    members.erase(members.begin());  // the oldest leaves (regularized evolution); the archive keeps the elites
  }

  void migrate() {
    size_t n = st_.islands.size();
    std::vector<const Member*> bests(n, nullptr);
    for (size_t i = 0; i < n; ++i)
      for (const auto& m : st_.islands[i])
        if (!bests[i] || fitness(m) < fitness(*bests[i])) bests[i] = &m;
    std::vector<Member> movers;
    for (size_t i = 0; i < n; ++i) movers.push_back(bests[(i + 1) % n] ? *bests[(i + 1) % n] : Member{});
    for (size_t i = 0; i < n; ++i)
      if (bests[(i + 1) % n] && n > 1) join(i, movers[i]);
  }

  SearchResult result() const {
    SearchResult r;
    if (const Member* b = st_.archive.best()) r.best = *b, r.found = true;
    r.front = paretoFront(st_.archive.members());
    if (r.found) {
      r.pick = pickFromFront(r.front, s_.pick, t_.spread);
      const Member& p = picked(r);
      r.snapped.candidate = p.candidate, r.snapped.score = p.score;
      r.snapped.holdoutRmse = p.holdoutRmse, r.snapped.trainRmse = p.trainRmse;
    }
    r.evaluations = st_.evaluations, r.failed = st_.failed, r.generations = st_.generation;
    r.smoothed = st_.smoothed;
    r.duplicates = st_.duplicates, r.algebraicKeys = st_.algebraicKeys;
    r.seconds = seconds(), r.history = st_.history, r.proposer = st_.proposer;
    return r;
  }
};

json columnSummary(const std::vector<double>& v) {
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  for (double x : v) lo = std::min(lo, x), hi = std::max(hi, x), sum += x;
  return {{"min", lo}, {"max", hi}, {"mean", v.empty() ? 0 : sum / static_cast<double>(v.size())}};
}

}  // namespace

std::string proposerPrompt(const Task& task, const SearchSettings& s, const std::vector<Member>& best,
                           const std::vector<Failure>& failures, uint64_t call) {
  json columns = json::object();
  std::vector<std::string> shown = task.vars;
  shown.push_back(task.target);
  for (const auto& name : shown) columns[name] = columnSummary(task.data->columns[task.data->find(name)]);
  json sample = json::array();
  for (size_t r = 0; r < task.data->rows() && r < 8; ++r) {
    json row = json::object();
    for (const auto& name : shown) row[name] = task.data->columns[task.data->find(name)][r];
    sample.push_back(row);
  }
  json bestJson = json::array();
  for (const auto& m : best) bestJson.push_back(memberJson(m));
  json j = {
      {"task", "Propose Scheme programs (one expression each) that predict the column '" + task.target +
                   "' from the variables. Numeric literals and the named parameters are fitted to the data by "
                   "gradient descent before a program is scored, so write the structure and leave the constants "
                   "rough. A lower score is better (" +
                   (s.score.scoreAll ? "the RMSE on every row, fitted and held out" : "the RMSE on the held-out rows") +
                   "); simpler programs (fewer nodes) are preferred."},
      {"reply", "a JSON array of program strings, e.g. [\"(* a (exp (- (* b t))))\"]"},
      {"call", call},
      {"want", s.proposerWant},
      {"target", task.target},
      {"variables", task.vars},
      {"parameters", task.params},
      {"operators", s.grammar.ops},
      {"data", {{"rows", task.data->rows()}, {"columns", columns}, {"first_rows", sample}}},
      {"best", bestJson},
      {"failures", failuresJson(failures)}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

const Member& picked(const SearchResult& r) { return r.front.at(r.pick.index); }

Result<SearchResult> runSearch(const Task& task, const SearchSettings& settings, const Candidate& seed,
                               const SearchEvents& events) {
  return Loop(task, settings, seed, events).run();
}

}  // namespace dmci::search
