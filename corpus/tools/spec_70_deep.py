# deep-recursion: non-tail and tail recursion through define, depth N in {1000, 2000, 5000, 10000}.
# N is a bound input (the recursion depth), not differentiated.
F = "deep-recursion"
DEPTHS = [1000, 2000, 5000, 10000]

prog("deep-recursion/telescoping_nontail.scm", F, [dict(x=x, N=n) for x, n in zip([0.5, 1.5, -2.0, 3.0], DEPTHS)],
     wrt=["x"], cf=lambda s, L: {"x": 2 * s["x"] * s["N"] / (s["N"] + 1)}, cv=lambda s: s["x"] ** 2 * s["N"] / (s["N"] + 1),
     note="x^2 N / (N + 1)")


def _prod(s):
    x, N = s["x"], int(s["N"])
    P, S = mpf(1), mpf(0)
    for k in range(1, N + 1):
        P *= 1 + x / (k * k)
        S += 1 / (k * k + x)
    return P, S
prog("deep-recursion/product_tail.scm", F, [dict(x=x, N=n) for x, n in zip([0.5, 2.0, -0.5, 1.0], DEPTHS)],
     wrt=["x"], cf=lambda s, L: {"x": _prod(s)[0] * _prod(s)[1]}, cv=lambda s: _prod(s)[0],
     note="prod (1 + x/k^2); d/dx = P sum 1/(k^2 + x)")


def _lin(s, L):
    a, y0, N = s["a"], s["y0"], s["N"]
    aN = a ** N
    return {"y0": aN, "a": N * a ** (N - 1) * y0 + (-N * a ** (N - 1) * (1 - a) + (1 - aN)) / (1 - a) ** 2,
            L("1", -1): (1 - aN) / (1 - a)}
prog("deep-recursion/linear_recurrence_nontail.scm", F,
     [dict(a=a, y0=y, N=n) for a, y, n in zip([0.99, 0.995, 0.999, 0.9], [1.0, -3.0, 2.0, 10.0], DEPTHS)],
     wrt=["a", "y0"], cf=_lin, cv=lambda s: s["a"] ** s["N"] * s["y0"] + (1 - s["a"] ** s["N"]) / (1 - s["a"]),
     note="a^N y0 + (1 - a^N)/(1 - a)")

prog("deep-recursion/euler_tail.scm", F, [dict(k=k, y0=y, N=n) for k, y, n in zip([1.0, 2.5, 0.3, 4.0], [1.0, 2.0, -1.0, 0.5], DEPTHS)],
     wrt=["k", "y0"],
     cf=lambda s, L: {"y0": (1 - s["k"] / s["N"]) ** s["N"], "k": -s["y0"] * (1 - s["k"] / s["N"]) ** (s["N"] - 1)},
     cv=lambda s: s["y0"] * (1 - s["k"] / s["N"]) ** s["N"], note="y0 (1 - k/N)^N")


def _mut(s, L):
    x, r, M = s["x"], s["r"], int(s["N"]) // 2
    return {"x": sum(r ** j for j in range(1, M + 1)), "r": x * sum(j * r ** (j - 1) for j in range(1, M + 1))}
prog("deep-recursion/mutual_tail.scm", F, [dict(x=x, r=r, N=n) for x, r, n in zip([0.5, 2.0, -1.0, 0.1], [0.99, 0.995, 0.9, 0.999], DEPTHS)],
     wrt=["x", "r"], cf=_mut, cv=lambda s: s["x"] * sum(s["r"] ** j for j in range(1, int(s["N"]) // 2 + 1)),
     note="x sum_{j=1}^{N/2} r^j")

prog("deep-recursion/list_build_nontail.scm", F, [dict(x=x, N=n) for x, n in zip([0.5, -1.5, 0.01, 2.0], DEPTHS)],
     wrt=["x"], cf=lambda s, L: {"x": (s["N"] + 1) / 2}, cv=lambda s: s["x"] * (s["N"] + 1) / 2, note="x (N + 1) / 2")

prog("deep-recursion/continued_fraction_deep.scm", F, [dict(x=x, N=n) for x, n in zip([0.5, 3.0, -0.5, 8.0], DEPTHS)],
     wrt=["x"], cf=lambda s, L: {"x": 1 / (2 * sqrt(1 + s["x"]))}, cv=lambda s: sqrt(1 + s["x"]), note="sqrt(1 + x)")
