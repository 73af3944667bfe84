// `dmci grad --smooth` and `dmci fit --smooth` as processes: the smoothed Heaviside derivative printed by both
// routes, the Monte Carlo estimate with its standard error, the bad settings refused with exit 2 and the reason, and
// the threshold model whose threshold only the smoothed fit moves, si and mc (one start here; ci/smooth-fit runs
// ten).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "testing/CliFixture.h"

namespace {

using dmci::testing::Outcome;

class SmoothCli : public dmci::testing::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    write("step.scm", "(if (<= x 0) 1 0)\n");
  }
  // The JSON of `dmci grad` on the step, less the time the estimate took (checked present and not negative).
  nlohmann::json grad(const std::string& args) {
    Outcome o = dmci("grad step.scm --bind x=0 --json " + args);
    EXPECT_EQ(o.code, 0) << o.err;
    if (o.code != 0) return nlohmann::json{};
    auto j = nlohmann::json::parse(o.out);
    EXPECT_GE(j["smooth"]["seconds"].get<double>(), 0.0);
    j["smooth"].erase("seconds");
    return j;
  }
  void expectRefused(const std::string& args, const std::string& words) {
    Outcome o = dmci(args);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.out << o.err;
    EXPECT_NE(o.err.find(words), std::string::npos) << args << "\n" << o.err;
    EXPECT_EQ(o.out, "") << args;
  }
};

TEST_F(SmoothCli, SiGivesTheSmoothedStepsDerivativeByBothRoutes) {
  for (const char* via : {"direct", "dmci"}) {
    auto j = grad(std::string("--smooth 0.5 --via ") + via);
    EXPECT_NEAR(j["gradient"]["x"].get<double>(), -0.7978845608028654, 1e-9) << via;
    EXPECT_NEAR(j["value"].get<double>(), 0.5, 1e-12) << via;
    EXPECT_EQ(j["smooth"]["smoothed_comparisons"], 1);
  }
  Outcome text = dmci("grad step.scm --bind x=0 --smooth 0.5");
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("d/d x = -0.79788456080"), std::string::npos) << text.out;
}

// Every engine runs the smoothed program: the same value and gradient (the tensor engine joins normal-cdf's
// partial to its autograd graph: without it the gradient lost the smoothed comparisons' terms).
TEST_F(SmoothCli, EveryEngineGivesTheSameSmoothedGradient) {
  write("count.scm", "(define (f k) (if (< k x) (+ 1 (f (+ k 1))) 0)) (* (f 0) (if (> (* x x) 2) x 1))\n");
  std::vector<std::string> engines = {"native", "replay", "compiled"};
#ifdef DMCI_HAVE_TORCH
  engines.push_back("tensor");
#endif
  auto run = [&](const std::string& engine, const std::string& via) {
    Outcome o = dmci("grad count.scm --bind x=1.3 --smooth 0.4 --json --engine " + engine + " --via " + via);
    EXPECT_EQ(o.code, 0) << o.err;
    return o.code == 0 ? nlohmann::json::parse(o.out) : nlohmann::json{};
  };
  auto ref = run("native", "direct");
  for (const auto& e : engines)
    for (const char* via : {"direct", "dmci"}) {
      auto j = run(e, via);
      EXPECT_NEAR(j["value"].get<double>(), ref["value"].get<double>(), 1e-12) << e << " " << via;
      EXPECT_NEAR(j["gradient"]["x"].get<double>(), ref["gradient"]["x"].get<double>(), 1e-10) << e << " " << via;
    }
}

TEST_F(SmoothCli, McPrintsEachEstimateWithItsStandardError) {
  auto direct = grad("--smooth 0.5 --smooth-mode mc --samples 1000 --seed 3");
  auto viaDmci = grad("--smooth 0.5 --smooth-mode mc --samples 1000 --seed 3 --via dmci --engine replay");
  EXPECT_EQ(direct, viaDmci);
  double g = direct["gradient"]["x"].get<double>(), e = direct["gradient_error"]["x"].get<double>();
  EXPECT_GT(e, 0);
  EXPECT_LT(std::fabs(g + 0.7978845608028654), 3 * e);
  EXPECT_EQ(direct["smooth"]["runs"], 1000);
  EXPECT_EQ(direct["smooth"]["estimator"], "pgo");
  auto rf = grad("--smooth 0.5 --smooth-mode mc --estimator reinforce --samples 1000 --seed 3");
  EXPECT_LT(std::fabs(rf["gradient"]["x"].get<double>() + 0.7978845608028654),
            3 * rf["gradient_error"]["x"].get<double>());
  auto dgo = grad("--smooth 0.5 --smooth-mode mc --estimator dgo --samples 1000 --seed 3");
  EXPECT_EQ(dgo, grad("--smooth 0.5 --smooth-mode mc --estimator dgo --samples 1000 --seed 3 --via dmci"));
  EXPECT_EQ(dgo["smooth"]["estimator"], "dgo");
  EXPECT_EQ(dgo["smooth"]["smoothed_comparisons"], 1);
  EXPECT_LT(std::fabs(dgo["gradient"]["x"].get<double>() + 0.7978845608028654),
            3 * dgo["gradient_error"]["x"].get<double>());
  Outcome text = dmci("grad step.scm --bind x=0 --smooth 0.5 --smooth-mode mc --samples 100");
  EXPECT_NE(text.out.find("d/d x = "), std::string::npos);
  EXPECT_NE(text.out.find(" +/- "), std::string::npos) << text.out;
}

// --smooth-dea widens (< x alpha) smoothed over both to SIGMA sqrt 2 and says how many widths it could not derive.
TEST_F(SmoothCli, DeaWidensEachComparisonByItsGradient) {
  write("thr.scm", "(if (< x alpha) 1 0)\n");
  Outcome o = dmci("grad thr.scm --bind x=0 --bind alpha=0 --smooth 0.5 --smooth-dea --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_NEAR(j["gradient"]["alpha"].get<double>(), 0.3989422804014327 / (0.5 * std::sqrt(2.0)), 1e-12);
  EXPECT_EQ(j["smooth"]["dea_fallback"], 0);
}

TEST_F(SmoothCli, BadSettingsAreRefused) {
  expectRefused("grad step.scm --bind x=0 --smooth 0", "positive");
  expectRefused("grad step.scm --bind x=0 --smooth -0.5", "positive");
  expectRefused("grad step.scm --bind x=0 --smooth 0.5 --smooth-mode mc --samples -4", "negative");
  expectRefused("grad step.scm --bind x=0 --smooth 0.5 --smooth-mode mc --samples 1", "at least 2");
  expectRefused("grad step.scm --bind x=0 --samples 100", "--samples needs --smooth");
  expectRefused("grad step.scm --bind x=0 --smooth 0.5 --via lantern", "lantern");
  expectRefused("grad step.scm --bind x=0 --smooth 0.5 --wrt literals", "named parameters");
  expectRefused("grad step.scm --bind 'x=linspace(0,1,3)' --smooth 0.5", "one point");
  expectRefused("grad step.scm --bind x=0 --smooth 0.5 --smooth-mode gauss", "gauss");
  expectRefused("grad step.scm --bind x=0 --smooth 0.5 --smooth-mode mc --estimator dgo --smooth-bandwidth -1",
                "--smooth-bandwidth");
  expectRefused("grad step.scm --bind x=0 --smooth-bandwidth 0.1", "--smooth-bandwidth needs --smooth");
  expectRefused("grad step.scm --bind x=0 --smooth-dea", "--smooth-dea needs --smooth");
  expectRefused("grad step.scm --bind x=0 --smooth 0.5 --smooth-mode mc --samples 200000000", "at most");
  expectRefused("grad step.scm --bind x=0 --smooth 0.5 --smooth-max-paths -1", "--smooth-max-paths");
  write("thr.scm", "(if (< x alpha) (* beta x) (* gamma x))\n");
  write("d.csv", "x,y\n0.5,1\n1.5,0.75\n");
  expectRefused("fit thr.scm --data d.csv --target y --bind alpha=0.5 --smooth 0", "positive");
  expectRefused("fit thr.scm --data d.csv --target y --bind alpha=0.5 --smooth-anneal", "needs --smooth");
  // dmci fit --smooth-mode mc: the objective is noisy (fresh draws at every evaluation), so a line search or trust
  // region is refused; a population method needs no gradient at all; an mc option needs mc, and mc needs --smooth.
  const std::string fit = "fit thr.scm --data d.csv --target y --bind alpha=0.5 ";
  for (const char* optimizer : {"lm", "dogleg", "lbfgs", "bfgs", "torch-lbfgs"})
    expectRefused(fit + "--smooth 0.5 --smooth-mode mc --optimizer " + optimizer, "noisy");
  expectRefused(fit + "--smooth 0.5 --optimizer de", "uses no gradient");
  expectRefused(fit + "--smooth 0.5 --smooth-mode mc --optimizer cmaes", "uses no gradient");
  expectRefused(fit + "--smooth 0.5 --estimator dgo", "--estimator needs --smooth-mode mc");
  expectRefused(fit + "--smooth 0.5 --samples 10", "--samples needs --smooth-mode mc");
  expectRefused(fit + "--smooth 0.5 --smooth-mode mc --smooth-bandwidth 0.1", "--smooth-bandwidth needs");
  expectRefused(fit + "--smooth 0.5 --smooth-mode mc --estimator pgo --smooth-dea", "--smooth-dea");
  expectRefused(fit + "--smooth 0.5 --smooth-mode mc --samples 1", "at least 2");
  expectRefused(fit + "--smooth -0.5 --smooth-mode mc", "positive");
  expectRefused(fit + "--smooth-mode mc --estimator dgo", "needs --smooth");
  expectRefused(fit + "--samples 10", "--samples needs --smooth");
  expectRefused(fit + "--smooth-dea", "--smooth-dea needs --smooth");
}

// The threshold model, data from alpha = 1, beta = 2, gamma = 0.5 on a grid of x in [0, 2]: the crisp fit cannot
// move alpha (its gradient is 0); the annealed smoothed fit finds it to 1e-3, with a crisp loss of (nearly) 0.
TEST_F(SmoothCli, OnlyTheSmoothedFitFindsTheThreshold) {
  write("thr.scm", "(if (< x alpha) (* beta x) (* gamma x))\n");
  write("d.csv", dmci::testing::thresholdCsv(2000));
  const std::string fit =
      "fit thr.scm --data d.csv --target y --bind alpha=0.35 --bind beta=1 --bind gamma=1 --json -q";
  Outcome crisp = dmci(fit);
  ASSERT_EQ(crisp.code, 0) << crisp.err;
  auto c = nlohmann::json::parse(crisp.out);
  EXPECT_EQ(c["params"]["alpha"].get<double>(), 0.35);
  Outcome smooth = dmci(fit + " --smooth 0.5 --smooth-anneal");
  ASSERT_EQ(smooth.code, 0) << smooth.err;
  auto s = nlohmann::json::parse(smooth.out);
  EXPECT_NEAR(s["params"]["alpha"].get<double>(), 1.0, 1e-3) << smooth.out;
  EXPECT_LT(s["loss"].get<double>(), 1e-5) << smooth.out;
  EXPECT_GT(c["loss"].get<double>(), 1e-2) << crisp.out;
  EXPECT_TRUE(s.contains("smoothed_loss"));
}

// The threshold model on a coarser grid (201 x in [0, 2], spacing 0.01; ci/smooth-fit --mc runs 10 starts on the
// 2,001-point grid), fitted by Monte Carlo smoothing of the loss (adam, 60 steps in each of 6 stages, 20 samples a
// step). Tolerance: the crisp loss is the same for every alpha in (0.99, 1] (no x lies between), so the data fix
// alpha only to that gap; measured from starts 0.05, 0.35, 0.7, 1.3, 1.7 and 1.95, dgo and pgo all ended in
// [0.9911, 0.9979] with a crisp loss of at most 4.1e-5 (dgo 8e-8).
class SmoothFitMc : public SmoothCli {
 protected:
  void SetUp() override {
    SmoothCli::SetUp();
    write("thr.scm", "(if (< x alpha) (* beta x) (* gamma x))\n");
    write("d.csv", dmci::testing::thresholdCsv(200));
  }
  // The fit's JSON, less its time (checked present).
  nlohmann::json fit(const std::string& args) {
    Outcome o = dmci("fit thr.scm --data d.csv --target y --bind beta=1 --bind gamma=1 --json -q " + args);
    EXPECT_EQ(o.code, 0) << args << "\n" << o.err;
    if (o.code != 0) return nlohmann::json{};
    auto j = nlohmann::json::parse(o.out);
    EXPECT_GE(j["seconds"].get<double>(), 0.0);
    j.erase("seconds");
    return j;
  }
  void expectThreshold(const std::string& estimator) {
    auto j =
        fit("--bind alpha=0.35 --smooth 0.5 --smooth-anneal --smooth-mode mc --samples 20 --steps 60 --estimator " +
            estimator);
    ASSERT_TRUE(j.contains("params"));
    const double alpha = j["params"]["alpha"].get<double>();
    EXPECT_GT(alpha, 0.99) << j;
    EXPECT_LE(alpha, 1.0) << j;
    EXPECT_LT(j["loss"].get<double>(), 1e-3) << j;
    EXPECT_EQ(j["optimizer"], "adam");  // mc's default
    EXPECT_EQ(j["smooth"]["mode"], "mc");
    EXPECT_EQ(j["smooth"]["estimator"], estimator);
    EXPECT_EQ(j["smooth"]["samples"], 20);
    EXPECT_EQ(j["smooth"]["stages"], 6);
    EXPECT_EQ(j["smooth"]["final_sigma"].get<double>(), 0.5 / 1024);
    EXPECT_GT(j["smoothed_loss_error"].get<double>(), 0.0);
    EXPECT_EQ(j["smooth"].contains("bandwidth"), estimator == "dgo");
  }
};

TEST_F(SmoothFitMc, DgoFindsTheThreshold) { expectThreshold("dgo"); }
TEST_F(SmoothFitMc, PgoFindsTheThreshold) { expectThreshold("pgo"); }

// The draws come from --seed: the same seed gives the same fit, to the last digit; another seed another one.
class SmoothFitMcSeed : public SmoothFitMc, public ::testing::WithParamInterface<const char*> {};
TEST_P(SmoothFitMcSeed, TheSameSeedGivesTheSameFit) {
  const std::string args = std::string("--bind alpha=0.35 --smooth 0.5 --smooth-mode mc --samples 4 --steps 5 ") +
                           "--estimator " + GetParam() + " --seed ";
  auto a = fit(args + "5"), b = fit(args + "5"), c = fit(args + "6");
  EXPECT_EQ(a, b);
  EXPECT_NE(a["params"], c["params"]);
  EXPECT_EQ(a["smooth"]["seed"], 5);
}
INSTANTIATE_TEST_SUITE_P(Estimators, SmoothFitMcSeed, ::testing::Values("pgo", "dgo"));

// The fit's first draw is `dmci grad`'s at the same seed: in objective mode (the program's value is the loss) the
// estimate at the start is dmci grad's value, to the last digit. An adam step of 1e-300 leaves x = 0.5 where it is,
// so the curve's first point is that estimate (the point's estimate remembered, not drawn again).
TEST_F(SmoothCli, TheFitsFirstDrawIsDmciGradsAtTheSameSeed) {
  for (const std::string estimator : {"pgo", "reinforce", "dgo"}) {
    const std::string mc = " --smooth 0.5 --smooth-mode mc --samples 1000 --seed 3 --estimator " + estimator;
    Outcome g = dmci("grad step.scm --bind x=0.5 --json" + mc);
    ASSERT_EQ(g.code, 0) << g.err;
    Outcome f = dmci("fit step.scm --bind x=0.5 --steps 1 --lr 1e-300 --log curve.csv --json -q" + mc);
    ASSERT_EQ(f.code, 0) << f.err;
    std::string curve = dmci::testing::slurp(dir / "curve.csv");
    auto row = curve.substr(curve.find('\n') + 1);  // restart,iteration,evaluations,seconds,loss,...
    std::vector<std::string> cells;
    for (size_t at = 0, next; (next = row.find(',', at)) != std::string::npos; at = next + 1)
      cells.push_back(row.substr(at, next - at));
    ASSERT_GE(cells.size(), 5u) << curve;
    EXPECT_EQ(std::stod(cells[4]), nlohmann::json::parse(g.out)["value"].get<double>()) << estimator << curve;
  }
}

// --smooth-dea reaches the smoothed program: (< x (* 2 alpha)) is smoothed at SIGMA |grad d| = 2 SIGMA (d = 2 alpha
// - x) rather than at SIGMA, so the smoothed loss at the start differs (one adam step of 1e-12).
TEST_F(SmoothFitMc, DeaReachesTheSmoothedFit) {
  write("thr2.scm", "(if (< x (* 2 alpha)) (* beta x) (* gamma x))\n");
  const std::string args =
      "--bind alpha=0.35 --bind beta=1 --bind gamma=1 --smooth 0.5 --optimizer adam --lr 1e-12 --steps 1";
  Outcome plain = dmci("fit thr2.scm --data d.csv --target y --json -q " + args),
          dea = dmci("fit thr2.scm --data d.csv --target y --json -q --smooth-dea " + args);
  ASSERT_EQ(plain.code, 0) << plain.err;
  ASSERT_EQ(dea.code, 0) << dea.err;
  auto p = nlohmann::json::parse(plain.out), d = nlohmann::json::parse(dea.out);
  EXPECT_EQ(d["smooth"]["dea"], true);
  EXPECT_FALSE(p["smooth"].contains("dea"));
  // Nearly the same point (a step of 1e-12 along different gradients), scored crisply.
  EXPECT_NEAR(p["loss"].get<double>(), d["loss"].get<double>(), 1e-9);
  EXPECT_NE(p["smoothed_loss"], d["smoothed_loss"]);
}

}  // namespace
