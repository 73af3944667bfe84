# closed-form physical laws: every pair has closed-form value and gradient.
F = "closed-form"


def _ke(s, L):
    m, v = s["m"], s["v"]
    return {"m": v * v / 2, "v": m * v, L("0.5"): m * v * v}
prog("physics/kinetic_energy.scm", F, [dict(m=2.0, v=3.0), dict(m=0.75, v=-1.25), dict(m=10.0, v=0.4)],
     cf=_ke, cv=lambda s: s["m"] * s["v"] ** 2 / 2, note="E = m v^2 / 2")


def _range(s, L):
    v, th, g = s["v"], s["theta"], mpf("9.81")
    return {"v": 2 * v * sin(2 * th) / g, "theta": 2 * v * v * cos(2 * th) / g,
            L("9.81"): -v * v * sin(2 * th) / g ** 2, L("2"): v * v * cos(2 * th) * th / g}
prog("physics/projectile_range.scm", F, [dict(v=20.0, theta=0.6), dict(v=7.5, theta=0.3), dict(v=12.0, theta=1.1)],
     cf=_range, cv=lambda s: s["v"] ** 2 * sin(2 * s["theta"]) / mpf("9.81"), note="R = v^2 sin(2 theta) / g")


def _arr(s, L):
    A, Ea, T, R = s["A"], s["Ea"], s["T"], mpf("8.314")
    e = exp(-Ea / (R * T))
    return {"A": e, "Ea": -A * e / (R * T), "T": A * e * Ea / (R * T * T), L("8.314"): A * e * Ea / (R * R * T)}
prog("physics/arrhenius.scm", F, [dict(A=2.0, Ea=5000.0, T=300.0), dict(A=0.7, Ea=12000.0, T=450.0),
                                  dict(A=1.3, Ea=8000.0, T=350.0)],
     cf=_arr, cv=lambda s: s["A"] * exp(-s["Ea"] / (mpf("8.314") * s["T"])), note="k = A exp(-Ea/(R T))")


def _gas(s, L):
    n, T, V, R = s["n"], s["T"], s["V"], mpf("0.08206")
    return {"n": R * T / V, "T": n * R / V, "V": -n * R * T / V ** 2, L("0.08206"): n * T / V}
prog("physics/ideal_gas.scm", F, [dict(n=1.5, T=300.0, V=25.0), dict(n=0.2, T=273.15, V=4.0), dict(n=3.0, T=400.0, V=60.0)],
     cf=_gas, cv=lambda s: s["n"] * mpf("0.08206") * s["T"] / s["V"], note="P = n R T / V")


def _hooke(s, L):
    k, Ln, L0 = s["k"], s["L"], s["L0"]
    d = Ln - L0
    return {"k": d * d / 2, "L": k * d, "L0": -k * d, L("2"): -k * d * d / 4}
prog("physics/hooke.scm", F, [dict(k=40.0, L=0.35, L0=0.25), dict(k=3.5, L=1.0, L0=1.6), dict(k=120.0, L=0.12, L0=0.1)],
     cf=_hooke, cv=lambda s: s["k"] * (s["L"] - s["L0"]) ** 2 / 2, note="U = k (L - L0)^2 / 2")


def _pend(s, L):
    l, g = s["L"], mpf("9.81")
    return {"L": PI / sqrt(l * g), L("9.81"): -PI * sqrt(l) / g ** mpf(1.5), L("2"): PI * sqrt(l / g),
            L("3.141592653589793"): 2 * sqrt(l / g)}
prog("physics/pendulum_period.scm", F, [dict(L=1.0), dict(L=0.25), dict(L=2.7)], cf=_pend,
     cv=lambda s: 2 * PI * sqrt(s["L"] / mpf("9.81")), note="T = 2 pi sqrt(L/g)")


def _pend_amp(s, L):
    l, a = s["L"], s["theta0"]
    t0 = 2 * PI * sqrt(l / mpf("9.81"))
    c = 1 + a * a / 16 + 11 * a ** 4 / 3072
    return {"L": c * t0 / (2 * l), "theta0": t0 * (a / 8 + 44 * a ** 3 / 3072),
            L("16"): -t0 * a * a / 256, L("11"): t0 * a ** 4 / 3072, L("1"): t0}
prog("physics/pendulum_amplitude.scm", F, [dict(L=1.0, theta0=0.5), dict(L=0.4, theta0=1.2), dict(L=3.0, theta0=0.1)],
     cf=_pend_amp, cv=lambda s: 2 * PI * sqrt(s["L"] / mpf("9.81")) * (1 + s["theta0"] ** 2 / 16 + 11 * s["theta0"] ** 4 / 3072),
     note="finite-amplitude series to a^4")


def _coul(s, L):
    k, a, b, r = s["k"], s["q1"], s["q2"], s["r"]
    return {"k": a * b / r ** 2, "q1": k * b / r ** 2, "q2": k * a / r ** 2, "r": -2 * k * a * b / r ** 3}
prog("physics/coulomb.scm", F, [dict(k=8.99, q1=1.5, q2=-2.0, r=0.8), dict(k=1.0, q1=0.3, q2=0.4, r=2.5),
                                dict(k=8.99, q1=-0.05, q2=-0.07, r=0.1)],
     cf=_coul, cv=lambda s: s["k"] * s["q1"] * s["q2"] / s["r"] ** 2, note="F = k q1 q2 / r^2")


def _drag(s, L):
    rho, cd, A, v = s["rho"], s["cd"], s["area"], s["v"]
    return {"rho": cd * A * v * v / 2, "cd": rho * A * v * v / 2, "area": rho * cd * v * v / 2,
            "v": rho * cd * A * v, L("0.5"): rho * cd * A * v * v}
prog("physics/drag.scm", F, [dict(rho=1.225, cd=0.47, area=0.01, v=30.0), dict(rho=1000.0, cd=1.1, area=0.002, v=1.5),
                             dict(rho=0.9, cd=0.3, area=2.2, v=12.0)],
     cf=_drag, cv=lambda s: s["rho"] * s["cd"] * s["area"] * s["v"] ** 2 / 2, note="F = rho Cd A v^2 / 2")


def _term(s, L):
    m, rho, cd, A, g = s["m"], s["rho"], s["cd"], s["area"], mpf("9.81")
    vt = sqrt(2 * m * g / (rho * cd * A))
    return {"m": vt / (2 * m), "rho": -vt / (2 * rho), "cd": -vt / (2 * cd), "area": -vt / (2 * A),
            L("9.81"): vt / (2 * g), L("2"): vt / 4}
prog("physics/terminal_velocity.scm", F, [dict(m=0.15, rho=1.225, cd=0.47, area=0.0042), dict(m=80.0, rho=1.2, cd=1.0, area=0.7),
                                          dict(m=0.002, rho=1.225, cd=0.5, area=0.0005)],
     cf=_term, cv=lambda s: sqrt(2 * s["m"] * mpf("9.81") / (s["rho"] * s["cd"] * s["area"])), note="v = sqrt(2 m g / (rho Cd A))")


def _logi(s, L):
    K, P0, r, t = s["K"], s["P0"], s["r"], s["t"]
    E = exp(-r * t)
    Q = (K - P0) / P0
    D = 1 + Q * E
    return {"K": 1 / D - K * E / (P0 * D * D), "P0": K * K * E / (P0 * P0 * D * D),
            "r": K * Q * t * E / (D * D), "t": K * Q * r * E / (D * D), L("1"): -K / (D * D)}
prog("physics/logistic_growth.scm", F, [dict(K=100.0, P0=5.0, r=0.4, t=6.0), dict(K=1.0, P0=0.9, r=1.5, t=0.5),
                                        dict(K=50.0, P0=80.0, r=0.2, t=3.0)],
     cf=_logi, cv=lambda s: s["K"] / (1 + (s["K"] - s["P0"]) / s["P0"] * exp(-s["r"] * s["t"])),
     note="P(t) = K / (1 + (K-P0)/P0 e^(-r t))")


def _gauss(s, L):
    x, mu, sg = s["x"], s["mu"], s["sigma"]
    z = (x - mu) / sg
    p = exp(-z * z / 2) / (sg * sqrt(2 * PI))
    return {"x": -p * z / sg, "mu": p * z / sg, "sigma": p * (z * z - 1) / sg, L("-0.5"): p * z * z,
            L("2"): -p / 4, L("3.141592653589793"): -p / (2 * PI)}
prog("physics/gaussian_density.scm", F, [dict(x=0.3, mu=0.0, sigma=1.0), dict(x=2.5, mu=1.0, sigma=0.7),
                                         dict(x=-4.0, mu=-3.2, sigma=2.0)],
     cf=_gauss, cv=lambda s: exp(-((s["x"] - s["mu"]) / s["sigma"]) ** 2 / 2) / (s["sigma"] * sqrt(2 * PI)),
     note="normal pdf")


def _decay(s, L):
    N0, t, th = s["N0"], s["t"], s["thalf"]
    h = mpf("0.5")
    N = N0 * h ** (t / th)
    return {"N0": h ** (t / th), "t": -N * log(2) / th, "thalf": N * log(2) * t / th ** 2,
            L("0.5"): N0 * (t / th) * h ** (t / th - 1)}
prog("physics/radioactive_decay.scm", F, [dict(N0=1000.0, t=3.0, thalf=5.27), dict(N0=1.0, t=10.0, thalf=2.5),
                                          dict(N0=42.0, t=0.7, thalf=8.0)],
     cf=_decay, cv=lambda s: s["N0"] * mpf("0.5") ** (s["t"] / s["thalf"]), note="N = N0 (1/2)^(t/t_half)")


def _kepler(s, L):
    a, mu = s["a"], s["mu"]
    T = 2 * PI * a ** mpf(1.5) / sqrt(mu)
    return {"a": 3 * PI * sqrt(a) / sqrt(mu), "mu": -T / (2 * mu), L("1.5"): T * log(a), L("2"): T / 2}
prog("physics/kepler_period.scm", F, [dict(a=1.0, mu=39.478), dict(a=5.2, mu=39.478), dict(a=0.39, mu=1.0)],
     cf=_kepler, cv=lambda s: 2 * PI * s["a"] ** mpf(1.5) / sqrt(s["mu"]), note="T = 2 pi a^1.5 / sqrt(mu)")


def _doppler(s, L):
    f, vr, vs, c = s["f"], s["vr"], s["vs"], mpf(343)
    return {"f": (c + vr) / (c - vs), "vr": f / (c - vs), "vs": f * (c + vr) / (c - vs) ** 2,
            L("343"): f / (c - vs) - f * (c + vr) / (c - vs) ** 2}
prog("physics/doppler.scm", F, [dict(f=440.0, vr=0.0, vs=30.0), dict(f=1000.0, vr=-12.0, vs=-20.0),
                                dict(f=256.0, vr=5.5, vs=3.0)],
     cf=_doppler, cv=lambda s: s["f"] * (343 + s["vr"]) / (343 - s["vs"]), note="f' = f (c + vr) / (c - vs)")


def _planck(s, L):
    nu, T = s["nu"], s["T"]
    e = exp(nu / T)
    D = e - 1
    return {"nu": 6 * nu ** 2 / D - 2 * nu ** 3 * e / (T * D * D), "T": 2 * nu ** 4 * e / (T * T * D * D),
            L("2"): nu ** 3 / D, L("3"): 2 * nu ** 3 * log(nu) / D, L("1"): 2 * nu ** 3 / (D * D)}
prog("physics/planck.scm", F, [dict(nu=2.0, T=1.0), dict(nu=0.5, T=0.8), dict(nu=4.5, T=1.7)],
     cf=_planck, cv=lambda s: 2 * s["nu"] ** 3 / (exp(s["nu"] / s["T"]) - 1), note="reduced Planck law")


def _lens(s, L):
    f, d = s["f"], s["d"]
    return {"f": d * d / (d - f) ** 2, "d": -f * f / (d - f) ** 2}
prog("physics/thin_lens.scm", F, [dict(f=0.1, d=0.3), dict(f=2.0, d=5.0), dict(f=0.5, d=0.55)],
     cf=_lens, cv=lambda s: s["f"] * s["d"] / (s["d"] - s["f"]), note="di = f d / (d - f)")


def _rel(s, L):
    m, v = s["m"], s["v"]
    return {"m": 1 / sqrt(1 - v * v), "v": m * v * (1 - v * v) ** mpf(-1.5)}
prog("physics/relativistic_energy.scm", F, [dict(m=1.0, v=0.6), dict(m=0.511, v=0.99), dict(m=938.3, v=0.1)],
     cf=_rel, cv=lambda s: s["m"] / sqrt(1 - s["v"] ** 2), note="E = gamma m")


def _rc(s, L):
    V0, R, C, t = s["V0"], s["R"], s["C"], s["t"]
    tau = R * C
    e = exp(-t / tau)
    return {"V0": 1 - e, "t": V0 * e / tau, "R": -V0 * e * t / (R * tau), "C": -V0 * e * t / (C * tau), L("1"): V0}
prog("physics/rc_charging.scm", F, [dict(V0=5.0, R=1000.0, C=0.001, t=0.5), dict(V0=12.0, R=2.2, C=0.47, t=3.0),
                                    dict(V0=1.0, R=10.0, C=0.1, t=0.05)],
     cf=_rc, cv=lambda s: s["V0"] * (1 - exp(-s["t"] / (s["R"] * s["C"]))), note="V = V0 (1 - e^(-t/RC))")


def _bern(s, L):
    p1, rho, v1, v2, h1, h2, g = s["p1"], s["rho"], s["v1"], s["v2"], s["h1"], s["h2"], mpf("9.81")
    return {"p1": mpf(1), "rho": (v1 ** 2 - v2 ** 2) / 2 + g * (h1 - h2), "v1": rho * v1, "v2": -rho * v2,
            "h1": rho * g, "h2": -rho * g, L("9.81"): rho * (h1 - h2), L("0.5"): rho * (v1 ** 2 - v2 ** 2)}
prog("physics/bernoulli.scm", F, [dict(p1=101.3, rho=1.0, v1=2.0, v2=3.5, h1=10.0, h2=8.0),
                                  dict(p1=200.0, rho=0.85, v1=0.5, v2=1.5, h1=0.0, h2=3.0)],
     cf=_bern, cv=lambda s: s["p1"] + s["rho"] * (s["v1"] ** 2 - s["v2"] ** 2) / 2 + s["rho"] * mpf("9.81") * (s["h1"] - s["h2"]),
     note="Bernoulli, kPa and kg/L units")


def _osc(s, L):
    A, g, w, ph, t = s["amp"], s["gamma"], s["omega"], s["phi"], s["t"]
    e, c, sn = exp(-g * t), cos(w * t + ph), sin(w * t + ph)
    return {"amp": e * c, "gamma": -t * A * e * c, "omega": -A * e * sn * t, "phi": -A * e * sn,
            "t": -g * A * e * c - A * e * sn * w}
prog("physics/damped_oscillator.scm", F, [dict(amp=1.0, gamma=0.1, omega=2.0, phi=0.0, t=3.0),
                                          dict(amp=0.05, gamma=1.3, omega=12.0, phi=0.4, t=0.25),
                                          dict(amp=2.5, gamma=0.02, omega=0.5, phi=-1.0, t=10.0)],
     cf=_osc, cv=lambda s: s["amp"] * exp(-s["gamma"] * s["t"]) * cos(s["omega"] * s["t"] + s["phi"]),
     note="x = A e^(-gamma t) cos(omega t + phi)")


def _esc(s, L):
    mu, r = s["mu"], s["r"]
    v = sqrt(2 * mu / r)
    return {"mu": v / (2 * mu), "r": -v / (2 * r), L("2"): v / 4}
prog("physics/escape_velocity.scm", F, [dict(mu=398600.0, r=6371.0), dict(mu=4903.0, r=1737.0), dict(mu=1.0, r=0.5)],
     cf=_esc, cv=lambda s: sqrt(2 * s["mu"] / s["r"]), note="v = sqrt(2 mu / r)")
