// Which shard of a sharded run this process is: `--shard i/N`, or else the index and count a test runner or a
// scheduler hands over in the environment (GoogleTest's GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS, a SLURM job
// array's SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT). `dmci check` and `dmci fuzz` share it, so the same
// words select the same work in both.
#pragma once
#include <string>

#include "syntax/Error.h"

namespace dmci::cli {

struct Shard {
  int index = 0, count = 1;
  std::string source;  // where it came from: "--shard", "GTEST_*", "SLURM_ARRAY_*" or "" (not sharded)
  std::string str() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "i/N" with 0 <= i < N; a Usage error says what was wrong.
Result<Shard> parseShard(const std::string& text);

// The flag when given (non-empty), else GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS (creating GTEST_SHARD_STATUS_FILE when
// set, as GoogleTest's contract asks), else a SLURM job array's task
// (its index counted from SLURM_ARRAY_TASK_MIN; a step other than 1 is refused), else 0/1. Half a pair of
// variables, or a value that is not a number in range, is a Usage error naming the variable.
Result<Shard> shardFromFlagOrEnvironment(const std::string& flag);

}  // namespace dmci::cli
