# higher-order: twice, compose, currying, closures capturing parameters, map/fold/reduce/filter, apply.
F = "higher-order"

prog("higher-order/twice.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-0.8, alpha=1.2), dict(x=2.0, alpha=-0.5)],
     cf=lambda s, L: {"alpha": 3 * s["alpha"] ** 2 * s["x"] ** 4, "x": 4 * s["alpha"] ** 3 * s["x"] ** 3},
     cv=lambda s: s["alpha"] ** 3 * s["x"] ** 4, note="alpha^3 x^4")

prog("higher-order/compose.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-2.0, alpha=1.7), dict(x=0.4, alpha=-3.0)],
     cf=lambda s, L: {"alpha": s["x"] * cos(s["alpha"] * s["x"]), "x": s["alpha"] * cos(s["alpha"] * s["x"])},
     cv=lambda s: sin(s["alpha"] * s["x"]), note="sin(alpha x)")


def _cl(s, L):
    x, a = s["x"], s["alpha"]
    u = a * x + mpf(0.5)
    v = exp(sin(u))
    return {"x": v * cos(u) * a, "alpha": v * cos(u) * x, L("0.5"): v * cos(u)}
prog("higher-order/compose_list.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-1.0, alpha=0.9), dict(x=0.2, alpha=4.0)],
     cf=_cl, cv=lambda s: exp(sin(s["alpha"] * s["x"] + mpf(0.5))), note="exp(sin(alpha x + 0.5))")

prog("higher-order/curry.scm", F, [dict(x=3.0, alpha=4.0), dict(x=-1.5, alpha=0.5), dict(x=0.1, alpha=-2.0)],
     cf=lambda s, L: {"x": s["x"] / sqrt(s["x"] ** 2 + s["alpha"] ** 2), "alpha": s["alpha"] / sqrt(s["x"] ** 2 + s["alpha"] ** 2)},
     cv=lambda s: sqrt(s["x"] ** 2 + s["alpha"] ** 2), note="hypot(x, alpha)")

prog("higher-order/affine_closures.scm", F, [dict(x=1.5, alpha=0.3, beta=-1.0), dict(x=-2.0, alpha=2.5, beta=0.7)],
     cf=lambda s, L: {"x": 2 * s["alpha"], "alpha": 2 * s["x"], "beta": mpf(1), L("1"): mpf(2),
                      L("2"): s["alpha"] * s["x"] + 1},
     cv=lambda s: 2 * (s["alpha"] * s["x"] + 1) + s["beta"], note="2 (alpha x + 1) + beta")

prog("higher-order/map_fold.scm", F, [dict(x=1.5), dict(x=-0.3), dict(x=2.2)],
     cf=lambda s, L: {"x": 20 * s["x"], L("1"): s["x"] ** 2, L("2"): s["x"] ** 2, L("3"): s["x"] ** 2,
                      L("4"): s["x"] ** 2, L("0"): mpf(1)},
     cv=lambda s: 10 * s["x"] ** 2, note="10 x^2; each quoted coefficient has gradient x^2")


def _frp(s, L):
    x, r = s["x"], s["r1"]
    a, b, c = x - mpf(0.5), x - r, x - 2
    return {"x": b * c + a * c + a * b, "r1": -a * c, L("0.5"): -b * c, L("2"): -a * b, L("1"): a * b * c}
prog("higher-order/fold_right_product.scm", F, [dict(x=1.5, r1=1.0), dict(x=-0.4, r1=3.0), dict(x=2.7, r1=-1.2)],
     cf=_frp, cv=lambda s: (s["x"] - mpf(0.5)) * (s["x"] - s["r1"]) * (s["x"] - 2), note="(x - 0.5)(x - r1)(x - 2)")


def _lse(s, L):
    x, a = s["x"], s["alpha"]
    e = [exp(x), exp(a), exp(mpf(0.5)), exp(2 * x)]
    Z = sum(e)
    p = [v / Z for v in e]
    return {"x": p[0] + 2 * p[3], "alpha": p[1], L("0.5"): p[2], L("2"): p[3] * x, L("0"): mpf(0)}
prog("higher-order/reduce_logsumexp.scm", F, [dict(x=0.3, alpha=-1.0), dict(x=-2.0, alpha=1.5), dict(x=1.2, alpha=0.0)],
     cf=_lse, cv=lambda s: log(exp(s["x"]) + exp(s["alpha"]) + exp(mpf(0.5)) + exp(2 * s["x"])), note="softmax gradient")


def _filt(s, L):
    x = s["x"]
    ks = [(mpf(0.5), L("0.5")), (mpf(1), L("1")), (mpf(2), L("2")), (mpf(3), L("3"))]
    out = {"x": sum(2 * k * k * x for k, _ in ks if k * x > 1), L("1", 2): mpf(0), L("0"): mpf(1)}
    for k, key in ks:
        out[key] = 2 * k * x * x if k * x > 1 else mpf(0)
    return out
prog("higher-order/filter_threshold.scm", F, [dict(x=0.8), dict(x=1.5), dict(x=3.0)],
     cf=_filt, cv=lambda s: sum((k * s["x"]) ** 2 for k in [mpf(0.5), 1, 2, 3] if k * s["x"] > 1),
     note="kept terms k x > 1")

prog("higher-order/apply_variadic.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-1.0, alpha=2.0), dict(x=0.25, alpha=-0.75)],
     cf=lambda s, L: {"x": mpf(1) / 3 + 2 * s["alpha"], "alpha": mpf(1) / 3 + 2 * s["x"] + 1, L("3"): mpf(1) / 3,
                      L("1"): s["alpha"]},
     cv=lambda s: (s["x"] + s["alpha"] + 3) / 3 + s["alpha"] * (2 * s["x"] + 1), note="mean + weighted sum")

prog("higher-order/make_poly.scm", F, [dict(x=1.5, alpha=0.3, beta=-2.0), dict(x=-0.6, alpha=1.0, beta=0.5)],
     cf=lambda s, L: {"alpha": mpf(1), "beta": s["x"], "x": s["beta"] + 3 * s["x"], L("1.5"): s["x"] ** 2},
     cv=lambda s: s["alpha"] + s["x"] * (s["beta"] + mpf(1.5) * s["x"]), note="alpha + beta x + 1.5 x^2")

prog("higher-order/church.scm", F, [dict(x=1.5, alpha=0.9), dict(x=-2.0, alpha=1.1), dict(x=0.5, alpha=-0.7)],
     cf=lambda s, L: {"alpha": 7 * s["alpha"] ** 6 * s["x"], "x": s["alpha"] ** 7},
     cv=lambda s: s["alpha"] ** 7 * s["x"], note="alpha^7 x")


def _fact(n):
    r = mpf(1)
    for k in range(2, n + 1):
        r *= k
    return r
prog("higher-order/z_combinator.scm", F, [dict(x=0.5), dict(x=-1.0), dict(x=2.0)],
     cf=lambda s, L: {"x": sum(s["x"] ** j / _fact(j) for j in range(12))},
     cv=lambda s: sum(s["x"] ** k / _fact(k) for k in range(13)), note="degree-12 Taylor polynomial of exp")


def _cd(s, L):
    x, a, h = s["x"], s["alpha"], mpf(0.1)
    v = a * (3 * x * x + h * h)
    return {"alpha": 3 * x * x + h * h, "x": 6 * a * x, L("0.1"): 2 * a * h, L("2"): -v / 2}
prog("higher-order/central_difference.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-0.5, alpha=2.0), dict(x=3.0, alpha=-1.0)],
     cf=_cd, cv=lambda s: s["alpha"] * (3 * s["x"] ** 2 + mpf(0.1) ** 2), note="alpha (3 x^2 + h^2), exact for a cubic")


def _m2(s, L):
    x, a = s["x"], s["alpha"]
    return {"x": 3 + a + 2 * (x - 3) - 2 * (a - x), "alpha": x + 2 + 2 * (a - x) - 2 * (2 - a),
            L("2"): a + 2 * (2 - a), L("3"): x - 2 * (x - 3)}
prog("higher-order/map_two_lists.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-1.0, alpha=2.5)],
     cf=_m2, cv=lambda s: 3 * s["x"] + s["alpha"] * s["x"] + 2 * s["alpha"] + (s["x"] - 3) ** 2 + (s["alpha"] - s["x"]) ** 2 + (2 - s["alpha"]) ** 2,
     note="sum x*y + sum (x - y)^2")


def _it(s, L):
    eta, T, w0 = s["eta"], s["target"], s["w0"]
    q = 1 - 2 * eta
    return {"w0": q ** 10, "target": 1 - q ** 10, "eta": (w0 - T) * 10 * q ** 9 * (-2), L("2"): (w0 - T) * 10 * q ** 9 * (-eta)}
prog("higher-order/iterate.scm", F, [dict(eta=0.1, target=2.0, w0=0.0), dict(eta=0.3, target=-1.0, w0=4.0),
                                     dict(eta=0.35, target=0.5, w0=3.0)],
     cf=_it, cv=lambda s: s["target"] + (s["w0"] - s["target"]) * (1 - 2 * s["eta"]) ** 10, note="w10 = T + (w0 - T)(1 - 2 eta)^10")
