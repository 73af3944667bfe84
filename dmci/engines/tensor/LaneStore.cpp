// The lane store on LibTorch: sets and their positions, slots, leaves, hydration for messages, and assembly.
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/autograd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engines/tensor/LaneTensors.h"
#include "runtime/Layout14.h"

namespace dmci::lanes {

LaneStore::LaneStore() : impl(std::make_unique<Impl>(*this)) {}
LaneStore::~LaneStore() = default;

namespace {
[[noreturn]] void internal(const std::string& what) {
  throw DmciError(ErrorKind::Graph, "tensor engine internal error: " + what);
}
}  // namespace

bool deviceAvailable(const std::string& device) {
  if (device == "cpu") return true;
  return device == "cuda" && at::hasCUDA();
}

void setThreads(int threads) { at::set_num_threads(threads); }

void LaneStore::configure(const std::string& device, bool float32) {
  at::Device dev(at::kCPU);
  if (device == "cuda") {
    if (!at::hasCUDA()) throw DmciError(ErrorKind::Usage, "--device cuda: no CUDA device is available");
    dev = at::Device(at::kCUDA, 0);
  } else if (device != "cpu") {
    throw DmciError(ErrorKind::Usage, "unknown device '" + device + "' (expected cpu or cuda)");
  }
  impl->real = at::TensorOptions().dtype(float32 ? at::kFloat : at::kDouble).device(dev);
  impl->index = at::TensorOptions().dtype(at::kLong).device(dev);
}

void LaneStore::keepSlots(const Runtime& rt) { impl->entries.resize(static_cast<size_t>(rt.numSlots())); }

void LaneStore::beginRun(const Runtime& rt, int64_t lanes) {
  auto& im = *impl;
  im.entries.resize(static_cast<size_t>(rt.numSlots()));
  im.sets.clear();
  LaneSet root;
  root.n = lanes;
  root.lanes.resize(static_cast<size_t>(lanes));
  for (int64_t k = 0; k < lanes; ++k) root.lanes[static_cast<size_t>(k)] = k;
  im.sets.push_back(std::move(root));
  counters = {};
}

int64_t LaneStore::size(int32_t set) const { return impl->sets[static_cast<size_t>(set)].n; }
int64_t LaneStore::firstLane(int32_t set) const { return impl->sets[static_cast<size_t>(set)].lanes.front(); }

int32_t LaneStore::split(int32_t set, const std::vector<int64_t>& positions) {
  auto& im = *impl;
  LaneSet child;
  child.parent = set;
  child.n = static_cast<int64_t>(positions.size());
  const auto& parentLanes = im.sets[static_cast<size_t>(set)].lanes;
  for (int64_t p : positions) child.lanes.push_back(parentLanes[static_cast<size_t>(p)]);
  std::vector<int64_t> pos = positions;
  child.inParent = at::from_blob(pos.data(), {child.n}, at::TensorOptions().dtype(at::kLong)).clone().to(im.index);
  im.sets.push_back(std::move(child));
  return static_cast<int32_t>(im.sets.size() - 1);
}

at::Tensor LaneStore::Impl::positions(int32_t set, int32_t ancestor) {
  LaneSet& s = sets[static_cast<size_t>(set)];
  if (s.parent == ancestor) return s.inParent;
  if (s.parent < 0) internal("a lane value read outside the lanes that made it");
  auto it = s.fromAncestor.find(ancestor);
  if (it != s.fromAncestor.end()) return it->second;
  at::Tensor p = positions(s.parent, ancestor).index_select(0, s.inParent);
  sets[static_cast<size_t>(set)].fromAncestor.emplace(ancestor, p);
  return p;
}

at::Tensor LaneStore::Impl::lane(int32_t slot, int32_t set) {
  const Entry& e = entries[static_cast<size_t>(slot)];
  if (!e.t.defined()) internal("slot " + std::to_string(slot) + " holds no lane data");
  if (e.set == set) return e.t;
  auto& cache = sets[static_cast<size_t>(set)].aligned;
  auto it = cache.find(slot);
  if (it != cache.end()) return it->second;
  at::Tensor t = e.t.index_select(0, positions(set, e.set));
  cache.emplace(slot, t);
  return t;
}

int32_t LaneStore::Impl::newSlot(Runtime& rt, at::Tensor t, int32_t set) {
  int32_t s = rt.newSlot();
  if (static_cast<size_t>(s) != entries.size()) internal("slot numbering out of step");
  entries.push_back({std::move(t), set});
  return s;
}

std::vector<double> LaneStore::Impl::host(const at::Tensor& t) {
  ++store.counters.syncs;
  return read(t);
}

std::vector<double> LaneStore::Impl::read(const at::Tensor& t) {
  at::Tensor h = t.detach().to(at::kCPU, at::kDouble).contiguous();
  const double* d = h.data_ptr<double>();
  return std::vector<double>(d, d + h.numel());
}

Value LaneStore::param(Runtime& rt, const std::vector<double>& values, bool grad) {
  std::vector<double> copy = values;
  at::Tensor t = at::from_blob(copy.data(), {static_cast<int64_t>(copy.size())}, at::TensorOptions().dtype(at::kDouble))
                     .to(impl->real, false, true)
                     .detach();
  if (grad) t.requires_grad_(true);
  return Value::real(std::numeric_limits<double>::quiet_NaN(), impl->newSlot(rt, t, 0));
}

void LaneStore::literalLeaf(int32_t slot, double value, bool grad) {
  at::Tensor t = at::full({impl->sets[0].n}, value, impl->real);
  if (grad) t.requires_grad_(true);
  impl->entries[static_cast<size_t>(slot)] = {t, 0};
}

// --- hydration: one lane's data written where rt.show() and native rules read it ---

Value LaneStore::hydrate(Runtime& rt, const Value& v, int32_t set, int64_t pos) {
  auto& im = *impl;
  auto laneNumber = [&](int32_t slot) { return im.host(im.lane(slot, set)[pos])[0]; };
  auto fillTensor = [&](const Value& t) {
    TensorRec& r = rt.tensors[static_cast<size_t>(t.i)];
    if (r.slot < 0) return;
    std::vector<double> d = im.host(im.lane(r.slot, set)[pos]);
    std::copy(d.begin(), d.end(), rt.tensorData.begin() + static_cast<std::ptrdiff_t>(r.data));
  };
  Value out = v;
  if (out.tag == Tag::Real && out.i >= 0) out.num = laneNumber(out.i);
  if (out.tag == Tag::Tensor) fillTensor(out);
  std::vector<std::pair<int32_t, int32_t>> todo;  // (first cell, cells): a pair's two, a vector's elements
  auto within = [&](const Value& x) {
    if (x.tag == Tag::Pair) todo.emplace_back(x.i, 2);
    if (x.tag == Tag::Vector) todo.emplace_back(x.i, static_cast<int32_t>(x.code));
  };
  std::unordered_set<int32_t> seen;
  within(v);
  while (!todo.empty() && seen.size() < 100000) {
    auto [at, n] = todo.back();
    todo.pop_back();
    if (n == 0 || !seen.insert(at).second) continue;
    for (int32_t c = at; c < at + n; ++c) {
      Value& cell = rt.heap[static_cast<size_t>(c)];
      if (cell.tag == Tag::Real && cell.i >= 0) cell.num = laneNumber(cell.i);
      if (cell.tag == Tag::Tensor) fillTensor(cell);
      within(cell);
    }
  }
  return out;
}

std::vector<double> LaneStore::laneData(int32_t slot, int32_t set) { return impl->host(impl->lane(slot, set)); }

Value LaneStore::laneConstants(Runtime& rt, int32_t set, const std::vector<double>& perLane) {
  std::vector<double> copy = perLane;
  at::Tensor t = at::from_blob(copy.data(), {static_cast<int64_t>(copy.size())}, at::TensorOptions().dtype(at::kDouble))
                     .to(impl->real, false, true);
  return Value::real(std::numeric_limits<double>::quiet_NaN(), impl->newSlot(rt, t, set));
}

// --- Ctx: conversions for torch rules ---

at::Tensor Ctx::ten(const Value& v) {
  const TensorRec& r = rt.tensors[static_cast<size_t>(v.i)];
  if (r.slot >= 0) return im.lane(r.slot, set);
  return at::from_blob(rt.tensorData.data() + r.data, {1, r.rows, r.cols}, at::TensorOptions().dtype(at::kDouble))
      .to(im.real, false, true);
}

Value Ctx::real(at::Tensor t) {
  if (t.dim() == 0 || t.size(0) != n) t = t.expand({n});
  return Value::real(std::numeric_limits<double>::quiet_NaN(), im.newSlot(rt, t, set));
}

Value Ctx::tensor(int32_t rank, at::Tensor t) {
  int64_t rows = t.size(1), cols = t.size(2);
  if (t.size(0) != n) t = t.expand({n, rows, cols});
  Value out = rt.newTensor(rank, static_cast<int32_t>(rows), static_cast<int32_t>(cols));
  rt.tensors[static_cast<size_t>(out.i)].slot = im.newSlot(rt, t, set);
  return out;
}

Outcome Ctx::truth(const at::Tensor& b) {
  std::vector<double> h = host(b.to(at::kDouble));
  LaneClass yes, no;
  yes.value = Value::boolean(true);
  no.value = Value::boolean(false);
  for (int64_t k = 0; k < n; ++k) (h[static_cast<size_t>(k)] != 0.0 ? yes : no).positions.push_back(k);
  if (no.positions.empty()) return Outcome::of(yes.value);
  if (yes.positions.empty()) return Outcome::of(no.value);
  Outcome o;
  o.classes.push_back(std::move(yes));
  o.classes.push_back(std::move(no));
  return o;
}

int64_t Ctx::firstWhere(const at::Tensor& bad) {
  std::vector<double> h = host(bad.to(at::kDouble));
  for (int64_t k = 0; k < n; ++k)
    if (h[static_cast<size_t>(k)] != 0.0) return k;
  return -1;
}

void Ctx::failAt(int64_t pos, const Value* args, int argc, void (*raise)(Runtime&, const Value*, int)) {
  std::vector<Value> lane(args, args + argc);
  for (auto& v : lane) v = store.hydrate(rt, v, set, pos);
  raise(rt, lane.data(), argc);
  internal("an error rule did not raise");
}

// --- the end of a run ---

namespace {

// Lane order from the groups' lane lists: positions in the concatenation, indexed by lane.
std::vector<int64_t> inverseOrder(const std::vector<LaneSet>& sets, const std::vector<GroupEnd>& ends) {
  std::vector<int64_t> inv;
  int64_t at = 0;
  for (const auto& e : ends) {
    for (int64_t lane : sets[static_cast<size_t>(e.set)].lanes) {
      if (inv.size() <= static_cast<size_t>(lane)) inv.resize(static_cast<size_t>(lane) + 1, -1);
      inv[static_cast<size_t>(lane)] = at++;
    }
  }
  return inv;
}

at::Tensor indexTensor(std::vector<int64_t> v, const at::TensorOptions& o) {
  return at::from_blob(v.data(), {static_cast<int64_t>(v.size())}, at::TensorOptions().dtype(at::kLong)).clone().to(o);
}

}  // namespace

namespace {

// The entries of tensor values, when every group's value is a tensor of one shape.
void tensorEntries(LaneStore& store, Runtime& rt, const std::vector<GroupEnd>& ends, const at::Tensor& order,
                   LaneStore::Assembled& a) {
  std::vector<at::Tensor> parts;
  const TensorRec* shape = nullptr;
  for (const auto& e : ends) {
    if (e.value.tag != Tag::Tensor) return;
    const TensorRec& r = rt.tensors[static_cast<size_t>(e.value.i)];
    if (shape && (r.rank != shape->rank || r.rows != shape->rows || r.cols != shape->cols)) return;
    shape = &r;
    Ctx c{rt, store, *store.impl, e.set, store.size(e.set)};
    parts.push_back(c.ten(e.value).reshape({-1, r.rows * r.cols}).expand({c.n, r.rows * r.cols}));
  }
  if (!shape) return;
  a.rank = shape->rank, a.rows = shape->rows, a.cols = shape->cols;
  a.entries = store.impl->read(at::cat(parts).index_select(0, order));
}

}  // namespace

LaneStore::Assembled LaneStore::assemble(Runtime& rt, const std::vector<GroupEnd>& ends,
                                         const std::vector<int32_t>& gradSlots) {
  auto& im = *impl;
  std::vector<at::Tensor> parts;
  for (const auto& e : ends) {
    Ctx c{rt, *this, im, e.set, size(e.set)};
    const Value& v = e.value;
    if (v.tag == Tag::Real)
      parts.push_back(v.i >= 0 ? c.num(v) : at::full({c.n}, v.num, im.real));
    else
      parts.push_back(c.ten(v).sum({1, 2}).expand({c.n}));
  }
  at::Tensor order = indexTensor(inverseOrder(im.sets, ends), im.index);
  at::Tensor out = at::cat(parts).index_select(0, order);
  Assembled a;
  a.value = im.read(out);
  tensorEntries(*this, rt, ends, order, a);
  a.grad.assign(gradSlots.size(), std::vector<double>(static_cast<size_t>(out.size(0)), 0.0));
  std::vector<at::Tensor> leaves;
  std::vector<size_t> which;
  for (size_t k = 0; k < gradSlots.size(); ++k) {
    const at::Tensor& t = im.entries[static_cast<size_t>(gradSlots[k])].t;
    if (t.defined() && t.requires_grad()) leaves.push_back(t), which.push_back(k);
  }
  if (leaves.empty() || !out.requires_grad()) return a;
  auto grads = torch::autograd::grad({out.sum()}, leaves, {}, false, false, true);
  for (size_t k = 0; k < grads.size(); ++k) {
    if (!grads[k].defined()) continue;
    a.grad[which[k]] = im.read(grads[k]);
  }
  return a;
}

std::vector<std::array<double, 14>> LaneStore::layout14(Runtime& rt, const std::vector<GroupEnd>& ends) {
  auto& im = *impl;
  std::vector<at::Tensor> parts;
  for (const auto& e : ends) {
    Ctx c{rt, *this, im, e.set, size(e.set)};
    // The uniform layout of the value (lane 0's numbers are replaced below when they vary).
    Value shown = e.value;
    if (shown.tag == Tag::Real && shown.i >= 0) shown = Value::real(0.0);
    Layout14 u = toLayout14(rt, shown);
    std::vector<double> row(u.begin(), u.end());
    at::Tensor block = at::from_blob(row.data(), {1, kLayoutWidth}, at::TensorOptions().dtype(at::kDouble))
                           .to(im.real)
                           .repeat({c.n, 1});
    if (e.value.tag == Tag::Real && e.value.i >= 0) {
      at::Tensor cols = at::zeros({c.n, kLayoutWidth}, im.real);
      cols.select(1, 10).fill_(1.0);
      at::Tensor mask = at::ones({kLayoutWidth}, im.real);
      mask[10] = 0.0;
      block = block * mask + cols * c.num(e.value).unsqueeze(1);
    }
    parts.push_back(block);
  }
  at::Tensor all = at::cat(parts).index_select(0, indexTensor(inverseOrder(im.sets, ends), im.index));
  std::vector<double> h = im.read(all);
  std::vector<std::array<double, 14>> out(h.size() / kLayoutWidth);
  for (size_t k = 0; k < out.size(); ++k)
    for (int j = 0; j < kLayoutWidth; ++j)
      out[k][static_cast<size_t>(j)] = h[k * kLayoutWidth + static_cast<size_t>(j)];
  return out;
}

}  // namespace dmci::lanes
