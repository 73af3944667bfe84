# lists: Horner over coefficient lists, dot products, building/consuming lists, assoc, append/reverse.
F = "lists"

prog("lists/horner_list.scm", F, [dict(a0=1.0, x=1.5), dict(a0=-2.0, x=-0.7), dict(a0=0.3, x=3.0)],
     cf=lambda s, L: {"a0": mpf(1), "x": mpf(-1.5) + 4 * s["x"] + mpf(0.75) * s["x"] ** 2, L("-1.5"): s["x"],
                      L("2"): s["x"] ** 2, L("0.25"): s["x"] ** 3, L("0"): s["x"] ** 4},
     cv=lambda s: s["a0"] - mpf(1.5) * s["x"] + 2 * s["x"] ** 2 + mpf(0.25) * s["x"] ** 3, note="a0 - 1.5x + 2x^2 + 0.25x^3")

prog("lists/horner_tail.scm", F, [dict(x=1.5), dict(x=-0.8), dict(x=0.3)],
     cf=lambda s, L: {"x": 2 * s["x"] ** 3 - 3 * s["x"] ** 2 + 3, L("0.5"): s["x"] ** 4, L("-1"): s["x"] ** 3,
                      L("0"): s["x"] ** 2, L("3"): s["x"], L("2"): mpf(1), L("0", -1): s["x"] ** 5},
     cv=lambda s: mpf(0.5) * s["x"] ** 4 - s["x"] ** 3 + 3 * s["x"] + 2, note="0.5x^4 - x^3 + 3x + 2")


def _dot(s, L):
    x, y = s["x"], s["y"]
    n = sqrt(x * x + y * y + mpf(2.25))
    return {"x": 2 + x / n, "y": mpf(0.5) + y / n, L("1.5"): y + mpf(1.5) / n, L("2"): x, L("-1"): y}
prog("lists/dot_list.scm", F, [dict(x=1.5, y=-2.0), dict(x=0.0, y=0.5), dict(x=-3.0, y=4.0)],
     cf=_dot, cv=lambda s: 2 * s["x"] + mpf(0.5) * s["y"] + sqrt(s["x"] ** 2 + s["y"] ** 2 + mpf(2.25)), note="u.v + |u|")

prog("lists/build_powers.scm", F, [dict(x=0.5), dict(x=-1.1), dict(x=1.3)],
     cf=lambda s, L: {"x": sum(k * (k + 1) * s["x"] ** (k - 1) for k in range(1, 7)), L("1"): sum((k + 1) * s["x"] ** k for k in range(7))},
     cv=lambda s: sum((k + 1) * s["x"] ** k for k in range(7)), note="sum (k+1) x^k, k = 0..6")


def _assoc(s, L):
    m, v, h, g = s["m"], s["v"], s["h"], mpf("9.81")
    return {"m": v * v / 2 + g * h, "v": m * v, "h": m * g, L("9.81"): m * h, L("0.5"): m * v * v,
            L("1.62"): mpf(0), L("3.72"): mpf(0)}
prog("lists/assoc_lookup.scm", F, [dict(m=2.0, v=3.0, h=10.0), dict(m=0.5, v=-12.0, h=1.5), dict(m=70.0, v=1.2, h=0.3)],
     cf=_assoc, cv=lambda s: s["m"] * s["v"] ** 2 / 2 + s["m"] * mpf("9.81") * s["h"], note="E = m v^2/2 + m g h")

prog("lists/append_reverse.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-2.0, alpha=4.0)],
     cf=lambda s, L: {"x": mpf(10), "alpha": mpf(2), L("1", 1): mpf(1), L("2"): 3 * s["x"]},
     cv=lambda s: 1 + 2 * s["alpha"] + 10 * s["x"], note="1 + 2 alpha + 10 x")

prog("lists/moving_average.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-0.7, alpha=2.0), dict(x=2.5, alpha=-1.0)],
     cf=lambda s, L: {"x": 2 * s["x"], "alpha": mpf(1), L("1.5"): mpf(2) / 3, L("2"): mpf(2) / 3,
                      L("3"): -(s["x"] ** 2 + s["alpha"] + mpf(7) / 3) / 3},
     cv=lambda s: s["x"] ** 2 + s["alpha"] + mpf(7) / 3, note="x^2 + alpha + 7/3")


def _mv(s, L):
    d = [s["x"], mpf(2), s["y"], mpf(3.5), mpf(1)]
    n = 5
    mu = sum(d) / n
    return {"x": mpf(1) / n + 2 * (d[0] - mu) / n, "y": mpf(1) / n + 2 * (d[2] - mu) / n,
            L("3.5"): mpf(1) / n + 2 * (d[3] - mu) / n}
prog("lists/mean_variance.scm", F, [dict(x=1.5, y=-0.5), dict(x=4.0, y=2.5), dict(x=0.0, y=10.0)],
     cf=_mv, cv=lambda s: (lambda d: sum(d) / 5 + sum((v - sum(d) / 5) ** 2 for v in d) / 5)([s["x"], 2, s["y"], mpf(3.5), 1]),
     note="d var / d v_i = 2 (v_i - mean) / n")

prog("lists/poly_derivative.scm", F, [dict(a=0.5, x=1.5), dict(a=-2.0, x=-1.0), dict(a=1.0, x=4.0)],
     cf=lambda s, L: {"x": 1 - 12 * s["x"] + 3 * s["x"] ** 2, "a": mpf(1), L("0.5"): 2 * s["x"], L("-2"): 3 * s["x"] ** 2,
                      L("0.25"): 4 * s["x"] ** 3},
     cv=lambda s: s["a"] + s["x"] - 6 * s["x"] ** 2 + s["x"] ** 3, note="p'(x) = a + x - 6x^2 + x^3")


def _sort(s, L):
    x, y = s["x"], s["y"]
    items = [("x", x), ("c15", mpf(1.5)), ("y", y), ("cm05", mpf(-0.5)), ("xy", x * y)]
    ranked = sorted(items, key=lambda kv: kv[1])
    w = {k: i + 1 for i, (k, _) in enumerate(ranked)}
    return {"x": w["x"] + w["xy"] * y, "y": w["y"] + w["xy"] * x, L("1.5"): mpf(w["c15"]), L("-0.5"): mpf(w["cm05"])}
prog("lists/insertion_sort.scm", F, [dict(x=0.8, y=2.0), dict(x=-1.2, y=0.3), dict(x=2.5, y=-0.9)],
     cf=_sort, cv=lambda s: sum((i + 1) * v for i, v in enumerate(sorted([s["x"], mpf(1.5), s["y"], mpf(-0.5), s["x"] * s["y"]]))),
     note="rank weights; seeds without ties")

prog("lists/member_tail.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-4.0, alpha=1.0)],
     cf=lambda s, L: {"x": mpf(0.5), "alpha": mpf(0.5), L("0.5", 2): 2 * s["x"] + s["alpha"], L("3"): mpf(1),
                      L("0.5", 1): mpf(0), L("0"): mpf(0.125)},
     cv=lambda s: s["x"] / 2 + s["alpha"] / 2 + 3, note="0.5x + 0.5alpha + 3")

prog("lists/assoc_strings.scm", F, [dict(r=0.3, t=2.0), dict(r=1.5, t=0.1), dict(r=-0.2, t=4.0)],
     cf=lambda s, L: {"r": -mpf(2.5) * s["t"] * exp(-s["r"] * s["t"]), "t": -mpf(2.5) * s["r"] * exp(-s["r"] * s["t"]),
                      L("2.5"): exp(-s["r"] * s["t"])},
     cv=lambda s: mpf(2.5) * exp(-s["r"] * s["t"]), note="2.5 e^(-r t)")


def _tiers(s):
    """(rate factor, [(coefficient of x, constant) summed from the first reading above 1]) at the seed."""
    t, x = s["t"], s["x"]
    rate = mpf(0.5) if t <= 10 else mpf(1) if t <= 20 else mpf(2)
    readings = [(mpf(0), mpf("0.2")), (mpf(1), mpf(0)), (mpf(3), mpf(0)), (mpf(0), mpf(5))]
    first = next(i for i, (a, b) in enumerate(readings) if a * x + b > 1)
    return rate, readings[first:]
def _assoc_compare(s, L):
    k, x = s["k"], s["x"]
    rate, rest = _tiers(s)
    total = sum(a * x + b for a, b in rest)
    coeff = sum(a for a, _ in rest)
    return {"k": rate * total, "x": rate * k * coeff, "t": mpf(0),
            L("0.5"): k * total if rate == mpf(0.5) else mpf(0), L("2"): k * total if rate == 2 else mpf(0),
            L("3"): rate * k * x if any(a == 3 for a, _ in rest) else mpf(0), L("5"): rate * k}
prog("lists/assoc_compare.scm", F, [dict(t=15.0, k=0.3, x=0.5), dict(t=5.0, k=1.2, x=2.0), dict(t=30.0, k=-0.4, x=0.1)],
     cf=_assoc_compare, cv=lambda s: (lambda r: r[0] * s["k"] * sum(a * s["x"] + b for a, b in r[1]))(_tiers(s)),
     note="rate(t) k (sum of the readings after the first above 1); the comparisons only choose")
