// The decision about planted adjoint faults (prims/Faults.h) that an engine made when it prepared a program, held
// for the machines it builds later for that program: a batch's extra threads, a replayer made from a trace recorded
// at a run, the native run the replay engine prepares when a batch needs one. Without it, a fault planted after
// the program was prepared would reach those and not the machine built at prepare.
#pragma once

namespace dmci {

// While alive, adjointFaultPlanted() on this thread answers `planted` (scopes nest; each restores the one before).
class FaultDecision {
 public:
  explicit FaultDecision(bool planted);
  ~FaultDecision();
  FaultDecision(const FaultDecision&) = delete;
  FaultDecision& operator=(const FaultDecision&) = delete;

 private:
  int previous_;
};

}  // namespace dmci
