"""Tests of reports/libfuzzer_summary.py (ci/libfuzzer's summary): the figures read from libFuzzer's log, and a
finding (crash, leak, timeout, out-of-memory, unexplained exit) that fails the run however it shows."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import libfuzzer_summary as ls  # noqa: E402

CLEAN = """INFO: Seed: 1234
#2\tINITED cov: 812 ft: 1304 corp: 14/2160b exec/s: 0 rss: 38Mb
#4096\tpulse  cov: 830 ft: 1400 corp: 20/2400b lim: 4096 exec/s: 2048 rss: 40Mb
#61440\tDONE   cov: 901 ft: 1733 corp: 51/4721b lim: 4096 exec/s: 2048 rss: 52Mb
Done 61440 runs in 30 second(s)
stat::number_of_executed_units: 61440
stat::average_exec_per_sec:     2048
stat::new_units_added:          37
stat::slowest_unit_time_sec:    0
stat::peak_rss_mb:              52
"""

CRASH = """#2\tINITED cov: 812 ft: 1304 corp: 14/2160b exec/s: 0 rss: 38Mb
FINDING: a number read back differs (column 't')
==4711== ERROR: libFuzzer: deadly signal
artifact_prefix='artifacts/'; Test unit written to artifacts/crash-0a1b
stat::number_of_executed_units: 917
stat::average_exec_per_sec:     458
"""

LEAK = """#2\tINITED cov: 812 ft: 1304 corp: 14/2160b exec/s: 0 rss: 38Mb
==4712==ERROR: LeakSanitizer: detected memory leaks
"""

TIMEOUT = "==4713== ERROR: libFuzzer: timeout after 10 seconds\n"
OOM = "==4714== ERROR: libFuzzer: out-of-memory (used: 4100Mb; exceeds: 4096Mb)\n"
UBSAN = "DataTable.cpp:40:7: runtime error: signed integer overflow\n"


class Summary(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.artifacts = os.path.join(self.dir.name, "artifacts")
        os.mkdir(self.artifacts)

    def tearDown(self):
        self.dir.cleanup()

    def log(self, text, name="fuzz.log"):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def artifact(self, name):
        open(os.path.join(self.artifacts, name), "w").close()

    def test_clean_run_reads_its_figures_and_has_no_finding(self):
        s = ls.summarize("datatable", [self.log(CLEAN)], self.artifacts, 0, 30, 1)
        self.assertEqual(s["executions"], 61440)
        self.assertEqual(s["executions_per_second"], 2048)
        self.assertEqual(s["coverage"], {"edges": 901, "features": 1733, "corpus_units": 51})
        self.assertEqual(s["new_units_added"], 37)
        self.assertEqual(s["peak_rss_mb"], 52)
        self.assertEqual(s["findings"]["total"], 0)

    def test_crash_counts_once_with_its_artifact(self):
        self.artifact("crash-0a1b")
        self.artifact("slow-unit-77")  # slow, not a finding
        s = ls.summarize("datatable", [self.log(CRASH)], self.artifacts, 1)
        self.assertEqual(s["findings"]["crashes"], 1)
        self.assertEqual(s["findings"]["total"], 1)
        self.assertEqual(s["executions"], 917)
        self.assertEqual(s["artifacts"], [os.path.join(self.artifacts, "crash-0a1b")])

    def test_each_kind_of_report_is_a_finding_without_an_artifact(self):
        for text, kind in ((LEAK, "leaks"), (TIMEOUT, "timeouts"), (OOM, "ooms"), (UBSAN, "crashes")):
            s = ls.summarize("lanes", [self.log(text)], self.artifacts, 1)
            self.assertEqual(s["findings"][kind], 1, kind)
            self.assertEqual(s["findings"]["total"], 1, kind)

    def test_nonzero_exit_without_a_report_is_a_finding(self):
        s = ls.summarize("lanes", [self.log(CLEAN)], self.artifacts, 77)
        self.assertEqual(s["findings"]["other"], 1)
        self.assertEqual(s["findings"]["total"], 1)

    def test_workers_logs_add_up(self):
        logs = [self.log(CLEAN, "fuzz-0.log"), self.log(CLEAN, "fuzz-1.log")]
        s = ls.summarize("program", logs, self.artifacts, 0, 30, 2)
        self.assertEqual(s["executions"], 2 * 61440)
        self.assertEqual(s["executions_per_second"], 2 * 2048)
        self.assertEqual(s["coverage"]["edges"], 901)

    def test_main_writes_json_and_exits_one_on_a_finding(self):
        out = os.path.join(self.dir.name, "fuzz.json")
        self.artifact("leak-99")
        rc = ls.main(["--name", "proposer", "--log", self.log(CLEAN), "--artifacts", self.artifacts,
                      "--exit-code", "0", "--json", out])
        self.assertEqual(rc, 1)
        with open(out) as f:
            self.assertEqual(json.load(f)["findings"]["leaks"], 1)
        os.remove(os.path.join(self.artifacts, "leak-99"))
        self.assertEqual(ls.main(["--name", "proposer", "--log", self.log(CLEAN), "--artifacts", self.artifacts,
                                  "--exit-code", "0", "--json", out]), 0)


if __name__ == "__main__":
    unittest.main()
