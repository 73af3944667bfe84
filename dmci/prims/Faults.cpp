// Planted adjoint faults (see Faults.h): the planted factors, and the rows and rules an engine runs by them.
#include "prims/Faults.h"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <vector>

#include "prims/FaultDecision.h"

namespace dmci {
namespace {

std::atomic<bool> gPlanted{false};
// A FaultDecision's answer on this thread: -1 none, else 0 or 1.
thread_local int tDecision = -1;

// One factor per primitive id, 1 unless planted; atomics, as a run in another thread may read them.
std::vector<std::atomic<double>>& scales() {
  static std::vector<std::atomic<double>> s = [] {
    std::vector<std::atomic<double>> v(primitives().size());
    for (auto& x : v) x.store(1.0);
    return v;
  }();
  return s;
}

}  // namespace

void plantAdjointFault(const std::string& prim, double scale) {
  int id = primId(prim);
  const ScalarRule* r = id >= 0 ? scalarRule(id) : nullptr;
  if (!r || prim != r->name || (r->dx == nullptr && r->da == nullptr))
    throw std::invalid_argument("plantAdjointFault: '" + prim + "' is not a differentiable elementary primitive");
  if (!gPlanted.load()) clearAdjointFaults();
  scales()[static_cast<size_t>(id)].store(scale);
  gPlanted.store(true);
}

void clearAdjointFaults() {
  gPlanted.store(false);
  for (auto& s : scales()) s.store(1.0);
}

bool adjointFaultPlanted() { return tDecision >= 0 ? tDecision == 1 : gPlanted.load(std::memory_order_acquire); }

FaultDecision::FaultDecision(bool planted) : previous_(tDecision) { tDecision = planted ? 1 : 0; }
FaultDecision::~FaultDecision() { tDecision = previous_; }

double plantedScale(int id) { return scales()[static_cast<size_t>(id)].load(std::memory_order_relaxed); }

const Primitive* primitiveRows(bool planted) {
  if (!planted) return primitives().data();
  static const std::vector<Primitive> rows = [] {
    std::vector<Primitive> v = primitives();
    for (size_t id = 0; id < v.size(); ++id)
      if (PrimFn f = plantedForward(static_cast<int>(id))) v[id].forward = f;
    return v;
  }();
  return rows.data();
}

const ScalarRule* sweptRule(int id, bool planted) { return planted ? plantedRule(id) : scalarRule(id); }

}  // namespace dmci
