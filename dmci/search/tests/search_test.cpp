// dmci search in-process: the canonical keys, the built-in proposer's edits, a candidate's score (fitted,
// failed for each reason), snapped constants, the power-law probe, and the search's determinism and resume.
#include "search/Search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include "driver/Program.h"
#include "fit/Literals.h"
#include "search/Enumerate.h"
#include "search/Probe.h"
#include "search/SearchReport.h"
#include "search/Sparse.h"
#include "search/tests/ScoreBatchFor.h"

namespace {

using namespace dmci;
using namespace dmci::search;

Expr read(const std::string& text) {
  auto forms = readForms(text, "test");
  EXPECT_TRUE(forms.ok()) << forms.error().str();
  return forms ? forms->back() : Expr{};
}

Candidate candidate(const std::string& text, std::map<std::string, double> params = {}) {
  return {{read(text)}, std::move(params)};
}

// --- the canonical hash ---

TEST(SearchHash, BoundNamesAreRenamed) {
  EXPECT_EQ(canonicalHash(read("(let ((u (* 2 t))) (+ u 1))"), 2),
            canonicalHash(read("(let ((v (* 2 t))) (+ v 1))"), 2));
}

TEST(SearchHash, FreeNamesAreKept) { EXPECT_NE(canonicalHash(read("(* a t)"), 2), canonicalHash(read("(* b t)"), 2)); }

TEST(SearchHash, LiteralsAreBucketedToTheDigitsAsked) {
  EXPECT_EQ(canonicalHash(read("(* 2.01 t)"), 2), canonicalHash(read("(* 2.04 t)"), 2));
  EXPECT_NE(canonicalHash(read("(* 2.01 t)"), 2), canonicalHash(read("(* 2.6 t)"), 2));
  EXPECT_NE(canonicalHash(read("(* 2.01 t)"), 12), canonicalHash(read("(* 2.04 t)"), 12));
}

TEST(SearchHash, OperandsOfPlusAndTimesAreUnorderedButNotOfMinus) {
  EXPECT_EQ(canonicalHash(read("(+ (sin t) a)"), 2), canonicalHash(read("(+ a (sin t))"), 2));
  EXPECT_NE(canonicalHash(read("(- (sin t) a)"), 2), canonicalHash(read("(- a (sin t))"), 2));
}

// --- the canonical key (GiNaC's normal form, else the hash) ---

uint64_t algebraKey(const std::string& text) { return canonicalKey(read(text), CanonKind::Ginac, 0, 2).key; }

TEST(SearchCanon, EquivalentProgramsHaveOneKey) {
#ifndef DMCI_HAVE_GINAC
  GTEST_SKIP() << "built without GiNaC";
#endif
  EXPECT_EQ(algebraKey("(* a (/ x y))"), algebraKey("(/ (* x a) y)"));
  EXPECT_EQ(algebraKey("(* t t)"), algebraKey("(square t)"));
  EXPECT_EQ(algebraKey("(/ (* a x) (* a y))"), algebraKey("(/ x y)"));
  EXPECT_EQ(algebraKey("(* (+ x 1.5) (+ x 2))"), algebraKey("(+ (* x x) (* 3.5 x) 3)"));
  // Literals are fitted: (* 2.5 (* 3 t)) is one fitted constant times t, as (* 4 t) is.
  EXPECT_EQ(algebraKey("(* 2.5 (* 3 t))"), algebraKey("(* 4 t)"));
  EXPECT_TRUE(canonicalKey(read("(- (- x))"), CanonKind::Ginac, 0, 2).algebraic);
}

TEST(SearchCanon, DifferentLawsHaveDifferentKeys) {
#ifndef DMCI_HAVE_GINAC
  GTEST_SKIP() << "built without GiNaC";
#endif
  EXPECT_NE(algebraKey("(- x y)"), algebraKey("(- y x)"));
  EXPECT_NE(algebraKey("(sin t)"), algebraKey("(cos t)"));
  EXPECT_NE(algebraKey("(+ t t)"), algebraKey("(* 2.5 t)"));  // (+ t t) has no constant to fit
  EXPECT_NE(algebraKey("(* a t)"), algebraKey("(* b t)"));
}

TEST(SearchCanon, TheTextSortsOperandsByTheirOwnText) {
#ifndef DMCI_HAVE_GINAC
  GTEST_SKIP() << "built without GiNaC";
#endif
  EXPECT_EQ(canonicalAlgebraText(read("(+ (* b y) (exp (* 0.5 x)))"), 0), "(+ (* |b| |y|) (exp (* #c |x|)))");
  EXPECT_EQ(canonicalAlgebraText(read("(* 0.5 x)"), 3), "(* 5.00e-01 |x|)");
}

TEST(SearchCanon, APowerTowerWithASymbolicTopIsLeftToTheHash) {
#ifndef DMCI_HAVE_GINAC
  GTEST_SKIP() << "built without GiNaC";
#endif
  // Feynman I.39.22 under noise: GiNaC's expand of this recursed past the stack and the search died (SIGSEGV).
  const char* tower = "(expt (* 8.06 (tanh (/ -0.986 (exp (* 0.107 n))))) (expt 1.0243 (log a)))";
  EXPECT_FALSE(canonicalAlgebraText(read(tower), 0).has_value());
  EXPECT_NE(canonicalKey(read(tower), CanonKind::Ginac, 0, 2).key, 0u);
}

TEST(SearchCanon, ASumsSignInAProductDoesNotChangeTheText) {
#ifndef DMCI_HAVE_GINAC
  GTEST_SKIP() << "built without GiNaC";
#endif
  // GiNaC writes x / (z - y) as -x (y - z)^-1 or x (z - y)^-1 as its term order falls (by addresses that differ
  // between processes); the text turns the sum one way.
  auto text = [](const std::string& p) { return canonicalAlgebraText(read(p), 0).value_or("none"); };
  EXPECT_EQ(text("(sqrt (- (/ x (- y z))))"), text("(sqrt (/ x (- z y)))"));
  EXPECT_EQ(text("(- (/ x (- y z)))"), text("(/ x (- z y))"));
  EXPECT_NE(text("(/ x (- y z))"), text("(/ x (- z y))"));
}

TEST(SearchCanon, AProgramTheAlgebraDoesNotTakeKeepsTheHash) {
  Expr branch = read("(if (< t 1.5) t (* 2 t))");
  EXPECT_FALSE(canonicalAlgebraText(branch, 0).has_value());
  CanonicalKey k = canonicalKey(branch, CanonKind::Ginac, 0, 2);
  EXPECT_FALSE(k.algebraic);
  EXPECT_EQ(k.key, canonicalHash(branch, 2));
  CanonicalKey hashed = canonicalKey(read("(* a (/ x y))"), CanonKind::Hash, 0, 2);
  EXPECT_FALSE(hashed.algebraic);
  EXPECT_NE(hashed.key, canonicalKey(read("(/ (* x a) y)"), CanonKind::Hash, 0, 2).key);
}

// --- the built-in proposer ---

Grammar grammar() {
  return {{"t", "x"}, {"a"}, {"+", "-", "*", "/", "exp", "log", "sin", "cos", "sqrt", "expt"}, 20, 7};
}

TEST(SearchEdits, EveryEditKeepsTheProgramWellFormedAndWithinTheLimits) {
  BuiltinProposer p(grammar(), true);
  std::mt19937_64 rng(7);
  std::vector<Candidate> parents = {candidate("(* a t)", {{"a", 1}}), candidate("(+ (* 2.5 (sin x)) (/ t 3))"),
                                    candidate("(exp (- (* a t) (cos x)))", {{"a", 0.5}}), candidate("1.5")};
  int applied = 0;
  for (const auto& name : BuiltinProposer::editNames())
    for (int k = 0; k < 200; ++k) {
      const Candidate& parent = parents[static_cast<size_t>(k) % parents.size()];
      auto child = p.edit(name, parent, parents[(static_cast<size_t>(k) + 1) % parents.size()], rng);
      if (!child) continue;
      ++applied;
      std::string text = printForms(child->forms);
      auto back = readForms(text, "child");
      ASSERT_TRUE(back.ok()) << name << ": " << text;
      EXPECT_TRUE(*back == child->forms) << name << ": " << text;
      EXPECT_TRUE(Program::fromText(text, "child").ok()) << name << ": " << text;
      for (const auto& s : symbolsOf(child->value()))
        EXPECT_TRUE(operatorArity(s) > 0 || s == "t" || s == "x" || s == "a") << name << ": " << text;
    }
  EXPECT_GT(applied, 1000);
  for (int k = 0; k < 300; ++k) {
    Proposal child = p.propose(parents[1], parents[2], rng);
    EXPECT_LE(complexity(child.candidate.value()), 20) << printForms(child.candidate.forms);
    EXPECT_LE(depth(child.candidate.value()), 7) << printForms(child.candidate.forms);
  }
}

TEST(SearchEdits, SimplifyFoldsConstantsAndDropsIdentities) {
  Expr e = read("(+ (* 2 3) (* x 1) (- t 0))");
  EXPECT_TRUE(simplify(e));
  EXPECT_EQ(print(e), "(+ 6 x t)");
}

TEST(SearchEdits, TheSameSeedGivesTheSameChildren) {
  BuiltinProposer p(grammar(), true);
  std::mt19937_64 r1(3), r2(3);
  Candidate parent = candidate("(+ (* 2.5 (sin x)) (/ t 3))");
  for (int k = 0; k < 50; ++k)
    EXPECT_EQ(printForms(p.propose(parent, parent, r1).candidate.forms),
              printForms(p.propose(parent, parent, r2).candidate.forms));
}

// --- scoring ---

// y = 2 e^(-0.3 t) cos(1.7 t) on 120 rows, one in five held out.
struct Oscillator {
  fit::DataTable data;
  Task task;
  Oscillator() {
    data.path = "osc.csv", data.names = {"t", "y"}, data.columns.resize(2);
    for (int i = 0; i < 120; ++i) {
      double t = 0.08 * i;
      data.columns[0].push_back(t), data.columns[1].push_back(2 * std::exp(-0.3 * t) * std::cos(1.7 * t));
      data.lines.push_back(static_cast<uint32_t>(i + 2));
      (i % 5 == 0 ? task.holdout : task.train).push_back(static_cast<size_t>(i));
    }
    task.data = &data, task.target = "y", task.vars = {"t"}, task.params = {"a"}, task.spread = 3;
  }
};

TEST(SearchScore, TheRightStructureIsFittedToTheData) {
  Oscillator o;
  ScoreSettings settings;
  settings.iterations = 40;
  Score s = scoreCandidate(o.task, settings, candidate("(* a (exp (* -0.2 t)) (cos (* 1.6 t)))", {{"a", 1}}), 1);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_LT(s.holdoutRmse, 1e-6);
  EXPECT_NEAR(s.fitted.params.at("a"), 2, 1e-6);
  EXPECT_EQ(s.complexity, 10);
}

TEST(SearchScore, TheSameStructureFittedAgainScoresTheSame) {
  // A structure that cannot fit the data exactly (no cosine), so that its score is well above zero: fitted again
  // from the same start (the same seed: the same restarts), least squares by Levenberg-Marquardt scores the same.
  Oscillator o;
  ScoreSettings settings;
  Candidate c = candidate("(* a (exp (* -0.2 t)))", {{"a", 1}});
  Score first = scoreCandidate(o.task, settings, c, 1);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_GT(first.score, 0.1);
  for (int again = 0; again < 3; ++again) {
    Score s = scoreCandidate(o.task, settings, c, 1);
    ASSERT_TRUE(s.ok) << s.error;
    EXPECT_NEAR(s.score, first.score, 1e-9);
  }
}

TEST(SearchScore, WithoutGradientsTheCandidateIsScoredAsItIs) {
  Oscillator o;
  ScoreSettings settings;
  settings.gradient = false;
  Score s = scoreCandidate(o.task, settings, candidate("(* a (exp (* -0.2 t)) (cos (* 1.6 t)))", {{"a", 1}}), 1);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_GT(s.holdoutRmse, 0.1);
  EXPECT_EQ(s.fitted.params.at("a"), 1);
}

// The threshold model (if (< x alpha) (* beta x) (* gamma x)) from alpha = 1, beta = 2, gamma = 0.5: the crisp fit
// of the candidate with its threshold written at 0.3 cannot move it (its gradient is 0) and ends well off; with
// --smooth the fit through the smoothed program moves it to the data's step, and the candidate says so. A candidate
// with no constant in a branch is not fitted a second way.
TEST(SearchScore, SmoothingFitsAConstantThatSitsInABranch) {
  fit::DataTable data;
  Task task;
  data.path = "thr.csv", data.names = {"x", "y"}, data.columns.resize(2);
  for (int i = 0; i <= 200; ++i) {
    double x = i / 100.0;
    data.columns[0].push_back(x), data.columns[1].push_back(x < 1 ? 2 * x : 0.5 * x);
    data.lines.push_back(static_cast<uint32_t>(i + 2));
    (i % 5 == 0 ? task.holdout : task.train).push_back(static_cast<size_t>(i));
  }
  task.data = &data, task.target = "y", task.vars = {"x"}, task.spread = 2;
  ScoreSettings settings;
  settings.iterations = 40;
  Candidate c = candidate("(if (< x 0.3) (* 1.5 x) (* 1.2 x))");
  Score crisp = scoreCandidate(task, settings, c, 1);
  ASSERT_TRUE(crisp.ok) << crisp.error;
  EXPECT_GT(crisp.trainRmse, 0.1);
  EXPECT_FALSE(crisp.smoothed);
  settings.smoothSigma = 0.5;
  Score smoothed = scoreCandidate(task, settings, c, 1);
  ASSERT_TRUE(smoothed.ok) << smoothed.error;
  EXPECT_LT(smoothed.trainRmse, 1e-9);
  EXPECT_LT(smoothed.holdoutRmse, 1e-9);
  EXPECT_TRUE(smoothed.smoothed);
  Score plain = scoreCandidate(task, settings, candidate("(* 1.5 x)"), 1);
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_FALSE(plain.smoothed);
}

TEST(SearchScore, AnUnboundNameFailsNamingIt) {
  Oscillator o;
  Score s = scoreCandidate(o.task, {}, candidate("(* k t)"), 1);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.error, "unbound name 'k': not a variable (t) nor a parameter (a)");
}

TEST(SearchScore, AnEndlessLoopFailsOnTheStepBudget) {
  Oscillator o;
  Score s = scoreCandidate(o.task, {}, candidate("(let loop () (loop))"), 1);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.error.find("budget"), std::string::npos) << s.error;
}

TEST(SearchScore, ANonFinitePredictionFailsAtItsRow) {
  Oscillator o;
  Score s = scoreCandidate(o.task, {}, candidate("(log (- t 1))"), 1);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.error.find("is NaN at row 1 of the data (osc.csv:2)"), std::string::npos) << s.error;
}

// y = a_g · t with a different a_g in each of three groups (rows 0-29, 30-59, 60-89), one in five held out.
struct Slopes {
  fit::DataTable data;
  Task task;
  Slopes() {
    data.path = "slopes.csv", data.names = {"t", "y"}, data.columns.resize(2);
    task.groups.resize(3);
    for (int i = 0; i < 90; ++i) {
      double t = 0.1 * (i % 30), slope = 1.0 + 0.5 * (i / 30);
      data.columns[0].push_back(t), data.columns[1].push_back(slope * t);
      data.lines.push_back(static_cast<uint32_t>(i + 2));
      (i % 5 == 0 ? task.holdout : task.train).push_back(static_cast<size_t>(i));
      task.groups[static_cast<size_t>(i / 30)].push_back(static_cast<size_t>(i));
    }
    task.data = &data, task.target = "y", task.vars = {"t"}, task.spread = 5;
  }
};

TEST(SearchScore, WithGroupsEachGroupHasItsOwnConstantsAndTheMedianIsKept) {
  Slopes o;
  ScoreSettings settings;
  settings.iterations = 40;
  Score grouped = scoreCandidate(o.task, settings, candidate("(* 1.2 t)"), 1);
  ASSERT_TRUE(grouped.ok) << grouped.error;
  EXPECT_LT(grouped.holdoutRmse, 1e-6);
  std::string form = printForms(grouped.fitted.forms);  // (* SLOPE t): the median of 1, 1.5 and 2
  ASSERT_EQ(form.rfind("(* ", 0), 0u) << form;
  EXPECT_NEAR(std::stod(form.substr(3)), 1.5, 1e-12) << form;
  o.task.groups.clear();  // one constant for every row: the slopes' spread is left over
  Score shared = scoreCandidate(o.task, settings, candidate("(* 1.2 t)"), 1);
  ASSERT_TRUE(shared.ok) << shared.error;
  EXPECT_GT(shared.holdoutRmse, 0.1);
}

// --score all: the rank is the RMSE on every row, the fitted rows' predictions those of the fit on them. A
// straight line fitted to the first rows of a curve: its score pools its training and held-out errors.
TEST(SearchScore, ScoringEveryRowPoolsTheFittedAndTheHeldOutErrors) {
  Oscillator o;
  ScoreSettings settings;
  settings.iterations = 40;
  Score held = scoreCandidate(o.task, settings, candidate("(+ 0.5 (* 0.1 t))"), 1);
  settings.scoreAll = true;
  Score every = scoreCandidate(o.task, settings, candidate("(+ 0.5 (* 0.1 t))"), 1);
  ASSERT_TRUE(held.ok && every.ok);
  EXPECT_EQ(held.score, held.holdoutRmse);
  EXPECT_EQ(every.holdoutRmse, held.holdoutRmse);
  double nt = static_cast<double>(o.task.train.size()), nh = static_cast<double>(o.task.holdout.size());
  double pooled =
      std::sqrt((nt * every.trainRmse * every.trainRmse + nh * every.holdoutRmse * every.holdoutRmse) / (nt + nh));
  EXPECT_NEAR(every.score, pooled, 1e-12 * pooled);
  EXPECT_GT(every.trainRmse, 0.1);  // a line does not fit the oscillator: the two errors differ
  EXPECT_NE(every.score, every.holdoutRmse);
}

// --- snapping the pick's constants ---

TEST(SearchSnap, TheSimplestFormNearAConstantComesFirst) {
  EXPECT_EQ(print(simpleConstantsNear(3.14159265, 1e-3).front().form), "(acos -1)");
  EXPECT_EQ(print(simpleConstantsNear(0.6065306597, 1e-6).front().form), "(exp (/ -1 2))");
  EXPECT_EQ(print(simpleConstantsNear(0.3989422804, 1e-6).front().form), "(sqrt (/ 1 (* 2 (acos -1))))");
  EXPECT_EQ(print(simpleConstantsNear(-0.33333331, 1e-6).front().form), "(/ -1 3)");
  EXPECT_TRUE(simpleConstantsNear(1234.5678, 1e-6).empty());
}

TEST(SearchSnap, FoldingLeavesOneConstantWhereOnlyTheirSumOrProductIsDecided) {
  // I.37.4 as the search reported it: four constants of one sum, each snapped alone, add up to 1.
  Candidate c = candidate("(* I1 (+ (sqrt (/ 5 7)) (- (sqrt (/ 3 4))) (/ -1 12) (/ I2 I1) 1.1042044823892554))");
  EXPECT_EQ(foldConstants(c), 1);
  ASSERT_EQ(c.value().items[2].head(), "+");
  const Expr& sum = c.value().items[2];
  ASSERT_EQ(sum.items.size(), 3u);
  EXPECT_EQ(print(sum.items[1]), "(/ I2 I1)");
  ASSERT_TRUE(sum.items[2].isNumber());
  EXPECT_NEAR(sum.items[2].number, 1.0, 1e-9);
  // A constant subexpression that holds a fitted number is one number; closed forms of integers stay as written.
  c = candidate("(/ (- (exp (* 0.159 x)) (exp (expt (/ 1 (* 2 (acos -1))) 82.2))) (/ 1 (* 2 (acos -1))))");
  EXPECT_EQ(foldConstants(c), 2);  // the power, then the exp of it
  EXPECT_EQ(print(c.value().items[2]), "(/ 1 (* 2 (acos -1)))");
  ASSERT_TRUE(c.value().items[1].items[2].isNumber());
  EXPECT_NEAR(c.value().items[1].items[2].number, 1.0, 1e-9);
  // A parameter read once takes the constants beside it in; one read only beside them (a + a) is one of them.
  c = candidate("(/ (+ a (sin x) 0.092) 2)", {{"a", 0.908}});
  EXPECT_EQ(foldConstants(c), 1);
  EXPECT_EQ(print(c.value()), "(/ (+ a (sin x)) 2)");
  EXPECT_NEAR(c.params.at("a"), 1.0, 1e-12);
  c = candidate("(* x (+ a a (- (sqrt (/ 2 7))) y))", {{"a", (1 + std::sqrt(2.0 / 7)) / 2}});
  EXPECT_EQ(foldConstants(c), 1);
  EXPECT_EQ(c.params.count("a"), 0u);
  ASSERT_EQ(c.value().items[2].items.size(), 3u);
  EXPECT_NEAR(c.value().items[2].items[2].number, 1.0, 1e-12);
  c = candidate("(+ (* 2 x) (/ 1 (* 4 (acos -1))) a)", {{"a", 1}});
  EXPECT_EQ(foldConstants(c), 1);
  EXPECT_EQ(print(c.value()), "(+ (* 2 x) a)");
  EXPECT_NEAR(c.params.at("a"), 1 + 1 / (4 * M_PI), 1e-15);
  // Nothing to fold: one constant per sum and product, no parameter beside it.
  c = candidate("(+ (* 2 x) (/ 1 (* 4 (acos -1))) y)");
  EXPECT_EQ(foldConstants(c), 0);
  EXPECT_EQ(print(c.value()), "(+ (* 2 x) (/ 1 (* 4 (acos -1))) y)");
  // A ratio of sums is divided through by its denominator's constant: the one scale the data cannot fix is 1.
  c = candidate("(/ (+ 1.2840254166877414 (* 0.8560169444584944 x)) (+ 1.2840254166877414 (* -0.428 x)))");
  EXPECT_EQ(foldConstants(c), 1);
  ASSERT_EQ(c.value().items[2].items[1].number, 1.0);
  EXPECT_NEAR(c.value().items[1].items[2].items[1].number, 2.0 / 3, 1e-9);
  EXPECT_NEAR(c.value().items[1].items[1].number, 1.0, 1e-15);
  c = candidate("(/ (+ 1.5 (sin x)) (+ 2.5 (* -0.4 x)))");  // (sin x) has no coefficient: left as it is
  EXPECT_EQ(foldConstants(c), 0);
  EXPECT_FALSE(constantValue(read("(+ x 1)")).has_value());
  EXPECT_NEAR(*constantValue(read("(* 2 (acos -1))")), 2 * M_PI, 1e-15);
}

TEST(SearchSnap, AShortDecimalIsAFormAfterTheSimplerOnesNearIt) {
  // 0.05 and 0.075 (Strogatz's glider and predator-prey laws) have no p/q with q up to 12: 1/20 and 3/40 do.
  auto forms = [](double x) {
    std::vector<std::string> out;
    for (const auto& c : simpleConstantsNear(x, 0.01)) out.push_back(print(c.form));
    return out;
  };
  std::vector<std::string> near = forms(-0.0500001);
  ASSERT_GE(near.size(), 2u);
  EXPECT_EQ(near[0], "(- (exp -3))");  // e^-3 = 0.0498 is simpler, and within 1%
  EXPECT_EQ(near[1], "(/ -1 20)");
  EXPECT_EQ(forms(0.0750002).front(), "(/ 3 40)");
  EXPECT_EQ(forms(0.5000001).front(), "(/ 1 2)");                   // the small rationals keep their place
  for (const auto& f : forms(-0.101)) EXPECT_NE(f, "(/ -51 500)");  // three significant digits are no short decimal
}

// y = K t^2 on 40 rows, one in four held out.
struct Quadratic {
  fit::DataTable data;
  Task task;
  explicit Quadratic(double k) {
    data.path = "quad.csv", data.names = {"t", "y"}, data.columns.resize(2);
    for (int i = 0; i < 40; ++i) {
      double t = 0.1 + 0.05 * i;
      data.columns[0].push_back(t), data.columns[1].push_back(k * t * t);
      data.lines.push_back(static_cast<uint32_t>(i + 2));
      (i % 4 == 0 ? task.holdout : task.train).push_back(static_cast<size_t>(i));
    }
    task.data = &data, task.target = "y", task.vars = {"t"}, task.spread = k * 4;
  }
};

Member scored(const Task& task, const std::string& program) {
  ScoreSettings settings;
  settings.iterations = 30;
  Score s = scoreCandidate(task, settings, candidate(program), 1);
  EXPECT_TRUE(s.ok) << s.error;
  return {s.fitted, s.holdoutRmse, s.trainRmse, s.complexity, 1, s.score};
}

SnapSettings snapSettings(const Task& task) {
  SnapSettings s;
  s.floor = PickRule{}.floor * task.spread;
  return s;
}

TEST(SearchSnap, PiIsSnappedWhenTheLossHolds) {
  Quadratic q(M_PI);
  Member m = scored(q.task, "(* 3.1 (* t t))");
  ASSERT_NEAR(m.candidate.value().items[1].number, M_PI, 1e-8);
  Snapped s = snapConstants(q.task, ScoreSettings{}, m, snapSettings(q.task), 1);
  ASSERT_EQ(s.constants.size(), 1u);
  EXPECT_EQ(print(s.candidate.value()), "(* (acos -1) (* t t))");
  EXPECT_EQ(s.constants[0].where, "literal 1");
  EXPECT_LT(s.score, 1e-9);
}

TEST(SearchSnap, TwoSimpleFactorsStaySoWhenTheirProductHasNoSimpleForm) {
  // y = -(46/15) t², found as (* -1/3 46/5 t²): folded, -46/15 is no form of the table (q = 15); as it was, each
  // factor snaps. The snap keeps the one that leaves fewer fitted constants.
  Quadratic q(-46.0 / 15);
  ScoreSettings plain;
  plain.gradient = false;
  Score at = scoreCandidate(q.task, plain, candidate("(* -0.3333333333333333 9.2 (* t t))"), 1);
  ASSERT_TRUE(at.ok) << at.error;
  Member m{at.fitted, at.holdoutRmse, at.trainRmse, at.complexity, 1, at.score};
  Snapped s = snapConstants(q.task, ScoreSettings{}, m, snapSettings(q.task), 1);
  EXPECT_EQ(print(s.candidate.value()), "(* (/ -1 3) (/ 46 5) (* t t))");
  EXPECT_EQ(s.constants.size(), 2u);
  // A sum whose constants only add up to a simple one: folded, it snaps to 1.
  Quadratic r(1);
  at = scoreCandidate(r.task, plain, candidate("(* (+ 0.25 0.75 (* 0 t)) (* t t))"), 1);
  ASSERT_TRUE(at.ok) << at.error;
  m = Member{at.fitted, at.holdoutRmse, at.trainRmse, at.complexity, 1, at.score};
  s = snapConstants(r.task, ScoreSettings{}, m, snapSettings(r.task), 1);
  EXPECT_EQ(print(s.candidate.value()), "(* (+ (* 0 t) 1) (* t t))");
}

TEST(SearchSnap, AConstantNearPiButNotPiIsLeftAsFitted) {
  Quadratic q(3.1416);  // 7e-6 from pi: fixed at pi, the error rises far past the tolerance
  Member m = scored(q.task, "(* 3.1 (* t t))");
  Snapped s = snapConstants(q.task, ScoreSettings{}, m, snapSettings(q.task), 1);
  EXPECT_TRUE(s.constants.empty());
  EXPECT_EQ(print(s.candidate.value()), print(m.candidate.value()));
  EXPECT_GE(s.tried, 1);
}

TEST(SearchSnap, EachSnappedConstantLeavesTheOthersRefitted) {
  // y = 1.5 e^(-t/2) cos(t), found as (* a (exp (* b t)) (cos (* c t))) with a written after b and c: a's start is
  // off by 2%, so only a refit after b and c are fixed finds it.
  fit::DataTable data;
  Task task;
  data.path = "decay.csv", data.names = {"t", "y"}, data.columns.resize(2);
  for (int i = 0; i < 60; ++i) {
    double t = 0.1 * i;
    data.columns[0].push_back(t), data.columns[1].push_back(1.5 * std::exp(-0.5 * t) * std::cos(t));
    data.lines.push_back(static_cast<uint32_t>(i + 2));
    (i % 5 == 0 ? task.holdout : task.train).push_back(static_cast<size_t>(i));
  }
  task.data = &data, task.target = "y", task.vars = {"t"}, task.params = {"a"}, task.spread = 2;
  ScoreSettings settings;
  settings.iterations = 30;
  Score fitted = scoreCandidate(task, settings, candidate("(* (exp (* -0.4 t)) (cos (* 1.1 t)) a)", {{"a", 1}}), 1);
  ASSERT_TRUE(fitted.ok) << fitted.error;
  ASSERT_LT(fitted.score, 1e-8);
  Member m{fitted.fitted, fitted.holdoutRmse, fitted.trainRmse, fitted.complexity, 1, fitted.score};
  m.candidate.params["a"] *= 1.02;
  m.score = fitted.score;
  Snapped s = snapConstants(task, settings, m, snapSettings(task), 1);
  ASSERT_EQ(s.constants.size(), 3u) << print(s.candidate.value());
  EXPECT_EQ(print(s.candidate.value()), "(* (exp (* (/ -1 2) t)) (cos (* 1 t)) (/ 3 2))");
  EXPECT_EQ(s.constants[2].where, "a");
}

// --- snapping under noise: the statistical test (search/Snap.h) ---

// Gaussian draws from a seeded generator, by Box and Muller on its raw 53-bit outputs (the same numbers on every
// standard library, unlike std::normal_distribution).
struct Gauss {
  std::mt19937_64 rng;
  explicit Gauss(uint64_t seed) : rng(seed) {}
  double uniform() { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53; }
  double operator()() { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * M_PI * uniform()); }
};

// y = LAW(t) on N rows of t in [lo, hi], plus Gaussian noise of sigma = LEVEL x RMS(y) (as SRBench adds it); one
// row in five held out.
struct Noisy {
  fit::DataTable data;
  Task task;
  Noisy(const std::function<double(double)>& law, double lo, double hi, double level, int n = 500) {
    data.path = "noisy.csv", data.names = {"t", "y"}, data.columns.resize(2);
    double ms = 0;
    for (int i = 0; i < n; ++i) {
      double t = lo + (hi - lo) * i / (n - 1);
      data.columns[0].push_back(t), data.columns[1].push_back(law(t)), ms += law(t) * law(t) / n;
      data.lines.push_back(static_cast<uint32_t>(i + 2));
      (i % 5 == 0 ? task.holdout : task.train).push_back(static_cast<size_t>(i));
    }
    Gauss g(7);
    for (auto& y : data.columns[1]) y += level * std::sqrt(ms) * g();
    auto [mn, mx] = std::minmax_element(data.columns[1].begin(), data.columns[1].end());
    task.data = &data, task.target = "y", task.vars = {"t"}, task.spread = *mx - *mn;
  }
};

TEST(SearchSnap, TheChiSquareQuantilesAreTheTables) {
  // chi^2 tables at 0.99: 6.635 (1), 9.210 (2), 15.086 (5), 23.209 (10); Wilson-Hilferty is within 1%.
  EXPECT_NEAR(chiSquareQuantile(1, 0.99), 6.635, 0.07);
  EXPECT_NEAR(chiSquareQuantile(2, 0.99), 9.210, 0.09);
  EXPECT_NEAR(chiSquareQuantile(5, 0.99), 15.086, 0.15);
  EXPECT_NEAR(chiSquareQuantile(10, 0.99), 23.209, 0.23);
  EXPECT_LT(chiSquareQuantile(1, 0.9), chiSquareQuantile(1, 0.99));
  EXPECT_EQ(chiSquareQuantile(0, 0.99), 0);
}

TEST(SearchSnap, UnderNoiseAConstantTheDataCannotTellFromOneIsSnappedFromFarther) {
  // y = 1/(t - 1) on t in [3, 6] with 10% noise: the shift is poorly determined there, and its fit lands more
  // than the noise-free window (1%) from 1. The tolerance alone (0 here) would keep nothing; the statistical test
  // keeps 1, and the program with it fits the training rows within the chi^2 bound of one degree of freedom.
  Noisy d([](double t) { return 1 / (t - 1); }, 3, 6, 0.1);
  Member m = scored(d.task, "(/ (- t 0.8))");
  const double shift = m.candidate.value().items[1].items[2].number;
  ASSERT_GT(std::fabs(shift - 1), 0.01) << print(m.candidate.value());
  ASSERT_LT(std::fabs(shift - 1), 0.1) << print(m.candidate.value());
  SnapSettings snap = snapSettings(d.task);
  snap.tolerance = 0;
  Snapped s = snapConstants(d.task, ScoreSettings{}, m, snap, 1);
  ASSERT_EQ(s.constants.size(), 1u) << print(m.candidate.value());
  EXPECT_EQ(print(s.candidate.value()), "(/ (- t 1))");
  EXPECT_EQ(s.statistical, 1);
  const double n = static_cast<double>(d.task.train.size());
  EXPECT_LE(s.trainRmse * s.trainRmse, m.trainRmse * m.trainRmse * std::exp(chiSquareQuantile(1, 0.99) / n));
  // With the statistical test off, 1 is not what is kept: the tolerance test keeps only a form that scores no worse
  // on the held-out rows (with the denser table of forms, 10/pi^2, 1.3% from 1, happens to), never 1.
  snap.confidence = 0;
  Snapped off = snapConstants(d.task, ScoreSettings{}, m, snap, 1);
  EXPECT_NE(print(off.candidate.value()), "(/ (- t 1))");
  EXPECT_EQ(off.statistical, 0);
}

TEST(SearchSnap, UnderNoiseAConstantTheDataDoesTellFromTheSimpleFormsIsLeftAsFitted) {
  // y = 0.552 t^2 with 1% noise on 500 rows: the nearest simple form is 0.64% away (the table is dense: 0.53 is
  // 0.1% from 5/(3 pi)) and the fit's relative standard error is a few 1e-4, so no form in the noise window
  // (5/9, 6/11, 1/2, ...) and not 0 passes the test.
  Noisy d([](double t) { return 0.552 * t * t; }, 0.5, 3, 0.01);
  Member m = scored(d.task, "(* 0.4 (* t t))");
  ASSERT_NEAR(m.candidate.value().items[1].number, 0.552, 5e-4);
  Snapped s = snapConstants(d.task, ScoreSettings{}, m, snapSettings(d.task), 1);
  EXPECT_TRUE(s.constants.empty()) << print(s.candidate.value());
  EXPECT_GE(s.tried, 2);  // some wide-window form and 0 were tried
}

TEST(SearchSnap, UnderNoiseATermThatOnlyFitsTheNoiseIsSnappedToZero) {
  // y = t^2/2 with 5% noise, fitted as (+ (* a t t) c): c fits the noise (far above the noise-free zero, 1e-3);
  // fixed at 0 with a refitted, the training rows cannot tell. Both constants snap: 1/2 and 0, jointly.
  Noisy d([](double t) { return 0.5 * t * t; }, 0.5, 3, 0.05);
  Member m = scored(d.task, "(+ (* 0.4 (* t t)) 0.1)");
  const double c = m.candidate.value().items[2].number;
  ASSERT_GT(std::fabs(c), 1e-3) << print(m.candidate.value());
  Snapped s = snapConstants(d.task, ScoreSettings{}, m, snapSettings(d.task), 1);
  EXPECT_EQ(print(s.candidate.value()), "(+ (* (/ 1 2) (* t t)) 0)");
  ASSERT_EQ(s.constants.size(), 2u);
  EXPECT_EQ(s.constants[1].value, 0);
}

TEST(SearchSnap, WithoutNoiseTheWindowStaysNarrow) {
  // Noise-free y = 0.515 t^2: 3% from 1/2. The fit reaches the data's precision, so the residuals say nothing of
  // noise, no wider window opens, and 1/2 is not even tried.
  Noisy d([](double t) { return 0.515 * t * t; }, 0.5, 3, 0);
  Member m = scored(d.task, "(* 0.4 (* t t))");
  Snapped s = snapConstants(d.task, ScoreSettings{}, m, snapSettings(d.task), 1);
  EXPECT_TRUE(s.constants.empty()) << print(s.candidate.value());
  for (const auto& c : simpleConstantsNear(0.515, SnapSettings{}.window)) EXPECT_NE(c.value, 0.5);
}

// --- the power-law probe ---

// y = LAW(x1, x2, x3) on 80 rows of positive variables, one in four held out.
struct ThreeVariables {
  fit::DataTable data;
  Task task;
  explicit ThreeVariables(const std::function<double(double, double, double)>& law) {
    data.path = "three.csv", data.names = {"x1", "x2", "x3", "y"}, data.columns.resize(4);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(1, 5);
    for (int i = 0; i < 80; ++i) {
      double x1 = u(rng), x2 = u(rng), x3 = u(rng);
      data.columns[0].push_back(x1), data.columns[1].push_back(x2), data.columns[2].push_back(x3);
      data.columns[3].push_back(law(x1, x2, x3));
      data.lines.push_back(static_cast<uint32_t>(i + 2));
      (i % 4 == 0 ? task.holdout : task.train).push_back(static_cast<size_t>(i));
    }
    task.data = &data, task.target = "y", task.vars = {"x1", "x2", "x3"}, task.spread = 10;
  }
};

TEST(SearchProbe, AMonomialLawIsReadOffTheData) {
  ThreeVariables d([](double x1, double x2, double x3) { return 2.5 * x1 * x1 / (x2 * std::sqrt(x3)); });
  std::vector<Candidate> probes = powerLawProbes(d.task);
  ASSERT_EQ(probes.size(), 2u);  // the powers rounded to integers (x3^-1), then to halves (x3^-1/2)
  std::vector<std::string> shapes;
  for (const auto& p : probes) {
    Expr shape = p.value();
    shape.items[1].items[1] = Expr::num(1);  // the constant, whatever the log-log fit made it
    shapes.push_back(print(shape));
  }
  EXPECT_EQ(shapes[0], "(/ (* 1 x1 x1) (* x2 x3))");
  EXPECT_EQ(shapes[1], "(/ (* 1 x1 x1) (* x2 (sqrt x3)))");
  Score s = scoreCandidate(d.task, ScoreSettings{}, probes[1], 1);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_LT(s.score, 1e-9);
  EXPECT_GT(scoreCandidate(d.task, ScoreSettings{}, probes[0], 1).score, 1e-3);
}

TEST(SearchProbe, NoProbeWhereTheTargetChangesSign) {
  ThreeVariables d([](double x1, double x2, double) { return x1 - x2; });
  EXPECT_TRUE(powerLawProbes(d.task).empty());
}

// --- the search ---

SearchSettings small(uint64_t evals, int jobs) {
  SearchSettings s;
  s.seed = 11, s.jobs = jobs, s.evals = evals, s.islands = 2, s.children = 4, s.population = 8;
  s.grammar = grammar();
  s.grammar.vars = {"t"};
  s.enumerate = 0;  // the loop alone (the enumeration stage's tests are below)
  return s;
}

std::string frontText(const SearchResult& r) {
  std::string out;
  for (const auto& m : r.front) out += printForms(m.candidate.forms) + fit::schemeNumber(m.holdoutRmse) + "\n";
  return out;
}

TEST(SearchLoop, TheSameSeedGivesTheSameFrontForAnyNumberOfJobs) {
  Oscillator o;
  Candidate seed = candidate("(* a (cos (* 1.5 t)))", {{"a", 1}});
  auto one = runSearch(o.task, small(60, 1), seed);
  auto again = runSearch(o.task, small(60, 1), seed);
  auto three = runSearch(o.task, small(60, 3), seed);
  ASSERT_TRUE(one.ok() && again.ok() && three.ok());
  EXPECT_FALSE(one->front.empty());
  EXPECT_EQ(frontText(*one), frontText(*again));
  EXPECT_EQ(frontText(*one), frontText(*three));
  auto other = small(60, 1);
  other.seed = 12;
  EXPECT_NE(frontText(*one), frontText(*runSearch(o.task, other, seed)));
}

TEST(SearchLoop, AResumedSearchEndsWhereTheUninterruptedOneDoes) {
  Oscillator o;
  Candidate seed = candidate("(* a (cos (* 1.5 t)))", {{"a", 1}});
  auto dir = std::filesystem::temp_directory_path() / ("dmci_search_resume_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto first = small(40, 1);
  first.stateFile = (dir / "state.json").string();
  auto part = runSearch(o.task, first, seed);
  ASSERT_TRUE(part.ok()) << part.error().str();
  auto rest = small(90, 1);
  rest.stateFile = first.stateFile, rest.resume = true;
  auto resumed = runSearch(o.task, rest, seed);
  ASSERT_TRUE(resumed.ok()) << resumed.error().str();
  auto whole = runSearch(o.task, small(90, 1), seed);
  ASSERT_TRUE(whole.ok());
  EXPECT_LT(part->evaluations, whole->evaluations);
  EXPECT_EQ(resumed->evaluations, whole->evaluations);
  EXPECT_EQ(frontText(*resumed), frontText(*whole));
  EXPECT_EQ(resumed->history, whole->history);
  std::filesystem::remove_all(dir);
}

TEST(SearchLoop, ASearchWithNothingNewToProposeStops) {
  Oscillator o;
  auto s = small(1000000, 1);  // the variable t, no operators: only constants (two digits) and t are new
  s.grammar.ops.clear(), s.grammar.params.clear();
  std::string note;
  auto r = runSearch(o.task, s, candidate("t"), {{}, [&](const std::string& n) { note = n; }});
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_LT(r->evaluations, 100000u);
  EXPECT_EQ(note, "no proposer found a new candidate in 10 epochs");
}

TEST(SearchLoop, AStateOfOtherSettingsIsRefused) {
  Oscillator o;
  auto dir = std::filesystem::temp_directory_path() / ("dmci_search_refused_" + std::to_string(::getpid()));
  auto s = small(10, 1);
  s.stateFile = (dir / "state.json").string(), s.fingerprint = "one";
  ASSERT_TRUE(runSearch(o.task, s, candidate("(* a t)", {{"a", 1}})).ok());
  s.resume = true, s.fingerprint = "two";
  auto r = runSearch(o.task, s, candidate("(* a t)", {{"a", 1}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("other data, seed program or settings"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// An exchange that says it has three ranks: the search refuses two islands before any exchange.
class ThreeRanks final : public IslandExchange {
 public:
  int rank() const override { return 0; }
  int ranks() const override { return 3; }
  std::vector<std::string> gather(const std::string&) override { throw std::logic_error("gather"); }
  std::string broadcast(const std::string&) override { throw std::logic_error("broadcast"); }
  std::string describe() const override { return "three"; }
};

TEST(SearchLoop, FewerIslandsThanRanksIsAUsageError) {
  Oscillator o;
  ThreeRanks three;
  auto s = small(10, 1);
  s.exchange = &three;
  auto r = runSearch(o.task, s, candidate("(* a t)", {{"a", 1}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Usage);
  EXPECT_NE(r.error().message.find("--islands 2 is below the 3 ranks"), std::string::npos) << r.error().message;
}

// Epochs: whole epochs, the budget met at the first epoch's end that reaches it; the islands' draws are their own,
// so a search of more epochs begins as the shorter one.
TEST(SearchLoop, EpochsAreWholeAndALongerSearchBeginsAsTheShorter) {
  Oscillator o;
  Candidate seed = candidate("(* a (cos (* 1.5 t)))", {{"a", 1}});
  auto shortRun = runSearch(o.task, small(30, 1), seed);
  auto longRun = runSearch(o.task, small(60, 2), seed);
  ASSERT_TRUE(shortRun.ok() && longRun.ok());
  EXPECT_EQ(shortRun->epochs, 1u);  // the seed, then one epoch of 2 islands x 20
  EXPECT_EQ(longRun->epochs, 2u);
  EXPECT_GE(shortRun->evaluations, 30u);
  ASSERT_FALSE(shortRun->history.empty());
  for (const auto& step : shortRun->history)
    EXPECT_NE(std::find(longRun->history.begin(), longRun->history.end(), step), longRun->history.end()) << step.first;
}

// R ranks as R threads of one process, meeting at a barrier: the exchange's contract without MPI (the MPI plugin
// itself is tested as processes, search_epochs_test.sh).
class ThreadRanks {
 public:
  explicit ThreadRanks(int ranks) : texts_(static_cast<size_t>(ranks)), meet_(ranks) {}
  class Rank final : public IslandExchange {
   public:
    Rank(ThreadRanks& hub, int rank) : hub_(hub), rank_(rank) {}
    int rank() const override { return rank_; }
    int ranks() const override { return static_cast<int>(hub_.texts_.size()); }
    std::vector<std::string> gather(const std::string& mine) override {
      hub_.texts_[static_cast<size_t>(rank_)] = mine;
      hub_.meet_.arrive_and_wait();
      std::vector<std::string> all = rank_ == 0 ? hub_.texts_ : std::vector<std::string>{};
      hub_.meet_.arrive_and_wait();
      return all;
    }
    std::string broadcast(const std::string& text) override {
      if (rank_ == 0) hub_.root_ = text;
      hub_.meet_.arrive_and_wait();
      std::string out = hub_.root_;
      hub_.meet_.arrive_and_wait();
      return out;
    }
    std::string describe() const override { return "threads"; }

   private:
    ThreadRanks& hub_;
    int rank_;
  };

 private:
  std::vector<std::string> texts_;
  std::string root_;
  std::barrier<> meet_;
};

// The archive of a search as text: what the digest of archive.json names.
std::string archiveText(const SearchResult& r) {
  std::string out;
  for (const auto& m : r.archive)
    out += printForms(m.candidate.forms) + " " + fit::schemeNumber(m.score) + " " + std::to_string(m.evaluation) + "\n";
  return out;
}

TEST(SearchLoop, OneRankTwoAndThreeGiveTheSameArchive) {
  Oscillator o;
  Candidate seed = candidate("(* a (cos (* 1.5 t)))", {{"a", 1}});
  auto settings = small(120, 1);
  settings.islands = 3, settings.epochEvals = 8;
  auto one = runSearch(o.task, settings, seed);
  ASSERT_TRUE(one.ok()) << one.error().str();
  EXPECT_GE(one->epochs, 4u);
  for (int ranks : {2, 3}) {
    ThreadRanks hub(ranks);
    std::vector<std::unique_ptr<ThreadRanks::Rank>> xs;
    std::vector<SearchSettings> each(static_cast<size_t>(ranks), settings);
    std::vector<std::optional<Result<SearchResult>>> results(static_cast<size_t>(ranks));
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r) xs.push_back(std::make_unique<ThreadRanks::Rank>(hub, r));
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&, r] {
        each[static_cast<size_t>(r)].exchange = xs[static_cast<size_t>(r)].get();
        results[static_cast<size_t>(r)].emplace(runSearch(o.task, each[static_cast<size_t>(r)], seed));
      });
    for (auto& t : threads) t.join();
    ASSERT_TRUE(results[0]->ok()) << results[0]->error().str();
    EXPECT_EQ(archiveText(**results[0]), archiveText(*one)) << ranks << " ranks";
    EXPECT_EQ((*results[0])->history, one->history) << ranks << " ranks";
    EXPECT_EQ((*results[0])->ranks, ranks);
    EXPECT_EQ((*results[0])->rankRates.size(), static_cast<size_t>(ranks));
    for (int r = 1; r < ranks; ++r) EXPECT_TRUE((*results[static_cast<size_t>(r)])->follower);
  }
  auto other = settings;
  other.seed = 12;
  EXPECT_NE(archiveText(*runSearch(o.task, other, seed)), archiveText(*one));
}

// --- the enumeration of small forms ---

// y = LAW(x1, x2) on 120 rows, x1 in [0.05, 0.95] (a ratio below 1, as --units turns one), x2 in [0.5, 2].
struct TwoRatios {
  fit::DataTable data;
  Task task;
  explicit TwoRatios(const std::function<double(double, double)>& law) {
    data.path = "ratios.csv", data.names = {"x1", "x2", "y"}, data.columns.resize(3);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u1(0.05, 0.95), u2(0.5, 2);
    for (int i = 0; i < 120; ++i) {
      double x1 = u1(rng), x2 = u2(rng);
      data.columns[0].push_back(x1), data.columns[1].push_back(x2), data.columns[2].push_back(law(x1, x2));
      data.lines.push_back(static_cast<uint32_t>(i + 2));
      (i % 4 == 0 ? task.holdout : task.train).push_back(static_cast<size_t>(i));
    }
    task.data = &data, task.target = "y", task.vars = {"x1", "x2"}, task.spread = 4;
  }
};

TEST(SearchEnumerate, ChainsComeBySizeInTheirSlotsOrderWithoutPairsThatUndoEachOther) {
  std::vector<Chain> chains = chainsUpTo(4);
  ASSERT_FALSE(chains.empty());
  EXPECT_EQ(print(chainExpr(chains[0], Expr::sym("x"))), "x");  // size 0: the variable itself
  std::vector<std::string> texts;
  for (size_t k = 0; k < chains.size(); ++k) {
    if (k > 0) EXPECT_LE(chains[k - 1].size(), chains[k].size());
    texts.push_back(print(chainExpr(chains[k], Expr::sym("x"))));
  }
  auto has = [&](const std::string& t) { return std::find(texts.begin(), texts.end(), t) != texts.end(); };
  EXPECT_TRUE(has("(/ (sqrt (- 1 (* x x))))"));                        // 1/sqrt(1 - x^2)
  EXPECT_TRUE(has("(* x (/ (- 1 (exp (* 1.0000009536743164 x)))))"));  // x/(1 - e^(k x)), size 4, k fitted
  EXPECT_TRUE(has("(asin x)") && has("(tanh (* x x))"));
  EXPECT_FALSE(has("(sqrt (* x x))"));  // undoes itself
  EXPECT_FALSE(has("(/ (/ x))"));       // x again
  EXPECT_FALSE(has("(log (exp x))"));
  EXPECT_FALSE(has("(* x x)") && has("(* x x x)"));  // x times x is the square chain, not a size-1 product
  // Size 1: every inner template, then the middle ones, then the outer ones that are not inner ones as well.
  std::vector<std::string> one;
  for (size_t k = 0; k < chains.size(); ++k)
    if (chains[k].size() == 1) one.push_back(texts[k]);
  ASSERT_GE(one.size(), 3u);
  EXPECT_EQ(one[0], "(/ x)");  // middle 0, inner 0, outer 1 (1/t) comes first in the slots' order
  EXPECT_EQ(chainsUpTo(0).size(), 1u);
  EXPECT_LT(chainsUpTo(3).size(), chains.size());
  // One order, every time.
  std::vector<Chain> again = chainsUpTo(4);
  ASSERT_EQ(again.size(), chains.size());
  for (size_t k = 0; k < chains.size(); ++k) EXPECT_EQ(print(chainExpr(again[k], Expr::sym("x"))), texts[k]);
}

TEST(SearchEnumerate, APowerOfTheVariableTheDataFollowIsWrittenBeforeTheChain) {
  // I.48.2 on the groups its units give: y/(m v^2) = x^-2/sqrt(1 - x^2), x = v/c. The slope of log y on log x is
  // about -2, and x^-2 times the chain 1/sqrt(1 - x^2) is among the forms.
  TwoRatios d([](double x1, double) { return 1 / (x1 * x1 * std::sqrt(1 - x1 * x1)); });
  d.task.vars = {"x1"};
  EXPECT_EQ(powerLawSlope(d.task, "x1"), -2);
  std::set<std::string> texts;
  EnumerateSettings e;
  chainCandidates(d.task, e, 1.25, [&](const Candidate& c) { return texts.insert(print(c.value())).second; });
  EXPECT_TRUE(texts.count("(* 1.25 (/ (/ (sqrt (- 1 (* x1 x1)))) (* x1 x1)))"));
  // Slopes 0 and 1 add nothing (1 is the times slot's own x); a constant target has slope 0.
  TwoRatios flat([](double, double) { return 7.0; });
  EXPECT_EQ(powerLawSlope(flat.task, "x1"), 0);
  TwoRatios cube([](double, double x2) { return x2 * x2 * x2; });
  EXPECT_EQ(powerLawSlope(cube.task, "x2"), 3);
  EXPECT_EQ(powerLawSlope(cube.task, "x1"), 0);
  // The rate of e^(k x) starts at 1/RMS(x).
  double rms = 0;
  for (size_t r : cube.task.train) rms += std::pow(cube.data.columns[1][r], 2);
  EXPECT_NEAR(rateStart(cube.task, "x2"), 1 / std::sqrt(rms / cube.task.train.size()), 1e-12);
}

TEST(SearchEnumerate, CandidatesAreDedupedByTheirKeyAndStopAtTheLimit) {
  ThreeVariables d([](double x1, double x2, double) { return x1 / std::sqrt(1 + x2); });
  EnumerateSettings e;
  std::set<uint64_t> seen;
  size_t asked = 0;
  auto fresh = [&](const Candidate& c) {
    ++asked;
    return seen.insert(canonicalKey(c.value(), CanonKind::Ginac, 0, 2).key).second;
  };
  std::vector<Candidate> all = chainCandidates(d.task, e, 1.25, fresh);
  EXPECT_EQ(all.size(), seen.size());  // every candidate kept has a key of its own
  EXPECT_LE(all.size(), asked);
  EXPECT_EQ(asked, 3 * chainsUpTo(4).size());  // every chain of each of the three variables was asked about
  // The order: size first (the three variables themselves), then variable by variable.
  ASSERT_GE(all.size(), 4u);
  EXPECT_EQ(print(all[0].value()), "(* 1.25 x1)");
  EXPECT_EQ(print(all[1].value()), "(* 1.25 x2)");
  EXPECT_EQ(print(all[2].value()), "(* 1.25 x3)");
  // Asked again with the keys already seen, nothing is new.
  EXPECT_TRUE(chainCandidates(d.task, e, 1.25, fresh).empty());
  // A limit cuts the list at its start.
  std::set<uint64_t> fresher;
  e.limit = 5;
  auto limited = chainCandidates(d.task, e, 1.25, [&](const Candidate& c) {
    return fresher.insert(canonicalKey(c.value(), CanonKind::Ginac, 0, 2).key).second;
  });
  ASSERT_EQ(limited.size(), 5u);
  for (size_t k = 0; k < 5; ++k) EXPECT_EQ(print(limited[k].value()), print(all[k].value()));
}

// --- the sparse linear forms (search/Sparse.h) ---

TEST(SearchSparse, TheSelectionPathKeepsTheTermsOfAnExactSumAndDropsTheRest) {
  // y = 3 a - 2 c over five columns: the path's subset of two terms is {a, c}, with the law's coefficients.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::vector<double>> cols(5, std::vector<double>(60));
  std::vector<double> y(60);
  for (size_t r = 0; r < 60; ++r) {
    for (auto& c : cols) c[r] = u(rng);
    y[r] = 3 * cols[0][r] - 2 * cols[2][r];
  }
  SparseSettings s;
  auto path = selectionPath(cols, y, s);
  ASSERT_EQ(path.size(), 5u);  // one subset of each size, smallest first
  EXPECT_EQ(path[1], (std::vector<size_t>{0, 2}));
  auto c = leastSquares(cols, y, path[1]);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NEAR(c[0], 3, 1e-6);
  EXPECT_NEAR(c[1], -2, 1e-6);
  // Forward selection first (a basis larger than backwardAll) reaches the same pair.
  s.backwardAll = 2;
  path = selectionPath(cols, y, s);
  ASSERT_GE(path.size(), 2u);
  EXPECT_EQ(path[1], (std::vector<size_t>{0, 2}));
  // Two equal columns make the whole set singular; the path still comes down to the law.
  cols.push_back(cols[4]);
  s.backwardAll = 40;
  path = selectionPath(cols, y, s);
  ASSERT_GE(path.size(), 2u);
  EXPECT_EQ(path[1], (std::vector<size_t>{0, 2}));
}

TEST(SearchSparse, TheBatchHoldsASumOfProductsADistanceAndAWeightedMeanExactly) {
  uint64_t evaluations = 0;
  auto bestOf = [&](const Task& task) {
    std::set<std::string> seen;
    auto fresh = [&](const Candidate& c) { return seen.insert(print(c.value())).second; };
    std::vector<Candidate> cs = sparseCandidates(task, SparseSettings{}, fresh, 0);
    double best = INFINITY;
    std::string text;
    for (const auto& c : cs) {
      Score sc = scoreCandidate(task, ScoreSettings{}, c, ++evaluations);
      if (sc.ok && sc.score < best) best = sc.score, text = print(sc.fitted.value());
    }
    return std::make_pair(best, text);
  };
  ThreeVariables sum([](double x1, double x2, double x3) { return x1 * x2 + 2 * x3 * x3 - x1; });
  auto [s1, t1] = bestOf(sum.task);
  EXPECT_LT(s1, 1e-9) << t1;
  ThreeVariables distance([](double x1, double x2, double x3) { return std::sqrt(std::pow(x2 - x1, 2) + x3 * x3); });
  auto [s2, t2] = bestOf(distance.task);
  EXPECT_LT(s2, 1e-9) << t2;
  ThreeVariables mean([](double x1, double x2, double x3) { return (x1 * x3 + x2) / (x1 + 1); });
  auto [s3, t3] = bestOf(mean.task);
  EXPECT_LT(s3, 1e-9) << t3;
  // A ratio of first powers, (x1 + x2)/(1 + x2): top and bottom times (1 + a x1 + b x2) fit as well, so the whole
  // set of columns is singular; elimination still comes down to the three terms.
  ThreeVariables weighted([](double x1, double x2, double) { return (x1 + x2) / (1 + x2); });
  auto [s4, t4] = bestOf(weighted.task);
  EXPECT_LT(s4, 1e-9) << t4;
  // A limit cuts the batch; a task without rows gives none.
  std::set<std::string> seen;
  auto fresh = [&](const Candidate& c) { return seen.insert(print(c.value())).second; };
  EXPECT_EQ(sparseCandidates(sum.task, SparseSettings{}, fresh, 3).size(), 3u);
  Task empty = sum.task;
  empty.train.clear();
  EXPECT_TRUE(sparseCandidates(empty, SparseSettings{}, fresh, 0).empty());
}

TEST(SearchSparse, TheLogLinearFormHoldsAGaussianAndAPowerLawTimesABoltzmannFactor) {
  auto best = [](const Task& task) {
    std::set<std::string> seen;
    auto fresh = [&](const Candidate& c) { return seen.insert(print(c.value())).second; };
    double out = INFINITY;
    std::string text;
    uint64_t k = 0;
    for (const auto& c : sparseCandidates(task, SparseSettings{}, fresh, 0)) {
      Score sc = scoreCandidate(task, ScoreSettings{}, c, ++k);
      if (sc.ok && sc.score < out) out = sc.score, text = print(sc.fitted.value());
    }
    return std::make_pair(out, text);
  };
  // I.6.2b: e^(-((θ - θ1)/σ)²/2)/(√(2π) σ), three variables (x1 = σ).
  ThreeVariables gauss([](double s, double t, double t1) {
    return std::exp(-std::pow((t - t1) / s, 2) / 2) / (std::sqrt(2 * M_PI) * s);
  });
  auto [s1, t1] = best(gauss.task);
  EXPECT_LT(s1, 1e-9) << t1;
  // Angles: asin(x1 sin x2) over sin y; asin(x2/(x1 x3)) over log sin y (I.26.2, I.30.5).
  ThreeVariables refraction([](double a, double b, double) { return std::asin(a / 5 * std::sin(b)); });
  auto [s3, t3] = best(refraction.task);
  EXPECT_LT(s3, 1e-9) << t3;
  ThreeVariables grating([](double a, double b, double c) { return std::asin(b / (5 * a * c)); });
  auto [s4, t4] = best(grating.task);
  EXPECT_LT(s4, 1e-9) << t4;
  // x1^1.5 e^(-x2 x3/x1)
  ThreeVariables boltzmann([](double a, double b, double c) { return std::pow(a, 1.5) * std::exp(-b * c / a); });
  auto [s2, t2] = best(boltzmann.task);
  EXPECT_LT(s2, 1e-9) << t2;
}

using search::test::scorer;

TEST(SearchEnumerate, TheStageFindsASmallLawOfOneVariableAndASeparableOneOfTwo) {
  TwoRatios one([](double x1, double) { return 2 / std::sqrt(1 - x1 * x1); });
  one.task.vars = {"x1"};
  std::set<uint64_t> seen;
  auto fresh = [&](const Candidate& c) {
    return seen.insert(canonicalKey(c.value(), CanonKind::Ginac, 0, 2).key).second;
  };
  uint64_t evaluations = 0;
  EnumerateSettings e;
  e.size = 3;
  std::vector<Member> best = enumerateStage(one.task, e, {}, fresh, scorer(one.task, evaluations));
  ASSERT_FALSE(best.empty());
  EXPECT_LT(best[0].score, 1e-9) << print(best[0].candidate.value());
  EXPECT_LE(best.size(), static_cast<size_t>(e.seeds));
  // y = x1 e^(-x2): a function of x1 times one of x2, which the pairs put together.
  // The pairs put a chain of each together, and one is the best form. (Ranked by score alone, x1's own chain comes
  // below larger ones that fit x2's spread by chance, so the law itself is not reached here: README of
  // reports/search-bench/enum says why the ranking stays.)
  TwoRatios two([](double x1, double x2) { return x1 * std::exp(-x2); });
  seen.clear(), evaluations = 0;
  best = enumerateStage(two.task, e, {}, fresh, scorer(two.task, evaluations));
  ASSERT_FALSE(best.empty());
  auto syms = symbolsOf(best[0].candidate.value());
  EXPECT_TRUE(std::count(syms.begin(), syms.end(), "x1") && std::count(syms.begin(), syms.end(), "x2"))
      << print(best[0].candidate.value());
  EXPECT_LT(best[0].score, 0.01) << print(best[0].candidate.value());
  // Size 0 is no stage at all.
  e.size = 0, evaluations = 0;
  EXPECT_TRUE(enumerateStage(two.task, e, {}, fresh, scorer(two.task, evaluations)).empty());
  EXPECT_EQ(evaluations, 0u);
}

TEST(SearchEnumerate, TheSearchWithTheStageIsTheSameForAnyJobsAndCountsItsEvaluations) {
  TwoRatios d([](double x1, double) { return 1.5 / (1 - x1); });
  auto settings = [](int jobs, int size) {
    SearchSettings s;
    s.seed = 3, s.jobs = jobs, s.evals = 300, s.islands = 2, s.children = 4, s.population = 8;
    s.grammar = grammar();
    s.grammar.vars = {"x1", "x2"};
    s.enumerate = size;
    return s;
  };
  Candidate seed = candidate("a", {{"a", 1}});
  auto one = runSearch(d.task, settings(1, 4), seed);
  auto two = runSearch(d.task, settings(2, 4), seed);
  auto three = runSearch(d.task, settings(3, 4), seed);
  ASSERT_TRUE(one.ok() && two.ok() && three.ok());
  EXPECT_EQ(frontText(*one), frontText(*two));
  EXPECT_EQ(frontText(*one), frontText(*three));
  EXPECT_EQ(one->history, three->history);
  EXPECT_GE(one->evaluations, 300u);  // the stage's forms are the budget's evaluations (a third of it)
  EXPECT_LT(one->evaluations, 300u + 20);
  // The law, 1.5/(1 - x1), is a chain of x1: the stage finds it (a third of 300 evaluations: 100 forms).
  EXPECT_LT(picked(*one).score, 1e-9) << printForms(picked(*one).candidate.forms);
  bool early = false;
  for (const auto& [at, score] : one->history) early = early || (score < 1e-9 && at <= 101);
  EXPECT_TRUE(early);
  auto off = runSearch(d.task, settings(1, 0), seed);
  ASSERT_TRUE(off.ok());
  EXPECT_NE(frontText(*one), frontText(*off));
}

// --- the reported pick: snapped when it fits as well ---

TEST(SearchReport, TheSnappedPickIsReportedWithTheFittedFormBeside) {
  Quadratic q(M_PI);
  SearchSettings s;
  s.seed = 2, s.evals = 60, s.islands = 2, s.population = 8;
  s.grammar = grammar();
  s.grammar.vars = {"t"}, s.grammar.params.clear();
  q.task.params.clear();
  auto r = runSearch(q.task, s, candidate("(* 3.1 (* t t))"));
  ASSERT_TRUE(r.ok()) << r.error().str();
  ASSERT_TRUE(r->found);
  ASSERT_TRUE(r->snapped.reported) << printForms(r->snapped.candidate.forms);
  EXPECT_EQ(print(r->snapped.candidate.value()), "(* (acos -1) (* t t))");
  auto j = searchJson(*r, SearchInfo{});
  EXPECT_EQ(j["best"]["form"], "snapped");
  EXPECT_EQ(j["best"]["program"], "(* (acos -1) (* t t))");
  std::string fitted = printForms(picked(*r).candidate.forms);
  EXPECT_EQ(j["best"]["fitted"]["program"], fitted.substr(0, fitted.size() - 1));
  EXPECT_EQ(j["best"]["snapped"]["program"], "(* (acos -1) (* t t))");
  EXPECT_EQ(reportedMember(*r).complexity, 6);  // (acos -1) is two nodes
  // best.scm's program (its comment lines aside) is the JSON's best.program.
  std::string scm = bestProgram(*r, SearchInfo{});
  EXPECT_EQ(scm.substr(scm.size() - 22), "(* (acos -1) (* t t))\n");
}

TEST(SearchReport, APickWhoseSnappedFormFitsWorseIsReportedAsFitted) {
  Quadratic q(3.1416);  // 7e-6 from pi: fixed at pi, the error rises far past the tolerance
  SearchSettings s;
  s.seed = 2, s.evals = 60, s.islands = 2, s.population = 8;
  s.grammar = grammar();
  s.grammar.vars = {"t"}, s.grammar.params.clear();
  auto r = runSearch(q.task, s, candidate("(* 3.1 (* t t))"));
  ASSERT_TRUE(r.ok()) << r.error().str();
  ASSERT_TRUE(r->found);
  auto j = searchJson(*r, SearchInfo{});
  EXPECT_FALSE(r->snapped.reported) << printForms(r->snapped.candidate.forms);
  EXPECT_EQ(j["best"]["form"], "fitted");
  EXPECT_FALSE(j["best"].contains("fitted"));
  EXPECT_EQ(reportedMember(*r).candidate.forms, picked(*r).candidate.forms);
}

}  // namespace
