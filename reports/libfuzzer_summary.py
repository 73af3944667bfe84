#!/usr/bin/env python3
"""The summary of one libFuzzer run (ci/libfuzzer): executions, executions per second, coverage, findings.

Reads the run's logs (fuzz.log, and fuzz-N.log of each worker when it ran with -jobs) and its artifact folder,
prints the summary, writes it as JSON (beside the log), and exits 1 on any finding: a crash (a sanitizer report,
a deadly signal, a failed check of the harness), a leak, a timeout, an out-of-memory, or a fuzzer that exited
non-zero for a reason the log does not name. A finding is counted from the artifacts libFuzzer saved and from
the reports in the log, whichever says more, so a report without its artifact still fails the run.

  libfuzzer_summary.py --name NAME --log FILE [--log FILE ...] --artifacts DIR --exit-code RC
                       [--seconds S | --runs N --seed S] [--jobs J] --json OUT
"""
import argparse
import json
import os
import re
import sys

# libFuzzer's artifact prefixes, by the kind of finding they hold (slow-unit- is not a finding).
ARTIFACTS = {"crash-": "crashes", "leak-": "leaks", "timeout-": "timeouts", "oom-": "ooms"}
# The reports in a log that name a finding, by kind.
REPORTS = {
    "crashes": re.compile(r"==\d+==ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer)|: runtime error: |"
                          r"==\d+== ERROR: libFuzzer: deadly signal|ERROR: libFuzzer: fuzz target exited|"
                          r"==\d+== ERROR: libFuzzer: fuzz target overwrites"),
    "leaks": re.compile(r"==\d+==ERROR: LeakSanitizer"),
    "timeouts": re.compile(r"==\d+== ERROR: libFuzzer: timeout after"),
    "ooms": re.compile(r"==\d+== ERROR: libFuzzer: out-of-memory"),
}
STAT = re.compile(r"^stat::(\w+):\s+(\d+)")
PROGRESS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")


def read_log(path):
    """One log's figures: its final stats, its last progress line, and which kinds of finding it reports."""
    out = {"stats": {}, "executions": 0, "cov": 0, "ft": 0, "corpus": 0, "reports": {k: 0 for k in REPORTS}}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = STAT.match(line)
            if m:
                out["stats"][m.group(1)] = int(m.group(2))
            m = PROGRESS.match(line)
            if m:
                out["executions"] = max(out["executions"], int(m.group(1)))
                out["cov"], out["ft"], out["corpus"] = int(m.group(2)), int(m.group(3)), int(m.group(4))
            for kind, pattern in REPORTS.items():
                if pattern.search(line):
                    out["reports"][kind] = 1  # a fuzzer process stops at its first finding
    return out


def summarize(name, logs, artifacts, exit_code, seconds=None, jobs=1, runs=None, seed=None):
    """The run's summary as a dict; summary["findings"]["total"] > 0 when the run found anything."""
    parsed = [read_log(p) for p in logs if os.path.exists(p)]
    saved = {kind: [] for kind in ARTIFACTS.values()}
    if os.path.isdir(artifacts):
        for entry in sorted(os.listdir(artifacts)):
            for prefix, kind in ARTIFACTS.items():
                if entry.startswith(prefix):
                    saved[kind].append(os.path.join(artifacts, entry))
    # A run's executions: the final stats where the log has them, else its last progress line.
    executions = sum(p["stats"].get("number_of_executed_units", p["executions"]) for p in parsed)
    per_second = sum(p["stats"].get("average_exec_per_sec", 0) for p in parsed)
    findings = {}
    for kind in ARTIFACTS.values():
        findings[kind] = max(len(saved[kind]), sum(p["reports"][kind] for p in parsed))
    named = sum(findings.values())
    findings["other"] = 1 if exit_code != 0 and named == 0 else 0
    findings["total"] = named + findings["other"]
    return {
        "harness": name,
        "seconds": seconds,
        "runs": runs,
        "seed": seed,
        "jobs": jobs,
        "executions": executions,
        "executions_per_second": per_second,
        "coverage": {"edges": max((p["cov"] for p in parsed), default=0),
                     "features": max((p["ft"] for p in parsed), default=0),
                     "corpus_units": max((p["corpus"] for p in parsed), default=0)},
        "new_units_added": sum(p["stats"].get("new_units_added", 0) for p in parsed),
        "peak_rss_mb": max((p["stats"].get("peak_rss_mb", 0) for p in parsed), default=0),
        "fuzzer_exit_code": exit_code,
        "findings": findings,
        "artifacts": [path for kind in ARTIFACTS.values() for path in saved[kind]],
        "logs": list(logs),
    }


def budget(s):
    if s.get("runs") is not None:
        return f"{s['runs']} runs from seed {s['seed']}"
    return f"{s['seconds']} s"


def describe(s):
    f, c = s["findings"], s["coverage"]
    lines = [
        f"libFuzzer {s['harness']}: {s['executions']} executions, {s['executions_per_second']} exec/s "
        f"({budget(s)}, {s['jobs']} job(s)), coverage {c['edges']} edges, {c['features']} features, "
        f"corpus {c['corpus_units']} units, peak RSS {s['peak_rss_mb']} MB",
        f"findings: {f['crashes']} crashes, {f['leaks']} leaks, {f['timeouts']} timeouts, {f['ooms']} out-of-memory, "
        f"{f['other']} other (fuzzer exit code {s['fuzzer_exit_code']})",
    ]
    lines += [f"  reproducer: {p}" for p in s["artifacts"]]
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", required=True)
    ap.add_argument("--log", action="append", required=True)
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--exit-code", type=int, required=True)
    ap.add_argument("--seconds", type=int)
    ap.add_argument("--runs", type=int)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", required=True)
    a = ap.parse_args(argv)
    s = summarize(a.name, a.log, a.artifacts, a.exit_code, a.seconds, a.jobs, a.runs, a.seed)
    tmp = a.json + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(s, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.json)
    print(describe(s))
    return 1 if s["findings"]["total"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
