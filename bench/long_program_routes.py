#!/usr/bin/env python3
"""Times whole `dmci run` processes on long generated programs by the direct, dmci and dmci2 (tower) routes.

  long_program_routes.py [--tool build/dmci] [--sizes 1000,2000,...] [--tower-sizes 1000,4000] [--json F]

Each program is `gen_long_program.py defines N` (N top-level defines, one letrec* frame for mce.scm). Each cell
is one run of the whole process, default budgets, wall time; the start-up is one run of the program `1` by the
direct route. The table gives dmci / (direct + start-up), the ratio that the acceptance of the dmci route's
length bound (40,000 defines under 3 s, within 3x of direct plus its start-up; the tower on 4,000 defines under
10 s) is read from. Every route's printed value must equal the direct route's, or the script fails: that part
is what the ctest smoke (`--sizes 500 --tower-sizes 500`) checks; it judges no time. Times come from one run on
whatever load the machine has: say so where they are quoted.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_long_program  # noqa: E402


def run(tool, path, route):
    """(seconds, printed value) of one `dmci run PATH --via ROUTE`; exits on an error."""
    t0 = time.perf_counter()
    p = subprocess.run([tool, "run", path, "--via", route], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("%s --via %s failed: %s" % (path, route, (p.stderr or p.stdout).strip()))
    return dt, p.stdout.strip()


def sizes(text):
    return [int(s) for s in text.split(",") if s]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", default=os.path.join(HERE, "..", "build", "dmci"))
    ap.add_argument("--sizes", type=sizes, default=sizes("1000,2000,4000,10000,20000,40000"))
    ap.add_argument("--tower-sizes", type=sizes, default=sizes("1000,4000"))
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one.scm")
        with open(one, "w") as f:
            f.write("1\n")
        startup, _ = run(a.tool, one, "direct")
        for n in sorted(set(a.sizes) | set(a.tower_sizes)):
            path = os.path.join(tmp, "defines_%d.scm" % n)
            with open(path, "w") as f:
                f.write(gen_long_program.defines(n))
            row = {"defines": n}
            direct, value = run(a.tool, path, "direct")
            row["direct_s"] = direct
            routes = (["dmci"] if n in a.sizes else []) + (["dmci2"] if n in a.tower_sizes else [])
            for route in routes:
                t, v = run(a.tool, path, route)
                if v != value:
                    sys.exit("defines %d: --via %s printed %s, direct printed %s" % (n, route, v, value))
                row[route + "_s"] = t
            if "dmci_s" in row:
                row["dmci_over_direct_plus_startup"] = row["dmci_s"] / (direct + startup)
            rows.append(row)
    print("start-up (direct route, the program `1`): %.3f s" % startup)
    print("| defines | direct | dmci | dmci / (direct + start-up) | dmci2 (tower) |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    cell = lambda r, k, fmt="%.2f s": fmt % r[k] if k in r else "-"
    for r in rows:
        print("| {:,} | {} | {} | {} | {} |".format(r["defines"], cell(r, "direct_s"), cell(r, "dmci_s"),
                                                  cell(r, "dmci_over_direct_plus_startup", "%.1fx"), cell(r, "dmci2_s")))
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            json.dump({"startup_s": startup, "rows": rows}, f, indent=1)
        os.replace(a.json + ".tmp", a.json)


if __name__ == "__main__":
    main()
