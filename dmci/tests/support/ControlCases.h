// Test support: the standard examples of shift and reset, with their values, shared by every engine's tests.
#pragma once
#include <string>
#include <vector>

#include "driver/Options.h"

namespace dmci::test {

struct ControlCase {
  const char* name;
  std::string src;
  std::vector<SeedValue> seed;
  double value;
};

inline const std::vector<ControlCase> kControlCases = {
    {"called_twice_nested", "(+ 1 (reset (* 2 (shift k (k (k 10))))))", {}, 41},
    {"called_zero_times", "(+ 1 (reset (* 2 (shift k 5))))", {}, 6},
    {"called_twice_summed", "(reset (+ 1 (shift k (+ (k 1) (k 2)))))", {}, 5},
    {"no_shift", "(reset (+ 1 2))", {}, 3},
    {"nested_inner", "(+ 1 (reset (+ 10 (reset (* 2 (shift k (k (k 3))))))))", {}, 23},
    {"nested_inner_aborts", "(reset (+ 1 (reset (+ 10 (shift k 100)))))", {}, 101},
    {"nested_shift_in_shift", "(reset (+ 1 (shift k (+ 10 (shift j (j (k 100)))))))", {}, 111},
    {"through_a_procedure", "(define (f x) (shift k (k (k x))))\n(reset (+ 1 (f 5)))", {}, 7},
    {"escapes_its_reset", "(define k1 (reset (+ 1 (shift k k))))\n(k1 (k1 5))", {}, 7},
    {"forward_reference", "(define (f) (* 2 s))\n(define s (reset (+ 1 (shift k (k (k 1))))))\n(f)", {}, 6},
    {"first_order_helper", "(define (sq v) (* v v))\n(reset (+ (sq 3) (shift k (k (k 1)))))", {}, 19},
    {"first_order_helper_as_a_value",
     "(define (sq v) (* v v))\n(reset (apply + (map sq (list 1 (shift k (k 2))))))",
     {},
     5},
    {"in_a_define", "(reset (define a (* 2 (shift k (k (k 3))))) (+ a 1))", {}, 15},
    {"through_the_prelude", "(reset (fold-left + 0 (list 1 (shift k (* 10 (k 2))) 3)))", {}, 60},
    {"map_with_a_primitive", "(reset (apply + (map abs (list -1 (shift k (k -2)) 3))))", {}, 6},
    {"apply_as_a_value", "(let ((ap apply)) (reset (ap + 1 (list (shift k (k 2)) 3))))", {}, 6},
    {"parameter", "(reset (* x (shift k (k (k 2)))))", {{"x", 3.0}}, 18},
    {"loop_under_reset",
     "(reset (let loop ((i 0) (acc 0)) (if (= i 4) acc (loop (+ i 1) (+ acc (shift k (k i)))))))",
     {},
     6},
};

}  // namespace dmci::test
