// The machine's heap collector: a Cheney copy of what a run allocated, at calls.
//
// The heap is single-assignment, so a cell only ever points to older cells,
// except a box (a letrec* or set! variable's), which is written after it is made (again when a continuation
// re-enters the initialiser: lower/Control.cpp), and a vector's element, which vector-set! writes; both are cells
// of the run (vector-set! refuses a literal vector, Materialise.h), copied with what they point to. Cells built
// before the run (constants, the program as data, the evaluator's analysis of
// it) therefore never point into the run's cells and are never moved: only
// the run's own cells, above floor_, are copied. Numbers keep their tape slots,
// so collecting never disturbs the gradient.
#include <algorithm>
#include <cstdint>

#include "machine/Machine.h"

namespace dmci {
namespace {

struct Copier {
  const ComputeGraph& g;
  std::vector<Value>& heap;
  size_t floor;
  std::vector<int32_t> moved;  // [old - floor]: new address, or -1
  std::vector<Value> to;

  // The number of cells of the object a value points to, or 0 for none.
  int32_t size(const Value& v) const {
    switch (v.tag) {
      case Tag::Pair:
        return 2;
      case Tag::Box:
        return 1;
      case Tag::Vector:
        return static_cast<int32_t>(v.code);
      case Tag::Closure:
        return v.i >= 0 ? g.blocks[static_cast<size_t>(v.code)].nfree : 0;
      default:
        return 0;
    }
  }
  int32_t forward(int32_t addr, int32_t n) {
    if (addr < 0 || static_cast<size_t>(addr) < floor || n == 0) return addr;
    int32_t& m = moved[static_cast<size_t>(addr) - floor];
    if (m < 0) {
      m = static_cast<int32_t>(floor + to.size());
      to.insert(to.end(), heap.begin() + addr, heap.begin() + addr + n);
    }
    return m;
  }
  void forward(Value& v) { v.i = forward(v.i, size(v)); }
};

}  // namespace

void Machine::startRun() {
  floor_ = rt_.heap.size();
  gcNext_ = rt_.collectAfter ? floor_ + rt_.collectAfter : SIZE_MAX;
}

int32_t Machine::collect(int32_t block, int32_t base, int32_t env) {
  Copier c{g_, rt_.heap, floor_, std::vector<int32_t>(rt_.heap.size() - floor_, -1), {}};
  size_t top = static_cast<size_t>(base) + static_cast<size_t>(g_.blocks[block].nslots);
  for (size_t k = 0; k < top && k < stack_.size(); ++k) c.forward(stack_[k]);
  for (Frame& f : frames_) f.env = c.forward(f.env, g_.blocks[f.block].nfree);
  env = c.forward(env, g_.blocks[block].nfree);
  for (size_t scan = 0; scan < c.to.size(); ++scan) {
    Value v = c.to[scan];  // forward() may grow `to`: no reference into it across the call
    c.forward(v);
    c.to[scan] = v;
  }
  rt_.heap.resize(floor_);
  rt_.heap.insert(rt_.heap.end(), c.to.begin(), c.to.end());
  gcNext_ = floor_ + std::max(rt_.collectAfter, 2 * c.to.size());
  ++stats_.collections;
  return env;
}

}  // namespace dmci
