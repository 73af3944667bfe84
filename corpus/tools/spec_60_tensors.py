# tensors: Kalman step, linear-Gaussian likelihood, quadratic forms, matmul chains, Cholesky-based quantities.
F = "tensors"
from mpmath import matrix as _M, eye as _eye


def _kal_parts(s):
    q, r, pos, vel, obs = s["q"], s["r"], s["pos"], s["vel"], s["obs"]
    dt = mpf(0.1)
    P11 = 1 + dt * dt + q * dt ** 3 / 3
    P12 = dt + q * dt * dt / 2
    P22 = 1 + q * dt
    S = P11 + r
    K1, K2 = P11 / S, P12 / S
    y = obs - (pos + dt * vel)
    LL = -(y * y / S + log(S) + log(2 * PI)) / 2
    vs = pos + dt * vel + vel + (K1 + K2) * y
    tr = P11 + P22 - (P11 ** 2 + P12 ** 2) / S
    return dict(dt=dt, P11=P11, P12=P12, P22=P22, S=S, K=K1 + K2, y=y, value=LL + vs + tr)


def _kal(s, L):
    p = _kal_parts(s)
    S, y, K, dt, P11, P12 = p["S"], p["y"], p["K"], p["dt"], p["P11"], p["P12"]
    return {"obs": -y / S + K, "pos": y / S + 1 - K, "vel": y * dt / S + 1 + dt - K * dt,
            "r": -(1 / S - y * y / S ** 2) / 2 - (P11 + P12) * y / S ** 2 + (P11 ** 2 + P12 ** 2) / S ** 2}
prog("tensors/kalman_step.scm", F, [dict(q=0.5, r=0.2, pos=1.0, vel=0.5, obs=1.2),
                                    dict(q=2.0, r=1.5, pos=-0.3, vel=2.0, obs=0.4),
                                    dict(q=0.01, r=0.05, pos=3.0, vel=-1.0, obs=2.6)],
     cf=_kal, cv=lambda s: _kal_parts(s)["value"],
     note="scalar innovation: S = P11 + r, K = P[:,0] / S")


def _lg_parts(s):
    A = _M([[1, mpf(0.5)], [0, 1], [1, -1]])
    th = _M([s["t1"], s["t2"]])
    y = _M([mpf(1.2), mpf(-0.3), mpf(0.8)])
    Sig = _eye(3) * s["sigma"] ** 2 + _M([[1] * 3] * 3) * s["rho"]
    r = y - A * th
    Si = Sig ** -1
    g = A.T * (Si * r)
    v = -((r.T * Si * r)[0] / 2 + log(mp.det(Sig)) / 2 + mpf(1.5) * log(2 * PI))
    return A, Si, r, g, v


def _lg(s, L):
    A, Si, r, g, v = _lg_parts(s)
    Sr = Si * r
    return {"t1": g[0], "t2": g[1], L("1.2"): -Sr[0], L("-0.3"): -Sr[1], L("0.8"): -Sr[2]}
prog("tensors/linear_gaussian.scm", F, [dict(t1=0.5, t2=-0.2, sigma=0.8, rho=0.3), dict(t1=1.0, t2=0.5, sigma=1.5, rho=0.0),
                                        dict(t1=-0.4, t2=0.9, sigma=0.3, rho=0.8)],
     cf=_lg, cv=lambda s: _lg_parts(s)[4], note="d/dtheta = A^T Sigma^-1 r")


def _qf(s, L):
    A = _M([[2, mpf(0.5), 0], [mpf(0.5), 1, mpf(-0.3)], [0, mpf(-0.3), 3]])
    b = _M([1, -2, mpf(0.5)])
    v = _M([s["x1"], s["x2"], s["x3"]])
    g = 2 * A * v + b
    return {"x1": g[0], "x2": g[1], "x3": g[2], L("0.5"): v[0] * v[1], L("0.5", 2): v[1] * v[0],
            L("-0.3"): v[1] * v[2], L("3"): v[2] * v[2], L("-2"): v[1]}
prog("tensors/quadratic_form.scm", F, [dict(x1=1.0, x2=-0.5, x3=2.0), dict(x1=0.3, x2=1.7, x3=-1.1), dict(x1=-2.0, x2=0.0, x3=0.4)],
     cf=_qf, cv=lambda s: (lambda v: (v.T * _M([[2, mpf(0.5), 0], [mpf(0.5), 1, mpf(-0.3)], [0, mpf(-0.3), 3]]) * v)[0]
                           + v[0] - 2 * v[1] + v[2] / 2)(_M([s["x1"], s["x2"], s["x3"]])),
     note="gradient 2 A v + b")

prog("tensors/matmul_chain.scm", F, [dict(a=1.5, b=0.3), dict(a=-0.7, b=2.0), dict(a=0.2, b=-1.0)],
     cf=lambda s, L: {"a": 6 * s["a"] ** 2 + 2 * s["a"] * s["b"] + 2 + 2 * s["a"], "b": s["a"] ** 2},
     cv=lambda s: 2 * s["a"] ** 3 + s["a"] ** 2 * s["b"] + 1 + 2 * s["a"] + s["a"] ** 2, note="2a^3 + a^2 b + 1 + 2a + a^2")


def _dl(s, L):
    a, c, d = s["a"], s["c"], s["d"]
    D = a * d - c * c
    return {"a": d / D - mpf(0.4), "c": -2 * c / D - mpf(0.2), "d": a / D, L("0.1"): 24 - 2 * c - 4 * a}
prog("tensors/det_logdet.scm", F, [dict(a=2.0, c=0.5, d=1.0), dict(a=0.8, c=-0.3, d=3.0), dict(a=5.0, c=1.9, d=1.0)],
     cf=_dl, cv=lambda s: log(s["a"] * s["d"] - s["c"] ** 2) + (24 - 2 * s["c"] - 4 * s["a"]) / 10,
     note="log(ad - c^2) + 0.1 (24 - 2c - 4a)")


def _it(s, L):
    a, b, c, d = s["a"], s["b"], s["c"], s["d"]
    D = a * d - b * c
    N = (a + d) + (d - b - c + a) / 2
    dD = {"a": d, "b": -c, "c": -b, "d": a}
    dN = {"a": mpf(1.5), "b": mpf(-0.5), "c": mpf(-0.5), "d": mpf(1.5)}
    out = {k: (dN[k] * D - N * dD[k]) / D ** 2 for k in "abcd"}
    out[L("0.5")] = (d - b - c + a) / D
    return out
prog("tensors/inv_trace.scm", F, [dict(a=2.0, b=0.5, c=-1.0, d=1.5), dict(a=-1.0, b=2.0, c=0.3, d=0.7)],
     cf=_it, cv=lambda s: ((s["a"] + s["d"]) + (s["d"] - s["b"] - s["c"] + s["a"]) / 2) / (s["a"] * s["d"] - s["b"] * s["c"]),
     note="tr(inv A) = (a + d)/det, sum(inv A) = (a + d - b - c)/det")


def _chol_parts(s):
    B = _M([[1, mpf(0.5), 0], [mpf(0.2), 1, mpf(0.3)], [0, s["beta"], 1]])
    A = B * B.T + _eye(3) * s["lam"]
    return B, A


def _chol(s, L):
    B, A = _chol_parts(s)
    Ai = A ** -1
    E = _M(3, 3)
    E[2, 1] = 1
    dA = E * B.T + B * E.T
    return {"lam": sum(Ai[i, i] for i in range(3)), "beta": sum(Ai[i, j] * dA[i, j] for i in range(3) for j in range(3)),
            L("2"): log(mp.det(A)) / 2}
prog("tensors/cholesky_logdet.scm", F, [dict(beta=0.4, lam=0.5), dict(beta=-1.0, lam=0.1), dict(beta=2.0, lam=1.0)],
     cf=_chol, cv=lambda s: log(mp.det(_chol_parts(s)[1])), note="d logdet / dA = A^-1")


def _ns(s, L):
    x, sc = s["x"], s["s"]
    n = sqrt(x * x + 5)
    w = sqrt(1 + sc * sc)
    return {"x": x / n * (abs(sc) + w), "s": (1 if sc > 0 else -1) * n + n * sc / w}
prog("tensors/norm_scale.scm", F, [dict(x=1.5, s=0.3), dict(x=-1.0, s=-2.0), dict(x=0.5, s=4.0)],
     cf=_ns, cv=lambda s: sqrt(s["x"] ** 2 + 5) * (abs(s["s"]) + sqrt(1 + s["s"] ** 2)), note="|s| |v| + |v| |(1, s)|")


def _ot(s, L):
    x, y = s["x"], s["y"]
    M = _M([[1, 2, 0], [0, 1, 0], [1, 0, 1]])
    u = _M([x, 1, 2])
    v = _M([3, y, -1])
    Mv, Mtu = M * v, M.T * u
    return {"x": v[0] + Mv[0], "y": u[1] + Mtu[1]}
prog("tensors/outer_trace.scm", F, [dict(x=1.5, y=-0.5), dict(x=-2.0, y=3.0)],
     cf=_ot, cv=lambda s: (lambda u, v: (u.T * v)[0] + (u.T * _M([[1, 2, 0], [0, 1, 0], [1, 0, 1]]) * v)[0])(
         _M([s["x"], 1, 2]), _M([3, s["y"], -1])), note="u.v + u^T M v")


def _ss(s, L):
    a, d, b1 = s["a"], s["d"], s["b1"]
    D = a * d - 2
    N = d * b1 + 1 - a - 2 * b1
    return {"a": (-D - N * d) / D ** 2, "d": (b1 * D - N * a) / D ** 2, "b1": (d - 2) / D}
prog("tensors/solve_system.scm", F, [dict(a=3.0, d=1.5, b1=0.5), dict(a=-1.0, d=4.0, b1=2.0), dict(a=0.5, d=-2.0, b1=-1.0)],
     cf=_ss, cv=lambda s: (s["d"] * s["b1"] + 1 - s["a"] - 2 * s["b1"]) / (s["a"] * s["d"] - 2), note="Cramer's rule")


def _ridge_parts(s):
    X = _M([[1, mpf(0.5)], [1, -1], [1, 2], [1, 0]])
    y = _M([s["y1"], mpf(0.3), mpf(2.1), mpf(0.9)])
    w = (X.T * X + _eye(2) * s["lam"]) ** -1 * (X.T * y)
    r = X * w - y
    return w, r, (r.T * r)[0] + s["lam"] * (w.T * w)[0]


def _ridge(s, L):
    w, r, v = _ridge_parts(s)
    return {"lam": (w.T * w)[0], "y1": -2 * r[0], L("0.3"): -2 * r[1], L("2.1"): -2 * r[2], L("0.9"): -2 * r[3]}
prog("tensors/ridge_regression.scm", F, [dict(y1=1.0, lam=0.1), dict(y1=-0.5, lam=2.0), dict(y1=3.0, lam=0.01)],
     cf=_ridge, cv=lambda s: _ridge_parts(s)[2], note="envelope theorem: d/dlam = |w|^2, d/dy = -2 r")

prog("tensors/kalman_filter_loop.scm", F, [dict(q=0.1, r=0.3), dict(q=1.0, r=0.05), dict(q=0.02, r=2.0)],
     note="5 Kalman steps in a named let")

prog("tensors/elementwise.scm", F, [dict(x=1.5, y=2.0), dict(x=-0.5, y=0.25), dict(x=3.0, y=-3.0)],
     cf=lambda s, L: {"x": 2 / (1 + s["x"]) ** 2, "y": 3 + 3 / (1 + s["y"]) ** 2},
     cv=lambda s: (s["x"] + 1) / 2 + 3 * s["y"] + 4 - s["x"] / 2 - 2 / (1 + s["x"]) - 3 / (1 + s["y"]),
     note="elementwise + - * / with ones/zeros")


def _tv(s, L):
    m, b = s["m"], s["b"]
    D = 2 * m - 1
    return {"m": (b * D - 2 * (1 - b + m * b)) / D ** 2, "b": (m - 1) / D}
prog("tensors/tensor_valued.scm", F, [dict(m=1.5, b=2.0), dict(m=3.0, b=-1.0), dict(m=-0.5, b=0.5)],
     cf=_tv, note="sum of inv(M) (1, b) = (1 - b + m b)/(2m - 1)")


def _mah(s, L):
    Sg = _M([[2, mpf(0.6)], [mpf(0.6), s["s22"]]])
    r = _M([s["x1"] - mpf(0.5), s["x2"] + 1])
    Si = Sg ** -1
    z = Si * r
    d = sqrt((r.T * z)[0])
    return {"x1": z[0] / d, "x2": z[1] / d, "s22": -z[1] ** 2 / (2 * d), L("0.5"): -z[0] / d}
prog("tensors/mahalanobis.scm", F, [dict(x1=1.0, x2=0.5, s22=1.0), dict(x1=-2.0, x2=-1.5, s22=3.0), dict(x1=0.4, x2=2.0, s22=0.5)],
     cf=_mah, cv=lambda s: (lambda r, Sg: sqrt((r.T * Sg ** -1 * r)[0]))(_M([s["x1"] - mpf(0.5), s["x2"] + 1]),
                                                                        _M([[2, mpf(0.6)], [mpf(0.6), s["s22"]]])),
     note="d/dx = Sigma^-1 r / d")

prog("tensors/markov_stationary.scm", F, [dict(a=0.2, b=0.3), dict(a=0.45, b=0.15), dict(a=0.3, b=0.3)],
     cf=lambda s, L: {"a": -s["b"] / (s["a"] + s["b"]) ** 2, "b": s["a"] / (s["a"] + s["b"]) ** 2},
     cv=lambda s: s["b"] / (s["a"] + s["b"]), note="pi_0 = b / (a + b); |1 - a - b|^64 < 1e-14")

prog("tensors/gp_likelihood.scm", F, [dict(ell=0.8, sf=1.2), dict(ell=0.3, sf=0.5), dict(ell=2.0, sf=1.0)],
     note="RBF GP marginal likelihood, 3 points")

_ssm2 = [dict(f_0_0=0.8, f_0_1=0.1, f_1_0=-0.2, f_1_1=0.5, l_0_0=0.4, l_1_0=0.1, l_1_1=0.3, h_0=1.0, h_1=0.5, r=0.3),
         dict(f_0_0=0.95, f_0_1=-0.3, f_1_0=0.25, f_1_1=0.7, l_0_0=0.2, l_1_0=-0.15, l_1_1=0.5, h_0=-0.7, h_1=1.2,
              r=0.1)]
prog("tensors/kalman_ssm_d2.scm", F, _ssm2, literals=False,
     note="the El Nino filter (apps/enso) at D = 2: 24 months, dense F, Q = L L^T + 1e-6 I, h, r; exact NLL")
