"""The statistics of a performance regression report (ci/perf-report): for each benchmark, the HEAD/BASE time
ratio with a distribution-free 95% interval, the Mann-Whitney U p-value, the verdict, and the run's exit code.

The interval is the Moses (Hodges-Lehmann) one on log times: the order statistics of all HEAD/BASE pairwise
ratios cut at the exact critical value of U, so it holds its level for any noise distribution under a shift
and agrees with the U test. The p-value is Google Benchmark's own (tools/compare.py's calc_utest, Debian's
libbenchmark-tools). p-values are Holm-adjusted over the rows of one run: a run compares dozens of
benchmarks, and without that an A/A run would report a "regression" by chance most of the time.
"""
import functools
import math
import sys

import numpy as np

sys.path.insert(0, "/usr/share/benchmark")  # Debian's libbenchmark-tools: compare.py and its gbench package
from gbench.report import UTEST_OPTIMAL_REPETITIONS, calc_utest  # noqa: E402

FLOOR = 0.03  # a change below 3% is "same", however significant
ALPHA = 0.05
FAIL = 0.10  # a confident time regression of 10% or more fails the run
MIN_REPS = UTEST_OPTIMAL_REPETITIONS  # 9: compare.py's "lowest reasonable number" for the U test

VERDICTS = ("regressed", "improved", "same", "unknown")


def u_pvalue(base, head):
    """Two-sided Mann-Whitney U p-value of two samples, as Google Benchmark's compare.py computes it."""
    _, p, _ = calc_utest([list(base), list(head)], [list(base), list(head)])
    return p


def u_null_counts(m, n):
    """counts[u]: how many of the C(m+n, m) orderings of two untied samples give U = u (U = #pairs b > a)."""
    # f(i, j)[u] = f(i-1, j)[u] + f(i, j-1)[u-i]: the largest element is an a (it beats no b) or a b (it
    # beats all i a's). Floats: the counts reach C(m+n, m), and only their ratios are used.
    f = [np.ones(1) for _ in range(n + 1)]  # f(0, j): U = 0
    for i in range(1, m + 1):
        g = [np.ones(1)]  # f(i, 0)
        for j in range(1, n + 1):
            row = np.zeros(i * j + 1)
            row[:len(f[j])] += f[j]
            row[i:i + len(g[j - 1])] += g[j - 1]
            g.append(row)
        f = g
    return f[n]


@functools.lru_cache(maxsize=None)
def u_lower_critical(m, n, alpha=ALPHA):
    """The largest c with P(U <= c) <= alpha/2 under the null (two-sided), or -1 when no c qualifies."""
    counts = u_null_counts(m, n)
    total = float(math.comb(m + n, m))
    cum, c = 0.0, -1
    for u, k in enumerate(counts):
        cum += k
        if cum * 2 > alpha * total:
            break
        c = u
    return c


def ratio_interval(base, head, alpha=ALPHA):
    """(estimate, low, high) of HEAD/BASE: the median of all pairwise ratios, and the Moses interval."""
    a = np.log(np.asarray(base, dtype=float))
    b = np.log(np.asarray(head, dtype=float))
    d = np.sort((b[None, :] - a[:, None]).ravel())
    est = math.exp(float(np.median(d)))
    c = u_lower_critical(len(a), len(b), alpha)
    if c < 0:
        return est, 0.0, math.inf
    return est, math.exp(float(d[c])), math.exp(float(d[len(d) - 1 - c]))


def holm(pvalues):
    """Holm-adjusted p-values, in the order given (None stays None)."""
    idx = sorted((i for i, p in enumerate(pvalues) if p is not None), key=lambda i: pvalues[i])
    out = list(pvalues)
    running, k = 0.0, len(idx)
    for rank, i in enumerate(idx):
        running = max(running, min(1.0, (k - rank) * pvalues[i]))
        out[i] = running
    return out


def verdict(ratio, low, high, p_adj, reps, floor=FLOOR, alpha=ALPHA, min_reps=MIN_REPS):
    """regressed / improved / same / unknown for one benchmark (unknown: more repetitions needed)."""
    if reps < min_reps or p_adj is None or not math.isfinite(high):
        return "unknown"
    up, down = 1.0 + floor, 1.0 / (1.0 + floor)
    significant = p_adj < alpha
    if significant and low > 1.0 and ratio >= up:
        return "regressed"
    if significant and high < 1.0 and ratio <= down:
        return "improved"
    if down <= low and high <= up:
        return "same"  # the whole interval lies inside the practical floor
    if significant and down < ratio < up:
        return "same"  # a real change, smaller than the floor
    return "unknown"


def time_failure(row, fail=FAIL):
    """True when a row is a confident regression of at least `fail`: its whole interval lies above 1 + fail."""
    return row["verdict"] == "regressed" and row["low"] >= 1.0 + fail


def run_verdict(verdicts):
    """One word for a run: regressed if any row is, improved if any is and none regressed, same if all are."""
    if "regressed" in verdicts:
        return "regressed"
    if "improved" in verdicts:
        return "improved"
    if verdicts and all(v == "same" for v in verdicts):
        return "same"
    return "unknown" if verdicts else "same"


def exit_code(rows, count_changes, could_run=True, fail=FAIL):
    """0: nothing to fail; 1: a count changed or a confident time regression >= fail; 2: could not run."""
    if not could_run:
        return 2
    if count_changes or any(time_failure(r, fail) for r in rows):
        return 1
    return 0


def geomean(values):
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def compare(samples_base, samples_head, floor=FLOOR, alpha=ALPHA, min_reps=MIN_REPS):
    """Rows for benchmarks measured on both sides: {name: [times]} each; p-values Holm-adjusted over the rows."""
    names = [k for k in samples_base if k in samples_head]
    rows = []
    for name in names:
        a, b = samples_base[name], samples_head[name]
        reps = min(len(a), len(b))
        if reps >= 2:
            est, low, high = ratio_interval(a, b, alpha)
            p = u_pvalue(a, b)
        else:
            est, low, high, p = (b[0] / a[0] if a and b else math.nan), 0.0, math.inf, None
        rows.append({"name": name, "reps_base": len(a), "reps_head": len(b), "ratio": est, "low": low,
                     "high": high, "p": p, "base_median": float(np.median(a)), "head_median": float(np.median(b))})
    for row, padj in zip(rows, holm([r["p"] for r in rows])):
        row["p_adj"] = padj
        row["verdict"] = verdict(row["ratio"], row["low"], row["high"], padj,
                                 min(row["reps_base"], row["reps_head"]), floor, alpha, min_reps)
    return rows
