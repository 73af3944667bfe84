# tower: small programs also run by mce.scm interpreting mce.scm (dmci2).
F = "tower"
T = ["direct", "dmci", "dmci2"]

prog("tower/square_scaled.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-2.0, alpha=4.0)], routes=T,
     cf=lambda s, L: {"x": 2 * s["alpha"] * s["x"], "alpha": s["x"] ** 2}, cv=lambda s: s["alpha"] * s["x"] ** 2,
     note="alpha x^2")

prog("tower/affine_square.scm", F, [dict(a=1.0, b=2.0, x=0.5), dict(a=-0.3, b=0.7, x=-1.2)], routes=T,
     cf=lambda s, L: {"a": mpf(1), "b": s["x"] ** 2, "x": 2 * s["b"] * s["x"]}, cv=lambda s: s["a"] + s["b"] * s["x"] ** 2,
     note="a + b x^2")

prog("tower/poly3.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-0.5, alpha=2.0)], routes=T,
     cf=lambda s, L: {"alpha": 1 + s["x"] + s["x"] ** 2 + s["x"] ** 3, "x": s["alpha"] * (1 + 2 * s["x"] + 3 * s["x"] ** 2)},
     cv=lambda s: s["alpha"] * (1 + s["x"] + s["x"] ** 2 + s["x"] ** 3), note="recursive poly, n = 3")

prog("tower/twice.scm", F, [dict(x=1.5, alpha=0.3), dict(x=0.5, alpha=-1.5)], routes=T,
     cf=lambda s, L: {"alpha": 3 * s["alpha"] ** 2 * s["x"] ** 4, "x": 4 * s["alpha"] ** 3 * s["x"] ** 3},
     cv=lambda s: s["alpha"] ** 3 * s["x"] ** 4, note="alpha^3 x^4")

prog("tower/compose.scm", F, [dict(x=0.5, alpha=0.3), dict(x=-1.0, alpha=1.2)], routes=T,
     cf=lambda s, L: {"x": s["alpha"] * exp(s["alpha"] * s["x"] + 1), "alpha": s["x"] * exp(s["alpha"] * s["x"] + 1),
                      L("1"): exp(s["alpha"] * s["x"] + 1)},
     cv=lambda s: exp(s["alpha"] * s["x"] + 1), note="exp(alpha x + 1)")


def _lc(s, L):
    v = 2 * s["x"] + s["alpha"]
    if v > 10:
        return {"x": mpf(0), "alpha": mpf(0)}
    if v > 0:
        return {"x": 4 * v, "alpha": 2 * v, L("2"): 2 * v * s["x"]}
    return {"x": mpf(-2), "alpha": mpf(-1), L("2"): -s["x"]}
prog("tower/let_cond.scm", F, [dict(x=0.5, alpha=0.3), dict(x=-1.0, alpha=0.5), dict(x=4.0, alpha=3.0)], routes=T,
     cf=_lc, note="v = 2x + alpha: v^2 on (0, 10], -v below 0, 0 above 10")

prog("tower/fold_list.scm", F, [dict(x=0.5, alpha=0.3), dict(x=-2.0, alpha=1.0)], routes=T,
     cf=lambda s, L: {"x": 2 * s["x"], "alpha": 2 * s["alpha"], L("0.5"): mpf(1), L("0"): mpf(1)},
     cv=lambda s: s["x"] ** 2 + s["alpha"] ** 2 + mpf(0.25), note="x^2 + alpha^2 + 0.25")

prog("tower/tensor_quad.scm", F, [dict(x=0.5, alpha=0.3), dict(x=-1.0, alpha=2.0)], routes=T,
     cf=lambda s, L: {"x": 4 * s["x"] + s["alpha"], "alpha": s["x"] + 3, L("3"): s["alpha"]},
     cv=lambda s: 2 * s["x"] ** 2 + s["x"] * s["alpha"] + 3 * s["alpha"], note="2x^2 + x alpha + 3 alpha")

prog("tower/named_let.scm", F, [dict(x=0.5, alpha=0.3), dict(x=2.0, alpha=-0.5)], routes=T,
     cf=lambda s, L: {"x": (1 + s["alpha"]) ** 4, "alpha": 4 * s["x"] * (1 + s["alpha"]) ** 3},
     cv=lambda s: s["x"] * (1 + s["alpha"]) ** 4, note="x (1 + alpha)^4")

prog("tower/newton_sqrt.scm", F, [dict(a=2.0), dict(a=0.5), dict(a=30.0)], routes=T,
     cf=lambda s, L: {"a": 1 / (2 * sqrt(s["a"]))}, cv=lambda s: sqrt(s["a"]), note="12 Newton steps, converged")


def _ks(s, L):
    p, r, z, m = s["p"], s["r"], s["z"], s["m"]
    S = p + r
    K = p / S
    y = z - m
    dS = -(-y * y / S ** 2 + 1 / S) / 2
    return {"z": K - y / S, "m": 1 - K + y / S, "p": r / S ** 2 * y + dS, "r": -p / S ** 2 * y + dS,
            L("-0.5"): y * y / S + log(S)}
prog("tower/kalman_scalar.scm", F, [dict(p=1.5, r=0.5, z=1.2, m=0.3), dict(p=0.2, r=2.0, z=-1.0, m=0.5)], routes=T,
     cf=_ks, cv=lambda s: s["m"] + s["p"] / (s["p"] + s["r"]) * (s["z"] - s["m"])
     - ((s["z"] - s["m"]) ** 2 / (s["p"] + s["r"]) + log(s["p"] + s["r"])) / 2, note="scalar Kalman update")

prog("tower/internal_define.scm", F, [dict(m=0.3, v=2.0, h=1.0), dict(m=70.0, v=-3.0, h=0.5)], routes=T,
     cf=lambda s, L: {"m": s["v"] ** 2 / 2 + mpf("9.81") * s["h"], "v": s["m"] * s["v"], "h": s["m"] * mpf("9.81"),
                      L("9.81"): s["m"] * s["h"], L("0.5"): s["m"] * s["v"] ** 2},
     cv=lambda s: s["m"] * s["v"] ** 2 / 2 + s["m"] * mpf("9.81") * s["h"], note="m v^2/2 + m g h")
