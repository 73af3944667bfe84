# lanes: pairs whose "lanes" the gate also runs as one batch and lane by lane; batched must equal alone (bit
# for bit on the native engine, to the value tolerance on the tensor engine). The lanes part at branches and
# recursion depths. The bind seed is checked the usual way (oracle, closed forms).
F = "lanes"

def _div(s, L):
    n, x = s["n"], s["x"]
    return {"x": n * x ** (n - 1) if x < 1 else 2 * n * x ** (n - 1) - 1}
prog("lanes/divergent_depth.scm", F, [dict(n=3.0, x=0.9), dict(n=4.0, x=1.25)], wrt=["x"], literals=False,
     cf=_div, cv=lambda s: s["x"] ** s["n"] if s["x"] < 1 else 2 * s["x"] ** s["n"] - s["x"],
     lanes={"n": [0, 1, 2, 3, 4, 5, 6, 7, 3, 5, 0, 7], "x": [0.5, 0.9, 1.1, 1.5, 0.7, 1.3, 0.99, 1.01, 2.0, 0.25, 1.0, 0.95]},
     note="per lane: depth n, branch x < 1")

prog("lanes/saturated_tanh.scm", F, [dict(a=1.5, x=0.5)],
     cf=lambda s, L: {"a": s["x"] / cosh(s["a"] * s["x"]) ** 2, "x": s["a"] / cosh(s["a"] * s["x"]) ** 2},
     cv=lambda s: tanh(s["a"] * s["x"]),
     lanes={"x": [-12, -8, -3, -1, -0.25, 0, 0.25, 1, 3, 8, 12, 20]})

def _rep(s, L):
    c, n, x = s["c"], s["n"], s["x"]
    cn = c ** n
    dc = n * c ** (n - 1) * x + (n * c ** (n - 1) * (c - 1) - (cn - 1)) / (c - 1) ** 2
    return {"c": dc, "x": cn}
prog("lanes/repeat_closure.scm", F, [dict(c=0.8, n=5.0, x=2.0)], wrt=["c", "x"], literals=False,
     cf=_rep, cv=lambda s: s["c"] ** s["n"] * s["x"] + (s["c"] ** s["n"] - 1) / (s["c"] - 1),
     lanes={"n": [0, 1, 2, 3, 5, 8, 13, 21], "c": [0.5, 0.8, 1.1, -0.9, 0.8, 0.3, 1.05, 0.99]})
