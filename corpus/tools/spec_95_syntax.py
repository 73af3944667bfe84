# syntax: every special form, with gradients.
F = "syntax"


def _ls(s, L):
    x, a = s["x"], s["alpha"]
    return {"x": 8 * x + 2 * a - mpf(0.5), "alpha": 2 * x - mpf(0.25), L("2"): x * (4 * x + a) - x / 4, L("4"): (2 * x + a) / 16}
prog("syntax/let_star.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-0.5, alpha=2.0)], cf=_ls,
     cv=lambda s: 2 * s["x"] * (2 * s["x"] + s["alpha"]) - (2 * s["x"] + s["alpha"]) / 4, note="let*")

prog("syntax/letrec.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-0.8, alpha=1.0)],
     cf=lambda s, L: {"x": 3 * s["x"] ** 2 + 2 * s["alpha"] * s["x"] + s["alpha"], "alpha": s["x"] ** 2 + s["x"] + 1,
                      L("1", -1): s["x"] ** 3},
     cv=lambda s: s["x"] ** 3 + s["alpha"] * (s["x"] ** 2 + s["x"] + 1), note="letrec, mutual recursion")

prog("syntax/letrec_star.scm", F, [dict(x=1.5), dict(x=-0.7)],
     cf=lambda s, L: {"x": -20 / s["x"] ** 3, L("1"): 10 / s["x"] ** 2}, cv=lambda s: 10 + 10 / s["x"] ** 2, note="letrec*")

prog("syntax/named_let.scm", F, [dict(x=0.5, alpha=2.0), dict(x=-1.2, alpha=0.3)],
     cf=lambda s, L: {"x": s["alpha"] * sum(k * s["x"] ** (k - 1) for k in range(1, 8)), "alpha": sum(s["x"] ** k for k in range(8)),
                      L("1"): s["alpha"] * sum(s["x"] ** k for k in range(8))},
     cv=lambda s: s["alpha"] * sum(s["x"] ** k for k in range(8)), note="named let")

prog("syntax/cond_arrow.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-2.0, alpha=5.0)],
     cf=lambda s, L: {"x": mpf(1.5), "alpha": mpf(1), L("1.5"): s["x"], L("4"): mpf(0), L("0"): mpf(1)},
     cv=lambda s: mpf(1.5) * s["x"] + s["alpha"], note="cond with =>")

prog("syntax/case.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-1.0, alpha=2.0)],
     cf=lambda s, L: {"alpha": mpf(3.5), "x": mpf(2), L("3"): s["alpha"], L("2"): -s["alpha"] / 4,
                      L("1", -1): mpf(1)},
     cv=lambda s: mpf(3.5) * s["alpha"] + 2 * s["x"] + 1, note="case with data lists, else and =>")

prog("syntax/when_unless.scm", F, [dict(x=1.5, alpha=0.3), dict(x=0.2, alpha=4.0)],
     cf=lambda s, L: {"x": mpf(2), "alpha": mpf(3)}, cv=lambda s: 2 * s["x"] + 3 * s["alpha"], note="when/unless")

prog("syntax/do_loop.scm", F, [dict(x=0.5, alpha=2.0), dict(x=-1.1, alpha=0.3)],
     cf=lambda s, L: {"x": s["alpha"] * sum(i * s["x"] ** (i - 1) for i in range(1, 10)), "alpha": sum(s["x"] ** i for i in range(10))},
     cv=lambda s: s["alpha"] * sum(s["x"] ** i for i in range(10)), note="do with a stepless variable")


def _lr(s, L):
    v0, r = s["v0"], s["r"]
    fac = [1 + r * mpf(0.5) ** k for k in range(5)]
    P = mpf(1)
    for f in fac:
        P *= f
    return {"v0": P, "r": v0 * P * sum(mpf(0.5) ** k / fac[k] for k in range(5)),
            L("0.5"): v0 * P * sum(r * k * mpf(0.5) ** (k - 1) / fac[k] for k in range(5)),
            L("1", 2): v0 * P * sum(1 / f for f in fac)}
prog("syntax/loop_recur.scm", F, [dict(v0=100.0, r=0.1), dict(v0=2.0, r=-0.4)], cf=_lr, note="loop/recur")

prog("syntax/quasiquote.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-2.0, alpha=1.0)],
     cf=lambda s, L: {"x": s["alpha"] + 3, "alpha": 1 + s["x"], L("1"): mpf(1), L("0.5"): mpf(1), L("3"): mpf(1), L("2"): s["x"]},
     cv=lambda s: mpf(4.5) + s["alpha"] + s["x"] * s["alpha"] + 3 * s["x"], note="quasiquote, unquote, unquote-splicing")

prog("syntax/internal_defines.scm", F, [dict(x=0.7), dict(x=2.0)],
     cf=lambda s, L: {"x": sum(mpf(0.5) ** k * k * cos(k * s["x"]) for k in range(1, 7)),
                      L("0.5"): sum(k * mpf(0.5) ** (k - 1) * sin(k * s["x"]) for k in range(1, 7))},
     cv=lambda s: sum(mpf(0.5) ** k * sin(k * s["x"]) for k in range(1, 7)), note="internal defines")

prog("syntax/variadic.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-1.0, alpha=2.0)],
     cf=lambda s, L: {"x": 2 + 2 * s["alpha"], "alpha": 2 + 2 * s["x"], L("2"): mpf(1), L("1"): s["alpha"], L("0"): mpf(2)},
     cv=lambda s: 2 * s["x"] + 2 * s["alpha"] + 4 + 2 * s["alpha"] * s["x"], note="variadic lambdas")

prog("syntax/and_or.scm", F, [dict(x=1.5, alpha=0.3), dict(x=0.25, alpha=-2.0)],
     cf=lambda s, L: {"x": 2 + s["alpha"], "alpha": 2 + s["x"]},
     cv=lambda s: 2 * s["x"] + 2 * s["alpha"] + s["x"] * s["alpha"], note="and/or values; 0 and '() are true")

prog("syntax/begin.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-0.4, alpha=1.0)],
     cf=lambda s, L: {"x": 18 * s["x"] + 3 * s["alpha"], "alpha": 3 * s["x"], L("1"): mpf(0), L("2"): mpf(0),
                      L("3"): s["x"] * (6 * s["x"] + s["alpha"])},
     cv=lambda s: 3 * s["x"] * (3 * s["x"] + s["alpha"]), note="begin")

prog("syntax/shadow_primitive.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-0.5, alpha=2.0)],
     cf=lambda s, L: {"x": 2 * s["alpha"] - 3 * s["x"] ** 2 - 1, "alpha": 2 * s["x"], L("2"): s["x"] * s["alpha"], L("1"): mpf(-1)},
     cv=lambda s: 2 * s["x"] * s["alpha"] - s["x"] ** 3 - s["x"] - 1, note="(let ((+ *)) ...)")

prog("syntax/reader_forms.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-4.0, alpha=2.0)],
     cf=lambda s, L: {"x": mpf(0.5) + mpf(0.001) * s["alpha"], "alpha": mpf(-2.5) + mpf(0.001) * s["x"], L(".5"): s["x"],
                      L("-2.5"): s["alpha"], L("1e-3"): s["x"] * s["alpha"], L("2.5e1"): mpf(1), L("100"): mpf(0)},
     cv=lambda s: mpf(0.5) * s["x"] - mpf(2.5) * s["alpha"] + mpf(0.001) * s["x"] * s["alpha"] + 25, note="reader forms")

prog("syntax/quoted_data.scm", F, [dict(x=1.5), dict(x=-2.0)],
     cf=lambda s, L: {"x": mpf(0.25) + mpf(1.5) * s["x"], L("0.25"): s["x"], L("0.75"): s["x"] ** 2, L("4.5"): mpf(1),
                      L("0.5"): mpf(0), L("6"): mpf(0)},
     cv=lambda s: mpf(0.25) * s["x"] + mpf(0.75) * s["x"] ** 2 + mpf(4.5), note="literals in quoted data")

prog("syntax/lexical_scope.scm", F, [dict(x=1.5, alpha=0.3), dict(x=-3.0, alpha=2.0)],
     cf=lambda s, L: {"x": mpf(2), "alpha": mpf(0.5), L("0.5"): 1 + s["alpha"] + mpf(100) * mpf(0.001),
                      L("100"): mpf(0.5) * mpf(0.001), L("0.001"): mpf(50), L("10"): mpf(0), L("1"): mpf(0.5)},
     cv=lambda s: mpf(0.5) + mpf(0.5) * s["alpha"] + 2 * s["x"] + mpf(0.5) * 100 * mpf(0.001), note="lexical scope")
