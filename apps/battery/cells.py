"""Battery worked case: a seeded generator of synthetic capacity-fade cells, and a loader for real cells.

The published cells (Severson et al. 2019) are not available to this build, so the case runs on SYNTHETIC cells
made here, from the two-reservoir minimum model

    Q(k) = q0 · min(1 − a·√k, 1 − c·k)        (k = cycle, 1..100)

whose knee sits where a·√k = c·k, i.e. k* = (a/c)². The nominal cell has q0 = 1, c = 0.002 (80% of q0 left at
cycle 100) and a = c·√55 (knee at cycle 55). Each cell draws its own q0, a and c as the nominal value times
(1 + 0.10·u), u uniform in [−1, 1] (per-cell jitter of up to 10% on each parameter; the knee then
falls between cycles 37 and 82); every observation adds
Gaussian noise of SD 2e-3. Everything comes from one `random.Random(seed)`, so a seed gives the same cells.

Real data can be loaded from a long CSV with the header `cell,cycle,capacity` (one row per cell and cycle).
"""
import csv
import math
import random

NOMINAL = {"q0": 1.0, "a": 0.002 * math.sqrt(55.0), "c": 0.002}
JITTER = 0.10
NOISE_SD = 2e-3


def generate(seed=20261201, cells=12, cycles=100):
    """{cell name: {"params": {q0, a, c, knee}, "cycle": [1..cycles], "capacity": [...]}}."""
    if cells < 1 or cycles < 2:
        raise ValueError("need at least 1 cell and 2 cycles")
    rng = random.Random(seed)
    out = {}
    for n in range(cells):
        p = {k: v * (1 + JITTER * rng.uniform(-1, 1)) for k, v in NOMINAL.items()}
        p["knee"] = (p["a"] / p["c"]) ** 2
        ks = list(range(1, cycles + 1))
        q = [p["q0"] * min(1 - p["a"] * math.sqrt(k), 1 - p["c"] * k) + rng.gauss(0, NOISE_SD) for k in ks]
        out[f"cell{n + 1:02d}"] = {"params": p, "cycle": ks, "capacity": q}
    return out


def write_csv(path, cells):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["cell", "cycle", "capacity"])
        for name, c in cells.items():
            for k, q in zip(c["cycle"], c["capacity"]):
                w.writerow([name, k, repr(q)])


class BadData(Exception):
    pass


def load_csv(path, min_cycles=10):
    """Reads a long CSV `cell,cycle,capacity`: {cell: {"cycle": [...], "capacity": [...]}}, cycles ascending.
    Raises BadData, saying the file and line, for: a missing or wrong header, a short row, a value that is not a
    number (or not finite), a non-integer or non-positive cycle, a repeated (cell, cycle), a cell with fewer than
    `min_cycles` rows, an empty file."""
    try:
        f = open(path, newline="")
    except OSError as e:
        raise BadData(f"{path}: cannot read ({e.strerror})")
    with f:
        rows = list(csv.reader(f))
    if not rows:
        raise BadData(f"{path}: empty file (expected a header cell,cycle,capacity)")
    head = [h.strip().lower() for h in rows[0]]
    if head != ["cell", "cycle", "capacity"]:
        raise BadData(f"{path}:1: expected the header cell,cycle,capacity, got {','.join(rows[0])}")
    cells = {}
    for line, r in enumerate(rows[1:], 2):
        if not r or all(not x.strip() for x in r):
            continue
        if len(r) != 3:
            raise BadData(f"{path}:{line}: expected 3 fields (cell,cycle,capacity), got {len(r)}")
        name = r[0].strip()
        if not name:
            raise BadData(f"{path}:{line}: empty cell name")
        try:
            cyc, cap = float(r[1]), float(r[2])
        except ValueError:
            raise BadData(f"{path}:{line}: cycle and capacity must be numbers, got {r[1]!r}, {r[2]!r}")
        if not (math.isfinite(cyc) and math.isfinite(cap)):
            raise BadData(f"{path}:{line}: cycle and capacity must be finite")
        if cyc != int(cyc) or cyc < 1:
            raise BadData(f"{path}:{line}: cycle must be a positive integer, got {r[1]!r}")
        c = cells.setdefault(name, {})
        if int(cyc) in c:
            raise BadData(f"{path}:{line}: cell {name} cycle {int(cyc)} appears twice")
        c[int(cyc)] = cap
    if not cells:
        raise BadData(f"{path}: no data rows")
    out = {}
    for name, c in cells.items():
        if len(c) < min_cycles:
            raise BadData(f"{path}: cell {name} has {len(c)} cycles; at least {min_cycles} are needed")
        ks = sorted(c)
        out[name] = {"cycle": ks, "capacity": [c[k] for k in ks]}
    return out
