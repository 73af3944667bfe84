// Central differences in Wide at two step sizes, replaying the seed's decisions,
// and the verdict on differentiability with its reason.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "oracle/Interpreter.h"
#include "oracle/Oracle.h"
#include "support/BigStack.h"

namespace dmci::oracle {
namespace {

using std::isfinite;

// One coordinate of the gradient: a seed parameter or a literal.
struct Component {
  std::string name;
  bool literal = false;
  size_t param = 0;  // the parameter's index, when not a literal
  Wide x0;
};

// One run with one coordinate moved: the value or the error, and the decisions that flipped.
struct Probe {
  Wide delta;  // how far the coordinate moved (exactly, in Wide)
  Wide value;
  std::vector<size_t> flips;
  std::optional<Error> error;
};

struct ComponentResult {
  Wide fine, coarse;  // the two central differences
  Probe probes[4];    // fine +, fine -, coarse +, coarse -
};

std::string fmt(const Wide& x) { return formatNumber(static_cast<double>(x)); }

const char* category(DecisionKind k) {
  switch (k) {
    case DecisionKind::Branch:
      return "branch threshold";
    case DecisionKind::Kink:
      return "kink";
    default:
      return "discrete argument";
  }
}

// "(|a-b| = 0)" for a comparison of numbers, "(argument 2)" for a function of one.
std::string detail(const Decision<Wide>& d) {
  using boost::multiprecision::isnan;
  static const std::set<std::string> gaps = {"<", ">", "<=", ">=", "=", "eq?", "eqv?", "min", "max"};
  if (gaps.count(d.prim)) return " (|a-b| = " + fmt(d.close.margin) + ")";
  if (isnan(d.close.margin)) return "";
  return " (argument " + fmt(d.argument) + ")";
}

std::string perturbing(const Component& c, const Probe& p) {
  return "perturbing " + c.name + " by " + (p.delta > 0 ? "+" : "") + fmt(p.delta);
}

// "kink at the seed: abs at prog.scm:1:1 (argument 0)"
std::string describe(const Decision<Wide>& d) {
  return std::string(category(d.kind)) + (d.close.margin == 0 ? " at the seed: " : " near the seed: ") + d.prim +
         " at " + d.site->pos.str() + detail(d);
}

// A flip that shows the coordinate is used as an integer, where no derivative exists or is wanted:
// a size, an index or an integer division's argument, or an integer literal that an exact integer
// comparison meets (a loop bound, a counter's start). Its gradient is the one along the seed's path.
bool integerUse(const Decision<Wide>& d, const Component& c) {
  if (d.kind == DecisionKind::Discrete) return true;
  return d.kind == DecisionKind::Branch && d.close.margin == 0 && d.close.integral && c.literal && isInteger(c.x0);
}

// A flip at the fine step puts the threshold within about 1e-30 of the seed: at it. The coarse
// step reaches further, so a flip there counts only when the seed is within double rounding of
// the threshold, where the engines, in double, may not take the seed's path.
bool counts(const Decision<Wide>& d, int step) { return step == 0 || d.close.margin <= Wide(1e-13) * d.close.scale; }

class FiniteDifference {
 public:
  FiniteDifference(const Program& program, const std::vector<SeedValue>& seed, const FdOptions& opts) : opts_(opts) {
    std::vector<std::string> names;
    for (const auto& s : seed) {
      names.push_back(s.name);
      params_.push_back(Wide(s.value));
    }
    prepared_ = prepare(program, names);
  }

  FdGradient run(const std::vector<std::string>& wrt, bool wrtLiterals) {
    runSeed(wrt, wrtLiterals);
    FdGradient g;
    g.value = static_cast<double>(seedValue_);
    g.evaluations = 1;
    for (const auto& c : comps_) {
      results_.push_back(differentiate(c));
      g.evaluations += 4;
      g.gradient.emplace_back(c.name, static_cast<double>(results_.back().fine));
      g.wide.push_back(results_.back().fine);
    }
    g.notes = integerUses();
    g.reason = verdict();
    g.differentiable = g.reason.empty();
    return g;
  }

  // gradientRoundingSpread (Oracle.h): the fine-step gradient along `samples` randomly rounded runs.
  std::vector<std::pair<std::string, double>> roundingSpread(const std::vector<std::string>& wrt, bool wrtLiterals,
                                                             int samples, uint64_t rounding) {
    using boost::multiprecision::abs;
    runSeed(wrt, wrtLiterals);
    std::vector<Wide> exact = fineGradient(nullptr), spread(comps_.size(), Wide(0));
    int ran = 0;
    std::optional<Error> last;
    for (int k = 0; k < samples; ++k) {
      Interpreter<Wide> rounded(prepared_, opts_.budget, params_, noLiterals_, &seedTrace_);
      rounded.setRandomRounding(roundingSeed(rounding, k));
      try {
        rounded.run();
      } catch (const DmciError& e) {
        last = e.error();
        continue;
      }
      std::vector<Wide> g = fineGradient(&rounded.roundingOffsets());
      if (!std::all_of(g.begin(), g.end(), [](const Wide& x) { return isfinite(static_cast<double>(x)); })) {
        last = Error{ErrorKind::Domain, "a randomly rounded run fails near the seed", {}};
        continue;
      }
      for (size_t i = 0; i < g.size(); ++i) spread[i] = std::max<Wide>(spread[i], abs(g[i] - exact[i]));
      ++ran;
    }
    if (ran == 0) throw DmciError(*last);
    std::vector<std::pair<std::string, double>> out;
    for (size_t i = 0; i < comps_.size(); ++i) out.emplace_back(comps_[i].name, static_cast<double>(spread[i]));
    return out;
  }

 private:
  FdOptions opts_;
  Prepared prepared_;
  std::vector<Wide> params_;
  std::map<std::string, Wide> noLiterals_;
  Wide seedValue_;
  std::vector<Decision<Wide>> seedTrace_;
  std::vector<Component> comps_;
  std::vector<ComponentResult> results_;  // one per component

  std::vector<Component> components(const std::vector<std::string>& wrt, bool wrtLiterals) const {
    std::vector<Component> out;
    for (const auto& name : wrt) {
      auto it = std::find(prepared_.params.begin(), prepared_.params.end(), name);
      if (it == prepared_.params.end())
        throw DmciError(ErrorKind::Usage,
                        "cannot differentiate with respect to " + name + ": the seed does not bind it");
      size_t k = static_cast<size_t>(it - prepared_.params.begin());
      out.push_back({name, false, k, params_[k]});
    }
    if (wrtLiterals)
      for (const auto& [key, value] : prepared_.literals) out.push_back({key, true, 0, Wide(value)});
    return out;
  }

  // The seed's run: its value and decisions, and the components.
  void runSeed(const std::vector<std::string>& wrt, bool wrtLiterals) {
    comps_ = components(wrt, wrtLiterals);
    Interpreter<Wide> seedRun(prepared_, opts_.budget, params_, noLiterals_);
    seedValue_ = seedRun.run().total;
    seedTrace_ = seedRun.trace();
  }

  Wide stepOf(const Component& c, double step) const {
    using boost::multiprecision::abs;
    return Wide(step) * (abs(c.x0) > 1 ? Wide(abs(c.x0)) : Wide(1));
  }

  // Each component's central difference at the fine step; with `offsets`, along the rounded run that made them.
  std::vector<Wide> fineGradient(const std::vector<double>* offsets) {
    std::vector<Wide> g;
    for (const auto& c : comps_) {
      Wide h = stepOf(c, opts_.step);
      Probe up = probe(c, c.x0 + h, offsets), down = probe(c, c.x0 - h, offsets);
      g.push_back((up.value - down.value) / (up.delta - down.delta));
    }
    return g;
  }

  Probe probe(const Component& c, const Wide& x, const std::vector<double>* offsets = nullptr) {
    std::vector<Wide> params = params_;
    std::map<std::string, Wide> literals;
    if (c.literal)
      literals[c.name] = x;
    else
      params[c.param] = x;
    Interpreter<Wide> run(prepared_, opts_.budget, params, literals, &seedTrace_);
    run.addRoundingOffsets(offsets);
    Probe p{x - c.x0, 0, {}, std::nullopt};
    try {
      p.value = run.run().total;
    } catch (const DmciError& e) {
      p.value = std::numeric_limits<double>::quiet_NaN();
      p.error = e.error();
    }
    p.flips = run.flips();
    return p;
  }

  ComponentResult differentiate(const Component& c) {
    ComponentResult r;
    const double steps[2] = {opts_.step, opts_.coarseStep};
    for (int s = 0; s < 2; ++s) {
      Wide h = stepOf(c, steps[s]);
      Probe& up = r.probes[2 * s] = probe(c, c.x0 + h);
      Probe& down = r.probes[2 * s + 1] = probe(c, c.x0 - h);
      (s == 0 ? r.fine : r.coarse) = (up.value - down.value) / (up.delta - down.delta);
    }
    return r;
  }

  // One note per coordinate that some run showed to be used as an integer.
  std::vector<std::string> integerUses() const {
    std::vector<std::string> notes;
    for (size_t i = 0; i < comps_.size(); ++i) {
      std::optional<size_t> use;
      for (const Probe& p : results_[i].probes)
        for (size_t f : p.flips)
          if (!use && integerUse(seedTrace_[f], comps_[i])) use = f;
      if (use)
        notes.push_back(comps_[i].name + " is used as an integer (" + seedTrace_[*use].prim + " at " +
                        seedTrace_[*use].site->pos.str() + "): its gradient is the one along the seed's path");
    }
    return notes;
  }

  // The first problem, most telling first: a flipped decision (fine step, then coarse), a failed
  // or non-finite run, then a gradient that depends on the step. Empty when there is none.
  std::string verdict() const {
    if (!isfinite(static_cast<double>(seedValue_))) return "non-finite value";
    for (int s = 0; s < 2; ++s)
      for (size_t i = 0; i < comps_.size(); ++i)
        for (int k = 2 * s; k < 2 * s + 2; ++k)
          for (size_t f : results_[i].probes[k].flips)
            if (!integerUse(seedTrace_[f], comps_[i]) && counts(seedTrace_[f], s))
              return describe(seedTrace_[f]) + "; " + perturbing(comps_[i], results_[i].probes[k]) + " changes it";
    for (size_t i = 0; i < comps_.size(); ++i)
      for (const Probe& p : results_[i].probes) {
        if (p.error) return "evaluation fails near the seed (" + perturbing(comps_[i], p) + "): " + p.error->str();
        if (!isfinite(static_cast<double>(p.value)))
          return "non-finite value near the seed (" + perturbing(comps_[i], p) + ")";
      }
    for (size_t i = 0; i < comps_.size(); ++i) {
      std::string smooth = smoothness(comps_[i], results_[i]);
      if (!smooth.empty()) return smooth;
    }
    return "";
  }

  // A smooth function's central differences agree across the steps, and its one-sided
  // differences converge together as the step shrinks; at a kink they stay apart.
  std::string smoothness(const Component& c, const ComponentResult& r) const {
    using boost::multiprecision::abs;
    double fine = static_cast<double>(r.fine), coarse = static_cast<double>(r.coarse);
    if (!isfinite(fine) || !isfinite(coarse)) return "non-finite value of the gradient with respect to " + c.name;
    Wide tol = Wide(opts_.smoothTol) * (abs(r.fine) > Wide(1e-8) ? Wide(abs(r.fine)) : Wide(1e-8));
    if (abs(r.fine - r.coarse) > tol)
      return "the derivative with respect to " + c.name + " depends on the step: " + formatNumber(fine) + " at step " +
             formatNumber(opts_.step) + ", " + formatNumber(coarse) + " at step " + formatNumber(opts_.coarseStep) +
             " (not smooth at the seed)";
    Wide above = oneSided(r.probes[0]), below = oneSided(r.probes[1]);
    Wide spreadFine = abs(above - below), spreadCoarse = abs(oneSided(r.probes[2]) - oneSided(r.probes[3]));
    if (spreadFine > tol && spreadFine > Wide(0.1) * spreadCoarse)
      return "the one-sided derivatives with respect to " + c.name + " differ: " + fmt(above) + " from above, " +
             fmt(below) + " from below (a kink at the seed)";
    return "";
  }

  Wide oneSided(const Probe& p) const { return (p.value - seedValue_) / p.delta; }
};

}  // namespace

Result<FdGradient> finiteDifference(const Program& program, const std::vector<SeedValue>& seed,
                                    const std::vector<std::string>& wrt, bool wrtLiterals, const FdOptions& opts) {
  std::optional<Result<FdGradient>> out;
  runWithBigStack(
      [&] { out = catchErrors([&] { return FiniteDifference(program, seed, opts).run(wrt, wrtLiterals); }); });
  return *out;
}

Result<std::vector<std::pair<std::string, double>>> gradientRoundingSpread(const Program& program,
                                                                           const std::vector<SeedValue>& seed,
                                                                           const std::vector<std::string>& wrt,
                                                                           bool wrtLiterals, const FdOptions& opts,
                                                                           int samples, uint64_t rounding) {
  std::optional<Result<std::vector<std::pair<std::string, double>>>> out;
  runWithBigStack([&] {
    out = catchErrors(
        [&] { return FiniteDifference(program, seed, opts).roundingSpread(wrt, wrtLiterals, samples, rounding); });
  });
  return *out;
}

}  // namespace dmci::oracle
