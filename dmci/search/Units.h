// Dimensional analysis (dmci search --units FILE), as AI Feynman does it: a stage before the search that makes
// the problem smaller when the user says what units each column carries. A law between physical quantities
// cannot depend on the units they are written in, so (Buckingham's Π theorem) y = M(x) g(π1, ..., πk), where M is
// a monomial of the inputs with exactly y's units and the πi are dimensionless monomials of the inputs, as many
// as the inputs less the rank of their units' exponent matrix. The search then looks for g over the groups
// (fewer variables, no units left to get right) on the target y / M, and every program it reports is written back
// in the user's variables: (* M g) with each group replaced by its product of powers.
//
//   units file   a CSV: a header `name,DIM,...` (a column named `Units` or `description` is free text and
//                ignored; AI Feynman's units.csv reads as it is), then one row per name: the exponent of each base
//                unit, an integer or a fraction p/q. Blank rows and lines starting with '#' are skipped; names the
//                search does not use are ignored. Errors are at file:line:col.
//   monomial     the target's units solved over the inputs' exponents in exact rational arithmetic: the
//                solution with the fewest inputs, then the fewest fractional exponents, then the smallest
//                exponents, then the earliest inputs
//   groups       a basis of the nullspace of the exponent matrix in small integers: single dimensionless inputs
//                first, then ratios of two inputs (the monomial's input below), then products of three with
//                exponents up to 2 in size, and, for what those do not span, the reduced row echelon basis; then
//                each ratio turned the way up it mostly stays below 1 on the training rows (orientGroups)
//   transform    the reduced table (each group a column, the target divided by M) over the same rows, so the
//                held-out rows, the groups of --group and every error's place in the data stay as they were
//
// The loop (Search.h) is run unchanged on the reduced task; its result's programs are rewritten and re-scored on
// the user's data (no refit: the constants are the search's). The front, its pick and the history are the
// search's on the groups.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fit/DataTable.h"
#include "search/Search.h"

namespace dmci::search {

// An exact fraction (num/den, den > 0, in lowest terms); arithmetic throws std::overflow_error past 64 bits.
struct Rational {
  int64_t num = 0, den = 1;
  Rational() = default;
  Rational(int64_t n, int64_t d = 1);  // NOLINT: an integer is a fraction
  bool isZero() const { return num == 0; }
  bool isInteger() const { return den == 1; }
  double value() const { return static_cast<double>(num) / static_cast<double>(den); }
  std::string str() const;  // "3", "-1/2"
  friend Rational operator+(Rational a, Rational b);
  friend Rational operator-(Rational a, Rational b);
  friend Rational operator*(Rational a, Rational b);
  friend Rational operator/(Rational a, Rational b);
  friend Rational operator-(Rational a) { return Rational(-a.num, a.den); }
  friend bool operator==(Rational a, Rational b) { return a.num == b.num && a.den == b.den; }
  friend bool operator!=(Rational a, Rational b) { return !(a == b); }
};

struct UnitsRow {
  std::string name;
  std::vector<Rational> exponents;  // one per base unit (UnitsTable::dims)
  SrcPos pos;                       // the row's name cell
};

struct UnitsTable {
  std::string file;
  std::vector<std::string> dims;  // the base units, as the header names them
  std::vector<UnitsRow> rows;
  const UnitsRow* find(const std::string& name) const;
};

// Reads a units file (the format above); `file` names it in errors.
Result<UnitsTable> parseUnits(const std::string& text, const std::string& file);

// The exponent matrix's columns: units[i] is input i's exponent vector (every vector of one length).
using UnitVectors = std::vector<std::vector<Rational>>;

// Exponents p with sum_i p_i units[i] = target and the fewest nonzero p_i (then the fewest fractions, the least
// sum |p_i|, the earliest inputs); false when the target's units are no product of powers of the inputs'.
bool solveMonomial(const UnitVectors& units, const std::vector<Rational>& target, std::vector<Rational>& p);

// A basis of {e : sum_i e_i units[i] = 0} in integers (the order of preference above); `scale` marks the inputs of
// the monomial, which a ratio prefers below the line.
std::vector<std::vector<int64_t>> dimensionlessGroups(const UnitVectors& units, const std::vector<bool>& scale);

// The rank of the vectors (exact).
size_t rankOf(const UnitVectors& vectors);

struct Reduction {
  std::vector<std::string> vars;  // the user's variables, in order
  std::string target;
  std::vector<Rational> monomial;            // M's exponent of each variable
  std::vector<std::vector<int64_t>> groups;  // each group's exponent of each variable
  std::vector<std::string> groupNames;       // a group that is one variable keeps its name; else pi1, pi2, ...
  std::vector<std::string> dims;             // the units file's base units
  std::vector<Rational> targetUnits;
};

// The reduction of `target` over `vars` by the table: a variable or the target without a row is an error at the
// file's header, a target whose units no monomial of the variables carries one at the target's row. `taken`: names
// the groups must not take (the seed's parameters).
Result<Reduction> reduceUnits(const UnitsTable& table, const std::vector<std::string>& vars, const std::string& target,
                              const std::vector<std::string>& taken);

// Each ratio of two inputs written the way up it mostly takes values below 1 on `rows` (one whose median is above
// 1.5 is turned over: v/c rather than c/v, so that 1 - (v/c)^2 reads as it does in physics), and no group as 1/(...).
void orientGroups(Reduction& r, const fit::DataTable& data, const std::vector<size_t>& rows);

// M as a program (1 when it is empty), and a group as one.
Expr monomialExpr(const std::vector<std::string>& vars, const std::vector<Rational>& exponents);
// The reduction in words: "target = (* q1 q1 ...) * g(pi1 = (/ q2 q1), theta)".
std::string describe(const Reduction& r);

// The reduced table: each group's column, then the target divided by M; an error names the first row where a
// group or M is not finite or M is 0 (a variable at 0, or below 0 under a fractional power).
Result<fit::DataTable> reducedTable(const fit::DataTable& data, const Reduction& r);

// A candidate of the reduced search written in the user's variables: (* M value) with every group replaced. When
// the value is a square root, M's variables that its content reads go under it, squared, where that holds (an even
// power of M, or a variable in `positive`: positive on every row), so that the root reads as the law would write it.
Candidate expandCandidate(const Candidate& c, const Reduction& r, const std::set<std::string>& positive = {});

// Runs the search on the groups and returns its result in the user's variables: every member re-scored (without a
// fit) on `task`. The seed must read no variable but the groups (a seed of parameters alone, as usual).
Result<SearchResult> runSearchWithUnits(const Task& task, const SearchSettings& settings, const Candidate& seed,
                                        const Reduction& r, const SearchEvents& events = {});

}  // namespace dmci::search
