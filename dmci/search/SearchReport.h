// What a search prints and writes: the --json object, and the --out folder (best.scm, front.md, front.json,
// front.svg: held-out error against complexity, progress.svg: the best held-out error over evaluations,
// archive.json: the archive as canonical JSON, sorted keys and no times, whose SHA-256 names the search's outcome:
// the same on any number of ranks), each file written whole or not at all.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "search/Search.h"

namespace dmci::search {

// What the search was, for the outputs' words.
struct SearchInfo {
  std::string data, target, seedProgram;
  uint64_t seed = 0;
  bool gradient = true;
  double smoothSigma = 0;  // --smooth (0: off)
  PickRule pick;           // the rule the pick followed
  std::string canon;       // the candidates' keys: "ginac", "hash", or why not ginac
};

// The member reported as the pick: the front's pick, or its snapped form when that is reported (Snapped::reported).
Member reportedMember(const SearchResult& r);
// {"best": the pick (snapped when Snapped::reported, with "form": "snapped" and the fitted pick as "fitted")
// {"program", "holdout_rmse", "train_rmse", "complexity", "params", "snapped"}, "pick": the rule
//  and why, "lowest": the lowest score's member, "pareto": [... with "loss" and "gain"], "evaluations", ...}.
nlohmann::ordered_json searchJson(const SearchResult& r, const SearchInfo& info);
// The picked program as fitted, under comment lines saying what it scored, why it is the pick, its fitted
// parameters and its snapped form.
std::string bestProgram(const SearchResult& r, const SearchInfo& info);
// The front as a Markdown table.
std::string frontMarkdown(const SearchResult& r, const SearchInfo& info);
// Writes DIR/best.scm, front.md, front.json, front.svg, progress.svg and archive.json.
Result<bool> writeSearchOutputs(const std::string& dir, const SearchResult& r, const SearchInfo& info);

}  // namespace dmci::search
