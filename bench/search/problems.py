"""The problems of ci/search-bench and their data: the 100 Feynman equations of AI Feynman's FeynmanEquations.csv
and the 14 right-hand sides of the seven two-state Strogatz systems (bench/search/data/, provenance in its
README), each as a law (an exprs tree), its variables and their ranges; and the rows drawn for one run.

Feynman rows are drawn uniformly from the published ranges (as SRBench drew them). Strogatz rows are the states
along four trajectories of 100 samples 0.1 apart (time 0 to 9.9), from initial states drawn as ode-strogatz's
simulate_ode.m draws them, integrated here by RK4 with 10 steps per sample; the target is the right-hand side at
each state (SRBench's target is the same derivative). A trajectory that leaves the reals (or passes
|state| > 1e6) is drawn again. Noise: y + N(0, (level * RMS(y))^2), SRBench's definition. Every draw comes from
a random.Random seeded by the run's seed and the problem's name (the noise by the level too): every noise level
has the same rows, and a run is reproducible."""
import csv
import hashlib
import math
import os
import random

import exprs

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


class DataError(ValueError):
    """A data file that does not read as the benchmark expects (the message names the file and line)."""


class Problem:
    def __init__(self, name, group, law_text, tree, variables, ranges, output, source, init=None):
        self.name, self.group, self.law_text, self.tree = name, group, law_text, tree
        self.variables, self.ranges, self.output, self.source, self.init = variables, ranges, output, source, init


def _float(cell, path, line, what):
    try:
        v = float(cell)
    except ValueError:
        raise DataError(f"{path}:{line}: {what} '{cell[:40]}' is not a number") from None
    if not math.isfinite(v):
        raise DataError(f"{path}:{line}: {what} is not finite")
    return v


def load_feynman(path=None):
    """The Feynman problems, named as SRBench names them (feynman_I_6_2a ...). The variables are the names
    listed on each row (the '# variables' column disagrees with them on a few rows of the published file)."""
    path = path or os.path.join(DATA, "FeynmanEquations.csv")
    out = []
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise DataError(f"{path}: {e}") from None
    if not rows or rows[0][:4] != ["Filename", "Number", "Output", "Formula"]:
        raise DataError(f"{path}:1: expected the header Filename,Number,Output,Formula,...")
    for line, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue  # the published file ends with empty rows
        if len(row) < 8:
            raise DataError(f"{path}:{line}: {len(row)} cells (at least 8 expected)")
        variables, ranges = [], {}
        for k in range(5, len(row) - 2, 3):
            name = row[k].strip()
            if not name:
                continue
            if not exprs.NAME.match(name) or name in ("pi", "target"):
                raise DataError(f"{path}:{line}: '{name[:40]}' is not a usable variable name")
            lo, hi = _float(row[k + 1], path, line, name + " low"), _float(row[k + 2], path, line, name + " high")
            if not lo < hi:
                raise DataError(f"{path}:{line}: the range of {name} is empty")
            variables.append(name)
            ranges[name] = (lo, hi)
        try:
            tree = exprs.parse_infix(row[3], set(variables))
        except exprs.ParseError as e:
            raise DataError(f"{path}:{line}: {e}") from None
        name = "feynman_" + row[0].strip().replace(".", "_")
        if not exprs.NAME.match(name):
            raise DataError(f"{path}:{line}: '{row[0][:40]}' is not a usable problem name")
        out.append(Problem(name, "feynman", row[3], tree, variables, ranges, row[2], f"{os.path.basename(path)}:{line}"))
    return out


def _init_spec(cell, path, line):
    words = cell.split()
    if not words or words[0] not in ("normal", "uniform", "points"):
        raise DataError(f"{path}:{line}: initial state '{cell[:40]}': normal M SD, uniform LO HI or points V...")
    nums = [_float(w, path, line, "initial state") for w in words[1:]]
    if words[0] != "points" and len(nums) != 2 or not nums:
        raise DataError(f"{path}:{line}: initial state '{cell[:40]}': wrong count of numbers")
    return (words[0], nums)


def load_strogatz(path=None):
    """The Strogatz right-hand sides (strogatz_bacres1 ...), in the states x and y."""
    path = path or os.path.join(DATA, "strogatz.csv")
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise DataError(f"{path}: {e}") from None
    if not rows or rows[0][:5] != ["Filename", "Output", "Formula", "x_init", "y_init"]:
        raise DataError(f"{path}:1: expected the header Filename,Output,Formula,x_init,y_init,...")
    out = []
    for line, row in enumerate(rows[1:], start=2):
        if len(row) < 5:
            raise DataError(f"{path}:{line}: {len(row)} cells (at least 5 expected)")
        try:
            tree = exprs.parse_infix(row[2], {"x", "y"})
        except exprs.ParseError as e:
            raise DataError(f"{path}:{line}: {e}") from None
        init = (_init_spec(row[3], path, line), _init_spec(row[4], path, line))
        if init[0][0] == "points" and (init[1][0] != "points" or len(init[0][1]) != len(init[1][1])):
            raise DataError(f"{path}:{line}: fixed initial states need as many x as y")
        name = "strogatz_" + row[0].strip()
        if not exprs.NAME.match(name):
            raise DataError(f"{path}:{line}: '{row[0][:40]}' is not a usable problem name")
        out.append(Problem(name, "strogatz", row[2], tree, ["x", "y"], None, row[1], f"{os.path.basename(path)}:{line}",
                           init))
    # each system's pair shares its trajectories: the partner's law drives the other state
    by = {p.name: p for p in out}
    for p in out:
        base, k = p.name[:-1], p.name[-1]
        partner = by.get(base + ("2" if k == "1" else "1"))
        if partner is None:
            raise DataError(f"{path}: {p.name} has no partner right-hand side")
        p.system = (p.tree, partner.tree) if k == "1" else (partner.tree, p.tree)
    return out


def load_all():
    return load_feynman() + load_strogatz()


def stable_seed(*parts):
    """A 64-bit seed from the parts (never Python's salted hash)."""
    return int.from_bytes(hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()[:8], "little")


def _trajectories(p, rng, count=4, samples=100, dt=0.1, substeps=10):
    fx, fy = p.system

    def f(x, y):
        env = {"x": x, "y": y}
        return exprs.evaluate(fx, env), exprs.evaluate(fy, env)

    (kx, ax), (ky, ay) = p.init
    states = []
    for i in range(count):
        for _attempt in range(100):
            if kx == "points":
                x, y = ax[i % len(ax)], ay[i % len(ay)]
            else:
                x = rng.gauss(*ax) if kx == "normal" else rng.uniform(*ax)
                y = rng.gauss(*ay) if ky == "normal" else rng.uniform(*ay)
            traj, ok = [], True
            h = dt / substeps
            for s in range(samples):
                traj.append((x, y))
                for _ in range(substeps):
                    k1 = f(x, y)
                    k2 = f(x + h / 2 * k1[0], y + h / 2 * k1[1])
                    k3 = f(x + h / 2 * k2[0], y + h / 2 * k2[1])
                    k4 = f(x + h * k3[0], y + h * k3[1])
                    x += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
                    y += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
                if not (math.isfinite(x) and math.isfinite(y) and abs(x) < 1e6 and abs(y) < 1e6):
                    ok = False
                    break
            if ok:
                states += traj
                break
        else:
            raise DataError(f"{p.name}: no trajectory from 100 initial states stays finite")
    return states


def trajectory_rows(p, noise, seed, dt=0.1, settle=5):
    """The rows of `dmci search --edit` on a Strogatz problem from trajectories, no derivative given: each row is a
    state s (the one whose law p is), the other state o at four samples om o0 o1 o2 (dt apart, from one sample
    before s's time), the step h = dt and the target s_next, the state one sample later. The trajectories are
    draw()'s (the same seed); noise (sigma = noise x RMS of the state's samples) is added to every observed sample
    once, so a row's s_next is the next row's s. Rows start at a trajectory's sample `settle` (5: time 0.5): in the
    first samples the other state can move on a time scale near dt (a transient from the drawn initial state), and
    the cubic the seed reads it from leaves the law itself a residual 150 times larger there (relative RMSE of the
    law through trajectory_seed's integrator, seed 1: strogatz_lv1 8.4e-5 from sample 1, 5.7e-7 from sample 5;
    lv2 9.1e-5 -> 5.6e-7; predprey2 4.2e-6 -> 2.6e-7; the others change little), which spurious small terms fit."""
    rng = random.Random(stable_seed("rows", seed, p.name))
    states = _trajectories(p, rng)
    k = 0 if p.output.startswith("x") else 1
    samples = 100  # _trajectories' samples per trajectory
    obs = [list(s) for s in states]
    if noise > 0:
        nrng = random.Random(stable_seed("noise", seed, p.name, noise))
        for j in (0, 1):
            rms = math.sqrt(sum(s[j] * s[j] for s in states) / len(states))
            for s in obs:
                s[j] += nrng.gauss(0, noise * rms)
    rows = []
    for start in range(0, len(obs), samples):
        traj = obs[start:start + samples]
        for i in range(max(1, settle), len(traj) - 2):
            rows.append((traj[i][k], traj[i - 1][1 - k], traj[i][1 - k], traj[i + 1][1 - k], traj[i + 2][1 - k], dt,
                         traj[i + 1][k]))
    return rows


def trajectory_seed(p, param):
    """The seed program of a trajectory run: the law (f x y), which the search edits (--edit f), inside a fixed
    integrator: four classical Runge-Kutta steps of h/4 carry s over h, the other state read from the cubic
    through its four samples. Nothing but f changes; every other literal stays as written. (The integrator's own
    error is what the law's fit cannot remove. Before, two steps of h/2 and the quadratic through three samples
    o0 o1 o2 left it large enough that the fitted law was off by 1.5% on strogatz_lv1, 3 x -> 2.956 x, and that a
    spurious fourth term fitted it better than the law by more than the pick's window on strogatz_bacres1.)"""
    rate = "(f s (other u om o0 o1 o2))" if p.output.startswith("x") else "(f (other u om o0 o1 o2) s)"
    return f"""; {p.name}: the law d{p.output[0]}/dt = (f x y), searched with --edit f from trajectories (no derivative given)
(define (f x y) {param})
; the other state at time u h, from the cubic through its samples om, o0, o1, o2 at -h, 0, h and 2h
(define (other u om o0 o1 o2)
  (+ (* om (/ -1 6) u (- u 1) (- u 2)) (* o0 0.5 (+ u 1) (- u 1) (- u 2))
     (* o1 -0.5 (+ u 1) u (- u 2)) (* o2 (/ 1 6) (+ u 1) u (- u 1))))
; the rate of s at time u h
(define (rate s u om o0 o1 o2) {rate})
; one classical Runge-Kutta step of du h from time u h
(define (rk4 s u du om o0 o1 o2 h)
  (let* ((d (* du h))
         (k1 (rate s u om o0 o1 o2))
         (k2 (rate (+ s (* 0.5 d k1)) (+ u (* 0.5 du)) om o0 o1 o2))
         (k3 (rate (+ s (* 0.5 d k2)) (+ u (* 0.5 du)) om o0 o1 o2))
         (k4 (rate (+ s (* d k3)) (+ u du) om o0 o1 o2)))
    (+ s (* (/ d 6) (+ k1 (* 2 k2) (* 2 k3) k4)))))
; four steps of h/4
(define (step s u) (rk4 s u 0.25 om o0 o1 o2 h))
(step (step (step (step s 0) 0.25) 0.5) 0.75)
"""


def edited_body(program, name="f"):
    """The body of (define (NAME ...) BODY) in a program's text (the law a trajectory run found), or None. A small
    reader of balanced parentheses: the text is dmci's printed program, never evaluated."""
    text = str(program)
    at = text.find(f"(define ({name} ")
    if at < 0:
        return None
    depth, start = 0, None
    head_end = text.find(")", at)  # the end of (NAME ARG ...)
    if head_end < 0:
        return None
    i = head_end + 1
    while i < len(text) and text[i] in " \t\n":
        i += 1
    start = i
    if start >= len(text):
        return None
    if text[start] != "(":
        end = start
        while end < len(text) and text[end] not in " \t\n()":
            end += 1
        return text[start:end]
    for j in range(start, len(text)):
        depth += text[j] == "("
        depth -= text[j] == ")"
        if depth == 0:
            return text[start:j + 1]
    return None


def draw(p, rows, noise, seed, test_rows):
    """(train, test, ranges): train is a list of (values in p.variables order, y with noise), test the same
    without noise; ranges the variables' ranges (the published ones, or the trajectories' bounding box)."""
    rng = random.Random(stable_seed("rows", seed, p.name))  # the same rows at every noise level
    if p.group == "strogatz":
        states = _trajectories(p, rng)
        rng.shuffle(states)
        xs = [list(s) for s in states]
        ranges = {"x": (min(s[0] for s in states), max(s[0] for s in states)),
                  "y": (min(s[1] for s in states), max(s[1] for s in states))}
        n_test = max(1, len(xs) // 4)
        test_x, train_x = xs[:n_test], xs[n_test:]
    else:
        ranges = p.ranges
        train_x = [[rng.uniform(*ranges[v]) for v in p.variables] for _ in range(rows)]
        test_x = [[rng.uniform(*ranges[v]) for v in p.variables] for _ in range(test_rows)]

    def ys(xs):
        out = []
        for x in xs:
            y = exprs.evaluate(p.tree, dict(zip(p.variables, x)))
            if not (isinstance(y, (int, float)) and math.isfinite(y)):
                raise DataError(f"{p.name}: the law is undefined at {dict(zip(p.variables, x))}")
            out.append(float(y))
        return out

    train_y, test_y = ys(train_x), ys(test_x)
    if noise > 0:
        rms = math.sqrt(sum(y * y for y in train_y) / len(train_y))
        nrng = random.Random(stable_seed("noise", seed, p.name, noise))
        train_y = [y + nrng.gauss(0, noise * rms) for y in train_y]
    return list(zip(train_x, train_y)), list(zip(test_x, test_y)), ranges


# ---- units (ci/search-bench --units: dmci search --units) ----

# Where FeynmanEquations.csv and units.csv (both as published) disagree, the benchmark's reading, with why. Each
# is checked by the tests: with it, every Feynman law is dimensionally consistent under the table.
UNITS_CORRECTIONS = {
    # FeynmanEquations.csv writes the adiabatic index of I.39.11, I.43.43 and I.47.23 as Gamma; units.csv has it
    # as gamma (dimensionless).
    "Gamma": "0,0,0,0,0",
    # units.csv gives mu_drift (the mobility of I.43.16, v = mu_drift q Volt / d) the units kg/s, with which the law
    # is not consistent; a mobility is a velocity per force, s/kg (units.csv's own row `mob`).
    "mu_drift": "0,1,-1,0,0",
}


def load_units(path=None):
    """units.csv as {name: [exponents of m, s, kg, T, V]} (AI Feynman's table: Variable,Units,m,s,kg,T,V), with
    UNITS_CORRECTIONS applied, and the base units' names."""
    path = path or os.path.join(DATA, "units.csv")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise DataError(f"{path}: {e}") from None
    if not rows or [c for c in rows[0] if c][:2] != ["Variable", "Units"]:
        raise DataError(f"{path}:1: expected the header Variable,Units,m,s,kg,...")
    dims = [c for c in rows[0][2:] if c]
    table = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        try:
            table[row[0]] = [int(c) for c in row[2:2 + len(dims)]]
        except ValueError:
            raise DataError(f"{path}:{line}: an exponent is not an integer") from None
        if len(table[row[0]]) != len(dims):
            raise DataError(f"{path}:{line}: {len(table[row[0]])} exponents, {len(dims)} base units")
    for name, text in UNITS_CORRECTIONS.items():
        table[name] = [int(c) for c in text.split(",")]
    return table, dims


def units_file(p, target="target", table=None):
    """The text of a dmci search --units file for problem p: a row per variable and one for the target (named as
    the benchmark's data names it) with the units of the law's output. DataError when the table lacks a name."""
    table, dims = table or load_units()
    lines = ["name," + ",".join(dims)]
    for name, as_name in [(v, v) for v in p.variables] + [(p.output, target)]:
        if name not in table:
            raise DataError(f"{p.name}: units.csv has no row for '{name}'")
        lines.append(as_name + "," + ",".join(str(e) for e in table[name]))
    return "\n".join(lines) + "\n"
