// The oracle's evaluator: a recursive tree-walker over the resolved core AST,
// templated on the number type, that records every discrete decision it takes.
//
// A decision is a primitive whose result depends on its numeric arguments in
// steps: a comparison (a branch threshold), abs, min, max, floor and the like
// (kinks), and integer arguments such as list indices (discrete arguments).
// The seed run records them. A perturbed run *replays* them: each decision
// takes the seed's outcome, so the run follows the seed's path and its finite
// difference is the derivative along that path (what reverse mode computes),
// and each decision whose own outcome would have differed is noted as a flip.
// A flip puts the seed on a branch threshold or a kink, unless it only shows a
// coordinate being used as an integer (FiniteDifference.cpp decides which).
#pragma once
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oracle/Resolve.h"
#include "oracle/Values.h"

namespace dmci::oracle {

enum class DecisionKind { Branch, Kink, Discrete };

// How close a decision came to another outcome: the smallest gap between two numbers it compared
// (an argument and a threshold, say), that pair, and the size of what it compared.
template <class Num>
struct Closeness {
  Num margin = std::numeric_limits<double>::quiet_NaN();  // NaN: it compared no numbers
  Num scale = 0;                                          // the largest magnitude it saw
  bool integral = false;                                  // the closest pair were integers

  void see(const Num& a, const Num& b) {
    using std::abs;
    using std::isnan;
    Num gap = abs(a - b);
    if (isnan(margin) || gap < margin) margin = gap, integral = isInteger(a) && isInteger(b);
    if (abs(a) > scale) scale = abs(a);
    if (abs(b) > scale) scale = abs(b);
  }
  static Closeness between(const Num& a, const Num& b) {
    Closeness c;
    c.see(a, b);
    return c;
  }
};

template <class Num>
struct Decision {
  const CoreExpr* site;  // the application
  const char* prim;      // the primitive's name
  DecisionKind kind;
  Num outcome;   // a truth value as 0 or 1, a sign, an index, or an integer result
  Num argument;  // the (first) argument, for the reason
  Closeness<Num> close;
};

// The program's value: a number, or a tensor and the sum of its entries.
template <class Num>
struct Output {
  bool isTensor = false;
  int rank = 0, rows = 0, cols = 0;
  std::vector<Num> data;
  Num total = 0;
};

template <class Num>
class Interpreter;

// One application of a primitive, as its implementation sees it.
template <class Num>
struct PrimCall {
  Interpreter<Num>& in;
  const CoreExpr* site;
  const char* name;
  const std::vector<Value<Num>>& args;

  int argc() const { return static_cast<int>(args.size()); }
  const Value<Num>& operator[](int k) const { return args[static_cast<size_t>(k)]; }
  Heap<Num>& heap() const;
  // "name: argument k+1 must be <expected>, got <value>", a Type error.
  [[noreturn]] void wrongType(int k, const char* expected) const;
  const Num& number(int k) const;  // argument k, which must be a number
  // A decision (see above): the outcome to act on. `natural` is this run's own
  // outcome, or nullopt when the arguments admit none (then, when recording,
  // the primitive must have raised its error already).
  Num decide(DecisionKind kind, const std::optional<Num>& natural, const Closeness<Num>& close,
             const Num& argument) const;
};

template <class Num>
using PrimFn = Value<Num> (*)(const PrimCall<Num>& c);

// The oracle's own implementation of each primitive, indexed by primitive-table id.
template <class Num>
struct PrimRegistry {
  std::vector<PrimFn<Num>> byId;
  void add(const char* name, PrimFn<Num> fn);
};

template <class Num>
void addScalarPrims(PrimRegistry<Num>& r);  // ScalarPrims.cpp
template <class Num>
void addListPrims(PrimRegistry<Num>& r);  // ListPrims.cpp
template <class Num>
void addTensorPrims(PrimRegistry<Num>& r);  // TensorPrims.cpp
template <class Num>
void addVectorPrims(PrimRegistry<Num>& r);  // VectorPrims.cpp
template <class Num>
void addTextPrims(PrimRegistry<Num>& r);  // TextPrims.cpp
template <class Num>
const PrimRegistry<Num>& primRegistry();
// Elementwise tensor arithmetic with scalar broadcast, for + - * / (TensorPrims.cpp).
template <class Num>
Value<Num> tensorElementwise(const PrimCall<Num>& c, char op, const Value<Num>& a, const Value<Num>& b);

// A value as the engines print it in error messages.
template <class Num>
std::string show(const Value<Num>& v);

// The random-rounding seed of run k of the runs seeded `seed` (roundingSpread, gradientRoundingSpread).
inline uint64_t roundingSeed(uint64_t seed, int k) {
  return seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(k) * 0xBF58476D1CE4E5B9ull;
}

template <class Num>
class Interpreter {
 public:
  // With `replay`, the seed run's decisions: this run takes their outcomes.
  Interpreter(const Prepared& program, const Budget& budget, std::vector<Num> params,
              const std::map<std::string, Num>& literals, const std::vector<Decision<Num>>* replay = nullptr);

  // Runs the program; throws DmciError.
  Output<Num> run();
  const std::vector<Decision<Num>>& trace() const { return trace_; }
  // The replayed decisions whose own outcome differed (the first kMaxFlips of them).
  const std::vector<size_t>& flips() const { return flips_; }
  static constexpr size_t kMaxFlips = 64;

  Heap<Num>& heap() { return heap_; }
  // Random rounding (CESTAC): every primitive's result that double cannot hold exactly is replaced by one of
  // the two doubles next to it, chosen at random, as a double evaluation with a random rounding direction
  // per operation would. Runs with different seeds show how far rounding can move the program's value.
  void setRandomRounding(uint64_t seed) { rounding_ = seed | 1; }
  // What random rounding added to each number a primitive returned (a tensor: each entry), in order; 0 where
  // the result was a double already.
  const std::vector<double>& roundingOffsets() const { return offsets_; }
  // Adds these offsets, recorded by a randomly rounded run on the same path (replaying the same decisions),
  // to the same results: the rounding errors frozen, so that the run is a smooth function of the parameters
  // and its finite difference is the gradient along the rounded run (what reverse mode in double computes).
  void addRoundingOffsets(const std::vector<double>* offsets) { frozen_ = offsets; }
  Num decide(const CoreExpr* site, const char* prim, DecisionKind kind, const std::optional<Num>& natural,
             const Closeness<Num>& close, const Num& argument);
  bool recording() const { return replay_ == nullptr; }

  static constexpr int kMaxDepth = 200'000;  // nested evaluations; deeper is a Budget error
  // An oracle cell (a pair, a frame slot, a decision) takes about ten times an engine's, and
  // nothing is collected during a run: the heap budget is capped at this many cells (~1.5 GB).
  static constexpr uint64_t kMaxCells = 8'000'000;

 private:
  const Prepared& program_;
  Budget budget_;
  std::vector<Num> params_;
  const std::map<std::string, Num>& literals_;
  const std::vector<Decision<Num>>* replay_;
  Heap<Num> heap_;
  std::vector<Decision<Num>> trace_;
  size_t next_ = 0;  // replay: the next decision
  std::vector<size_t> flips_;
  std::map<const CoreExpr*, Value<Num>> constants_;  // each Const built once per run
  uint64_t steps_ = 0;
  std::chrono::steady_clock::time_point start_;
  int depth_ = 0;
  // The innermost application in the user's program being evaluated: an error raised in library code (the
  // prelude, the code the control conversion adds) is reported there, as the engines do.
  const CoreExpr* userSite_ = nullptr;
  const SrcPos& reported(const CoreExpr* site) const {
    return site->pos.inLibrary() && userSite_ ? userSite_->pos : site->pos;
  }
  uint64_t rounding_ = 0;                        // random rounding's generator state (0: off)
  std::vector<double> offsets_;                  // what random rounding added, per numeric result
  const std::vector<double>* frozen_ = nullptr;  // offsets to add instead (addRoundingOffsets)
  size_t nextOffset_ = 0;

  bool coin();
  Num roundRandomly(const Num& x);
  Value<Num> roundRandomly(const Value<Num>& v);
  Num addFrozenOffset(const Num& x);
  template <class F>
  Value<Num> eachNumber(const Value<Num>& v, F f);

  Value<Num> eval(const CoreExpr* e, Frame<Num>* env);
  void tick(const CoreExpr* e);
  Value<Num> constant(const CoreExpr* e);
  Value<Num> datum(const Datum& d);
  Value<Num> lookup(const CoreExpr* e, Frame<Num>* env) const;
  Value<Num> evalArgs(const CoreExpr* e, Frame<Num>* env, std::vector<Value<Num>>& args);
  void spreadApply(const CoreExpr* site, Value<Num>& f, std::vector<Value<Num>>& args);
  Frame<Num>* bind(const CoreExpr* site, const Closure<Num>& c, std::vector<Value<Num>>& args);
  Value<Num> callPrimitive(const CoreExpr* site, int id, const std::vector<Value<Num>>& args);
  Output<Num> output(const Value<Num>& v) const;
};

}  // namespace dmci::oracle
