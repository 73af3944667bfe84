# vector-mutation: vector-set! and vector-fill! writing the next version of a vector's cells, gradients through every
# version: an accumulator vector in a loop, an in-place sort, a fill and a write on a branch's path (run as lanes
# too, split by the branch after the vector is made), and a state vector updated in place.
F = "vector-mutation"


# slots k mod 3 of k = 0..6 accumulate a k + b: v0 = 9a + 3b, v1 = 5a + 2b, v2 = 7a + 2b; value v0 v1 + 3 v2.
def _slots(s):
    a, b = s["a"], s["b"]
    return 9 * a + 3 * b, 5 * a + 2 * b, 7 * a + 2 * b
def _slots_cf(s, L):
    v0, v1, v2 = _slots(s)
    return {"a": 9 * v1 + 5 * v0 + 21, "b": 3 * v1 + 2 * v0 + 6, L("3", 3): v2, L("0.0"): v0 + v1 + 3}
prog("vector-mutation/accumulate_slots.scm", F, [dict(a=1.5, b=-0.5), dict(a=-0.3, b=2.0)], cf=_slots_cf,
     cv=lambda s: _slots(s)[0] * _slots(s)[1] + 3 * _slots(s)[2], note="accumulator vector, vector-set! in a do loop")


# the weight of each parameter's sorted position (1 to 4), ties none.
def _ranks(s):
    order = sorted(["a", "b", "c", "d"], key=lambda n: s[n])
    return {n: mpf(order.index(n) + 1) for n in order}
prog("vector-mutation/bubble_sort.scm", F, [dict(a=3.0, b=-1.0, c=2.0, d=0.5), dict(a=0.1, b=0.2, c=0.3, d=0.4)],
     literals=False, cf=lambda s, L: _ranks(s), cv=lambda s: sum(_ranks(s)[n] * s[n] for n in "abcd"),
     note="in-place bubble sort by swaps")


# a > 1: v = (a, a^2, a), s = 2a + a^2; else v = (a, a, 3a), s = 5a (3.0 the literal); the value is s^2.
def _fill(s, L):
    a = s["a"]
    if a > 1:
        return {"a": 2 * (2 * a + a * a) * (2 + 2 * a), L("3.0"): mpf(0), L("0.0"): mpf(0)}
    return {"a": 50 * a, L("3.0"): 2 * 5 * a * a, L("0.0"): mpf(0)}
prog("vector-mutation/fill_then_branch.scm", F, [dict(a=1.5), dict(a=0.4)], cf=_fill,
     cv=lambda s: (2 * s["a"] + s["a"] ** 2) ** 2 if s["a"] > 1 else 25 * s["a"] ** 2,
     routes=["direct", "dmci", "dmci2"], lanes={"a": [1.5, 0.4, 2.0, 0.9]}, note="vector-fill!, then a write per path")


# five steps of (x, y) <- (x + h y, y - h k (x + h y)) from (x0, 0): the state is x0 (p, q), with (p, q) the
# matrix power on (1, 0); the energy E = (k x^2 + y^2) / 2 is quadratic in x0.
def _spring(s):
    h, k = s["h"], s["k"]
    M = matrix([[1, h], [-h * k, 1 - h * h * k]])
    pq = (M ** 5) * matrix([[1], [0]])
    return pq[0], pq[1]
def _spring_cf(s, L):
    p, q = _spring(s)
    x0, k = s["x0"], s["k"]
    return {"x0": x0 * (k * p * p + q * q), L("0.5"): k * (x0 * p) ** 2, L("0.5", 2): (x0 * q) ** 2}
prog("vector-mutation/state_update.scm", F, [dict(x0=1.0, h=0.1, k=4.0), dict(x0=-0.5, h=0.25, k=1.5)],
     cf=_spring_cf, cv=lambda s: (s["k"] * (s["x0"] * _spring(s)[0]) ** 2 + (s["x0"] * _spring(s)[1]) ** 2) / 2,
     note="a state vector updated in place")
