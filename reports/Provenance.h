// Where a report came from, so that reports written by the shards of one run can be merged and reports of
// different runs cannot: which shard of how many it is, and a fingerprint of what made it (the dmci build, the
// input: the corpus's content or the campaign's seed, and the options that change results).
//
// In the JSON: "provenance": {"kind": "gate"|"fuzz", "shard": "i/N" (a merged report: "all/N"),
//   "shard_index": i, "shard_count": N, "merged_shards": [0, ..., N-1] (a merged report only),
//   "selected": pairs in all shards together (the gate), "fingerprint": {"build", "input", "settings"}}
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "syntax/Error.h"

namespace dmci::reports {

struct Provenance {
  std::string kind;  // "gate" or "fuzz"
  int shard = 0, shards = 1;
  std::vector<int> merged;        // the shards a merged report holds; empty for one process's report
  uint64_t selected = 0;          // the gate: pairs selected in all shards together
  std::string build;              // the dmci executable's content hash
  std::string input;              // the gate: the corpus's content hash; the fuzz campaign: its seed
  std::string settings;           // the options that change results, as text
  std::string shardText() const;  // "i/N", or "all/N" when merged
};

nlohmann::ordered_json provenanceJson(const Provenance& p);
// Reads the "provenance" object of a report read from `path`; a missing or malformed field is an Io error naming
// the file and the field.
Result<Provenance> provenanceFromJson(const nlohmann::ordered_json& report, const std::string& path);

// A 64-bit FNV-1a hash, continued from `h`.
uint64_t fnv1a(const std::string& bytes, uint64_t h = 14695981039346656037ull);
std::string hashText(uint64_t h);  // "fnv1a64:" and 16 hex digits
// The content hash of the running executable (/proc/self/exe): the build that made a report.
Result<std::string> executableHash();
// The content hash of a corpus: DIR/manifest.json and every program file it names, with their names.
Result<std::string> corpusHash(const std::string& dir, const std::vector<std::string>& files);

// Shards' reports (path, provenance) that belong to one run, each shard exactly once: their positions in shard
// order, or an error that lists every problem (a merged report among them, mixed kinds, builds, inputs, settings
// or shard counts, a shard missing or given twice).
Result<std::vector<size_t>> shardOrder(const std::vector<std::pair<std::string, Provenance>>& reports);

// The provenance of the report merged from shards in shard order.
Provenance mergedProvenance(const std::vector<Provenance>& shards);

}  // namespace dmci::reports
