// What an engine returns: one run's value and gradient, or B lanes' values and gradients, with the engine's
// counts. Every engine returns these two types, so the CLI, the gate, fuzzing and the benches read one shape.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "machine/Machine.h"  // RunStats
#include "syntax/Error.h"

namespace dmci {

// Counts an engine reports, by name, in the engine's own order: deterministic counts (instructions, tape
// entries, lane groups, torch operations) first, then times. `--stats` and the reports print them as they are.
// Names are string literals (static storage), and the store is fixed-size, so filling it allocates nothing.
struct Counters {
  static constexpr size_t kMax = 12;
  std::array<std::pair<const char*, double>, kMax> items{};
  size_t size = 0;
  // Appends a count (an engine fills a fresh Counters, each name once); beyond kMax it is dropped.
  void add(const char* name, double v) {
    if (size < kMax) items[size++] = {name, v};
  }
  // The count called `name`, or 0 when the engine does not report it.
  double get(const std::string& name) const;
  const std::pair<const char*, double>* begin() const { return items.data(); }
  const std::pair<const char*, double>* end() const { return items.data() + size; }
};

struct Evaluation {
  double value = 0;  // the program's value when a number (a tensor's: the sum of its entries)
  bool isTensor = false;
  std::vector<double> tensor;  // a tensor value's entries, row-major
  int rows = 0, cols = 0, rank = 0;
  // Any other value (a list, a boolean, a symbol, a string, a procedure): its written form as Scheme prints it
  // and as JSON text; both empty when the value is a number or a tensor. Only `dmci run` accepts such values:
  // a gradient needs a number.
  std::string written, json;
  bool isData() const { return !written.empty(); }
  std::vector<std::pair<std::string, double>> gradient;  // wrt names in order, then literals in source order
  RunStats stats;                                        // the native engine's
  uint64_t heapCells = 0;  // the native engine's, at the end of the run, after any collections
  uint64_t tapeEntries = 0;
  Counters counters;  // every engine's counts, by name
};

// B lanes: values per lane, the gradient by key then lane (a batch of 65,536 lanes costs a few vectors, not
// 65,536 small ones), and the engine's counts for the whole batch.
struct LaneEvaluation {
  std::vector<double> value;  // per lane (a tensor value: the sum of its entries)
  // When every lane's value is a tensor of one shape: that shape, and the entries lane after lane.
  bool isTensor = false;
  int rank = 0, rows = 0, cols = 0;
  std::vector<double> tensor;                 // [lane][row-major entry]
  std::vector<std::string> gradientKeys;      // as Evaluation::gradient's keys
  std::vector<std::vector<double>> gradient;  // [key][lane]
  Counters counters;
  size_t lanes() const { return value.size(); }
  // One lane's gradient, as Evaluation::gradient holds it.
  std::vector<std::pair<std::string, double>> laneGradient(size_t lane) const;
  // One lane as a single run's result (value, tensor entries and gradient; the batch's counters).
  Evaluation lane(size_t lane) const;
};

// The error for a value that must be a number or a tensor and is not (`shown` as error messages quote values),
// at the expression that gives it.
Error notANumberOrTensor(const std::string& shown, SrcPos pos);

// A lane's value shaped unlike lane 0's, in words ("a number", "a vector of 3", "a 2x2 matrix"): lanes of one batch
// share one shape. Every engine's lanes report it so (a sum would pass for a number).
std::string valueShape(bool isTensor, int rank, int rows, int cols);
Error laneShapeDiffers(const std::string& lane, const std::string& lane0, SrcPos pos);

}  // namespace dmci
