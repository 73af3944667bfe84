// Tests of long programs: 100,000 defines or bindings compile and give their value, and forms that nest as
// deep as they are long neither overflow the C++ stack nor change meaning. Timing lives in bench/compile_bench.
#include <gtest/gtest.h>

#include <string>

#include "expand/Expand.h"
#include "lower/FreeVars.h"
#include "lower/Lower.h"
#include "syntax/Reader.h"
#include "testing/Eval.h"
#include "testing/LongProgram.h"

namespace dmci {
namespace {

using test::evalErr;
using test::evalOk;

ExprPtr expandText(const std::string& src) {
  auto forms = readAll(src, "t.scm");
  if (!forms) {
    ADD_FAILURE() << forms.error().str();
    return nullptr;
  }
  auto core = expandProgram(*forms);
  if (!core) {
    ADD_FAILURE() << core.error().str();
    return nullptr;
  }
  return *core;
}

// (op (test x 0) (test x 1) ... (test x n-1)), as the body of (define (f x) ...).
std::string ladder(const char* op, const char* test, int n) {
  std::string s = std::string("(define (f x) (") + op;
  for (int i = 0; i < n; ++i) s += std::string(" (") + test + " x " + std::to_string(i) + ")";
  return s + "))\n";
}

TEST(LongPrograms, HundredThousandDefinesGiveTheirValue) {
  Evaluation ev = evalOk(test::longDefines(100000), Route::Direct);
  EXPECT_DOUBLE_EQ(ev.value, test::longDefinesValue(100000));
}

TEST(LongPrograms, HundredThousandBindingLetStarGivesItsValue) {
  EXPECT_EQ(evalOk(test::longLetStar(100000), Route::Direct).value, 100000);
}

TEST(LongPrograms, ACondOfHundredThousandClausesPicksTheMatchingOne) {
  std::string src = "(define (f x) (cond";
  for (int i = 0; i < 100000; ++i) src += " ((= x " + std::to_string(i) + ") " + std::to_string(2 * i) + ")";
  src += " (else -1)))\n(f 99998)";
  EXPECT_EQ(evalOk(src, Route::Direct).value, 199996);
}

TEST(LongPrograms, AnOrOfHundredThousandTestsFindsTheLast) {
  EXPECT_EQ(evalOk(ladder("or", "=", 100000) + "(if (f 99999) 1 0)", Route::Direct).value, 1);
}

TEST(LongPrograms, AnAndNestedPastTheLoweringLimitIsAFormErrorNotACrash) {
  Error e = evalErr(ladder("and", ">", 100000) + "(if (f 1e9) 1 0)", Route::Direct);
  EXPECT_EQ(e.kind, ErrorKind::Form) << e.str();
  EXPECT_NE(e.message.find("nested too deeply"), std::string::npos) << e.str();
}

// The dmci route builds the program as data by recursion: past 10,000 levels it is a clean error, not a crash.
TEST(LongPrograms, AHundredThousandBindingLetStarIsAFormErrorOnTheDmciRouteNotACrash) {
  Error e = evalErr(test::longLetStar(100000), Route::Dmci);
  EXPECT_EQ(e.kind, ErrorKind::Form) << e.str();
  EXPECT_NE(e.message.find("nested too deeply for the dmci route"), std::string::npos) << e.str();
  EXPECT_EQ(evalOk(test::longLetStar(2000), Route::Dmci).value, 2000);
}

// The dmci route is linear in program length: mce.scm reads a variable by its lexical address (a vector-ref of
// its frame), not by a scan. 2,000 defines run within the default budgets; 16,000 within 6.4 million steps
// (about 250 per define were measured; an evaluator whose references scan their frame needs billions), so a
// quadratic cost anywhere in the route fails this test by its step count, whatever the machine's speed.
TEST(LongPrograms, TwoThousandDefinesRunThroughTheEvaluatorWithinTheDefaultBudgets) {
  EXPECT_DOUBLE_EQ(evalOk(test::longDefines(2000), Route::Dmci).value, test::longDefinesValue(2000));
}

TEST(LongPrograms, SixteenThousandDefinesRunThroughTheEvaluatorInLinearlyManySteps) {
  Budget b;
  b.steps = 16000 * 400;
  auto ev = test::evaluate(test::longDefines(16000), test::options(Route::Dmci, {}, false, b));
  ASSERT_TRUE(ev.ok()) << ev.error().str();
  EXPECT_DOUBLE_EQ(ev->value, test::longDefinesValue(16000));
}

TEST(LongPrograms, FourThousandDefinesRunThroughTheTowerWithinTheDefaultBudgets) {
  EXPECT_DOUBLE_EQ(evalOk(test::longDefines(4000), Route::Dmci2).value, test::longDefinesValue(4000));
}

// mce.scm keeps a frame of at most 4 slots as a list and a longer one as a vector, and dmci/mce/Mce.cpp writes
// each reference's address by the same rule: every shape, at every depth, reads the right variable.
TEST(LongPrograms, FramesOfEveryShapeAndDepthReadTheirVariablesOnEveryRoute) {
  const std::string src =
      "(define (six a b c d e f) (lambda (g) (let ((h 100) (i 200) (j 300) (k 400) (l 500))"
      "  (let ((m 1000)) (let* ((n 2000) (o 3000)) (+ a (* 2 b) (* 3 c) (* 4 d) (* 5 e) (* 6 f) g h i j k l m n"
      "  o))))))\n"
      "(define (rest a b c d e . more) (+ a b c d e (apply + more)))\n"
      "(define (short a . more) (+ a (length more)))\n"
      "(define (four a b c d) (lambda () (- d c b a)))\n"
      "(letrec ((p 7) (q 8)) (+ ((six 1 2 3 4 5 6) 7) (rest 1 2 3 4 5 6 7) (short 9 9 9) ((four 1 2 3 40)) p q x))";
  const double want = (1 + 4 + 9 + 16 + 25 + 36 + 7 + 1500 + 6000) + 28 + 11 + 34 + 15 + 0.5;
  for (Route r : {Route::Direct, Route::Dmci, Route::Dmci2})
    EXPECT_EQ(evalOk(src, r, {{"x", 0.5}}).value, want) << routeName(r);
}

TEST(LongPrograms, AnAndOfFiveThousandTestsCompiles) {
  EXPECT_EQ(evalOk(ladder("and", ">", 5000) + "(if (f 1e9) 1 0)", Route::Direct).value, 1);
}

TEST(LongPrograms, TheCoreOfAHundredThousandBindingLetStarPrints) {
  ExprPtr core = expandText(test::longLetStar(100000));
  ASSERT_TRUE(core);
  std::string text = print(*core);
  EXPECT_EQ(text.substr(0, 25), "(let ((x0 (quote 1))) (le");
  std::string end = " x99999" + std::string(100000, ')');
  EXPECT_EQ(text.substr(text.size() - end.size()), end);
}

TEST(LongPrograms, TheFreeVariablesOfAHundredThousandBindingLetStarAreItsPrimitives) {
  ExprPtr core = expandText(test::longLetStar(100000));
  ASSERT_TRUE(core);
  EXPECT_EQ(freeVars(*core), std::vector<std::string>{"+"});
}

// ---------------------------------------------------------------------------
// Free variables and renaming (the passes that walk the whole program)

// Renames free `map` to `%map`, and records the free names it was asked about.
ExprPtr renameMap(const ExprPtr& e, std::vector<std::string>* asked = nullptr) {
  static const std::string kNew = "%map";
  return renameFree(e, [&](const std::string& n) -> const std::string* {
    if (asked) asked->push_back(n);
    return n == "map" ? &kNew : nullptr;
  });
}

TEST(FreeVars, AreListedInOrderOfFirstOccurrence) {
  ExprPtr core = expandText("(define (f x) (g x y)) (h (f z) y)");
  ASSERT_TRUE(core);
  EXPECT_EQ(freeVars(*core), (std::vector<std::string>{"g", "y", "h", "z"}));
}

TEST(FreeVars, ALetsNamesAreBoundInItsBodyOnly) {
  ExprPtr core = expandText("(let ((x x)) (let ((y x)) (+ y z)))");
  ASSERT_TRUE(core);
  EXPECT_EQ(freeVars(*core), (std::vector<std::string>{"x", "+", "z"}));
}

TEST(FreeVars, ALetrecsNamesAreBoundInItsInitsToo) {
  ExprPtr core = expandText("(letrec ((f (lambda () (g))) (g (lambda () (f)))) (f h))");
  ASSERT_TRUE(core);
  EXPECT_EQ(freeVars(*core), std::vector<std::string>{"h"});
}

TEST(RenameFree, RenamesFreeOccurrencesOnly) {
  ExprPtr core = expandText("(list (map car l) (let ((map 1)) map) (lambda (map) map))");
  ASSERT_TRUE(core);
  ExprPtr renamed = renameMap(core);
  EXPECT_EQ(print(*renamed), "(list (%map car l) (let ((map (quote 1))) map) (lambda (map) map))");
}

TEST(RenameFree, SharesTheSubtreesItDoesNotChange) {
  ExprPtr core = expandText("((lambda (a) a) (map car l))");
  ASSERT_TRUE(core);
  ExprPtr renamed = renameMap(core);
  EXPECT_NE(renamed, core);
  EXPECT_EQ(renamed->kids[0], core->kids[0]);  // the lambda mentions no map
}

TEST(RenameFree, ReturnsTheProgramItselfWhenNothingIsFree) {
  ExprPtr core = expandText("(let ((map 1)) map)");
  ASSERT_TRUE(core);
  EXPECT_EQ(renameMap(core), core);
}

TEST(RenameFree, AsksOnceForEachFreeNameInOrderOfFirstOccurrence) {
  ExprPtr core = expandText("(f (map g l) (map g m) (lambda (f) (h f)))");
  ASSERT_TRUE(core);
  std::vector<std::string> asked;
  renameMap(core, &asked);
  EXPECT_EQ(asked, (std::vector<std::string>{"f", "map", "g", "l", "m", "h"}));
}

}  // namespace
}  // namespace dmci
