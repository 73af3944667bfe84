"""Tests of where ci/gate writes its reports: by default under reports/tmp/ (which git ignores), never over the
committed reports/published/gate.json and gate.md; --out names another folder, and only --publish refreshes the
published copies. Each test runs a copy of ci/gate over a one-pair corpus with the built dmci (--dmci, so nothing
is installed or built). ctest: ci_gate_paths, with DMCI_TOOL naming the dmci executable."""
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DMCI = os.environ.get("DMCI_TOOL", os.path.join(ROOT, "build", "dmci"))
MANIFEST = ('{"version": 1, "pairs": [{"name": "square/1", "file": "square.scm", "family": "f", '
            '"bind": {"x": 2}, "wrt": ["x"]}]}')


class GatePaths(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        os.makedirs(os.path.join(self.root, "ci"))
        shutil.copy(os.path.join(ROOT, "ci", "gate"), os.path.join(self.root, "ci", "gate"))
        os.makedirs(os.path.join(self.root, "corpus"))
        with open(os.path.join(self.root, "corpus", "manifest.json"), "w") as f:
            f.write(MANIFEST)
        with open(os.path.join(self.root, "corpus", "square.scm"), "w") as f:
            f.write("(* x x)\n")

    def tearDown(self):
        self.tmp.cleanup()

    def gate(self, *args):
        p = subprocess.run(["bash", os.path.join(self.root, "ci", "gate"), "--dmci", DMCI, *args],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def reports(self, folder):
        return sorted(f for f in ("gate.json", "gate.md") if os.path.exists(os.path.join(self.root, folder, f)))

    def test_by_default_the_reports_go_to_reports_tmp_and_the_published_ones_stay(self):
        self.gate()
        self.assertEqual(self.reports("reports/tmp"), ["gate.json", "gate.md"])
        self.assertFalse(os.path.exists(os.path.join(self.root, "reports", "published")))

    def test_out_names_the_folder(self):
        self.gate("--out", "elsewhere")
        self.assertEqual(self.reports("elsewhere"), ["gate.json", "gate.md"])
        self.assertFalse(os.path.exists(os.path.join(self.root, "reports")))

    def test_only_publish_writes_the_published_reports(self):
        self.gate("--publish")
        self.assertEqual(self.reports("reports/published"), ["gate.json", "gate.md"])
        self.assertFalse(os.path.exists(os.path.join(self.root, "reports", "tmp")))

    def test_an_unknown_argument_is_a_usage_error(self):
        p = subprocess.run(["bash", os.path.join(self.root, "ci", "gate"), "--publsh"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("--publish", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.root, "reports")))


if __name__ == "__main__":
    unittest.main()
