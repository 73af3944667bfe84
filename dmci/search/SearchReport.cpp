// The search's outputs: JSON, the best program, the front's table and the two plots.
#include "search/SearchReport.h"

#include <cstdio>
#include <filesystem>
#include <map>

#include "fit/Svg.h"
#include "support/AtomicFile.h"
#include "support/JsonNumber.h"
#include "support/JsonText.h"

namespace dmci::search {

namespace {

using ojson = nlohmann::ordered_json;

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// The named parameters the candidate uses, with their values.
std::map<std::string, double> usedParams(const Candidate& c) {
  std::map<std::string, double> out;
  for (const auto& form : c.forms)
    for (const auto& s : symbolsOf(form))
      if (auto it = c.params.find(s); it != c.params.end()) out.insert(*it);
  return out;
}

ojson memberJson(const Member& m) {
  ojson params = ojson::object();
  for (const auto& [name, v] : usedParams(m.candidate)) params[name] = jsonNumber(v);
  return {{"program", trimmed(printForms(m.candidate.forms))},
          {"holdout_rmse", jsonNumber(m.holdoutRmse)},
          {"score", jsonNumber(m.score)},
          {"train_rmse", jsonNumber(m.trainRmse)},
          {"complexity", m.complexity},
          {"params", params},
          {"evaluation", m.evaluation}};
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

// The snapped form of the pick: its program, scores and each constant kept at a simple form.
ojson snappedJson(const Snapped& s) {
  ojson constants = ojson::array();
  for (const auto& c : s.constants)
    constants.push_back({{"where", c.where},
                         {"fitted", jsonNumber(c.fitted)},
                         {"value", jsonNumber(c.value)},
                         {"form", print(c.form)}});
  return {{"program", trimmed(printForms(s.candidate.forms))},
          {"score", jsonNumber(s.score)},
          {"holdout_rmse", jsonNumber(s.holdoutRmse)},
          {"train_rmse", jsonNumber(s.trainRmse)},
          {"constants", constants},
          {"tried", s.tried},
          {"statistical", s.statistical}};
}

ojson pickJson(const SearchResult& r, const SearchInfo& info) {
  return {{"rule",
           "PySR's: among the front members whose loss (MSE) is within the window times the lowest, the largest "
           "drop in log loss per node against the next simpler member"},
          {"window", info.pick.window},
          {"floor", info.pick.floor},
          {"window_applied", jsonNumber(r.pick.window)},
          {"threshold", jsonNumber(r.pick.threshold)},
          {"index", r.pick.index},
          {"complexity", picked(r).complexity},
          {"gain", jsonNumber(r.pick.gain[r.pick.index])},
          {"lowest_score_complexity", r.best.complexity},
          {"why", r.pick.why}};
}

}  // namespace

Member reportedMember(const SearchResult& r) {
  Member m = picked(r);
  if (!r.snapped.reported) return m;
  m.candidate = r.snapped.candidate;
  m.score = r.snapped.score, m.holdoutRmse = r.snapped.holdoutRmse, m.trainRmse = r.snapped.trainRmse;
  m.complexity = complexity(m.candidate.value());
  return m;
}

ojson searchJson(const SearchResult& r, const SearchInfo& info) {
  ojson front = ojson::array();
  for (size_t k = 0; k < r.front.size(); ++k) {
    front.push_back(memberJson(r.front[k]));
    front.back()["loss"] = jsonNumber(r.pick.loss[k]);
    front.back()["gain"] = jsonNumber(r.pick.gain[k]);
  }
  ojson best = r.found ? memberJson(picked(r)) : ojson(nullptr);
  if (r.found && r.snapped.reported) {  // the pick in both forms: the snapped program reported, the fitted beside
    ojson fitted = best;
    best = memberJson(reportedMember(r));
    best["form"] = "snapped";
    best["fitted"] = fitted;
  } else if (r.found) {
    best["form"] = "fitted";
  }
  if (r.found) best["snapped"] = snappedJson(r.snapped);
  ojson history = ojson::array();
  for (const auto& [e, h] : r.history) history.push_back({e, jsonNumber(h)});
  return {{"best", best},
          {"pick", r.found ? pickJson(r, info) : ojson(nullptr)},
          {"lowest", r.found ? memberJson(r.best) : ojson(nullptr)},
          {"pareto", front},
          {"evaluations", r.evaluations},
          {"seconds", r.seconds},
          {"failed", r.failed},
          {"generations", r.generations},
          {"epochs", r.epochs},
          {"ranks", r.ranks},
          {"evals_per_second_per_rank", r.rankRates},
          {"stopped", r.stopped},
          {"seed", info.seed},
          {"gradient", info.gradient},
          {"smooth",
           info.smoothSigma > 0 ? ojson{{"sigma", info.smoothSigma}, {"smoothed_fits", r.smoothed}} : ojson(nullptr)},
          {"canon", {{"keys", info.canon}, {"algebraic_keys", r.algebraicKeys}, {"duplicates", r.duplicates}}},
          {"history", history},
          {"proposer",
           {{"calls", r.proposer.calls},
            {"failed_calls", r.proposer.failedCalls},
            {"programs", r.proposer.programs},
            {"scored", r.proposer.scored}}}};
}

std::string bestProgram(const SearchResult& r, const SearchInfo& info) {
  if (!r.found) return "; dmci search found no candidate that scores\n";
  const Member& m = picked(r);
  std::string out = "; dmci search from " + info.seedProgram + " on " + info.data + " (target " + info.target +
                    ", seed " + std::to_string(info.seed) + "): score " + number(m.score) + ", held-out RMSE " +
                    number(m.holdoutRmse) + ", training RMSE " + number(m.trainRmse) + ", complexity " +
                    std::to_string(m.complexity) + ", found at evaluation " + std::to_string(m.evaluation) + " of " +
                    std::to_string(r.evaluations) + "\n; the pick: " + r.pick.why + "\n";
  if (r.best.complexity != m.complexity)
    out += "; the lowest score, " + number(r.best.score) + ", is complexity " + std::to_string(r.best.complexity) +
           "'s: " + trimmed(print(r.best.candidate.value())) + "\n";
  for (const auto& [name, v] : usedParams(m.candidate)) out += "; parameter " + name + " = " + number(v) + "\n";
  if (!r.snapped.constants.empty()) {
    out += "; snapped (score " + number(r.snapped.score) + "):";
    for (const auto& c : r.snapped.constants)
      out += " " + c.where + " " + number(c.fitted) + " -> " + print(c.form) + ";";
    out.back() = '\n';
    // The program below is the JSON's best.program: the snapped one when it fits as well, else the fitted one.
    if (r.snapped.reported)
      return out + "; the program is the snapped form; as fitted: " + trimmed(print(m.candidate.value())) + "\n" +
             printForms(r.snapped.candidate.forms);
    out += "; " + trimmed(print(r.snapped.candidate.value())) + "\n";
  }
  return out + printForms(m.candidate.forms);
}

std::string frontMarkdown(const SearchResult& r, const SearchInfo& info) {
  std::string md = "# `dmci search`: the Pareto front\n\nFrom `" + info.seedProgram + "` on `" + info.data +
                   "` (target `" + info.target + "`), seed " + std::to_string(info.seed) + ", gradients " +
                   (info.gradient ? "on" : "off") + ": " + std::to_string(r.evaluations) + " evaluations (" +
                   std::to_string(r.failed) + " failed) in " + number(r.seconds) + " s.\n\n" +
                   "| complexity | score | held-out RMSE | training RMSE | gain | program | parameters |\n"
                   "|---:|---:|---:|---:|---:|---|---|\n";
  for (size_t k = 0; k < r.front.size(); ++k) {
    const Member& m = r.front[k];
    std::string params;
    for (const auto& [name, v] : usedParams(m.candidate))
      params += (params.empty() ? "" : ", ") + name + " = " + number(v);
    md += "| " + std::to_string(m.complexity) + (k == r.pick.index ? " (pick)" : "") + " | " + number(m.score) + " | " +
          number(m.holdoutRmse) + " | " + number(m.trainRmse) + " | " + number(r.pick.gain[k]) + " | `" +
          trimmed(printForms(m.candidate.forms)) + "` | " + params + " |\n";
  }
  if (r.found) md += "\nThe pick: " + r.pick.why + ".\n";
  return md + "\n![front](front.svg)\n\n![progress](progress.svg)\n";
}

Result<bool> writeSearchOutputs(const std::string& dir, const SearchResult& r, const SearchInfo& info) {
  namespace fs = std::filesystem;
  fit::Chart front{"Pareto front", "complexity (nodes)", "score", true, {}};
  fit::Series points{"front", {}, {}, true, "#1f77b4"};
  for (const auto& m : r.front) points.x.push_back(m.complexity), points.y.push_back(m.score);
  front.series.push_back(points);
  fit::Chart progress{"Best score", "evaluations", "score", true, {}};
  fit::Series line{"best", {}, {}, false, "#d62728"};
  for (const auto& [e, h] : r.history) {
    if (!line.y.empty()) line.x.push_back(static_cast<double>(e)), line.y.push_back(line.y.back());  // steps
    line.x.push_back(static_cast<double>(e)), line.y.push_back(h);
  }
  if (!line.y.empty()) line.x.push_back(static_cast<double>(r.evaluations)), line.y.push_back(line.y.back());
  progress.series.push_back(line);
  ojson frontJson = searchJson(r, info)["pareto"];
  nlohmann::json archive = nlohmann::json::array();  // sorted keys, no times: one search, one text
  for (const auto& m : r.archive) archive.push_back(nlohmann::json::parse(jsonText(memberJson(m))));
  const std::string archiveText = jsonText(nlohmann::json{{"archive", archive}, {"evaluations", r.evaluations}});
  const std::pair<const char*, std::string> files[] = {{"best.scm", bestProgram(r, info)},
                                                       {"front.md", frontMarkdown(r, info)},
                                                       {"front.json", jsonText(frontJson, 1) + "\n"},
                                                       {"front.svg", fit::svgChart(front)},
                                                       {"progress.svg", fit::svgChart(progress)},
                                                       {"archive.json", archiveText + "\n"}};
  for (const auto& [name, text] : files)
    if (auto ok = writeFileAtomically((fs::path(dir) / name).string(), text); !ok) return ok.error();
  return true;
}

}  // namespace dmci::search
