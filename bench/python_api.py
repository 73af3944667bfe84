#!/usr/bin/env python3
"""What DMCI costs from Python, set against the same work from C, from C++ and from the command line, in one run:

  - one seed's value and gradient of `(* alpha (* x x))`: Program.value_and_grad (with and without out=) vs
    dmci_value_gradient from C (bench/capi_call.c), and the CLI per call (`dmci grad --json`, a process each);
  - B = 65,536 lanes: Program.lanes (into out= buffers) vs dmci_lanes from C vs the C++ bench's figure for the same
    engine and route (replay_bench's BM_Replay/alpha_x2/<engine>/65536, through the engine seam).

Each figure is the best of 5 timed loops, each loop's mean per call (the C++ bench: the best of 5 repetitions,
each Google Benchmark's mean). Run with Debian's python3 on a build tree:

  /usr/bin/python3 bench/python_api.py --build build [--engine replay] [--route dmci] [--json out.json]
"""

import argparse
import json
import os
import subprocess
import sys
import time


def best_of(n_rep, body):
    best = float("inf")
    for _ in range(n_rep):
        t0 = time.perf_counter()
        body()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--engine", default="replay")
    ap.add_argument("--route", default="dmci")
    ap.add_argument("--calls", type=int, default=200000)
    ap.add_argument("--lanes", type=int, default=65536)
    ap.add_argument("--lane-calls", type=int, default=50, help="batches per timed loop")
    ap.add_argument("--cli-calls", type=int, default=20)
    ap.add_argument("--json")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    sys.path.insert(0, os.path.join(build, "python"))
    import numpy as np

    import dmci

    src = "(* alpha (* x x))"
    out = {"program": src, "engine": a.engine, "route": a.route, "lanes": a.lanes}

    c = subprocess.run([os.path.join(build, "capi_call"), a.route, a.engine, str(a.calls), str(a.lanes),
                        str(a.lane_calls)], capture_output=True, text=True, check=True)
    cj = json.loads(c.stdout)
    out["c_value_gradient_ns"] = cj["value_gradient_ns"]
    out["c_lanes_ms"] = cj["lanes_ms"]

    prog = dmci.Program(src, route=a.route, engine=a.engine)
    params, g = np.array([1.5, 2.0]), np.empty(2)
    n = a.calls

    def loop_out():
        for _ in range(n):
            prog.value_and_grad(params, out=g)

    def loop_plain():
        for _ in range(n):
            prog.value_and_grad(params)

    out["py_value_gradient_ns"] = best_of(5, loop_out) / n * 1e9
    out["py_value_gradient_new_array_ns"] = best_of(5, loop_plain) / n * 1e9
    out["py_minus_c_ns"] = out["py_value_gradient_ns"] - out["c_value_gradient_ns"]

    P = np.empty((a.lanes, 2))
    P[:, 0] = 1.5
    P[:, 1] = -1.0 + 2.0 * np.arange(a.lanes) / a.lanes
    bufs = (np.empty(a.lanes), np.empty((a.lanes, 2)))
    prog.lanes(P, out=bufs)  # warm: the traces recorded
    def loop_lanes():
        for _ in range(a.lane_calls):
            prog.lanes(P, out=bufs)

    out["py_lanes_ms"] = best_of(5, loop_lanes) / a.lane_calls * 1e3
    out["py_over_c_lanes"] = out["py_lanes_ms"] / out["c_lanes_ms"]

    bench = os.path.join(build, "replay_bench")
    if os.path.exists(bench):
        env = dict(os.environ, DMCI_REPLAY_ROUTE=a.route)
        r = subprocess.run([bench, "--benchmark_filter=^BM_Replay/alpha_x2/%s/%d/real_time$" % (a.engine, a.lanes),
                            "--benchmark_format=json", "--benchmark_repetitions=5"],
                           capture_output=True, text=True, env=env)
        try:
            rows = [b for b in json.loads(r.stdout)["benchmarks"] if b.get("run_type") == "iteration"]
            scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[rows[0]["time_unit"]]
            out["cpp_bench_lanes_ms"] = min(b["real_time"] for b in rows) * scale
            out["py_over_cpp_lanes"] = out["py_lanes_ms"] / out["cpp_bench_lanes_ms"]
        except (ValueError, KeyError, IndexError):
            out["cpp_bench_error"] = (r.stderr or r.stdout)[-300:]

    tool = os.path.join(build, "dmci")
    cmd = [tool, "grad", "-e", src, "--bind", "alpha=1.5", "--bind", "x=2", "--via", a.route, "--engine", a.engine,
           "--wrt", "alpha,x", "--json"]
    times = []
    for _ in range(a.cli_calls):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    times.sort()
    out["cli_per_call_ms"] = times[len(times) // 2] * 1e3
    out["cli_over_py"] = out["cli_per_call_ms"] * 1e6 / out["py_value_gradient_ns"]

    text = json.dumps(out, indent=1)
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
