// Untrusted input stays data (the README's "Untrusted input"): a file name, a program's symbols, a gradient key or
// a --wrt name never becomes code in what the emitter writes (the compiled engine's kernels, `dmci emit`'s file);
// the compiled cache is private to its user and loads only a library that is whole and built from the code asked
// for; a dmci killed while compiling leaves no compiler running. Each test plants code (a constructor that prints
// or aborts) or a bad cache entry, and checks it is refused or inert.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "replay/Compiled.h"
#include "replay/EmitCpp.h"
#include "support/CliFixture.h"

namespace dmci {
namespace {

namespace fs = std::filesystem;
using testing::Outcome;
using testing::slurp;

// The file name of the issue: its first line ends the emitter's // comment, and the lines after it define a
// static whose initialiser prints when the library is loaded.
const std::string kPlantedFileName =
    "ev\n#define CAT2(a,b) a##b\n#define CAT(a,b) CAT2(a,b)\n"
    "static int CAT(p,__COUNTER__) = ([]{ __builtin_printf(\"PLANTED CODE RAN\\n\"); return 0; })();\n#define zz";

// Names that try every way out of a comment or a string: a newline, a carriage return, backslash-newline (a line
// continuation), `*/`, a trigraph for backslash, a NUL, bytes that are not UTF-8, quotes; each follows with code
// that aborts the process if it is ever compiled and loaded.
const char kAbort[] = "static int planted = (__builtin_abort(), 0);";
std::vector<std::string> hostileNames() {
  using namespace std::string_literals;
  return {
      "\n"s + kAbort + "\n//", "\r"s + kAbort + "\r",          "x\\\n"s + kAbort,     "*/ "s + kAbort + " /*",
      "?\?/\n"s + kAbort,  // the trigraph ??/ (a backslash where trigraphs are on)
      "a\0b\n"s + kAbort,      "\xff\xfe\xc0\x80\n"s + kAbort, "\"'\\\"\n"s + kAbort, "\x0b\x0c\x1b[2J\n"s + kAbort};
}

// A cache folder of the test's own ($DMCI_CACHE_DIR), removed at the end.
struct ScopedCache {
  fs::path dir;
  explicit ScopedCache(const std::string& name)
      : dir(fs::temp_directory_path() / ("dmci-untrusted-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    ::setenv("DMCI_CACHE_DIR", dir.c_str(), 1);
  }
  ~ScopedCache() {
    ::unsetenv("DMCI_CACHE_DIR");
    std::error_code ec;
    fs::permissions(dir, fs::perms::owner_all, ec);
    fs::remove_all(dir, ec);
  }
};

// (* 2.5 (* x x)) recorded at x = 3 with its literal as a gradient key, from a file called `file`: the trace, the
// request for its code (the gradient's keys and leaves) and the native value and gradient.
struct Recorded {
  replay::Trace trace;
  replay::EmitRequest req;
  Evaluation native;
};
Recorded record(const std::string& file) {
  auto prog = Program::fromText("(* 2.5 (* x x))", file);
  EXPECT_TRUE(prog) << prog.error().str();
  EvalOptions o;
  o.wrt = {"x"};
  o.wrtLiterals = true;
  o.leafParameters = true;
  Evaluator rec(*prog, {"x"}, o);
  Recorded r;
  auto ev = rec.record({3.0}, r.trace);
  EXPECT_TRUE(ev) << ev.error().str();
  r.native = *ev;
  for (auto& [key, leaves] : rec.gradientLeaves()) r.req.gradientKeys.push_back(key), r.req.leaves.push_back(leaves);
  return r;
}

// The lines of `s`.
std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t nl; (nl = s.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(s.substr(at, nl - at));
  if (at < s.size()) out.push_back(s.substr(at));
  return out;
}

// commentText's output, read back: %XX to its byte.
std::string uncomment(const std::string& s) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '%' && k + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(k + 1, 2), nullptr, 16));
      k += 2;
    } else {
      out += s[k];
    }
  }
  return out;
}

TEST(CommentText, KeepsNoByteThatCouldEndOrContinueACommentAndReadsBack) {
  std::string every;
  for (int c = 0; c < 256; ++c) every += static_cast<char>(c);
  const std::string text = replay::commentText(every);
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 32 && u < 127) << "byte " << int{u};
    EXPECT_TRUE(c != '\\' && c != '*' && c != '/' && c != '?') << "byte " << int{u};
  }
  EXPECT_EQ(uncomment(text), every);
  for (const auto& n : hostileNames()) EXPECT_EQ(uncomment(replay::commentText(n)), n);
  EXPECT_EQ(replay::commentText("prog.scm:1:4"), "prog.scm:1:4");  // a plain key reads as it is
}

// The compiled engine's code names nothing: a trace recorded from a hostile file name, with a hostile gradient key
// and parameter name, is the same code byte for byte as one from prog.scm; it builds, loads (no planted abort) and
// gives the native value and gradient.
TEST(EmitNames, TheCompiledEnginesCodeIsTheSameWhateverTheNames) {
  ScopedCache cache("names");
  Recorded plain = record("prog.scm");
  auto plainCode = replay::emitCpp(plain.trace, plain.req);
  ASSERT_TRUE(plainCode) << plainCode.error().str();
  std::vector<std::string> files = hostileNames();
  files.push_back(kPlantedFileName);
  for (const auto& name : files) {
    // The name as the file name (the literal's key is name:1:4), and again as the parameter's name and its key.
    Recorded r = record(name);
    ASSERT_EQ(r.req.gradientKeys.size(), 2u);
    EXPECT_EQ(r.req.gradientKeys[1], name + ":1:4");
    r.req.gradientKeys[0] = name;
    r.trace.leafNames[0] = name;
    r.req.origin = name;
    auto code = replay::emitCpp(r.trace, r.req);
    ASSERT_TRUE(code) << code.error().str();
    EXPECT_EQ(*code, *plainCode) << replay::commentText(name);
  }
  auto fn = replay::CompiledTrace::build(*plainCode, plain.req.function);
  ASSERT_TRUE(fn) << fn.error().str();
  double x = 3, v = 0, g[2] = {0, 0};
  ASSERT_EQ((**fn)(&x, &v, g), 0);
  EXPECT_EQ(v, plain.native.value);
  EXPECT_EQ(g[0], plain.native.gradient[0].second);
  EXPECT_EQ(g[1], plain.native.gradient[1].second);
}

// `dmci emit`'s file names its parameters and keys for a reader, in its header comment: every name escaped, the
// code after the header the same as for plain names, and the file built and loaded (a planted abort would end the
// test) with the native numbers.
TEST(EmitNames, DmciEmitsHeaderEscapesEveryNameAndTheCodeIsUnchanged) {
  ScopedCache cache("header");
  Recorded plain = record("prog.scm");
  plain.req.names = true;
  plain.req.origin = "prog.scm recorded at x=3";
  auto plainCode = replay::emitCpp(plain.trace, plain.req);
  ASSERT_TRUE(plainCode) << plainCode.error().str();
  const auto plainLines = lines(*plainCode);
  for (const auto& name : hostileNames()) {
    Recorded r = record(name);
    r.req.names = true;
    r.req.gradientKeys[0] = name;
    r.trace.leafNames[0] = name;
    r.req.origin = name + " recorded at x=3";
    auto code = replay::emitCpp(r.trace, r.req);
    ASSERT_TRUE(code) << code.error().str();
    const auto got = lines(*code);
    ASSERT_EQ(got.size(), plainLines.size()) << replay::commentText(name);
    bool header = true;
    for (size_t k = 0; k < got.size(); ++k) {
      header = header && got[k].rfind("//", 0) == 0;
      if (!header) {
        EXPECT_EQ(got[k], plainLines[k]) << "line " << k + 1 << " for " << replay::commentText(name);
        continue;
      }
      for (char c : got[k]) {
        const auto u = static_cast<unsigned char>(c);
        ASSERT_TRUE(u >= 32 && u < 127 && c != '\\') << "line " << k + 1 << ": " << got[k];
      }
      EXPECT_EQ(got[k].find("*/"), std::string::npos) << got[k];
    }
    EXPECT_NE(code->find("//   params[0]  " + replay::commentText(name) + "\n"), std::string::npos) << *code;
    EXPECT_NE(code->find("d/d " + replay::commentText(name) + "\n"), std::string::npos) << *code;
    EXPECT_NE(code->find("d/d " + replay::commentText(name + ":1:4") + "\n"), std::string::npos) << *code;
    EXPECT_NE(code->find("from " + replay::commentText(name + " recorded at x=3")), std::string::npos) << *code;
    auto fn = replay::CompiledTrace::build(*code, r.req.function);
    ASSERT_TRUE(fn) << fn.error().str();
    double x = 3, v = 0, g[2] = {0, 0};
    ASSERT_EQ((**fn)(&x, &v, g), 0);
    EXPECT_EQ(v, plain.native.value);
    EXPECT_EQ(g[1], plain.native.gradient[1].second);
  }
}

TEST(EmitNames, AFunctionNameThatIsNotACIdentifierIsRefused) {
  Recorded r = record("prog.scm");
  for (const std::string& bad :
       std::vector<std::string>{"", "1f", "f g", "f;int x", "f\n#define", "f()", std::string(201, 'f')}) {
    r.req.function = bad;
    auto code = replay::emitCpp(r.trace, r.req);
    ASSERT_FALSE(code) << bad;
    EXPECT_NE(code.error().message.find("C identifier"), std::string::npos) << code.error().message;
  }
  r.req.function = "_ok_Name9";
  EXPECT_TRUE(replay::emitCpp(r.trace, r.req));
}

// ---- the dmci tool on hostile names (a file name, a --bind/--wrt name) ----

class Untrusted : public testing::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    ::setenv("DMCI_CACHE_DIR", (dir / "cache").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("DMCI_CACHE_DIR");
    ::unsetenv("DMCI_HOSTILE");
    CliFixture::TearDown();
  }
  // A shell command run in the test's folder: its exit code and output.
  Outcome shell(const std::string& cmd) {
    int status = std::system(("cd '" + dir.string() + "' && (" + cmd + ") >stdout.txt 2>stderr.txt").c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "stdout.txt"), slurp(dir / "stderr.txt")};
  }
};

// The reproduction: before the fix the compiled engine printed PLANTED CODE RAN twice (the value and the
// gradient kernels) and then the answer.
TEST_F(Untrusted, AFileNameWithCodeInItDoesNotRunInTheCompiledEngine) {
  write(kPlantedFileName, "(* 2.5 (* x x))");
  ::setenv("DMCI_HOSTILE", kPlantedFileName.c_str(), 1);
  const std::string args = "grad \"$DMCI_HOSTILE\" --wrt literals --bind 'x=linspace(0,1,3)' --json --engine ";
  Outcome compiled = dmci(args + "compiled");
  Outcome native = dmci(args + "native");
  ASSERT_EQ(compiled.code, 0) << compiled.err;
  ASSERT_EQ(native.code, 0) << native.err;
  // (The name itself is in the output, JSON-escaped, as the gradient's key: what must not be there is its line.)
  EXPECT_EQ(compiled.out.find("PLANTED CODE RAN\n"), std::string::npos) << compiled.out;
  EXPECT_EQ(compiled.err.find("PLANTED CODE RAN\n"), std::string::npos) << compiled.err;
  EXPECT_EQ(compiled.out, native.out);
  EXPECT_EQ(nlohmann::json::parse(compiled.out)["gradient"][kPlantedFileName + ":1:4"],
            nlohmann::json::parse("[0.0, 0.25, 1.0]"));
}

// The same program with the code in a parameter's name (a |symbol|, bound and differentiated by --bind and --wrt;
// no '=' in it, which would end the name in --bind, and no backslash, an escape between |bars|).
TEST_F(Untrusted, AParameterNameWithCodeInItDoesNotRunInTheCompiledEngine) {
  const std::string name = "y\n#define zz\nstatic int p{([]{ __builtin_puts(\"PLANTED CODE RAN\"); return 0; })()};";
  write("prog.scm", "(* 2.5 (* |" + name + "| |" + name + "|))");
  ::setenv("DMCI_HOSTILE", name.c_str(), 1);
  const std::string args =
      "grad prog.scm --bind \"$DMCI_HOSTILE=linspace(0,1,3)\" --wrt \"$DMCI_HOSTILE\" --json --engine ";
  Outcome compiled = dmci(args + "compiled");
  Outcome native = dmci(args + "native");
  ASSERT_EQ(compiled.code, 0) << compiled.err;
  ASSERT_EQ(native.code, 0) << native.err;
  EXPECT_EQ(compiled.out.find("PLANTED CODE RAN\n"), std::string::npos) << compiled.out;
  EXPECT_EQ(compiled.out, native.out);
  EXPECT_EQ(nlohmann::json::parse(compiled.out)["gradient"][name], nlohmann::json::parse("[0.0, 2.5, 5.0]"));
}

// dmci emit's file from the file name and a hostile parameter name, built with a main that calls it: the
// planted constructor does not run, the value and gradient are the native ones, and the names are in the header.
TEST_F(Untrusted, DmciEmitsFileFromAHostileFileNameBuildsAndRunsNoPlantedCode) {
  const std::string param = "y*/\n#define zz\nstatic int q{([]{ __builtin_puts(\"PLANTED CODE RAN\"); return 0; })()};";
  write(kPlantedFileName, "(* 2.5 (* |" + param + "| |" + param + "|))");
  ::setenv("DMCI_HOSTILE", kPlantedFileName.c_str(), 1);
  ::setenv("DMCI_HOSTILE_PARAM", param.c_str(), 1);
  Outcome o = dmci("emit \"$DMCI_HOSTILE\" --bind \"$DMCI_HOSTILE_PARAM=3\" --wrt all -o out.cpp");
  ::unsetenv("DMCI_HOSTILE_PARAM");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string code = slurp(dir / "out.cpp");
  EXPECT_NE(code.find("//   params[0]  " + replay::commentText(param)), std::string::npos) << code;
  EXPECT_NE(code.find("d/d " + replay::commentText(kPlantedFileName + ":1:4")), std::string::npos) << code;
  write("main.cpp",
        "#include <cstdio>\nextern \"C\" int dmci_trace(const double*, double*, double*);\n"
        "int main() { double p = 3, v = 0, g[2] = {0, 0}; int rc = dmci_trace(&p, &v, g);\n"
        "  std::printf(\"%d %g %g %g\\n\", rc, v, g[0], g[1]); }\n");
  const char* cxx = std::getenv("CXX");
  Outcome run = shell(std::string(cxx && *cxx ? cxx : "c++") + " -ffp-contract=off out.cpp main.cpp -o main && ./main");
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_EQ(run.out, "0 22.5 15 9\n");  // d/dy = 2 * 2.5 * 3, d/d literal = 9 (the gradient's order: --wrt all)
}

TEST_F(Untrusted, DmciEmitRefusesAFunctionNameThatIsNotAnIdentifier) {
  write("prog.scm", "(* 2.5 (* x x))");
  Outcome o = dmci("emit prog.scm --bind x=3 --function 'f(){}; int g' -o out.cpp");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("C identifier"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir / "out.cpp"));
}

}  // namespace
}  // namespace dmci
