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
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "driver/Engine.h"
#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "engines/replay/Compiled.h"
#include "engines/replay/EmitCpp.h"
#include "testing/CliFixture.h"

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

// The issue's reproduction: before the fix the compiled engine printed PLANTED CODE RAN twice (the value and the
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

// dmci emit's file from the issue's file name and a hostile parameter name, built with a main that calls it: the
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

// ---- the compiled cache ----

// The code of (* 2.5 (* x x)), or of (* k (* x x)) for another constant: two entries of different code.
std::string codeOf(double k = 2.5) {
  auto prog = Program::fromText("(* " + std::to_string(k) + " (* x x))", "prog.scm");
  EXPECT_TRUE(prog);
  EvalOptions o;
  o.wrt = {"x"};
  o.leafParameters = true;
  Evaluator rec(*prog, {"x"}, o);
  replay::Trace t;
  EXPECT_TRUE(rec.record({3.0}, t));
  replay::EmitRequest req;
  for (auto& [key, leaves] : rec.gradientLeaves()) req.gradientKeys.push_back(key), req.leaves.push_back(leaves);
  auto code = replay::emitCpp(t, req);
  EXPECT_TRUE(code);
  return *code;
}

// The value at x = 3 through a built library (k * 9 for codeOf(k)).
double valueAt3(const replay::CompiledTrace& fn) {
  double x = 3, v = 0, g = 0;
  EXPECT_EQ(fn(&x, &v, &g), 0);
  return v;
}

unsigned modeOf(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

// A shared library whose constructor aborts the process, at `path` (built by the system compiler).
void plantAbortingLibrary(const fs::path& path) {
  const fs::path src = path.string() + ".planted.cpp";
  std::ofstream(src) << "static int planted = (__builtin_abort(), 0);\nextern \"C\" int dmci_trace() { return 0; }\n";
  const std::string cmd = "c++ -shared -fPIC -o '" + path.string() + "' '" + src.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  fs::remove(src);
}

TEST(CompiledCache, TheFolderIsMadeOwnerOnlyAndAnEntryIsWritableByItsOwnerAlone) {
  ScopedCache cache("mode");
  ::setenv("DMCI_CACHE_DIR", (cache.dir / "a" / "b" / "compiled").c_str(), 1);  // parents made too
  ::umask(0);  // the widest: the folder and the entry still get their own modes
  auto fn = replay::CompiledTrace::build(codeOf(), "dmci_trace");
  ::umask(022);
  ASSERT_TRUE(fn) << fn.error().str();
  EXPECT_EQ(modeOf(cache.dir / "a" / "b" / "compiled"), 0700u);
  EXPECT_EQ(modeOf((*fn)->library()) & 077u, 0u) << std::oct << modeOf((*fn)->library());
  EXPECT_FALSE((*fn)->fromCache());
  EXPECT_EQ(valueAt3(**fn), 22.5);
  auto again = replay::CompiledTrace::build(codeOf(), "dmci_trace");
  ASSERT_TRUE(again) << again.error().str();
  EXPECT_TRUE((*again)->fromCache());
  EXPECT_EQ(valueAt3(**again), 22.5);
}

TEST(CompiledCache, AFolderOrEntryOthersCanWriteIsRefusedWithAClearError) {
  ScopedCache cache("refuse");
  auto fn = replay::CompiledTrace::build(codeOf(), "dmci_trace");
  ASSERT_TRUE(fn) << fn.error().str();
  const fs::path entry = (*fn)->library();
  for (unsigned mode : {0777u, 0720u, 0702u}) {
    ::chmod(cache.dir.c_str(), mode);
    auto refused = replay::CompiledTrace::build(codeOf(), "dmci_trace");
    ASSERT_FALSE(refused) << std::oct << mode;
    EXPECT_NE(refused.error().message.find("is writable by group or others"), std::string::npos)
        << refused.error().message;
    EXPECT_NE(refused.error().message.find(cache.dir.string()), std::string::npos) << refused.error().message;
  }
  ::chmod(cache.dir.c_str(), 0700);
  for (unsigned mode : {0666u, 0620u}) {
    ::chmod(entry.c_str(), mode);
    auto refused = replay::CompiledTrace::build(codeOf(), "dmci_trace");
    ASSERT_FALSE(refused) << std::oct << mode;
    EXPECT_NE(refused.error().message.find(entry.string() + " is writable by group or others"), std::string::npos)
        << refused.error().message;
  }
  ::chmod(entry.c_str(), 0600);
  // A symbolic link in the entry's place (to a good library) is not followed.
  const fs::path elsewhere = cache.dir.string() + ".lib";
  fs::rename(entry, elsewhere);
  fs::create_symlink(elsewhere, entry);
  auto link = replay::CompiledTrace::build(codeOf(), "dmci_trace");
  fs::remove(elsewhere);
  ASSERT_FALSE(link);
  EXPECT_NE(link.error().message.find("is a symbolic link"), std::string::npos) << link.error().message;
}

// Another user's folder or entry: only root can make one here to test it.
TEST(CompiledCache, AnotherUsersFolderOrEntryIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a file of another user's needs root";
  ScopedCache cache("owner");
  auto fn = replay::CompiledTrace::build(codeOf(), "dmci_trace");
  ASSERT_TRUE(fn) << fn.error().str();
  const std::string entry = (*fn)->library();
  ASSERT_EQ(::lchown(entry.c_str(), 65534, 65534), 0);
  auto refused = replay::CompiledTrace::build(codeOf(), "dmci_trace");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find(entry + " belongs to user 65534"), std::string::npos)
      << refused.error().message;
  ASSERT_EQ(::lchown(entry.c_str(), 0, 0), 0);
  ASSERT_EQ(::chown(cache.dir.c_str(), 65534, 65534), 0);
  refused = replay::CompiledTrace::build(codeOf(), "dmci_trace");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("belongs to user 65534, not to this user"), std::string::npos)
      << refused.error().message;
  ASSERT_EQ(::chown(cache.dir.c_str(), 0, 0), 0);
  EXPECT_TRUE(replay::CompiledTrace::build(codeOf(), "dmci_trace"));
}

// An entry that is not this code's library, or not the bytes the compiler wrote, is rebuilt (and then right).
TEST(CompiledCache, AnEntryWhoseRecordDoesNotMatchItsCodeIsRebuiltNeverLoaded) {
  ScopedCache cache("record");
  auto a = replay::CompiledTrace::build(codeOf(2.5), "dmci_trace");
  auto b = replay::CompiledTrace::build(codeOf(4.0), "dmci_trace");
  ASSERT_TRUE(a && b);
  const fs::path entryA = (*a)->library(), entryB = (*b)->library();
  ASSERT_NE(entryA, entryB);
  // Two entries loaded from the cache in one process are two libraries.
  auto a2 = replay::CompiledTrace::build(codeOf(2.5), "dmci_trace");
  auto b2 = replay::CompiledTrace::build(codeOf(4.0), "dmci_trace");
  ASSERT_TRUE(a2 && b2);
  EXPECT_TRUE((*a2)->fromCache() && (*b2)->fromCache());
  EXPECT_EQ(valueAt3(**a2), 22.5);
  EXPECT_EQ(valueAt3(**b2), 36.0);
  const std::string bytesA = slurp(entryA), bytesB = slurp(entryB);
  auto rebuiltFrom = [&](const std::string& entry, const char* what) {
    fs::remove(entryA);
    std::ofstream(entryA, std::ios::binary) << entry;
    ::chmod(entryA.c_str(), 0600);
    auto fn = replay::CompiledTrace::build(codeOf(2.5), "dmci_trace");
    ASSERT_TRUE(fn) << what << ": " << fn.error().str();
    EXPECT_FALSE((*fn)->fromCache()) << what;
    EXPECT_EQ(valueAt3(**fn), 22.5) << what;                               // B's library would give 36
    auto again = replay::CompiledTrace::build(codeOf(2.5), "dmci_trace");  // replaced by a whole entry of A's
    ASSERT_TRUE(again) << what << ": " << again.error().str();
    EXPECT_TRUE((*again)->fromCache()) << what;
    EXPECT_EQ(valueAt3(**again), 22.5) << what;
  };
  rebuiltFrom(bytesB, "B's whole entry under A's name");
  std::string flipped = bytesA;
  flipped[flipped.size() / 3] = static_cast<char>(flipped[flipped.size() / 3] ^ 0x55);
  rebuiltFrom(flipped, "a byte of the library changed");
  rebuiltFrom(bytesA.substr(0, bytesA.size() - 20), "the record cut short");
  rebuiltFrom(bytesA.substr(0, bytesA.size() / 2), "half the file");
  // A library with no record at all (an earlier dmci's entry, or one put there), whose constructor aborts.
  fs::remove(entryA);
  plantAbortingLibrary(entryA);
  auto fn = replay::CompiledTrace::build(codeOf(2.5), "dmci_trace");
  ASSERT_TRUE(fn) << fn.error().str();
  EXPECT_FALSE((*fn)->fromCache());
  EXPECT_EQ(valueAt3(**fn), 22.5);
}

// Temporary files of a build whose process is gone are removed by the next build; a live one's are kept.
TEST(CompiledCache, AKilledBuildsTemporaryFilesAreRemovedAndNeverLoaded) {
  ScopedCache cache("stale");
  ASSERT_TRUE(replay::CompiledTrace::build(codeOf(2.5), "dmci_trace"));
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ASSERT_GT(gone, 0);
  ::waitpid(gone, nullptr, 0);
  const std::string key =
      fs::path(replay::CompiledTrace::build(codeOf(2.5), "dmci_trace").value()->library()).stem().string();
  const fs::path staleSo = cache.dir / ("0123456789abcdef.tmp" + std::to_string(gone) + ".0.so");
  const fs::path staleCpp = cache.dir / ("0123456789abcdef.tmp" + std::to_string(gone) + ".0.cpp");
  const fs::path live = cache.dir / ("0123456789abcdef.tmp" + std::to_string(::getppid()) + ".0.cpp");
  // A planted library under the temporary name of the very code being built: never loaded.
  const fs::path plantedTmp = cache.dir / (key + ".tmp" + std::to_string(gone) + ".1.so");
  std::ofstream(staleCpp) << "half a build";
  std::ofstream(live) << "a build in progress";
  plantAbortingLibrary(staleSo);
  plantAbortingLibrary(plantedTmp);
  auto fn = replay::CompiledTrace::build(codeOf(4.0), "dmci_trace");  // a new entry: a build
  ASSERT_TRUE(fn) << fn.error().str();
  EXPECT_EQ(valueAt3(**fn), 36.0);
  EXPECT_FALSE(fs::exists(staleSo));
  EXPECT_FALSE(fs::exists(staleCpp));
  EXPECT_FALSE(fs::exists(plantedTmp));
  EXPECT_TRUE(fs::exists(live));
}

// The cache folder's name with shell in it: the compiler runs without a shell, so nothing of it runs.
TEST(CompiledCache, ACacheFolderWithShellInItsNameIsOnlyAName) {
  ScopedCache cache("shell");
  const fs::path marker = cache.dir.string() + "-pwned";
  const fs::path dir = cache.dir / "x'$(touch \"$DMCI_MARKER\")'`touch \"$DMCI_MARKER\"`;touch \"$DMCI_MARKER\";'";
  ::setenv("DMCI_MARKER", marker.c_str(), 1);
  ::setenv("DMCI_CACHE_DIR", dir.c_str(), 1);
  auto fn = replay::CompiledTrace::build(codeOf(), "dmci_trace");
  ::unsetenv("DMCI_MARKER");
  ASSERT_TRUE(fn) << fn.error().str();
  EXPECT_EQ(valueAt3(**fn), 22.5);
  EXPECT_FALSE(fs::exists(marker));
  fs::remove(marker);
}

// Two dmci processes building the same entry at once (a compiler slowed by a second so that they overlap): both
// give the native answer, and the cache ends with one whole entry and no temporary file.
TEST_F(Untrusted, TwoProcessesBuildingOneEntryAtOnceBothEndWithAGoodLibrary) {
  write("prog.scm", "(* 2.5 (* x x))");
  write("slow-c++", "#!/bin/sh\nsleep 1\nexec c++ \"$@\"\n");
  fs::permissions(dir / "slow-c++", fs::perms::owner_all);
  const std::string run = "grad prog.scm --bind 'x=linspace(0,1,5)' --json --engine ";
  Outcome native = dmci(run + "native");
  ASSERT_EQ(native.code, 0) << native.err;
  const std::string self = DMCI_BINARY_DIR "/dmci";
  Outcome both = shell("export CXX=\"$PWD/slow-c++\"; '" + self + "' " + run + "compiled >a.json 2>a.err & '" + self +
                       "' " + run + "compiled >b.json 2>b.err & wait %1 && wait %2");
  ASSERT_EQ(both.code, 0) << slurp(dir / "a.err") << slurp(dir / "b.err");
  EXPECT_EQ(slurp(dir / "a.json"), native.out) << slurp(dir / "a.err");
  EXPECT_EQ(slurp(dir / "b.json"), native.out) << slurp(dir / "b.err");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir / "cache")) files.push_back(e.path().filename().string());
  ASSERT_EQ(files.size(), 1u) << files.size() << " files, the first " << files[0];
  EXPECT_EQ(fs::path(files[0]).extension(), ".so");
  Outcome third = dmci(run + "compiled");
  EXPECT_EQ(third.out, native.out) << third.err;
}

// Whether process `pid` is gone (or a zombie nobody has reaped yet).
bool gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all;
  if (!std::getline(stat, all)) return true;
  const size_t close = all.rfind(')');
  return close != std::string::npos && close + 2 < all.size() && all[close + 2] == 'Z';
}

// A dmci killed by SIGTERM or SIGINT while its compiler runs ends, and so do the compiler and what it started
// (a compiler that starts a child and sleeps, recording both process ids).
TEST_F(Untrusted, ADmciKilledWhileCompilingTakesItsCompilerWithIt) {
  write("prog.scm", "(* 2.5 (* x x))");
  write("stuck-c++",
        "#!/bin/sh\nsleep 300 &\necho $! >\"$DMCI_TEST_DIR/child.pid\"\necho $$ >\"$DMCI_TEST_DIR/cxx.tmp\"\n"
        "mv \"$DMCI_TEST_DIR/cxx.tmp\" \"$DMCI_TEST_DIR/cxx.pid\"\nwait\n");
  fs::permissions(dir / "stuck-c++", fs::perms::owner_all);
  for (int sig : {SIGTERM, SIGINT}) {
    fs::remove(dir / "cxx.pid");
    fs::remove_all(dir / "cache");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::setenv("CXX", (dir / "stuck-c++").c_str(), 1);
      ::setenv("DMCI_TEST_DIR", dir.c_str(), 1);
      ::signal(SIGINT, SIG_DFL);  // as a shell starts a foreground command
      ::signal(SIGTERM, SIG_DFL);
      const std::string self = DMCI_BINARY_DIR "/dmci";
      ::execl(self.c_str(), "dmci", "grad", "--engine", "compiled", (dir / "prog.scm").c_str(), "--bind", "x=3",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    pid_t cxx = 0, child = 0;
    for (int k = 0; k < 600 && !fs::exists(dir / "cxx.pid"); ++k)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(fs::exists(dir / "cxx.pid")) << "the compiler never started";
    cxx = std::stoi(slurp(dir / "cxx.pid"));
    child = std::stoi(slurp(dir / "child.pid"));
    ASSERT_FALSE(gone(cxx) || gone(child));
    ::kill(pid, sig);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
    for (int k = 0; k < 100 && !(gone(cxx) && gone(child)); ++k)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(gone(cxx)) << "signal " << sig << ": the compiler " << cxx << " still runs";
    EXPECT_TRUE(gone(child)) << "signal " << sig << ": the compiler's child " << child << " still runs";
    if (!gone(cxx)) ::kill(cxx, SIGKILL);
    if (!gone(child)) ::kill(child, SIGKILL);
  }
}

TEST_F(Untrusted, TheCompiledEngineRefusesACacheOthersCanWrite) {
  write("prog.scm", "(* 2.5 (* x x))");
  fs::create_directories(dir / "cache");
  fs::permissions(dir / "cache", fs::perms::all);
  Outcome o = dmci("grad --engine compiled prog.scm --bind x=3");
  EXPECT_NE(o.code, 0);
  EXPECT_NE(o.err.find("is writable by group or others (mode 0777): refusing to load code from it"), std::string::npos)
      << o.err;
}

// ---- the audit (README, "Untrusted input"): each place a name or a program's text reaches a shell, a path, code
// or a format string ----

// A proposer's output is data: programs read by the reader, never a command line, never a file name. The
// proposer itself is the user's own command (run by sh -c as typed); what dmci sends it goes on its standard input.
TEST_F(Untrusted, AProposersOutputIsReadAsProgramsNotRunOrUsedAsPaths) {
  std::string csv = "t,y\n";
  for (int i = 0; i < 40; ++i) csv += std::to_string(0.1 * i) + "," + std::to_string(2.0 * 0.1 * i + 1.0) + "\n";
  write("line.csv", csv);
  write("seed.scm", "(* a t)\n");
  write("hostile.sh",
        "#!/bin/sh\ncat >/dev/null\n"
        "printf '%s\\n' '[\"$(touch pwned1)\", \"`touch pwned2`\", \"(+ a (* b t)) ; $(touch pwned3)\", "
        "\"\\\"; touch pwned4; \\\"\", \"../../outside\", \"/tmp/dmci-untrusted-absolute\", "
        "\"(+ b (* a t))\"]'\n");
  fs::permissions(dir / "hostile.sh", fs::perms::owner_all);
  Outcome o = dmci(
      "search --data line.csv --target y --seed-program seed.scm --jobs 1 --evals 30 --islands 1 --children 2 "
      "--proposer ./hostile.sh --out run --quiet");
  ASSERT_EQ(o.code, 0) << o.err;
  for (const char* f : {"pwned1", "pwned2", "pwned3", "pwned4", "outside"}) {
    EXPECT_FALSE(fs::exists(dir / f)) << f;
    EXPECT_FALSE(fs::exists(dir / "run" / f)) << f;
  }
  EXPECT_FALSE(fs::exists("/tmp/dmci-untrusted-absolute"));
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(dir / "run")) files.insert(e.path().filename().string());
  // --out's files: the reports, the archive and the checkpoint with the one before it (search epochs), nothing else.
  EXPECT_EQ(files, (std::set<std::string>{"archive.json", "best.scm", "front.md", "front.json", "front.svg",
                                          "progress.svg", "state.json", "state.prev.json"}));
}

// A file name full of format directives is printed as it is (every printf-family format in the tree is a literal;
// names are arguments).
TEST_F(Untrusted, AFileNameWithFormatDirectivesIsPrintedAsItIs) {
  const std::string name = "%n%s%s%x%%%p.scm";
  write(name, "(car 1)");
  ::setenv("DMCI_HOSTILE", name.c_str(), 1);
  Outcome o = dmci("run \"$DMCI_HOSTILE\"");
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_NE(o.err.find(name + ":1:1"), std::string::npos) << o.err;
  // dmci check prints pair names and files through printf's %s: a failing pair named with directives.
  write("c/p.scm", "(* x x)");
  write("c/manifest.json",
        R"({"version": 1, "pairs": [{"name": "%n%s%n%s", "file": "p.scm", "family": "f", "bind": {"x": 2.0},)"
        R"( "wrt": ["x"], "literals": false, "expect": "pass", "closed_form": {"x": 5.0}}]})");
  Outcome c = dmci("check c --jobs 1 --json '' --md ''");
  EXPECT_EQ(c.code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("FAIL %n%s%n%s (p.scm, expected pass)"), std::string::npos) << c.out;
}

// A --data-list or --data-vec name is written into the definitions read before the program: it must be one symbol.
TEST_F(Untrusted, ADataBindingsNameMustBeOneSymbol) {
  write("ys.csv", "ys\n1.25\n0.5\n3\n2\n");
  write("vec.scm", "(vsum (* (- ys mu) (- ys mu)))\n");
  for (const char* name : {"ys (define mu 5) (x", "ys))(define mu 5", "|ys|", "ys;", "1", "\"ys\""}) {
    ::setenv("DMCI_HOSTILE", name, 1);
    Outcome o = dmci("fit vec.scm --data-vec \"$DMCI_HOSTILE=ys.csv:ys\" --bind mu=0 --json");
    EXPECT_EQ(o.code, 2) << name << ": " << o.out << o.err;
    EXPECT_NE((o.out + o.err).find("the name must be a plain symbol"), std::string::npos) << name << ": " << o.out;
  }
  Outcome ok = dmci("fit vec.scm --data-vec ys=ys.csv:ys --bind mu=0 --json");
  EXPECT_EQ(ok.code, 0) << ok.err;
}

// A manifest's program files are paths inside its folder: an absolute path or a '..' is refused before anything is
// read (a shared corpus cannot make dmci check read a file elsewhere).
TEST_F(Untrusted, AManifestsFileStaysInsideItsFolder) {
  write("secret.scm", "(* x x)");
  write("c/p.scm", "(* x x)");
  const std::string pair = R"(", "family": "f", "bind": {"x": 2.0}, "wrt": ["x"], "literals": false, "expect": "pass",)"
                           R"( "closed_form": {"x": 4.0}}]})";
  for (const std::string& file :
       {(dir / "secret.scm").string(), std::string("../secret.scm"), std::string("sub/../../secret.scm")}) {
    write("c/manifest.json", R"({"version": 1, "pairs": [{"name": "p", "file": ")" + file + pair);
    Outcome o = dmci("check c --jobs 1 --json '' --md ''");
    EXPECT_EQ(o.code, 2) << file << ": " << o.out << o.err;
    EXPECT_NE(o.err.find("'file' must"), std::string::npos) << file << ": " << o.err;
  }
  write("c/manifest.json", R"({"version": 1, "pairs": [{"name": "p", "file": "p.scm)" + pair);
  Outcome ok = dmci("check c --jobs 1 --json '' --md ''");
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
}

}  // namespace
}  // namespace dmci
