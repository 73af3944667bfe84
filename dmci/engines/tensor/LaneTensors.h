// The LibTorch side of the lane store: slots, sets, and what a torch rule sees of one group.
//
// Private to dmci/engines/tensor/*.cpp (it includes ATen). A per-lane number is
// an at::Tensor of shape [n]; a per-lane tensor value one of shape [n, rows, cols]
// (a vector: cols = 1); a uniform number enters torch as a 0-dim CPU double,
// which broadcasts on either device and keeps the lanes' dtype.
#pragma once
#include <ATen/ATen.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engines/tensor/LaneStore.h"
#include "prims/LaneUse.h"

namespace dmci::lanes {

struct Entry {
  at::Tensor t;  // indexed by `set`'s lanes in its first dimension
  int32_t set = 0;
};

struct LaneSet {
  int32_t parent = -1;
  int64_t n = 0;
  std::vector<int64_t> lanes;                            // global lane ids, ascending
  at::Tensor inParent;                                   // positions in the parent's lanes (int64, on the device)
  std::unordered_map<int32_t, at::Tensor> fromAncestor;  // ancestor set -> positions in it
  std::unordered_map<int32_t, at::Tensor> aligned;       // slot -> its tensor indexed by this set
};

struct LaneStore::Impl {
  explicit Impl(LaneStore& s) : store(s) {}
  LaneStore& store;
  at::TensorOptions real = at::TensorOptions().dtype(at::kDouble);
  at::TensorOptions index = at::TensorOptions().dtype(at::kLong);
  std::vector<Entry> entries;  // by slot (Runtime::newSlot numbers them)
  std::vector<LaneSet> sets;

  // Slot's tensor indexed by `set` (a descendant of the set that made it).
  at::Tensor lane(int32_t slot, int32_t set);
  // A new slot holding t (indexed by `set`).
  int32_t newSlot(Runtime& rt, at::Tensor t, int32_t set);
  // Positions of set's lanes within an ancestor set's lanes.
  at::Tensor positions(int32_t set, int32_t ancestor);
  // Lane data on the host, as doubles: a sync that control flow needs (counted), or a read of results.
  std::vector<double> host(const at::Tensor& t);
  std::vector<double> read(const at::Tensor& t);
};

// One primitive application seen by a torch rule: the group's lanes and value conversions.
struct Ctx {
  Runtime& rt;
  LaneStore& store;
  LaneStore::Impl& im;
  int32_t set;
  int64_t n;

  static at::Tensor scalar(double u) { return at::scalar_tensor(u, at::TensorOptions().dtype(at::kDouble)); }
  // A number: [n] per lane, or a 0-dim scalar when uniform.
  at::Tensor num(const Value& v) { return v.i >= 0 ? im.lane(v.i, set) : scalar(v.num); }
  // A tensor value: [n, r, c] per lane, or [1, r, c] when uniform (a native tensor).
  at::Tensor ten(const Value& v);
  // A number shaped to broadcast against tensors: [n, 1, 1] or 0-dim.
  at::Tensor numFor3d(const Value& v) { return v.i >= 0 ? num(v).reshape({n, 1, 1}) : num(v); }
  // A new per-lane number (t broadcast to [n]).
  Value real(at::Tensor t);
  // A new per-lane tensor value of the given rank (t broadcast to [n, r, c]).
  Value tensor(int32_t rank, at::Tensor t);
  // Lane data on the host (one sync).
  std::vector<double> host(const at::Tensor& t) { return im.host(t.expand({n}).contiguous()); }
  // #t, #f, or a split by a per-lane boolean (one sync).
  Outcome truth(const at::Tensor& b);
  // The first lane where `bad` holds, or -1 (one sync).
  int64_t firstWhere(const at::Tensor& bad);
  // Runs `raise` (which throws a native error) with lane `pos`'s data in `args`.
  [[noreturn]] void failAt(int64_t pos, const Value* args, int argc, void (*raise)(Runtime&, const Value*, int));
  void counted() { ++store.counters.torchOps; }
};

// A torch rule: called when some argument holds per-lane data.
using Rule = Outcome (*)(Ctx& c, const Value* args, int argc);
struct KernelRule {
  LaneKernel kernel;
  Rule rule;
};
// The tensor primitives' rules (TensorPrims.cpp).
std::vector<KernelRule> tensorRules();

// An elementary function's value for every lane (abs, exp, ..., floor): the one LibTorch form the tensor engine's
// rules and its trace replay both use. Derivatives are the callers': autograd's where it equals the native rule,
// explicit partials otherwise.
at::Tensor elementaryValue(LaneKernel f, const at::Tensor& x);

}  // namespace dmci::lanes
