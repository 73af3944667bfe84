// The built-in proposer: a weighted menu of typed edits of a candidate's value expression, as PySR mutates its
// trees. It needs nothing outside the process and is deterministic from the random engine it is given.
//
//   constant   a literal (or a named parameter) scaled by 1 + s·N(0,1), s drawn from 1 ... 1e-6; sometimes negated
//   operator   an operator replaced by another of the same arity from the grammar's operators
//   swap       two operands of an operator exchanged
//   add        a leaf wrapped in a new operator: (op leaf t), (op t leaf) or (op leaf)
//   insert     the same around any node
//   delete     an operator replaced by one of its operands
//   subtree    any node replaced by a random tree over the variables, parameters and operators
//   crossover  any node replaced by a subtree of a second parent
//   simplify   constant folding and the identities x·1, x+0, x-0, x/1, x^1
//
// Edits enter only operator nodes (lists headed by a known operator); any other form (a let, a lambda, an if) is
// one opaque leaf. Every child is simplified (so that no constant subtree spends the size limit); a result over
// the size or depth limit, or equal to its parent, is drawn again.
#pragma once
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "search/Expr.h"

namespace dmci::search {

struct Grammar {
  std::vector<std::string> vars;    // the data columns a program may read
  std::vector<std::string> params;  // named parameters a program may use
  std::vector<std::string> ops;     // the operators edits may introduce
  int maxSize = 30, maxDepth = 10;
};

// The arity an edit gives a known operator (1 or 2), or 0 for a name that is not one.
int operatorArity(const std::string& name);
// The operators edits know, for messages.
std::string knownOperators();

struct Proposal {
  Candidate candidate;
  std::string edit;  // the edit's name
};

class BuiltinProposer {
 public:
  // Without gradients constants change only by edits, so the constant edit is drawn more often.
  BuiltinProposer(Grammar grammar, bool gradient);
  // A child of `parent`; `other` is the second parent of a crossover.
  Proposal propose(const Candidate& parent, const Candidate& other, std::mt19937_64& rng) const;
  // One edit by name on `parent` (nullopt when it does not apply): the tests' way in.
  std::optional<Candidate> edit(const std::string& name, const Candidate& parent, const Candidate& other,
                                std::mt19937_64& rng) const;
  // The edits' names, in menu order.
  static const std::vector<std::string>& editNames();
  const Grammar& grammar() const { return g_; }

 private:
  Grammar g_;
  std::vector<double> weights_;
  Expr terminal(std::mt19937_64& rng) const;
  Expr randomTree(int depth, std::mt19937_64& rng) const;
  Expr wrap(Expr node, std::mt19937_64& rng) const;
};

// Constant folding and identities, bottom-up; true when anything changed.
bool simplify(Expr& e);

}  // namespace dmci::search
