"""Tests of ci/trixie-sources, the derivation of ci/torch2-check's trixie apt source from the machine's own apt
configuration: both file forms (one-line sources.list and deb822 .sources), the entries apt itself ignores, and
the plain error when nothing qualifies. Each case builds a small etc/ tree and runs the script on it (ctest:
ci_trixie_sources)."""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "trixie-sources")


def run(files, codename="bookworm"):
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "etc/apt/sources.list.d"))
        if codename:
            with open(os.path.join(root, "etc/os-release"), "w") as f:
                f.write('NAME="Debian GNU/Linux"\nVERSION_CODENAME=%s\n' % codename)
        for name, text in files.items():
            with open(os.path.join(root, "etc/apt", name), "w") as f:
                f.write(textwrap.dedent(text))
        p = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


def paragraphs(out):
    """The printed deb822 entries as dicts, comments dropped."""
    result = []
    for para in out.strip().split("\n\n"):
        fields = {}
        for line in para.splitlines():
            if not line.startswith("#"):
                key, _, value = line.partition(": ")
                fields[key] = value
        result.append(fields)
    return result


class OneLineForm(unittest.TestCase):
    def test_keeps_uri_components_and_key_and_swaps_the_suite(self):
        rc, out, err = run({"sources.list": """\
            # the machine's mirror
            deb [arch=amd64 signed-by=/keys/archive.gpg] http://mirror.invalid/debian bookworm main contrib
            deb-src http://mirror.invalid/debian bookworm main
            deb http://mirror.invalid/debian bookworm-updates main
            deb http://mirror.invalid/debian-security bookworm-security main
            """})
        self.assertEqual(rc, 0, err)
        self.assertEqual(paragraphs(out), [{"Types": "deb", "URIs": "http://mirror.invalid/debian", "Suites": "trixie",
                                            "Components": "main contrib", "Signed-By": "/keys/archive.gpg"}])

    def test_reads_list_files_in_the_parts_directory_only(self):
        rc, out, err = run({"sources.list.d/local.list": "deb http://cache.invalid:3142/debian stable main\n",
                            "sources.list.d/old.list.disabled": "deb http://other.invalid/debian bookworm main\n"})
        self.assertEqual(rc, 0, err)
        self.assertEqual([p["URIs"] for p in paragraphs(out)], ["http://cache.invalid:3142/debian"])


class Deb822Form(unittest.TestCase):
    def test_keeps_every_uri_and_skips_disabled_and_foreign_suites(self):
        rc, out, err = run({"sources.list.d/debian.sources": """\
            Types: deb deb-src
            # a comment inside the paragraph
            URIs: http://a.invalid/debian http://b.invalid/debian
            Suites: bookworm bookworm-updates
            Components: main non-free-firmware
            Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

            Types: deb
            URIs: http://a.invalid/debian-security
            Suites: bookworm-security
            Components: main

            Types: deb
            URIs: http://disabled.invalid/debian
            Suites: bookworm
            Components: main
            Enabled: no
            """, "sources.list.d/vendor.sources": """\
            Types: deb
            URIs: http://vendor.invalid/repo
            Suites: nodistro
            Components: main
            """})
        self.assertEqual(rc, 0, err)
        self.assertEqual(paragraphs(out), [{"Types": "deb", "URIs": "http://a.invalid/debian http://b.invalid/debian",
                                            "Suites": "trixie", "Components": "main non-free-firmware",
                                            "Signed-By": "/usr/share/keyrings/debian-archive-keyring.gpg"}])

    def test_an_inline_key_stays_whole(self):
        rc, out, err = run({"sources.list.d/debian.sources": """\
            Types: deb
            URIs: http://a.invalid/debian
            Suites: bookworm
            Components: main
            Signed-By:
             -----BEGIN PGP PUBLIC KEY BLOCK-----
             .
             abc
             -----END PGP PUBLIC KEY BLOCK-----
            """})
        self.assertEqual(rc, 0, err)
        self.assertIn("Signed-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n abc\n -----END PGP PUBLIC KEY BLOCK-----",
                      out)

    def test_both_forms_together_give_one_entry_per_archive(self):
        rc, out, err = run({"sources.list": "deb http://a.invalid/debian bookworm main\n",
                            "sources.list.d/debian.sources":
                                "Types: deb\nURIs: http://a.invalid/debian\nSuites: bookworm\nComponents: main\n"})
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(paragraphs(out)), 1)


class NoSource(unittest.TestCase):
    def test_no_file_is_a_plain_error(self):
        rc, out, err = run({})
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertIn("no apt source for this machine's release (bookworm)", err)

    def test_only_other_releases_is_a_plain_error(self):
        rc, out, err = run({"sources.list": "deb http://a.invalid/debian-security bookworm-security main\n",
                            "sources.list.d/x.sources": "Types: deb-src\nURIs: http://a.invalid/debian\n"
                                                        "Suites: bookworm\nComponents: main\n"})
        self.assertEqual(rc, 1)
        self.assertIn("sources.list", err)
        self.assertIn("x.sources", err)


if __name__ == "__main__":
    unittest.main()
