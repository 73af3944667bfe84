// `dmci merge`: joins the reports of a sharded run (the gate's or a fuzz campaign's) into the report of the whole
// run, refusing shards that do not make one run.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace dmci::cli {

// Adds the subcommand; the returned function runs it when it was the one parsed (else returns -1). It exits 0 when
// the merged run passed, 1 when a shard is missing, duplicated, from another build, corpus or campaign, unreadable,
// or when a pair or a case failed, and 2 on a usage error (an output that cannot be written).
std::function<int()> addMergeCommand(CLI::App& app);

}  // namespace dmci::cli
