"""The judge of ci/search-bench: whether a model found by `dmci search` is the law that made the data.

Three verdicts, each from this file alone:
- rule: SRBench's symbolic-solution rule (La Cava et al. 2021, as its assessment code applies it: the model is
  simplified, its floats below 1e-4 in magnitude set to 0 and the rest rounded to 3 decimals; then the difference
  truth - model and the ratio model / truth are rounded the same way, the difference simplified, and the model is
  a solution when the difference is a constant or the ratio a non-zero constant). As in SRBench, the check is made
  only for a model whose R^2 on the test rows exceeds 0.5, a model that simplifies to 0 is no solution, and pi is
  the number 3.1415926535 in the true law (SRBench's get_sym_model) and in the model (its clean_pred_model writes
  a model's pi so, for AI Feynman's; a DMCI program writes pi as (acos -1)): rounding treats both alike.
- exact: the model equals the law numerically on fresh points drawn from each variable's range widened by half
  (the width times 1.5, about the same middle): at every point where the law is finite the model is finite and
  |model - law| <= EXACT_TOL * (|law| + 1e-9 RMS(law)). Points where the law is undefined are skipped.
- on the front: whether any program of the search's Pareto front passes the rule (and, beside it, exact); a
  member whose difference and ratio to the law both vary by more than SCREEN (10%) on the test rows is not sent
  to sympy (may_pass_rule).

sympy can take very long on some expressions, so a caller runs `rule` under a time limit (ci/search-bench runs
the symbolic part in a worker process with an alarm per program); a rule that times out is no solution."""
import math
import random

import sympy

import exprs

EXACT_TOL = 1e-6
ZERO_BELOW = 1e-4
DECIMALS = 3
SCREEN = 0.1


def round_floats(e):
    """SRBench's rounding: every Float below 1e-4 in magnitude becomes 0, the others are rounded to 3 decimals."""
    repl = {}
    for a in sympy.preorder_traversal(e):
        if isinstance(a, sympy.Float):
            repl[a] = sympy.Integer(0) if abs(a) < ZERO_BELOW else sympy.Float(round(float(a), DECIMALS))
    return e.xreplace(repl) if repl else e


def _is_const(e):
    if e.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return False
    return bool(e.is_constant())


def rule(truth, model):
    """SRBench's symbolic-solution rule on two sympy expressions. Returns a dict: solved (bool), and the
    cleaned model, the rounded difference and ratio as text."""
    cleaned = round_floats(sympy.simplify(model, ratio=1))
    out = {"solved": False, "cleaned": str(cleaned)}
    if cleaned == 0 or cleaned.has(sympy.nan, sympy.zoo):
        out["why"] = "the model simplifies to 0 or is undefined"
        return out
    diff = round_floats(truth - cleaned)
    frac = round_floats(cleaned / truth)
    if not _is_const(diff):
        diff = sympy.simplify(diff, ratio=1)
    out["difference"], out["ratio"] = str(diff), str(frac)
    if _is_const(diff):
        out["solved"], out["why"] = True, "truth - model is a constant"
    elif _is_const(frac) and frac != 0:
        out["solved"], out["why"] = True, "model / truth is a non-zero constant"
    else:
        out["why"] = "neither the difference nor the ratio is a constant"
    return out


def widened(ranges):
    """Each range [lo, hi] widened by half its width: [lo - w/4, hi + w/4]."""
    return {k: (lo - (hi - lo) / 4, hi + (hi - lo) / 4) for k, (lo, hi) in ranges.items()}


def exact(truth_tree, model_tree, ranges, seed, points=2000):
    """Whether the model equals the law at fresh points from the widened ranges. Returns (bool, max relative
    error over the points where the law is defined, number of such points)."""
    rng = random.Random(seed)
    wide = widened(ranges)
    names = sorted(wide)
    pairs = []
    for _ in range(points):
        env = {k: rng.uniform(*wide[k]) for k in names}
        t = exprs.evaluate(truth_tree, env)
        if isinstance(t, float) and math.isfinite(t) or isinstance(t, int):
            pairs.append((float(t), exprs.evaluate(model_tree, env)))
    if len(pairs) < points // 10:
        return False, math.nan, len(pairs)
    rms = math.sqrt(sum(t * t for t, _ in pairs) / len(pairs))
    worst = 0.0
    for t, m in pairs:
        if not (isinstance(m, (int, float)) and math.isfinite(m)):
            return False, math.inf, len(pairs)
        worst = max(worst, abs(m - t) / (abs(t) + 1e-9 * rms + 1e-300))
    return worst <= EXACT_TOL, worst, len(pairs)


def may_pass_rule(model_tree, rows, names, ys, spread=SCREEN):
    """A numeric screen before sympy: False when neither truth - model nor model / truth is nearly constant on
    the test rows (their standard deviation above `spread` times the law's RMS, resp. the ratio's mean). A model
    the rule accepts differs from the law by a constant or a constant factor once its floats are rounded to 3
    decimals, which moves it far less than that; ci/search-bench screens the front's members with it (never the
    final pick), since sympy takes seconds a program."""
    ds, rs = [], []
    for row, t in zip(rows, ys):
        m = exprs.evaluate(model_tree, dict(zip(names, row)))
        if not (isinstance(m, (int, float)) and math.isfinite(m)):
            return True  # undefined somewhere: leave it to sympy
        ds.append(t - m)
        if t != 0:
            rs.append(m / t)
    if not ds:
        return True
    rms = math.sqrt(sum(t * t for t in ys) / len(ys)) or 1.0

    def sd(v):
        mu = sum(v) / len(v)
        return math.sqrt(sum((x - mu) ** 2 for x in v) / len(v)), mu

    sd_d, _ = sd(ds)
    sd_r, mu_r = sd(rs) if rs else (math.inf, 0.0)
    return sd_d <= spread * rms or sd_r <= spread * abs(mu_r)


def model_sympy(tree, symbols):
    """A model's sympy expression as the rule reads it: its pi, (acos -1), the number SRBench writes for pi."""
    return exprs.to_sympy(tree, symbols, pi_as_float=True)


def symbols_for(names):
    """Plain sympy symbols (no assumptions, as SRBench makes them), one per variable."""
    return {n: sympy.Symbol(n) for n in names}


def r2_rmse(model_tree, rows, names, ys):
    """R^2 and RMSE of the model on test rows (rows: lists of values in `names` order)."""
    errs, ok = [], True
    for row, y in zip(rows, ys):
        m = exprs.evaluate(model_tree, dict(zip(names, row)))
        if not (isinstance(m, (int, float)) and math.isfinite(m)):
            ok = False
            break
        errs.append(m - y)
    if not ok or not errs:
        return -math.inf, math.inf
    mean = sum(ys) / len(ys)
    sst = sum((y - mean) ** 2 for y in ys)
    sse = sum(e * e for e in errs)
    return (1 - sse / sst if sst > 0 else (1.0 if sse == 0 else -math.inf)), math.sqrt(sse / len(errs))
