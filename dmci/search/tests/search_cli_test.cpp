// `dmci search` as a process: its outputs (--json, --out), resume from --out, the external-proposer protocol
// driven by scripted proposers (dmci/search/tests/proposers/), and the bad inputs it refuses.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "search/Snap.h"
#include "testing/CliFixture.h"

namespace {

namespace fs = std::filesystem;
using dmci::testing::Outcome;
using dmci::testing::slurp;
using nlohmann::json;

const std::string kProposers = DMCI_SOURCE_DIR "/dmci/search/tests/proposers/";

// y = 2 e^(-0.3 t) cos(1.7 t) on 150 rows, and the wrong seed (* a (cos (* w t))).
class SearchCli : public dmci::testing::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    std::string csv = "t,y\n";
    for (int i = 0; i < 150; ++i) {
      double t = 0.06 * i;
      char line[80];
      std::snprintf(line, sizeof line, "%.17g,%.17g\n", t, 2 * std::exp(-0.3 * t) * std::cos(1.7 * t));
      csv += line;
    }
    write("osc.csv", csv);
    write("seed.scm", "; a wrong seed\n(* a (cos (* w t)))\n");
  }
  std::string search(const std::string& more) {
    return "search --data osc.csv --target y --seed-program seed.scm --jobs 1 " + more;
  }
  json prompt(int n) { return json::parse(slurp(dir / ("prompt-" + std::to_string(n) + ".json"))); }
};

// The failures a prompt reports, as "program => error" lines.
std::string failures(const json& prompt) {
  std::string out;
  for (const auto& f : prompt.at("failures"))
    out += f.at("program").get<std::string>() + " => " + f.at("error").get<std::string>() + "\n";
  return out;
}

TEST_F(SearchCli, JsonHasTheBestProgramTheFrontAndTheCounts) {
  Outcome o = dmci(search("--evals 40 --json"));
  ASSERT_EQ(o.code, 0) << o.err;
  json j = json::parse(o.out);
  for (const char* key : {"program", "holdout_rmse", "score", "train_rmse", "complexity", "params"})
    EXPECT_TRUE(j.at("best").contains(key)) << key;
  EXPECT_FALSE(j.at("pareto").empty());
  EXPECT_GE(j.at("evaluations").get<int>(), 40);
  EXPECT_TRUE(j.at("seconds").is_number());
}

TEST_F(SearchCli, TheBestIsTheFrontsPickAndTheJsonSaysWhy) {
  Outcome o = dmci(search("--evals 60 --json --quiet"));
  ASSERT_EQ(o.code, 0) << o.err;
  json j = json::parse(o.out);
  const json& front = j.at("pareto");
  size_t at = j.at("pick").at("index");
  ASSERT_LT(at, front.size());
  // The pick as reported: its snapped form when that fits as well (the fitted one beside it), else as fitted.
  if (j.at("best").at("form") == "snapped") {
    EXPECT_EQ(j.at("best").at("fitted").at("program"), front[at].at("program"));
    EXPECT_EQ(j.at("best").at("program"), j.at("best").at("snapped").at("program"));
    // Snap's tolerance and floor (spread ~ 4), or its statistical test: the score's square within the chi^2 bound
    // of the constants snapped on the 30 held-out rows (the pick fits the wrong structure; its misfit is the noise).
    const json& snapped = j.at("best").at("snapped");
    const double score = j.at("best").at("score"), fitted = front[at].at("score");
    if (snapped.at("statistical").get<int>() == 0)
      EXPECT_LE(score, fitted * 1.01 + 1e-9 * 10);
    else
      EXPECT_LE(score * score, fitted * fitted *
                                       std::exp(dmci::search::chiSquareQuantile(
                                                    static_cast<int>(snapped.at("constants").size()), 0.99) /
                                                30) +
                                   1e-16);
  } else {
    EXPECT_EQ(j.at("best").at("form"), "fitted");
    EXPECT_EQ(j.at("best").at("program"), front[at].at("program"));
  }
  double threshold = j.at("pick").at("threshold"), gain = front[at].at("gain");
  EXPECT_LE(front[at].at("loss").get<double>(), threshold);
  for (const auto& m : front) {
    if (m.at("loss").get<double>() > threshold) continue;
    EXPECT_LE(m.at("gain").get<double>(), gain) << m.at("program");
  }
  EXPECT_LE(j.at("lowest").at("score").get<double>(), front[at].at("score").get<double>());
  EXPECT_TRUE(j.at("best").at("snapped").contains("program"));
  EXPECT_FALSE(j.at("pick").at("why").get<std::string>().empty());
}

TEST_F(SearchCli, CanonNamesTheKeysItUsed) {
  Outcome hash = dmci(search("--evals 30 --json --quiet --canon hash"));
  ASSERT_EQ(hash.code, 0) << hash.err;
  EXPECT_EQ(json::parse(hash.out).at("canon").at("keys"), "hash");
  EXPECT_EQ(json::parse(hash.out).at("canon").at("algebraic_keys"), 0);
#ifdef DMCI_HAVE_GINAC
  Outcome ginac = dmci(search("--evals 300 --json --quiet"));
  ASSERT_EQ(ginac.code, 0) << ginac.err;
  EXPECT_EQ(json::parse(ginac.out).at("canon").at("keys"), "ginac");
  EXPECT_GT(json::parse(ginac.out).at("canon").at("algebraic_keys").get<int>(), 0);
  // Another process (another address space) keys every candidate the same: the same children are seen again.
  Outcome again = dmci(search("--evals 300 --json --quiet"));
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out).at("canon"), json::parse(ginac.out).at("canon"));
  EXPECT_EQ(json::parse(again.out).at("pareto"), json::parse(ginac.out).at("pareto"));
#endif
}

TEST_F(SearchCli, OutWritesTheBestProgramTheFrontAndThePlots) {
  Outcome o = dmci(search("--evals 40 --out run --quiet"));
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* f : {"best.scm", "front.md", "front.json", "front.svg", "progress.svg", "state.json"})
    EXPECT_TRUE(fs::exists(dir / "run" / f)) << f;
  EXPECT_NE(slurp(dir / "run/front.md").find("| complexity | score | held-out RMSE |"), std::string::npos);
  EXPECT_EQ(slurp(dir / "run/best.scm").substr(0, 41), "; dmci search from seed.scm on osc.csv (t");
}

TEST_F(SearchCli, AResumedSearchEndsWhereTheUninterruptedOneDoes) {
  // The enumeration's share is a third of --evals (below its limit here): off, so that both parts' loops match.
  ASSERT_EQ(dmci(search("--evals 30 --out run --quiet --enumerate 0")).code, 0);
  Outcome resumed = dmci(search("--evals 70 --resume run --json --quiet --enumerate 0"));
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  Outcome whole = dmci(search("--evals 70 --json --quiet --enumerate 0"));
  ASSERT_EQ(whole.code, 0) << whole.err;
  json r = json::parse(resumed.out), w = json::parse(whole.out);
  EXPECT_EQ(r.at("evaluations"), w.at("evaluations"));
  EXPECT_EQ(r.at("pareto"), w.at("pareto"));
}

TEST_F(SearchCli, AProposerAnsweringRightAtItsThirdCallIsFound) {
  Outcome o = dmci(search("--evals 400 --islands 2 --children 2 --iterations 30 --goal 1e-7 --json --proposer '" +
                          kProposers + "third_call.sh'"));
  ASSERT_EQ(o.code, 0) << o.err;
  json j = json::parse(o.out);
  EXPECT_LE(j.at("best").at("holdout_rmse").get<double>(), 1e-7);
  EXPECT_EQ(slurp(dir / "calls"), "3\n");  // the goal was met right after the third call
  EXPECT_EQ(j.at("proposer").at("scored"), 1);
  EXPECT_EQ(prompt(1).at("variables"), json::array({"t"}));
  EXPECT_EQ(prompt(1).at("parameters"), json::array({"a", "w"}));
  EXPECT_FALSE(prompt(3).at("best").empty());
}

TEST_F(SearchCli, AProposerThatGetsEverythingWrongIsSurvivedAndToldEachFailure) {
  Outcome o = dmci(  // the proposer is asked every epoch: short ones, so that it is asked four times
      search("--evals 60 --islands 2 --children 2 --epoch-evals 4 --json --proposer '" + kProposers + "junk.sh'"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_GE(json::parse(o.out).at("evaluations").get<int>(), 60);
  std::string second = failures(prompt(2));
  EXPECT_NE(second.find("(+ a => proposal:1:1: syntax-error"), std::string::npos) << second;
  EXPECT_NE(second.find("(* k t)\n => unbound name 'k'"), std::string::npos) << second;
  EXPECT_NE(second.find("(let loop () (loop))\n => candidate:1:"), std::string::npos) << second;
  EXPECT_NE(second.find("budget"), std::string::npos) << second;
  EXPECT_NE(second.find("\x01\xc3\xbf\xc3\xbe) => proposal:1:"), std::string::npos) << second;
  EXPECT_NE(failures(prompt(3)).find("not a JSON array of program strings: '\\x01\\xff\\xfe not json'"),
            std::string::npos)
      << failures(prompt(3));
  EXPECT_NE(failures(prompt(4)).find("exited with status 3 (its standard error: gave up)"), std::string::npos)
      << failures(prompt(4));
  EXPECT_NE(o.err.find("the proposer exited with status 3"), std::string::npos) << o.err;
}

TEST_F(SearchCli, AProposerPastItsTimeIsKilledAndTheSearchGoesOn) {
  auto began = std::chrono::steady_clock::now();
  Outcome o = dmci(search("--evals 12 --islands 1 --children 4 --proposer 'sleep 30' --proposer-timeout 0.3"));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("the proposer did not answer within 0.3 s and was killed"), std::string::npos) << o.err;
  EXPECT_LT(seconds, 10);
}

// --resume refuses a state.json of wrong types or numbers past range, naming the field (a JSON pointer) or its place.
TEST_F(SearchCli, AResumeFromAStateOfWrongTypesIsRefusedNamingTheField) {
  ASSERT_EQ(dmci(search("--evals 30 --out run --quiet")).code, 0);
  const std::string good = slurp(dir / "run/state.json");
  const json state = json::parse(good);
  auto refused = [&](const std::string& text, const std::string& message) {
    write("run/state.json", text);
    Outcome o = dmci(search("--evals 70 --resume run --quiet"));
    EXPECT_EQ(o.code, 2) << message << ": " << o.err;
    EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
  };
  json j = state;
  j["evaluations"] = -1;
  refused(j.dump(1), "/evaluations: not a whole number in range");
  j = state;
  j["islands"][0]["members"][0]["program"] = 5;
  refused(j.dump(1), "/islands/0/members/0/program: not a string");
  j = state;
  j["proposer"] = json::array({1, 2});
  refused(j.dump(1), "/proposer: not [calls, failed calls, programs, scored]");
  std::string overflow = good;
  const size_t at = good.find("\"seconds\": ");
  ASSERT_NE(at, std::string::npos);
  overflow.replace(at, good.find_first_of(",\n}", at) - at, "\"seconds\": 1e999");
  size_t line = 1 + static_cast<size_t>(std::count(good.begin(), good.begin() + static_cast<long>(at), '\n'));
  refused(overflow, "state.json:" + std::to_string(line) + ":");
  refused(overflow, "a number past double's range");
}

// The pids stuck.sh recorded: the proposer's shell, then its sleeping child.
std::vector<pid_t> stuckPids(const fs::path& dir) {
  return {std::stoi(slurp(dir / "proposer.pid")), std::stoi(slurp(dir / "child.pid"))};
}

// Past its time the proposer's whole group is killed: the shell and the child it started.
TEST_F(SearchCli, AProposerPastItsTimeLeavesNoProcessBehind) {
  Outcome o = dmci(
      search("--evals 12 --islands 1 --children 4 --proposer 'sh " + kProposers + "stuck.sh' --proposer-timeout 0.5"));
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_TRUE(fs::exists(dir / "proposer.pid")) << o.err;
  const std::vector<pid_t> pids = stuckPids(dir);
  EXPECT_TRUE(dmci::testing::processesGone(pids)) << "left running: " << pids[0] << ", " << pids[1];
  for (pid_t p : pids)
    if (!dmci::testing::processGone(p)) ::kill(p, SIGKILL);
}

// A search ended by SIGTERM or SIGINT (dmci's default: end) takes its proposer and what it started with it.
TEST_F(SearchCli, ASearchKilledBySignalLeavesNoProposerBehind) {
  for (int sig : {SIGTERM, SIGINT}) {
    fs::remove(dir / "proposer.pid");
    const std::string command = this->command(search("--evals 1000000 --islands 1 --children 4 --proposer 'sh " +
                                                     kProposers + "stuck.sh' --proposer-timeout 600 --quiet"),
                                              "exec ");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::signal(SIGINT, SIG_DFL);  // as a shell starts a foreground command
      ::signal(SIGTERM, SIG_DFL);
      ::execl("/bin/sh", "sh", "-c", (command + " >/dev/null 2>&1").c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int k = 0; k < 600 && !fs::exists(dir / "proposer.pid"); ++k) ::usleep(50000);  // a hang guard
    if (!fs::exists(dir / "proposer.pid")) ::kill(pid, SIGKILL);
    ASSERT_TRUE(fs::exists(dir / "proposer.pid")) << "the proposer never started";
    const std::vector<pid_t> pids = stuckPids(dir);
    ::kill(pid, sig);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
    EXPECT_TRUE(dmci::testing::processesGone(pids))
        << "signal " << sig << ": left running: " << pids[0] << ", " << pids[1];
    for (pid_t p : pids)
      if (!dmci::testing::processGone(p)) ::kill(p, SIGKILL);
  }
}

// A dmci copied away from its optimizer plugins cannot fit: the search says so and stops (it used to score every
// candidate at its start values, quietly and ten times faster); without gradients it needs no fitter and runs.
TEST_F(SearchCli, ASearchWhoseFitterIsMissingSaysSoAndStops) {
  fs::create_directories(dir / "alone");
  fs::copy_file(DMCI_BINARY_DIR "/dmci", dir / "alone" / "dmci");
  auto run = [&](const std::string& more) {
    std::string cmd = "cd '" + dir.string() + "' && env -u DMCI_ENGINE_PATH ./alone/dmci " + search(more) +
                      " >stdout.txt 2>stderr.txt";
    int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(run("--evals 20"), 2);
  EXPECT_NE(slurp(dir / "stderr.txt").find("Levenberg-Marquardt (lm), which is not available"), std::string::npos)
      << slurp(dir / "stderr.txt");
  EXPECT_EQ(run("--evals 20 --no-gradient"), 0) << slurp(dir / "stderr.txt");
}

TEST_F(SearchCli, ABadSeedProgramIsAnErrorAtItsPosition) {
  write("seed.scm", "(* a\n  (cos (* w t))\n");
  Outcome o = dmci(search("--evals 10 --out run"));
  EXPECT_EQ(o.code, 1);
  EXPECT_EQ(o.err.substr(0, 9), "seed.scm:") << o.err;
  EXPECT_FALSE(fs::exists(dir / "run"));
}

// --group: y = g·t in two groups; the structure (* 1.0 t) fits both once each group has its own slope.
TEST_F(SearchCli, GroupFitsEachGroupsConstantsAndPoolsTheError) {
  std::string csv = "g,t,y\n";
  for (int i = 0; i < 40; ++i)
    csv += std::to_string(1 + i / 20) + "," + std::to_string(0.1 * (i % 20)) + "," +
           std::to_string((1 + i / 20) * 0.1 * (i % 20)) + "\n";
  write("groups.csv", csv);
  write("line.scm", "(* 1.5 t)\n");
  Outcome o = dmci("search --data groups.csv --target y --seed-program line.scm --group g --evals 1 --jobs 1 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto best = json::parse(o.out).at("best");
  EXPECT_LT(best.at("holdout_rmse").get<double>(), 1e-6);
  Outcome bad = dmci("search --data groups.csv --target y --seed-program line.scm --group nope --evals 1");
  EXPECT_EQ(bad.code, 2) << bad.err;
}

TEST_F(SearchCli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(dmci("search --data osc.csv --seed-program seed.scm").code, 2);  // no --target
  Outcome ops = dmci(search("--ops '+ frob'"));
  EXPECT_EQ(ops.code, 2);
  EXPECT_NE(ops.err.find("--ops: 'frob' is not an operator"), std::string::npos) << ops.err;
  Outcome split = dmci(search("--split 't<100'"));
  EXPECT_EQ(split.code, 2);
  EXPECT_NE(split.err.find("no rows to hold out"), std::string::npos) << split.err;
  write("seed.scm", "(* y t)\n");
  Outcome target = dmci(search("--evals 10"));
  EXPECT_EQ(target.code, 2);
  EXPECT_NE(target.err.find("'y' is a column of osc.csv that is not a variable (it is the target)"), std::string::npos)
      << target.err;
}

// --smooth: a seed whose threshold sits at 0.3 in a branch, on data stepping at 1; the smoothed fits find the step
// and the JSON counts them. Bad smoothing settings are refused with exit 2.
TEST_F(SearchCli, SmoothFindsAThresholdAndBadSettingsAreRefused) {
  write("thr.csv", dmci::testing::thresholdCsv(200));
  write("thr.scm", "(if (< x 0.3) (* 1.5 x) (* 1.2 x))\n");
  const std::string base =
      "search --data thr.csv --target y --seed-program thr.scm --ops '+ - * /' --jobs 1 --evals 20 ";
  Outcome o = dmci(base + "--smooth 0.5 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  json j = json::parse(o.out);
  EXPECT_LT(j.at("best").at("holdout_rmse").get<double>(), 1e-9) << o.out;
  EXPECT_GE(j.at("smooth").at("smoothed_fits").get<int>(), 1);
  Outcome crisp = dmci(base + "--json");
  ASSERT_EQ(crisp.code, 0) << crisp.err;
  EXPECT_TRUE(json::parse(crisp.out).at("smooth").is_null());
  for (const char* bad :
       {"--smooth 0", "--smooth -1", "--smooth-dea", "--smooth 0.5 --smooth-stages 0", "--smooth 0.5 --no-gradient"}) {
    Outcome b = dmci(base + bad);
    EXPECT_EQ(b.code, 2) << bad << ": " << b.err;
    EXPECT_NE(b.err.find("smooth"), std::string::npos) << bad << ": " << b.err;
  }
}

}  // namespace

// --edit NAME: the search edits only the body of (define (NAME ...) BODY), here the rate of an Euler integrator
// run four steps by a recursion; the integrator and its literals (0.05, 4, 0, 1) stay as written and the law is
// fitted through them: dv/dt = -0.5 v is found from the states alone (no derivative column).
TEST_F(SearchCli, EditChangesOnlyTheNamedDefinitionAndFitsThroughTheRest) {
  std::string csv = "v0,vn\n";
  for (int i = 0; i < 40; ++i) {
    double v = 0.5 + 0.0625 * i, vn = v;
    for (int k = 0; k < 4; ++k) vn += 0.05 * (-0.5 * vn);
    char line[80];
    std::snprintf(line, sizeof line, "%.17g,%.17g\n", v, vn);
    csv += line;
  }
  write("euler.csv", csv);
  const std::string integrator = "(define (euler v h n) (if (= n 0) v (euler (+ v (* h (rate v))) h (- n 1))))";
  write("euler.scm", "(define (rate v) a)\n" + integrator + "\n(euler v0 0.05 4)\n");
  Outcome o = dmci(
      "search --data euler.csv --target vn --seed-program euler.scm --edit rate --evals 400 --jobs 1 "
      "--json");
  ASSERT_EQ(o.code, 0) << o.err;
  json best = json::parse(o.out).at("best");
  EXPECT_LT(best.at("holdout_rmse").get<double>(), 1e-9) << best.dump();
  const std::string program = best.at("program").get<std::string>();
  EXPECT_NE(program.find(integrator), std::string::npos) << program;
  EXPECT_NE(program.find("(euler v0 0.05 4)"), std::string::npos) << program;
  EXPECT_EQ(program.rfind("(define (rate v) ", 0), 0u) << program;
}

// --terms K: the sparse regression's sums, here without --edit (where it is off unless asked): y = 2 + 1.5 x - 0.5 x z,
// three terms of the library, is scored in the first generation; a K past 8 is refused.
TEST_F(SearchCli, TermsFindsASumOfLibraryTermsAndRefusesABadSize) {
  std::string csv = "x,z,y\n";
  for (int i = 0; i < 60; ++i) {
    double x = 0.1 + 0.05 * i, z = std::fmod(0.37 * i, 2);
    char line[120];
    std::snprintf(line, sizeof line, "%.17g,%.17g,%.17g\n", x, z, 2 + 1.5 * x - 0.5 * x * z);
    csv += line;
  }
  write("sum.csv", csv);
  write("a.scm", "a\n");
  const std::string base =
      "search --data sum.csv --target y --seed-program a.scm --jobs 1 --enumerate 0 --no-probe --evals 30 --json ";
  Outcome o = dmci(base + "--terms 3");
  ASSERT_EQ(o.code, 0) << o.err;
  json best = json::parse(o.out).at("best");
  EXPECT_LT(best.at("holdout_rmse").get<double>(), 1e-6) << best.dump();
  EXPECT_NE(best.at("program").get<std::string>().find("(* x z)"), std::string::npos) << best.dump();
  Outcome bad = dmci(base + "--terms 9");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--terms"), std::string::npos) << bad.err;
}

// A bad --edit is a usage error at the seed's file:line:col: a name it does not define (its first line), a
// variable's definition or a body of two forms (the definition's place).
TEST_F(SearchCli, ABadEditIsAUsageErrorAtTheSeedsPlace) {
  write("two.scm", "; a seed\n(define k 2)\n  (define (g x) (display x) (* k x))\n(g t)\n");
  Outcome o = dmci("search --data osc.csv --target y --seed-program two.scm --edit nosuch --evals 10");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("two.scm:1:1: usage-error: --edit nosuch: the program has no definition"), std::string::npos)
      << o.err;
  o = dmci("search --data osc.csv --target y --seed-program two.scm --edit k --evals 10");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("two.scm:2:1: usage-error: --edit k: 'k' is defined as a variable"), std::string::npos) << o.err;
  o = dmci("search --data osc.csv --target y --seed-program two.scm --edit g --evals 10");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("two.scm:3:3: usage-error: --edit g: the definition must have one body expression"),
            std::string::npos)
      << o.err;
}

// --units: Coulomb's law searched on its one dimensionless group (q2/q1) and reported in the data's variables;
// a units file that does not parse, a variable without units and --units with --edit are errors.
class SearchUnitsCli : public dmci::testing::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    std::string csv = "q1,q2,epsilon,r,F\n";
    for (int i = 0; i < 120; ++i) {
      double q1 = 1 + 0.031 * i, q2 = 1 + std::fmod(0.37 * i, 4), e = 1 + std::fmod(0.53 * i, 4),
             r = 1 + std::fmod(0.71 * i, 4);
      char line[160];
      std::snprintf(line, sizeof line, "%.17g,%.17g,%.17g,%.17g,%.17g\n", q1, q2, e, r,
                    q1 * q2 / (4 * M_PI * e * r * r));
      csv += line;
    }
    write("coulomb.csv", csv);
    write("a.scm", "a\n");
    write("units.csv",
          "Variable,Units,m,s,kg,T,V,\nq1,Charge,2,-2,1,0,-1,\nq2,Charge,2,-2,1,0,-1,\n"
          "epsilon,Electric permitivity,1,-2,1,0,-2,\nr,Length,1,0,0,0,0,\nF,Force,1,-2,1,0,0,\n");
  }
  std::string search(const std::string& more) {
    return "search --data coulomb.csv --target F --seed-program a.scm --jobs 1 --quiet " + more;
  }
};

TEST_F(SearchUnitsCli, TheLawIsFoundOnTheGroupsAndReportedInTheVariables) {
  Outcome o = dmci(search("--units units.csv --evals 200 --json --out run"));
  ASSERT_EQ(o.code, 0) << o.err;
  json j = json::parse(o.out);
  EXPECT_EQ(j.at("units").at("reduction"), "F = (/ (* q1 q1) (* epsilon r r)) * g(pi1 = (/ q2 q1))");
  const std::string best = j.at("best").at("program");
  EXPECT_EQ(best.find("pi1"), std::string::npos) << best;
  EXPECT_NE(best.find("(/ q2 q1)"), std::string::npos) << best;
  EXPECT_LT(j.at("best").at("holdout_rmse").get<double>(), 1e-12) << best;  // scored on F itself
  for (const auto& m : j.at("pareto")) EXPECT_EQ(m.at("program").get<std::string>().find("pi1"), std::string::npos);
  EXPECT_NE(slurp(dir / "run" / "best.scm").find("(* (/ (* q1 q1) (* epsilon r r))"), std::string::npos);
}

TEST_F(SearchUnitsCli, BadUnitsAreErrorsAtTheirPlace) {
  write("bad.csv", "name,m,s,kg,T,V\nq1,2,-2,1,0,-1\nq2,2,-2,one,0,-1\n");
  Outcome parse = dmci(search("--units bad.csv --evals 10"));
  EXPECT_EQ(parse.code, 2) << parse.err;
  EXPECT_EQ(parse.err.rfind("bad.csv:3:9: usage-error: 'q2': the exponent of 'kg' is 'one'", 0), 0u) << parse.err;
  write("short.csv", "name,m,s,kg,T,V\nq1,2,-2,1,0,-1\nq2,2,-2,1,0,-1\nF,1,-2,1,0,0\n");
  Outcome missing = dmci(search("--units short.csv --evals 10"));
  EXPECT_EQ(missing.code, 2) << missing.err;
  EXPECT_EQ(missing.err.rfind("short.csv:1:1: usage-error: no row for the variable 'epsilon'", 0), 0u) << missing.err;
  write("wrong.csv",
        "name,m,s,kg,T,V\nq1,2,-2,1,0,-1\nq2,2,-2,1,0,-1\nepsilon,1,-2,1,0,-2\nr,1,0,0,0,0\nF,1,-1,0,0,0\n");
  Outcome target = dmci(search("--units wrong.csv --evals 10"));
  EXPECT_EQ(target.code, 2) << target.err;
  EXPECT_EQ(target.err.rfind("wrong.csv:6:1: usage-error: the target 'F' has units m s^-1, which no product", 0), 0u)
      << target.err;
  Outcome noFile = dmci(search("--units nowhere.csv --evals 10"));
  EXPECT_NE(noFile.code, 0);
  EXPECT_NE(noFile.err.find("nowhere.csv"), std::string::npos) << noFile.err;
  write("r.scm", "(* a r)\n");
  Outcome seed = dmci("search --data coulomb.csv --target F --seed-program r.scm --units units.csv --evals 10 -q");
  EXPECT_EQ(seed.code, 2) << seed.err;
  EXPECT_EQ(seed.err.rfind("r.scm:1:6: usage-error: --units: the seed reads the variable 'r'", 0), 0u) << seed.err;
  write("e.scm", "(define (f r) a)\n(f r)\n");
  Outcome edit = dmci("search --data coulomb.csv --target F --seed-program e.scm --units units.csv --edit f -q");
  EXPECT_EQ(edit.code, 2) << edit.err;
  EXPECT_NE(edit.err.find("--units and --edit"), std::string::npos) << edit.err;
}
