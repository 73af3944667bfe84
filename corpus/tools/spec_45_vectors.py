# vectors: vector-ref of parameters, vector literals, vector-map, make-vector, vector->list / list->vector,
# vector-append, vector-copy, vector-fill; gradients entry by entry.
F = "vectors"

prog("vectors/weights_dot.scm", F, [dict(a=1.5, b=-0.5, c=2.0), dict(a=-2.0, b=3.0, c=0.25)],
     cf=lambda s, L: {"a": mpf(0.5) + s["c"], "b": mpf(2), "c": mpf(-1.5) + s["a"],
                      L("0.5"): s["a"], L("2"): s["b"], L("-1.5"): s["c"], L("0.0"): mpf(1)},
     cv=lambda s: mpf(0.5) * s["a"] + 2 * s["b"] - mpf(1.5) * s["c"] + s["c"] * s["a"],
     routes=["direct", "dmci", "dmci2"], note="w.k + c a, w = #(a b c)")

prog("vectors/vector_map_sum.scm", F, [dict(x=1.5, y=-0.5), dict(x=-2.0, y=3.0), dict(x=0.3, y=0.7)],
     cf=lambda s, L: {"x": mpf(0.5) * s["x"], "y": mpf(0.5) * s["y"] + 1, L("1.5"): mpf(0.75),
                      L("0.25"): s["x"] ** 2 + s["y"] ** 2 + mpf(2.25), L("0.0"): mpf(1)},
     cv=lambda s: mpf(0.25) * (s["x"] ** 2 + s["y"] ** 2 + mpf(2.25)) + s["y"], note="(x^2 + y^2 + 1.5^2) / 4 + y")

prog("vectors/horner_vector.scm", F, [dict(a0=1.0, x=1.5), dict(a0=-2.0, x=-0.7), dict(a0=0.3, x=3.0)],
     cf=lambda s, L: {"a0": mpf(1), "x": mpf(-1.5) + 4 * s["x"] + mpf(0.75) * s["x"] ** 2, L("-1.5"): s["x"],
                      L("2"): s["x"] ** 2, L("0.25"): s["x"] ** 3, L("0.0"): s["x"] ** 4, L("7"): mpf(0),
                      L("9"): mpf(0), L("9", 2): mpf(0)},
     cv=lambda s: s["a0"] - mpf(1.5) * s["x"] + 2 * s["x"] ** 2 + mpf(0.25) * s["x"] ** 3 + 1,
     note="a0 - 1.5x + 2x^2 + 0.25x^3 + 1")
