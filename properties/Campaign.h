// A fuzz campaign outside RapidCheck's runner: seeded cases through every property, with counts and shrunk failures.
//
// Case i of a campaign with seed K is generated from rc::Random(mix(K, i)) at
// size i % 101, so it is reproducible from (K, i) alone, whatever the thread
// count or the shard. Shard s of N runs the indices i with i % N == s.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "properties/Properties.h"

namespace dmci::props {

struct CampaignOptions {
  uint64_t seed = 1;
  uint64_t cases = 0;  // stop after this many (0: no limit)
  double seconds = 0;  // stop after this long (0: no limit)
  int shard = 0, shards = 1;
  int jobs = 2;
  int maxDepth = 5;
  TriangleOptions triangle;
  int badInputEvery = 4;  // also one bad-input check per this many cases (0: never)
  // The lane properties (checkLanes: batched = alone, tensor = native), from a caller that has the tensor
  // engine; run on every lanesEvery-th case, the direct and the dmci route in turn (empty: never).
  std::function<Outcome(const Case&, Route)> lanes;
  int lanesEvery = 4;
  double shrinkSeconds = 30;  // per failure
  // Called (serialised) about every 0.25 s and at the end.
  std::function<void(const struct CampaignReport&)> progress;
};

struct Failure {
  uint64_t index = 0;
  std::string property;  // "triangle", "expand", "print-read", "lanes", "bad-input"
  Case shrunk;           // the case after shrinking (for bad input: text only)
  std::string original;  // the program before shrinking
  std::string detail;
  int shrinkSteps = 0;
};

struct CampaignReport {
  uint64_t seed = 0;
  int shard = 0, shards = 1, jobs = 1;
  uint64_t cases = 0, pass = 0, nondifferentiable = 0, failed = 0;
  uint64_t illConditioned = 0;  // passed with a value or gradient within the rounding spread (gate::Criteria::rounding)
  uint64_t recursive = 0, higherOrder = 0;
  uint64_t syntaxChecks = 0, badInputChecks = 0, laneChecks = 0;
  uint64_t laneIllConditioned = 0;  // lane checks that passed only by the ill-conditioned rules (checkLanes)
  std::map<std::string, uint64_t> byFamily, byDepth, byTag;  // depth keys are zero-padded for order
  std::vector<Failure> failures;
  std::vector<std::string> nondifferentiableReasons;  // the first few
  double seconds = 0;
};

uint64_t caseSeed(uint64_t seed, uint64_t index);
// The campaign's case `index` (for reproduction).
Case campaignCase(uint64_t seed, uint64_t index, int maxDepth);

CampaignReport runCampaign(const CampaignOptions& opts);

// Writes each triangle failure as DIR/fuzz-K-i.scm plus a pair in DIR/manifest.json (created or
// extended), so that `dmci check DIR` reruns them; bad-input failures go to DIR/bad-input-K-i.txt.
// Returns the number of files written, or an error message.
std::string saveFailures(const CampaignReport& report, const std::string& dir, size_t* written);

}  // namespace dmci::props
