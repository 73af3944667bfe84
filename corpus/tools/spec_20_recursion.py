# recursion: polynomials, Taylor series, Newton iteration, continued fractions, mutual recursion.
F = "recursion"
from mpmath import diff as _mpdiff, findroot as _findroot, binomial as _binom


def _poly(s, L):
    x, a, n = s["x"], s["alpha"], 3
    S = sum(x ** k for k in range(n + 1))
    return {"alpha": S, "x": a * sum(k * x ** (k - 1) for k in range(1, n + 1)),
            L("1"): a * x ** n, L("1", 2): a * sum(x ** k for k in range(n))}
prog("recursion/poly_rec.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-0.7, alpha=2.0), dict(x=0.25, alpha=-1.1)],
     cf=_poly, cv=lambda s: s["alpha"] * sum(s["x"] ** k for k in range(4)), note="paper's recursive poly, n = 3")

prog("recursion/poly_tail.scm", F, [dict(x=0.6), dict(x=-1.2), dict(x=1.05)],
     cf=lambda s, L: {"x": sum(k * s["x"] ** (k - 1) / (k + 1) for k in range(1, 9))},
     cv=lambda s: sum(s["x"] ** k / (k + 1) for k in range(9)), note="tail-recursive Horner")

prog("recursion/taylor_exp.scm", F, [dict(x=0.5), dict(x=-1.2), dict(x=1.5)],
     cf=lambda s, L: {"x": exp(s["x"]), L("1", -1): exp(s["x"])}, cv=lambda s: exp(s["x"]),
     note="31 terms; truncation < 1e-27")

prog("recursion/taylor_sin.scm", F, [dict(x=0.3), dict(x=2.0), dict(x=-1.4)],
     cf=lambda s, L: {"x": cos(s["x"])}, cv=lambda s: sin(s["x"]), note="25 terms; truncation < 1e-50")

prog("recursion/taylor_cos.scm", F, [dict(x=0.7), dict(x=-2.0), dict(x=1.2)],
     cf=lambda s, L: {"x": -sin(s["x"]), L("1", -1): cos(s["x"])}, cv=lambda s: cos(s["x"]),
     note="13 terms; truncation < 1e-18")

prog("recursion/newton_sqrt.scm", F, [dict(a=2.0), dict(a=10.0), dict(a=0.3), dict(a=150.0)],
     cf=lambda s, L: {"a": 1 / (2 * sqrt(s["a"])), L("0.5"): 2 * sqrt(s["a"])}, cv=lambda s: sqrt(s["a"]),
     note="converged Newton: d/da = 1/(2 sqrt a); d/d(0.5) = 2 sqrt a")

prog("recursion/newton_cbrt.scm", F, [dict(a=2.0), dict(a=27.5), dict(a=0.2)],
     cf=lambda s, L: {"a": s["a"] ** (mpf(-2) / 3) / 3, L("2"): s["a"] ** (mpf(1) / 3) / 3,
                      L("3"): -s["a"] ** (mpf(1) / 3) / 3},
     cv=lambda s: s["a"] ** (mpf(1) / 3), note="fixed point (a/(3-c2))^(1/3) = (a/(c3-2))^(1/3)")


def _root(c):
    return _findroot(lambda x: x ** 3 + c * x - 1, mpf(1) / (1 + c))
prog("recursion/newton_tolerance.scm", F, [dict(c=1.0), dict(c=0.25), dict(c=4.0)],
     cf=lambda s, L: {"c": -_root(s["c"]) / (3 * _root(s["c"]) ** 2 + s["c"])}, cv=lambda s: _root(s["c"]),
     note="implicit function: dx/dc = -x / (3x^2 + c)")

prog("recursion/continued_fraction_sqrt.scm", F, [dict(x=0.5), dict(x=3.0), dict(x=-0.5)],
     cf=lambda s, L: {"x": 1 / (2 * sqrt(1 + s["x"]))}, cv=lambda s: sqrt(1 + s["x"]),
     note="contraction < 0.34 per level, 40 levels")

prog("recursion/cf_tan.scm", F, [dict(x=0.4), dict(x=1.0), dict(x=-1.3)],
     cf=lambda s, L: {"x": 1 + tan(s["x"]) ** 2}, cv=lambda s: tan(s["x"]), note="20 levels of Lambert's fraction")


def _eo(s, L):
    x, a = s["x"], s["alpha"]
    return {"x": 5 * x ** 4 + a * (4 * x ** 3 + 3 * x ** 2 + 2 * x + 1), "alpha": sum(x ** k for k in range(5)),
            L("1", -1): x ** 5}
prog("recursion/mutual_even_odd.scm", F, [dict(x=1.1, alpha=0.5), dict(x=-0.8, alpha=2.0), dict(x=0.5, alpha=-0.3)],
     cf=_eo, cv=lambda s: s["x"] ** 5 + s["alpha"] * sum(s["x"] ** k for k in range(5)), note="v5 = x^5 + alpha sum x^k")


def _mn(s, L):
    x, a, m = s["x"], s["alpha"], 4
    q = a / 2
    return {"x": sum(q ** j for j in range(m)),
            "alpha": m * q ** (m - 1) / 2 + x * sum(j * q ** (j - 1) / 2 for j in range(1, m))}
prog("recursion/mutual_nontail.scm", F, [dict(x=1.5, alpha=0.8), dict(x=-0.4, alpha=1.7), dict(x=2.0, alpha=-0.6)],
     cf=_mn, cv=lambda s: (s["alpha"] / 2) ** 4 + s["x"] * sum((s["alpha"] / 2) ** j for j in range(4)),
     note="f(2m) = (alpha/2)^m + x sum_{j<m} (alpha/2)^j")


def _poch(s, L):
    x = s["x"]
    P = 1
    for k in range(6):
        P *= x + k
    return {"x": P * sum(1 / (x + k) for k in range(6))}
prog("recursion/pochhammer.scm", F, [dict(x=0.5), dict(x=2.25), dict(x=-0.5)],
     cf=_poch, cv=lambda s: s["x"] * (s["x"] + 1) * (s["x"] + 2) * (s["x"] + 3) * (s["x"] + 4) * (s["x"] + 5),
     note="(x)_6; d/dx = (x)_6 sum 1/(x+k)")

prog("recursion/fast_power.scm", F, [dict(x=1.1, alpha=0.5), dict(x=0.9, alpha=3.0), dict(x=-1.05, alpha=1.0)],
     cf=lambda s, L: {"x": 13 * s["alpha"] * s["x"] ** 12, "alpha": s["x"] ** 13},
     cv=lambda s: s["alpha"] * s["x"] ** 13, note="alpha x^13")


def _fibp(x):
    r = sqrt(x * x + 4)
    return (((x + r) / 2) ** 12 - ((x - r) / 2) ** 12) / r
prog("recursion/fib_poly.scm", F, [dict(x=0.5), dict(x=1.0), dict(x=-0.3)],
     cf=lambda s, L: {"x": _mpdiff(_fibp, s["x"])}, cv=lambda s: _fibp(s["x"]),
     note="Binet form; F_12(1) = 144")

prog("recursion/harmonic_tail.scm", F, [dict(x=0.5), dict(x=-0.5), dict(x=3.0)],
     cf=lambda s, L: {"x": sum(-2 / (k + s["x"]) ** 3 for k in range(1, 51))},
     cv=lambda s: sum(1 / (k + s["x"]) ** 2 for k in range(1, 51)), note="finite sum")


def _binom_pmf(s, L):
    p = s["p"]
    C = _binom(8, 3)
    return {"p": C * (3 * p ** 2 * (1 - p) ** 5 - 5 * p ** 3 * (1 - p) ** 4)}
prog("recursion/binomial_pmf.scm", F, [dict(p=0.3), dict(p=0.5), dict(p=0.81)],
     cf=_binom_pmf, cv=lambda s: 56 * s["p"] ** 3 * (1 - s["p"]) ** 5, note="C(8,3) = 56")

prog("recursion/log_series.scm", F, [dict(x=0.3), dict(x=-0.2), dict(x=0.45)],
     cf=lambda s, L: {"x": 1 / (1 + s["x"])}, cv=lambda s: log(1 + s["x"]), note="60 terms; truncation < 1e-20")
