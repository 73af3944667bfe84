// The power-law probe: candidates read off the data before the search starts. Many laws are monomials,
// y = c x1^e1 x2^e2 ... (a third of AI Feynman's equations, Coulomb's q1 q2 / (4 pi eps r^2) among them), and
// where y and the variables keep one sign each, log|y| = log c + sum e_i log|x_i| is a linear least-squares fit on
// the training rows. Its exponents, rounded to integers and to halves, give one or two programs with a single
// constant: (* c (/ (* x1 x1) (* x2 (sqrt x3)))), say. They join the first generation beside the seed; a law that
// is a monomial is then scored at once, and one that is not still gets a start that carries its leading powers.
#pragma once
#include <vector>

#include "search/Score.h"

namespace dmci::search {

// The probe's programs for `task` (none when y or a variable changes sign, is ever 0, or the fit is singular).
std::vector<Candidate> powerLawProbes(const Task& task);

}  // namespace dmci::search
