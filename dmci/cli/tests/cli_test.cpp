// The dmci command-line tool, run as a process: its output, its files and its exit codes (0 ok, 1 program, 2 usage).
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "testing/CliFixture.h"

namespace {

namespace fs = std::filesystem;

using dmci::testing::Outcome;
using dmci::testing::slurp;

// Each test runs in its own temporary directory, where it writes prog.scm.
class Cli : public dmci::testing::CliFixture {};

TEST_F(Cli, GradWithJsonPrintsTheValueAndTheLiteralGradient) {
  write("prog.scm", "(* 2.5 (* x x))");
  Outcome o = dmci("grad prog.scm --bind x=3 --wrt literals --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j, nlohmann::json::parse(R"({"value":22.5,"gradient":{"prog.scm:1:4":9.0}})")) << o.out;
}

TEST_F(Cli, JsonWritesNonFiniteNumbersAsStringsNotNull) {
  write("prog.scm", "(* x (exp 1000))");
  Outcome o = dmci("grad prog.scm --bind x=-2 --wrt x --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out), nlohmann::json::parse(R"({"value":"-inf","gradient":{"x":"inf"}})")) << o.out;
  // Lanes: 0 * inf is NaN in lane 0; the others are infinite.
  o = dmci("grad prog.scm --bind 'x=linspace(0,1,3)' --wrt x --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out),
            nlohmann::json::parse(R"({"lanes":3,"value":["nan","inf","inf"],"gradient":{"x":["inf","inf","inf"]}})"))
      << o.out;
  write("prog.scm", "(+ 1 2)");
  EXPECT_EQ(nlohmann::json::parse(dmci("run prog.scm --json").out), nlohmann::json::parse(R"({"value":3.0})"));
}

TEST_F(Cli, GradByDmciPrintsWhatDirectPrints) {
  write("prog.scm", "(define (f v) (* 1.5 v v)) (f x)");
  Outcome direct = dmci("grad prog.scm --bind x=2 --json");
  Outcome viaDmci = dmci("grad prog.scm --bind x=2 --json --via dmci");
  ASSERT_EQ(direct.code, 0) << direct.err;
  ASSERT_EQ(viaDmci.code, 0) << viaDmci.err;
  EXPECT_EQ(direct.out, viaDmci.out);
  auto j = nlohmann::json::parse(direct.out);
  EXPECT_EQ(j["gradient"]["x"], 6.0) << direct.out;
  EXPECT_EQ(j["gradient"]["prog.scm:1:18"], 4.0) << direct.out;
}

TEST_F(Cli, RunPrintsTheValue) {
  write("prog.scm", "(+ 1 2)");
  Outcome o = dmci("run prog.scm");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "3\n");
}

TEST_F(Cli, AProgramErrorExitsOneWithItsPositionOnStderr) {
  write("prog.scm", "(car 1)");
  Outcome o = dmci("run prog.scm");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("prog.scm:1:1"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("car"), std::string::npos) << o.err;
}

TEST_F(Cli, ASyntaxErrorExitsOne) {
  write("prog.scm", "(+ 1\n  (* 2 3)");
  Outcome o = dmci("run prog.scm");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("prog.scm:1:1"), std::string::npos) << o.err;
}

TEST_F(Cli, AMissingFileExitsOne) {
  Outcome o = dmci("run no_such_file.scm");
  EXPECT_EQ(o.code, 1) << o.err;
}

TEST_F(Cli, ABadBindExitsTwo) {
  write("prog.scm", "(* x x)");
  EXPECT_EQ(dmci("grad prog.scm --bind x3").code, 2);
  EXPECT_EQ(dmci("grad prog.scm --bind x=abc").code, 2);
  EXPECT_EQ(dmci("grad prog.scm --bind =3").code, 2);
}

TEST_F(Cli, AnUnknownOptionExitsTwo) {
  write("prog.scm", "(* 2 2)");
  EXPECT_EQ(dmci("run prog.scm --no-such-option").code, 2);
  EXPECT_EQ(dmci("run prog.scm --via nowhere").code, 2);
  EXPECT_EQ(dmci("frobnicate prog.scm").code, 2);
  EXPECT_EQ(dmci("").code, 2);
}

TEST_F(Cli, WrtOfAnUnboundNameExitsTwo) {
  write("prog.scm", "(* x x)");
  Outcome o = dmci("grad prog.scm --bind x=3 --wrt y");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("y"), std::string::npos) << o.err;
}

TEST_F(Cli, HelpWorksForEverySubcommand) {
  for (const char* sub : {"run", "grad", "compile", "prims", "expand"}) {
    Outcome o = dmci(std::string(sub) + " --help");
    EXPECT_EQ(o.code, 0) << sub << ": " << o.err;
    EXPECT_NE(o.out.find(sub), std::string::npos) << sub << ": " << o.out;
  }
  EXPECT_EQ(dmci("--help").code, 0);
}

TEST_F(Cli, CompileWritesAGraphFile) {
  write("prog.scm", "(define (f v) (* v v)) (f x)");
  Outcome o = dmci("compile prog.scm -o prog.cg");
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_TRUE(fs::exists(dir / "prog.cg"));
  EXPECT_GT(fs::file_size(dir / "prog.cg"), 0u);
  // The same text goes to standard output without -o.
  EXPECT_EQ(dmci("compile prog.scm").out, slurp(dir / "prog.cg"));
}

TEST_F(Cli, ExpandPrintsTheCoreForm) {
  write("prog.scm", "(let* ((a 1) (b a)) b)");
  Outcome o = dmci("expand prog.scm");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("let"), std::string::npos) << o.out;
}

TEST_F(Cli, PrimsListsThePrimitiveTable) {
  Outcome o = dmci("prims --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  ASSERT_TRUE(j.is_array());
  bool hasCar = false;
  for (const auto& row : j) hasCar = hasCar || row["name"] == "car";
  EXPECT_TRUE(hasCar);
}

TEST_F(Cli, AProgramErrorWithJsonIsAnErrorObject) {
  write("prog.scm", "(car 1)");
  Outcome o = dmci("grad prog.scm --json");
  EXPECT_EQ(o.code, 1);
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["error"]["position"], "prog.scm:1:1") << o.out;
  EXPECT_EQ(j["error"]["kind"], "wrong-type") << o.out;
}

// A program whose bytes are not UTF-8 still gets its error as JSON: the byte is written as U+FFFD, the exit
// status is the error's, and nothing aborts (nlohmann's plain dump throws on such a byte).
TEST_F(Cli, AnErrorQuotingBytesThatAreNotUtf8IsStillJson) {
  write("prog.scm", "(+ 1 \xff)");
  for (const char* cmd : {"run prog.scm --json", "grad prog.scm --json"}) {
    Outcome o = dmci(cmd);
    EXPECT_EQ(o.code, 1) << cmd << "\n" << o.out << o.err;
    auto j = nlohmann::json::parse(o.out);
    ASSERT_TRUE(j.contains("error")) << o.out;
    EXPECT_NE(j["error"]["message"].get<std::string>().find("\xef\xbf\xbd"), std::string::npos) << o.out;
  }
}

}  // namespace

// --- lanes from a file ---

TEST_F(Cli, ALaneFileMakesOneLanePerRowOnBothEngines) {
  write("prog.scm", "(* alpha (* x x))");
  write("lanes.csv", "# x and alpha per lane\nx,alpha\n1,2\n2, 3\n3,4\n");
#ifdef DMCI_HAVE_TORCH
  const std::vector<std::string> engines{"native", "tensor"};
#else
  const std::vector<std::string> engines{"native"};  // built with -DDMCI_TENSOR=OFF
#endif
  for (const auto& engine : engines) {
    Outcome o = dmci("grad prog.scm --lanes lanes.csv --engine " + engine);
    ASSERT_EQ(o.code, 0) << engine << ": " << o.err;
    EXPECT_EQ(nlohmann::json::parse(o.out),
              nlohmann::json::parse(
                  R"({"lanes":3,"value":[2.0,12.0,36.0],"gradient":{"x":[4.0,12.0,24.0],"alpha":[1.0,4.0,9.0]}})"))
        << engine << ": " << o.out;
  }
}

TEST_F(Cli, AJsonLaneFileAndABindingForEveryLane) {
  write("prog.scm", "(* alpha (* x x))");
  write("lanes.json", R"([{"x": 1}, {"x": 2.5}])");
  Outcome o = dmci("grad prog.scm --lanes lanes.json --bind alpha=2 --wrt x");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out),
            nlohmann::json::parse(R"({"lanes":2,"value":[2.0,12.5],"gradient":{"x":[4.0,10.0]}})"));
}

TEST_F(Cli, ABadLaneFileIsAUsageErrorAtItsLineAndColumn) {
  write("prog.scm", "(* alpha (* x x))");
  write("lanes.csv", "x,alpha\n1,2\n2,zz\n");
  Outcome o = dmci("grad prog.scm --lanes lanes.csv");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("lanes.csv:3:3: usage-error: 'zz' is not a number (alpha)"), std::string::npos) << o.err;
  write("lanes.json", "{\"x\": [1, 2,}");
  o = dmci("grad prog.scm --lanes lanes.json --bind alpha=1");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("lanes.json:1:13: usage-error: not JSON"), std::string::npos) << o.err;
  write("ok.csv", "x\n1\n2\n3\n");
  o = dmci("grad prog.scm --lanes ok.csv --bind 'alpha=linspace(0,1,4)'");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("--bind alpha: 4 lanes, but the lane file gives 3"), std::string::npos) << o.err;
  o = dmci("grad prog.scm --lanes ok.csv --bind alpha=1 --bind y=2");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("'y' is not a free variable"), std::string::npos) << o.err;
}

// A primitive's name is not a parameter, in a single run or in lanes: binding it would shadow the primitive.
TEST_F(Cli, BindingAPrimitivesNameIsAUsageErrorWithOrWithoutLanes) {
  write("prog.scm", "(sin x)");
  Outcome o = dmci("run prog.scm --bind x=1 --bind sin=2");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err, "usage-error: parameter 'sin' is not a free variable of prog.scm\n");
  o = dmci("run prog.scm --bind 'x=linspace(0,1,2)' --bind sin=2");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("'sin' is not a free variable of prog.scm"), std::string::npos) << o.err;
  write("lanes.csv", "x,sin\n1,2\n");
  o = dmci("run prog.scm --lanes lanes.csv");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("'sin' is not a free variable of prog.scm"), std::string::npos) << o.err;
}

// A partial gate run must not overwrite the committed full report unless asked to.
TEST_F(Cli, AFilteredCheckWritesNoReportUnlessAsked) {
  fs::create_directories(dir / "c");
  write("c/a.scm", "(* x x)");
  write(
      "c/manifest.json",
      R"({"version": 1, "pairs": [{"name": "a/1", "file": "a.scm", "family": "f", "bind": {"x": 2}, "wrt": ["x"]}]})");
  Outcome o = dmci("check c --filter a --quiet");
  ASSERT_EQ(o.code, 0) << o.err << o.out;
  EXPECT_FALSE(fs::exists(dir / "reports"));
  o = dmci("check c --filter a --quiet --json part.json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(fs::exists(dir / "part.json"));
  o = dmci("check c --quiet");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(fs::exists(dir / "reports/tmp/gate.json"));
  EXPECT_TRUE(fs::exists(dir / "reports/tmp/gate.md"));
  EXPECT_FALSE(fs::exists(dir / "reports/published"));  // the committed copies change only by ci/gate --publish
}

// What a terminal receives from `dmci ARGS` run in `dir` on a pseudo-terminal: standard output and error, to the end.
std::string onTerminal(const fs::path& dir, const std::string& args) {
  int terminal = -1;
  const std::string command = "cd '" + dir.string() + "' && exec '" DMCI_BINARY_DIR "/dmci' " + args;
  const pid_t pid = ::forkpty(&terminal, nullptr, nullptr, nullptr);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string seen;
  char buf[4096];
  for (ssize_t n; pid > 0 && ((n = ::read(terminal, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR));)
    if (n > 0) seen.append(buf, static_cast<size_t>(n));
  if (terminal >= 0) ::close(terminal);
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
  return seen;
}

// A pair's name holding terminal controls (colour, the bell) reaches the terminal escaped: in the progress line
// (shown on a terminal only), the table, the failure and the summary.
TEST_F(Cli, CheckPrintsPairNamesWithTheirControlBytesEscaped) {
  fs::create_directories(dir / "c");
  write("c/a.scm", "(* x x)");
  write(
      "c/manifest.json",
      R"({"version": 1, "pairs": [{"name": "ok/\u001b[31mred\u0007", "file": "a.scm", "family": "f", "bind": {"x": 2},)"
      R"( "wrt": ["x"]}, {"name": "bad/\u001b]0;title\u0007", "file": "a.scm", "family": "f", "bind": {"x": 2},)"
      R"( "wrt": ["x"], "closed_form": {"x": 5}}]})");
  const std::string seen = onTerminal(dir, "check c --jobs 1 --json '' --md ''");
  ASSERT_NE(seen.find("gate: FAILED"), std::string::npos) << seen;
  EXPECT_NE(seen.find("[1/2] "), std::string::npos) << "no progress line: " << seen;
  EXPECT_EQ(seen.find("\x1b[31m"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("\x1b]0;"), std::string::npos) << seen;
  EXPECT_EQ(seen.find('\x07'), std::string::npos) << seen;
  EXPECT_NE(seen.find("ok/\\x1b;[31mred\\x7;"), std::string::npos) << seen;
  EXPECT_NE(seen.find("FAIL bad/\\x1b;]0;title\\x7;"), std::string::npos) << seen;
}

// --- a Scheme user's first minute: any value printed, -e and standard input, the engines ---

TEST_F(Cli, RunPrintsAnyValueAsASchemeDatumByEveryRoute) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"(list 1 (< 1 2) (quote a))", "(1 #t a)"},
      {"(< 2 1)", "#f"},
      {"'()", "()"},
      {"(quote sym)", "sym"},
      {"\"a \\\"quoted\\\" text\"", "\"a \\\"quoted\\\" text\""},
      {"#\\a", "#\\a"},
      {"#\\space", "#\\space"},
      {"(cons 1 2)", "(1 . 2)"},
      {"(* 2 100000)", "200000"},
      {"(/ 1 4)", "0.25"},
      {"1e25", "1e+25"},
      {"(mat (list 1 2) (list 3 4))", "#<tensor 2x2 ((1 2) (3 4))>"},
      {"(vec 1.5 2)", "#<tensor 2 (1.5 2)>"},
      {"(lambda (x) x)", "#<procedure>"},
  };
  for (const auto& [src, want] : cases) {
    write("prog.scm", src);
    for (const char* via : {"direct", "dmci"}) {
      Outcome o = dmci(std::string("run prog.scm --via ") + via);
      ASSERT_EQ(o.code, 0) << src << " [" << via << "]: " << o.err;
      EXPECT_EQ(o.out, want + "\n") << src << " [" << via << "]";
    }
  }
  write("prog.scm", "(list (list 1 2) (list 'x \"y\") '())");
  EXPECT_EQ(dmci("run prog.scm").out, "((1 2) (x \"y\") ())\n");
}

// The lantern routes give the program's own values: a list built inside reset (the user's, or lantern.scm's
// around the whole program) holds numbers, never lantern's dual numbers; gradients are those of direct.
TEST_F(Cli, TheLanternRoutesReturnPlainValues) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"(reset (list x (* x 3)))", "(2 6)"},
      {"(list x (cons (* x x) 1.5))", "(2 (4 . 1.5))"},
      {"(reset (+ 1 (shift k (list (k x) (k 10)))))", "(3 11)"},
  };
  for (const auto& [src, want] : cases) {
    write("prog.scm", src);
    for (const char* via : {"direct", "lantern", "lantern-dmci"}) {
      Outcome o = dmci(std::string("run prog.scm --bind x=2 --via ") + via);
      ASSERT_EQ(o.code, 0) << src << " [" << via << "]: " << o.err;
      EXPECT_EQ(o.out, want + "\n") << src << " [" << via << "]";
    }
  }
  write("prog.scm", "(car (reset (list (* x x 3) x)))");
  Outcome direct = dmci("grad prog.scm --bind x=2 --json");
  Outcome lantern = dmci("grad prog.scm --bind x=2 --json --via lantern");
  ASSERT_EQ(lantern.code, 0) << lantern.err;
  EXPECT_EQ(lantern.out, direct.out);
}

TEST_F(Cli, MinusZeroKeepsItsSignInTheWrittenValueAndTheJson) {
  // The written form: -0.0, which reads back as -0.0 (1 divided by it is -inf.0), in a list and in a tensor.
  Outcome o = dmci("run -e '(- 0.0)'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "-0.0\n");
  EXPECT_EQ(dmci("run -e '(/ 1 " + o.out.substr(0, o.out.size() - 1) + ")'").out, "-inf.0\n");
  EXPECT_EQ(dmci("run -e '(list (- 0.0) 0.0)'").out, "(-0.0 0)\n");
  EXPECT_EQ(dmci("run -e '(vec (- 0.0) 1)'").out, "#<tensor 2 (-0.0 1)>\n");
  // JSON: -0.0 (JSON's "-0" is the integer 0, whose sign a reader drops), alone, in a list, in a tensor.
  for (const char* expr : {"(- 0.0)", "(list (- 0.0))", "(vec (- 0.0))"}) {
    o = dmci(std::string("run --json -e '") + expr + "'");
    ASSERT_EQ(o.code, 0) << o.err;
    auto v = nlohmann::json::parse(o.out)["value"];
    while (v.is_array()) v = v.at(0);
    ASSERT_TRUE(v.is_number_float()) << expr << ": " << o.out;
    EXPECT_TRUE(std::signbit(v.get<double>())) << expr << ": " << o.out;
  }
}

TEST_F(Cli, RunJsonGivesNestedArrays) {
  write("prog.scm", "(list 1 (< 1 2) 'a \"s\" (list 2.5))");
  Outcome o = dmci("run prog.scm --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out), nlohmann::json::parse(R"({"value":[1.0,true,{"symbol":"a"},"s",[2.5]]})"));
  write("prog.scm", "(mat (list 1 2) (list 3 4))");
  o = dmci("run prog.scm --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out), nlohmann::json::parse(R"({"value":[[1.0,2.0],[3.0,4.0]],"shape":[2,2]})"));
}

TEST_F(Cli, GradStillNeedsANumberOrATensor) {
  Outcome o = dmci("grad -e '(list x)' --bind x=1");
  EXPECT_EQ(o.code, 1);
  EXPECT_NE(o.err.find("the program's value must be a number or a tensor, got (1)"), std::string::npos) << o.err;
}

TEST_F(Cli, AnExpressionOnTheCommandLineOrOnStandardInput) {
  Outcome o = dmci("run -e '(list 1 (< 1 2) (quote a))'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "(1 #t a)\n");
  write("in.scm", "(define (sq y) (* y y))\n(sq x)");
  o = dmci("grad - --bind x=3 --wrt x < in.scm");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "value: 9\nd/d x = 6\n");
  o = dmci("run -e '(car 1)'");
  EXPECT_EQ(o.code, 1);
  EXPECT_EQ(o.err, "<expr>:1:1: wrong-type: car: argument 1 must be a pair, got 1\n");
  o = dmci("run prog.scm -e '1'");
  EXPECT_EQ(o.code, 2);
  o = dmci("run");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("no program"), std::string::npos) << o.err;
}

TEST_F(Cli, AUsageErrorsJsonHasNoPositionField) {
  Outcome o = dmci("run -e '(* x 2)' --bind y=1 --json");
  EXPECT_EQ(o.code, 2);
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["error"]["kind"], "usage-error") << o.out;
  EXPECT_FALSE(j["error"].contains("position")) << o.out;
}

TEST_F(Cli, TheEnginesAreNamedAndAnUnknownOneIsAUsageError) {
  Outcome o = dmci("engines");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("native\tavailable"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("replay\tavailable"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("compiled\tavailable"), std::string::npos) << o.out;
#ifdef DMCI_HAVE_TORCH
  EXPECT_NE(o.out.find("tensor\tavailable"), std::string::npos) << o.out;
#else
  EXPECT_NE(o.out.find("tensor\tunavailable"), std::string::npos) << o.out;
#endif
  o = dmci("run -e 1 --engine nosuch");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("no engine called 'nosuch' (engines: native, replay, compiled, tensor"), std::string::npos)
      << o.err;
}

#ifdef DMCI_HAVE_TORCH
// The core tool links no LibTorch: the tensor engine is a plugin, opened only on --engine tensor.
TEST_F(Cli, TheCoreToolLinksNoLibTorchAndOpensTheTensorPluginWhenAsked) {
  Outcome o = dmci("run -e 1 >/dev/null; ldd '" DMCI_BINARY_DIR "/dmci'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.find("torch"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("libc.so"), std::string::npos) << o.out;
  o = dmci("run --engine tensor -e '(list 1 (vec 1 2))'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "(1 #<tensor 2 (1 2)>)\n");
  o = dmci("grad --engine tensor -e '(* x x)' --bind x=3 --wrt x");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "value: 9\nd/d x = 6\n");
}
#endif

// Exactness (runtime/ExactValue.h) answers alike on every engine: the mark rides on the values the native rules
// make, which the replay, compiled and tensor engines run for every constant. A number that differs between lanes
// is data: inexact on every engine.
TEST_F(Cli, ExactnessIsTheSameOnEveryEngine) {
  write("exact.scm",
        "(list (exact? 3) (exact? 3.0) (exact-integer? (+ 1 2)) (exact? (/ 1 2)) (exact? (exact 2.0))\n"
        "      (inexact? (inexact 1)) (exact? (vector-length (vector 1 2))) (exact? (max 1 2.0)))\n");
  std::vector<std::string> engines = {"native", "replay", "compiled"};
#ifdef DMCI_HAVE_TORCH
  engines.push_back("tensor");
#endif
  for (const std::string& engine : engines) {
    Outcome o = dmci("run --engine " + engine + " exact.scm");
    ASSERT_EQ(o.code, 0) << engine << ": " << o.err;
    EXPECT_EQ(o.out, "(#t #f #t #f #t #t #t #f)\n") << engine;
    o = dmci("run --engine " + engine + " -b 'x=linspace(1,3,3)' -e '(if (exact? x) 1 (* 2 x))'");
    ASSERT_EQ(o.code, 0) << engine << ": " << o.err;
    EXPECT_EQ(o.out, "{\"lanes\":3,\"value\":[2.0,4.0,6.0]}\n") << engine;
  }
}

// A value is printed as the reader reads it back: a symbol whose name is not a plain identifier between bars.
TEST_F(Cli, ASymbolPrintsAsTheReaderReadsItBack) {
  Outcome o = dmci("run -e '(list (string->symbol \"a b\") (quote abc) (string->symbol \"\"))'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "(|a b| abc ||)\n");
}

TEST_F(Cli, StatsCountsAreWrittenAsIntegers) {
  Outcome o = dmci("grad -e '(* x x)' --bind x=3 --stats --json");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_TRUE(j["stats"]["steps"].is_number_integer()) << o.out;
  EXPECT_TRUE(j["stats"]["tape_entries"].is_number_integer()) << o.out;
  EXPECT_EQ(j["stats"]["tape_entries"], 1) << o.out;
}
