// Test support: the corpus's pairs as batches of lanes. The pairs of one program with the same bindings, wrt
// names and literal setting are the lanes of one batch (their seeds in pair order), as the engines' lane tests
// run them against the native engine.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "oracle/gate/Manifest.h"

namespace dmci::test {

struct CorpusBatch {
  std::string key;              // file|literals|bound names|w:wrt names
  const gate::GatePair* first;  // the batch's first pair: its file, routes, wrt and literal setting
  LaneBatch lanes;              // one lane per pair
};

inline std::vector<CorpusBatch> corpusBatches(const gate::Manifest& m) {
  std::map<std::string, std::vector<const gate::GatePair*>> byKey;
  for (const auto& p : m.pairs) {
    std::string key = p.file + "|" + std::to_string(p.literals);
    for (const auto& b : p.bind) key += "|" + b.name;
    for (const auto& w : p.wrt) key += "|w:" + w;
    byKey[key].push_back(&p);
  }
  std::vector<CorpusBatch> out;
  for (const auto& [key, pairs] : byKey) {
    CorpusBatch b{key, pairs.front(), {}};
    for (const auto& s : b.first->bind) b.lanes.params.push_back(s.name);
    b.lanes.values.assign(b.lanes.params.size(), {});
    for (const auto* p : pairs)
      for (size_t k = 0; k < p->bind.size(); ++k) b.lanes.values[k].push_back(p->bind[k].value);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace dmci::test
