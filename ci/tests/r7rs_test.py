"""Tests of ci/r7rs, the runner for chibi-scheme's R7RS test file: on a small file of test forms written for it
(data/r7rs_sample.scm) it must count each form as the form's comment says, on both routes, and write its JSON and
Markdown reports. ctest: ci_r7rs, with DMCI_TOOL naming the dmci executable."""
import json
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
DMCI = os.environ.get("DMCI_TOOL", os.path.join(ROOT, "build", "dmci"))
SAMPLE = os.path.join(HERE, "data", "r7rs_sample.scm")


class R7rsRunner(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        p = subprocess.run(["python3", os.path.join(ROOT, "ci", "r7rs"), SAMPLE, "--dmci", DMCI, "--out", cls.tmp.name,
                            "--jobs", "2"], capture_output=True, text=True, timeout=300)
        cls.proc = p
        with open(os.path.join(cls.tmp.name, "r7rs.json")) as f:
            cls.report = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def status(self, line):
        [u] = [u for u in self.report["units"] if u["line"] == line]
        return {r: u["results"][r]["status"] for r in ("direct", "dmci")}, u

    def line_of(self, text):
        with open(SAMPLE) as f:
            return next(i for i, l in enumerate(f, 1) if text in l)

    def test_the_run_succeeds_and_reports_both_routes(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        self.assertIn("dmci: 10 tests, 8 in the subset, 6 passing, 2 failing inside the subset, 2 outside",
                      self.proc.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.tmp.name, "r7rs.md")))

    def test_every_route_counts_the_same(self):
        s = self.report["summary"]
        for r in ("direct", "dmci"):
            self.assertEqual((s[r]["pass"], s[r]["fail"], s[r]["outside"]), (6, 2, 2), r)
        self.assertEqual(self.report["pass_on_every_route"], 6)

    def test_a_wrong_expectation_fails_inside_the_subset(self):
        st, u = self.status(self.line_of("(test 5 (+ 2 2))"))
        self.assertEqual(st, {"direct": "fail", "dmci": "fail"})
        self.assertIn("got 4", u["results"]["direct"]["message"])

    def test_a_run_time_error_fails_inside_the_subset(self):
        st, _ = self.status(self.line_of("(test 1 (car '()))"))
        self.assertEqual(st, {"direct": "fail", "dmci": "fail"})

    def test_outside_names_what_is_missing(self):
        st, u = self.status(self.line_of("(test 1 (frobnicate 1))"))
        self.assertEqual(st, {"direct": "outside", "dmci": "outside"})
        self.assertEqual(u["results"]["dmci"]["reason"], "frobnicate")
        self.assertEqual(self.report["summary"]["direct"]["outside_reasons"].get("reader: #u8 syntax"), 1)

    def test_a_nested_test_gives_its_own_verdict(self):
        st, _ = self.status(self.line_of("(test 4 (+ y 1))"))
        self.assertEqual(st, {"direct": "pass", "dmci": "pass"})

    def test_an_unused_definition_is_left_out(self):
        st, _ = self.status(self.line_of("(test 8 (twice 4))"))
        self.assertEqual(st, {"direct": "pass", "dmci": "pass"})


if __name__ == "__main__":
    unittest.main()
