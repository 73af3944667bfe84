// The smoothed gradients (smooth/Smooth.h) against analytic answers: the Heaviside step's smoothed derivative
// -phi(x/s)/s by smooth interpretation (to 1e-9) and by the Monte Carlo estimators pgo, reinforce and dgo (within 3
// standard errors), dgo's pathwise and branch terms apart, the
// same numbers by both routes and on the native and replay engines, and the checks that catch a wrong width.
#include "smooth/Smooth.h"

#include <gtest/gtest.h>

#include <cmath>

#include "driver/Engine.h"
#include "driver/Program.h"

namespace dmci::smooth {
namespace {

constexpr double kPi = 3.14159265358979323846;
double phi(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * kPi); }
double Phi(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

const char* kHeaviside = "(if (<= x 0) 1 0)";

Program parse(const std::string& src) {
  auto p = Program::fromText(src, "prog.scm");
  EXPECT_TRUE(p) << (p ? "" : p.error().message);
  return *p;
}

// si: the smoothed program's value and gradient in x, by a route and an engine.
Evaluation siRun(const std::string& src, double x, double sigma, Route route = Route::Direct,
                 const std::string& engine = "native", SiStats* stats = nullptr) {
  Program p = parse(src);
  SmoothSettings s;
  s.sigma = sigma;
  Program sp = p.withCore(smoothProgram(p.core(), {"x"}, s, stats));
  EvalOptions o;
  o.route = route;
  o.wrt = {"x"};
  auto e = engineNamed(engine);
  EXPECT_TRUE(e);
  auto ev = (*e)->evaluate(sp, {{"x", x}, {kSigmaName, sigma}}, o);
  EXPECT_TRUE(ev) << (ev ? "" : ev.error().message);
  return ev ? *ev : Evaluation{};
}

Estimate mcRun(const std::string& src, double x, SmoothSettings s, Route route = Route::Direct,
               const std::string& engine = "native") {
  Program p = parse(src);
  EvalOptions o;
  o.route = route;
  auto e = engineNamed(engine);
  EXPECT_TRUE(e);
  auto run = prepareMc(**e, p, {"x"}, {"x"}, s, o);
  EXPECT_TRUE(run) << (run ? "" : run.error().message);
  auto est = mcGradient(**run, {x}, {0}, s);
  EXPECT_TRUE(est) << (est ? "" : est.error().message);
  return *est;
}

TEST(SmoothSi, HeavisideHasTheSmoothedStepsDerivative) {
  for (double x : {0.0, 0.3, -0.7}) {
    SiStats st;
    Evaluation ev = siRun(kHeaviside, x, 0.5, Route::Direct, "native", &st);
    EXPECT_NEAR(ev.value, Phi(-x / 0.5), 1e-12) << x;
    ASSERT_EQ(ev.gradient.size(), 1u);
    EXPECT_NEAR(ev.gradient[0].second, -phi(x / 0.5) / 0.5, 1e-9) << x;
    EXPECT_EQ(st.smoothed, 1);
    EXPECT_EQ(st.crisp, 0);
  }
  EXPECT_NEAR(siRun(kHeaviside, 0, 0.5).gradient[0].second, -0.7978845608028654, 1e-9);
}

// positive? and negative? are comparisons with 0: (* amp (if (positive? x) 1 0)) is amp Phi(x/s).
TEST(SmoothSi, PositiveAndNegativeAreComparisonsWithZero) {
  SiStats st;
  Evaluation pos = siRun("(if (positive? x) 1 0)", 0.2, 0.5, Route::Direct, "native", &st);
  EXPECT_NEAR(pos.value, Phi(0.2 / 0.5), 1e-12);
  EXPECT_NEAR(pos.gradient[0].second, phi(0.2 / 0.5) / 0.5, 1e-12);
  EXPECT_EQ(st.smoothed, 1);
  Evaluation neg = siRun("(if (negative? (- x 1)) 1 0)", 0.2, 0.5);
  EXPECT_NEAR(neg.value, Phi(0.8 / 0.5), 1e-12);
  EXPECT_NEAR(neg.gradient[0].second, -phi(0.8 / 0.5) / 0.5, 1e-12);
}

// --smooth-dea: the width s |grad d|. (< x alpha) smoothed over both moves d = alpha - x with |grad d| = sqrt 2, so
// its probability is Phi(d / (s sqrt 2)), the exact smoothing of the condition; without dea it is Phi(d/s). A
// distance through a variable has the variable's slope where every binding gives it one constant slope; else it
// keeps s and is counted.
TEST(SmoothSi, DeaScalesEachWidthByTheDistancesGradient) {
  Program p = parse("(if (< x alpha) 1 0)");
  SmoothSettings s;
  s.sigma = 0.5;
  s.dea = true;
  SiStats st;
  Program sp = p.withCore(smoothProgram(p.core(), {"x", "alpha"}, s, &st));
  EXPECT_EQ(st.deaFallback, 0);
  EvalOptions o;
  o.wrt = {"alpha"};
  auto ev = sp.evaluate({{"x", 0.2}, {"alpha", 0.5}, {kSigmaName, 0.5}}, o);
  ASSERT_TRUE(ev) << ev.error().message;
  const double w = 0.5 * std::sqrt(2.0);
  EXPECT_NEAR(ev->value, Phi(0.3 / w), 1e-12);
  EXPECT_NEAR(ev->gradient[0].second, phi(0.3 / w) / w, 1e-12);
  s.dea = false;
  auto plain = p.withCore(smoothProgram(p.core(), {"x", "alpha"}, s))
                   .evaluate({{"x", 0.2}, {"alpha", 0.5}, {kSigmaName, 0.5}}, o);
  ASSERT_TRUE(plain);
  EXPECT_NEAR(plain->value, Phi(0.3 / 0.5), 1e-12);
  // (* 3 x): |grad d| = 3, the steep step smoothed as x itself would be.
  s.dea = true;
  Program q = parse("(if (<= (* 3 x) 0) 1 0)");
  EvalOptions ox;
  ox.wrt = {"x"};
  auto steep = q.withCore(smoothProgram(q.core(), {"x"}, s)).evaluate({{"x", 0.1}, {kSigmaName, 0.5}}, ox);
  ASSERT_TRUE(steep) << steep.error().message;
  EXPECT_NEAR(steep->gradient[0].second, -phi(0.1 / 0.5) / 0.5, 1e-12);
  // Through variables: v moves at x's half in every binding (the call, and the recursion's own), so the width is
  // s/2 and the step in v is smoothed as the step in x would be, Phi(-x/s), where plain si gives Phi(-x/(2 s)).
  Program half = parse("(define (f v n) (if (= n 0) (if (< v 0) 1 0) (f (+ v 0) (- n 1)))) (f (* 0.5 x) 3)");
  SiStats through;
  auto slope =
      half.withCore(smoothProgram(half.core(), {"x"}, s, &through)).evaluate({{"x", 0.2}, {kSigmaName, 0.5}}, ox);
  ASSERT_TRUE(slope) << slope.error().message;
  EXPECT_EQ(through.deaFallback, 0);
  EXPECT_NEAR(slope->value, Phi(-0.2 / 0.5), 1e-12);
  EXPECT_NEAR(slope->gradient[0].second, -phi(0.2 / 0.5) / 0.5, 1e-12);
  // A variable with two slopes (bound at x and at 2x), or one that moves nonlinearly, keeps s and is counted.
  for (const char* src :
       {"(define (f v) (if (< v 1) 1 0)) (+ (f x) (f (* 2 x)))", "(let ((v (* x x))) (if (< v 1) 1 0))"}) {
    SiStats local;
    Program r = parse(src);
    smoothProgram(r.core(), {"x"}, s, &local);
    EXPECT_EQ(local.smoothed, 1) << src;
    EXPECT_EQ(local.deaFallback, 1) << src;
  }
}

TEST(SmoothSi, BothRoutesAndEveryEngineAgree) {
  const std::string src = "(define (f k) (if (< k x) (+ 1 (f (+ k 1))) 0)) (* (f 0) (if (> (* x x) 2) x 1))";
  Evaluation direct = siRun(src, 1.3, 0.4);
  for (Route r : {Route::Direct, Route::Dmci})
    for (const char* engine : {"native", "replay"}) {
      Evaluation ev = siRun(src, 1.3, 0.4, r, engine);
      EXPECT_NEAR(ev.value, direct.value, 1e-12 * std::fabs(direct.value)) << routeName(r) << " " << engine;
      ASSERT_EQ(ev.gradient.size(), 1u);
      EXPECT_NEAR(ev.gradient[0].second, direct.gradient[0].second, 1e-12 * std::fabs(direct.gradient[0].second))
          << routeName(r) << " " << engine;
    }
  EXPECT_TRUE(std::isfinite(direct.gradient[0].second));
  EXPECT_NE(direct.gradient[0].second, 0.0);
}

// and, or, not combine as independent events: P(0 < x < 1) = Phi(x/s) Phi((1 - x)/s).
TEST(SmoothSi, AndOrNotCombineAsIndependentEvents) {
  const double x = 0.3, s = 0.4, a = Phi(x / s), b = Phi((1 - x) / s);
  const double da = phi(x / s) / s, db = -phi((1 - x) / s) / s;
  Evaluation both = siRun("(if (and (< 0 x) (< x 1)) 1 0)", x, s);
  EXPECT_NEAR(both.value, a * b, 1e-12);
  EXPECT_NEAR(both.gradient[0].second, da * b + a * db, 1e-12);
  Evaluation either = siRun("(if (or (< x 0) (> x 1)) 1 0)", x, s);
  EXPECT_NEAR(either.value, 1 - a * b, 1e-12);
  EXPECT_NEAR(either.gradient[0].second, -(da * b + a * db), 1e-12);
  Evaluation neither = siRun("(if (not (< x 0)) 1 0)", x, s);
  EXPECT_NEAR(neither.value, a, 1e-12);
  EXPECT_NEAR(neither.gradient[0].second, da, 1e-12);
}

// A comparison on data alone stays crisp: the program comes back as it was, and its numbers are today's.
TEST(SmoothSi, ComparisonsOnDataAloneStayCrisp) {
  Program p = parse("(define (f k acc) (if (= k 0) acc (f (- k 1) (* acc x)))) (if (< n 3) (f n 1) (f 3 x))");
  SmoothSettings s;
  s.sigma = 0.5;
  SiStats st;
  EXPECT_EQ(smoothProgram(p.core(), {"x"}, s, &st), p.core());
  EXPECT_EQ(st.smoothed, 0);
  EXPECT_EQ(st.crisp, 1);  // (< n 3); `=` is never smoothed
  // One dependent comparison smooths that one only.
  Program q = parse("(define (f k) (if (< k 2) (* k x) (f (- k 1)))) (if (< x (f 5)) 1 2)");
  SiStats sq;
  EXPECT_NE(smoothProgram(q.core(), {"x"}, s, &sq), q.core());
  EXPECT_EQ(sq.smoothed, 1);
  EXPECT_EQ(sq.crisp, 1);
}

// A named let's or a do loop's counter is data: its test at the bound stays crisp, so the loop runs its crisp number
// of iterations. The expander writes the loop as ((letrec* ((loop (lambda ...))) loop) init ...); the analysis took
// that first call for an escape and gave every parameter of the loop the program's dependence, so (>= i 3) at i = 3
// became probability 0.5 and the smoothed sum was 3.5 x (4.55 at x = 1.3) at any sigma. A test on a parameter in
// such a loop is still smoothed.
TEST(SmoothSi, ANamedLetsCounterAndALengthStayCrisp) {
  // Nothing smoothed, and the crisp value and gradient at x = 1.3.
  auto expectCrisp = [](const char* src, double value, double gradient) {
    SiStats st;
    Evaluation ev = siRun(src, 1.3, 0.01, Route::Direct, "native", &st);
    EXPECT_EQ(st.smoothed, 0) << src;
    EXPECT_NEAR(ev.value, value, 1e-12) << src;
    EXPECT_NEAR(ev.gradient[0].second, gradient, 1e-12) << src;
  };
  for (const char* src : {"(let loop ((i 0) (acc 0)) (if (>= i 3) acc (loop (+ i 1) (+ acc x))))",
                          "(do ((i 0 (+ i 1)) (acc 0 (+ acc x))) ((>= i 3) acc))",
                          "(let loop ((i 0) (acc 0)) (if (< i 3) (loop (+ i 1) (+ acc x)) acc))"})
    expectCrisp(src, 3.9, 3.0);
  // The length of a list that holds the parameter is its shape: a test on it stays crisp too.
  for (const char* src :
       {"(define (g l) (if (< (length l) 3) 1 2)) (* x (g (list 1 2 x)))",
        "(let loop ((rest (list x 2 3 4)) (acc 0)) (if (< (length rest) 3) (* x acc) (loop (cdr rest) (+ acc 1))))"})
    expectCrisp(src, 2.6, 2.0);
  SiStats st;
  Evaluation ev =
      siRun("(let loop ((v x) (n 0)) (if (< v 0) (loop (+ v 1) (+ n 1)) n))", -0.2, 0.5, Route::Direct, "native", &st);
  EXPECT_EQ(st.smoothed, 1);
  EXPECT_GT(ev.gradient[0].second * ev.gradient[0].second, 0.0);
}

// A forked if runs both arms in turn, so a set! in the program would leave the later arm's write, not a blend: si
// refuses it at the set!, and takes a program with set! that never forks.
TEST(SmoothSi, AForkInAProgramWithSetIsRefusedAtTheSet) {
  Program p = parse("(define y 0)\n(if (< x 0) (set! y (* 3 x)) (set! y (* 5 x)))\ny");
  SmoothSettings s;
  s.sigma = 0.5;
  try {
    smoothProgram(p.core(), {"x"}, s);
    ADD_FAILURE() << "smoothProgram took a forking program with set!";
  } catch (const DmciError& e) {
    EXPECT_EQ(e.error().pos.line, 2);
    EXPECT_EQ(e.error().pos.col, 13);
    EXPECT_NE(e.error().message.find("set!"), std::string::npos) << e.error().message;
  }
  // Without a fork: a value written by set! still counts as the parameter's (max on it is smoothed, not crisp).
  SiStats st;
  Evaluation ev = siRun("(define y 1) (set! y (* y x)) (max y 0)", 0.3, 0.5, Route::Direct, "native", &st);
  EXPECT_EQ(st.smoothed, 1);
  EXPECT_NEAR(ev.value, 0.3 * Phi(0.3 / 0.5) + 0.5 * phi(0.3 / 0.5), 1e-12);
  SmoothSettings dgo = s;
  dgo.mode = Mode::Mc;
  dgo.estimator = Estimator::Dgo;
  EvalOptions o;
  auto e = engineNamed("native");
  ASSERT_TRUE(e);
  auto run = prepareMc(**e, p, {"x"}, {"x"}, dgo, o);
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("set!"), std::string::npos) << run.error().message;
}

// A vector that vector-set! writes holds what is written, through every alias of it, which the dependence analysis
// does not follow: si refuses a program that names vector-set! (or vector-fill!) at the name, fork or not.
TEST(SmoothSi, AProgramThatWritesAVectorIsRefusedAtTheName) {
  Program p = parse("(define v (vector 0))\n(vector-set! v 0 x)\n(max (vector-ref v 0) 0)");
  SmoothSettings s;
  s.sigma = 0.5;
  try {
    smoothProgram(p.core(), {"x"}, s);
    ADD_FAILURE() << "smoothProgram took a program with vector-set!";
  } catch (const DmciError& e) {
    EXPECT_EQ(e.error().pos.line, 2);
    EXPECT_EQ(e.error().pos.col, 2);
    EXPECT_NE(e.error().message.find("vector-set!"), std::string::npos) << e.error().message;
  }
}

// A procedure stored in a list escapes: its parameters may receive a parameter's value, so its test is smoothed;
// one mapped over data alone stays crisp.
TEST(SmoothSi, AnEscapingProcedureIsSmoothedAndOneMappedOverDataIsNot) {
  Evaluation stored = siRun("(define g (lambda (y) (if (< y 0) 1 0))) (define h (list g)) ((car h) x)", 0.2, 0.5);
  EXPECT_NEAR(stored.gradient[0].second, -phi(0.2 / 0.5) / 0.5, 1e-12);
  SiStats st;
  Evaluation mapped = siRun("(+ x (fold-left + 0 (map (lambda (k) (if (< k 2) 1 0)) (list 1 2 3))))", 0.2, 0.5,
                            Route::Direct, "native", &st);
  EXPECT_EQ(st.smoothed, 0);
  EXPECT_EQ(mapped.value, 1.2);
}

// Two values that are not both numbers (lists here) cannot be blended: the smoothed `if` takes the likelier arm,
// which is the crisp outcome (p < 0.5 exactly when the comparison is false), so that comparison acts crisply and
// contributes no gradient; a number computed after it is still smoothed where it branches again.
// Two lists of one shape blend element by element; values that cannot be blended (lists of two shapes, different
// symbols, procedures) take the likelier arm.
TEST(SmoothSi, ListsOfOneShapeBlendAndOtherValuesTakeTheLikelierArm) {
  for (double x : {-0.1, 0.1}) {
    const double p = Phi(-x / 0.5);
    Evaluation ev = siRun("(+ (cadr (if (< x 0) (list 'a 1) (list 'a 2))) (if (< x 0) 10 20))", x, 0.5);
    EXPECT_NEAR(ev.value, p * 1 + (1 - p) * 2 + 10 * p + 20 * (1 - p), 1e-12) << x;
    EXPECT_NEAR(ev.gradient[0].second, (1 + 10) * phi(x / 0.5) / 0.5, 1e-12) << x;  // (1 - 2 + 10 - 20) dp/dx
    Evaluation twoShapes = siRun("(length (if (< x 0) (list 1) (list 1 2)))", x, 0.5);
    EXPECT_EQ(twoShapes.value, x < 0 ? 1 : 2) << x;
    Evaluation symbols = siRun("(cadr (if (< x 0) (list 'a 1) (list 'b 2)))", x, 0.5);
    EXPECT_EQ(symbols.value, x < 0 ? 1 : 2) << x;
    Evaluation procs = siRun("((if (< x 0) (lambda () 1) (lambda () 2)))", x, 0.5);
    EXPECT_EQ(procs.value, x < 0 ? 1 : 2) << x;
  }
}

// The path budget: an `if` on a smoothed test in the tail of a recursion forks every path after it, 2^6 leaves below.
// At x = 0 each test is true with probability 1/2, so the value is the mean of the leaves that run, each the binary
// number of its choices (true: 1). With no limit all 64 run: 31.5. With a budget of M = 2^m paths the first m forks
// share it evenly and a single path then takes the likelier (true) arm: prefixes 0 .. M - 1 followed by 6 - m ones,
// a mean of (M - 1)/2 2^(6 - m) + 2^(6 - m) - 1; one path is all true, 63.
TEST(SmoothSi, ThePathBudgetBoundsThePathsForksRun) {
  const std::string src =
      "(define (f k acc) (if (= k 0) acc (if (< x 0) (f (- k 1) (+ (* 2 acc) 1)) (f (- k 1) (* 2 acc))))) (f 6 0)";
  Program p = parse(src);
  for (int64_t m : {0, 1, 2, 4, 8, 64}) {
    SmoothSettings s;
    s.sigma = 0.5;
    s.maxPaths = m;
    SiStats st;
    Program sp = p.withCore(smoothProgram(p.core(), {"x"}, s, &st));
    EXPECT_EQ(st.forks, 1);
    EXPECT_EQ(st.threaded, 1);
    for (Route r : {Route::Direct, Route::Dmci}) {
      EvalOptions o;
      o.route = r;
      auto ev = sp.evaluate({{"x", 0.0}, {kSigmaName, 0.5}}, o);
      ASSERT_TRUE(ev) << ev.error().message;
      const double paths = m == 0 ? 64 : static_cast<double>(std::min<int64_t>(m, 64));
      const double rest = 64 / paths;  // 2^(6 - m)
      EXPECT_DOUBLE_EQ(ev->value, (paths - 1) / 2 * rest + rest - 1) << m << " " << routeName(r);
    }
  }
}

// An arm below the minimum weight is not run: with the default it ends the unbounded recursion below and the value is
// the smoothed count. With the weight 0 the path budget alone ends it (where a single path is left, the unlikelier
// arm is not run); with neither it never ends, and the step budget says so.
TEST(SmoothSi, TheMinimumWeightEndsRecursionOnASmoothedTest) {
  Program p = parse("(define (f k) (if (< k x) (+ 1 (f (+ k 1))) 0)) (f 0)");
  SmoothSettings s;
  s.sigma = 0.25;
  EvalOptions o;
  o.wrt = {"x"};
  auto ev = p.withCore(smoothProgram(p.core(), {"x"}, s)).evaluate({{"x", 2.5}, {kSigmaName, 0.25}}, o);
  ASSERT_TRUE(ev) << ev.error().message;
  // The count of k = 0, 1, 2, ... below x: each step k is taken with probability Phi((x - k)/s) given the last.
  double expect = 0, reach = 1;
  for (int k = 0; k < 40; ++k) reach *= Phi((2.5 - k) / 0.25), expect += reach;
  EXPECT_NEAR(ev->value, expect, 1e-9);
  s.minWeight = 0;
  auto bounded = p.withCore(smoothProgram(p.core(), {"x"}, s)).evaluate({{"x", 2.5}, {kSigmaName, 0.25}}, o);
  ASSERT_TRUE(bounded) << bounded.error().message;  // the path budget alone ends it: one path takes the likelier arm
  EXPECT_NEAR(bounded->value, expect, 1e-9);
  s.maxPaths = 0;
  o.budget.steps = 200000;
  auto endless = p.withCore(smoothProgram(p.core(), {"x"}, s)).evaluate({{"x", 2.5}, {kSigmaName, 0.25}}, o);
  EXPECT_FALSE(endless);
}

// pgo, reinforce and dgo at 1,000 samples: within 3 standard errors of -phi(0)/s; an estimate made with a wrong
// width is not, so the check can fail.
// abs, max and min on a parameter are their Gaussian smoothings, in closed form: E|x + s u| = x (2 Phi(x/s) - 1) +
// 2 s phi(x/s) with derivative 2 Phi(x/s) - 1; E max(x + s u, 0) = x Phi(x/s) + s phi(x/s) with derivative
// Phi(x/s); E min(x + s u, c) = c - (c - x) Phi((c - x)/s) - s phi((c - x)/s) with derivative Phi((c - x)/s).
// (apply max (list ...)) is max. Far from the kink they are exactly the crisp function.
TEST(SmoothSi, AbsMaxAndMinAreTheirGaussianSmoothings) {
  for (double s : {0.1, 0.7})
    for (double x : {0.0, 0.05, -0.3, 1.1}) {
      const double z = x / s;
      SiStats st;
      Evaluation a = siRun("(abs x)", x, s, Route::Direct, "native", &st);
      EXPECT_NEAR(a.value, x * (2 * Phi(z) - 1) + 2 * s * phi(z), 1e-12) << x << " " << s;
      EXPECT_NEAR(a.gradient[0].second, 2 * Phi(z) - 1, 1e-12) << x << " " << s;
      EXPECT_EQ(st.smoothed, 1);
      for (const char* src : {"(max x 0)", "(max 0 x)", "(apply max (list x 0))", "(max x -9 (min 0 20))"}) {
        Evaluation m = siRun(src, x, s);
        EXPECT_NEAR(m.value, x * Phi(z) + s * phi(z), 1e-12) << src << " " << x << " " << s;
        EXPECT_NEAR(m.gradient[0].second, Phi(z), 1e-12) << src << " " << x << " " << s;
      }
      const double c = 0.2, zc = (c - x) / s;
      Evaluation n = siRun("(min x 0.2)", x, s);
      EXPECT_NEAR(n.value, c - (c - x) * Phi(zc) - s * phi(zc), 1e-12) << x << " " << s;
      EXPECT_NEAR(n.gradient[0].second, Phi(zc), 1e-12) << x << " " << s;
    }
  Evaluation far = siRun("(+ (abs x) (max x 0) (min x 0))", -3, 0.1);
  EXPECT_EQ(far.value, 3 + 0 - 3);
  EXPECT_EQ(far.gradient[0].second, -1 + 0 + 1);
  // The smoothing is what the crisp function's values average to, a pgo estimate agrees, where the distance
  // d = (1 - x) - 2x moves with unit gradient or with --smooth-dea (width s |grad d| = 3 s); at width s it does not.
  Program p = parse("(max (* 2 x) (- 1 x))");
  SmoothSettings ds;
  ds.sigma = 0.2;
  ds.dea = true;
  EvalOptions o;
  o.wrt = {"x"};
  auto mx = p.withCore(smoothProgram(p.core(), {"x"}, ds)).evaluate({{"x", 0.3}, {kSigmaName, 0.2}}, o);
  ASSERT_TRUE(mx) << mx.error().message;
  Evaluation narrow = siRun("(max (* 2 x) (- 1 x))", 0.3, 0.2);
  SmoothSettings ms;
  ms.sigma = 0.2;
  ms.mode = Mode::Mc;
  ms.samples = 20000;
  Estimate ref = mcRun("(max (* 2 x) (- 1 x))", 0.3, ms);
  EXPECT_NEAR(mx->gradient[0].second, ref.gradient[0], 4 * ref.gradientError[0]);
  EXPECT_GT(std::fabs(narrow.gradient[0].second - ref.gradient[0]), 10 * ref.gradientError[0]);
}

// floor, ceiling, round and truncate on a parameter are steps: E floor(x + s u) = sum over integers j of
// Phi((x - j)/s) - [j <= 0], ceiling x = -floor(-x), round x = floor(x + 1/2), truncate x = floor x + [x < 0].
TEST(SmoothSi, StepFunctionsAreSumsOfSmoothedSteps) {
  auto floorS = [](double x, double s) {
    double v = 0;
    for (int j = -60; j <= 60; ++j) v += Phi((x - j) / s) - (j <= 0);
    return v;
  };
  auto floorD = [](double x, double s) {
    double v = 0;
    for (int j = -60; j <= 60; ++j) v += phi((x - j) / s) / s;
    return v;
  };
  for (double s : {0.1, 0.6, 2.5})
    for (double x : {2.0, 0.4, -1.3}) {
      Evaluation f = siRun("(floor x)", x, s), c = siRun("(ceiling x)", x, s), r = siRun("(round x)", x, s),
                 t = siRun("(truncate x)", x, s);
      EXPECT_NEAR(f.value, floorS(x, s), 1e-11) << x << " " << s;
      EXPECT_NEAR(f.gradient[0].second, floorD(x, s), 1e-11) << x << " " << s;
      EXPECT_NEAR(c.value, -floorS(-x, s), 1e-11) << x << " " << s;
      EXPECT_NEAR(r.value, floorS(x + 0.5, s), 1e-11) << x << " " << s;
      EXPECT_NEAR(r.gradient[0].second, floorD(x + 0.5, s), 1e-11) << x << " " << s;
      EXPECT_NEAR(t.value, floorS(x, s) + Phi(-x / s), 1e-11) << x << " " << s;
    }
  // No input loops: infinite and NaN operands are floor's own answer, a huge width x - 1/2.
  EXPECT_EQ(siRun("(floor x)", HUGE_VAL, 0.1).value, HUGE_VAL);
  EXPECT_TRUE(std::isnan(siRun("(floor x)", std::nan(""), 0.1).value));
  EXPECT_NEAR(siRun("(floor x)", 0.3, 1e9).value, 0.3 - 0.5, 1e-12);
}

// (atan y x) steps by 2 pi across its branch cut: with x fixed at -1 and y smoothed, d/dy E atan2(y + s u, -1) is
// E[-1/(1 + (y + s u)^2)] + 2 pi phi(y/s)/s. si takes the smooth part at the mean (-1/(1 + y^2)): within s^2 of it.
TEST(SmoothSi, Atan2sBranchCutIsASmoothedStep) {
  const double s = 0.1;
  Program p = parse("(atan y -1)");
  SmoothSettings st;
  st.sigma = s;
  Program sp = p.withCore(smoothProgram(p.core(), {"y"}, st));
  EvalOptions o;
  o.wrt = {"y"};
  for (double y : {0.0, 0.05}) {
    auto ev = sp.evaluate({{"y", y}, {kSigmaName, s}}, o);
    ASSERT_TRUE(ev) << ev.error().message;
    double smoothPart = 0;  // Simpson over u in [-10, 10]
    const int n = 2000;
    for (int i = 0; i <= n; ++i) {
      const double u = -10 + 20.0 * i / n, wt = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
      smoothPart += wt * phi(u) * -1 / (1 + (y + s * u) * (y + s * u));
    }
    smoothPart *= 20.0 / n / 3;
    const double exact = smoothPart + 2 * kPi * phi(y / s) / s;
    EXPECT_NEAR(ev->gradient[0].second, exact, s * s) << y;
    EXPECT_GT(std::fabs(ev->gradient[0].second - exact), 1e-4) << y;  // the mean's approximation, not exact
  }
}

// A use of abs, min, max, floor or atan on data alone stays crisp: the program comes back unchanged.
TEST(SmoothSi, BranchPrimitivesOnDataAloneStayCrisp) {
  Program p = parse("(define n 2.5) (* x (+ (abs (- n 3)) (max n 1) (apply min (list n 4)) (floor n) (atan n -1)))");
  SiStats st;
  EXPECT_EQ(smoothProgram(p.core(), {"x"}, SmoothSettings{.sigma = 0.1}, &st), p.core());
  EXPECT_EQ(st.smoothed, 0);
}

TEST(SmoothMc, HeavisideEstimatesLieWithinThreeStandardErrors) {
  const double truth = -phi(0) / 0.5;
  for (Estimator est : {Estimator::Pgo, Estimator::Reinforce, Estimator::Dgo}) {
    SmoothSettings s;
    s.mode = Mode::Mc;
    s.estimator = est;
    s.sigma = 0.5;
    s.samples = 1000;
    s.seed = 7;
    Estimate e = mcRun(kHeaviside, 0, s);
    EXPECT_EQ(e.runs, 1000);
    ASSERT_EQ(e.gradient.size(), 1u);
    EXPECT_GT(e.gradientError[0], 0);
    EXPECT_LT(e.gradientError[0], 0.1);
    EXPECT_LT(std::fabs(e.gradient[0] - truth), 3 * e.gradientError[0]) << estimatorName(est);
    EXPECT_LT(std::fabs(e.value - 0.5), 3 * e.valueError + 1e-12) << estimatorName(est);
    s.sigma = 0.25;  // the answer for 0.5 is wrong here, by about 10 standard errors
    Estimate wrong = mcRun(kHeaviside, 0, s);
    EXPECT_GT(std::fabs(wrong.gradient[0] - truth), 3 * wrong.gradientError[0]) << estimatorName(est);
  }
}

TEST(SmoothMc, TheSameSeedGivesTheSameNumbersOnEveryRouteAndEngine) {
  const std::string src = "(define (f k) (if (< k x) (+ 1 (f (+ k 1))) 0)) (* x (f 0))";
  for (Estimator est : {Estimator::Pgo, Estimator::Dgo}) {
    SmoothSettings s;
    s.mode = Mode::Mc;
    s.estimator = est;
    s.sigma = 0.3;
    s.samples = 200;
    s.seed = 11;
    Estimate ref = mcRun(src, 1.7, s);
    for (Route r : {Route::Direct, Route::Dmci})
      for (const char* engine : {"native", "replay"}) {
        Estimate e = mcRun(src, 1.7, s, r, engine);
        EXPECT_EQ(e.value, ref.value) << routeName(r) << " " << engine << " " << estimatorName(est);
        EXPECT_EQ(e.gradient, ref.gradient) << routeName(r) << " " << engine << " " << estimatorName(est);
        EXPECT_EQ(e.gradientError, ref.gradientError) << routeName(r) << " " << engine << " " << estimatorName(est);
      }
    s.seed = 12;
    EXPECT_NE(mcRun(src, 1.7, s).gradient, ref.gradient);  // another seed, other draws
  }
}

// dgo = the perturbed runs' AD gradients + the branch term. On a program with no branch on x the branch term is
// absent and dgo is the mean of the runs' exact gradients: for x^3, 3 E[(x + s u)^2] = 3 (x^2 + s^2). On the step
// the runs' AD gradients are all 0, so the whole answer is the branch term: the kernel estimate at 0 of the
// condition x + s u times its gradient 1 and the jump 1, whose mean over u is -phi(0)/sqrt(s^2 + h^2).
TEST(SmoothMc, DgoIsThePathwiseGradientPlusTheBranchTerm) {
  SmoothSettings s;
  s.mode = Mode::Mc;
  s.estimator = Estimator::Dgo;
  s.sigma = 0.5;
  s.samples = 4000;
  s.seed = 5;
  Estimate cube = mcRun("(* x x x)", 1.0, s);
  EXPECT_LT(std::fabs(cube.gradient[0] - 3 * (1 + 0.25)), 3 * cube.gradientError[0]);
  s.bandwidth = 0.4;  // wide enough that the kernel's own smoothing shows: the answer for width 0.5 is 4 errors away
  Estimate step = mcRun(kHeaviside, 0, s);
  const double widened = -phi(0) / std::sqrt(0.25 + 0.16);
  EXPECT_LT(std::fabs(step.gradient[0] - widened), 3 * step.gradientError[0]);
  EXPECT_GT(std::fabs(step.gradient[0] + phi(0) / 0.5), 3 * step.gradientError[0]);
  EXPECT_DOUBLE_EQ(dgoBandwidth(s), 0.4);
  s.bandwidth = 0;
  EXPECT_DOUBLE_EQ(dgoBandwidth(s), 1.06 * 0.5 * std::pow(4000.0, -0.2));
}

TEST(SmoothSettingsCheck, BadSettingsAreRefusedWithTheReason) {
  SmoothSettings s;
  s.sigma = 0.5;
  EXPECT_FALSE(checkSettings(s));
  for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    s.sigma = bad;
    auto why = checkSettings(s);
    ASSERT_TRUE(why) << bad;
    EXPECT_NE(why->find("positive"), std::string::npos) << *why;
  }
  s.sigma = 0.5;
  s.samples = -3;
  ASSERT_TRUE(checkSettings(s));
  EXPECT_NE(checkSettings(s)->find("negative"), std::string::npos);
  s.samples = 1;
  s.mode = Mode::Mc;
  ASSERT_TRUE(checkSettings(s));
  s.samples = 2;
  EXPECT_FALSE(checkSettings(s));
  s.minWeight = 0.5;
  EXPECT_TRUE(checkSettings(s));
  s.minWeight = 1e-20;
  s.maxPaths = -1;
  ASSERT_TRUE(checkSettings(s));
  EXPECT_NE(checkSettings(s)->find("--smooth-max-paths"), std::string::npos);
  s.maxPaths = 0;  // no limit
  EXPECT_FALSE(checkSettings(s));
  for (double bad : {-0.1, HUGE_VAL, std::nan("")}) {
    s.bandwidth = bad;
    ASSERT_TRUE(checkSettings(s)) << bad;
    EXPECT_NE(checkSettings(s)->find("--smooth-bandwidth"), std::string::npos);
  }
  s.bandwidth = 0.1;
  EXPECT_FALSE(checkSettings(s));
}

}  // namespace
}  // namespace dmci::smooth
