#!/usr/bin/env python3
"""Performance regression reports: two builds' bench suites run interleaved, compared with statistics, with the
deterministic counts as the gate (ci/perf-report is the entry; ci/bench uses the same runner and count gate).

  perf_report.py compare --base-build DIR --head-build DIR --base-label L --head-label L [options]
      runs the suites of both builds interleaved (BASE HEAD HEAD BASE ..., Google Benchmark's random
      interleaving inside each process), runs the cachegrind workload on each, and writes
      OUT/<base>..<head>.md, .json and .svg plots; exit 0, 1 (a count changed, or a confident time
      regression of FAIL or more) or 2 (could not run).
  perf_report.py analyse SAMPLES.json [--out DIR]  the report again from the samples a compare run kept
  perf_report.py bench --build DIR --out DIR     one build's suites once (ci/bench), GB JSON per suite and merged
  perf_report.py counts BASELINE NEW             the count gate between two merged GB JSON files (ci/bench)
  perf_report.py baseline SAMPLES.json           stores a compare run's HEAD in reports/baselines/<fingerprint>/
  perf_report.py tally REPORT.json...            verdict counts over several runs (the acceptance runs)

Times are per-repetition CPU times (real time for the suites that measure wall time); the counts are the
benchmarks' engine counters, which must be equal in every repetition and on both sides.
"""
import argparse
import datetime
import json
import math
import os
import re
import shlex
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_plots  # noqa: E402
import perf_stats  # noqa: E402
from perf_runner import (COUNTS, FULL_REPS, QUICK_FILTER, QUICK_MIN_TIME, QUICK_REPS, REPS_PER_PROCESS,  # noqa: E402
                         SUITES_FULL, WORKLOAD, CouldNotRun, cachegrind, fingerprint, measure, run_suite)

SCHEMA = "dmci-perf-report/1"
RAW_SCHEMA = "dmci-perf-raw/1"
BASELINE_SCHEMA = "dmci-perf-baseline/1"


def write_atomic(path, text):
    """Writes the whole file or nothing: a temporary beside it, then a rename."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=os.path.basename(path))
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)  # a report is read by all, as a file written in place would be
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json(path, obj):
    write_atomic(path, json.dumps(obj, indent=1, sort_keys=False) + "\n")


# --- the analysis ---


def count_changes(base, head):
    """Exact comparison of the counts: ({changes}, {not deterministic}, benchmarks compared)."""
    changes, unstable, compared = [], [], 0
    for suite in base:
        for name, a in base[suite].items():
            b = head.get(suite, {}).get(name)
            if not b:
                continue
            compared += 1
            for k in sorted(set(a["counts"]) | set(b["counts"])):
                va, vb = sorted(set(a["counts"].get(k, []))), sorted(set(b["counts"].get(k, [])))
                if len(va) > 1 or len(vb) > 1:
                    unstable.append({"suite": suite, "benchmark": name, "count": k, "base": va, "head": vb})
                elif va != vb:
                    changes.append({"suite": suite, "benchmark": name, "count": k,
                                    "base": va[0] if va else None, "head": vb[0] if vb else None})
    return changes, unstable, compared


def cachegrind_changes(cg):
    """The cachegrind workload's instructions and engine counts, base against head."""
    if not cg or "base" not in cg or "head" not in cg:
        return [], []
    changes, unstable = [], []
    a, b = cg["base"], cg["head"]
    if len(set(a["instructions"])) > 1 or len(set(b["instructions"])) > 1:
        unstable.append({"benchmark": "cachegrind workload", "count": "instructions", "base": a["instructions"],
                         "head": b["instructions"]})
    elif a["instructions"][0] != b["instructions"][0]:
        changes.append({"suite": "cachegrind", "benchmark": "cachegrind workload", "count": "instructions",
                        "base": a["instructions"][0], "head": b["instructions"][0]})
    for k in sorted(set(a["stats"]) | set(b["stats"])):
        if a["stats"].get(k) != b["stats"].get(k):
            changes.append({"suite": "cachegrind", "benchmark": "cachegrind workload (dmci --stats)", "count": k,
                            "base": a["stats"].get(k), "head": b["stats"].get(k)})
    return changes, unstable


def repro(raw, name):
    """The command that measures one row again."""
    s = raw["settings"]
    cmd = ["ci/perf-report", raw["base"]["rev"], raw["head"]["rev"], "--filter", f"^{re.escape(name)}$",
           "--reps", str(s["rounds"] * s["reps_per_process"])]
    for side in ("base", "head"):
        if raw[side].get("cmake"):
            cmd += [f"--{side}-cmake", " ".join(raw[side]["cmake"])]
    if s.get("quick"):
        cmd.append("--quick")
    return " ".join(shlex.quote(c) for c in cmd)


def analyse(raw, floor=perf_stats.FLOOR, alpha=perf_stats.ALPHA, fail=perf_stats.FAIL):
    """The report (a dict, SCHEMA) from a raw record of samples."""
    base, head = raw["samples"]["base"], raw["samples"]["head"]
    flat_a, flat_b, suite_of, errors = {}, {}, {}, list(raw.get("errors", []))
    for suite in base:
        for name, a in base[suite].items():
            b = head.get(suite, {}).get(name)
            if b is None:
                continue
            for side, s in (("base", a), ("head", b)):
                for e in s["errors"]:
                    errors.append(f"{side} {name}: {e}")
            if a["times"] and b["times"]:
                flat_a[name], flat_b[name], suite_of[name] = a["times"], b["times"], suite
    rows = perf_stats.compare(flat_a, flat_b, floor, alpha)
    for r in rows:
        r["suite"] = suite_of[r["name"]]
        r["metric"] = base[r["suite"]][r["name"]]["metric"]
        r["fails"] = perf_stats.time_failure(r, fail)
        r["reproduce"] = repro(raw, r["name"])
    rows.sort(key=lambda r: -math.log(r["ratio"]) if r["ratio"] > 0 else 0)
    changes, unstable, compared = count_changes(base, head)
    cg_changes, cg_unstable = cachegrind_changes(raw.get("cachegrind"))
    changes += cg_changes
    unstable += cg_unstable
    suites = []
    for suite in sorted({r["suite"] for r in rows}):
        rs = [r for r in rows if r["suite"] == suite]
        suites.append({"suite": suite, "benchmarks": len(rs), "geomean_ratio": perf_stats.geomean(r["ratio"] for r in rs),
                       **{v: sum(r["verdict"] == v for r in rs) for v in perf_stats.VERDICTS}})
    could_run = bool(rows) and not errors
    code = perf_stats.exit_code(rows, changes, could_run, fail)
    return {
        "schema": SCHEMA,
        "date": raw.get("date"),
        "base": raw["base"],
        "head": raw["head"],
        "settings": dict(raw["settings"], floor=floor, alpha=alpha, fail=fail, min_reps=perf_stats.MIN_REPS,
                         interval="Moses (Hodges-Lehmann) 95% interval of the HEAD/BASE ratio, exact U critical value",
                         pvalue="Mann-Whitney U, two-sided (Google Benchmark compare.py calc_utest), Holm-adjusted"),
        "verdict": perf_stats.run_verdict([r["verdict"] for r in rows]),
        "exit_code": code,
        "counts": {"compared_benchmarks": compared, "changes": changes, "not_deterministic": unstable},
        "cachegrind": raw.get("cachegrind"),
        "suites": suites,
        "summary": {v: sum(r["verdict"] == v for r in rows) for v in perf_stats.VERDICTS},
        "time_failures": [r["name"] for r in rows if r["fails"]],
        "errors": errors,
        "rows": rows,
    }


# --- the report writer ---


def fmt_ns(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def fmt_count(v):
    return int(v) if isinstance(v, float) and v.is_integer() else v


def fmt_p(p):
    return "—" if p is None else f"{p:.2g}"


def medians_by(samples, prefix, counter=None):
    """{(series, x): median} for benchmarks named prefix/<series...>/<x>, of the time or of a counter."""
    out = {}
    for suite in samples.values():
        for name, s in suite.items():
            if not name.startswith(prefix) or not s["times"]:
                continue
            head, _, x = re.sub(r"/(real|manual)_time$", "", name).rpartition("/")  # UseRealTime's suffix
            if not x.isdigit():
                continue
            values = s["counters"].get(counter, []) if counter else s["times"]
            if values:
                out[(head[len(prefix):], int(x))] = float(np.median(values))
    return out


def plots(raw, report, stem):
    """Writes the SVG plots beside the report; returns [(title, file name)]."""
    written = []

    def put(suffix, title, svg):
        write_atomic(f"{stem}-{suffix}.svg", svg)
        written.append((title, f"{os.path.basename(stem)}-{suffix}.svg"))

    put("ratio", "HEAD/BASE time ratio per benchmark, with its 95% interval",
        perf_plots.ratio_plot(report["rows"], report["settings"]["floor"]))
    for prefix, suffix, title, xlabel, ylabel, counter in (
            ("BM_Depth/", "depth", "Latency against recursion depth", "recursion depth T", "time per evaluation (ns)",
             None),
            ("BM_Batch/", "throughput", "Throughput against B (tensor engine)", "lanes B", "evaluations per second",
             "evals_per_s")):
        series = {}
        for side in ("base", "head"):
            for (label, x), y in medians_by(raw["samples"][side], prefix, counter).items():
                series.setdefault(f"{label} {side}", []).append((x, y))
        if series:
            put(suffix, title, perf_plots.line_plot(title, xlabel, ylabel, dict(sorted(series.items()))))
    return written


def build_text(side):
    """`rev` and the CMake options it was built with, if any."""
    return " ".join([f"`{side['rev']}`"] + [f"`{o}`" for o in side.get("cmake", [])])


def markdown(report, plot_files):
    b, h, s = report["base"], report["head"], report["settings"]
    c = report["counts"]
    lines = [f"# Performance: {b['label']}..{h['label']}", "",
             f"**Verdict: {report['verdict']}**, exit code {report['exit_code']} "
             f"({'; '.join(reasons(report)) or 'no count changed, no confident time regression'}).", "",
             f"BASE {build_text(b)}, HEAD {build_text(h)}; "
             f"run {report['date']}. {s['rounds']} rounds of {s['reps_per_process']} repetitions per build "
             f"({s['rounds'] * s['reps_per_process']} per benchmark), processes interleaved BASE HEAD HEAD BASE …, "
             f"Google Benchmark's random interleaving inside each; "
             f"{'quick set' if s.get('quick') else 'full suites'}"
             f"{', filter `' + s['filter'] + '`' if s.get('filter') else ''}.", "",
             f"Ratio: HEAD/BASE time, the median of all pairwise ratios; interval: {s['interval']}; p: {s['pvalue']} "
             f"over the {len(report['rows'])} rows. Verdict per row: *regressed* / *improved* when p (Holm) < "
             f"{s['alpha']}, the interval excludes 1 and the ratio is beyond the {s['floor']:.0%} floor; *same* when "
             f"the interval lies inside the floor (or the change is significant but below it); *unknown* otherwise "
             f"(more repetitions needed, or fewer than {s['min_reps']}). The run fails (exit 1) on any count change, "
             f"or a row regressed with its whole interval above {1 + s['fail']:.2f}.", "",
             "## Summary", "",
             "| suite | benchmarks | geomean ratio | regressed | improved | same | unknown |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for x in report["suites"]:
        gm = f"{x['geomean_ratio']:.3f}" if x["geomean_ratio"] else "—"
        lines.append(f"| {x['suite']} | {x['benchmarks']} | {gm} | {x['regressed']} | {x['improved']} | "
                     f"{x['same']} | {x['unknown']} |")
    lines += ["", "## Deterministic counts (the gate)", ""]
    if c["changes"]:
        lines += ["| benchmark | count | BASE | HEAD |", "| --- | --- | --- | --- |"]
        lines += [f"| {x['benchmark']} | {x['count']} | {fmt_count(x['base'])} | {fmt_count(x['head'])} |"
                  for x in c["changes"]]
    else:
        lines.append(f"No count changed ({c['compared_benchmarks']} benchmarks' engine counts and the cachegrind "
                     "workload compared).")
    if c["not_deterministic"]:
        lines += ["", "Not deterministic (differ between repetitions of one build, so not gated): " +
                  ", ".join(f"{x['benchmark']} {x['count']}" for x in c["not_deterministic"])]
    cg = report.get("cachegrind") or {}
    if "base" in cg and "head" in cg:
        ia, ib = cg["base"]["instructions"][0], cg["head"]["instructions"][0]
        lines += ["", f"Cachegrind, `dmci {' '.join(shlex.quote(w) for w in WORKLOAD)}`: instructions retired "
                  f"BASE {ia:,}, HEAD {ib:,} ({ib / ia:.4f}×)."]
    if report["errors"]:
        lines += ["", "## Errors", ""] + [f"- {e}" for e in report["errors"]]
    lines += ["", "## Plots", ""] + [f"![{t}]({f})" for t, f in plot_files]
    lines += ["", "## Benchmarks, largest slowdown first", "",
              "| benchmark | BASE median | HEAD median | ratio | 95% interval | p | p (Holm) | verdict | reproduce |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in report["rows"]:
        hi = f"{r['high']:.3f}" if math.isfinite(r["high"]) else "∞"
        v = f"**{r['verdict']}**" if r["verdict"] in ("regressed", "improved") else r["verdict"]
        lines.append(f"| {r['name']} | {fmt_ns(r['base_median'])} | {fmt_ns(r['head_median'])} | {r['ratio']:.3f} | "
                     f"[{r['low']:.3f}, {hi}] | {fmt_p(r['p'])} | {fmt_p(r['p_adj'])} | {v} | `{r['reproduce']}` |")
    f = report["base"].get("fingerprint", {})
    lines += ["", "## Machine", "",
              f"Fingerprint `{f.get('id')}`: {f.get('cpu')}, {f.get('cores')} cores, {f.get('compiler')}, "
              f"{f.get('build_type')} `{f.get('flags')}`, LibTorch {f.get('libtorch')}. Binaries (sha256): "
              + "; ".join(f"{side} {k} `{v[:12]}`" for side in ("base", "head")
                          for k, v in report[side].get("fingerprint", {}).get("binaries", {}).items()) + "."]
    return "\n".join(lines) + "\n"


def reasons(report):
    out = []
    if report["counts"]["changes"]:
        names = sorted({x["benchmark"] for x in report["counts"]["changes"]})
        out.append(f"{len(report['counts']['changes'])} count changes in {len(names)} benchmarks")
    if report["time_failures"]:
        out.append("confident time regression ≥ {:.0%}: {}".format(report["settings"]["fail"],
                                                                   ", ".join(report["time_failures"])))
    if report["errors"] or not report["rows"]:
        out.append("could not run: " + ("; ".join(report["errors"]) or "no benchmark measured on both builds"))
    return out


def write_report(raw, out_dir, floor, alpha, fail):
    report = analyse(raw, floor, alpha, fail)
    stem = os.path.join(out_dir, f"{raw['base']['label']}..{raw['head']['label']}")
    files = plots(raw, report, stem)
    write_json(stem + ".json", report)
    write_atomic(stem + ".md", markdown(report, files))
    return report, stem


def save_baseline(raw, report, root):
    """The HEAD build's medians and counts under root/<fingerprint id>/, and the history plot there."""
    f = raw["head"]["fingerprint"]
    d = os.path.join(root, f["id"])
    medians = {n: float(np.median(s["times"])) for suite in raw["samples"]["head"].values()
               for n, s in suite.items() if s["times"]}
    counts = {n: {k: v[0] for k, v in s["counts"].items()} for suite in raw["samples"]["head"].values()
              for n, s in suite.items()}
    cg = (raw.get("cachegrind") or {}).get("head")
    write_json(os.path.join(d, f"{raw['date'][:10]}-{raw['head']['label']}.json"),
               {"schema": BASELINE_SCHEMA, "date": raw["date"], "rev": raw["head"]["rev"],
                "label": raw["head"]["label"], "fingerprint": {k: v for k, v in f.items() if k != "binaries"},
                "reps": report["settings"]["rounds"] * report["settings"]["reps_per_process"], "medians_ns": medians,
                "counts": counts, "cachegrind_instructions": cg["instructions"][0] if cg else None})
    history(d)


def history(d):
    """history.svg: every stored baseline's median time per benchmark, relative to the first baseline."""
    docs = []
    for name in sorted(os.listdir(d)):
        if name.endswith(".json"):
            with open(os.path.join(d, name)) as f:
                doc = json.load(f)
            if doc.get("schema") == BASELINE_SCHEMA:
                docs.append(doc)
    docs.sort(key=lambda x: x["date"])
    if not docs:
        return
    first = docs[0]["medians_ns"]
    names = sorted(n for n in first if all(n in x["medians_ns"] for x in docs))
    series = {"geomean": [(k + 1, perf_stats.geomean(x["medians_ns"][n] / first[n] for n in names) or 1.0)
                          for k, x in enumerate(docs)]}
    for n in names[:7]:
        series[n] = [(k + 1, x["medians_ns"][n] / first[n]) for k, x in enumerate(docs)]
    title = "Stored baselines: " + ", ".join(f"{k + 1}={x['label']}" for k, x in enumerate(docs))[:90]
    write_atomic(os.path.join(d, "history.svg"),
                 perf_plots.line_plot(title, "baseline (oldest first)", "median time ÷ first baseline's", series,
                                      logx=False, logy=True))


# --- commands ---


def cmd_compare(a):
    log = (lambda m: None) if a.quiet else (lambda m: print(f"perf-report: {m}", file=sys.stderr, flush=True))
    suites = ["latency_bench"] if a.quick else list(a.suites or SUITES_FULL)
    bench_filter = a.filter or (QUICK_FILTER if a.quick else "")
    reps = a.reps or (QUICK_REPS if a.quick else FULL_REPS)
    min_time = a.min_time or (QUICK_MIN_TIME if a.quick else "")
    rounds = max(1, math.ceil(reps / REPS_PER_PROCESS))
    raw = {"schema": RAW_SCHEMA, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "settings": {"quick": a.quick, "filter": bench_filter, "suites": suites, "rounds": rounds,
                        "reps_per_process": REPS_PER_PROCESS, "min_time": min_time},
           "errors": []}
    builds = {"base": a.base_build, "head": a.head_build}
    try:
        for side in ("base", "head"):
            raw[side] = {"label": getattr(a, f"{side}_label"), "rev": getattr(a, f"{side}_rev"),
                         "cmake": shlex.split(getattr(a, f"{side}_cmake") or ""),
                         "fingerprint": fingerprint(builds[side], suites + ["dmci"])}
        with tempfile.TemporaryDirectory(prefix="dmci-perf-") as scratch:
            raw["samples"] = measure(builds, suites, rounds, REPS_PER_PROCESS, min_time, bench_filter, scratch, log)
        if not a.no_cachegrind:
            log("cachegrind workload on both builds")
            raw["cachegrind"] = {side: cachegrind(os.path.join(builds[side], "dmci")) for side in ("base", "head")}
    except CouldNotRun as e:
        print(f"perf-report: could not run: {e}", file=sys.stderr)
        return 2
    report, stem = write_report(raw, a.out, a.floor, perf_stats.ALPHA, a.fail)
    write_json(a.raw or stem + "-samples.json", raw)  # `analyse` writes the report again from these
    if a.save_baseline:
        save_baseline(raw, report, a.baselines)
    print_summary(report, stem)
    return report["exit_code"]


def print_summary(report, stem):
    s = report["summary"]
    print(f"{report['base']['label']}..{report['head']['label']}: verdict {report['verdict']} "
          f"(regressed {s['regressed']}, improved {s['improved']}, same {s['same']}, unknown {s['unknown']}); "
          f"count changes {len(report['counts']['changes'])}; exit {report['exit_code']}")
    for x in report["counts"]["changes"][:20]:
        print(f"  count changed: {x['benchmark']}: {x['count']} {fmt_count(x['base'])} -> {fmt_count(x['head'])}")
    for r in report["rows"]:
        if r["verdict"] in ("regressed", "improved"):
            print(f"  {r['verdict']}: {r['name']} ratio {r['ratio']:.3f} [{r['low']:.3f}, {r['high']:.3f}] "
                  f"p(Holm) {r['p_adj']:.2g}")
    print(f"report: {stem}.md")


def cmd_analyse(a):
    with open(a.raw) as f:
        raw = json.load(f)
    report, stem = write_report(raw, a.out, a.floor, perf_stats.ALPHA, a.fail)
    print_summary(report, stem)
    return report["exit_code"]


def cmd_bench(a):
    """ci/bench: every suite of one build once, through the same runner; GB JSON per suite and merged."""
    context, benchmarks = {}, []
    try:
        for suite in a.suites or SUITES_FULL:
            print(f"\n== ci/bench: running {suite}", flush=True)
            gb = run_suite(os.path.join(a.build, suite), os.path.join(a.out, f"{suite}.json"), a.reps, a.min_time,
                           a.filter, interleave=False, aggregates_only=True)
            # One context, without the host's name and the binary's path, so that a baseline can be committed.
            context = context or {k: v for k, v in gb["context"].items() if k not in ("host_name", "executable")}
            benchmarks += gb["benchmarks"]
    except CouldNotRun as e:
        print(f"ci/bench: {e}", file=sys.stderr)
        return 2
    write_json(os.path.join(a.out, "bench-latest.json"),
               {"context": dict(context, dmci_commit=a.commit or "unknown"), "benchmarks": benchmarks})
    return 0


def gb_counts(path):
    """{suite: {benchmark: {counts: {k: [v]}}}} from a merged GB JSON (the medians, or every repetition)."""
    with open(path) as f:
        gb = json.load(f)
    out = {}
    for b in gb["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        s = out.setdefault(b["run_name"], {"counts": {}})
        for k in COUNTS:
            if k in b:
                s["counts"].setdefault(k, []).append(int(b[k]) if float(b[k]).is_integer() else b[k])
    return {"all": out}


def cmd_counts(a):
    changes, unstable, compared = count_changes(gb_counts(a.baseline), gb_counts(a.new))
    for x in changes:
        print(f"{x['benchmark']}: {x['count']} {x['base']} -> {x['head']}")
    for x in unstable:
        print(f"{x['benchmark']}: {x['count']} not deterministic (base {x['base']}, new {x['head']})")
    if not changes:
        print(f"no count changed ({compared} benchmarks compared)")
    return 1 if changes else 0


def cmd_baseline(a):
    """Stores a compare run's HEAD as a baseline, from its samples file."""
    with open(a.samples) as f:
        raw = json.load(f)
    save_baseline(raw, analyse(raw), a.baselines)
    print(f"stored {raw['head']['label']} under {a.baselines}/{raw['head']['fingerprint']['id']}/")
    return 0


def cmd_tally(a):
    """Verdict counts over several reports (the acceptance runs): per run, and per row."""
    runs, rows, codes = {}, {}, {}
    for path in a.reports:
        with open(path) as f:
            r = json.load(f)
        runs[r["verdict"]] = runs.get(r["verdict"], 0) + 1
        codes[r["exit_code"]] = codes.get(r["exit_code"], 0) + 1
        for x in r["rows"]:
            rows[x["verdict"]] = rows.get(x["verdict"], 0) + 1
        excl = sum(x["verdict"] == "regressed" and x["low"] > 1 for x in r["rows"])
        print(f"{path}: {r['verdict']}, exit {r['exit_code']}, {excl}/{len(r['rows'])} rows regressed "
              f"(interval above 1), {len(r['counts']['changes'])} count changes, geomean "
              + ", ".join(f"{s['suite']} {s['geomean_ratio']:.3f}" for s in r["suites"] if s["geomean_ratio"]))
    print(f"{len(a.reports)} runs: verdicts {runs}; exit codes {codes}; rows {rows}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def thresholds(p):
        p.add_argument("--floor", type=float, default=perf_stats.FLOOR, help="practical floor (default 0.03)")
        p.add_argument("--fail", type=float, default=perf_stats.FAIL, help="time regression that fails (0.10)")
        p.add_argument("--out", default="reports/perf", help="where the report goes (default reports/perf)")

    c = sub.add_parser("compare", help="measure two builds and write the report")
    for side in ("base", "head"):
        c.add_argument(f"--{side}-build", required=True)
        c.add_argument(f"--{side}-label", required=True)
        c.add_argument(f"--{side}-rev", required=True)
        c.add_argument(f"--{side}-cmake", default="")
    c.add_argument("--quick", action="store_true")
    c.add_argument("--filter", default="")
    c.add_argument("--reps", type=int, default=0,
                   help=f"repetitions per benchmark and build (default {FULL_REPS}; {QUICK_REPS} with --quick)")
    c.add_argument("--min-time", default="",
                   help=f"Google Benchmark's --benchmark_min_time per repetition (with --quick {QUICK_MIN_TIME})")
    c.add_argument("--suites", nargs="*")
    c.add_argument("--raw", help="where the samples go (default OUT/<base>..<head>-samples.json), for `analyse`")
    c.add_argument("--no-cachegrind", action="store_true")
    c.add_argument("--save-baseline", action="store_true", help="store HEAD's medians under --baselines")
    c.add_argument("--baselines", default="reports/baselines")
    c.add_argument("--quiet", action="store_true")
    thresholds(c)
    n = sub.add_parser("analyse", help="the report again from a raw file")
    n.add_argument("raw")
    thresholds(n)
    b = sub.add_parser("bench", help="one build's suites once (ci/bench)")
    b.add_argument("--build", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--reps", type=int, default=5)
    b.add_argument("--min-time", default="")
    b.add_argument("--filter", default="")
    b.add_argument("--commit", default="")
    b.add_argument("--suites", nargs="*")
    k = sub.add_parser("counts", help="the count gate between two merged GB JSON files (ci/bench)")
    k.add_argument("baseline")
    k.add_argument("new")
    bl = sub.add_parser("baseline", help="store a compare run's HEAD as a baseline, from its samples file")
    bl.add_argument("samples")
    bl.add_argument("--baselines", default="reports/baselines")
    t = sub.add_parser("tally", help="verdict counts over several reports' JSON (acceptance runs)")
    t.add_argument("reports", nargs="+")
    a = ap.parse_args(argv)
    return {"compare": cmd_compare, "analyse": cmd_analyse, "bench": cmd_bench, "counts": cmd_counts,
            "baseline": cmd_baseline, "tally": cmd_tally}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
