"""El Niño worked case: the Niño 1+2 series, the Kalman-filter program (Scheme, tensor primitives) for any state
dimension D, its parameters, and a plain-Python twin of the same filter for the forecasts.

The model (linear-Gaussian state space, one observation per month):
    x_t = F x_{t-1} + w_t,  w_t ~ N(0, Q),  Q = L Lᵀ + 1e-6 I  (L lower-triangular)
    z_t = h·x_t + v_t,      v_t ~ N(0, R),  R = r² + 1e-6
with x_0 = 0, P_0 = I. Parameters: F (D×D), L (D(D+1)/2), h (D), r: 631 at D = 20.
The program's value is Σ_t w_t · ½(log 2π + log s_t + v_t²/s_t), the exact Gaussian negative log-likelihood of
the months with weight 1 (v_t the innovation, s_t its variance); weights 0 let the filter run through months that
are not scored (the test NLL conditions on the training years this way).
"""
import csv
import math
import random

LOG_2PI = 1.8378770664093453


def load_nino(path):
    """[(year, month 1..12, sst)] from the one-row-per-year CSV, with clear errors for a bad file."""
    out = []
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or [c.strip().upper() for c in rows[0]][:1] != ["YEAR"] or len(rows[0]) != 13:
        raise SystemExit(f"{path}: expected a header YEAR,JAN,...,DEC (13 columns)")
    for i, r in enumerate(rows[1:], 2):
        if len(r) != 13:
            raise SystemExit(f"{path}:{i}: expected 13 columns, got {len(r)}")
        try:
            year = int(r[0])
            vals = [float(x) for x in r[1:]]
        except ValueError as e:
            raise SystemExit(f"{path}:{i}: not a number ({e})")
        out += [(year, m + 1, v) for m, v in enumerate(vals)]
    return out


def anomalies(series, train_end_year):
    """The series less its monthly climatology, the climatology taken over the training years only."""
    clim = {}
    for m in range(1, 13):
        vals = [v for (y, mm, v) in series if mm == m and y <= train_end_year]
        clim[m] = sum(vals) / len(vals)
    return [(y, m, v - clim[m]) for (y, m, v) in series], clim


def names(D):
    f = [f"f_{i}_{j}" for i in range(D) for j in range(D)]
    l = [f"l_{i}_{j}" for i in range(D) for j in range(i + 1)]
    h = [f"h_{i}" for i in range(D)]
    return f + l + h + ["r"]


def start(D, seed):
    """A seeded start: F diagonal-dominant (decay rates spread over 0.3..0.9, spectral radius about 0.9) with small
    couplings, L = 0.3 I plus small entries, h of random signs, r = 0.3. Random so that no two states start alike
    (a symmetric start would keep them alike). A start nearer a unit root (rates up to 0.97) let L-BFGS reach
    F with spectral radius above 1 within seconds, where the NLL is so steep that its line search stalled."""
    rng = random.Random(seed)
    p = {}
    for i in range(D):
        for j in range(D):
            rho = 0.3 + 0.6 * i / max(1, D - 1)
            p[f"f_{i}_{j}"] = rho if i == j else rng.gauss(0, 0.02)
    for i in range(D):
        for j in range(i + 1):
            p[f"l_{i}_{j}"] = 0.3 if i == j else rng.gauss(0, 0.02)
    for i in range(D):
        p[f"h_{i}"] = rng.gauss(0, 0.5)
    p["r"] = 0.3
    return p


def program(D, inline=None):
    """The filter as Scheme. inline: (zs, ws) written into the program (the corpus pair); else zs, ws are free
    (bound as data lists by `dmci fit --data-list`)."""
    rows = lambda m: "\n".join("    (list " + " ".join(m(i, j) for j in range(D)) + ")" for i in range(D))
    lines = [f"; Kalman filter of a {D}-state linear-Gaussian state-space model (dense F, Q = L L^T + 1e-6 I, "
             "observation row h, noise r^2 + 1e-6):",
             "; the exact Gaussian negative log-likelihood of the observations zs, each weighted by ws (1: scored)"]
    if inline:
        zs, ws = inline
        lines.append("(define zs '(" + " ".join(repr(round(z, 6)) for z in zs) + "))")
        lines.append("(define ws '(" + " ".join(str(int(w)) for w in ws) + "))")
    lines += ["(define F (mat",
              rows(lambda i, j: f"f_{i}_{j}") + "))",
              "(define Ft (transpose F))",
              "(define L (mat",
              rows(lambda i, j: f"l_{i}_{j}" if j <= i else "0") + "))",
              f"(define Q (+ (matmul L (transpose L)) (scale 1e-6 (eye {D}))))",
              "(define h (vec " + " ".join(f"h_{i}" for i in range(D)) + "))",
              "(define R (+ (* r r) 1e-6))",
              "(define log-2pi 1.8378770664093453)",
              "(define (filter x P zs ws total)",
              "  (if (null? zs)",
              "      total",
              "      (let* ((xp (matvec F x))",
              "             (Pp (+ (matmul (matmul F P) Ft) Q))",
              "             (Ph (matvec Pp h))",
              "             (s (+ (dot h Ph) R))",
              "             (v (- (car zs) (dot h xp)))",
              "             (K (scale (/ 1 s) Ph)))",
              "        (filter (+ xp (scale v K)) (- Pp (outer K Ph)) (cdr zs) (cdr ws)",
              "                (+ total (* (car ws) 0.5 (+ log-2pi (log s) (/ (* v v) s))))))))",
              f"(filter (zeros {D}) (eye {D}) zs ws 0)", ""]
    return "\n".join(lines)


# ---- the same filter in plain Python (lists), for test NLL and forecasts ----

def matrices(p, D):
    F = [[p[f"f_{i}_{j}"] for j in range(D)] for i in range(D)]
    L = [[p[f"l_{i}_{j}"] if j <= i else 0.0 for j in range(D)] for i in range(D)]
    Q = [[sum(L[i][k] * L[j][k] for k in range(D)) + (1e-6 if i == j else 0.0) for j in range(D)] for i in range(D)]
    h = [p[f"h_{i}"] for i in range(D)]
    R = p["r"] ** 2 + 1e-6
    return F, Q, h, R


def _mm(A, B):
    Bt = list(zip(*B))
    return [[sum(a * b for a, b in zip(row, col)) for col in Bt] for row in A]


def _mv(A, x):
    return [sum(a * b for a, b in zip(row, x)) for row in A]


def run_filter(p, D, zs, ws):
    """(weighted NLL, [filtered state after each month]) — the Scheme program's arithmetic, in Python."""
    F, Q, h, R = matrices(p, D)
    Ft = [list(c) for c in zip(*F)]
    x = [0.0] * D
    P = [[1.0 if i == j else 0.0 for j in range(D)] for i in range(D)]
    total, states = 0.0, []
    for z, w in zip(zs, ws):
        xp = _mv(F, x)
        Pp = _mm(_mm(F, P), Ft)
        Pp = [[Pp[i][j] + Q[i][j] for j in range(D)] for i in range(D)]
        Ph = _mv(Pp, h)
        s = sum(a * b for a, b in zip(h, Ph)) + R
        v = z - sum(a * b for a, b in zip(h, xp))
        K = [a / s for a in Ph]
        x = [a + v * k for a, k in zip(xp, K)]
        P = [[Pp[i][j] - K[i] * Ph[j] for j in range(D)] for i in range(D)]
        total += w * 0.5 * (LOG_2PI + math.log(s) + v * v / s)
        states.append(x)
    return total, states


def forecasts(p, D, state, leads):
    """[h·F^k x for k = 1..leads]: the forecasts made from the filtered state x = x_{t|t} for months t+1..t+leads."""
    F, _, h, _ = matrices(p, D)
    out, x = [], state
    for _ in range(leads):
        x = _mv(F, x)
        out.append(sum(a * b for a, b in zip(h, x)))
    return out


def spectral_radius(p, D, squarings=10):
    """ρ(F) from ‖F^(2^m)‖^(1/2^m) (Gelfand's formula), the powers taken by repeated squaring and rescaled so that
    they never overflow: an upper estimate that tightens with m (m = 10: the 1024th power)."""
    F, _, _, _ = matrices(p, D)
    log_scale = 0.0
    A = F
    for m in range(squarings):
        n = math.sqrt(sum(x * x for row in A for x in row)) or 1.0
        A = [[x / n for x in row] for row in A]
        log_scale = 2 * (log_scale + math.log(n))
        A = _mm(A, A)
    n = math.sqrt(sum(x * x for row in A for x in row))
    if n == 0:
        return 0.0
    return math.exp((log_scale + math.log(n)) / 2 ** squarings)
