// The search's saved state as JSON (SearchState.h): written after every generation, read back by --resume.
#include "search/SearchState.h"

#include <fstream>
#include <iterator>
#include <sstream>

#include "support/JsonParse.h"

namespace dmci::search {

using json = nlohmann::json;

namespace {

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
  for (const auto& [name, v] : params->items()) m.candidate.params[name] = jsonAs<double>(v, at + "/params/" + name);
  m.holdoutRmse = jsonAt<double>(j, at, "holdout_rmse"), m.trainRmse = jsonAt<double>(j, at, "train_rmse");
  m.score = j.contains("score") ? jsonAt<double>(j, at, "score") : m.holdoutRmse;
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

}  // namespace

json memberJson(const Member& m) {
  json p = json::object();
  for (const auto& [name, v] : m.candidate.params) p[name] = v;
  json j = {{"program", printForms(m.candidate.forms)},
            {"params", p},
            {"holdout_rmse", m.holdoutRmse},
            {"score", m.score},
            {"train_rmse", m.trainRmse},
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
  std::ostringstream rng;
  rng << st.rng;
  json islands = json::array();
  for (const auto& island : st.islands) {
    json members = json::array();
    for (const auto& m : island) members.push_back(memberJson(m));
    islands.push_back(members);
  }
  json archive = json::array();
  for (const auto& m : st.archive.members()) archive.push_back(memberJson(m));
  json history = json::array();
  for (const auto& [e, h] : st.history) history.push_back({e, h});
  json j = {{"fingerprint", fingerprint},
            {"rng", rng.str()},
            {"evaluations", st.evaluations},
            {"smoothed", st.smoothed},
            {"duplicates", st.duplicates},
            {"algebraic_keys", st.algebraicKeys},
            {"failed", st.failed},
            {"generation", st.generation},
            {"seconds", st.seconds},
            {"islands", islands},
            {"archive", archive},
            {"seen", st.seen},
            {"history", history},
            {"failures", failuresJson({st.failures.begin(), st.failures.end()})},
            {"proposer_failures", failuresJson(st.proposerFailures)},
            {"proposer", {st.proposer.calls, st.proposer.failedCalls, st.proposer.programs, st.proposer.scored}}};
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<bool> loadState(State& st, const std::string& path, const std::string& fingerprint) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read the search's state " + path + " (--resume)", {}};
  std::string text(std::istreambuf_iterator<char>(in), {});
  auto doc = parseJsonText<json>(text, path);
  if (!doc) return doc.error();
  const json& j = *doc;
  const SrcPos at{internFile(path), 1, 1};
  if (!j.is_object()) return Error{ErrorKind::Usage, path + " is not a search's state", at};
  if (!j.contains("fingerprint") || j["fingerprint"] != fingerprint)
    return Error{ErrorKind::Usage,
                 path +
                     " was saved by a search with other data, seed program or settings; resume it with the same "
                     "command line",
                 at};
  try {
    std::istringstream rng(jsonAt<std::string>(j, "", "rng"));
    if (!(rng >> st.rng)) throw JsonFieldError{"/rng", "not a saved random-number generator"};
    st.evaluations = jsonAt<uint64_t>(j, "", "evaluations"), st.failed = jsonAt<uint64_t>(j, "", "failed");
    st.generation = jsonAt<uint64_t>(j, "", "generation");
    st.smoothed = j.contains("smoothed") ? jsonAt<uint64_t>(j, "", "smoothed") : 0;
    st.duplicates = j.contains("duplicates") ? jsonAt<uint64_t>(j, "", "duplicates") : 0;
    st.algebraicKeys = j.contains("algebraic_keys") ? jsonAt<uint64_t>(j, "", "algebraic_keys") : 0;
    st.seconds = jsonAt<double>(j, "", "seconds");
    st.islands.clear();
    const json& islands = arrayAt(j, "", "islands");
    for (size_t i = 0; i < islands.size(); ++i) {
      const std::string here = "/islands/" + std::to_string(i);
      if (!islands[i].is_array()) throw JsonFieldError{here, "not an array of members"};
      st.islands.emplace_back();
      for (size_t k = 0; k < islands[i].size(); ++k)
        st.islands.back().push_back(memberOf(islands[i][k], here + "/" + std::to_string(k)));
    }
    const json& archive = arrayAt(j, "", "archive");
    for (size_t k = 0; k < archive.size(); ++k) st.archive.offer(memberOf(archive[k], "/archive/" + std::to_string(k)));
    const json& seen = arrayAt(j, "", "seen");
    for (size_t k = 0; k < seen.size(); ++k) st.seen.insert(jsonAs<uint64_t>(seen[k], "/seen/" + std::to_string(k)));
    const json& history = arrayAt(j, "", "history");
    for (size_t k = 0; k < history.size(); ++k) {
      const std::string here = "/history/" + std::to_string(k);
      if (!history[k].is_array() || history[k].size() != 2) throw JsonFieldError{here, "not [evaluation, rmse]"};
      st.history.emplace_back(jsonAs<uint64_t>(history[k][0], here + "/0"), jsonAs<double>(history[k][1], here + "/1"));
    }
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

}  // namespace dmci::search
