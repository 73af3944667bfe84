"""Running the built `dmci` for the worked cases (ci/apps, apps/enso_case.py, apps/battery_case.py) and reading
what it writes: a command's output or a clear exit, `dmci fit --json`'s last line, a curve CSV, and JSON and table
numbers that stay readable when a value is not finite."""
import json
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, cwd, check=True, timeout=None):
    t = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    wall = time.monotonic() - t
    if check and p.returncode != 0:
        sys.exit(f"ci/apps: {' '.join(cmd[:12])}{' ...' if len(cmd) > 12 else ''} failed ({p.returncode}):\n"
                 f"{p.stderr.strip() or p.stdout.strip()}")
    return p, wall


def fit_json(dmci, cwd, args, check=True):
    p, _ = run([dmci, "fit"] + args + ["--json", "--quiet"], cwd, check=False)
    if p.returncode not in (0, 1) or not p.stdout.strip():
        if check:
            sys.exit(f"ci/apps: dmci fit {' '.join(args[:10])} ... failed: {p.stderr.strip() or p.stdout.strip()}")
        return None, (p.stderr.strip() or p.stdout.strip())
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def read_curve(path):
    with open(path) as f:
        lines = f.read().strip().split("\n")
    head = lines[0].split(",")
    return [dict(zip(head, ln.split(","))) for ln in lines[1:]]


def finite_json(x):
    """x with every NaN or infinite float replaced by None (strict JSON has no NaN)."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite_json(v) for v in x]
    return x


def fmt(x, f="%.4g"):
    return "n/a" if x is None or (isinstance(x, float) and not math.isfinite(x)) else f % x

