// The properties: the gate's triangle on a generated case, syntax round trips, and bad input.
#include "properties/Properties.h"

#include <unistd.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "expand/Expand.h"
#include "prims/PrimTable.h"
#include "support/Regex.h"
#include "syntax/Reader.h"

namespace dmci::props {
namespace fs = std::filesystem;

namespace {

const char* kNondiffPrefix = "expected pass, but the oracle finds the program nondifferentiable";

// This thread's scratch directory: the gate reads programs from files, as `dmci check` does.
const std::string& scratchDir() {
  thread_local std::string dir = [] {
    auto tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
    fs::path p = fs::temp_directory_path() / ("dmci-props-" + std::to_string(getpid()) + "-" + std::to_string(tid));
    fs::create_directories(p);
    return p.string();
  }();
  return dir;
}

std::string sci(double x) {
  std::ostringstream s;
  s.precision(3);
  s << x;
  return s.str();
}

}  // namespace

Outcome checkTriangle(const Case& c, const TriangleOptions& opts) {
  {
    std::ofstream out(scratchDir() + "/case.scm", std::ios::binary | std::ios::trunc);
    out << c.text;
  }
  gate::GatePair pair;
  pair.name = "fuzz/case";
  pair.file = "case.scm";
  pair.family = c.family;
  pair.bind = c.seed;
  pair.wrt = opts.gradient ? c.wrt : std::vector<std::string>{};
  pair.literals = opts.gradient && c.wrtLiterals;
  pair.routes = opts.dmci ? std::vector<Route>{Route::Direct, Route::Dmci} : std::vector<Route>{Route::Direct};
  gate::GateOptions g;
  g.criteria = opts.criteria;
  g.budget = opts.budget;
  g.fd.budget = opts.budget;
  gate::PairResult r = gate::checkPair(scratchDir(), pair, g);
  bool nondiff = r.oracle.ok && !r.oracle.differentiable;
  Outcome o;
  o.illConditioned = !r.notes.empty();
  for (const auto& reason : r.reasons) {
    if (nondiff && reason.rfind(kNondiffPrefix, 0) == 0) continue;
    o.detail += (o.detail.empty() ? "" : "\n") + reason;
  }
  if (!o.detail.empty()) {
    o.verdict = Verdict::Fail;
  } else if (nondiff) {
    o.verdict = Verdict::Nondifferentiable;
    o.detail = r.oracle.reason;
  }
  return o;
}

Outcome checkPrintRead(const DatumPtr& d) {
  std::string text = print(d);
  auto back = readAll(text, "printed");
  if (!back) return {Verdict::Fail, "printed datum does not read back: " + text + "\n" + back.error().str()};
  if (back->size() != 1)
    return {Verdict::Fail, "printed datum reads back as " + std::to_string(back->size()) + " datums: " + text};
  if (!equalDatum(*d, *back->front()))
    return {Verdict::Fail, "printed datum reads back different: " + text + " -> " + print(back->front())};
  return {};
}

namespace {

Result<Evaluation> runDirect(const Program& p, const Case& c, const Budget& budget) {
  EvalOptions opts;
  opts.gradient = false;
  opts.budget = budget;
  return p.evaluate(c.seed, opts);
}

}  // namespace

namespace {

// The printed core as user text: a reserved "%name" becomes the primitive "name" it refers to,
// or, for a binder the expander made (e.g. %do1), the user name "pct-do1".
std::string userText(const std::string& core) {
  static const std::regex reserved("%([^\\s()'\"]+)");
  std::string out;
  auto last = core.cbegin();
  for (std::sregex_iterator it(core.begin(), core.end(), reserved), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    std::string name = (*it)[1].str();
    out += primId(name) >= 0 && primId("%" + name) == primId(name) ? name : "pct-" + name;
    last = (*it)[0].second;
  }
  return out.append(last, core.cend());
}

}  // namespace

Outcome checkExpandKeepsMeaning(const Case& c) {
  Budget budget{20'000'000, 8'000'000, 10.0};
  auto p = Program::fromText(c.text, "case.scm");
  if (!p) return {Verdict::Fail, "generated program does not expand: " + p.error().str()};
  std::string core = print(*p->core());
  auto forms = readAll(core, "core.scm");
  if (!forms) return {Verdict::Fail, "printed core does not read: " + forms.error().str() + "\ncore: " + core};
  auto again = expandProgram(*forms, ExpandOptions{true, "core.scm"});  // the core is a fixed point of expansion
  if (!again || print(**again) != core)
    return {Verdict::Fail, "expanding the printed core changes it\ncore: " + core +
                               (again ? "\nagain: " + print(**again) : "\nerror: " + again.error().str())};
  auto q = Program::fromText(userText(core), "core.scm");
  if (!q) return {Verdict::Fail, "printed core does not expand: " + q.error().str() + "\ncore: " + userText(core)};
  auto a = runDirect(*p, c, budget);
  auto b = runDirect(*q, c, budget);
  if (!a || !b)
    return {Verdict::Fail, std::string("run failed: ") + (a ? "" : "program: " + a.error().str()) +
                               (b ? "" : " core: " + b.error().str()) + "\ncore: " + core};
  if (std::bit_cast<uint64_t>(a->value) != std::bit_cast<uint64_t>(b->value) &&
      !(std::isnan(a->value) && std::isnan(b->value)))
    return {Verdict::Fail, "program gives " + formatNumber(a->value) + " but its printed core gives " +
                               formatNumber(b->value) + "\ncore: " + core};
  return {};
}

namespace {

// An evaluation by one route under small budgets, with escaped exceptions made visible.
Result<Evaluation> runSmall(const Program& p, Route route) {
  EvalOptions opts;
  opts.route = route;
  opts.gradient = true;
  opts.wrtLiterals = true;
  opts.budget = Budget{2'000'000, 2'000'000, 2.0};
  return p.evaluate({}, opts);
}

bool isBudget(const Result<Evaluation>& r) { return !r && r.error().kind == ErrorKind::Budget; }

}  // namespace

Outcome checkBadInput(const std::string& text) {
  try {
    auto p = Program::fromText(text, "bad.scm");
    if (!p) return {};  // a clean read or expand error
    auto direct = runSmall(*p, Route::Direct);
    auto dmci = runSmall(*p, Route::Dmci);
    if (isBudget(direct) || isBudget(dmci)) return {};
    if (bool(direct) != bool(dmci))
      return {Verdict::Fail, std::string("routes disagree: direct ") +
                                 (direct ? "gives " + formatNumber(direct->value) : "fails: " + direct.error().str()) +
                                 "; dmci " +
                                 (dmci ? "gives " + formatNumber(dmci->value) : "fails: " + dmci.error().str())};
    if (!direct) return {};
    auto wide = oracle::evaluate(*p, {}, Budget{2'000'000, 2'000'000, 2.0});
    if (!wide)
      return {Verdict::Fail,
              "the engines give " + formatNumber(direct->value) + " but the oracle fails: " + wide.error().str()};
    double ref = static_cast<double>(wide->total);
    const gate::Criteria c;
    double ed = gate::relativeError(direct->value, ref, c.floor), em = gate::relativeError(dmci->value, ref, c.floor);
    bool agree = (ed <= c.value && em <= c.value) || (std::isnan(ref) && std::isnan(direct->value));
    if (!agree && std::isfinite(direct->value) && std::isfinite(dmci->value)) {  // ill-conditioned? (Gate.h)
      auto spread = oracle::roundingSpread(*p, {}, Budget{2'000'000, 2'000'000, 2.0}, c.roundingSamples);
      double miss = std::max(std::fabs(direct->value - ref), std::fabs(dmci->value - ref));
      agree = spread && miss <= c.rounding * *spread;
    }
    if (!agree)
      return {Verdict::Fail, "value: direct " + formatNumber(direct->value) + ", dmci " + formatNumber(dmci->value) +
                                 ", oracle " + formatNumber(ref) + " (relative errors " + sci(ed) + ", " + sci(em) +
                                 ")"};
    return {};
  } catch (const std::exception& e) {
    return {Verdict::Fail, std::string("escaped exception: ") + e.what()};
  }
}

std::vector<std::pair<std::string, std::vector<double>>> caseLanes(const Case& c, int lanes) {
  // How lane k moves each seed value: lane 0 is the seed itself; the others go both ways, near and far, so
  // that lanes part at the program's branches and recursion depths.
  static constexpr double kMoves[] = {0, 1e-3, -0.02, 0.1, -0.15, 0.3, 0.5, -0.4, 0.05, -0.7, 0.9, 0.2};
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const auto& s : c.seed) {
    out.emplace_back(s.name, std::vector<double>{});
    for (int k = 0; k < lanes; ++k)
      out.back().second.push_back(s.value +
                                  kMoves[static_cast<size_t>(k) % std::size(kMoves)] * (std::fabs(s.value) + 0.1));
  }
  return out;
}

}  // namespace dmci::props
