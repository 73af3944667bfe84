// Test and benchmark support: long generated programs, the text bench/gen_long_program.py writes.
//
// longDefines(n): n top-level defines in groups of four, the shapes generated code has, then one expression:
//   (define v<k> <1.5 + (k mod 7) * 0.25>)
//   (define (f<k> x) (+ x v<k>))
//   (define (g<k> x) (* 0.5 (f<k> (g<k-1> x))))          ; g<0> calls f<0> on x itself
//   (define w<k> (let ((y (f<k> 1))) (if (> y 2) (- y 1) y)))
//   (+ (g<K-1> 1) w<K-1> (fold-left + 0 (map f0 (list v0 w0))))
// longLetStar(n): (let* ((x0 1) (x1 (+ x0 1)) ...) x<n-1>), whose value is n.
#pragma once
#include <string>

namespace dmci::test {

// v<k> as the generator writes it.
inline const char* longDefinesConstant(int k) {
  static const char* const kText[] = {"1.5", "1.75", "2.0", "2.25", "2.5", "2.75", "3.0"};
  return kText[k % 7];
}

// The program of `forms` defines, rounded down to whole groups of four (at least one).
inline std::string longDefines(int forms) {
  int groups = forms / 4 > 0 ? forms / 4 : 1;
  std::string s;
  s.reserve(static_cast<size_t>(groups) * 160);
  for (int k = 0; k < groups; ++k) {
    std::string n = std::to_string(k);
    std::string inner = k > 0 ? "(g" + std::to_string(k - 1) + " x)" : "x";
    s += "(define v" + n + " " + longDefinesConstant(k) + ")\n";
    s += "(define (f" + n + " x) (+ x v" + n + "))\n";
    s += "(define (g" + n + " x) (* 0.5 (f" + n + " " + inner + ")))\n";
    s += "(define w" + n + " (let ((y (f" + n + " 1))) (if (> y 2) (- y 1) y)))\n";
  }
  std::string last = std::to_string(groups - 1);
  s += "(+ (g" + last + " 1) w" + last + " (fold-left + 0 (map f0 (list v0 w0))))\n";
  return s;
}

// The value of longDefines(forms), computed as the program computes it.
inline double longDefinesValue(int forms) {
  int groups = forms / 4 > 0 ? forms / 4 : 1;
  auto v = [](int k) { return std::stod(longDefinesConstant(k)); };
  double g = 1;
  for (int k = 0; k < groups; ++k) g = 0.5 * (g + v(k));
  double w = v(groups - 1);  // f<k> 1 = 1 + v<k> > 2, so w<k> = v<k>
  return g + w + (0 + (v(0) + v(0)) + (v(0) + v(0)));
}

inline std::string longLetStar(int bindings) {
  std::string s = "(let* ((x0 1)\n";
  for (int i = 1; i < bindings; ++i) s += "       (x" + std::to_string(i) + " (+ x" + std::to_string(i - 1) + " 1))\n";
  s += "       )\n  x" + std::to_string(bindings - 1) + ")\n";
  return s;
}

}  // namespace dmci::test
