# dynamics: iterated maps, Euler/RK steps of ODEs, IIR filters (do, named let, loop/recur, define recursion).
F = "dynamics"

prog("dynamics/logistic_map.scm", F, [dict(x0=0.2, r=2.5), dict(x0=0.7, r=1.8), dict(x0=0.4, r=2.2)],
     cf=lambda s, L: {"r": 1 / s["r"] ** 2, "x0": mpf(0), L("1", 2): mpf(1)}, cv=lambda s: 1 - 1 / s["r"],
     note="converged to the fixed point 1 - 1/r (|f'| = |2 - r| <= 0.5)")

prog("dynamics/logistic_map_short.scm", F, [dict(x0=0.2, r=3.7), dict(x0=0.55, r=3.2), dict(x0=0.31, r=3.5)],
     note="chaotic regime, 12 steps")

prog("dynamics/lotka_volterra.scm", F, [dict(a=1.1, b=0.4, c=0.4, d=0.1, x0=10.0, y0=5.0),
                                        dict(a=0.66, b=1.33, c=1.0, d=1.0, x0=0.9, y0=0.9),
                                        dict(a=2.0, b=0.02, c=1.06, d=0.01, x0=40.0, y0=9.0)],
     note="Euler, 100 steps")

prog("dynamics/sir.scm", F, [dict(beta=0.5, gamma=0.1, i0=0.01), dict(beta=0.3, gamma=0.15, i0=0.001),
                             dict(beta=1.2, gamma=0.4, i0=0.05)], note="Euler, 150 steps")

prog("dynamics/damped_pendulum.scm", F, [dict(theta0=0.5, gamma=0.3, len=1.0), dict(theta0=2.5, gamma=0.05, len=0.4),
                                         dict(theta0=-1.0, gamma=1.5, len=2.0)], note="semi-implicit Euler, 200 steps")


def _iir(s, L):
    a, y0, u, N = s["a"], s["y0"], s["u"], 40
    return {"a": N * a ** (N - 1) * (y0 - u), "y0": a ** N, "u": 1 - a ** N, L("1", 2): u * (1 - a ** N) / (1 - a)}
prog("dynamics/iir_lowpass.scm", F, [dict(a=0.9, y0=0.0, u=1.0), dict(a=0.5, y0=2.0, u=-1.0), dict(a=0.95, y0=1.0, u=3.0)],
     cf=_iir, cv=lambda s: s["u"] + s["a"] ** 40 * (s["y0"] - s["u"]), note="step response u + a^40 (y0 - u)")

prog("dynamics/iir_biquad.scm", F, [dict(b0=0.5, a1=1.6, a2=-0.8, freq=0.3), dict(b0=1.0, a1=0.5, a2=-0.25, freq=1.1)],
     note="resonator energy, 60 samples")


def _cool(s, L):
    k, T0, Te, N = s["k"], s["T0"], s["Tenv"], 50
    q = 1 - k * mpf(0.1)
    return {"T0": q ** N, "Tenv": 1 - q ** N, "k": (T0 - Te) * N * q ** (N - 1) * (-mpf(0.1)),
            L("0.1"): (T0 - Te) * N * q ** (N - 1) * (-k)}
prog("dynamics/newton_cooling.scm", F, [dict(k=0.3, T0=90.0, Tenv=20.0), dict(k=1.5, T0=5.0, Tenv=25.0),
                                        dict(k=0.05, T0=37.0, Tenv=36.0)],
     cf=_cool, cv=lambda s: s["Tenv"] + (s["T0"] - s["Tenv"]) * (1 - s["k"] * mpf(0.1)) ** 50,
     note="T_N = Tenv + (T0 - Tenv)(1 - k dt)^N")


def _rk4(s, L):
    lam, y0, h, N = s["lam"], s["y0"], mpf(0.05), 20
    z = h * lam
    R = 1 + z + z ** 2 / 2 + z ** 3 / 6 + z ** 4 / 24
    dR = 1 + z + z ** 2 / 2 + z ** 3 / 6
    return {"y0": R ** N, "lam": y0 * N * R ** (N - 1) * dR * h, L("0.05"): y0 * N * R ** (N - 1) * dR * lam}
prog("dynamics/rk4_decay.scm", F, [dict(lam=-1.0, y0=1.0), dict(lam=-8.0, y0=2.5), dict(lam=0.7, y0=-0.3)],
     cf=_rk4, cv=lambda s: s["y0"] * (lambda z: 1 + z + z ** 2 / 2 + z ** 3 / 6 + z ** 4 / 24)(mpf(0.05) * s["lam"]) ** 20,
     note="y0 R(h lam)^20, R the RK4 stability polynomial")

prog("dynamics/harmonic_verlet.scm", F, [dict(omega=2.0, x0=1.0, v0=0.0), dict(omega=0.7, x0=-0.5, v0=1.5)],
     note="velocity Verlet energy")

prog("dynamics/van_der_pol.scm", F, [dict(mu=1.0, x0=1.0, v0=0.0), dict(mu=0.3, x0=-2.0, v0=0.5),
                                     dict(mu=2.5, x0=0.1, v0=-0.1)], note="explicit midpoint, 100 steps")

prog("dynamics/lorenz.scm", F, [dict(sigma=10.0, rho=28.0, beta=2.6667), dict(sigma=5.0, rho=15.0, beta=1.0)],
     note="Euler, 80 steps of 0.005")


def _ci(s, L):
    B0, r, d, N = s["B0"], s["r"], s["deposit"], 120
    q = 1 + r / 12
    dBdq = B0 * N * q ** (N - 1) + d * sum(j * q ** (j - 1) for j in range(1, N))
    return {"B0": q ** N, "deposit": sum(q ** j for j in range(N)), "r": dBdq / 12, L("12"): dBdq * (-r / 144)}
prog("dynamics/compound_interest.scm", F, [dict(B0=1000.0, r=0.05, deposit=100.0), dict(B0=0.0, r=0.12, deposit=50.0),
                                           dict(B0=250.0, r=0.01, deposit=0.0)],
     cf=_ci, cv=lambda s: s["B0"] * (1 + s["r"] / 12) ** 120 + s["deposit"] * sum((1 + s["r"] / 12) ** j for j in range(120)),
     note="B0 q^N + d (q^N - 1)/(q - 1)")


def _harv(s, L):
    g, K, h = s["growth"], s["capacity"], s["harvest"]
    return {"growth": K * h / g ** 2, "capacity": 1 - h / g, "harvest": -K / g, "p0": mpf(0), L("1"): K}
prog("dynamics/harvest.scm", F, [dict(growth=0.8, capacity=100.0, harvest=0.1, p0=10.0),
                                 dict(growth=1.2, capacity=50.0, harvest=0.3, p0=10.0),
                                 dict(growth=1.0, capacity=1000.0, harvest=0.25, p0=50.0)],
     cf=_harv, cv=lambda s: s["capacity"] * (1 - s["harvest"] / s["growth"]),
     note="converged to K (1 - h/g); |f'| = |1 - g + h| <= 0.3")

prog("dynamics/heat_1d.scm", F, [dict(kappa=0.2, peak=2.0), dict(kappa=0.45, peak=-1.0)], note="explicit stencil, 20 steps")
