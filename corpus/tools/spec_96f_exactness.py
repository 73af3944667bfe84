# exactness: exact counts and indices inside a numeric program (exact, inexact, exact->inexact, exact-integer?);
# the conversions pass gradients, the index and the count carry none.
F = "exactness"

prog("exactness/binned_rate.scm", F, [dict(t=0.3, x=1.5), dict(t=1.6, x=-0.5)],
     cf=lambda s, L: {"x": 6 * (mpf("0.5") if s["t"] < mpf("0.5") else mpf("3.5")),
                      "t": mpf(0),
                      L("6"): (mpf("0.5") if s["t"] < mpf("0.5") else mpf("3.5")) * s["x"]},
     cv=lambda s: 6 * (mpf("0.5") if s["t"] < mpf("0.5") else mpf("3.5")) * s["x"],
     note="rates[floor(2t)] x 3 (6/3): an exact index, an exact count made inexact")
