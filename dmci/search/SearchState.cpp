// The search's saved state as JSON (SearchState.h): the checkpoint written after every epoch, read back by
// --resume, and what rank 0 broadcasts at an epoch's end; and an island's report of its epoch.
#include "search/SearchState.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include "support/JsonParse.h"
#include "support/JsonText.h"

namespace dmci::search {

using json = nlohmann::json;

namespace {

// A score as JSON: a number, or "inf", "-inf", "nan" (JSON has none: a candidate may score so, and the state must
// read back the same).
json scoreJson(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
}

double scoreAt(const json& j, const std::string& at, const std::string& key) {
  if (j.is_object())
    if (auto it = j.find(key); it != j.end() && it->is_string()) {
      const std::string& v = it->get_ref<const std::string&>();
      if (v == "inf") return INFINITY;
      if (v == "-inf") return -INFINITY;
      if (v == "nan") return NAN;
      throw JsonFieldError{at + "/" + key, "not a number (nor inf, -inf, nan)"};
    }
  return jsonAt<double>(j, at, key);
}

json candidateJson(const Candidate& c) {
  json p = json::object();
  for (const auto& [name, v] : c.params) p[name] = scoreJson(v);
  json j = {{"program", printForms(c.forms)}, {"params", p}};
  if (c.edited >= 0) j["edited"] = c.edited;
  return j;
}

// An array member of `o`, which must be there.
const json& arrayAt(const json& o, const std::string& at, const std::string& key) {
  if (!o.is_object()) throw JsonFieldError{at.empty() ? "/" : at, "not an object"};
  auto it = o.find(key);
  if (it == o.end() || !it->is_array()) throw JsonFieldError{at + "/" + key, "missing or not an array"};
  return *it;
}

Member memberOf(const json& j, const std::string& at) {
  Member m;
  auto forms = readForms(jsonAt<std::string>(j, at, "program"), "state");
  if (!forms) throw JsonFieldError{at + "/program", forms.error().message};
  m.candidate.forms = std::move(*forms);
  if (j.contains("edited")) {  // --edit NAME: the index of the definition edited
    m.candidate.edited = jsonAt<int>(j, at, "edited");
    const auto k = static_cast<size_t>(m.candidate.edited);
    if (m.candidate.edited < 0 || k >= m.candidate.forms.size() || m.candidate.forms[k].head() != "define" ||
        m.candidate.forms[k].items.size() != 3 || !m.candidate.forms[k].items[1].isList())
      throw JsonFieldError{at + "/edited", "names no (define (NAME ...) BODY) of its program"};
  }
  auto params = j.find("params");
  if (params == j.end() || !params->is_object()) throw JsonFieldError{at + "/params", "missing or not an object"};
  for (const auto& [name, v] : params->items()) m.candidate.params[name] = scoreAt(*params, at + "/params", name);
  m.holdoutRmse = scoreAt(j, at, "holdout_rmse"), m.trainRmse = scoreAt(j, at, "train_rmse");
  m.score = j.contains("score") ? scoreAt(j, at, "score") : m.holdoutRmse;
  m.complexity = jsonAt<int>(j, at, "complexity"), m.evaluation = jsonAt<uint64_t>(j, at, "evaluation");
  return m;
}

std::vector<Failure> failuresOf(const json& j, const std::string& at) {
  std::vector<Failure> out;
  for (size_t k = 0; k < j.size(); ++k) {
    const std::string here = at + "/" + std::to_string(k);
    out.push_back({jsonAt<std::string>(j[k], here, "program"), jsonAt<std::string>(j[k], here, "error")});
  }
  return out;
}

Candidate candidateOf(const json& j, const std::string& at) {
  json m = j;  // a candidate is a member's program, parameters and edited definition
  m["holdout_rmse"] = 0, m["train_rmse"] = 0, m["complexity"] = 0, m["evaluation"] = 0;
  return memberOf(m, at).candidate;
}

std::string rngText(const std::mt19937_64& rng) {
  std::ostringstream out;
  out << rng;
  return out.str();
}

void rngOf(std::mt19937_64& rng, const json& j, const std::string& at) {
  std::istringstream in(jsonAt<std::string>(j, at, "rng"));
  if (!(in >> rng)) throw JsonFieldError{at + "/rng", "not a saved random-number generator"};
}

json islandJson(const Island& island) {
  json members = json::array(), incoming = json::array();
  for (const auto& m : island.members) members.push_back(memberJson(m));
  for (const auto& c : island.incoming) incoming.push_back(candidateJson(c));
  return {
      {"rng", rngText(island.rng)}, {"generation", island.generation}, {"members", members}, {"incoming", incoming}};
}

Island islandOf(const json& j, const std::string& at) {
  Island island;
  rngOf(island.rng, j, at);
  island.generation = jsonAt<uint64_t>(j, at, "generation");
  const json& members = arrayAt(j, at, "members");
  for (size_t k = 0; k < members.size(); ++k)
    island.members.push_back(memberOf(members[k], at + "/members/" + std::to_string(k)));
  const json& incoming = arrayAt(j, at, "incoming");
  for (size_t k = 0; k < incoming.size(); ++k)
    island.incoming.push_back(candidateOf(incoming[k], at + "/incoming/" + std::to_string(k)));
  return island;
}

Result<json> parsedObject(const std::string& text, const std::string& path, const std::string& what) {
  auto doc = parseJsonText<json>(text, path);
  if (!doc) return doc.error();
  if (!doc->is_object()) return Error{ErrorKind::Usage, path + " is not " + what, SrcPos{internFile(path), 1, 1}};
  return std::move(*doc);
}

}  // namespace

json memberJson(const Member& m) {
  json p = json::object();
  for (const auto& [name, v] : m.candidate.params) p[name] = scoreJson(v);
  json j = {{"program", printForms(m.candidate.forms)},
            {"params", p},
            {"holdout_rmse", scoreJson(m.holdoutRmse)},
            {"score", scoreJson(m.score)},
            {"train_rmse", scoreJson(m.trainRmse)},
            {"complexity", m.complexity},
            {"evaluation", m.evaluation}};
  if (m.candidate.edited >= 0) j["edited"] = m.candidate.edited;
  return j;
}

json failuresJson(const std::vector<Failure>& fs) {
  json out = json::array();
  for (const auto& f : fs) out.push_back({{"program", f.program}, {"error", f.error}});
  return out;
}

std::string stateText(const State& st, const std::string& fingerprint) {
  json islands = json::array();
  for (const auto& island : st.islands) islands.push_back(islandJson(island));
  json archive = json::array();
  for (const auto& m : st.archive.members()) archive.push_back(memberJson(m));
  json history = json::array();
  for (const auto& [e, h] : st.history) history.push_back({e, h});
  json j = {{"fingerprint", fingerprint},
            {"epoch", st.epoch},
            {"evaluations", st.evaluations},
            {"smoothed", st.smoothed},
            {"duplicates", st.duplicates},
            {"algebraic_keys", st.algebraicKeys},
            {"failed", st.failed},
            {"barren", st.barren},
            {"seconds", st.seconds},
            {"islands", islands},
            {"archive", archive},
            {"seen", st.seen},
            {"history", history},
            {"failures", failuresJson({st.failures.begin(), st.failures.end()})},
            {"proposer_failures", failuresJson(st.proposerFailures)},
            {"proposer", {st.proposer.calls, st.proposer.failedCalls, st.proposer.programs, st.proposer.scored}},
            {"stop", st.stop}};
  return jsonText(j, 1) + "\n";
}

Result<bool> loadStateText(State& st, const std::string& text, const std::string& path,
                           const std::string& fingerprint) {
  auto doc = parsedObject(text, path, "a search's state");
  if (!doc) return doc.error();
  const json& j = *doc;
  const SrcPos at{internFile(path), 1, 1};
  if (!j.contains("fingerprint") || j["fingerprint"] != fingerprint)
    return Error{ErrorKind::Usage,
                 path +
                     " was saved by a search with other data, seed program or settings (islands, epoch evaluations, "
                     "seed, ...); resume it with the same command line (the ranks and --jobs may differ)",
                 at};
  try {
    st.epoch = jsonAt<uint64_t>(j, "", "epoch");
    st.evaluations = jsonAt<uint64_t>(j, "", "evaluations"), st.failed = jsonAt<uint64_t>(j, "", "failed");
    st.smoothed = jsonAt<uint64_t>(j, "", "smoothed");
    st.duplicates = jsonAt<uint64_t>(j, "", "duplicates");
    st.algebraicKeys = jsonAt<uint64_t>(j, "", "algebraic_keys");
    st.barren = jsonAt<uint64_t>(j, "", "barren");
    st.seconds = jsonAt<double>(j, "", "seconds");
    st.stop = jsonAt<std::string>(j, "", "stop");
    st.islands.clear();
    const json& islands = arrayAt(j, "", "islands");
    for (size_t i = 0; i < islands.size(); ++i)
      st.islands.push_back(islandOf(islands[i], "/islands/" + std::to_string(i)));
    st.archive = EliteArchive(st.archive.spread());
    const json& archive = arrayAt(j, "", "archive");
    for (size_t k = 0; k < archive.size(); ++k) st.archive.offer(memberOf(archive[k], "/archive/" + std::to_string(k)));
    st.seen.clear();
    const json& seen = arrayAt(j, "", "seen");
    for (size_t k = 0; k < seen.size(); ++k) st.seen.insert(jsonAs<uint64_t>(seen[k], "/seen/" + std::to_string(k)));
    st.history.clear();
    const json& history = arrayAt(j, "", "history");
    for (size_t k = 0; k < history.size(); ++k) {
      const std::string here = "/history/" + std::to_string(k);
      if (!history[k].is_array() || history[k].size() != 2) throw JsonFieldError{here, "not [evaluation, rmse]"};
      st.history.emplace_back(jsonAs<uint64_t>(history[k][0], here + "/0"), jsonAs<double>(history[k][1], here + "/1"));
    }
    st.failures.clear();
    for (const auto& f : failuresOf(arrayAt(j, "", "failures"), "/failures")) st.failures.push_back(f);
    st.proposerFailures = failuresOf(arrayAt(j, "", "proposer_failures"), "/proposer_failures");
    const json& p = arrayAt(j, "", "proposer");
    if (p.size() != 4) throw JsonFieldError{"/proposer", "not [calls, failed calls, programs, scored]"};
    st.proposer = {jsonAs<uint64_t>(p[0], "/proposer/0"), jsonAs<uint64_t>(p[1], "/proposer/1"),
                   jsonAs<uint64_t>(p[2], "/proposer/2"), jsonAs<uint64_t>(p[3], "/proposer/3")};
  } catch (const JsonFieldError& e) {
    return Error{ErrorKind::Usage, path + " is not a search's state: " + e.pointer + ": " + e.message, at};
  }
  return true;
}

Result<bool> loadState(State& st, const std::string& path, const std::string& fingerprint) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read the search's state " + path + " (--resume)", {}};
  std::string text(std::istreambuf_iterator<char>(in), {});
  return loadStateText(st, text, path, fingerprint);
}

std::string reportsText(const std::vector<IslandReport>& reports, const json& rank) {
  json all = json::array();
  for (const auto& r : reports) {
    json outcomes = json::array();
    for (const auto& o : r.outcomes) {
      json x = o.ok ? json{{"member", memberJson(o.member)}, {"smoothed", o.smoothed}}
                    : json{{"failure", {{"program", o.failure.program}, {"error", o.failure.error}}}};
      x["external"] = o.external;
      outcomes.push_back(x);
    }
    all.push_back({{"index", r.index},
                   {"island", islandJson(r.island)},
                   {"outcomes", outcomes},
                   {"seen", r.seen},
                   {"duplicates", r.duplicates},
                   {"algebraic_keys", r.algebraicKeys}});
  }
  return jsonText(json{{"rank", rank}, {"reports", all}});
}

Result<std::vector<IslandReport>> loadReports(const std::string& text, json& rank) {
  auto doc = parsedObject(text, "island report", "an island report");
  if (!doc) return doc.error();
  std::vector<IslandReport> out;
  try {
    rank = doc->at("rank");
    const json& all = arrayAt(*doc, "", "reports");
    for (size_t k = 0; k < all.size(); ++k) {
      const std::string at = "/reports/" + std::to_string(k);
      IslandReport r;
      r.index = jsonAt<size_t>(all[k], at, "index");
      r.island = islandOf(all[k].at("island"), at + "/island");
      const json& outcomes = arrayAt(all[k], at, "outcomes");
      for (size_t n = 0; n < outcomes.size(); ++n) {
        const std::string here = at + "/outcomes/" + std::to_string(n);
        Outcome o;
        o.external = jsonAt<bool>(outcomes[n], here, "external");
        if (outcomes[n].contains("member")) {
          o.ok = true, o.member = memberOf(outcomes[n]["member"], here + "/member");
          o.smoothed = jsonAt<bool>(outcomes[n], here, "smoothed");
        } else {
          const json& f = outcomes[n].at("failure");
          o.failure = {jsonAt<std::string>(f, here, "program"), jsonAt<std::string>(f, here, "error")};
        }
        r.outcomes.push_back(std::move(o));
      }
      const json& seen = arrayAt(all[k], at, "seen");
      for (size_t n = 0; n < seen.size(); ++n) r.seen.push_back(jsonAs<uint64_t>(seen[n], at + "/seen"));
      r.duplicates = jsonAt<uint64_t>(all[k], at, "duplicates");
      r.algebraicKeys = jsonAt<uint64_t>(all[k], at, "algebraic_keys");
      out.push_back(std::move(r));
    }
  } catch (const JsonFieldError& e) {
    return Error{ErrorKind::Io, "an island report: " + e.pointer + ": " + e.message, {}};
  } catch (const json::exception& e) {
    return Error{ErrorKind::Io, std::string("an island report: ") + e.what(), {}};
  }
  return out;
}

}  // namespace dmci::search
