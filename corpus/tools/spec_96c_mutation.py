# mutation: set! on variables (assignment conversion to boxes), gradients through every assigned version.
F = "mutation"

prog("mutation/sum_sq_for_each.scm", F, [dict(a=1.5, b=-2.0, c=0.25), dict(a=0.3, b=0.7, c=-1.1)],
     cf=lambda s, L: {"a": s["a"], "b": s["b"], "c": s["c"], L("0"): mpf("0.5"),
                      L("0.5"): s["a"] ** 2 + s["b"] ** 2 + s["c"] ** 2},
     cv=lambda s: (s["a"] ** 2 + s["b"] ** 2 + s["c"] ** 2) / 2, note="set! of a let variable inside for-each")


# total: 1 -> r + a -> (r + a) r + b -> ((r + a) r + b) r + a b
def _acc(s, L):
    r, a, b = s["r"], s["a"], s["b"]
    return {"r": 3 * r ** 2 + 2 * a * r + b, "a": r ** 2 + b, "b": r + a, L("1.0"): r ** 3}
prog("mutation/accumulator_object.scm", F, [dict(r=0.5, a=1.25, b=-0.75), dict(r=-1.2, a=0.4, b=2.0)], cf=_acc,
     cv=lambda s: s["r"] ** 3 + s["a"] * s["r"] ** 2 + s["b"] * s["r"] + s["a"] * s["b"],
     note="set! of a captured lambda parameter, state across calls")

# 30 Newton steps from 1.0 converge far below double precision: the value is k sqrt(p).
prog("mutation/newton_do_set.scm", F, [dict(p=2.0, k=1.5), dict(p=7.5, k=-0.5)], literals=False,
     cf=lambda s, L: {"p": s["k"] / (2 * sqrt(s["p"])), "k": sqrt(s["p"])},
     cv=lambda s: s["k"] * sqrt(s["p"]), note="set! in a do loop")


# x = a c^n with c the literal 2 and n the number of doublings until x >= 10; the value is n x, with n = n0 + n*1.
def _grow_n(a):
    n, x = 0, a
    while x < 10:
        x, n = x * 2, n + 1
    return n
def _grow(s, L):
    a = s["a"]
    n = _grow_n(a)
    x = a * 2 ** n
    return {"a": n * 2 ** n, L("2"): n * n * a * 2 ** (n - 1), L("0"): x, L("1"): n * x, L("10"): mpf(0)}
prog("mutation/grow_until.scm", F, [dict(a=1.3), dict(a=0.7), dict(a=12.0)], cf=_grow,
     lanes={"a": [1.3, 0.7, 12.0, 3.1]}, cv=lambda s: _grow_n(s["a"]) * s["a"] * 2 ** _grow_n(s["a"]), note="set! of a parameter, trip count by value")
