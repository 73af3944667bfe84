// Scoring one candidate: read, checked, fitted, scored on the held-out rows. A candidate that fails at any step
// scores as failed with its error's text (kept for the proposer); nothing here stops the search.
//
//   read     the program's text through the reader and the expander (syntax and unsupported forms)
//   check    every free name must be a variable (--vars) or a named parameter, else "unbound name"; then one
//            run over every row at the start values, under the step, heap and time budgets (an endless loop
//            ends here as a budget error)
//   fit      with gradients: a few Levenberg-Marquardt iterations on the exact Jacobian, with restarts (fit/Fit.h),
//            of the named parameters and every numeric literal, on the training rows; the fitted values replace the
//            literals in the program. The start is kept when no iterate does better. Without gradients the candidate is
//            scored as it is. With smoothing, a candidate whose constants sit in branches is fitted a second way,
//            through its smoothed program (ScoreSettings::smoothSigma), and the better crisp fit is kept.
//   score    the root-mean-square error on the held-out rows (and on the training rows, reported); the search
//            ranks by it, or (scoreAll) by the error on every row, the fitted rows' predictions still those of
//            the fit on them: a structure must then both fit its rows and predict the held-out ones
//
// With groups (dmci search --group COL: one group per value of the column, e.g. one battery cell each) the
// structure is shared and its constants are not: the fit runs once per group on that group's training rows, each
// group's rows are predicted by its own fit, and the errors are pooled over every group's rows. The fitted
// candidate then carries, for each literal and parameter, the median of the groups' fitted values (the start of
// its children's fits, and the program reported).
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "driver/Options.h"
#include "fit/DataTable.h"
#include "search/Expr.h"

namespace dmci::search {

// The data a candidate is scored on.
struct Task {
  const fit::DataTable* data = nullptr;
  std::string target;
  std::vector<std::string> vars, params;
  std::vector<size_t> train, holdout;
  std::vector<std::vector<size_t>> groups;  // when not empty: the rows of each group (every row in one)
  double spread = 1;                        // the target's max - min, over every row
};

struct ScoreSettings {
  bool gradient = true;
  int iterations = 8;  // Levenberg-Marquardt iterations per start
  int restarts = 2;    // further starts, jittered
  std::string engine = "replay";
  Budget budget{2'000'000, 4'000'000, 2.0};  // per run: steps, heap cells, seconds
  double seconds = 10;                       // the whole fit's time budget
  bool scoreAll = false;  // rank by the RMSE on every row (fitted and held out), not on the held-out rows alone
  // Smoothing (dmci search --smooth SIGMA): a candidate whose fitted constants sit in branches (a comparison, min,
  // max, abs or a step on them; smooth/Smooth.h, si) is also fitted on its smoothed program, in stages of width
  // SIGMA 4^-k, then crisply from there; the crisp fit that ends lower on the training rows is kept.
  double smoothSigma = 0;  // 0: off
  int smoothStages = 3;
  bool smoothDea = false;
};

struct Score {
  bool ok = false;
  std::string error;  // when failed: the error, as the user would read it
  double holdoutRmse = std::numeric_limits<double>::infinity();
  double trainRmse = std::numeric_limits<double>::infinity();
  double score = std::numeric_limits<double>::infinity();  // what the search ranks by (ScoreSettings::scoreAll)
  int complexity = 0;
  Candidate fitted;       // the candidate with its fitted literals and parameters
  bool smoothed = false;  // its fit is the one that started on the smoothed program (ScoreSettings::smoothSigma)
  double seconds = 0;
};

// Scores `c`; `seed` drives the fit's restarts. The names in `fixed` are constants the program may use at these
// values, not fitted (a snapped constant, search/Snap.h).
Score scoreCandidate(const Task& task, const ScoreSettings& settings, const Candidate& c, uint64_t seed,
                     const std::map<std::string, double>& fixed = {});

// Why scoring cannot fit here, or nothing: with gradients on, every candidate is fitted by Levenberg–Marquardt
// (`lm`, an optimizer plugin). A search whose fitter is missing must stop with that reason, not score every
// candidate at its start values.
std::optional<Error> fitterMissing(const ScoreSettings& s);

// The root-mean-square error of `predicted` against the target on `rows`.
double rmse(const Task& task, const std::vector<double>& predicted, const std::vector<size_t>& rows);

}  // namespace dmci::search
