// The search's candidate: a program as a plain S-expression tree that edits can take apart and put together,
// with what the search measures of it. A candidate is a list of top-level forms; the last one gives the
// program's value and is the one edited (definitions before it are kept as they are). Named parameters (the seed
// program's free names that are not data columns) travel with the candidate, each with its current value.
//
//   complexity      the node count of the value expression, as PySR counts: every atom is one node (an
//                   operator's node is its head: (* a (sin t)) has four)
//   canonical hash  a hash of the value expression with bound names renamed in order of appearance (_0, _1...),
//                   the operands of + and * sorted, and every literal bucketed to `digits` significant digits:
//                   two candidates with one hash are one structure, fitted or not, and are evaluated once.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "syntax/Error.h"

namespace dmci::search {

struct Expr {
  enum class Kind { Number, Symbol, List, Atom };  // Atom: any other datum (#t, a string), kept as written
  Kind kind = Kind::Number;
  double number = 0;
  std::string text;  // a symbol's name, an atom's written form
  std::vector<Expr> items;

  static Expr num(double x);
  static Expr sym(std::string name);
  static Expr list(std::vector<Expr> items);
  bool isNumber() const { return kind == Kind::Number; }
  bool isSymbol() const { return kind == Kind::Symbol; }
  bool isList() const { return kind == Kind::List; }
  // A list's head symbol, or "".
  const std::string& head() const;
  bool operator==(const Expr& o) const;
};

struct Candidate {
  std::vector<Expr> forms;               // at least one; the last gives the value
  std::map<std::string, double> params;  // named parameters and their values (fitted or mutated)
  // The expression edits change and the search measures: by default (-1) the last form, the program's value; with
  // `dmci search --edit NAME`, the index of the form (define (NAME ARG ...) BODY), whose BODY is edited while every
  // other form (an integrator, a recursion, a filter step) stays as written (editedForm).
  int edited = -1;
  const Expr& value() const { return edited < 0 ? forms.back() : forms[static_cast<size_t>(edited)].items.back(); }
  Expr& value() { return edited < 0 ? forms.back() : forms[static_cast<size_t>(edited)].items.back(); }
};

// The index of the form (define (NAME ARG ...) BODY) among `forms`, one body expression and plain argument
// names; else an error saying what is there instead (no such definition, a variable's, several body forms).
Result<int> editedForm(const std::vector<Expr>& forms, const std::string& name);
// The argument names of the edited definition (empty for the last form): what its body may read.
std::vector<std::string> editedArguments(const Candidate& c);

// Reads the forms of `text` (positions name `file`); a syntax error is at file:line:col.
Result<std::vector<Expr>> readForms(const std::string& text, const std::string& file);
std::string print(const Expr& e);
// The forms, one per line.
std::string printForms(const std::vector<Expr>& forms);

int complexity(const Expr& e);
int depth(const Expr& e);
// Every symbol in `e` (heads included), once each, in order of appearance.
std::vector<std::string> symbolsOf(const Expr& e);

// The canonical text behind the hash, and the hash itself (FNV-1a of the text).
std::string canonicalText(const Expr& e, int digits);
uint64_t canonicalHash(const Expr& e, int digits);

}  // namespace dmci::search
