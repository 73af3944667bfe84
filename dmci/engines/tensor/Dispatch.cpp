// Which rule a primitive runs for a group, by its row's lane column (prims/LaneUse.h): native when it
// reads no per-lane data, its torch kernel when it has one, else the native rule lane by lane.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "engines/tensor/LaneStore.h"
#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "prims/ScalarRule.h"

namespace dmci::lanes {
namespace {

// Where a native rule would read per-lane data: an argument, a heap cell or a tensor record.
struct Site {
  enum Kind { Argument, Cell, TensorData } kind;
  int32_t where;
  int32_t slot;
};

void siteOf(const Runtime& rt, const Value& v, Site::Kind kind, int32_t where, std::vector<Site>& out) {
  if (v.tag == Tag::Real && v.i >= 0) out.push_back({kind, where, v.i});
  if (v.tag == Tag::Tensor && rt.tensors[static_cast<size_t>(v.i)].slot >= 0)
    out.push_back({Site::TensorData, v.i, rt.tensors[static_cast<size_t>(v.i)].slot});
}

// The per-lane data a rule may read; inside lists and vectors too when `lists`.
std::vector<Site> sites(const Runtime& rt, const Value* args, int argc, bool lists) {
  std::vector<Site> out;
  std::vector<std::pair<int32_t, int32_t>> todo;  // (first cell, cells): a pair's two, a vector's elements
  auto within = [&](const Value& v) {
    if (v.tag == Tag::Pair) todo.emplace_back(v.i, 2);
    if (v.tag == Tag::Vector) todo.emplace_back(v.i, static_cast<int32_t>(v.code));
  };
  for (int k = 0; k < argc; ++k) {
    siteOf(rt, args[k], Site::Argument, k, out);
    if (lists) within(args[k]);
  }
  std::unordered_set<int32_t> seen;
  while (!todo.empty() && seen.size() < 1000000) {
    auto [at, n] = todo.back();
    todo.pop_back();
    if (n == 0 || !seen.insert(at).second) continue;
    for (int32_t c = at; c < at + n; ++c) {
      const Value& cell = rt.heap[static_cast<size_t>(c)];
      siteOf(rt, cell, Site::Cell, c, out);
      within(cell);
    }
  }
  return out;
}

// The native rule; on an error, run again with the first lane's data so the message shows it.
Value nativeCall(Runtime& rt, LaneStore& store, int32_t set, const Primitive& p, const Value* args, int argc) {
  try {
    return p.forward(rt, args, argc);
  } catch (const DmciError&) {
    if (sites(rt, args, argc, true).empty()) throw;
    std::vector<Value> lane(args, args + argc);
    for (auto& v : lane) v = store.hydrate(rt, v, set, 0);
    p.forward(rt, lane.data(), argc);
    throw;
  }
}

// A result's identity for grouping lanes: tag and payload (a per-lane number by its slot).
using Key = std::tuple<int, int32_t, int64_t, std::string>;
Key keyOf(const Value& v) {
  if (v.tag == Tag::Real && v.i >= 0) return {static_cast<int>(v.tag), v.i, 0, ""};
  return {static_cast<int>(v.tag), v.i, v.code, ""};
}

// Lane results grouped into an Outcome: one value, per-lane constants, or classes.
Outcome classify(Runtime& rt, LaneStore& store, int32_t set, std::vector<Value>& res,
                 const std::vector<std::pair<bool, Error>>& err) {
  size_t n = res.size();
  bool allConstants = true;
  for (size_t k = 0; k < n; ++k)
    allConstants = allConstants && !err[k].first && res[k].tag == Tag::Real && res[k].i < 0;
  if (allConstants) {
    std::vector<double> nums(n);
    bool same = true, sameMark = true;
    for (size_t k = 0; k < n; ++k) {
      nums[k] = res[k].num;
      same = same && (nums[k] == nums[0] || (std::isnan(nums[k]) && std::isnan(nums[0])));
      sameMark = sameMark && res[k].i == res[0].i;
    }
    // One number for every lane: the native result itself, so an exact mark (runtime/ExactValue.h) is kept.
    if (same) return Outcome::of(sameMark ? res[0] : Value::real(nums[0]));
    return Outcome::of(store.laneConstants(rt, set, nums));
  }
  std::map<Key, size_t> index;
  Outcome o;
  for (size_t k = 0; k < n; ++k) {
    Key key = err[k].first ? Key{-1, static_cast<int>(err[k].second.kind), 0, err[k].second.message} : keyOf(res[k]);
    auto [it, fresh] = index.emplace(key, o.classes.size());
    if (fresh) {
      LaneClass c;
      c.value = res[k];
      if (c.value.tag == Tag::Real && c.value.i >= 0) c.value.num = 0.0;
      c.failed = err[k].first;
      c.error = err[k].second;
      o.classes.push_back(std::move(c));
    }
    o.classes[it->second].positions.push_back(static_cast<int64_t>(k));
  }
  if (o.classes.size() > 1) return o;
  if (o.classes[0].failed) throw DmciError(o.classes[0].error);
  return Outcome::of(o.classes[0].value);
}

// Writes lane `pos`'s data (of `lanes` lanes) where the native rule reads it.
void patchLane(Runtime& rt, const std::vector<Site>& where, std::map<int32_t, std::vector<double>>& data,
               std::vector<Value>& args, size_t pos, size_t lanes) {
  for (const Site& s : where) {
    const std::vector<double>& d = data[s.slot];
    size_t width = d.size() / lanes;
    if (s.kind == Site::Argument) args[static_cast<size_t>(s.where)].num = d[pos];
    if (s.kind == Site::Cell) rt.heap[static_cast<size_t>(s.where)].num = d[pos];
    if (s.kind == Site::TensorData)
      std::copy(d.begin() + static_cast<std::ptrdiff_t>(pos * width),
                d.begin() + static_cast<std::ptrdiff_t>((pos + 1) * width),
                rt.tensorData.begin() + static_cast<std::ptrdiff_t>(rt.tensors[static_cast<size_t>(s.where)].data));
  }
}

// True when every lane holds the data of lane 0 (a literal's leaf, say).
bool sameInEveryLane(const std::map<int32_t, std::vector<double>>& data, size_t lanes) {
  for (const auto& [slot, d] : data) {
    size_t width = d.size() / lanes;
    for (size_t k = 1; k < lanes; ++k)
      if (!std::equal(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(width),
                      d.begin() + static_cast<std::ptrdiff_t>(k * width)))
        return false;
  }
  return true;
}

// The native rule once per lane (once in all when the lanes' data agree), with that lane's data
// written where it reads it; the results are grouped into an Outcome.
Outcome laneLoop(Runtime& rt, LaneStore& store, int32_t set, const Primitive& p, const Value* args, int argc,
                 bool lists) {
  ++store.counters.laneLoops;
  std::vector<Site> where = sites(rt, args, argc, lists);
  std::map<int32_t, std::vector<double>> data;
  for (const Site& s : where)
    if (!data.count(s.slot)) data.emplace(s.slot, store.laneData(s.slot, set));
  size_t lanes = static_cast<size_t>(store.size(set));
  size_t n = sameInEveryLane(data, lanes) ? 1 : lanes;
  std::vector<Value> res(n);
  std::vector<std::pair<bool, Error>> err(n, {false, Error{}});
  std::vector<Value> lane(args, args + argc);
  for (size_t pos = 0; pos < n; ++pos) {
    patchLane(rt, where, data, lane, pos, lanes);
    try {
      res[pos] = p.forward(rt, lane.data(), argc);
    } catch (const DmciError& e) {
      err[pos] = {true, e.error()};
    }
  }
  return classify(rt, store, set, res, err);
}

}  // namespace

Outcome applyPrim(Runtime& rt, LaneStore& store, int32_t set, int id, const Value* args, int argc) {
  const bool planted = adjointFaultPlanted();  // a planted fault reaches the native rules as in the native engine
  const Primitive& p = primitiveRows(planted)[id];
  if (!p.forward) throw DmciError(ErrorKind::Graph, std::string("tensor engine: ") + p.name + " has no forward rule");
  LaneReads reads = p.lanes.reads;
  if (reads == LaneReads::ListsByNumber) reads = args[0].tag == Tag::Real ? LaneReads::Lists : LaneReads::Nothing;
  if (reads != LaneReads::Nothing) {
    bool lane = false;
    for (int k = 0; k < argc; ++k) lane = lane || LaneStore::isLane(rt, args[k]);
    if (!lane && reads == LaneReads::Lists) lane = !sites(rt, args, argc, true).empty();
    if (lane) {
      if (isTorchKernel(p.lanes.kernel)) return applyRule(rt, store, set, p.lanes.kernel, args, argc);
      if (const ScalarRule* r = sweptRule(id, planted); r && r->f1 && r->dx && argc == 1)
        return applyScalarRule1(rt, store, set, *r, args);
      return laneLoop(rt, store, set, p, args, argc, reads == LaneReads::Lists);
    }
  }
  return Outcome::of(nativeCall(rt, store, set, p, args, argc));
}

}  // namespace dmci::lanes
