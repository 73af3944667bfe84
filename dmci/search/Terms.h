// Sparse regression over a library of terms, a stage before the first generation (dmci search --terms K), as
// SINDy finds the right-hand sides of dynamical systems: many laws are a sum of a few simple terms, 3x - 2xy - x^2,
// 0.5 sin(x - y) - sin(x), 20 - x - xy/(1 + 0.5x^2), that evolution builds term by term only by luck.
//
//   library     over the variables the candidates read (the data's columns, or with --edit the edited definition's
//               arguments): the constant 1; for each variable v the factors v, v^2, v^3, 1/v, sin v, cos v,
//               sin^2 v, cos^2 v, cos v / sin v, v/(1 + v), v/(k + v^2) and 1/(k + v^2) for k in 1/2, 1, 2; for
//               each two variables sin(v - w), cos(v - w) and every product of a factor of v and one of w. A term's
//               shape constants (the k, the 1 of 1 + v) are literals: the candidate's fit moves them.
//   linearize   the program with the edited expression replaced by sum_j c_j T_j (the c_j named parameters, from
//               0), fitted by a few Levenberg-Marquardt steps on the exact Jacobian of its residuals in c
//               (fit/Model.h): through the rest of the program as written (an integrator, a recursion), so that no
//               derivative of the data is ever estimated. At that fit the residuals are linear in c to first order: the
//               columns of the Jacobian are the terms as the program sees them.
//   select      subsets of at most `size` terms, by a beam over the linear model (a subset's least squares on the
//               normalised columns, its Gram matrix's block): for each subset size the best `perSize` subsets.
//   candidates  sum_j c_j T_j of each subset, its c_j started at the subset's least-squares values: scored by the
//               loop as its children are (each one evaluation, fitted again through the whole program and judged by
//               its error there), smallest subsets first.
//
// Everything is in a fixed order on one thread, so the stage is the same for any --jobs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/Enumerate.h"
#include "search/Score.h"

namespace dmci::search {

struct TermSettings {
  int size = 4;           // the most terms in a candidate (0: no stage)
  int perSize = 4;        // candidates of each size
  int beam = 1000;        // subsets kept at each size past three (every subset of up to three is tried)
  size_t maxTerms = 400;  // the library's most terms (the products are cut first)
  int steps = 8;          // Levenberg-Marquardt steps of the whole library's fit (at most four times as many runs)
};

// The library's terms over `vars`, in order (the constant first). Each is an expression without its coefficient.
std::vector<Expr> termLibrary(const std::vector<std::string>& vars, size_t maxTerms);

// The expression c_1 T_1 + ... (a plain c for the constant term; one term alone is not a sum).
Expr termSum(const std::vector<Expr>& terms, const std::vector<double>& coefficients);

// The stage's candidates for `seed` (its value expression, or with Candidate::edited the edited definition's body,
// replaced by each selected sum), in the order they are to be scored; empty when the library's program does not
// prepare or no subset fits. `vars` are the names the terms read.
std::vector<Candidate> termCandidates(const Task& task, const ScoreSettings& score, const TermSettings& e,
                                      const Candidate& seed, const std::vector<std::string>& vars);

// The stage: termCandidates scored through `score` (one evaluation each, in order); the members that scored, best
// first (by score, then complexity, then order), at most `seeds`.
std::vector<Member> termStage(const Task& task, const ScoreSettings& score, const TermSettings& e,
                              const Candidate& seed, const std::vector<std::string>& vars,
                              const std::function<bool(const Candidate&)>& fresh, const ScoreBatch& batch,
                              size_t seeds);

}  // namespace dmci::search
