// libFuzzer harness for the C++ emitter (engines/replay/EmitCpp.h): generated traces with hostile names.
//
// Each input is read as a few flags, four names (the program's file name, the two parameters' names, a gradient
// key: any bytes, NUL, newlines, `*/`, backslashes and non-UTF-8 included), a seed and an expression over two
// parameters (arithmetic, elementary functions, comparisons that become guards, max/min, a few tensor steps). The
// program is recorded on the native engine and emitted twice: with the hostile names and with plain ones. A
// finding (abort) is:
//   - the compiled engine's code (no names asked for) differs in any byte between the two: a name reached it;
//   - `dmci emit`'s code (names in its header comment) differs outside that header, or a header line holds a byte
//     that could end or continue a // comment, or a name does not read back from its escaped form;
//   - (inputs whose first flag asks for it, at most kMaxBuilds per process: a build takes the compiler a second)
//     the code does not build, or its value and gradient at the seed are not the native engine's (bit for bit
//     for scalar traces, 1e-12 relative with tensor steps).
// Built with -fsanitize=fuzzer (clang) it is a fuzzer; with a driver main (properties/libfuzzer's regression run)
// it replays the saved inputs in seeds/emit/ and crashes/emit/.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "engines/replay/Compiled.h"
#include "engines/replay/EmitCpp.h"

namespace {
using namespace dmci;

constexpr int kMaxBuilds = 12;
constexpr int kMaxDepth = 6;

// The input, consumed from the front; past its end every byte reads as 0.
struct Input {
  const uint8_t* p;
  size_t n, at = 0;
  uint8_t next() { return at < n ? p[at++] : 0; }
  std::string name() {
    const size_t len = next() % 48;
    std::string s;
    for (size_t k = 0; k < len && at < n; ++k) s += static_cast<char>(next());
    return s;
  }
};

const char* const kUnary[] = {"sin", "cos", "exp", "tanh", "atan", "sqrt", "abs", "square", "-", "/"};
const char* const kBinary[] = {"+", "-", "*", "/", "max", "min", "expt", "atan", "log"};
const char* const kLiterals[] = {"0.5", "2", "-1.25", "3", "1e-3", "0", "7.5", "-4"};

// An expression over u and v (the parameters), from the input.
std::string expression(Input& in, int depth) {
  const int pick = depth >= kMaxDepth ? in.next() % 3 : in.next() % 9;
  switch (pick) {
    case 0:
      return "u";
    case 1:
      return "v";
    case 2:
      return kLiterals[in.next() % 8];
    case 3:
    case 4: {
      const char* op = kUnary[in.next() % 10];
      return std::string("(") + op + " " + expression(in, depth + 1) + ")";
    }
    case 5:
    case 6: {
      const char* op = kBinary[in.next() % 9];
      std::string a = expression(in, depth + 1);
      return std::string("(") + op + " " + a + " " + expression(in, depth + 1) + ")";
    }
    case 7: {  // a guard
      const char* cmp = (in.next() & 1) ? "<" : ">=";
      std::string a = expression(in, depth + 1), b = expression(in, depth + 1);
      std::string c = expression(in, depth + 1);
      return std::string("(if (") + cmp + " " + a + " " + b + ") " + c + " " + expression(in, depth + 1) + ")";
    }
    default: {  // tensor steps
      std::string a = expression(in, depth + 1), b = expression(in, depth + 1);
      switch (in.next() % 3) {
        case 0:
          return "(dot (vec " + a + " " + b + ") (vec " + b + " 1.5))";
        case 1:
          return "(norm (vec " + a + " " + b + "))";
        default:
          return "(vsum (matvec (mat (list " + a + " 1) (list 2 " + b + ")) (vec 1 " + a + ")))";
      }
    }
  }
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t nl; (nl = s.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(s.substr(at, nl - at));
  out.push_back(s.substr(at));
  return out;
}

std::string uncomment(const std::string& s) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '%' && k + 2 < s.size()) {
      out += static_cast<char>(std::strtol(s.substr(k + 1, 2).c_str(), nullptr, 16));
      k += 2;
    } else {
      out += s[k];
    }
  }
  return out;
}

bool safeCommentByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 32 && u < 127 && c != '\\' && c != '*' && c != '/' && c != '?';
}

void check(bool ok) {
  if (!ok) std::abort();
}

// The emitted code with these names: the parameters' (the trace's side table), the first gradient key, the origin.
std::string emitted(replay::Trace& t, replay::EmitRequest req, const std::vector<std::string>& params,
                    const std::string& key, const std::string& origin, bool names) {
  for (size_t k = 0; k < params.size(); ++k) t.leafNames[k] = params[k];
  if (!req.gradientKeys.empty()) req.gradientKeys[0] = key;
  req.origin = origin;
  req.names = names;
  auto code = replay::emitCpp(t, req);
  check(static_cast<bool>(code));  // it emitted once: the names cannot make it refuse
  return *code;
}

bool same(double a, double b, bool exact) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (exact) return std::memcmp(&a, &b, sizeof a) == 0 || a == b;
  return std::fabs(a - b) <= 1e-12 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

int builds = 0;

// With DMCI_EMIT_FUZZER_VERBOSE set, each input says how far it went (a seed that stops early checks little).
void reached(const char* stage, const std::string& text) {
  static const bool verbose = std::getenv("DMCI_EMIT_FUZZER_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "emit fuzzer: %s: %s\n", stage, text.c_str());
}

// The builds go to a cache folder of this process's own (removed at exit), not the user's, unless one is set.
void privateCache() {
  static bool done = false;
  if (done || std::getenv("DMCI_CACHE_DIR")) return;
  done = true;
  static std::string dir = (std::filesystem::temp_directory_path() / "dmci-emit-fuzzer-XXXXXX").string();
  if (!::mkdtemp(dir.data())) return;
  ::setenv("DMCI_CACHE_DIR", dir.c_str(), 1);
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in{data, size};
  const uint8_t flags = in.next();
  const std::string file = in.name(), p0 = in.name(), p1 = in.name(), key = in.name();
  const double x = (static_cast<int>(in.next()) - 128) / 32.0, y = (static_cast<int>(in.next()) - 128) / 32.0;
  const std::string text = "(let ((u x) (v y)) " + expression(in, 0) + ")";
  auto program = Program::fromText(text, file);
  if (!program) return reached("not read", text), 0;
  EvalOptions opts;
  opts.wrt = {"x", "y"};
  opts.wrtLiterals = (flags & 2) != 0;
  opts.leafParameters = true;
  opts.budget = Budget{100'000, 1'000'000, 2.0};
  Evaluator rec(*program, {"x", "y"}, opts);
  if (rec.setupError()) return reached("not prepared", text), 0;
  replay::Trace t;
  auto native = rec.record({x, y}, t);
  if (!native || !t.replayable() || native->isTensor || native->isData()) return reached("not recorded", text), 0;
  replay::EmitRequest req;
  for (auto& [k, leaves] : rec.gradientLeaves()) req.gradientKeys.push_back(k), req.leaves.push_back(leaves);
  const std::vector<std::string> keys = req.gradientKeys;
  if (!replay::emitCpp(t, req)) return reached("not emitted", text), 0;  // a native Step, a long trace

  // The names read back from their escaped form.
  for (const auto& n : {file, p0, p1, key}) check(uncomment(replay::commentText(n)) == n);
  // The compiled engine's code: the same bytes whatever the names.
  const std::string origin = file + " recorded at " + p0 + "=1";
  const std::string hostile = emitted(t, req, {p0, p1}, key, origin, false);
  const std::string plain = emitted(t, req, {"x", "y"}, "k", "prog.scm recorded at x=1", false);
  check(hostile == plain);
  // dmci emit's code: the same outside its header; the header's bytes all safe in a // comment.
  const auto named = lines(emitted(t, req, {p0, p1}, key, origin, true));
  const auto plainNamed = lines(emitted(t, req, {"x", "y"}, "k", "prog.scm recorded at x=1", true));
  check(named.size() == plainNamed.size());
  bool header = true;
  for (size_t k = 0; k < named.size(); ++k) {
    header = header && named[k].rfind("//", 0) == 0;
    if (!header) {
      check(named[k] == plainNamed[k]);
      continue;
    }
    for (char c : named[k])
      check(static_cast<unsigned char>(c) >= 32 && static_cast<unsigned char>(c) < 127 && c != '\\');
    check(named[k].find("*/") == std::string::npos && named[k].find("??") == std::string::npos);
  }
  // The names' escaped forms: no byte that could end or continue a comment, whatever comment they are put in.
  for (const auto& n : {file, p0, p1, key, origin})
    for (char c : replay::commentText(n)) check(safeCommentByte(c));

  // Built and run: the native numbers.
  if (!(flags & 1) || builds >= kMaxBuilds) return reached("emitted", text), 0;
  ++builds;
  privateCache();
  for (size_t k = 0; k < keys.size(); ++k) req.gradientKeys[k] = keys[k];
  auto fn = replay::CompiledTrace::build(hostile, req.function);
  if (!fn) {
    std::fprintf(stderr, "%s\n%s\n", fn.error().str().c_str(), hostile.c_str());
    std::abort();
  }
  const double params[2] = {x, y};
  double value = 0;
  std::vector<double> gradient(req.leaves.size() + 1, 0.0);
  check((**fn)(params, &value, gradient.data()) == 0);  // the seed is on its own path
  const bool exact = !t.hasTensorSteps();
  check(same(value, native->value, exact));
  check(native->gradient.size() == req.leaves.size());
  for (size_t k = 0; k < req.leaves.size(); ++k) check(same(gradient[k], native->gradient[k].second, exact));
  reached("built, native numbers", text);
  return 0;
}
