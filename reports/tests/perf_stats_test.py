"""Tests of the performance report's statistics and exit codes (reports/perf_stats.py, perf_report.py's
analysis). Run by ctest as `perf_report_stats`; every random sample has a fixed seed."""
import copy
import math
import os
import sys
import tempfile
import unittest

import numpy as np
from scipy.stats import mannwhitneyu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import perf_report  # noqa: E402
import perf_stats as st  # noqa: E402

BASE = [101.0, 99.5, 100.2, 98.7, 100.9, 102.3, 99.1, 100.0, 100.4]
HEAD = [103.1, 104.0, 101.2, 105.5, 102.8, 103.3, 106.0, 102.2, 104.4]
TIED = [100.0, 100.0, 101.0, 102.0, 102.0, 99.0, 100.0, 101.0, 98.0]


class UTest(unittest.TestCase):
    def test_pvalue_is_scipys_two_sided(self):
        for a, b in ((BASE, HEAD), (BASE, TIED), (TIED, HEAD), (BASE[:5], HEAD[:7])):
            self.assertAlmostEqual(st.u_pvalue(a, b), mannwhitneyu(a, b, alternative="two-sided").pvalue, 12)

    def test_pvalue_of_separated_samples_is_small(self):
        self.assertLess(st.u_pvalue(BASE, HEAD), 0.001)

    def test_null_distribution_counts_every_ordering(self):
        for m, n in ((1, 1), (3, 4), (9, 9), (7, 12)):
            c = st.u_null_counts(m, n)
            self.assertEqual(len(c), m * n + 1)
            self.assertAlmostEqual(c.sum(), math.comb(m + n, m), delta=1e-6 * math.comb(m + n, m))
            np.testing.assert_allclose(c, c[::-1])  # U and mn - U have one distribution

    def test_critical_values_match_the_published_table(self):
        # Two-sided 0.05 critical values of U (Mann-Whitney tables, e.g. Siegel & Castellan table J).
        for (m, n), c in {(5, 5): 2, (8, 12): 22, (9, 9): 17, (10, 10): 23, (20, 20): 127}.items():
            self.assertEqual(st.u_lower_critical(m, n), c, (m, n))

    def test_too_few_repetitions_have_no_finite_interval(self):
        self.assertEqual(st.u_lower_critical(2, 2), -1)
        _, low, high = st.ratio_interval([1.0, 1.1], [1.2, 1.3])
        self.assertEqual((low, high), (0.0, math.inf))


class Interval(unittest.TestCase):
    def coverage(self, noise, ratio=1.1, n=9, trials=600, seed=7):
        rng = np.random.default_rng(seed)
        hits = 0
        for _ in range(trials):
            a = np.exp(noise(rng, n))
            b = ratio * np.exp(noise(rng, n))
            _, low, high = st.ratio_interval(a, b)
            hits += low <= ratio <= high
        return hits / trials

    def test_coverage_with_gaussian_log_noise(self):
        c = self.coverage(lambda r, n: r.normal(0, 0.03, n))
        self.assertGreaterEqual(c, 0.93)
        self.assertLessEqual(c, 0.995)

    def test_coverage_with_heavy_tailed_interference(self):
        # A shared machine: most repetitions near the true time, some slowed by other work.
        c = self.coverage(lambda r, n: r.normal(0, 0.02, n) + (r.random(n) < 0.2) * r.exponential(0.3, n))
        self.assertGreaterEqual(c, 0.93)

    def test_estimate_lies_inside_its_interval(self):
        est, low, high = st.ratio_interval(BASE, HEAD)
        self.assertTrue(low <= est <= high)
        self.assertGreater(low, 1.0)


class Verdicts(unittest.TestCase):
    def test_rules(self):
        cases = [  # ratio, low, high, p_adj, reps -> verdict
            ((1.10, 1.06, 1.14, 0.001, 9), "regressed"),
            ((0.90, 0.87, 0.94, 0.001, 9), "improved"),
            ((1.02, 1.01, 1.03, 0.001, 9), "same"),  # real, but below the 3% floor
            ((1.00, 0.99, 1.01, 0.60, 9), "same"),  # the interval lies inside the floor
            ((1.05, 0.95, 1.15, 0.30, 9), "unknown"),  # could be a regression: more repetitions
            ((1.10, 1.06, 1.14, 0.001, 5), "unknown"),  # too few repetitions for the U test
            ((1.10, 1.01, 1.20, 0.08, 9), "unknown"),  # not significant once adjusted
        ]
        for args, want in cases:
            self.assertEqual(st.verdict(*args), want, args)

    def test_holm(self):
        self.assertEqual(st.holm([0.01, 0.04, 0.03, None]), [0.03, 0.06, 0.06, None])

    def test_run_verdict(self):
        self.assertEqual(st.run_verdict(["same", "regressed", "improved"]), "regressed")
        self.assertEqual(st.run_verdict(["same", "improved", "unknown"]), "improved")
        self.assertEqual(st.run_verdict(["same", "same"]), "same")
        self.assertEqual(st.run_verdict(["same", "unknown"]), "unknown")

    def test_exit_codes(self):
        regressed = {"verdict": "regressed", "low": 1.12}
        small = {"verdict": "regressed", "low": 1.05}
        self.assertEqual(st.exit_code([small], []), 0)  # regressed, but not surely by 10%
        self.assertEqual(st.exit_code([regressed], []), 1)
        self.assertEqual(st.exit_code([], [{"count": "tape"}]), 1)
        self.assertEqual(st.exit_code([regressed], [], could_run=False), 2)

    def simulated_runs(self, shift, rows=18, runs=200, seed=11):
        rng = np.random.default_rng(seed)
        verdicts = []
        for _ in range(runs):
            a = {f"b{k}": list(np.exp(rng.normal(0, 0.03, 9))) for k in range(rows)}
            b = {f"b{k}": list(shift * np.exp(rng.normal(0, 0.03, 9))) for k in range(rows)}
            verdicts.append(st.run_verdict([r["verdict"] for r in st.compare(a, b)]))
        return verdicts

    def test_aa_runs_rarely_say_regressed(self):
        v = self.simulated_runs(1.0)
        self.assertLessEqual(v.count("regressed"), 0.05 * len(v))

    def test_a_ten_percent_shift_is_found(self):
        rng = np.random.default_rng(3)
        found = 0
        for _ in range(100):
            a = {f"b{k}": list(np.exp(rng.normal(0, 0.03, 9))) for k in range(18)}
            b = {f"b{k}": list(1.1 * np.exp(rng.normal(0, 0.03, 9))) for k in range(18)}
            found += sum(r["verdict"] == "regressed" for r in st.compare(a, b)) >= 9
        self.assertGreaterEqual(found, 90)


def raw_record(shift=1.0, tape_head=2, seed=5):
    """A compare run's raw record, synthetic: 4 benchmarks, 9 repetitions each."""
    rng = np.random.default_rng(seed)

    def side(s, tape):
        return {"latency_bench": {f"BM_Latency/p{k}/dmci": {
            "metric": "cpu_time", "times": list(s * 1000 * np.exp(rng.normal(0, 0.01, 9))),
            "counts": {"steps": [40] * 9, "tape": [tape] * 9}, "counters": {}, "errors": []} for k in range(4)}}

    cg = {"instructions": [123456, 123456], "stats": {"steps": 40}}
    return {"schema": perf_report.RAW_SCHEMA, "date": "2026-12-01T00:00:00+00:00",
            "settings": {"quick": True, "filter": "", "suites": ["latency_bench"], "rounds": 3,
                         "reps_per_process": 3, "min_time": ""},
            "base": {"label": "aaa", "rev": "aaa", "cmake": [], "fingerprint": {}},
            "head": {"label": "bbb", "rev": "bbb", "cmake": [], "fingerprint": {}},
            "samples": {"base": side(1.0, 2), "head": side(shift, tape_head)},
            "cachegrind": {"base": cg, "head": copy.deepcopy(cg)}, "errors": []}


class Reports(unittest.TestCase):
    def test_same_build_passes(self):
        r = perf_report.analyse(raw_record())
        self.assertEqual(r["exit_code"], 0)
        self.assertNotIn("regressed", [x["verdict"] for x in r["rows"]])

    def test_count_change_fails_and_names_the_benchmarks(self):
        r = perf_report.analyse(raw_record(tape_head=3))
        self.assertEqual(r["exit_code"], 1)
        self.assertEqual({(x["benchmark"], x["count"], x["base"], x["head"]) for x in r["counts"]["changes"]},
                         {(f"BM_Latency/p{k}/dmci", "tape", 2, 3) for k in range(4)})

    def test_cachegrind_instruction_change_fails(self):
        raw = raw_record()
        raw["cachegrind"]["head"]["instructions"] = [123457, 123457]
        self.assertEqual(perf_report.analyse(raw)["exit_code"], 1)

    def test_counts_that_vary_within_a_build_are_not_gated(self):
        raw = raw_record()
        raw["samples"]["head"]["latency_bench"]["BM_Latency/p0/dmci"]["counts"]["tape"][3] = 5
        r = perf_report.analyse(raw)
        self.assertEqual(r["exit_code"], 0)
        self.assertEqual(len(r["counts"]["not_deterministic"]), 1)

    def test_confident_time_regression_fails(self):
        r = perf_report.analyse(raw_record(shift=1.3))
        self.assertEqual([x["verdict"] for x in r["rows"]], ["regressed"] * 4)
        self.assertEqual(r["exit_code"], 1)

    def test_nothing_measured_could_not_run(self):
        raw = raw_record()
        raw["samples"]["head"] = {}
        self.assertEqual(perf_report.analyse(raw)["exit_code"], 2)

    def test_the_command_writes_the_report_and_returns_its_code(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "raw.json")
            perf_report.write_json(path, raw_record(tape_head=3))
            self.assertEqual(perf_report.main(["analyse", path, "--out", d]), 1)
            with open(os.path.join(d, "aaa..bbb.md")) as f:
                md = f.read()
            self.assertIn("| BM_Latency/p0/dmci | tape | 2 | 3 |", md)
            self.assertTrue(os.path.exists(os.path.join(d, "aaa..bbb-ratio.svg")))

    def test_sweeps_are_read_with_or_without_the_real_time_suffix(self):
        samples = {"batch_bench": {f"BM_Batch/p/direct/cpu/f64/{b}/real_time": {
            "times": [1.0], "counters": {"evals_per_s": [10.0 * b]}} for b in (1, 4)}}
        got = perf_report.medians_by(samples, "BM_Batch/", "evals_per_s")
        self.assertEqual(got, {("p/direct/cpu/f64", 1): 10.0, ("p/direct/cpu/f64", 4): 40.0})

    def test_the_count_gate_of_ci_bench(self):
        def gb(tape):
            rows = [{"run_name": "BM_Latency/poly3/dmci", "run_type": "aggregate", "aggregate_name": name,
                     "steps": 503.0, "tape": tape if name == "median" else 0.0} for name in ("mean", "median")]
            return {"context": {}, "benchmarks": rows}

        with tempfile.TemporaryDirectory() as d:
            paths = [os.path.join(d, f"{k}.json") for k in ("baseline", "same", "changed")]
            for path, tape in zip(paths, (6.0, 6.0, 7.0)):
                perf_report.write_json(path, gb(tape))
            self.assertEqual(perf_report.main(["counts", paths[0], paths[1]]), 0)
            self.assertEqual(perf_report.main(["counts", paths[0], paths[2]]), 1)


if __name__ == "__main__":
    unittest.main()
