// The state of one evaluation: the single-assignment heap, tensors, strings,
// the reverse-mode tape and the budgets. Primitives and engines share it.
//
// Everything here is bump-allocated and freed at once by reset(), like Stan
// Math's arena: there is no per-node heap allocation on the hot path.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/Value.h"
#include "syntax/Error.h"

namespace dmci {

class TraceSink;

// Interned symbols, shared by all runs and threads (ids are stable).
int32_t internSymbol(const std::string& name);
const std::string& symbolName(int32_t id);

// Limits that stop a runaway program with a Budget error.
struct Budget {
  uint64_t steps = 200'000'000;     // instructions executed
  uint64_t heapCells = 64'000'000;  // heap cells + frame-stack slots + tape entries
  double seconds = 60.0;            // wall time
};

// One record per differentiable operation. A scalar op (op == -1) is
// out += pa*a + pb*b in the backward sweep; a tensor op (op >= 0) calls the
// adjoint rule of the primitive recorded in tensorOps[op].
struct TapeEntry {
  int32_t out;
  int32_t a;
  int32_t b;
  int32_t op;
  double pa;
  double pb;
};

struct TensorOp {
  int32_t prim;
  int32_t argc;
  Value in[3];
  Value out;
};

// A dense row-major matrix; a vector is cols == 1 with rank 1. `slot` is the
// first of rows*cols consecutive tape slots, or -1 for a constant tensor.
struct TensorRec {
  int32_t rank;
  int32_t rows;
  int32_t cols;
  int32_t slot;
  size_t data;  // offset into Runtime::tensorData
  int32_t size() const { return rows * cols; }
};

class Runtime {
 public:
  explicit Runtime(Budget b = {}) : budget_(b) {}

  void reset();  // frees heap, tape, tensors and strings; keeps capacity

  // A point to return to: what was built before it (a program's data, the
  // evaluator's analysis of it, the leaves) survives resetTo(); what was
  // built after it, one evaluation's heap and tape, is freed.
  struct Mark {
    size_t heap, strings, tensors, tensorData, tape, tensorOps, cellPos;
    int32_t nslots;
  };
  Mark mark() const {
    return {heap.size(), strings.size(),   tensors.size(), tensorData.size(),
            tape.size(), tensorOps.size(), cellPos.size(), nslots_};
  }
  void resetTo(const Mark& m);
  const Budget& budget() const { return budget_; }
  void setBudget(const Budget& b) { budget_ = b; }

  // --- heap (single-assignment, append-only) ---
  int32_t alloc(int32_t n);  // n fresh cells, Unset; throws Budget when the heap is full
  Value cons(const Value& a, const Value& d) {
    int32_t at = alloc(2);
    heap[at] = a;
    heap[at + 1] = d;
    return Value::make(Tag::Pair, at);
  }
  const Value& car(const Value& p) const { return heap[p.i]; }
  const Value& cdr(const Value& p) const { return heap[p.i + 1]; }
  // A vector of n elements in consecutive cells (xs may point into the heap: it is copied first).
  Value vector(const Value* xs, int32_t n) {
    std::vector<Value> copy(xs, xs + n);
    int32_t at = alloc(n);
    for (int32_t k = 0; k < n; ++k) heap[static_cast<size_t>(at + k)] = copy[static_cast<size_t>(k)];
    return Value::make(Tag::Vector, at, n);
  }
  const Value& vectorRef(const Value& v, int32_t k) const { return heap[static_cast<size_t>(v.i + k)]; }
  std::vector<Value> heap;
  // The machine collects the heap cells a run allocated once this many more
  // have been allocated since the last collection (0: never collect).
  size_t collectAfter = size_t{1} << 20;

  // --- strings ---
  Value string(const std::string& s);
  std::vector<std::string> strings;

  // --- tensors ---
  Value newTensor(int32_t rank, int32_t rows, int32_t cols);  // data zeroed, constant
  TensorRec& tensor(const Value& t) { return tensors[t.i]; }
  double* tdata(const Value& t) { return tensorData.data() + tensors[t.i].data; }
  const TensorRec& tensor(const Value& t) const { return tensors[t.i]; }
  const double* tdata(const Value& t) const { return tensorData.data() + tensors[t.i].data; }
  std::vector<TensorRec> tensors;
  std::vector<double> tensorData;

  // --- tape ---
  bool taping = true;  // false: forward only, nothing recorded
  int32_t newSlot() { return nslots_++; }
  int32_t newSlots(int32_t n) {
    int32_t s = nslots_;
    nslots_ += n;
    return s;
  }
  int32_t numSlots() const { return nslots_; }
  Value leaf(double x) { return Value::real(x, newSlot()); }
  // Result of a unary scalar op with local partial d(y)/d(x).
  Value unary(double y, const Value& x, double dydx) {
    if (!x.isActive() || !taping) return Value::real(y);
    int32_t s = newSlot();
    pushTape({s, x.i, -1, -1, dydx, 0.0});
    return Value::real(y, s);
  }
  // Result of a binary scalar op with local partials.
  Value binary(double y, const Value& a, double pa, const Value& b, double pb) {
    bool aa = a.isActive(), ba = b.isActive();
    if ((!aa && !ba) || !taping) return Value::real(y);
    int32_t s = newSlot();
    pushTape({s, aa ? a.i : -1, ba ? b.i : -1, -1, pa, pb});
    return Value::real(y, s);
  }
  // Records a tensor op whose adjoint rule is the primitive's; gives `out` tape slots.
  void recordTensorOp(int32_t prim, const Value* in, int32_t argc, Value& out);
  void pushTape(const TapeEntry& e) {
    if (tape.size() >= budget_.heapCells) budgetExceeded("tape");
    tape.push_back(e);
  }
  std::vector<TapeEntry> tape;
  std::vector<TensorOp> tensorOps;

  // The reverse sweep: returns d(output)/d(slot) for every slot, seeding `out`
  // (a scalar, or every element of a tensor) with adjoint 1.
  std::vector<double> backward(const Value& out);
  // The same into `adj` (resized and cleared), so repeated runs reuse one buffer.
  void backward(const Value& out, std::vector<double>& adj);

  // --- trace recording (trace/Recorder.h): told of every primitive the machine applies; null: off ---
  TraceSink* trace = nullptr;

  // --- budgets ---
  [[noreturn]] void budgetExceeded(const char* what) const;
  void startClock() { start_ = std::chrono::steady_clock::now(); }
  bool outOfTime() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > budget_.seconds;
  }
  uint64_t cellsInUse() const { return heap.size() + tape.size(); }

  // --- positions in the user's program, for errors raised through mce.scm ---
  std::vector<std::pair<int32_t, SrcPos>> cellPos;  // heap address of a materialised pair -> its source
  int32_t userLo = 0, userHi = 0;                   // heap range holding the user's program as data
  std::vector<uint8_t> userCell;                    // [addr - userLo]: a node of the user's own source
  int32_t userNode = -1;                            // the user's expression being applied (mce.scm's %at)
  SrcPos positionOf(int32_t cell) const;
  bool isUserNode(const Value& v) const {
    return v.tag == Tag::Pair && v.i >= userLo && v.i < userHi && userCell[static_cast<size_t>(v.i - userLo)];
  }

  // --- display, for error messages and results ---
  std::string show(const Value& v, int depth = 0) const;

 private:
  Budget budget_;
  int32_t nslots_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Throws a Type error naming the primitive, the argument and what was expected.
[[noreturn]] void wrongType(const Runtime& rt, const char* prim, int argIndex, const Value& got, const char* expected);

}  // namespace dmci
