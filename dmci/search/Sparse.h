// Sparse linear forms, a batch of the enumeration stage (search/Enumerate.h): many laws are, after a simple
// transform of the target, a short sum of products of their inputs (a weighted sum x1 y1 + x2 y2 + x3 y3, a
// distance whose square is (x2 − x1)² + (y2 − y1)², a kinetic energy), or a ratio of two such sums (a weighted mean
// (m1 r1 + m2 r2)/(m1 + m2), the relativistic sum (u + v)/(1 + u v)). Evolution assembles sums of three or more
// groups only by luck and the chains of the enumeration never do; a least-squares fit over a basis of such terms
// finds them in one linear solve, as AI Feynman's polynomial fit does after its target transforms.
//
//   basis       1, every variable x, every product x z and square x², and for each variable its sin and cos and
//               those times each variable (x sin z, x cos z)
//   transforms  the target y fitted as it is (the form is the sum L), as y² (sqrt L), as 1/y (/ L), as log y
//               (exp L; only when y > 0 on every training row), as sin y (asin L; only when |y| <= π/2 on every
//               row: asin(n sin θ)); and the ratio y = P/(1 + Q) of two sums of the
//               monomials (degree ≤ 2, Q without its constant), fitted linearly as y = P − y Q; and, when y > 0
//               on every row, log y over the basis's monomials, their quotients (1/x, 1/x², x/z, x z/w, x z/w²)
//               and the log of each positive variable, eliminated from whole up to 64 columns: the log-linear
//               form y = C x^p z^q ... e^(L), a Gaussian, a Boltzmann factor, a power law times either (a subset
//               without a power is the log transform's, left out); and the same of sin y, for angles whose sines
//               are positive (asin(λ/(n d)))
//   selection   forward selection of the terms (the one that lowers the residual most, in turn) up to `maxTerms`
//               + 4, then backward elimination from that set (the term whose removal raises the residual least);
//               with a small basis, backward elimination from the whole basis. Every subset on the elimination
//               path of at most `maxTerms` terms is a candidate, its coefficients the fit's (the loop refits
//               them, from there, as every literal)
//
// The solves are normal equations on unit-scaled columns with a ridge of 1e-9, so that a set of dependent columns
// (a ratio whose top and bottom share a factor) still solves (a start for the loop's fit, not its result). Everything
// is in a fixed order, so the batch is the same for any --jobs.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "search/Score.h"

namespace dmci::search {

struct SparseSettings {
  int maxTerms = 8;      // the largest sum a candidate carries
  int maxBasis = 400;    // a basis larger than this (many variables) keeps its first terms
  int backwardAll = 40;  // a basis up to this size is eliminated from whole, without forward selection
};

// The batch: the candidates of every transform, smallest sums first within each, in the order above; `fresh`
// says whether a candidate's key is new (a repeated one is skipped). At most `limit` (0: all).
std::vector<Candidate> sparseCandidates(const Task& task, const SparseSettings& s,
                                        const std::function<bool(const Candidate&)>& fresh, uint64_t limit);

// The subsets of the selection path, as column indices (ascending), smallest first: for the columns `cols`
// (each a vector over the rows) and the target `y`. Exposed for tests.
std::vector<std::vector<size_t>> selectionPath(const std::vector<std::vector<double>>& cols,
                                               const std::vector<double>& y, const SparseSettings& s);

// The least-squares coefficients of `y` on the columns `use` of `cols` (normal equations, unit-scaled); empty
// when the system is singular.
std::vector<double> leastSquares(const std::vector<std::vector<double>>& cols, const std::vector<double>& y,
                                 const std::vector<size_t>& use);

}  // namespace dmci::search
