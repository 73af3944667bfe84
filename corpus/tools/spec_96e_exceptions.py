# exceptions: guard catching an error object and returning a fallback from its irritant, and raise-continuable
# resumed by a handler's value; gradients through the raised object and the handler's value.
F = "exceptions"


# a > 0 > b: sqrt(a) + (-1.0) b + 2 a^2.
prog("exceptions/guarded_sqrt.scm", F, [dict(a=2.25, b=-0.5), dict(a=0.49, b=-3.0)],
     cf=lambda s, L: {"a": 1 / (2 * sqrt(s["a"])) + 4 * s["a"], "b": mpf(-1), L("-1.0"): s["b"], L("2"): s["a"] ** 2,
                      L("0"): mpf(0)},
     cv=lambda s: sqrt(s["a"]) - s["b"] + 2 * s["a"] ** 2, routes=["direct", "dmci", "dmci2"],
     note="guard on an error object, raise-continuable")
