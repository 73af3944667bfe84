#!/usr/bin/env python3
"""The search's speed: evaluations per second, per core, of `dmci search` builds side by side on one problem.

  search_speed.py --dmci NAME=PATH [--dmci NAME=PATH ...] [--problem feynman_I_12_11] [--evals 3000]
                  [--jobs 1,2] [--reps 3] [--units] [--seed 1] [--out DIR]

Each build runs the same search (the rows drawn from the published ranges with the seed, the one-parameter seed
program, a fixed --evals budget) at each --jobs, --reps times, interleaved (build after build inside a repetition)
so that a load that comes and goes falls on every build alike. For each build and --jobs it reports the median
wall seconds, evaluations per second, evaluations per second per core (divided by --jobs) and the cores the
process kept busy (its CPU seconds over its wall seconds: near 2 at --jobs 2 means the search uses both cores).
Ratios against the first build are taken from the medians of this one run. Every repetition of a build at one
--jobs must report the same best program (the search is deterministic for any --jobs), or the script fails.

Writes OUT/search-speed.json and OUT/search-speed.md atomically. Times come from whatever load the machine has:
the load average at the start and the end are in the report. Exit status: 0 written; 1 a search failed or was not
deterministic; 2 bad input (an unknown problem, a build that does not run).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench", "search"))
import problems  # noqa: E402


def atomic_write(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp.", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_inputs(p, seed, rows, units, work):
    """data.csv, seed.scm and (with units) units.csv for problem p, as ci/search-bench writes them."""
    train, _, _ = problems.draw(p, rows, 0.0, seed, 1)
    with open(os.path.join(work, "data.csv"), "w") as f:
        f.write(",".join(p.variables + ["target"]) + "\n")
        for x, y in train:
            f.write(",".join(repr(float(v)) for v in list(x) + [y]) + "\n")
    param = next(c for c in ["a", "c0", "k0", "p0"] if c not in p.variables)
    with open(os.path.join(work, "seed.scm"), "w") as f:
        f.write(param + "\n")
    if units:
        with open(os.path.join(work, "units.csv"), "w") as f:
            f.write(problems.units_file(p, "target"))


def one_search(path, work, jobs, args):
    """(wall seconds, CPU seconds, evaluations, best program) of one search; exits 1 when it fails."""
    out = os.path.join(work, "out")
    cmd = [path, "search", "--data", "data.csv", "--target", "target", "--seed-program", "seed.scm", "--seed",
           str(args.seed), "--jobs", str(jobs), "--evals", str(args.evals), "--out", out, "--json", "--quiet"]
    if args.units:
        cmd += ["--units", "units.csv"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode not in (0, 1):
        sys.stderr.write(f"search_speed: {path} --jobs {jobs} exited {r.returncode}: {r.stderr.strip()[-400:]}\n")
        sys.exit(1)
    j = json.loads(r.stdout)
    return wall, cpu, int(j["evaluations"]), j["best"]["program"]


def markdown(report):
    s = report["settings"]
    lines = [
        "# `dmci search`: evaluations per second per core (bench/search_speed.py)", "",
        f"Command: `{report['command']}`", "",
        f"Problem {s['problem']} (`{s['law']}`), {s['rows']} rows, {s['evals']:,} evaluations a search"
        f"{', with units' if s['units'] else ''}, seed {s['seed']}, {s['reps']} repetitions interleaved; "
        f"load average {report['load_average'][0]:.1f} at the start and {report['load_average'][1]:.1f} at the end "
        f"on {report['cpus']} CPUs. Medians of the repetitions; ratios against `{report['builds'][0]}` from this run.",
        "",
        "| build | --jobs | wall s | evaluations/s | evaluations/s per core | cores busy | per core vs first |",
        "|---|---:|---:|---:|---:|---:|---:|"]
    for row in report["rows"]:
        lines.append(f"| {row['build']} | {row['jobs']} | {row['wall_seconds']:.2f} | {row['evals_per_second']:.0f} | "
                     f"{row['evals_per_second_per_core']:.0f} | {row['cores_busy']:.2f} | "
                     f"{row['per_core_vs_first']:.2f}x |")
    lines += ["", "Best program of each build (the same at every --jobs and repetition):", ""]
    for b, prog in report["best"].items():
        lines.append(f"- {b}: `{prog}`")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[2:]))
    ap.add_argument("--dmci", action="append", required=True, metavar="NAME=PATH",
                    help="a build to time (repeat it; the first is the reference of the ratios)")
    ap.add_argument("--problem", default="feynman_I_12_11", help="a problem of bench/search/data")
    ap.add_argument("--evals", type=int, default=3000, help="evaluations a search")
    ap.add_argument("--jobs", default="1,2", help="--jobs values, comma-separated")
    ap.add_argument("--reps", type=int, default=3, help="repetitions (interleaved)")
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--units", action="store_true", help="give the search the variables' units")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=".", help="report folder")
    args = ap.parse_args()

    builds = []
    for spec in args.dmci:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            ap.error(f"--dmci takes NAME=PATH, not {spec!r}")
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            ap.error(f"--dmci {name}: {path!r} is not an executable file")
        builds.append((name, os.path.abspath(path)))
    if len({n for n, _ in builds}) != len(builds):
        ap.error("--dmci names must differ")
    try:
        jobs = [int(j) for j in args.jobs.split(",") if j]
    except ValueError:
        ap.error(f"--jobs takes integers, not {args.jobs!r}")
    if not jobs or min(jobs) < 1 or args.reps < 1 or args.evals < 1:
        ap.error("--jobs, --reps and --evals must be positive")
    byname = {p.name: p for p in problems.load_all()}
    if args.problem not in byname:
        ap.error(f"unknown problem {args.problem!r} (names as in ci/search-bench --problems)")
    p = byname[args.problem]
    os.makedirs(args.out, exist_ok=True)

    load0 = os.getloadavg()[0]
    samples = {}  # (build, jobs) -> [(wall, cpu, evals, best)]
    with tempfile.TemporaryDirectory() as work:
        write_inputs(p, args.seed, args.rows, args.units, work)
        for rep in range(args.reps):
            for j in jobs:
                for name, path in builds:
                    s = one_search(path, work, j, args)
                    samples.setdefault((name, j), []).append(s)
                    sys.stderr.write(f"search_speed: [{rep + 1}/{args.reps}] {name} --jobs {j}: {s[2]:,} "
                                     f"evaluations in {s[0]:.2f} s ({s[2] / s[0]:.0f}/s)\n")
    load1 = os.getloadavg()[0]

    rows, best, status = [], {}, 0
    first = {}
    for name, _ in builds:
        for j in jobs:
            ss = samples[(name, j)]
            programs = {b for _, _, _, b in ss}
            best.setdefault(name, set()).update(programs)
            wall = statistics.median(w for w, _, _, _ in ss)
            evals = statistics.median(e for _, _, e, _ in ss)
            cpu = statistics.median(c for _, c, _, _ in ss)
            rate = evals / wall
            rows.append({"build": name, "jobs": j, "wall_seconds": wall, "evaluations": evals,
                         "evals_per_second": rate, "evals_per_second_per_core": rate / j, "cores_busy": cpu / wall})
    for row in rows:
        first.setdefault(row["jobs"], row["evals_per_second_per_core"])
        row["per_core_vs_first"] = row["evals_per_second_per_core"] / first[row["jobs"]]
    for name, programs in best.items():
        if len(programs) != 1:
            sys.stderr.write(f"search_speed: {name} found different best programs across --jobs and repetitions: "
                             f"{sorted(programs)}\n")
            status = 1
    report = {"command": shown_command(sys.argv),
              "settings": {"problem": p.name, "law": p.law_text, "rows": args.rows, "evals": args.evals,
                           "units": args.units, "seed": args.seed, "reps": args.reps, "jobs": jobs},
              "builds": [n for n, _ in builds], "load_average": [load0, load1], "cpus": os.cpu_count(),
              "rows": rows, "best": {n: sorted(b)[0] for n, b in best.items()},
              "deterministic": status == 0}
    atomic_write(os.path.join(args.out, "search-speed.json"), json.dumps(report, indent=1) + "\n")
    atomic_write(os.path.join(args.out, "search-speed.md"), markdown(report))
    sys.stderr.write(f"search_speed: wrote {os.path.join(args.out, 'search-speed.md')} and .json\n")
    if status == 0:
        sys.stderr.write("search_speed: every build found one best program at every --jobs and repetition\n")
    return status


def display(path):
    """A path as the report shows it: relative to the project inside it, else its last two parts (no machine's
    folders in a report that may be committed)."""
    a = os.path.abspath(path)
    if a == ROOT or a.startswith(ROOT + os.sep):
        return os.path.relpath(a, ROOT)
    return os.path.join("...", *a.split(os.sep)[-2:])


def shown_command(argv):
    """The command line with every absolute path shortened (NAME=PATH of --dmci too)."""
    out = ["bench/search_speed.py"]
    for w in argv[1:]:
        if "=" in w and os.path.isabs(w.split("=", 1)[1]):
            k, v = w.split("=", 1)
            out.append(k + "=" + display(v))
        else:
            out.append(display(w) if os.path.isabs(w) else w)
    return " ".join(out)


if __name__ == "__main__":
    sys.exit(main())
