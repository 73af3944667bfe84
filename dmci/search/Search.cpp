// The outer loop: epochs of the islands' generations, scored in parallel, merged into the archive and the front in
// a fixed order; the state it carries, saves and broadcasts between epochs is SearchState.h's, the ranks it runs on
// are Exchange.h's.
#include "search/Search.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "search/Enumerate.h"
#include "search/ExternalProposer.h"
#include "search/Probe.h"
#include "search/SearchState.h"
#include "search/Terms.h"
#include "support/JsonText.h"

namespace dmci::search {

namespace {

using json = nlohmann::json;

constexpr size_t kFailuresKept = 20;
// Epochs in a row with nothing new to score before the search gives up (every child was seen before).
constexpr int kBarrenEpochs = 10;
// An island's generations in one epoch, at most, per generation its quota needs (children seen before are drawn
// again, and a generation may score none).
constexpr uint64_t kGenerationsPerQuota = 8;
// Evaluations numbered by an island before the merge numbers them: this bit and the island's sequence.
constexpr uint64_t kProvisional = 1ull << 63;

// The score with a small price on size: what tournaments and islands compare.
double fitness(const Member& m) { return m.score * (1 + 0.01 * m.complexity); }

struct Pending {
  Candidate candidate;
  size_t island = 0;  // the index in the rank's islands (the first generation: the island itself)
  bool external = false;
  uint64_t seed = 0;  // the fit's
};

// splitmix64's finaliser: the seeds of the islands' generators and of their fits.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
uint64_t mix(uint64_t a, uint64_t b) { return mix(mix(a) ^ b); }
uint64_t fitSeed(uint64_t seed, uint64_t island, uint64_t generation, uint64_t slot) {
  return mix(mix(mix(seed, island + 1), generation), slot);
}
// The first generation's fits (the seed and the probe's programs), before any island's.
constexpr uint64_t kFirstGeneration = ~0ull;

// The planted fault of SearchSettings::fault: (what, rank, epoch); what is "" when none.
struct Fault {
  std::string what;
  int rank = 0;
  uint64_t epoch = 0;
};
Fault faultOf(const std::string& text) {
  Fault f;
  unsigned long long e = 0;
  int r = 0;
  if (std::sscanf(text.c_str(), "kill:%d:%llu", &r, &e) == 2) f = {"kill", r, e};
  if (std::sscanf(text.c_str(), "torn:%llu", &e) == 1) f = {"torn", 0, e};
  return f;
}

// Writes `text` to `path` durably and atomically (a temporary file, fsync, rename), the file it replaces kept as
// `previous` (a hard link, renamed over it): the last two checkpoints. A torn fault dies before the rename.
Result<bool> writeCheckpoint(const std::string& path, const std::string& previous, const std::string& text,
                             bool tornFault) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (size_t at = 0; ok && at < text.size();) {
    ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n <= 0)
      ok = false;
    else
      at += static_cast<size_t>(n);
  }
  if (ok && ::fsync(fd) != 0) ok = false;
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  if (!ok) {
    fs::remove(tmp, ec);
    return Error{ErrorKind::Io, "cannot write the checkpoint " + path, {}};
  }
  if (tornFault) std::raise(SIGKILL);
  if (fs::exists(target, ec)) {  // the last checkpoint becomes the previous one
    const std::string link = previous + ".tmp." + std::to_string(::getpid());
    fs::remove(link, ec);
    if (::link(path.c_str(), link.c_str()) == 0) fs::rename(link, previous, ec);
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Error{ErrorKind::Io, "cannot write the checkpoint " + path + ": " + ec.message(), {}};
  }
  if (int dir = ::open(target.has_parent_path() ? target.parent_path().c_str() : ".", O_RDONLY | O_DIRECTORY); dir >= 0)
    ::fsync(dir), ::close(dir);
  return true;
}

int hashDigits(const SearchSettings& s) { return s.score.gradient ? 2 : 12; }

// A candidate's key (search/Canon.h): with gradients its literals are fitted, so their values make no structure.
CanonicalKey keyOf(const Candidate& c, const SearchSettings& s) {
  if (c.forms.size() > 1) return {canonicalHash(c.value(), hashDigits(s)), false};  // definitions: the value's hash
  return canonicalKey(c.value(), s.canon, s.score.gradient ? 0 : 12, hashDigits(s));
}

uint64_t keyOf(const Candidate& c, const SearchSettings& s, uint64_t& algebraicKeys) {
  CanonicalKey k = keyOf(c, s);
  if (k.algebraic) ++algebraicKeys;
  return k.key;
}

// Whether `c`'s key is algebraic with its literals abstract (then its fitted form has the same key).
bool algebraicKey(const Candidate& c, const SearchSettings& s) { return s.score.gradient && keyOf(c, s).algebraic; }

// An island's epoch on this rank: its report (the island in it changes as the epoch goes) and its progress.
struct Work {
  IslandReport report;
  uint64_t quota = 0, done = 0, generations = 0, most = 0;
  std::set<uint64_t> seen;  // the keys the island saw first in this epoch
  bool open() const { return done < quota && generations < most; }
};

class Loop {
 public:
  Loop(const Task& t, const SearchSettings& s, const Candidate& seed, const SearchEvents& ev)
      : t_(t),
        s_(s),
        seed_(seed),
        ev_(ev),
        proposer_(s.grammar, s.score.gradient),
        x_(s.exchange ? *s.exchange : localExchange()),
        fault_(faultOf(s.fault)),
        began_(now()) {
    st_.archive = EliteArchive(t.spread);
  }

  Result<SearchResult> run() {
    const int rank = x_.rank(), ranks = x_.ranks();
    const auto islands = static_cast<size_t>(std::max(1, s_.islands));
    if (islands < static_cast<size_t>(ranks))
      return Error{ErrorKind::Usage,
                   "--islands " + std::to_string(islands) + " is below the " + std::to_string(ranks) +
                       " ranks: every rank runs at least one island (island i runs on rank i mod R); give at least " +
                       std::to_string(ranks) + " islands, or fewer ranks",
                   {}};
    rates_.assign(static_cast<size_t>(ranks), {0, 0});
    std::string text;
    if (rank == 0) {  // the state every rank starts from: rank 0's
      auto ok = s_.resume ? resume() : first();
      text = ok ? stateText(st_, s_.fingerprint) : "!" + ok.error().str();
      if (!ok) {
        x_.broadcast(text);
        return ok.error();
      }
      if (auto w = checkpoint(text); !w) {
        x_.broadcast("!" + w.error().str());
        return w.error();
      }
      if (ev_.generation) ev_.generation(result());
    }
    for (;;) {
      text = x_.broadcast(text);
      if (!text.empty() && text[0] == '!') return Error{ErrorKind::Usage, text.substr(1), {}};
      // Every rank (one alone too) goes on from the text: the state is the same everywhere.
      if (auto ok = loadStateText(st_, text, "the epoch's state", s_.fingerprint); !ok) return ok.error();
      if (!st_.stop.empty()) break;
      auto t0 = now();
      std::vector<IslandReport> reports = epoch(rank, ranks);
      uint64_t scored = 0;
      for (const auto& r : reports) scored += r.outcomes.size();
      nlohmann::json me = {{"rank", rank},
                           {"evaluations", scored},
                           {"seconds", std::chrono::duration<double>(now() - t0).count()},
                           {"stop", s_.stopRequested && s_.stopRequested->load()}};
      std::vector<std::string> all = x_.gather(reportsText(reports, me));
      if (rank != 0) continue;
      if (auto ok = merge(all); !ok) {
        x_.broadcast("!" + ok.error().str());
        return ok.error();
      }
      text = stateText(st_, s_.fingerprint);
      if (auto w = checkpoint(text); !w) {
        x_.broadcast("!" + w.error().str());
        return w.error();
      }
      if (ev_.generation) ev_.generation(result());
    }
    if (rank != 0) {
      SearchResult r;
      r.follower = true, r.ranks = ranks, r.epochs = st_.epoch, r.evaluations = st_.evaluations;
      return r;
    }
    if (st_.stop == "barren" && ev_.note)
      ev_.note("no proposer found a new candidate in " + std::to_string(kBarrenEpochs) + " epochs");
    SearchResult r = result();
    if (r.found && s_.snap && !r.stopped) {
      SnapSettings snap = s_.snapping;
      snap.floor = s_.pick.floor * t_.spread;
      r.snapped = snapConstants(t_, s_.score, picked(r), snap, s_.seed * 1000003u + st_.evaluations);
      // The snapped program is the reported pick when some constant snapped: each form was kept only when the
      // program with it (and every form before it) fits as well as the fitted pick, by Snap's tolerance or by its
      // statistical test (jointly over the constants fixed so far).
      r.snapped.reported = !r.snapped.constants.empty();
    }
    return r;
  }

 private:
  const Task& t_;
  const SearchSettings& s_;
  const Candidate& seed_;
  const SearchEvents& ev_;
  BuiltinProposer proposer_;
  IslandExchange& x_;
  Fault fault_;
  State st_;
  std::chrono::steady_clock::time_point began_;
  double secondsBefore_ = 0;
  std::vector<std::pair<double, double>> rates_;  // each rank's evaluations and busy seconds in this run

  static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
  double seconds() const { return secondsBefore_ + std::chrono::duration<double>(now() - began_).count(); }

  bool finished() const {
    if (s_.evals && st_.evaluations >= s_.evals) return true;
    if (s_.seconds > 0 && seconds() >= s_.seconds) return true;
    const Member* best = st_.archive.best();
    return s_.goal > 0 && best && best->score <= s_.goal;
  }

  // Whether the search stops after this epoch, and why (rank 0, at the epoch's end).
  void decide(bool signalled) {
    st_.stop = finished() ? "done" : signalled ? "signal" : st_.barren >= kBarrenEpochs ? "barren" : "";
  }

  std::string previousFile() const {
    std::filesystem::path p(s_.stateFile);
    return (p.parent_path() / (p.stem().string() + ".prev" + p.extension().string())).string();
  }

  Result<bool> checkpoint(const std::string& text) {
    if (s_.stateFile.empty()) return true;
    return writeCheckpoint(s_.stateFile, previousFile(), text, fault_.what == "torn" && fault_.epoch == st_.epoch);
  }

  // Rank 0: the state of the checkpoint (the last; the one before when a crash took the last between renames).
  Result<bool> resume() {
    std::error_code ec;
    std::string path = s_.stateFile;
    if (!std::filesystem::exists(path, ec) && std::filesystem::exists(previousFile(), ec)) path = previousFile();
    if (auto ok = loadState(st_, path, s_.fingerprint); !ok) return ok;
    if (st_.islands.size() != static_cast<size_t>(std::max(1, s_.islands)))
      return Error{ErrorKind::Usage,
                   path + " holds " + std::to_string(st_.islands.size()) + " islands, not --islands " +
                       std::to_string(s_.islands),
                   {}};
    secondsBefore_ = st_.seconds;
    // A crash between a checkpoint's write and its rename left its temporary file: never a checkpoint, removed.
    const std::filesystem::path dir = std::filesystem::path(s_.stateFile).parent_path();
    for (const std::string& prefix : {std::filesystem::path(s_.stateFile).filename().string() + ".tmp.",
                                      std::filesystem::path(previousFile()).filename().string() + ".tmp."})
      for (const auto& entry : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec))
        if (entry.path().filename().string().rfind(prefix, 0) == 0) std::filesystem::remove(entry.path(), ec);
    decide(s_.stopRequested && s_.stopRequested->load());
    if (st_.stop.empty()) askExternal();
    return true;
  }

  // Rank 0: the first generation: the seed and the power-law probe's programs, dealt to the islands in turn.
  Result<bool> first() {
    const auto n = static_cast<size_t>(std::max(1, s_.islands));
    st_.islands.assign(n, {});
    for (size_t i = 0; i < n; ++i) st_.islands[i].rng.seed(mix(s_.seed, i));
    std::vector<Pending> batch{{seed_, 0, false, fitSeed(s_.seed, kFirstGeneration, 0, 0)}};
    st_.seen.insert(keyOf(seed_, s_, st_.algebraicKeys));
    if (s_.probe)
      for (auto& c : powerLawProbes(t_)) {
        uint64_t key = keyOf(c, s_, st_.algebraicKeys);
        if (!st_.seen.insert(key).second) continue;
        for (const auto& [name, v] : seed_.params) c.params.emplace(name, v);
        batch.push_back({std::move(c), batch.size() % n, false, fitSeed(s_.seed, kFirstGeneration, 0, batch.size())});
      }
    std::vector<Score> scores = scoreAll(batch);
    for (size_t k = 0; k < batch.size(); ++k) {
      Outcome o = outcome(batch[k], scores[k]);
      if (o.ok && !algebraicKey(batch[k].candidate, s_))
        st_.seen.insert(keyOf(o.member.candidate, s_, st_.algebraicKeys));
      if (auto m = account(o, ++st_.evaluations)) join(st_.islands[batch[k].island], *m);
    }
    for (size_t i = 1; i < n; ++i)
      if (st_.islands[i].members.empty()) st_.islands[i].members = st_.islands[0].members;
    if (s_.enumerate > 0 && s_.edit.empty()) enumerate();
    if (s_.terms > 0) terms();
    decide(s_.stopRequested && s_.stopRequested->load());
    if (st_.stop.empty()) askExternal();
    return true;
  }

  Outcome outcome(const Pending& p, const Score& s) const {
    Outcome o;
    o.external = p.external;
    if (!s.ok) {
      o.failure = {printForms(p.candidate.forms), s.error};
      return o;
    }
    o.ok = true, o.smoothed = s.smoothed;
    o.member = Member{s.fitted, s.holdoutRmse, s.trainRmse, s.complexity, 0, s.score};
    return o;
  }

  // Counts one scored candidate, numbered `number`, and offers it to the archive; the member when it scored.
  std::optional<Member> account(const Outcome& o, uint64_t number) {
    if (o.external) ++st_.proposer.scored;
    if (!o.ok) {
      ++st_.failed;
      if (o.external) {
        st_.proposerFailures.push_back(o.failure);
      } else {
        st_.failures.push_front(o.failure);
        if (st_.failures.size() > kFailuresKept) st_.failures.pop_back();
      }
      return std::nullopt;
    }
    if (o.smoothed) ++st_.smoothed;
    Member m = o.member;
    m.evaluation = number;
    const Member* before = st_.archive.best();
    double bestBefore = before ? before->score : INFINITY;
    st_.archive.offer(m);
    if (m.score < bestBefore) st_.history.emplace_back(number, m.score);
    return m;
  }

  // A parent for `island`: an archive elite (as the archive stood when the epoch began) one time in four, else
  // the best of three drawn from the island; every draw from the island's generator.
  Candidate parent(Island& island) {
    const auto& members = island.members;
    bool fromArchive = std::uniform_real_distribution<double>(0, 1)(island.rng) < 0.25;
    if (members.empty() || (fromArchive && !st_.archive.empty()))
      return st_.archive.empty() ? seed_ : st_.archive.draw(island.rng).candidate;
    const Member* best = nullptr;
    for (int k = 0; k < 3; ++k) {
      const Member& m = members[std::uniform_int_distribution<size_t>(0, members.size() - 1)(island.rng)];
      if (!best || fitness(m) < fitness(*best)) best = &m;
    }
    return best->candidate;
  }

  // Whether `c` is new to the search and to the island's epoch (then the island has seen it).
  bool fresh(Work& w, const Candidate& c) {
    uint64_t h = keyOf(c, s_, w.report.algebraicKeys);
    if (st_.seen.count(h) || w.seen.count(h)) return ++w.report.duplicates, false;
    w.seen.insert(h), w.report.seen.push_back(h);
    return true;
  }

  // This rank's islands' epoch: their generations side by side (one batch scored on `jobs` threads per round),
  // each island from its own state alone.
  std::vector<IslandReport> epoch(int rank, int ranks) {
    const auto n = st_.islands.size();
    const auto children = static_cast<uint64_t>(std::max(1, s_.children));
    const uint64_t quota = static_cast<uint64_t>(std::max(1, s_.epochEvals));  // whole epochs, even the last
    std::vector<Work> work;
    for (size_t i = static_cast<size_t>(rank); i < n; i += static_cast<size_t>(ranks)) {
      Work w;
      w.report.index = i, w.report.island = st_.islands[i];
      w.quota = quota, w.most = kGenerationsPerQuota * ((quota + children - 1) / children);
      work.push_back(std::move(w));
    }
    const bool killHere = fault_.what == "kill" && fault_.rank == rank && fault_.epoch == st_.epoch + 1;
    for (bool firstRound = true;; firstRound = false) {
      std::vector<Pending> batch;
      for (size_t k = 0; k < work.size(); ++k) {
        Work& w = work[k];
        Island& island = w.report.island;
        if (firstRound) {  // the external proposer's programs, from the last epoch's end
          for (size_t j = 0; j < island.incoming.size(); ++j)
            if (fresh(w, island.incoming[j]))
              batch.push_back(
                  {island.incoming[j], k, true, fitSeed(s_.seed, w.report.index, island.generation, (1ull << 32) + j)});
          island.incoming.clear();
        }
        if (!w.open()) continue;
        ++w.generations, ++island.generation;
        const uint64_t want = std::min(children, w.quota - w.done);
        for (uint64_t slot = 0; slot < want; ++slot) {
          Candidate p = parent(island), other = parent(island);
          for (int attempt = 0; attempt < 8; ++attempt) {
            Proposal child = proposer_.propose(p, other, island.rng);
            if (!fresh(w, child.candidate)) continue;
            batch.push_back(
                {std::move(child.candidate), k, false, fitSeed(s_.seed, w.report.index, island.generation, slot)});
            break;
          }
        }
      }
      if (!batch.empty()) {
        std::vector<Score> scores = scoreAll(batch);
        for (size_t b = 0; b < batch.size(); ++b) {
          Work& w = work[batch[b].island];
          Outcome o = outcome(batch[b], scores[b]);
          if (!batch[b].external) ++w.done;
          if (o.ok) {
            o.member.evaluation = kProvisional | w.report.outcomes.size();
            if (!algebraicKey(batch[b].candidate, s_)) {  // an algebraic key abstracts the literals: the fit keeps it
              uint64_t h = keyOf(o.member.candidate, s_, w.report.algebraicKeys);
              if (w.seen.insert(h).second) w.report.seen.push_back(h);
            }
            join(w.report.island, o.member);
          }
          w.report.outcomes.push_back(std::move(o));
        }
        if (killHere) std::raise(SIGKILL);  // the planted fault: in the middle of the epoch
      }
      if (std::none_of(work.begin(), work.end(), [](const Work& w) { return w.open(); })) break;
    }
    std::vector<IslandReport> out;
    for (auto& w : work) out.push_back(std::move(w.report));
    return out;
  }

  // Rank 0: the ranks' reports into the state, in island order, then migration and the external proposer.
  Result<bool> merge(const std::vector<std::string>& texts) {
    std::vector<IslandReport> reports;
    bool signalled = false;
    for (const auto& text : texts) {
      nlohmann::json rank;
      auto got = loadReports(text, rank);
      if (!got) return got.error();
      const auto r = rank.at("rank").get<size_t>();
      if (r < rates_.size())
        rates_[r].first += rank.at("evaluations").get<double>(), rates_[r].second += rank.at("seconds").get<double>();
      signalled = signalled || rank.at("stop").get<bool>();
      for (auto& report : *got) reports.push_back(std::move(report));
    }
    std::sort(reports.begin(), reports.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    const uint64_t before = st_.evaluations;
    for (auto& r : reports) {
      std::vector<uint64_t> number(r.outcomes.size());
      for (size_t k = 0; k < r.outcomes.size(); ++k) account(r.outcomes[k], number[k] = ++st_.evaluations);
      for (auto& m : r.island.members)
        if (m.evaluation & kProvisional) m.evaluation = number.at(m.evaluation & ~kProvisional);
      st_.seen.insert(r.seen.begin(), r.seen.end());
      st_.duplicates += r.duplicates, st_.algebraicKeys += r.algebraicKeys;
      st_.islands.at(r.index) = std::move(r.island);
    }
    ++st_.epoch;
    st_.barren = st_.evaluations > before ? 0 : st_.barren + 1;
    migrate();
    st_.seconds = seconds();
    decide(signalled || (s_.stopRequested && s_.stopRequested->load()));
    if (st_.stop.empty()) askExternal();
    return true;
  }

  // The external proposer, every proposerEvery epochs: its programs wait in the islands, in turn.
  void askExternal() {
    if (s_.proposer.empty() || st_.epoch % static_cast<uint64_t>(std::max(1, s_.proposerEvery)) != 0) return;
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
      st_.islands[island++ % st_.islands.size()].incoming.push_back(std::move(c));
    }
  }

  std::vector<Score> scoreAll(const std::vector<Pending>& batch) { return scoreAll(batch, s_.score); }
  std::vector<Score> scoreAll(const std::vector<Pending>& batch, const ScoreSettings& settings) {
    std::vector<Score> scores(batch.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t k; (k = next++) < batch.size();)
        scores[k] = scoreCandidate(t_, settings, batch[k].candidate, batch[k].seed);
    };
    size_t jobs = std::min(batch.size(), static_cast<size_t>(std::max(1, s_.jobs)));
    std::vector<std::thread> pool;
    for (size_t j = 1; j < jobs; ++j) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    return scores;
  }

  // The enumeration of small forms (search/Enumerate.h), on rank 0 in the first generation: its forms are scored
  // as children are (each one evaluation, fits seeded by their place), its best members join the islands in turn.
  void enumerate() {
    EnumerateSettings e;
    e.size = s_.enumerate;
    // A third of the budget at most: a resumed search given more --evals than its first part had ends where the
    // uninterrupted one does only when both reached the limit (or with the stage off).
    e.limit = s_.evals ? std::min<uint64_t>(s_.enumerateLimit, s_.evals / 3) : s_.enumerateLimit;
    auto fresh = [&](const Candidate& c) { return st_.seen.insert(keyOf(c, s_, st_.algebraicKeys)).second; };
    uint64_t slot = 0;
    // A form of the stage is fitted once, from a start that knows nothing of the law (C at the target's size, a
    // rate at 1/RMS x), and no child refines it before the islands rank it: four times the loop's iterations, so
    // that 1/(1 - e^(k x)) reaches k = 1/2π (about 36 steps from its start) rather than lose to what fits in eight.
    ScoreSettings settings = s_.score;
    settings.iterations = std::max(settings.iterations, 4 * s_.score.iterations);
    auto score = [&](const std::vector<Candidate>& cs) {
      std::vector<Pending> batch;
      for (const auto& c : cs) batch.push_back({c, 0, false, fitSeed(s_.seed, kFirstGeneration, 1, slot++)});
      std::vector<Score> scores = scoreAll(batch, settings);
      std::vector<std::optional<Member>> out(batch.size());
      for (size_t k = 0; k < batch.size(); ++k) {
        Outcome o = outcome(batch[k], scores[k]);
        if (o.ok && !algebraicKey(batch[k].candidate, s_))
          st_.seen.insert(keyOf(o.member.candidate, s_, st_.algebraicKeys));
        out[k] = account(o, ++st_.evaluations);
      }
      return out;
    };
    std::vector<Member> seeds = enumerateStage(t_, e, seed_.params, fresh, score);
    for (size_t k = 0; k < seeds.size(); ++k) join(st_.islands[k % st_.islands.size()], seeds[k]);
  }

  // The sparse regression over a library of terms (search/Terms.h), on rank 0 in the first generation after the
  // enumeration: its candidates are scored as children are, its best members join the islands in turn.
  void terms() {
    TermSettings e;
    e.size = s_.terms;
    auto fresh = [&](const Candidate& c) { return st_.seen.insert(keyOf(c, s_, st_.algebraicKeys)).second; };
    uint64_t slot = 0;
    auto score = [&](const std::vector<Candidate>& cs) {
      std::vector<Pending> batch;
      for (const auto& c : cs) batch.push_back({c, 0, false, fitSeed(s_.seed, kFirstGeneration, 2, slot++)});
      std::vector<Score> scores = scoreAll(batch);
      std::vector<std::optional<Member>> out(batch.size());
      for (size_t k = 0; k < batch.size(); ++k) out[k] = account(outcome(batch[k], scores[k]), ++st_.evaluations);
      return out;
    };
    std::vector<Member> seeds = termStage(t_, s_.score, e, seed_, s_.grammar.vars, fresh, score, 12);
    for (size_t k = 0; k < seeds.size(); ++k) join(st_.islands[k % st_.islands.size()], seeds[k]);
  }

  void join(Island& island, const Member& m) {
    island.members.push_back(m);
    if (island.members.size() <= static_cast<size_t>(std::max(1, s_.population))) return;
    island.members.erase(island.members.begin());  // the oldest leaves (regularized evolution)
  }

  // Each island receives the best member of the next (a ring), and one member of the front, in turn.
  void migrate() {
    size_t n = st_.islands.size();
    std::vector<const Member*> bests(n, nullptr);
    for (size_t i = 0; i < n; ++i)
      for (const auto& m : st_.islands[i].members)
        if (!bests[i] || fitness(m) < fitness(*bests[i])) bests[i] = &m;
    std::vector<std::optional<Member>> movers(n);
    for (size_t i = 0; i < n; ++i)
      if (n > 1 && bests[(i + 1) % n]) movers[i] = *bests[(i + 1) % n];
    std::vector<Member> front = paretoFront(st_.archive.members());
    for (size_t i = 0; i < n; ++i) {
      if (movers[i]) join(st_.islands[i], *movers[i]);
      if (!front.empty()) join(st_.islands[i], front[(st_.epoch + i) % front.size()]);
    }
  }

  SearchResult result() const {
    SearchResult r;
    if (const Member* b = st_.archive.best()) r.best = *b, r.found = true;
    r.archive = st_.archive.members();
    r.front = paretoFront(r.archive);
    if (r.found) {
      const size_t rows = t_.holdout.size() + (s_.score.scoreAll ? t_.train.size() : 0);  // what a score measures
      r.pick = pickFromFront(r.front, s_.pick, t_.spread, rows);
      const Member& p = picked(r);
      r.snapped.candidate = p.candidate, r.snapped.score = p.score;
      r.snapped.holdoutRmse = p.holdoutRmse, r.snapped.trainRmse = p.trainRmse;
    }
    r.evaluations = st_.evaluations, r.failed = st_.failed;
    for (const auto& island : st_.islands) r.generations += island.generation;
    r.epochs = st_.epoch, r.ranks = x_.ranks(), r.stopped = st_.stop == "signal";
    for (const auto& [evals, busy] : rates_) r.rankRates.push_back(busy > 0 ? evals / busy : 0);
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
  return jsonText(j) + "\n";
}

const Member& picked(const SearchResult& r) { return r.front.at(r.pick.index); }

Result<SearchResult> runSearch(const Task& task, const SearchSettings& settings, const Candidate& seed,
                               const SearchEvents& events) {
  if (auto why = fitterMissing(settings.score)) return *why;
  return Loop(task, settings, seed, events).run();
}

}  // namespace dmci::search
