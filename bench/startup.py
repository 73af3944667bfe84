#!/usr/bin/env python3
"""Start-up cost of the dmci tool, measured as whole processes: CPU time (user + sys) per process and peak
resident memory (GNU time, Debian package `time`), for `dmci run -e '(+ 1 2)'`, `dmci --help` and `dmci run --engine tensor -e '(+ 1 2)'` (which
opens the LibTorch plugin). Usage: bench/startup.py [DMCI] [--runs N]  (DMCI defaults to build/dmci)."""
import argparse
import os
import subprocess
import sys


def measure(cmd, runs):
    """Mean CPU milliseconds per process and the largest peak RSS (MiB) of `runs` runs of cmd."""
    cpu, rss = 0.0, 0
    for _ in range(runs):
        # posix_spawn, not fork: a forked child's peak RSS would count this Python's pages before the exec.
        devnull = os.open(os.devnull, os.O_WRONLY)
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                                                     (os.POSIX_SPAWN_DUP2, devnull, 2)])
        os.close(devnull)
        _, status, usage = os.wait4(pid, 0)
        if status != 0:
            sys.exit(f"startup.py: {' '.join(cmd)} failed (status {status})")
        cpu += (usage.ru_utime + usage.ru_stime) * 1000
    # Peak RSS by GNU time (wait4's ru_maxrss of a spawned child counts this Python's pages until the exec).
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True).stderr.strip().splitlines()
    rss = int(out[-1]) if out and out[-1].isdigit() else 0
    return cpu / runs, rss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dmci", nargs="?", default="build/dmci")
    ap.add_argument("--runs", type=int, default=50)
    a = ap.parse_args()
    cases = [("run -e '(+ 1 2)'", [a.dmci, "run", "-e", "(+ 1 2)"], a.runs),
             ("--help", [a.dmci, "--help"], a.runs),
             ("run --engine tensor -e '(+ 1 2)'", [a.dmci, "run", "--engine", "tensor", "-e", "(+ 1 2)"], 3)]
    for label, cmd, runs in cases:
        cpu, rss = measure(cmd, runs)
        print(f"dmci {label}: {cpu:.1f} ms CPU per process (mean of {runs}), peak RSS {rss:.1f} MiB")


if __name__ == "__main__":
    main()
