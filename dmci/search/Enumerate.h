// Brute-force enumeration of small forms, a stage before the first generation (dmci search --enumerate SIZE), as
// AI Feynman brute-forces small formulas: many laws, and most laws of one or two dimensionless groups once
// --units has reduced them, are a constant times a short chain of simple functions of one variable, 1/sqrt(1 - p^2),
// 1/(1 - p), p/(e^p - 1), that evolution reaches only by luck and an enumeration reaches for a few hundred fits.
//
//   chains   outer(middle(inner(x))) for each variable x, each slot a template or nothing:
//              inner   x^2 (* x x), sqrt, 1/x (/ x), e^(k x) (exp (* k x)) with k fitted, log, sin, cos
//              middle  1 - t (- 1 t), 1 + t (+ 1 t)   (the 1 is a literal: it is fitted, c - t)
//              outer   1/t, sqrt, 1/sqrt (/ (sqrt t)), t^2, exp, log, asin, tanh
//            a chain's size is its templates; x times a chain (* x chain) is one more. Candidate programs are
//            (* C chain) with one fitted constant C. Order: by size, then by variable, then by the slots' places in
//            the lists above (middle, inner, outer); pairs that undo each other (sqrt of a square, log of an exp...)
//            are left out, and every other duplicate is dropped by its canonical key (search/Canon.h) by the caller.
//   pairs    with two variables or more, the stage's second batch: for each two variables, the `keep` best chains
//            of each (by score on the first batch: for independent inputs the best function of x alone is
//            the law's factor or term in x when the law separates, though noise from the other inputs may rank a
//            larger chain above it) multiplied, (* C f g), and
//            added, (+ (* C f) (* D g)).
//
//   sparse   before both, the sparse linear forms (search/Sparse.h): short sums and ratios of sums of products
//            of the variables, with the target transformed, their coefficients from a linear least-squares fit.
//
// Each form scored is one evaluation of the search's budget; the stage takes at most `limit` of them (the loop
// gives it 1,000 or a third of --evals, the smaller). Its best
// members seed the islands (the archive and the front take every one as the loop's own children). Everything is
// in a fixed order and scored in batches by the loop, so the stage is the same for any --jobs.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "search/Archive.h"
#include "search/Score.h"
#include "search/Sparse.h"

namespace dmci::search {

struct EnumerateSettings {
  int size = 4;        // the largest form (templates, plus one for x times a chain); 0: no enumeration
  int keep = 3;        // chains of each variable that the pairs combine
  uint64_t limit = 0;  // the most forms scored (0: no limit)
  int seeds = 12;      // the best members handed to the islands
  int sparse = 8;      // the largest sum of the sparse linear forms scored first (search/Sparse.h; 0: none)
};

// One chain: each slot's place in its list (0: empty), inner, middle, outer; `times` multiplies by the variable.
struct Chain {
  int inner = 0, middle = 0, outer = 0;
  bool times = false;
  int size() const { return (inner > 0) + (middle > 0) + (outer > 0) + (times ? 1 : 0); }
};

// The slots' templates by name, in order (index 0 is the empty slot, "").
const std::vector<std::string>& innerTemplates();
const std::vector<std::string>& middleTemplates();
const std::vector<std::string>& outerTemplates();

// The chain applied to `x`, without the constant: (/ (sqrt (- 1 (* x x)))); `rate` is where e^(k x)'s k starts.
Expr chainExpr(const Chain& c, const Expr& x, double rate = 1 + 0x1p-20);
// Where the rate k of e^(k x) starts for the variable `v`: 1/RMS(x) on the training rows (k x of order 1 over the
// data, where a fit from k = 1 may start at e^25 and never come back), off an integer by a hair so that its key is
// not the unscaled structure's.
double rateStart(const Task& task, const std::string& v);
// The chains up to `size`, in the stage's order, the pairs that undo each other left out.
std::vector<Chain> chainsUpTo(int size);

// The slope of log|y| on log|x| over the training rows, rounded (0 when it is above 3 in size, or fewer than ten rows
// have both logs): a law y = M g(x) whose scale M the units did not choose as the law writes it (m v² rather than
// m c², so g = x^-2/sqrt(1 - x²) with x = v/c) follows that power of x over the data, and x^p times a chain is the law.
int powerLawSlope(const Task& task, const std::string& v);

// The first batch: (* C chain) over every variable of `task`, in order, each C starting at `scale`; after each chain
// with the times slot, x^p times the chain when x's powerLawSlope p is neither 0 nor 1. `fresh` says
// whether a candidate's key is new (and records it); a repeated one is skipped. At most `limit` (0: all).
std::vector<Candidate> chainCandidates(const Task& task, const EnumerateSettings& e, double scale,
                                       const std::function<bool(const Candidate&)>& fresh);

// The second batch from the first's candidates and members (nullopt: failed): products and sums of each two
// variables' `keep` best chains.
std::vector<Candidate> pairCandidates(const Task& task, const EnumerateSettings& e, double scale,
                                      const std::vector<Candidate>& first,
                                      const std::vector<std::optional<Member>>& scored,
                                      const std::function<bool(const Candidate&)>& fresh, uint64_t limit);

// Scores a batch in the loop (one evaluation each, in order) and returns each candidate's member, or nullopt.
using ScoreBatch = std::function<std::vector<std::optional<Member>>(const std::vector<Candidate>&)>;

// The stage: both batches scored through `score`; returns the best `e.seeds` members (by score, then complexity,
// then order), which the loop hands to its islands. `params` travel with every candidate (the seed's).
std::vector<Member> enumerateStage(const Task& task, const EnumerateSettings& e,
                                   const std::map<std::string, double>& params,
                                   const std::function<bool(const Candidate&)>& fresh, const ScoreBatch& score);

}  // namespace dmci::search
