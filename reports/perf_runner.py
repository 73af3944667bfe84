"""Runs Google Benchmark suites for the performance report (perf_report.py): one process at a time, the two
builds' processes alternating, every repetition's time and engine counts kept; the cachegrind workload; and the
fingerprint of a build (the machine, the compiler and its flags, LibTorch, the binaries' hashes)."""
import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import tempfile

# The engines' counters that do not drift (bench/*.cpp): the gate compares them exactly.
COUNTS = ("steps", "tape", "heap", "instrs", "groups", "splits", "syncs", "torch_ops")
SUITES_FULL = ("latency_bench", "compile_bench", "threads_bench", "batch_bench")
WALL_TIME_SUITES = ("batch_bench", "threads_bench")  # they time wall clock (UseRealTime, threads)
QUICK_FILTER = r"^BM_Latency/(alpha_x2|a_bx2|poly3|twice|compose)/(direct|dmci)$|^BM_Depth/sum/(direct|dmci)/"
REPS_PER_PROCESS = 3  # repetitions in each process; the rounds alternate processes of the two builds
FULL_REPS = 9  # repetitions per benchmark and build: the U test needs about 9 (compare.py)
QUICK_REPS, QUICK_MIN_TIME = 15, "0.05"  # short repetitions, more of them: more power on a noisy machine

# The cachegrind workload: short and fixed, through the evaluator (dmci route) with its gradient.
WORKLOAD = ["grad", "--via", "dmci", "--json", "--stats", "-b", "x=0.5", "-e",
            "(define (poly x n) (if (= n 0) 1 (+ (* x (poly x (- n 1))) 1))) (poly x 40)"]


class CouldNotRun(Exception):
    """A build, a benchmark or a tool failed: the report exits 2."""


def run_suite(binary, out_json, reps, min_time, bench_filter, interleave=True, aggregates_only=False):
    """One process of a Google Benchmark binary; returns its JSON."""
    if not os.access(binary, os.X_OK):
        raise CouldNotRun(f"{binary}: not built")
    cmd = [binary, f"--benchmark_repetitions={reps}", "--benchmark_out_format=json", f"--benchmark_out={out_json}"]
    if interleave:
        cmd.append("--benchmark_enable_random_interleaving=true")
    if aggregates_only:
        cmd.append("--benchmark_report_aggregates_only=true")
    if min_time:
        cmd.append(f"--benchmark_min_time={min_time}")
    if bench_filter:
        cmd.append(f"--benchmark_filter={bench_filter}")
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise CouldNotRun(f"{' '.join(map(shlex.quote, cmd))} failed ({r.returncode}): {r.stderr.strip()[-400:]}")
    if not os.path.exists(out_json) or os.path.getsize(out_json) == 0:
        return {"context": {}, "benchmarks": []}  # the filter matched none of this binary's benchmarks
    with open(out_json) as f:
        return json.load(f)


def time_ns(b, field):
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
    return b[field] * scale


def add_samples(store, suite, gb):
    """Appends each repetition's time and counters of one process's JSON to store[suite][benchmark]."""
    field = "real_time" if suite in WALL_TIME_SUITES else "cpu_time"
    for b in gb.get("benchmarks", []):
        if b.get("run_type") != "iteration":
            continue
        s = store.setdefault(suite, {}).setdefault(b["run_name"], {"metric": field, "times": [], "counts": {},
                                                                    "counters": {}, "errors": []})
        if b.get("error_occurred"):
            s["errors"].append(b.get("error_message", "error"))
            continue
        s["times"].append(time_ns(b, field))
        for k, v in b.items():
            if k in COUNTS:  # counters come back as doubles: a count is written as the integer it is
                s["counts"].setdefault(k, []).append(int(v) if float(v).is_integer() else v)
            elif isinstance(v, (int, float)) and k in ("evals_per_s", "time_per_step", "speedup"):
                s["counters"].setdefault(k, []).append(v)


def cachegrind(dmci, runs=2):
    """Instructions retired by the workload under cachegrind, `runs` times (equal when deterministic), and the
    engine's counts from --stats."""
    if not os.access(dmci, os.X_OK):
        raise CouldNotRun(f"{dmci}: not built")
    irs, stats = [], None
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as d:
            cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={d}/cg.out", dmci]
            r = subprocess.run(cmd + WORKLOAD, capture_output=True, text=True)
        if r.returncode != 0:
            raise CouldNotRun(f"cachegrind on {dmci} failed ({r.returncode}): {r.stderr.strip()[-400:]}")
        m = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
        if not m:
            raise CouldNotRun(f"cachegrind printed no 'I refs' line for {dmci}")
        irs.append(int(m.group(1).replace(",", "")))
        stats = json.loads(r.stdout).get("stats", {})
    return {"instructions": irs, "stats": stats}


def measure(builds, suites, rounds, reps, min_time, bench_filter, scratch, log):
    """Runs the suites of both builds in rounds BASE HEAD, HEAD BASE, ... (alternating which starts, so a
    drift of the machine falls on both); returns {side: {suite: {benchmark: samples}}}."""
    samples = {"base": {}, "head": {}}
    for r in range(rounds):
        order = ("base", "head") if r % 2 == 0 else ("head", "base")
        for suite in suites:
            for side in order:
                out = os.path.join(scratch, f"{side}-{suite}-{r}.json")
                log(f"round {r + 1}/{rounds}: {side} {suite}")
                add_samples(samples[side], suite, run_suite(os.path.join(builds[side], suite), out, reps,
                                                            min_time, bench_filter))
    return samples


def fingerprint(build_dir, binaries):
    """What the timings depend on besides the code: the machine, the compiler and its flags, LibTorch."""
    cache = {}
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(r"([A-Za-z0-9_]+):[A-Z]+=(.*)", line.strip())
                if m:
                    cache[m.group(1)] = m.group(2)
    except OSError as e:
        raise CouldNotRun(f"{build_dir}: not configured ({e})")
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    cxx = cache.get("CMAKE_CXX_COMPILER", "c++")
    try:
        compiler = subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        compiler = cxx
    build_type = cache.get("CMAKE_BUILD_TYPE", "")
    flags = " ".join(x for x in (cache.get("CMAKE_CXX_FLAGS", ""),
                                 cache.get(f"CMAKE_CXX_FLAGS_{build_type.upper()}", "")) if x)
    torch = "off"
    if cache.get("DMCI_TENSOR", "ON") == "ON":
        q = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libtorch-dev"], capture_output=True, text=True)
        torch = q.stdout.strip() or cache.get("Torch_DIR", "unknown")
    planted = {k: v for k, v in cache.items() if k.startswith("DMCI_PLANT") and v not in ("", "0", "OFF")}
    machine = {"cpu": cpu, "cores": os.cpu_count(), "arch": platform.machine(), "compiler": compiler,
               "build_type": build_type, "flags": flags, "libtorch": torch}
    fid = hashlib.sha256(json.dumps(machine, sort_keys=True).encode()).hexdigest()[:12]
    hashes = {}
    for b in binaries:
        p = os.path.join(build_dir, b)
        if os.path.exists(p):
            with open(p, "rb") as f:
                hashes[b] = hashlib.sha256(f.read()).hexdigest()
    return dict(machine, id=fid, planted=planted, binaries=hashes)
