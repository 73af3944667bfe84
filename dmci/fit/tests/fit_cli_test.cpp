// `dmci fit` as a process: the outputs it writes (JSON, --log, --report, --out run by `dmci run`), the plugins it
// opens (torch's and pagmo's optimizers, the tensor engine), a fit killed with SIGKILL and resumed, and the bad
// inputs it refuses: a clear error at file:line:col, a non-zero exit, and no output file left behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "testing/CliFixture.h"

namespace {

namespace fs = std::filesystem;

using dmci::testing::Outcome;
using dmci::testing::slurp;

const char* const kOscillator = "; a damped oscillator\n(* amp (exp (- (* b t))) (cos (* w t)))\n";

// Each test runs in its own temporary directory, with the oscillator's program and noise-free data.
class FitCli : public dmci::testing::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    write("osc.scm", kOscillator);
    write("osc.csv", oscillatorData(200));
  }

  // `wobble` adds a small term the model cannot fit, so that the loss stays above zero.
  static std::string oscillatorData(int rows, double wobble = 0) {
    std::string csv = "t,y\n";
    for (int i = 0; i < rows; ++i) {
      double t = 10.0 * i / rows;
      char line[80];
      std::snprintf(line, sizeof line, "%.17g,%.17g\n", t,
                    2.0 * std::exp(-0.3 * t) * std::cos(1.7 * t) + wobble * std::sin(37 * t));
      csv += line;
    }
    return csv;
  }

  // A refused fit: exit 2, the error first on stderr, and none of the asked outputs written.
  void expectRefused(const std::string& args, const std::string& error) {
    Outcome o = dmci(args + " --out fitted.scm --log curve.csv --report report --checkpoint ck.json");
    EXPECT_EQ(o.code, 2) << o.err;
    EXPECT_EQ(o.err.substr(0, error.size()), error) << o.err;
    for (const char* f : {"fitted.scm", "curve.csv", "report", "ck.json"}) EXPECT_FALSE(fs::exists(dir / f)) << f;
  }
};

const char* const kStart = "--bind amp=1.4 --bind b=0.4 --bind w=1.19";

TEST_F(FitCli, JsonHasTheIssuesKeysAndTheFitRecoversTheParameters) {
  Outcome o = dmci(std::string("fit osc.scm --data osc.csv --target y --json ") + kStart);
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  for (const char* k :
       {"loss", "holdout_loss", "params", "literals", "iterations", "evaluations", "seconds", "converged"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_NEAR(j["params"]["w"].get<double>(), 1.7, 1.7e-6);
  EXPECT_TRUE(j["converged"].get<bool>());
  EXPECT_EQ(j["optimizer"], "lm");  // the default in data mode
  for (const char* k : {"stop", "stop_message", "rss", "dof", "stderr", "ci95", "covariance", "correlation"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["dof"].get<int>(), 197);
  EXPECT_TRUE(j["stderr"]["amp"].is_number());
  // Noise-free data fit exactly: the standard errors are 0 and a correlation is undefined (null, never NaN).
  EXPECT_TRUE(j["correlation"]["w"]["w"].is_null() || j["correlation"]["w"]["w"].get<double>() == 1.0);
  // With a term the model cannot fit, the errors are positive and each value's correlation with itself is 1.
  write("wob.csv", oscillatorData(200, 0.01));
  Outcome w = dmci(std::string("fit osc.scm --data wob.csv --target y --json ") + kStart);
  ASSERT_EQ(w.code, 0) << w.err;
  auto jw = nlohmann::json::parse(w.out);
  EXPECT_GT(jw["stderr"]["amp"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(jw["correlation"]["w"]["w"].get<double>(), 1.0);
}

TEST_F(FitCli, TheTableAndTheReportShowStandardErrorsAndIntervals) {
  write("wob.csv", oscillatorData(200, 0.01));
  Outcome o = dmci(std::string("fit osc.scm --data wob.csv --target y --report rep -q ") + kStart);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("std. error            95% interval"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("on 197 degrees of freedom"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("converged ("), std::string::npos) << o.out;
  std::string md = slurp(dir / "rep" / "report.md");
  EXPECT_NE(md.find("| fitted | start | value | std. error | 95% interval |"), std::string::npos) << md;
  EXPECT_NE(md.find("Correlation:"), std::string::npos) << md;
}

TEST_F(FitCli, TheHelpStatesEachConvergenceTestWithItsDefault) {
  Outcome o = dmci("fit --help");
  ASSERT_EQ(o.code, 0) << o.err;
  for (auto [opt, value] : {std::pair{"--ftol", "1e-14"}, {"--xtol", "1e-14"}, {"--gtol", "1e-10"}}) {
    size_t at = o.out.find(opt);
    ASSERT_NE(at, std::string::npos) << opt;
    EXPECT_NE(o.out.substr(at, 600).find(value), std::string::npos) << opt << ": " << o.out.substr(at, 600);
  }
}

TEST_F(FitCli, ANonFiniteCellIsAnErrorAtItsPlaceUnlessRowsAreDroppedOnRequest) {
  write("nan.csv", "t,y\n0,1\n1,nan\n2,0.5\n3,inf\n4,0.25\n6,0.125\n");
  write("dec.scm", "(* a (exp (- (* k t))))\n");
  expectRefused("fit dec.scm --data nan.csv --target y --bind a=1 --bind k=0.5",
                "nan.csv:3:3: usage-error: 'nan' is not a finite number (column 'y')");
  Outcome o = dmci("fit dec.scm --data nan.csv --target y --bind a=1 --bind k=0.5 --drop-nonfinite --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("dropped 2 rows of nan.csv with a NaN or infinite cell"), std::string::npos) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["dropped_rows"].get<int>(), 2);
  EXPECT_EQ(j["dof"].get<int>(), 2);
  EXPECT_NEAR(j["params"]["k"].get<double>(), std::log(2.0) / 2, 1e-8);
  write("allnan.csv", "t,y\n0,nan\n1,-inf\n");
  expectRefused("fit dec.scm --data allnan.csv --target y --bind a=1 --bind k=0.5 --drop-nonfinite",
                "allnan.csv:1:1: usage-error: every row of the data file has a cell that is not finite (2 dropped)");
  write("big.csv", "t,y\n0,1\n1,1e999\n");
  expectRefused("fit dec.scm --data big.csv --target y --bind a=1 --bind k=0.5",
                "big.csv:3:3: usage-error: '1e999' is not a finite number (column 'y')");
}

TEST_F(FitCli, TheLogTheReportAndTheFittedProgramAreWritten) {
  write("lit.scm", "; a scaled sine\n(* 2.5 (sin (* 0.75 t)))\n");
  std::string csv = "t,y\n";
  for (int i = 0; i < 40; ++i) {
    char line[80];
    std::snprintf(line, sizeof line, "%.17g,%.17g\n", 0.25 * i, 3.0 * std::sin(0.125 * i));
    csv += line;
  }
  write("lit.csv", csv);
  Outcome o = dmci("fit lit.scm --data lit.csv --target y --log curve.csv --report rep --out fitted.scm --quiet");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(slurp(dir / "curve.csv").rfind("restart,iteration,evaluations,seconds,loss,best,holdout_loss\n", 0), 0u);
  EXPECT_NE(slurp(dir / "rep" / "report.md").find("![loss curve](loss.svg)"), std::string::npos);
  EXPECT_EQ(slurp(dir / "rep" / "fit.svg").rfind("<svg", 0), 0u);
  std::string fitted = slurp(dir / "fitted.scm");
  EXPECT_EQ(fitted.rfind(";; Fitted by dmci fit: lm to mse ", 0), 0u) << fitted;
  size_t at = fitted.find("; a scaled sine\n(* ");
  ASSERT_NE(at, std::string::npos) << fitted;
  EXPECT_NEAR(std::stod(fitted.substr(at + 19)), 3.0, 1e-12) << fitted;
  Outcome run = dmci("run fitted.scm --bind t=2.5");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NEAR(std::stod(run.out), 3.0 * std::sin(0.5 * 2.5), 1e-9);
}

TEST_F(FitCli, EveryOptimizerPluginRuns) {
  for (const char* opt : {"adam", "de", "cmaes"}) {
    Outcome o =
        dmci(std::string("fit osc.scm --data osc.csv --target y --json --steps 50 --optimizer ") + opt + " " + kStart);
    ASSERT_EQ(o.code, 0) << opt << ": " << o.err;
    auto j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["optimizer"], opt);
    EXPECT_GT(j["evaluations"].get<int>(), 0);
  }
}

#ifdef DMCI_HAVE_TORCH
TEST_F(FitCli, TheTensorEngineFitsTheSameParameters) {
  Outcome o = dmci(std::string("fit osc.scm --data osc.csv --target y --json --engine tensor ") + kStart);
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_NEAR(j["params"]["amp"].get<double>(), 2.0, 2e-6);
  EXPECT_NEAR(j["params"]["w"].get<double>(), 1.7, 1.7e-6);
}
#endif

TEST_F(FitCli, ObjectiveModeBindsAColumnAsAVector) {
  write("ys.csv", "ys\n1.25\n0.5\n3\n2\n");
  write("vec.scm", "; squared distance to a centre\n(vsum (* (- ys mu) (- ys mu)))\n");
  Outcome o = dmci("fit vec.scm --data-vec ys=ys.csv:ys --bind mu=0 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NEAR(nlohmann::json::parse(o.out)["params"]["mu"].get<double>(), 6.75 / 4, 1e-12);
}

// Objective mode with a held-out binding: the weights ws pick the rows a loss scores; the fit's loss scores rows
// 1-2 (centre 0.875), the held-out one rows 3-4 (centre 2.5). Adam from mu = 3 passes 2.5 on its way down: the
// iterate kept is the one with the lowest held-out loss, not the training optimum.
TEST_F(FitCli, AHeldOutBindingPicksTheIterateWithTheLowestHeldOutLoss) {
  write("ys.csv", "ys,w,wv\n1.25,1,0\n0.5,1,0\n2.5,0,1\n2.5,0,1\n");
  write("vec.scm", "; weighted squared distance to a centre\n(vsum (* ws (- ys mu) (- ys mu)))\n");
  Outcome o = dmci(
      "fit vec.scm --data-vec ys=ys.csv:ys --data-vec ws=ys.csv:w --holdout-data-list ws=ys.csv:wv "
      "--bind mu=3 --optimizer adam --lr 0.01 --steps 400 --patience 1000 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  double mu = j["params"]["mu"].get<double>();
  EXPECT_NEAR(mu, 2.5, 0.02);
  EXPECT_NEAR(j["holdout_loss"].get<double>(), 2 * (mu - 2.5) * (mu - 2.5), 1e-12);
  expectRefused(
      "fit vec.scm --data-vec ys=ys.csv:ys --data-vec ws=ys.csv:w --holdout-data-list zs=ys.csv:wv "
      "--bind mu=3",
      "usage-error: --holdout-data-list zs: not bound by --data-list or --data-vec as well");
}

TEST_F(FitCli, ASplitHoldsOutTheRowsAtOrAboveTheValue) {
  Outcome o = dmci(std::string("fit osc.scm --data osc.csv --target y --json --split 't<6' ") + kStart);
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  ASSERT_TRUE(j["holdout_loss"].is_number());
  EXPECT_LT(j["holdout_loss"].get<double>(), 1e-12);
}

// --best-trace: each line a new best by the held-out loss, the last one the fit's answer; and a shorter budget
// returns the last line it reaches (Adam spends one evaluation per iteration, so the lines' counts say which).
TEST_F(FitCli, TheBestTraceSaysWhatEveryShorterBudgetReturns) {
  write("wobbly.csv", oscillatorData(200, 0.05));
  std::string fit = std::string("fit osc.scm --data wobbly.csv --target y --json --split 't<6' --optimizer adam ") +
                    "--lr 0.02 --steps 300 --patience 1000 " + kStart;
  Outcome o = dmci(fit + " --best-trace bests.jsonl");
  ASSERT_EQ(o.code, 0) << o.err;
  auto result = nlohmann::json::parse(o.out);
  std::vector<nlohmann::json> lines;
  std::istringstream in(slurp(dir / "bests.jsonl"));
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_GE(lines.size(), 3u);
  for (size_t k = 1; k < lines.size(); ++k) {
    EXPECT_LT(lines[k]["holdout_loss"].get<double>(), lines[k - 1]["holdout_loss"].get<double>());
    EXPECT_GE(lines[k]["seconds"].get<double>(), lines[k - 1]["seconds"].get<double>());
    EXPECT_GT(lines[k]["evaluations"].get<uint64_t>(), lines[k - 1]["evaluations"].get<uint64_t>());
  }
  EXPECT_EQ(lines.back()["params"], result["params"]);
  EXPECT_EQ(lines.back()["holdout_loss"], result["holdout_loss"]);
  const nlohmann::json& middle = lines[lines.size() / 2];
  uint64_t budget = middle["evaluations"].get<uint64_t>();
  Outcome shorter = dmci(fit + " --budget-evals " + std::to_string(budget));
  ASSERT_EQ(shorter.code, 0) << shorter.err;
  EXPECT_EQ(nlohmann::json::parse(shorter.out)["params"], middle["params"]);
}

// The kill-and-resume test: SIGKILL in the middle of a fit, --resume, and the parameters of the uninterrupted run.
// Adam runs some 700 iterations over 2000 rows (the loss cannot reach zero); the fit is killed once it has written
// its first checkpoint, and resumed from the last one it wrote.
TEST_F(FitCli, AFitKilledAndResumedEndsWithTheUninterruptedParameters) {
  write("osc.csv", oscillatorData(2000, 0.01));
  const std::string fit = std::string("fit osc.scm --data osc.csv --target y --json --quiet --threads 1 ") +
                          "--optimizer adam --lr 0.01 --steps 6000 --gtol 0 --checkpoint-seconds 0.05 " + kStart;
  Outcome whole = dmci(fit + " --checkpoint whole.json");
  ASSERT_EQ(whole.code, 0) << whole.err;
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", (command(fit + " --checkpoint ck.json", "exec ") + " >killed.txt 2>&1").c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int iteration = 0;
  for (int wait = 0; wait < 6000 && iteration < 1; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto text = slurp(dir / "ck.json");
    if (!text.empty()) iteration = nlohmann::json::parse(text)["iteration"].get<int>();
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the fit ended before it was killed";
  int saved = nlohmann::json::parse(slurp(dir / "ck.json"))["iteration"].get<int>();
  ASSERT_GT(saved, 0);
  ASSERT_LT(saved, nlohmann::json::parse(whole.out)["iterations"].get<int>());
  Outcome resumed = dmci(fit + " --checkpoint ck.json --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  auto a = nlohmann::json::parse(whole.out), b = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(a["params"], b["params"]);
  EXPECT_EQ(a["iterations"], b["iterations"]);
}

// --- bad input: one test per case of the issue ---

TEST_F(FitCli, AMissingColumnIsRefused) {
  expectRefused(std::string("fit osc.scm --data osc.csv --target z ") + kStart,
                "osc.csv:1:1: usage-error: no column 'z' (--target); the columns are t, y");
}

TEST_F(FitCli, ANonNumericCellIsRefused) {
  write("bad.csv", "t,y\n0,1\n0.5,x7\n");
  expectRefused(std::string("fit osc.scm --data bad.csv --target y ") + kStart,
                "bad.csv:3:5: usage-error: 'x7' is not a number (column 'y')");
}

TEST_F(FitCli, AnEmptyCellIsRefused) {
  write("bad.csv", "t,y\n0,1\n0.5,\n");
  expectRefused(std::string("fit osc.scm --data bad.csv --target y ") + kStart,
                "bad.csv:3:5: usage-error: empty cell in column 'y'");
}

TEST_F(FitCli, AnEmptyFileIsRefused) {
  write("bad.csv", "");
  expectRefused(std::string("fit osc.scm --data bad.csv --target y ") + kStart,
                "bad.csv:1:1: usage-error: the data file is empty");
}

// A --bind name the program does not use: the fit goes on, the name keeps its start with a null error, and a
// warning on stderr and "unused" in the JSON say so; in objective mode too. A misspelt name is still refused,
// because the real variable it meant is left unbound.
TEST_F(FitCli, ABindTheProgramDoesNotUseIsWarnedAndKeepsItsStart) {
  Outcome o = dmci(std::string("fit osc.scm --data osc.csv --target y --json --bind zz=3 ") + kStart);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("dmci fit: warning: the program does not use --bind zz"), std::string::npos) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["unused"], nlohmann::json::array({"zz"}));
  EXPECT_EQ(j["params"]["zz"].get<double>(), 3.0);
  EXPECT_TRUE(j["stderr"]["zz"].is_null());
  EXPECT_NE(j["uncertainty_note"].get<std::string>().find("cannot identify zz: the program does not use it"),
            std::string::npos);
  EXPECT_NEAR(j["params"]["w"].get<double>(), 1.7, 1.7e-6);
  EXPECT_TRUE(j["converged"].get<bool>()) << j["stop_message"];
  write("bowl.scm", "(+ (square (- x 3)) (square (+ y 1)))\n");
  Outcome obj = dmci("fit bowl.scm --json --bind x=0 --bind y=0 --bind x1=1");
  ASSERT_EQ(obj.code, 0) << obj.err;
  EXPECT_NE(obj.err.find("warning: the program does not use --bind x1"), std::string::npos) << obj.err;
  auto jo = nlohmann::json::parse(obj.out);
  EXPECT_EQ(jo["params"]["x1"].get<double>(), 1.0);
  EXPECT_NEAR(jo["params"]["x"].get<double>(), 3.0, 1e-6);
  EXPECT_TRUE(jo["converged"].get<bool>()) << jo["stop_message"];
  write("alpha.scm", "(square (- alpha 2))\n");
  expectRefused("fit alpha.scm --bind alpah=1",
                "usage-error: the free variable 'alpha' of alpha.scm is not bound with --bind; the program does not "
                "use --bind alpah");
}

TEST_F(FitCli, AWrtNameNotInTheProgramIsRefused) {
  expectRefused(std::string("fit osc.scm --data osc.csv --target y --wrt amp,q ") + kStart,
                "usage-error: --wrt q: not a free variable of osc.scm (its free variables: amp, b, t, w)");
}

TEST_F(FitCli, AProgramErrorAtARowIsReportedWithTheRowAndTheSourcePosition) {
  write("err.scm", "(if (< t 5) (* amp t)\n    (error \"t out of range\" t))\n");
  Outcome o = dmci("fit err.scm --data osc.csv --target y --bind amp=1 --out fitted.scm --log curve.csv");
  EXPECT_EQ(o.code, 1);
  EXPECT_EQ(o.err.rfind("err.scm:2:5: ", 0), 0u) << o.err;
  EXPECT_NE(o.err.find("at row 101 of the data (osc.csv:102)"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir / "fitted.scm"));
  EXPECT_FALSE(fs::exists(dir / "curve.csv"));
}

TEST_F(FitCli, ALossThatBecomesNaNStopsReportsAndKeepsTheBestParameters) {
  write("nan.scm", "(* (sqrt a) t)\n");
  write("neg.csv", "t,y\n1,-1\n2,-2\n3,-3\n");
  Outcome o = dmci("fit nan.scm --data neg.csv --target y --bind a=0.5 --optimizer adam --json");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("the loss became NaN"), std::string::npos) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_GE(j["params"]["a"].get<double>(), 0.0);
  EXPECT_TRUE(j["loss"].is_number());
}

}  // namespace
