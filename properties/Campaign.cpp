// Runs a seeded fuzz campaign on worker threads, counts the mix, and shrinks and saves failures.
#include "properties/Campaign.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "support/BigStack.h"
#include "syntax/Reader.h"

namespace dmci::props {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Greedy shrinking: follow the first shrink that still fails, until none does or time runs out.
template <class T>
std::pair<T, int> shrink(rc::Shrinkable<T> s, const std::function<bool(const T&)>& fails, double seconds) {
  auto t0 = Clock::now();
  int steps = 0;
  for (bool progressed = true; progressed && since(t0) < seconds;) {
    progressed = false;
    auto seq = s.shrinks();
    while (auto next = seq.next()) {
      if (since(t0) >= seconds) break;
      if (fails(next->value())) {
        s = *next;
        ++steps;
        progressed = true;
        break;
      }
    }
  }
  return {s.value(), steps};
}

std::string depthKey(int d) { return std::string(d < 10 ? "0" : "").append(std::to_string(d)); }

// The properties on one generated case: the triangle, then the syntax round trips.
std::pair<std::string, Outcome> checkCase(const Case& c, const TriangleOptions& opts) {
  Outcome o = checkTriangle(c, opts);
  if (!o.ok()) return {"triangle", o};
  Outcome e = checkExpandKeepsMeaning(c);
  if (!e.ok()) return {"expand", e};
  auto forms = readAll(c.text, "case.scm");
  if (!forms) return {"print-read", {Verdict::Fail, forms.error().str()}};
  for (const auto& f : *forms) {
    Outcome p = checkPrintRead(f);
    if (!p.ok()) return {"print-read", p};
  }
  return {"triangle", o};
}

// Case i's bad input: token soup, random text or an ill-typed program, in turn.
rc::Gen<std::string> badInputGen(uint64_t index) {
  switch (index % 3) {
    case 0:
      return genTokenSoup();
    case 1:
      return genIllTyped();
    default:
      return genRandomText();
  }
}

class Runner {
 public:
  explicit Runner(const CampaignOptions& o) : o_(o) {
    r_.seed = o.seed;
    r_.shard = o.shard;
    r_.shards = o.shards;
    r_.jobs = o.jobs;
  }

  CampaignReport run() {
    std::vector<std::thread> threads;
    for (int j = 0; j < std::max(1, o_.jobs); ++j)
      threads.emplace_back([this] { runWithBigStack([this] { work(); }, size_t{256} << 20); });
    for (auto& t : threads) t.join();
    r_.seconds = since(t0_);
    if (o_.progress) o_.progress(r_);
    return r_;
  }

 private:
  const CampaignOptions& o_;
  CampaignReport r_;
  std::mutex mu_;
  std::atomic<uint64_t> next_{0};
  Clock::time_point t0_ = Clock::now(), lastProgress_ = Clock::now();

  bool done(uint64_t k) const { return (o_.cases && k >= o_.cases) || (o_.seconds > 0 && since(t0_) >= o_.seconds); }

  void work() {
    for (uint64_t k; !done(k = next_++);) {
      uint64_t index = k * static_cast<uint64_t>(o_.shards) + static_cast<uint64_t>(o_.shard);
      runOne(index);
    }
  }

  void runOne(uint64_t index) {
    int size = static_cast<int>(index % 101);
    auto shrinkable = genCase(o_.maxDepth)(rc::Random(caseSeed(o_.seed, index)), size);
    Case c = shrinkable.value();
    auto [property, outcome] = checkCase(c, o_.triangle);
    std::optional<Failure> failure;
    if (!outcome.ok()) failure = shrinkCase(index, shrinkable, property, outcome);
    bool illLanes = false;
    if (!failure && lanesCase(index)) {
      Route route = lanesRoute(index);
      auto check = [&](const Case& x) { return o_.lanes(x, route); };
      Outcome lanes = check(c);
      illLanes = lanes.illConditioned;
      if (!lanes.ok()) failure = shrinkWith(index, shrinkable, "lanes", lanes, check);
    }
    std::optional<Failure> bad;
    if (o_.badInputEvery > 0 && index % static_cast<uint64_t>(o_.badInputEvery) == 0) bad = badInput(index);
    record(index, c, outcome, failure, bad, illLanes);
  }

  Failure shrinkCase(uint64_t index, const rc::Shrinkable<Case>& s, const std::string& property, const Outcome& o) {
    return shrinkWith(index, s, property, o, [&](const Case& c) {
      auto [p, out] = checkCase(c, o_.triangle);
      return p == property ? out : Outcome{};
    });
  }

  Failure shrinkWith(uint64_t index, const rc::Shrinkable<Case>& s, const std::string& property, const Outcome& o,
                     const std::function<Outcome(const Case&)>& check) {
    Failure f{index, property, s.value(), s.value().text, o.detail, 0};
    auto fails = [&](const Case& c) { return !check(c).ok(); };
    auto [small, steps] = shrink<Case>(s, fails, o_.shrinkSeconds);
    f.shrunk = small;
    f.shrinkSteps = steps;
    f.detail = check(small).detail;
    return f;
  }

  // Every lanesEvery-th case (offset 1 from the bad-input cases), alternating the direct and dmci routes.
  bool lanesCase(uint64_t index) const {
    return o_.lanes && o_.lanesEvery > 0 && index % static_cast<uint64_t>(o_.lanesEvery) == 1 % o_.lanesEvery;
  }
  Route lanesRoute(uint64_t index) const {
    return (index / static_cast<uint64_t>(o_.lanesEvery)) % 2 ? Route::Dmci : Route::Direct;
  }

  std::optional<Failure> badInput(uint64_t index) {
    auto s = badInputGen(index)(rc::Random(caseSeed(o_.seed ^ 0xbadull, index)), static_cast<int>(index % 101));
    Outcome o = checkBadInput(s.value());
    if (o.ok()) return std::nullopt;
    auto fails = [](const std::string& t) { return !checkBadInput(t).ok(); };
    auto [small, steps] = shrink<std::string>(s, fails, o_.shrinkSeconds);
    Failure f{index, "bad-input", {}, s.value(), checkBadInput(small).detail, steps};
    f.shrunk.text = small;
    return f;
  }

  void record(uint64_t index, const Case& c, const Outcome& o, std::optional<Failure>& f, std::optional<Failure>& bad,
              bool illLanes) {
    std::lock_guard<std::mutex> lock(mu_);
    ++r_.cases;
    ++r_.syntaxChecks;
    if (o.verdict == Verdict::Pass) ++r_.pass;
    if (o.illConditioned) ++r_.illConditioned;
    if (o.verdict == Verdict::Nondifferentiable) {
      ++r_.nondifferentiable;
      if (r_.nondifferentiableReasons.size() < 10) r_.nondifferentiableReasons.push_back(o.detail);
    }
    if (c.tags & kRecursive) ++r_.recursive;
    if (c.tags & kHigherOrder) ++r_.higherOrder;
    ++r_.byFamily[c.family];
    ++r_.byDepth[depthKey(c.depth)];
    for (const auto& t : tagNames(c.tags)) ++r_.byTag[t];
    if (o_.badInputEvery > 0 && index % static_cast<uint64_t>(o_.badInputEvery) == 0) ++r_.badInputChecks;
    if (lanesCase(index) && (!f || f->property == "lanes")) ++r_.laneChecks;
    if (illLanes) ++r_.laneIllConditioned;
    if (bad) {
      ++r_.failed;
      r_.failures.push_back(*bad);
    }
    if (f) {
      ++r_.failed;
      r_.failures.push_back(*f);
    }
    if (o_.progress && since(lastProgress_) > 0.25) {
      lastProgress_ = Clock::now();
      r_.seconds = since(t0_);
      o_.progress(r_);
    }
  }
};

}  // namespace

uint64_t caseSeed(uint64_t seed, uint64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (index + 1);  // splitmix64
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Case campaignCase(uint64_t seed, uint64_t index, int maxDepth) {
  return sample(genCase(maxDepth), caseSeed(seed, index), static_cast<int>(index % 101));
}

CampaignReport runCampaign(const CampaignOptions& opts) { return Runner(opts).run(); }

namespace {

nlohmann::ordered_json pairJson(const CampaignReport& r, const Failure& f, const std::string& file) {
  nlohmann::ordered_json bind = nlohmann::ordered_json::object();
  for (const auto& s : f.shrunk.seed) bind[s.name] = s.value;
  std::string note = f.detail.substr(0, f.detail.find('\n'));
  return {{"name", "fuzz/" + std::to_string(r.seed) + "/" + std::to_string(f.index)},
          {"file", file},
          {"family", "fuzz/" + f.shrunk.family},
          {"bind", bind},
          {"wrt", f.shrunk.wrt},
          {"literals", f.shrunk.wrtLiterals},
          {"expect", "pass"},
          {"note", "found by dmci fuzz --seed " + std::to_string(r.seed) + " (case " + std::to_string(f.index) +
                       (f.property == "triangle" ? "" : ", " + f.property + " property") + "): " + note}};
}

// A failure the gate can rerun: the triangle's, and the lane property's when the case has parameters to
// vary (written with the lanes checkLanes used).
bool asPair(const Failure& f) { return f.property == "triangle" || (f.property == "lanes" && !f.shrunk.seed.empty()); }

}  // namespace

std::string saveFailures(const CampaignReport& report, const std::string& dir, size_t* written) {
  namespace fs = std::filesystem;
  *written = 0;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir + ": " + ec.message();
  fs::path manifestPath = fs::path(dir) / "manifest.json";
  nlohmann::ordered_json manifest{{"version", 1}, {"pairs", nlohmann::ordered_json::array()}};
  if (fs::exists(manifestPath)) {
    std::ifstream in(manifestPath);
    try {
      manifest = nlohmann::ordered_json::parse(in);
    } catch (const std::exception& e) {
      return manifestPath.string() + ": " + e.what();
    }
  }
  bool anyPair = false;
  for (const auto& f : report.failures) {
    std::string stem = "fuzz-" + std::to_string(report.seed) + "-" + std::to_string(f.index);
    bool pair = asPair(f);
    std::string file = stem + (f.property == "triangle" ? ".scm" : pair ? ".lanes.scm" : "." + f.property + ".txt");
    std::ofstream out(fs::path(dir) / file, std::ios::binary | std::ios::trunc);
    if (f.property != "triangle") {  // a comment, every line of it (a .lanes.scm file is a program)
      std::string detail = f.detail;
      for (size_t at = 0; (at = detail.find('\n', at)) != std::string::npos; at += 4) detail.replace(at, 1, "\n;; ");
      out << ";; " << f.property << " failure: " << detail << "\n";
    }
    out << f.shrunk.text;
    if (!out) return "cannot write " + (fs::path(dir) / file).string();
    ++*written;
    if (pair) {
      auto p = pairJson(report, f, file);
      if (f.property == "lanes") {
        nlohmann::ordered_json lanes = nlohmann::ordered_json::object();
        for (const auto& [name, values] : caseLanes(f.shrunk)) lanes[name] = values;
        p["lanes"] = lanes;
      }
      manifest["pairs"].push_back(p);
      anyPair = true;
    }
  }
  if (anyPair) {
    std::ofstream out(manifestPath, std::ios::trunc);
    out << manifest.dump(2) << "\n";
    if (!out) return "cannot write " + manifestPath.string();
  }
  return "";
}

}  // namespace dmci::props
