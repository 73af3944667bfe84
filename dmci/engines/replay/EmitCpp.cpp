// The C++ emitter: a trace's operations, guards and reverse sweep as straight-line C++ (EmitCpp.h says what).
#include "engines/replay/EmitCpp.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>

#include "engines/replay/EmitTensor.h"
#include "engines/replay/Replay.h"
#include "prims/PrimTable.h"

namespace dmci::replay {
namespace {

// An elementary rule's value and partials as C++ expressions of x (one argument) or a, b (two) and y (the value),
// the same formulas as prims/Elementary.cpp.
struct RuleText {
  const char *f1, *dx, *f2, *da, *db;
};
const std::map<std::string, RuleText>& ruleTexts() {
  static const std::map<std::string, RuleText> m = {
      {"abs", {"std::fabs(x)", "static_cast<double>((x > 0) - (x < 0))", nullptr, nullptr, nullptr}},
      {"floor", {"std::floor(x)", nullptr, nullptr, nullptr, nullptr}},
      {"ceiling", {"std::ceil(x)", nullptr, nullptr, nullptr, nullptr}},
      {"truncate", {"std::trunc(x)", nullptr, nullptr, nullptr, nullptr}},
      {"square", {"x * x", "2.0 * x", nullptr, nullptr, nullptr}},
      {"exp", {"std::exp(x)", "y", nullptr, nullptr, nullptr}},
      {"log",
       {"std::log(x)", "1.0 / x", "std::log(a) / std::log(b)", "1.0 / (a * std::log(b))", "-y / (b * std::log(b))"}},
      {"sqrt", {"std::sqrt(x)", "0.5 / y", nullptr, nullptr, nullptr}},
      {"expt",
       {nullptr, nullptr, "std::pow(a, b)", "(b == 0 ? 0.0 : b * std::pow(a, b - 1.0))",
        "(a > 0 ? y * std::log(a) : 0.0)"}},
      {"sin", {"std::sin(x)", "std::cos(x)", nullptr, nullptr, nullptr}},
      {"cos", {"std::cos(x)", "-std::sin(x)", nullptr, nullptr, nullptr}},
      {"tan", {"std::tan(x)", "1.0 + y * y", nullptr, nullptr, nullptr}},
      {"atan",
       {"std::atan(x)", "1.0 / (1.0 + x * x)", "std::atan2(a, b)", "b / (a * a + b * b)", "-a / (a * a + b * b)"}},
      {"tanh", {"std::tanh(x)", "(1.0 / (std::cosh(x) * std::cosh(x)))", nullptr, nullptr, nullptr}},
      {"normal-cdf",
       {"0.5 * std::erfc(-x * 0.70710678118654752440)", "0.39894228040143267794 * std::exp(-0.5 * x * x)", nullptr,
        nullptr, nullptr}},
  };
  return m;
}

std::string hex(double x) { return emit::hexLiteral(x); }

// (Built by insert, not "s" + to_string: GCC 12 warns falsely there.)
std::string slot(int32_t s) { return std::to_string(s).insert(0, 1, 's'); }
std::string adj(int32_t s) { return std::to_string(s).insert(0, 1, 'a'); }

// `expr` with the rule's variables bound: a lambda applied, so each variable is evaluated once, as in the rule.
std::string bind1(const char* expr, const std::string& x, const std::string& y) {
  return "[](double x, double y) { (void)x; (void)y; return " + std::string(expr) + "; }(" + x + ", " + y + ")";
}
std::string bind2(const char* expr, const std::string& a, const std::string& b, const std::string& y) {
  return "[](double a, double b, double y) { (void)a; (void)b; (void)y; return " + std::string(expr) + "; }(" + a +
         ", " + b + ", " + y + ")";
}

}  // namespace

std::string commentText(const std::string& s) {
  static const std::string kept = " _.,:;=+-()[]{}<>#@!~^&|'\"$`";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        (c != 0 && kept.find(ch) != std::string::npos)) {
      out += ch;
    } else {
      static const char digits[] = "0123456789ABCDEF";
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

bool isCIdentifier(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  for (size_t k = 0; k < s.size(); ++k) {
    const auto c = static_cast<unsigned char>(s[k]);
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(k > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

namespace {

// Why the trace is not emitted: a function name that is not a C identifier, a trace that cannot be replayed, or
// one so long that compiling it costs more than replaying it.
std::optional<Error> refusal(const Trace& t, const EmitRequest& req) {
  if (!isCIdentifier(req.function))
    return Error{ErrorKind::Usage,
                 "the emitted function's name must be a C identifier ([A-Za-z_][A-Za-z0-9_]*, at most 200 "
                 "characters), not '" +
                     commentText(req.function) + "'",
                 {}};
  if (!t.replayable()) return Error{ErrorKind::Usage, "the trace cannot be replayed: " + t.notReplayable, {}};
  if (t.ops.size() + t.guards.size() + t.tensorSteps.size() > kMaxEmittedSteps)
    return Error{ErrorKind::Usage,
                 "the trace has " + std::to_string(t.ops.size()) + " operations, " +
                     std::to_string(t.tensorSteps.size()) + " tensor steps and " + std::to_string(t.guards.size()) +
                     " guards: straight-line C++ that long takes the compiler longer than replaying it",
                 {}};
  return std::nullopt;
}

// The body of one lane, in one of two forms:
//   one lane   params[p] in, *value and gradient[k] out; a failed guard returns 1; the reverse sweep skips an
//              entry whose adjoint is 0, as the native sweep does
//   lane loop  pP[l] in, out[l] and gK[l] out, ok[l] the guards' verdict (1, or the first guard that failed,
//              as engines/replay/Replay.h codes it, so that the engine routes the lane; every guard evaluated, no early
//              return); the skip is a select, so that the loop has no branch and vectorises. Adding +0 leaves an
//              adjoint as it is (an adjoint is never -0), so both give the same numbers.
class LaneBody {
 public:
  LaneBody(const Trace& t, const EmitRequest& req, const emit::TensorEmitter& tensors, bool guarded, bool lanes,
           const std::string& ind)
      : t_(t), req_(req), tensors_(tensors), guarded_(guarded), lanes_(lanes), ind_(ind) {}

  Result<std::string> text(bool gradient) const {
    std::ostringstream body;
    if (lanes_) body << ind_ << "const long l = c + j;\n" << (guarded_ ? ind_ + "long long gd = 1;\n" : "");
    for (int32_t p = 0; p < t_.params; ++p)
      body << ind_ << "const double " << slot(p) << " = "
           << (lanes_ ? std::to_string(p).insert(0, 1, 'p') + "[l]" : "params[" + std::to_string(p) + "]") << ";\n";
    for (int32_t s = t_.params; s < t_.leaves; ++s)  // a literal leaf: its name is t.leafNames[s], kept by the caller
      body << ind_ << "const double " << slot(s) << " = " << hex(t_.leafValues[static_cast<size_t>(s)]) << ";\n";
    body << tensors_.constants(ind_);
    const std::vector<StepRef> steps = stepsInOrder(t_);
    for (const StepRef& st : steps) {
      auto code = forward(st);
      if (!code) return code.error();
      body << *code;
    }
    body << ind_ << (lanes_ ? "out[l] = " : "*value = ") << ref(t_.output) << ";\n";
    if (gradient) body << reverseSweep(steps);
    if (!lanes_ || guarded_) body << ind_ << (lanes_ ? "good[j] = gd;\n" : "return 0;\n");
    return body.str();
  }

 private:
  const Trace& t_;
  const EmitRequest& req_;
  const emit::TensorEmitter& tensors_;
  const bool guarded_, lanes_;
  const std::string ind_;

  std::string ref(Ref r) const { return isConst(r) ? hex(t_.constant(r)) : slot(r); }
  static std::string argRef(const Value& v) { return v.i >= 0 ? slot(v.i) : hex(v.num); }

  // One step of the forward sweep: a guard, a tensor step or an operation.
  Result<std::string> forward(const StepRef& st) const {
    if (st.kind == StepKind::Guard) return guard(t_.guards[st.index], st.index);
    if (st.kind == StepKind::Tensor) return tensors_.forward(t_.tensorSteps[st.index], ind_);
    const Op& op = t_.ops[st.index];
    auto e = operation(op);
    if (!e) return e.error();
    return ind_ + "const double " + slot(op.out) + " = " + *e + ";\n";
  }

  // A guard, placed where it was recorded.
  Result<std::string> guard(const Guard& g, size_t index) const {
    std::vector<std::string> xs;
    for (int32_t k = 0; k < g.argc; ++k) {
      const Value& a = t_.args[static_cast<size_t>(g.firstArg + k)];
      if (a.tag != Tag::Real)
        return Error{
            ErrorKind::Usage, std::string("cannot emit a guard on ") + prim(g.prim).name + " of a non-number", {}};
      xs.push_back(argRef(a));
    }
    const LaneKernel k = prim(g.prim).lanes.kernel;
    std::string cond, what = prim(g.prim).name;
    bool expected = g.expected != 0;
    if (g.kind == GuardKind::Select) {
      cond = selectCondition(g, xs, k == LaneKernel::Max);
      what += " selects argument " + std::to_string(g.expected);
      expected = true;
    } else {
      const char* op = k == LaneKernel::Less           ? "<"
                       : k == LaneKernel::Greater      ? ">"
                       : k == LaneKernel::LessEqual    ? "<="
                       : k == LaneKernel::GreaterEqual ? ">="
                       : k == LaneKernel::Equal        ? "=="
                                                       : nullptr;
      if (op) {
        cond = "true";
        for (size_t j = 1; j < xs.size(); ++j) cond += " && " + xs[j - 1] + " " + op + " " + xs[j];
      } else if (k == LaneKernel::Zero || k == LaneKernel::Positive || k == LaneKernel::Negative) {
        cond = xs[0] + (k == LaneKernel::Zero ? " == 0" : k == LaneKernel::Positive ? " > 0" : " < 0");
      } else {
        return Error{ErrorKind::Usage, std::string("cannot emit a guard on ") + prim(g.prim).name, {}};
      }
    }
    const std::string holds = expected ? "(" + cond + ")" : "!(" + cond + ")";
    if (lanes_)  // the verdict: on the path (1) or the first guard failed (engines/replay/Replay.h's codes)
      return ind_ + "gd = gd == 1 ? (" + holds + " ? 1 : " + std::to_string(replay::failedAtGuard(index)) +
             ") : gd;  // " + what + "\n";
    return ind_ + "if (!" + holds + ") return 1;  // " + what + "\n";
  }

  // A select guard (min, max): the argument `expected` is selected: no earlier one is as good, no later one
  // better, no NaN before it.
  static std::string selectCondition(const Guard& g, const std::vector<std::string>& xs, bool isMax) {
    const std::string e = xs[static_cast<size_t>(g.expected)];
    std::string cond = "!std::isnan(" + e + ")";
    for (int32_t j = 0; j < g.argc; ++j) {
      if (j == g.expected) continue;
      const std::string& x = xs[static_cast<size_t>(j)];
      if (j < g.expected)  // it beat every earlier argument
        cond += " && !std::isnan(" + x + ") && " + e + (isMax ? " > " : " < ") + x;
      else
        cond += " && !std::isnan(" + x + ") && !(" + x + (isMax ? " > " : " < ") + e + ")";
    }
    // A NaN wins and stays: then the selected one is the first NaN.
    std::string nanFirst = "std::isnan(" + e + ")";
    for (int32_t j = 0; j < g.expected; ++j) nanFirst += " && !std::isnan(" + xs[static_cast<size_t>(j)] + ")";
    return "(" + cond + ") || (" + nanFirst + ")";
  }

  // An operation's value as a C++ expression.
  Result<std::string> operation(const Op& op) const {
    switch (op.kind) {
      case OpKind::Add:
        return ref(op.a) + " + " + ref(op.b);
      case OpKind::Sub:
        return ref(op.a) + " - " + ref(op.b);
      case OpKind::Mul:
        return ref(op.a) + " * " + ref(op.b);
      case OpKind::Div:
        return ref(op.a) + " / " + ref(op.b);
      case OpKind::Neg:
        return "-" + ref(op.a);
      case OpKind::Inv:
        return "1.0 / " + ref(op.a);
      case OpKind::Rule1:
      case OpKind::Rule2: {
        auto it = ruleTexts().find(prim(op.prim).name);
        const char* f = it == ruleTexts().end() ? nullptr : op.kind == OpKind::Rule1 ? it->second.f1 : it->second.f2;
        if (!f)
          return Error{ErrorKind::Usage,
                       std::string("cannot emit ") + prim(op.prim).name + ": no C++ form of its rule here",
                       {}};
        return op.kind == OpKind::Rule1 ? bind1(f, ref(op.a), "0.0") : bind2(f, ref(op.a), ref(op.b), "0.0");
      }
      case OpKind::Step:
        return Error{
            ErrorKind::Usage, std::string("cannot emit ") + prim(op.prim).name + ": it runs the native rule", {}};
    }
    return std::string();
  }

  // The adjoints, the reverse sweep over `steps` and the gradient's components (each leaf's adjoints summed).
  std::string reverseSweep(const std::vector<StepRef>& steps) const {
    std::ostringstream body;
    if (!lanes_) body << ind_ << "if (!gradient) return 0;\n";
    for (int32_t s = 0; s < t_.slots; ++s) body << ind_ << "double " << adj(s) << " = 0.0;\n";
    body << tensors_.adjoints(ind_);
    if (!isConst(t_.output)) body << ind_ << adj(t_.output) << " = 1.0;\n";
    for (size_t n = steps.size(); n-- > 0;) {
      if (steps[n].kind == StepKind::Guard) continue;
      if (steps[n].kind == StepKind::Tensor) {
        body << tensors_.reverse(t_.tensorSteps[steps[n].index], ind_);
        continue;
      }
      const Op& op = t_.ops[steps[n].index];
      std::string s = partials(op);
      if (s.empty()) continue;
      if (lanes_)
        body << s;
      else
        body << ind_ << "if (" << adj(op.out) << " != 0.0) {\n" << s << ind_ << "}\n";
    }
    for (size_t k = 0; k < req_.leaves.size(); ++k) {
      const auto& ls = req_.leaves[k];
      std::string sum = ls.empty() ? "0.0" : adj(ls[0]);
      for (size_t j = 1; j < ls.size(); ++j) sum = "(" + sum + " + " + adj(ls[j]) + ")";
      body << ind_ << (lanes_ ? "g" + std::to_string(k) + "[l]" : "gradient[" + std::to_string(k) + "]") << " = " << sum
           << ";\n";
    }
    return body.str();
  }

  // One operation's adjoint updates: its adjoint times each partial, added to its arguments' adjoints.
  std::string partials(const Op& op) const {
    const std::string g = adj(op.out);
    // a partial of +-1 needs no skip: adding +-0 leaves an adjoint as it is
    auto acc = [&](Ref r, const std::string& partial) {
      if (isConst(r)) return std::string();
      const bool unit = partial == "1.0" || partial == "-1.0";
      if (!lanes_) return ind_ + "  " + adj(r) + " += " + partial + " * " + g + ";\n";
      if (unit) return ind_ + adj(r) + " += " + partial + " * " + g + ";\n";
      return ind_ + adj(r) + " += " + g + " != 0.0 ? " + partial + " * " + g + " : 0.0;\n";
    };
    switch (op.kind) {
      case OpKind::Add:
        return acc(op.a, "1.0") + acc(op.b, "1.0");
      case OpKind::Sub:
        return acc(op.a, "1.0") + acc(op.b, "-1.0");
      case OpKind::Mul:
        return acc(op.a, ref(op.b)) + acc(op.b, ref(op.a));
      case OpKind::Div:
        return acc(op.a, "(1.0 / " + ref(op.b) + ")") + acc(op.b, "(-" + slot(op.out) + " / " + ref(op.b) + ")");
      case OpKind::Neg:
        return acc(op.a, "-1.0");
      case OpKind::Inv:
        return acc(op.a, "(-" + slot(op.out) + " * " + slot(op.out) + ")");
      case OpKind::Rule1: {
        const char* d = ruleTexts().at(prim(op.prim).name).dx;
        return d ? acc(op.a, bind1(d, ref(op.a), slot(op.out))) : std::string();
      }
      case OpKind::Rule2: {
        const RuleText& r = ruleTexts().at(prim(op.prim).name);
        return acc(op.a, bind2(r.da, ref(op.a), ref(op.b), slot(op.out))) +
               acc(op.b, bind2(r.db, ref(op.a), ref(op.b), slot(op.out)));
      }
      case OpKind::Step:
        break;
    }
    return std::string();
  }
};

// The file's opening comment (what it computes, how to build it, and the names' side table) and its includes.
std::string preamble(const Trace& t, const EmitRequest& req) {
  std::ostringstream o;
  o << "// Generated by `dmci emit`";
  if (req.names && !req.origin.empty()) o << " from " << commentText(req.origin);
  o << ": the value";
  if (req.gradient) o << " and gradient";
  o << " along one recorded path\n// (" << t.ops.size() << " operations, ";
  if (t.hasTensorSteps()) o << t.tensorSteps.size() << " tensor steps, ";
  o << t.guards.size()
    << " guards). Build it without floating-point contraction (-ffp-contract=off) to get the native engine's\n"
    << "// numbers bit for bit";
  if (t.hasTensorSteps()) o << " (the tensor steps: to rounding; Eigen's include directory on the include path)";
  o << ". Returns 0, or 1 when a guard fails: the input takes another path.\n";
  if (req.names) {  // the side table for a reader, every name escaped (commentText)
    o << "// The names (a byte other than a letter, digit, space or safe punctuation is written %XX):\n";
    for (int32_t p = 0; p < t.params; ++p)
      o << "//   params[" << p << "]  " << commentText(t.leafNames[static_cast<size_t>(p)]) << "\n";
    for (size_t k = 0; k < req.leaves.size() && req.gradient; ++k)
      o << "//   gradient[" << k << "]  d/d " << (k < req.gradientKeys.size() ? commentText(req.gradientKeys[k]) : "")
        << "\n";
  }
  o << "#include <cmath>\n";
  if (t.hasTensorSteps())
    o << "#include <limits>\n\n#include <Eigen/Dense>\n\n" << emit::TensorEmitter::helpers();
  else
    o << "\n";
  return o.str();
}

// The one-lane function (static, `<name>_one`) and its extern "C" entry point.
std::string oneLaneFunctions(const EmitRequest& req, const std::string& body) {
  return "static inline int " + req.function +
         "_one(const double* params, double* value, double* gradient) {\n  (void)params;\n  (void)gradient;\n" + body +
         "}\n\nextern \"C\" int " + req.function +
         "(const double* params, double* value, double* gradient) {\n  return " + req.function +
         "_one(params, value, gradient);\n}\n\n";
}

// Lanes: params[p][lane], gradient[key][lane] (null: value only); ok[lane] = 1 where the lane kept the path,
// else the first guard it failed (engines/replay/Replay.h's codes).
// Every lane computes every operation (a lane off the path gets numbers nobody reads), in chunks of 64 lanes
// whose verdicts are kept as 64-bit words and narrowed to bytes after: a loop over doubles that also stores
// bytes does not vectorise.
std::string chunked(bool guarded, const std::string& ind, const std::string& laneBody) {
  if (!guarded)
    return ind + "const long c = 0;\n" + ind + "for (long j = 0; j < n; ++j) {\n" + laneBody + ind + "}\n" + ind +
           "if (verdict)\n" + ind + "  for (long j = 0; j < n; ++j) verdict[j] = 1;\n";
  return ind + "for (long c = 0; c < n; c += 64) {\n" + ind + "  const long m = n - c < 64 ? n - c : 64;\n" + ind +
         "  long long good[64];\n" + ind + "  for (long j = 0; j < m; ++j) {\n" + laneBody + ind + "  }\n" + ind +
         "  for (long j = 0; j < m; ++j) verdict[c + j] = static_cast<unsigned char>(good[j]);\n" + ind + "}\n";
}

// The lane loop of a trace with tensor steps: each lane through the one-lane function.
std::string laneLoopCallingOne(const Trace& t, const EmitRequest& req) {
  std::ostringstream o;
  const std::string np = std::to_string(std::max<int32_t>(t.params, 1));
  const std::string ng = std::to_string(std::max<size_t>(req.leaves.size(), 1));
  o << "extern \"C\" void " << req.function
    << "_lanes(long n, const double* const* params, double* value, double* const* gradient, unsigned char* ok) {\n"
    << "  for (long l = 0; l < n; ++l) {\n"
    << "    double p[" << np << "] = {0.0}, g[" << ng << "] = {0.0}, v = 0.0;\n"
    << "    for (int k = 0; k < " << t.params << "; ++k) p[k] = params[k][l];\n"
    << "    const int rc = " << req.function << "_one(p, &v, gradient ? g : nullptr);\n"
    << "    ok[l] = static_cast<unsigned char>(rc == 0);\n"
    << "    if (rc != 0) continue;\n"
    << "    value[l] = v;\n"
    << "    if (gradient)\n"
    << "      for (int k = 0; k < " << req.leaves.size() << "; ++k) gradient[k][l] = g[k];\n"
    << "  }\n}\n";
  return o.str();
}

// The vectorising lane loop: the lane bodies inlined, value only or (when asked) value and gradient.
std::string laneLoop(const Trace& t, const EmitRequest& req, bool guarded, const std::string& valueBody,
                     const std::string& gradientBody) {
  std::ostringstream o;
  o << "extern \"C\" void " << req.function
    << "_lanes(long n, const double* const* params, double* value, double* const* gradient, unsigned char* ok) {\n"
    << "  (void)params;\n  (void)gradient;\n"
    << "  double* __restrict out = value;\n"
    << "  unsigned char* __restrict verdict = ok;\n";
  for (int32_t k = 0; k < t.params; ++k) o << "  const double* __restrict p" << k << " = params[" << k << "];\n";
  if (req.gradient) {
    o << "  if (gradient) {\n";
    for (size_t k = 0; k < req.leaves.size(); ++k)
      o << "    double* __restrict g" << k << " = gradient[" << k << "];\n";
    o << chunked(guarded, "    ", gradientBody) << "    return;\n  }\n";
  }
  o << chunked(guarded, "  ", valueBody) << "}\n";
  return o.str();
}

}  // namespace

Result<std::string> emitCpp(const Trace& t, const EmitRequest& req) {
  if (auto e = refusal(t, req)) return *e;
  const emit::TensorEmitter tensors(t);
  const bool perLane = t.hasTensorSteps();
  // A trace with no guards keeps every lane on its path: its lane loop computes and stores, no verdicts.
  const bool guarded = perLane || !t.guards.empty();
  auto one = LaneBody(t, req, tensors, guarded, false, "  ").text(req.gradient);
  if (!one) return one.error();
  std::string out = preamble(t, req) + oneLaneFunctions(req, *one);
  // Whether the lane loop writes verdicts: without guards every lane stays on the path (ok may then be null).
  out += "extern \"C\" const int " + req.function + "_guarded = " + (guarded ? "1" : "0") + ";\n\n";
  // A trace with tensor steps does not vectorise across lanes (each lane is Eigen code on small matrices): its lane
  // loop calls the one-lane function, so the compiler sees its code once, not three times.
  if (perLane) return out + laneLoopCallingOne(t, req);
  auto lanesValue = LaneBody(t, req, tensors, guarded, true, "      ").text(false);
  if (!lanesValue) return lanesValue.error();
  auto lanesGradient = req.gradient ? LaneBody(t, req, tensors, guarded, true, "        ").text(true)
                                    : Result<std::string>(std::string());
  if (!lanesGradient) return lanesGradient.error();
  return out + laneLoop(t, req, guarded, *lanesValue, *lanesGradient);
}

}  // namespace dmci::replay
