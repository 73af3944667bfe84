// The sparse-regression stage (search/Terms.h): its library, its sums, and the law of a rate found through an
// integrator that the search does not edit (--edit), with no derivative in the data, the same for any --jobs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "fit/Literals.h"
#include "search/Canon.h"
#include "search/Search.h"
#include "search/Terms.h"
#include "search/tests/ScoreBatchFor.h"

namespace {

using namespace dmci;
using namespace dmci::search;

// The rate's law and one midpoint step of it over h, as the program below writes them.
double law(double x, double y) { return 3 * x - 2 * x * y - x * x; }
double step(double s, double o, double h) { return s + h * law(s + 0.5 * h * law(s, o), o); }

const char* const kProgram =
    "(define (f x y) a)\n"
    "(define (step s o h) (+ s (* h (f (+ s (* 0.5 h (f s o))) o))))\n"
    "(step s o h)\n";

// Rows of (s, o, h, s_next): the state after one step, never the rate.
struct Steps {
  fit::DataTable data;
  Task task;
  Steps() {
    data.path = "steps.csv", data.names = {"s", "o", "h", "next"}, data.columns.resize(4);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> us(0.2, 2.5), uo(0, 1.5);
    for (int i = 0; i < 80; ++i) {
      double s = us(rng), o = uo(rng), h = 0.1;
      data.columns[0].push_back(s), data.columns[1].push_back(o), data.columns[2].push_back(h);
      data.columns[3].push_back(step(s, o, h));
      data.lines.push_back(static_cast<uint32_t>(i + 2));
      (i % 4 == 0 ? task.holdout : task.train).push_back(static_cast<size_t>(i));
    }
    task.data = &data, task.target = "next", task.vars = {"s", "o", "h"}, task.params = {"a"}, task.spread = 3;
  }
};

Candidate seedOf(const char* text) {
  auto forms = readForms(text, "seed.scm");
  EXPECT_TRUE(forms.ok());
  Candidate c{*forms, {{"a", 1.0}}};
  auto k = editedForm(c.forms, "f");
  EXPECT_TRUE(k.ok());
  c.edited = *k;
  return c;
}

using search::test::scorer;

TEST(SearchTerms, TheLibraryHoldsTheConstantEachFactorAndTheProductsInOneOrder) {
  std::vector<Expr> lib = termLibrary({"x", "y"}, 1000);
  std::vector<std::string> texts;
  for (const auto& t : lib) texts.push_back(print(t));
  auto has = [&](const std::string& t) { return std::find(texts.begin(), texts.end(), t) != texts.end(); };
  EXPECT_EQ(texts[0], "1");
  EXPECT_EQ(texts[1], "x");
  for (const char* t : {"(* x x)", "(* x x x)", "(/ x)", "(sin y)", "(sin (- x y))", "(cos (- x y))", "(* x y)",
                        "(* (/ x (+ 2 (* x x))) y)", "(* (/ x (+ 1 x)) (* y y))", "(* (sin x) (* (cos y) (cos y)))"})
    EXPECT_TRUE(has(t)) << t;
  EXPECT_FALSE(has("(* y x)"));  // each product once, the first variable's factor first
  EXPECT_EQ(std::set<std::string>(texts.begin(), texts.end()).size(), texts.size());
  EXPECT_EQ(termLibrary({"x", "y"}, 1000).size(), lib.size());
  EXPECT_EQ(termLibrary({"x", "y"}, 40).size(), 40u);
  EXPECT_LT(termLibrary({"x"}, 1000).size(), lib.size());  // one variable: no products
}

TEST(SearchTerms, ASumWritesEachCoefficientAndTheConstantTermAlone) {
  EXPECT_EQ(print(termSum({Expr::num(1), Expr::sym("x")}, {2.5, -1.5})), "(+ 2.5 (* -1.5 x))");
  EXPECT_EQ(print(termSum({Expr::sym("x")}, {0.5})), "(* 0.5 x)");
}

TEST(SearchTerms, TheStageFindsARateThroughAnIntegratorItDoesNotEdit) {
  Steps d;
  Candidate seed = seedOf(kProgram);
  TermSettings e;
  e.size = 3;
  std::vector<Candidate> cands = termCandidates(d.task, ScoreSettings{}, e, seed, {"x", "y"});
  ASSERT_FALSE(cands.empty());
  for (const auto& c : cands) {  // only f's body changes
    EXPECT_EQ(c.edited, seed.edited);
    EXPECT_EQ(c.forms[1], seed.forms[1]);
    EXPECT_EQ(c.forms[2], seed.forms[2]);
  }
  EXPECT_LE(cands.size(), static_cast<size_t>(e.size * e.perSize));
  // The best sum of three, in order after the sums of one and of two: the law's three terms.
  const Expr& three = cands[static_cast<size_t>(2 * e.perSize)].value();
  ASSERT_EQ(three.head(), "+");
  std::set<std::string> terms;
  for (size_t k = 1; k < three.items.size(); ++k) terms.insert(print(three.items[k].items[2]));
  EXPECT_EQ(terms, (std::set<std::string>{"x", "(* x x)", "(* x y)"})) << print(three);
  // Scored through the program, it is the law (fitted to the data's precision) and the stage's best.
  std::set<uint64_t> seen;
  auto fresh = [&](const Candidate& c) { return seen.insert(canonicalHash(c.value(), 2)).second; };
  uint64_t evaluations = 0;
  std::vector<Member> best =
      termStage(d.task, ScoreSettings{}, e, seed, {"x", "y"}, fresh, scorer(d.task, evaluations), 5);
  ASSERT_FALSE(best.empty());
  EXPECT_LT(best[0].score, 1e-5) << printForms(best[0].candidate.forms);
  EXPECT_LE(best.size(), 5u);
  EXPECT_LE(evaluations, static_cast<uint64_t>(e.size * e.perSize));
  // No stage at size 0.
  e.size = 0;
  EXPECT_TRUE(termCandidates(d.task, ScoreSettings{}, e, seed, {"x", "y"}).empty());
}

TEST(SearchTerms, TheSearchWithTheStageIsTheSameForAnyJobsAndFindsTheLaw) {
  Steps d;
  Candidate seed = seedOf(kProgram);
  auto settings = [](int jobs) {
    SearchSettings s;
    s.seed = 5, s.jobs = jobs, s.evals = 60, s.islands = 2, s.children = 4, s.population = 8;
    s.grammar = {{"x", "y"}, {"a"}, {"+", "-", "*", "/", "sin", "cos"}, 30, 10};
    s.edit = "f", s.probe = false, s.enumerate = 0, s.terms = 3;
    return s;
  };
  auto one = runSearch(d.task, settings(1), seed);
  auto two = runSearch(d.task, settings(2), seed);
  ASSERT_TRUE(one.ok()) << one.error().str();
  ASSERT_TRUE(two.ok()) << two.error().str();
  ASSERT_TRUE(one->found);
  auto text = [](const SearchResult& r) {
    std::string out;
    for (const auto& m : r.front) out += printForms(m.candidate.forms) + fit::schemeNumber(m.holdoutRmse) + "\n";
    return out;
  };
  EXPECT_EQ(text(*one), text(*two));
  EXPECT_EQ(one->history, two->history);
  EXPECT_LT(one->best.score, 1e-5) << printForms(one->best.candidate.forms);
  // Off, the loop alone does not reach it in this budget.
  auto off = settings(1);
  off.terms = 0;
  auto without = runSearch(d.task, off, seed);
  ASSERT_TRUE(without.ok());
  EXPECT_GT(without->best.score, 1e-4);
}

}  // namespace
