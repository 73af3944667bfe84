#!/usr/bin/env python3
"""Writes corpus/manifest.json from the pair specifications below.

Each program lists its seeds; closed-form values and gradient entries are
computed here from the textbook formulas (hand-derived derivatives, 50-digit
mpmath), never copied from the engines. Literal keys are found by locating the
literal's text in the program file ("file:line:col", 1-based, file relative to
corpus/). Run from anywhere: python3 corpus/tools/gen_manifest.py
"""
import json
import os
import re
import sys

from mpmath import mp, mpf, exp, log, sqrt, sin, cos, tan, atan, pi, tanh, cosh, asin, matrix

mp.dps = 50
CORPUS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PI = mpf("3.141592653589793")  # the literal the programs use for pi


def lit(path, needle, occurrence=1):
    """The key "path:line:col" of the occurrence-th (-1: last) token `needle` in corpus/path."""
    with open(os.path.join(CORPUS, path)) as f:
        lines = f.read().split("\n")
    seen = 0
    hits = []
    pat = re.compile(r"(?<![^\s('`,@])" + re.escape(needle) + r"(?=[\s()]|$)")
    for i, line in enumerate(lines):
        code = line.split(";", 1)[0] if not line.lstrip().startswith(";") else ""
        for m in pat.finditer(code):
            seen += 1
            hits.append("%s:%d:%d" % (path, i + 1, m.start() + 1))
            if seen == occurrence:
                return hits[-1]
    if occurrence == -1 and hits:
        return hits[-1]
    raise SystemExit("literal %r (occurrence %d) not found in %s" % (needle, occurrence, path))


PAIRS = []


def prog(path, family, seeds, wrt=None, literals=True, cf=None, cv=None, note=None,
         routes=None, expect="pass", lanes=None):
    """Adds one pair per seed. cf(s, L) -> {key: value}; cv(s) -> value; s has mpf values.
    lanes: {name: [values]} run as one batch and lane by lane (the same for every seed)."""
    if not os.path.exists(os.path.join(CORPUS, path)):
        raise SystemExit("missing program " + path)
    L = lambda needle, occ=1: lit(path, needle, occ)
    for i, seed in enumerate(seeds, 1):
        s = {k: mpf(v) for k, v in seed.items()}
        pair = {
            "name": "%s/%d" % (path[:-4], i),
            "file": path,
            "family": family,
            "bind": {k: (float(v) if isinstance(v, float) else v) for k, v in seed.items()},
            "wrt": list(wrt) if wrt is not None else sorted(seed.keys()),
            "literals": literals,
            "expect": expect,
        }
        if cf is not None:
            pair["closed_form"] = {k: float(v) for k, v in cf(s, L).items()}
        if cv is not None:
            pair["closed_value"] = float(cv(s))
        if routes is not None:
            pair["routes"] = routes
        if note:
            pair["note"] = note
        if lanes:
            pair["lanes"] = {k: [float(x) for x in v] for k, v in lanes.items()}
        PAIRS.append(pair)


here = os.path.dirname(os.path.abspath(__file__))
for part in sorted(os.listdir(here)):
    if part.startswith("spec_") and part.endswith(".py"):
        with open(os.path.join(here, part)) as f:
            exec(compile(f.read(), part, "exec"))

names = [p["name"] for p in PAIRS]
dups = {n for n in names if names.count(n) > 1}
if dups:
    raise SystemExit("duplicate names: %s" % sorted(dups))
with open(os.path.join(CORPUS, "manifest.json"), "w") as f:
    json.dump({"version": 1, "pairs": PAIRS}, f, indent=2)
    f.write("\n")
fams = {}
for p in PAIRS:
    fams[p["family"]] = fams.get(p["family"], 0) + 1
print("%d pairs: %s" % (len(PAIRS), ", ".join("%s %d" % kv for kv in sorted(fams.items()))),
      file=sys.stderr)
