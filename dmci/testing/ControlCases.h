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
    {"used_early_but_never_called",
     "(define (f) (if #f (g) 1))\n(define a (f))\n(define (g) 2)\n(reset (+ a (g)))",
     {},
     3},
    // A continuation re-entering a define's initialiser defines the variable again, as set! does in Racket's
    // letrec*: every procedure of the group sees the newest value.
    {"reentered_define", "(reset (define a (shift k (+ (k 1) (k 2)))) (* a 10))", {}, 30},
    {"reentered_define_a_procedure_uses",
     "(reset (define a (shift k (+ (k 1) (k 2)))) (define (g) a) (* (g) 10))",
     {},
     30},
    {"reentered_define_read_by_a_procedure_made_before",
     "(reset (define (get) a) (define a (shift k (+ (k 1) (k 2)))) (get))",
     {},
     3},
    {"reentered_define_in_a_lambda_body",
     "(define (f) (define a (shift k (+ (k 1) (k 2)))) (define (g) a) (* (g) 10))\n(reset (f))",
     {},
     30},
    {"reentered_after_its_reset_returned",
     "(define k1 (reset (define a (shift k k)) (define (g) a) (* 10 (g))))\n(+ (k1 1) (k1 2))",
     {},
     30},
    {"loop_under_reset",
     "(reset (let loop ((i 0) (acc 0)) (if (= i 4) acc (loop (+ i 1) (+ acc (shift k (k i)))))))",
     {},
     6},
};

// A program whose error must not change when it is converted: `plain()` has no shift or reset, `converted()` is
// the same program with `call` under a reset (padded so that every position is the same in both), and
// `convertedOutside()` has a reset after it, so that it is converted with `call` outside any reset.
struct SameErrorCase {
  const char* name;
  std::string before, call, after;
  std::string plain() const { return before + "       " + call + " " + after; }
  std::string converted() const { return before + "(reset " + call + ")" + after; }
  std::string convertedOutside() const { return plain() + "\n(reset 0)"; }
};

// A converted procedure takes two parameters more than its source (its continuation and a flag): arity errors
// still count the source's.
inline const std::vector<SameErrorCase> kArityCases = {
    {"procedure_as_a_value", "(define (f x) (list x))\n(define g f)\n", "(g 1 2)", ""},
    {"lambda", "", "((lambda (x) (list x)) 1 2)", ""},
    {"variadic_lambda", "", "((lambda (x . r) (list x r)))", ""},
    {"through_apply", "(define (f x) (list x))\n", "(apply f (list 1 2))", ""},
    {"through_the_prelude", "(define (f x) (list x))\n", "(map f (list 1 2) (list 3 4))", ""},
    {"primitive_as_a_value", "(let ((s sin))\n", "(s 1 2)", ")"},
    {"apply_as_a_value", "(let ((ap apply))\n", "(ap +)", ")"},
    {"in_an_internal_define_group", "(define (h)\n (define (f x) (list x))\n (define g f)\n ", "(g 1 2)", ")\n(h)"},
};

// A variable read before its definition, in a group the conversion sets in order: the unconverted error.
inline const std::vector<SameErrorCase> kBeforeDefinitionCases = {
    {"variable", "(define a b)\n(define b 1)\n", "a", ""},
    {"its_own", "(define a (begin a 1))\n", "a", ""},
    {"procedure_defined_later", "(define a (g))\n(define (g) 1)\n", "a", ""},
    {"through_a_procedure", "(define (h) (g))\n(define a (h))\n(define (g) 1)\n", "a", ""},
    {"through_a_closure_value", "(define h (let ((z 1)) (lambda () b)))\n(define a (h))\n(define b 1)\n", "a", ""},
    {"internal_defines", "", "(let ()\n (define a (g))\n (define (g) 1)\n a)", ""},
    {"in_a_lambda_body", "(define (f)\n (define a b)\n (define (g) a)\n (define b 1)\n (g))\n", "(f)", ""},
};

}  // namespace dmci::test
