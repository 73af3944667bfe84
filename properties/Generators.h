// RapidCheck generators of well-formed, terminating programs with seeds, and of bad input, for the properties.
//
// A program is one numeric expression over the seed parameters x and y, built
// from a depth budget that shrinks: arithmetic over the primitive table with
// domain-safe shapes (log and sqrt of (+ 1 (square e)), division by
// (+ 2 (square e))), let / let* / letrec, closures that capture parameters,
// higher-order calls (twice, compose, currying, map / fold with generated
// lambdas, primitives passed as values), recursion on a decreasing integer
// counter (non-tail, tail, do, mutual by internal defines), list building and
// consumption, and small tensor expressions. Each case carries tags saying
// which families it exercises, so campaigns can report the mix.
#pragma once
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "driver/Program.h"
#include "syntax/Datum.h"

namespace dmci::props {

// What a generated expression exercises (bits, combined over sub-expressions).
enum Tag : unsigned {
  kRecursive = 1u << 0,    // letrec / named let / do / mutual recursion on a counter
  kHigherOrder = 1u << 1,  // a procedure passed or returned as a value
  kList = 1u << 2,         // lists built and consumed
  kTensor = 1u << 3,       // vec / mat / dot / matvec ...
  kBinding = 1u << 4,      // let / let* / letrec of values
  kBranch = 1u << 5,       // if / cond on a comparison
  kKink = 1u << 6,         // abs / min / max
};
// Names of the set bits, e.g. {"recursive", "higher-order"}.
std::vector<std::string> tagNames(unsigned tags);

// One generated (program, seed) pair.
struct Case {
  std::string text;              // the program
  std::vector<SeedValue> seed;   // the free parameters it uses (x, y), with their values
  std::vector<std::string> wrt;  // every seed parameter
  bool wrtLiterals = false;      // also differentiate every numeric literal
  unsigned tags = 0;
  int depth = 0;       // nesting depth of the expression tree
  std::string family;  // the top-level form's family, e.g. "recursion/tail"
};

// A program and seed as text a person can rerun: the program, then `dmci grad` flags.
std::string describe(const Case& c);

// Well-formed, terminating cases; the depth budget grows with RapidCheck's size and shrinks.
rc::Gen<Case> genCase();
// The same with a fixed maximum depth (1..6).
rc::Gen<Case> genCase(int maxDepth);

// Bad input: random printable text, a soup of the language's tokens, and a
// generated program with an ill-typed expression ((car 1), (+ 'a 1), ...) in a random position.
rc::Gen<std::string> genRandomText();
rc::Gen<std::string> genTokenSoup();
rc::Gen<std::string> genIllTyped();

// Datums for the print -> read identity: numbers, symbols, strings with escapes,
// characters, booleans, proper and dotted lists, quote forms.
rc::Gen<DatumPtr> genDatum();

// A uniform integer in [lo, hi) whatever RapidCheck's size, shrinking towards lo (a choice among alternatives).
inline rc::Gen<int> pick(int lo, int hi) { return rc::gen::resize(100, rc::gen::inRange(lo, hi)); }

// One value of a generator outside a RapidCheck test: deterministic in (seed, size).
template <class T>
T sample(const rc::Gen<T>& g, uint64_t seed, int size) {
  return g(rc::Random(seed), size).value();
}

}  // namespace dmci::props
