// The search's saved state as JSON (SearchState.h): written after every generation, read back by --resume.
#include "search/SearchState.h"

#include <fstream>
#include <sstream>

namespace dmci::search {

using json = nlohmann::json;

namespace {

Member memberOf(const json& j) {
  Member m;
  auto forms = readForms(j.at("program").get<std::string>(), "state");
  if (!forms) throw DmciError(forms.error());
  m.candidate.forms = std::move(*forms);
  m.candidate.edited = j.value("edited", -1);  // --edit NAME: the index of the definition edited
  if (m.candidate.edited >= 0) {
    const auto k = static_cast<size_t>(m.candidate.edited);
    if (k >= m.candidate.forms.size() || m.candidate.forms[k].head() != "define" ||
        m.candidate.forms[k].items.size() != 3 || !m.candidate.forms[k].items[1].isList())
      throw DmciError(
          Error{ErrorKind::Usage, "state: \"edited\" names no (define (NAME ...) BODY) of its program", {}});
  }
  for (const auto& [name, v] : j.at("params").items()) m.candidate.params[name] = v.get<double>();
  m.holdoutRmse = j.at("holdout_rmse"), m.trainRmse = j.at("train_rmse");
  m.score = j.value("score", m.holdoutRmse);
  m.complexity = j.at("complexity"), m.evaluation = j.at("evaluation");
  return m;
}

std::vector<Failure> failuresOf(const json& j) {
  std::vector<Failure> out;
  for (const auto& f : j) out.push_back({f.at("program"), f.at("error")});
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
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{ErrorKind::Usage, path + " is not a search's state", {}};
  if (j.value("fingerprint", "") != fingerprint)
    return Error{ErrorKind::Usage,
                 path +
                     " was saved by a search with other data, seed program or settings; resume it with the same "
                     "command line",
                 {}};
  return catchErrors([&] {
    try {
      std::istringstream rng(j.at("rng").get<std::string>());
      rng >> st.rng;
      st.evaluations = j.at("evaluations"), st.failed = j.at("failed"), st.generation = j.at("generation");
      st.smoothed = j.value("smoothed", uint64_t{0});
      st.duplicates = j.value("duplicates", uint64_t{0}), st.algebraicKeys = j.value("algebraic_keys", uint64_t{0});
      st.seconds = j.at("seconds");
      st.islands.clear();
      for (const auto& island : j.at("islands")) {
        st.islands.emplace_back();
        for (const auto& m : island) st.islands.back().push_back(memberOf(m));
      }
      for (const auto& m : j.at("archive")) st.archive.offer(memberOf(m));
      for (const auto& h : j.at("seen")) st.seen.insert(h.get<uint64_t>());
      for (const auto& h : j.at("history")) st.history.emplace_back(h.at(0).get<uint64_t>(), h.at(1).get<double>());
      for (const auto& f : failuresOf(j.at("failures"))) st.failures.push_back(f);
      st.proposerFailures = failuresOf(j.at("proposer_failures"));
      const auto& p = j.at("proposer");
      st.proposer = {p.at(0), p.at(1), p.at(2), p.at(3)};
    } catch (const json::exception& e) {
      throw DmciError(ErrorKind::Usage, path + " is not a search's state: " + e.what());
    }
    return true;
  });
}

}  // namespace dmci::search
