// Canonical keys: one law, one candidate. The search scores a structure once; two programs that are the same
// function of the data, (* a (/ x y)) and (/ (* x a) y), (+ t t) and (* 2 t), (* t t) and (square t), must have
// one key. A computer algebra system decides that: the plugin dmci-canon-ginac.so (search/ginac/) turns an
// arithmetic candidate (+ - * / expt square sqrt exp log sin cos tanh atan abs over numbers and names) into
// GiNaC's expanded normal form and prints it with its operands sorted. Without the plugin, or for a candidate it
// does not translate (a let, an if, min), the key is the S-expression hash (Expr.h's canonicalHash).
//
// The plugin is opened on the first key asked for (`dmci` starts without it), and called under one lock: GiNaC's
// objects are not safe to share between threads.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "search/Expr.h"

namespace dmci::search {

// A canonical text of the value expression `e`, or nullopt when the translator does not take it. `digits` 0: every
// non-integer literal is one abstract constant (the literals are fitted: their values do not make a structure);
// else literals are written to that many significant digits.
using CanonicalTranslator = std::optional<std::string> (*)(const Expr& e, int digits);

// A plugin registers its translator from a static initialiser.
void registerCanonicalTranslator(const std::string& name, CanonicalTranslator translate);

// Which keys the search uses: "ginac" (the plugin, when it is there: else the hash) or "hash".
enum class CanonKind { Ginac, Hash };

struct CanonicalKey {
  uint64_t key = 0;
  bool algebraic = false;  // the translator's key, not the hash's
};

// The key of `e`. `digits` as the translator's (0: literals abstract); `hashDigits`: the hash's bucketing.
CanonicalKey canonicalKey(const Expr& e, CanonKind kind, int digits, int hashDigits);

// The translator's text of `e` (nullopt without the plugin, or when it does not take `e`): the tests' way in.
std::optional<std::string> canonicalAlgebraText(const Expr& e, int digits);

// "ginac" when the plugin is loaded, else why not.
std::string canonicalBackend();

}  // namespace dmci::search
