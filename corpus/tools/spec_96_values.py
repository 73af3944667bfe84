# multiple values: values, call-with-values (through let-values), define-values, let*-values, receive and
# case-lambda, with gradients through every value.
F = "multiple-values"


def _polar(s, L):
    r, t = s["r"], s["theta"]
    return {"r": 2 * cos(t) + 3 * sin(t), "theta": r * (-2 * sin(t) + 3 * cos(t)), L("2"): r * cos(t), L("3"): r * sin(t)}
prog("values/polar_let_values.scm", F, [dict(r=1.5, theta=0.3), dict(r=0.4, theta=-2.0)], cf=_polar,
     cv=lambda s: s["r"] * (2 * cos(s["theta"]) + 3 * sin(s["theta"])), note="let-values")


def _roots(s, L):
    a, b, c = s["a"], s["b"], s["c"]
    return {"a": -c / a ** 2 + mpf(1.5) * b / a ** 2, "b": -mpf(1.5) / a, "c": 1 / a}
prog("values/roots_define_values.scm", F, [dict(a=1.0, b=-3.0, c=2.0), dict(a=2.0, b=1.0, c=-3.0)], literals=False,
     cf=_roots, cv=lambda s: s["c"] / s["a"] - mpf(1.5) * s["b"] / s["a"], note="define-values, let*-values, receive")

prog("values/case_lambda_weigh.scm", F, [dict(a=1.5, b=0.5, c=-2.0), dict(a=-0.7, b=2.0, c=0.25)],
     cf=lambda s, L: {"a": 2 * s["a"] + 2 * s["b"] + 1 + s["c"], "b": 2 * s["a"], "c": s["a"]},
     cv=lambda s: s["a"] ** 2 + 2 * s["a"] * s["b"] + s["a"] + s["a"] * s["c"], note="case-lambda")
