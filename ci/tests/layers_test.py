"""Tests of ci/layers, the check that no include runs up the layer order: the real tree passes, and a copy of
it with one planted include fails, naming the file, the line and both floors. Planted: an include up the
floors, one sideways between two folders on one floor, code including test code, and an include of no file
(ctest: ci_layers)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "ci", "layers")


def run(root):
    p = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class Layers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        for top in ("dmci", "oracle", "reports", "properties", "bench"):
            shutil.copytree(os.path.join(ROOT, top), os.path.join(self.root, top),
                            ignore=shutil.ignore_patterns("data", "corpus", "seeds", "crashes", "*.csv", "*.scm"))

    def tearDown(self):
        self.tmp.cleanup()

    def plant(self, rel, line):
        path = os.path.join(self.root, rel)
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("#pragma once\n", "#pragma once\n" + line + "\n", 1))
        return text.count("\n", 0, text.index("#pragma once\n")) + 2  # the planted line's number

    def test_the_tree_passes(self):
        rc, out = run(ROOT)
        self.assertEqual(rc, 0, out)
        self.assertIn("none runs up", out)

    def test_the_copy_passes(self):
        rc, out = run(self.root)
        self.assertEqual(rc, 0, out)

    def test_an_include_up_fails(self):
        line = self.plant("dmci/runtime/Value.h", '#include "driver/Engine.h"')
        rc, out = run(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn(f"dmci/runtime/Value.h:{line}:", out)
        self.assertIn("dmci/runtime/ on floor 2 includes dmci/driver/", out)

    def test_an_include_sideways_on_one_floor_fails(self):
        self.plant("dmci/mce/Mce.h", '#include "lantern/Lantern.h"')
        rc, out = run(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("share floor", out)

    def test_code_including_tests_fails(self):
        self.plant("dmci/driver/Engine.h", '#include "testing/Eval.h"')
        rc, out = run(self.root)
        self.assertEqual(rc, 1, out)
        self.assertIn("includes test code", out)

    def test_an_include_of_nothing_cannot_pass(self):
        self.plant("dmci/driver/Engine.h", '#include "driver/NoSuchFile.h"')
        rc, out = run(self.root)
        self.assertEqual(rc, 2, out)
        self.assertIn("names no file", out)


if __name__ == "__main__":
    unittest.main()
