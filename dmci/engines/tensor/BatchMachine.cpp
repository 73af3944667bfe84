// The batch machine's loop: the native Machine's semantics for a queue of lane groups that split when lanes disagree.
#include "engines/tensor/BatchMachine.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "machine/ErrorPosition.h"
#include "machine/Instructions.h"
#include "prims/PrimTable.h"

namespace dmci::lanes {
namespace {
// A value as a group's errors show it: with the numbers of the group's first lane.
struct FirstLane {
  Runtime& rt;
  LaneStore& store;
  int32_t set;
  Value operator()(const Value& v) const { return store.hydrate(rt, v, set, 0); }
};
}  // namespace

BatchMachine::BatchMachine(const ComputeGraph& g, Runtime& rt, LaneStore& store) : g_(g), rt_(rt), store_(store) {
  for (const auto& b : g.blocks) library_.push_back(b.pos.inLibrary() ? 1 : 0);
}

void BatchMachine::loadConstants(bool literalLeaves) {
  consts_.clear();
  literals_.clear();
  for (const auto& d : g_.consts) consts_.push_back(materialise(rt_, *d, literalLeaves ? &literals_ : nullptr));
}

std::vector<GroupEnd> BatchMachine::run(const std::vector<Value>& params) {
  if (params.size() != g_.params.size())
    throw DmciError(ErrorKind::Usage, "the graph takes " + std::to_string(g_.params.size()) + " parameters, " +
                                          std::to_string(params.size()) + " given");
  params_ = params;
  begin();
  Group root;
  root.block = g_.entry;
  root.stack.resize(static_cast<size_t>(g_.blocks[static_cast<size_t>(g_.entry)].nslots));
  queue_.push_back(std::move(root));
  return drain();
}

std::vector<GroupEnd> BatchMachine::call(const Value& f, const std::vector<Value>& args) {
  begin();
  Group root;
  args_ = args;
  Outcome result;
  try {
    if (!enter(root, f, root.block, root.pc, root.base, root.env, result)) {
      if (result.classes.empty())
        complete(root, result.value, {true, 0});
      else
        splitAt(root, result, {true, 0});
      return drain();
    }
  } catch (const DmciError& e) {
    fail(root, e);
    return drain();
  }
  queue_.push_back(std::move(root));
  return drain();
}

void BatchMachine::begin() {
  stats_ = {};
  stats_.groups = stats_.maxGroups = 1;
  ends_.clear();
  queue_.clear();
  firstFailedLane_ = -1;
  rt_.startClock();
}

// Runs groups until none is left; an error ends its group, and groups whose lanes all come after an earlier error are
// dropped.
std::vector<GroupEnd> BatchMachine::drain() {
  while (!queue_.empty()) {
    Group g = std::move(queue_.back());
    queue_.pop_back();
    if (firstFailedLane_ >= 0 && store_.firstLane(g.set) > firstFailedLane_) continue;
    runGroup(g);
  }
  std::vector<GroupEnd> out = std::move(ends_);
  ends_.clear();
  return out;
}

void BatchMachine::runGroup(Group& g) {
  rt_.userNode = g.userNode;
  lay(g);
  try {
    loop(g);
  } catch (const DmciError& e) {
    fail(g, e);
  }
  lift();
}

// The group's overlay on the heap, what it covers kept in under_.
void BatchMachine::lay(const Group& g) {
  for (const auto& [addr, v] : g.boxes) {
    under_.emplace_back(addr, rt_.heap[static_cast<size_t>(addr)]);
    rt_.heap[static_cast<size_t>(addr)] = v;
  }
}

// The heap as the ancestors left it, for the next group (a split's children carry the overlay in `boxes`).
void BatchMachine::lift() {
  for (auto it = under_.rbegin(); it != under_.rend(); ++it) rt_.heap[static_cast<size_t>(it->first)] = it->second;
  under_.clear();
}

// A copy of v's pairs and vectors in fresh cells, for a group's value that reaches cells lift() will restore.
Value BatchMachine::detach(const Value& v) {
  std::unordered_map<int32_t, Value> copied;
  auto copy = [&](auto& self, const Value& x) -> Value {
    if (x.tag != Tag::Pair && x.tag != Tag::Vector) return x;
    if (auto it = copied.find(x.i); it != copied.end()) return it->second;
    const int32_t n = x.tag == Tag::Pair ? 2 : static_cast<int32_t>(x.code);
    Value out = x;
    out.i = rt_.alloc(n);
    copied.emplace(x.i, out);
    for (int32_t k = 0; k < n; ++k) {
      Value item = self(self, rt_.heap[static_cast<size_t>(x.i + k)]);
      rt_.heap[static_cast<size_t>(out.i + k)] = item;
    }
    return out;
  };
  return copy(copy, v);
}

void BatchMachine::fail(Group& g, const DmciError& e) {
  GroupEnd end;
  end.set = g.set;
  end.failed = true;
  end.error = located(g, e);
  end.firstLane = store_.firstLane(g.set);
  if (firstFailedLane_ < 0 || end.firstLane < firstFailedLane_) firstFailedLane_ = end.firstLane;
  ends_.push_back(std::move(end));
}

// The native Machine's rule (machine/ErrorPosition.h).
Error BatchMachine::located(const Group& g, const DmciError& e) const {
  Error err = e.error();
  err.pos = reportedPosition(g_, rt_, err.pos, g.block, g.pc, g.frames, g.userCallBlock, g.userCallPc);
  return err;
}

// Delivers v: into a slot (and on to the next instruction), or returned to the caller's frame.
// False when the group has ended (its value returned from the outermost frame).
bool BatchMachine::complete(Group& g, const Value& v, Completion c) {
  if (!c.tailReturn) {
    g.stack[static_cast<size_t>(g.base + c.dst)] = v;
    ++g.pc;
    return true;
  }
  if (g.frames.empty()) {
    GroupEnd end;
    end.set = g.set;
    end.value = under_.empty() ? v : detach(v);
    end.firstLane = store_.firstLane(g.set);
    ends_.push_back(std::move(end));
    return false;
  }
  Frame fr = g.frames.back();
  g.frames.pop_back();
  g.block = fr.block, g.pc = fr.pc, g.base = fr.base, g.env = fr.env;
  g.stack[static_cast<size_t>(g.base + fr.dst)] = v;
  return true;
}

// One group per class of lanes; each takes its class's value (or error) and is queued.
void BatchMachine::splitAt(Group& g, Outcome& o, Completion c) {
  ++stats_.splits;
  g.userNode = rt_.userNode;
  size_t floor = rt_.heap.size();
  for (size_t k = 0; k < o.classes.size(); ++k) {
    LaneClass& cls = o.classes[k];
    Group child = k + 1 == o.classes.size() ? std::move(g) : g;
    child.set = store_.split(child.set, cls.positions);
    child.heapFloor = floor;
    ++stats_.groups;
    if (cls.failed) {
      fail(child, DmciError(cls.error));
      continue;
    }
    if (complete(child, cls.value, c)) queue_.push_back(std::move(child));
  }
  stats_.maxGroups = std::max<uint64_t>(stats_.maxGroups, queue_.size() + 1);
}

Value BatchMachine::readBox(const Group& g, int32_t at) const {
  for (const auto& [addr, v] : g.boxes)
    if (addr == at) return v;
  return rt_.heap[static_cast<size_t>(at)];
}

// A box is written again when a continuation re-enters its variable's initialiser (lower/Control.cpp).
void BatchMachine::writeBox(Group& g, int32_t at, const Value& v) {
  if (static_cast<size_t>(at) >= g.heapFloor) {
    rt_.heap[static_cast<size_t>(at)] = v;
    return;
  }
  for (auto& [addr, old] : g.boxes)
    if (addr == at) {
      old = v;
      return;
    }
  g.boxes.emplace_back(at, v);
}

// A vector element an ancestor made: written in the overlay and laid on the heap at once.
void BatchMachine::writeCell(Group& g, int32_t at, const Value& v) {
  if (static_cast<size_t>(at) >= g.heapFloor) {
    rt_.heap[static_cast<size_t>(at)] = v;
    return;
  }
  auto it = std::find_if(g.boxes.begin(), g.boxes.end(), [&](const auto& b) { return b.first == at; });
  if (it == g.boxes.end()) {
    under_.emplace_back(at, rt_.heap[static_cast<size_t>(at)]);
    g.boxes.emplace_back(at, v);
  } else {
    it->second = v;
  }
  rt_.heap[static_cast<size_t>(at)] = v;
}

// vector-set!: the native rule's checks and write, the write then moved into the overlay when an ancestor made
// the vector. A per-lane index must be one number for the whole group.
Outcome BatchMachine::vectorSet(Group& g, const Value* a, int argc) {
  Value args[3] = {a[0], a[1], a[2]};
  if (LaneStore::isLane(rt_, args[1])) {
    const double k = store_.hydrate(rt_, args[1], g.set, 0).num;
    for (int64_t pos = 1; pos < store_.size(g.set); ++pos)
      if (store_.hydrate(rt_, args[1], g.set, pos).num != k)
        throw DmciError(ErrorKind::Domain,
                        "vector-set!: the index differs between the lanes of a batch (the tensor engine writes one "
                        "element for a group of lanes; run this program with --engine native or replay)");
    args[1] = Value::real(k);
  }
  const bool inRange = args[0].tag == Tag::Vector && args[1].isNumber() && args[1].num >= 0 &&
                       args[1].num < static_cast<int32_t>(args[0].code) && args[1].num == std::floor(args[1].num);
  const int32_t at = inRange ? args[0].i + static_cast<int32_t>(args[1].num) : -1;
  const Value before = inRange ? rt_.heap[static_cast<size_t>(at)] : Value();
  Value result = prim(primId("vector-set!")).forward(rt_, args, argc);  // throws on a wrong argument
  if (at >= 0 && static_cast<size_t>(at) < g.heapFloor) {
    const Value written = rt_.heap[static_cast<size_t>(at)];
    rt_.heap[static_cast<size_t>(at)] = before;
    writeCell(g, at, written);
  }
  return Outcome::of(result);
}

// mce.scm's box primitives see the group's overlay, vector-set! writes into it; every other primitive goes to
// applyPrim.
Outcome BatchMachine::primCall(Group& g, int id, const Value* a, int argc) {
  static const int vectorSetId = primId("vector-set!");
  if (id == vectorSetId && argc == 3) return vectorSet(g, a, argc);
  const LaneKernel kernel = prim(id).lanes.kernel;
  if (kernel == LaneKernel::BoxSet && a[0].tag == Tag::Box) {
    writeBox(g, a[0].i, a[1]);
    return Outcome::of(Value::boolean(true));
  }
  if (kernel == LaneKernel::BoxRef && a[0].tag == Tag::Box) {
    Value v = readBox(g, a[0].i);
    if (v.tag != Tag::Unset) return Outcome::of(v);
  }
  return applyPrim(rt_, store_, g.set, id, a, argc);
}

bool BatchMachine::enter(Group& g, Value f, int32_t& block, int32_t& pc, int32_t& base, int32_t& env, Outcome& result) {
  auto applyPrim = [&](int id, const Value* a, int argc) { result = primCall(g, id, a, argc); };
  if (!instr::resolveClosure(rt_, f, args_, FirstLane{rt_, store_, g.set}, applyPrim)) return false;
  instr::openFrame(rt_, g_.blocks[static_cast<size_t>(f.code)], g.stack, base, g.frames.size(), args_);
  block = static_cast<int32_t>(f.code);
  pc = 0;
  env = f.i;
  return true;
}

// A call instruction: enters a closure, or applies a primitive and delivers its value (splitting
// the group when lanes disagree). False when the group has ended or split.
bool BatchMachine::callAt(Group& g, const Instr& in) {
  bool tail = in.op == Op::TailCall || in.op == Op::TailApply;
  Value* s = g.stack.data() + g.base;
  Value f = s[in.a];
  if (!library_[static_cast<size_t>(g.block)]) g.userCallBlock = g.block, g.userCallPc = g.pc;
  instr::gatherArguments(rt_, in, s, args_, FirstLane{rt_, store_, g.set});
  Frame saved{g.block, g.pc + 1, g.base, g.env, in.dst};
  int32_t nbase = tail ? g.base : g.base + g_.blocks[static_cast<size_t>(g.block)].nslots;
  int32_t cb = g.block, cpc = g.pc, cenv = g.env;
  Outcome result;
  if (!enter(g, f, cb, cpc, nbase, cenv, result)) {
    Completion c{tail, in.dst};
    if (result.classes.empty()) return complete(g, result.value, c);
    splitAt(g, result, c);
    return false;
  }
  if (!tail) g.frames.push_back(saved);
  g.block = cb, g.pc = cpc, g.base = nbase, g.env = cenv;
  return true;
}

void BatchMachine::loop(Group& g) {
  int32_t& block = g.block;
  int32_t& pc = g.pc;
  int32_t& base = g.base;
  int32_t& env = g.env;
  const uint64_t maxSteps = rt_.budget().steps;
  for (;;) {
    const Instr& in = g_.blocks[static_cast<size_t>(block)].code[static_cast<size_t>(pc)];
    if (++g.steps > maxSteps) rt_.budgetExceeded("steps");
    if ((++stats_.steps & 0xFFFF) == 0 && rt_.outOfTime()) rt_.budgetExceeded("time");
    Value* s = g.stack.data() + base;
    switch (in.op) {
      case Op::Const:
        s[in.dst] = consts_[static_cast<size_t>(in.a)];
        break;
      case Op::Move:
        s[in.dst] = s[in.a];
        break;
      case Op::Env:
        s[in.dst] = rt_.heap[static_cast<size_t>(env + in.a)];
        break;
      case Op::Param:
        s[in.dst] = params_[static_cast<size_t>(in.a)];
        break;
      case Op::PrimRef:
        s[in.dst] = Value::make(Tag::Prim, in.a);
        break;
      case Op::Prim:
      case Op::Prim1:
      case Op::Prim2: {
        int argc = in.op == Op::Prim ? in.c : in.op == Op::Prim1 ? 1 : 2;
        instr::primArity(prim(in.a), argc);
        Value two[2];
        if (in.op != Op::Prim) two[0] = s[in.b];
        if (in.op == Op::Prim2) two[1] = s[in.c];
        Outcome o = primCall(g, in.a, in.op == Op::Prim ? s + in.b : two, argc);
        if (!o.classes.empty()) return splitAt(g, o, {false, in.dst});
        complete(g, o.value, {false, in.dst});
        continue;
      }
      case Op::Closure:
        s[in.dst] = instr::makeClosure(rt_, in, s);
        break;
      case Op::Sibling:
        s[in.dst] = Value::make(Tag::Closure, env, in.a);
        break;
      case Op::Call:
      case Op::Apply:
      case Op::TailCall:
      case Op::TailApply:
        if (!callAt(g, in)) return;
        continue;
      case Op::Return:
        if (!complete(g, s[in.a], {true, 0})) return;
        continue;
      case Op::Jump:
        pc = in.a;
        continue;
      case Op::JumpIfFalse:
        if (s[in.a].isFalse()) {
          pc = in.b;
          continue;
        }
        break;
      case Op::BoxNew:
        s[in.dst] = instr::newBox(rt_);
        break;
      case Op::BoxSet:
        writeBox(g, s[in.a].i, s[in.b]);
        break;
      case Op::BoxGet:
        s[in.dst] = instr::boxContent(g_, in, readBox(g, s[in.a].i));
        break;
      case Op::Unbound:
        instr::unbound(g_, in.a);
    }
    ++pc;
  }
}

}  // namespace dmci::lanes
