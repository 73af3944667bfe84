// The batch benches' programs and their lanes, one list for every bench that compares engines on them
// (batch_bench: the tensor engine; replay_bench: native, tensor and replay side by side).
//   alpha_x2   `(* alpha (* x x))`: lanes differ in x only (one control path)
//   poly3      recursive `poly` (n = 3), Horner's rule: one control path
//   divergent  lanes differ in recursion depth (8 depths) and in the branch taken
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dmci::bench {

struct Case {
  std::string name;
  std::string source;
  std::vector<std::string> params;
  // The value of parameter k in lane l of B.
  double (*value)(size_t k, int64_t l, int64_t b);
};

inline double sameControl(size_t k, int64_t l, int64_t b) {
  return k == 0 ? 1.5 : 0.5 + static_cast<double>(l) / static_cast<double>(b);
}
inline double divergent(size_t k, int64_t l, int64_t b) {
  return k == 0 ? static_cast<double>(l % 8) : 0.9 + 0.2 * static_cast<double>(l) / static_cast<double>(b);
}

inline const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"alpha_x2", "(* alpha (* x x))", {"alpha", "x"}, sameControl},
      {"poly3",
       "(define (poly x n) (if (= n 0) alpha (+ (* x (poly x (- n 1))) alpha)))\n(poly x 3)",
       {"alpha", "x"},
       sameControl},
      {"divergent",
       "(define (f n acc) (if (< n 0.5) acc (f (- n 1) (* acc x))))\n(if (< x 1) (f n 1) (- (f n 2) x))",
       {"n", "x"},
       divergent},
  };
  return c;
}

}  // namespace dmci::bench
