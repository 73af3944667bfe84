// dmci fit judged against outside truth, with its defaults, in-process:
//   - the 27 NIST StRD nonlinear regression problems in dmci/fit/tests/data/nist-strd/ (each a CSV whose '#' lines
//   carry
//     the model, NIST's two starts, the certified values and standard errors): from both starts, every parameter
//     to at least 6 correct digits and the certified standard errors to at least 3; a run that misses may not say
//     "converged";
//   - the 35 classic unconstrained minimisation problems with known minima (Moré, Garbow and Hillstrom, "Testing
//     unconstrained optimization software", ACM TOMS 7(1), 1981) as Scheme programs in objective mode, from the
//     standard start and 10x and 100x it: solved where the defaults can, and "converged" only at a point where
//     the gradient (checked here, independently) vanishes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/Program.h"
#include "fit/Fit.h"

namespace {

using namespace dmci;
using namespace dmci::fit;

struct Param {
  std::string name;
  double start[2], certified, stderr_;
};

struct Problem {
  std::string name, path, model;
  std::vector<Param> params;
  double rss = 0;
  bool stderrChecked = true;  // false: '# stderr unchecked' (below rounding) or '# stderr unknown' (not copied)
  bool rssChecked = true;     // false: '# stderr unchecked' or '# rss unknown'
  bool stderrKnown = true, rssKnown = true;
};

Problem readProblem(const std::filesystem::path& file) {
  Problem p;
  p.name = file.stem().string(), p.path = file.string();
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# model ", 0) == 0) p.model = line.substr(8);
    if (line.rfind("# rss ", 0) == 0 && line.rfind("# rss unknown", 0) != 0) p.rss = std::stod(line.substr(6));
    if (line.rfind("# stderr unchecked", 0) == 0) p.stderrChecked = p.rssChecked = false;
    if (line.rfind("# stderr unknown", 0) == 0) p.stderrChecked = p.stderrKnown = false;
    if (line.rfind("# rss unknown", 0) == 0) p.rssChecked = p.rssKnown = false;
    if (line.rfind("# param ", 0) == 0) {
      std::istringstream s(line.substr(8));
      Param q;
      std::string se;  // "nan" where the certified value was not copied ('# stderr unknown')
      s >> q.name >> q.start[0] >> q.start[1] >> q.certified >> se;
      q.stderr_ = std::stod(se);
      p.params.push_back(q);
    }
  }
  return p;
}

std::vector<Problem> nistProblems() {
  std::vector<Problem> out;
  for (const auto& e : std::filesystem::directory_iterator(DMCI_SOURCE_DIR "/dmci/fit/tests/data/nist-strd"))
    if (e.path().extension() == ".csv") out.push_back(readProblem(e.path()));
  std::sort(out.begin(), out.end(), [](const Problem& a, const Problem& b) { return a.name < b.name; });
  return out;
}

// Correct significant digits of `got` against `want` (LRE, as NIST's StRD papers count them), at most 15.
double digits(double got, double want) {
  if (got == want) return 15;
  return std::min(15.0, -std::log10(std::fabs(got - want) / std::fabs(want)));
}

struct NistRun {
  FitResult result;
  double worstDigits = 15, worstStderrDigits = 15;
};

NistRun fitNist(const Problem& p, int start) {
  NistRun run;
  auto table = readDataTable(p.path);
  EXPECT_TRUE(table.ok()) << table.error().str();
  if (!table) return run;
  ModelSpec spec;
  spec.programPath = p.name + ".scm", spec.programText = p.model;
  for (const auto& q : p.params) spec.binds.emplace_back(q.name, q.start[start]);
  spec.data = &*table, spec.target = "y";
  auto model = makeModel(spec);
  EXPECT_TRUE(model.ok()) << model.error().str();
  if (!model) return run;
  auto r = runFit(**model, FitSettings{});
  EXPECT_TRUE(r.ok()) << r.error().str();
  if (!r) return run;
  run.result = *r;
  for (size_t j = 0; j < p.params.size(); ++j) {
    run.worstDigits = std::min(run.worstDigits, digits(r->theta[j], p.params[j].certified));
    auto se = r->uncertainty ? r->uncertainty->stderrs[j] : std::nullopt;
    run.worstStderrDigits = std::min(run.worstStderrDigits, se ? digits(*se, p.params[j].stderr_) : 0.0);
  }
  return run;
}

class NistStrd : public ::testing::TestWithParam<std::pair<std::string, int>> {};

TEST_P(NistStrd, TheDefaultsReachSixDigitsAndTheCertifiedStandardErrors) {
  auto [name, start] = GetParam();
  Problem p;
  for (auto& q : nistProblems())
    if (q.name == name) p = q;
  ASSERT_FALSE(p.params.empty()) << name;
  NistRun run = fitNist(p, start);
  // From BoxBOD's first start (b1 = b2 = 1) Levenberg-Marquardt with Moré's scaling walks onto the plateau
  // b2 → ∞ (the model the constant b1, b2's Jacobian column vanishing) and stalls; the stalled solve is tried again
  // from the start with unit scaling, which reaches the optimum, and the stop says so.
  if (name == "BoxBOD" && start == 0) {
    EXPECT_NE(run.result.stopMessage.find("Moré's scaling stalled"), std::string::npos) << run.result.stopMessage;
    EXPECT_NE(run.result.stopMessage.find("solved again from the start with unit scaling"), std::string::npos);
  }
  const FitResult& r = run.result;
  EXPECT_GE(run.worstDigits, 6) << name << " start " << start + 1 << ": " << r.stop << ": " << r.stopMessage;
  if (run.worstDigits < 6) {
    EXPECT_FALSE(r.converged) << name << ": a missed optimum says converged";
  }
  EXPECT_TRUE(r.converged) << name << " start " << start + 1 << ": " << r.stop << ": " << r.stopMessage;
  ASSERT_TRUE(r.uncertainty.has_value());
  if (p.rssChecked) {
    EXPECT_GE(digits(r.uncertainty->rss, p.rss), 6) << name;
  }
  if (p.stderrChecked) {
    EXPECT_GE(run.worstStderrDigits, 3) << name << " start " << start + 1;
  }
  EXPECT_EQ(r.uncertainty->dof, r.uncertainty->rows - p.params.size());
}

std::vector<std::pair<std::string, int>> nistRuns() {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& p : nistProblems())
    for (int s : {0, 1}) out.emplace_back(p.name, s);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Certified, NistStrd, ::testing::ValuesIn(nistRuns()), [](const auto& info) {
  return info.param.first + "_start" + std::to_string(info.param.second + 1);
});

// All 27 of NIST's nonlinear regression problems are here. Where the copies read did not carry a certified
// standard deviation or residual sum of squares (Gauss1, Gauss2), the file says so ('# stderr unknown', '# rss
// unknown'), and only those files may leave them out.
// Dogleg from BoxBOD's first start reaches b2 ≈ 306, where b2's Jacobian column is about 1e-131: Ceres's own
// gradient test (on the projected gradient, which rounds to exactly 0 beside b2) fires there. The scale-free
// gradient test does not hold, so the run is stalled, not converged (it said "gtol" before that was checked).
TEST(NistStrdHonesty, DoglegOnBoxBODsPlateauIsNotConverged) {
  Problem p;
  for (auto& q : nistProblems())
    if (q.name == "BoxBOD") p = q;
  ASSERT_FALSE(p.params.empty());
  auto table = readDataTable(p.path);
  ASSERT_TRUE(table.ok()) << table.error().str();
  ModelSpec spec;
  spec.programPath = "BoxBOD.scm", spec.programText = p.model;
  for (const auto& q : p.params) spec.binds.emplace_back(q.name, q.start[0]);
  spec.data = &*table, spec.target = "y";
  auto model = makeModel(spec);
  ASSERT_TRUE(model.ok()) << model.error().str();
  FitSettings s;
  s.optimizer = "dogleg";
  auto r = runFit(**model, s);
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_LT(digits(r->theta[1], p.params[1].certified), 1);
  EXPECT_FALSE(r->converged) << r->stop << ": " << r->stopMessage;
  EXPECT_EQ(r->stop, "stalled") << r->stopMessage;
}

TEST(NistStrdFiles, EveryProblemHasAModelStartsCertifiedValuesAndRows) {
  auto problems = nistProblems();
  std::vector<std::string> names;
  for (const auto& p : problems) names.push_back(p.name);
  const std::vector<std::string> nist = {
      "Bennett5", "BoxBOD",  "Chwirut1", "Chwirut2", "DanWood",  "ENSO",     "Eckerle4", "Gauss1",   "Gauss2",
      "Gauss3",   "Hahn1",   "Kirby2",   "Lanczos1", "Lanczos2", "Lanczos3", "MGH09",    "MGH10",    "MGH17",
      "Misra1a",  "Misra1b", "Misra1c",  "Misra1d",  "Nelson",   "Rat42",    "Rat43",    "Roszman1", "Thurber"};
  EXPECT_EQ(names, nist);
  for (const auto& p : problems) {
    EXPECT_FALSE(p.model.empty()) << p.name;
    EXPECT_FALSE(p.params.empty()) << p.name;
    if (p.rssKnown) {
      EXPECT_GT(p.rss, 0) << p.name;
    }
    for (const auto& q : p.params) {
      EXPECT_TRUE(std::isfinite(q.certified)) << p.name << " " << q.name;
      EXPECT_EQ(std::isfinite(q.stderr_), p.stderrKnown) << p.name << " " << q.name;
    }
    auto t = readDataTable(p.path);
    ASSERT_TRUE(t.ok()) << t.error().str();
    EXPECT_GT(t->rows(), p.params.size()) << p.name;
  }
}

// --- objective mode: Moré–Garbow–Hillstrom ---

struct Classic {
  std::string name, program;
  std::vector<std::string> vars;
  std::vector<double> start;
  double minimum;  // the published global minimum f*
};

// The problems in dmci/fit/tests/data/mgh/ (written by ci/fit-objective from ci/mgh_problems.py): each a program
// of x1..xn, with ';; start x1=.. x2=..' and ';; minimum f*' lines.
std::vector<Classic> classics() {
  std::vector<Classic> out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(DMCI_SOURCE_DIR "/dmci/fit/tests/data/mgh"))
    if (e.path().extension() == ".scm") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    Classic c;
    c.name = file.stem().string(), c.program = text.str(), c.minimum = NAN;
    std::istringstream lines(c.program);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(";; start ", 0) == 0) {
        std::istringstream items(line.substr(9));
        for (std::string item; items >> item;) {
          size_t eq = item.find('=');
          c.vars.push_back(item.substr(0, eq)), c.start.push_back(std::stod(item.substr(eq + 1)));
        }
      }
      if (line.rfind(";; minimum ", 0) == 0) c.minimum = std::stod(line.substr(11));
    }
    out.push_back(c);
  }
  return out;
}

// The suite's rule (ci/mgh_problems.py's `solved`): f within 1e-6·max(1, |f*|) of f*, or below it.
bool solvedAt(double f, double minimum) {
  return std::isfinite(f) && f <= minimum + 1e-6 * std::max(1.0, std::fabs(minimum));
}

struct ClassicRun {
  FitResult result;
  double gradientMax = INFINITY;  // at the result, checked here by the native engine
};

ClassicRun fitClassic(const Classic& c, double scale) {
  ClassicRun run;
  ModelSpec spec;
  spec.programPath = c.name + ".scm", spec.programText = c.program;
  for (size_t j = 0; j < c.vars.size(); ++j) spec.binds.emplace_back(c.vars[j], scale * c.start[j]);
  auto model = makeModel(spec);
  EXPECT_TRUE(model.ok()) << model.error().str();
  if (!model) return run;
  auto r = runFit(**model, FitSettings{});  // the defaults, as `dmci fit` runs it
  if (!r) return run;  // a program error at a far start (a domain error): unsolved, and not converged
  run.result = *r;
  std::vector<double> grad;
  (*model)->loss(r->theta, &grad);
  run.gradientMax = 0;
  for (double g : grad) run.gradientMax = std::max(run.gradientMax, std::fabs(g));
  return run;
}

TEST(MoreGarbowHillstrom, TheWholeSetIsThere) {
  auto all = classics();
  ASSERT_EQ(all.size(), 35u);
  for (const auto& c : all) {
    EXPECT_FALSE(c.vars.empty()) << c.name;
    EXPECT_TRUE(std::isfinite(c.minimum)) << c.name;
  }
}

// Problem 34 is written as the paper has it: x1 and x10 have no part in f. The fit still binds all ten, names the
// two the program does not use, leaves them at their starts, and minimises over the others.
TEST(MoreGarbowHillstrom, TheZeroColumnsProblemNamesTheVariablesItDoesNotUseAndKeepsTheirStarts) {
  for (const auto& c : classics()) {
    if (c.name != "34-LinearRank1ZeroColumns") continue;
    EXPECT_EQ(c.program.find("x10)"), std::string::npos) << "x10 appears in the program";
    ModelSpec spec;
    spec.programPath = c.name + ".scm", spec.programText = c.program;
    for (size_t j = 0; j < c.vars.size(); ++j) spec.binds.emplace_back(c.vars[j], c.start[j] + j);
    auto model = makeModel(spec);
    ASSERT_TRUE(model.ok()) << model.error().str();
    EXPECT_EQ((*model)->fitted().unused, (std::vector<std::string>{"x1", "x10"}));
    auto r = runFit(**model, FitSettings{});
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_TRUE(solvedAt(r->loss, c.minimum)) << r->loss;
    EXPECT_EQ(r->theta[0], c.start[0]);
    EXPECT_EQ(r->theta[9], c.start[9] + 9);
    return;
  }
  FAIL() << "no problem 34 in the suite";
}

TEST(MoreGarbowHillstrom, SolvedFromThreeStartsAndConvergedOnlyWhereEarned) {
  int runs = 0, solved = 0;
  std::string report;
  for (const auto& c : classics())
    for (double scale : {1.0, 10.0, 100.0}) {
      ClassicRun run = fitClassic(c, scale);
      const FitResult& r = run.result;
      ++runs;
      bool ok = !r.theta.empty() && solvedAt(r.loss, c.minimum);
      solved += ok;
      // "converged" is earned at the minimum, or at a point where the gradient vanishes (a local minimum).
      if (r.converged) {
        EXPECT_TRUE(ok || run.gradientMax <= 1e-4 * std::max(1.0, std::fabs(r.loss)))
            << c.name << " x" << scale << ": says converged at loss " << r.loss << " with gradient " << run.gradientMax;
      }
      report += c.name + " x" + std::to_string(static_cast<int>(scale)) + ": loss " + std::to_string(r.loss) + " " +
                (r.converged ? "converged" : "not converged") + " (" + r.stop + ")" + (ok ? " solved" : "") + "\n";
    }
  std::printf("%s%d of %d runs solved\n", report.c_str(), solved, runs);
  // scipy's BFGS with the exact gradient and a generous budget solves 84 of these 105 (ci/fit-objective).
  EXPECT_GE(solved, 89) << report;
}

}  // namespace
