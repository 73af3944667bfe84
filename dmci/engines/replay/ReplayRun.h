// The replay engine's prepared run (ReplayEngine.h), shared by the two files that define it:
// ReplayEngine.cpp keeps the trace cache (recording a path's trace on the native machine, at most kMaxTraces)
// and routes lanes between the cached traces; ReplayBackends.cpp runs lanes on one trace by its back-end (the
// compiled function, a batch machine's loaded trace, or the block replayer).
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "engines/replay/BatchTrace.h"
#include "engines/replay/Compiled.h"
#include "engines/replay/Replay.h"
#include "prims/Faults.h"

namespace dmci::replay {

// What one run or batch did with its lanes (the --stats counters).
struct Tally {
  uint64_t replayed = 0, recorded = 0, interpreted = 0, offPath = 0;
};

// The lanes' parameters where they lie: parameter k of lane l at param[k][l * stride] (the engine's columns, the
// caller's rows, or the lanes gathered for another trace).
struct LaneIn {
  const double* const* param;
  size_t count;  // parameters
  size_t stride;
  double at(size_t k, size_t lane) const { return param[k][lane * stride]; }
};

// Where the lanes' results go: lane l's value at value[l], its gradient entry k at gradient[k][l * stride] (no
// gradient: null).
struct LaneOut {
  double* value;
  double* const* gradient;
  size_t keys;
  size_t stride;
};

class ReplayRun final : public PreparedRun {
 public:
  ReplayRun(const PreparedProgram& p, const EvalOptions& opts, bool compiled, replay::BatchLoader loader = {})
      : prepared_(p),
        opts_(opts),
        planted_(adjointFaultPlanted()),
        native_(p, recordingOptions(opts)),
        compile_(compiled),
        loader_(std::move(loader)) {}
  const Error* setupError() const { return native_.setupError(); }

  Result<Evaluation> run(const std::vector<double>& values) override;

  Result<LaneEvaluation> runLanes(const std::vector<std::vector<double>>& values, int64_t laneCount) override;

  // Every lane of `out` is written: by a trace's replay, or by the native machine (its value and gradient).
  std::optional<Error> runLanesInto(const std::vector<std::vector<double>>& values, int64_t laneCount,
                                    LaneEvaluation& out) override;

  // The caller's arrays read and written in place, strided as they are (the C API's row-major B x p). The batch
  // machine reads columns, and a program no trace runs goes to the native engine: both through the default's
  // copies.
  std::optional<Error> runLanesIn(LaneArrays& a) override;

 private:
  PreparedProgram prepared_;
  EvalOptions opts_;
  // Whether a fault was planted at prepare (prims/Faults.h): the replayers made from later recordings and the native
  // run a batch prepares later follow it, as native_'s machine, built now, does.
  bool planted_;
  Evaluator native_;  // records traces, and interprets the lanes no trace takes
  std::vector<std::unique_ptr<replay::Replayer>> traces_;
  // The compiled engine: each trace built as C++ (null where the trace cannot be emitted: the replayer runs it).
  bool compile_ = false;
  std::vector<std::unique_ptr<replay::CompiledTrace>> compiled_;
  size_t emitRefused_ = 0;
  // A batch machine's replay (the tensor engine's): each trace loaded there too (null where it was refused: the
  // replayer runs it).
  replay::BatchLoader loader_;
  std::vector<std::unique_ptr<replay::BatchTrace>> batch_;
  size_t batchRefused_ = 0;
  std::vector<std::string> gradientKeys_;
  replay::Workspace one_;
  std::vector<double> oneGrad_;   // one seed's gradient, reused
  size_t notReplayable_ = 0;      // paths recorded whose traces cannot be replayed
  bool gradientSkipped_ = false;  // the last rerun recorded a replayable trace and left out the native gradient

  static EvalOptions recordingOptions(EvalOptions o) {
    o.leafParameters = true;
    return o;
  }
  int32_t paramCount() const { return static_cast<int32_t>(native_.parameterCount()); }
  std::vector<const double*> inColumns_;  // runLanesInto's columns as a LaneIn, kept between batches
  std::vector<double*> outColumns_;

  // Lane 0 records the first path, when nothing is recorded yet.
  std::optional<Error> recordFirst(const LaneIn& in, Tally& tally);
  void finishCounters(Counters& c, const Tally& tally, size_t lanes, std::chrono::steady_clock::time_point t0) const;
  // Every lane through the traces. The first trace takes every lane on its path. A lane it leaves goes on by the
  // guard it failed first, down the tree the traces' guards make (route); those that find no trace there try
  // every trace in turn; the lanes left then take the native machine, which records their paths while the cache
  // has room.
  std::optional<Error> replayAll(const LaneIn& in, size_t lanes, const LaneOut& out, Tally& tally);

  // No path replayable (a tensor program, say): the native engine's lanes, on all cores.
  Result<LaneEvaluation> interpretAll(const std::vector<std::vector<double>>& values, int64_t laneCount, Tally& tally);
  std::unique_ptr<PreparedRun> nativeLanes_;

  // `out` sized for `lanes` scalar lanes, its vectors kept where they fit: their entries are left as they are,
  // since every lane is written.
  void shape(LaneEvaluation& out, size_t lanes) const;

  // The native run of one seed, recording its path's trace while the cache has room. A path whose trace is
  // cached gets no native gradient (gradientSkipped_): the trace is replayed for it, so recording costs a
  // forward run.
  Result<Evaluation> rerun(const std::vector<double>& seed, Tally& tally);

  // One seed on a batch machine: a batch of one lane, so that its numbers are that machine's (float32, say).
  Result<Evaluation> runOneLane(const std::vector<double>& values);

  // One seed on the first cached trace whose guards it passes (its compiled function, else the replayer).
  bool replayOne(const std::vector<double>& values, Evaluation& ev);

  // The lanes a trace left, each with the first guard it failed there (-1: unknown).
  struct Left {
    std::vector<size_t> lanes;
    std::vector<int> guard;
  };

  // Routes the lanes trace k left down the tree of the traces' guards: a lane that failed guard g first goes to
  // a trace that agrees with trace k on every guard before g and tests g with the other outcome (nextTrace),
  // and so on; each step passes a later guard, so a lane takes at most one trace per level of the tree rather
  // than every trace in turn. Returns the lanes no trace took this way.
  Result<std::vector<size_t>> route(size_t k, Left left, const LaneIn& in, const LaneOut& out, Tally& tally);

  // The trace for a lane that failed trace k first at guard g: the first that makes every test before g with
  // trace k's outcome and the same test at g with another; -1 when there is none or g is unknown.
  int nextTrace(size_t k, int g);
  // Whether two traces' guards make the same test: the same primitive on the same slots and constants, after
  // the same number of operations (traces that agree up to there recorded the same operations).
  static bool sameTest(const replay::Trace& ta, const replay::Guard& a, const replay::Trace& tb,
                       const replay::Guard& b);
  std::map<uint64_t, int> routes_;  // nextTrace's answers, for routesFor_ traces
  size_t routesFor_ = 0;

  // Replays lanes on one trace, in blocks on all cores: lanes [0, n) when `pick` is null, else pick[0..n) (the
  // lanes another path left, gathered). Returns the lanes off this trace's path.
  Result<Left> replayLanes(size_t index, const LaneIn& in, const size_t* pick, size_t n, const LaneOut& out,
                           Tally& tally);
  // The lanes off the path; those on it that were gathered are scattered back into `out`.
  Left finishLanes(const size_t* pick, size_t n, const std::vector<uint8_t>& ok, const std::vector<double>& value,
                   const std::vector<std::vector<double>>& grad, const LaneOut& out, Tally& tally);
  // Lanes [from, from + n) through a compiled trace's lane loop, which reads and writes columns: strided lanes
  // are gathered into `scratch` (one slice's, in cache) and their gradient scattered back.
  void runCompiled(const replay::CompiledTrace& fn, const LaneIn& src, size_t from, int n, const LaneOut& dst,
                   uint8_t* ok, std::vector<double>& scratch) const;
  std::deque<std::vector<double>> sliceColumns_;  // the workers' gathered slices (strided lanes, compiled), kept
  std::deque<replay::Workspace> spaces_;          // the workers' buffers, kept between batches
  std::vector<uint8_t> verdicts_;                 // a slice's lanes: on the path (1) or not, kept between batches
  int threadsUsed_ = 1;

  // The counters of a run or batch: the cache's size and what the lanes took.
  void count(Counters& c, const Tally& t, size_t lanes) const;
};

}  // namespace dmci::replay
