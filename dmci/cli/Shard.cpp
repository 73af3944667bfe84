// Reads a shard (index and count) from the command line or from the environment a runner or scheduler sets.
#include "cli/Shard.h"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <utility>

namespace dmci::cli {
namespace {

Error usage(const std::string& message) { return Error{ErrorKind::Usage, message, {}}; }

// A whole decimal number, nothing before or after it.
std::optional<long> wholeNumber(const std::string& s) {
  long x = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return x;
}

Result<Shard> inRange(long index, long count, const std::string& what, const std::string& source) {
  if (count < 1 || count > 1000000 || index < 0 || index >= count)
    return usage(what + ": a shard index i and count N need 0 <= i < N, got " + std::to_string(index) + " of " +
                 std::to_string(count));
  return Shard{static_cast<int>(index), static_cast<int>(count), source};
}

// The variable's value when set and not empty.
std::optional<std::string> variable(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

Result<long> numberIn(const char* name, const std::string& value) {
  auto x = wholeNumber(value);
  if (!x) return usage(std::string(name) + "='" + value + "' is not a whole number");
  return *x;
}

// Both variables of a pair as numbers, or neither (nullopt); one alone is an error.
Result<std::optional<std::pair<long, long>>> pairOf(const char* indexName, const char* countName) {
  auto index = variable(indexName), count = variable(countName);
  if (!index && !count) return std::optional<std::pair<long, long>>();
  if (!index || !count)
    return usage(std::string(index ? indexName : countName) + " is set but " + (index ? countName : indexName) +
                 " is not");
  auto i = numberIn(indexName, *index);
  if (!i) return i.error();
  auto n = numberIn(countName, *count);
  if (!n) return n.error();
  return std::optional(std::pair(*i, *n));
}

// GoogleTest's sharding contract: GTEST_SHARD_INDEX of GTEST_TOTAL_SHARDS, acknowledged by creating the file
// GTEST_SHARD_STATUS_FILE names (a runner that sets it takes a missing file to mean sharding was ignored).
Result<std::optional<Shard>> gtestShard() {
  auto p = pairOf("GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS");
  if (!p) return p.error();
  if (!*p) return std::optional<Shard>();
  auto s = inRange((*p)->first, (*p)->second, "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS", "GTEST_*");
  if (!s) return s.error();
  if (auto status = variable("GTEST_SHARD_STATUS_FILE"); status && !std::ofstream(*status, std::ios::app))
    return Error{ErrorKind::Io, "cannot create GTEST_SHARD_STATUS_FILE " + *status, {}};
  return std::optional(*s);
}

// A SLURM job array's task: its index counted from the array's first task id (SLURM_ARRAY_TASK_MIN).
Result<std::optional<Shard>> slurmArrayTask() {
  auto p = pairOf("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT");
  if (!p) return p.error();
  if (!*p) return std::optional<Shard>();
  if (auto step = variable("SLURM_ARRAY_TASK_STEP"); step && *step != "1")
    return usage("SLURM_ARRAY_TASK_STEP=" + *step + ": a sharded run needs a job array without a step (--array=0-N)");
  long first = 0;
  if (auto min = variable("SLURM_ARRAY_TASK_MIN")) {
    auto m = numberIn("SLURM_ARRAY_TASK_MIN", *min);
    if (!m) return m.error();
    first = *m;
  }
  auto s = inRange((*p)->first - first, (*p)->second, "SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_*");
  if (!s) return s.error();
  return std::optional(*s);
}

}  // namespace

Result<Shard> parseShard(const std::string& text) {
  auto slash = text.find('/');
  auto i = wholeNumber(text.substr(0, slash));
  auto n = slash == std::string::npos ? std::nullopt : wholeNumber(text.substr(slash + 1));
  if (!i || !n) return usage("--shard expects i/N with 0 <= i < N, got '" + text + "'");
  return inRange(*i, *n, "--shard " + text, "--shard");
}

Result<Shard> shardFromFlagOrEnvironment(const std::string& flag) {
  if (!flag.empty()) return parseShard(flag);
  auto gtest = gtestShard();
  if (!gtest) return gtest.error();
  if (*gtest) return **gtest;
  auto slurm = slurmArrayTask();
  if (!slurm) return slurm.error();
  if (*slurm) return **slurm;
  return Shard{};
}

}  // namespace dmci::cli
