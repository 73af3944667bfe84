// Test support for the search's stages (enumeration, sparse batch, terms): a batch scorer as the loop makes one,
// each candidate scored on the task with the default settings and the next evaluation number as its seed.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "search/Search.h"

namespace dmci::search::test {

inline ScoreBatch scorer(const Task& task, uint64_t& evaluations) {
  return [&task, &evaluations](const std::vector<Candidate>& cs) {
    std::vector<std::optional<Member>> out;
    for (const auto& c : cs) {
      Score s = scoreCandidate(task, ScoreSettings{}, c, ++evaluations);
      out.push_back(
          s.ok ? std::optional<Member>(Member{s.fitted, s.holdoutRmse, s.trainRmse, s.complexity, evaluations, s.score})
               : std::nullopt);
    }
    return out;
  };
}

}  // namespace dmci::search::test
