#!/usr/bin/env python3
"""Whole-process timing of two commands, alternated, with the ratio taken pair by pair.

    scripts/pairs.py [-n PAIRS] [--warmup N] --vs 'COMMAND_B' -- COMMAND_A [ARG ...]

Runs B and A in turn (B A B A ...) PAIRS times after N warm-up runs of each, and prints
for each command the min, median and max of its wall, user, system and CPU seconds,
then the same three figures of the per-pair ratios A/B. The ratio of each pair is taken
before the median, so that a drift of the host's speed over the call (a shared
machine's loaded and quiet phases) moves both sides of a pair alike. Quote the median;
the spread says how noisy the host was. A command that cannot start is an error (exit
2); runs that exit non-zero are counted and make the exit status 1.

COMMAND_B is one string split as a shell splits words (`shlex`); neither command is given
a shell, so a pipe or a redirection is written `sh -c '...'`. Their standard input is
empty and their output is discarded. Wall time is a monotonic clock read around the
child; user and system seconds are the operating system's accounting of the reaped child
(`os.wait4`).

PERF.md's "A against B, alternated pairs" figures are this measure, e.g.

    python3 scripts/pairs.py -n 21 --vs 'ilkit cgscc M.ll --jobs 1' -- ilkit cgscc M.ll --jobs 2

Python 3 standard library only; POSIX. Not part of the test suite.
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


def run_once(argv):
    """Runs `argv` to its end; returns (wall s, user s, sys s, exit status)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime, usage.ru_stime, proc.returncode


def spread(values):
    return min(values), statistics.median(values), max(values)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-n", "--pairs", type=int, default=11, help="alternated pairs (11)")
    parser.add_argument("--warmup", type=int, default=1, help="uncounted runs of each, at least 1 (1)")
    parser.add_argument("--vs", required=True, help="COMMAND_B, the baseline, as one string")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND_A [ARG ...]")
    args = parser.parse_args()
    a = args.command[1:] if args.command[:1] == ["--"] else args.command
    b = shlex.split(args.vs)
    if not a or not b:
        parser.error("both COMMAND_A (after --) and --vs COMMAND_B are needed")
    if args.pairs < 1 or args.warmup < 1:
        parser.error("-n and --warmup must be at least 1")

    for argv in (a, b):
        try:
            run_once(argv)
        except OSError as e:
            print(f"cannot start {shlex.join(argv)}: {e.strerror}", file=sys.stderr)
            return 2
    for _ in range(args.warmup - 1):
        run_once(b)
        run_once(a)
    runs = {"A": [], "B": []}
    failures = 0
    for _ in range(args.pairs):
        runs["B"].append(run_once(b))
        runs["A"].append(run_once(a))
        failures += (runs["A"][-1][3] != 0) + (runs["B"][-1][3] != 0)

    names = ("wall s", "user s", "sys s", "cpu s")

    def columns(r):
        return (r[0], r[1], r[2], r[1] + r[2])

    print(f"{'':18}{'min':>10}{'median':>12}{'max':>12}")
    for side in ("A", "B"):
        cols = [columns(r) for r in runs[side]]
        for i, name in enumerate(names):
            lo, mid, hi = spread([c[i] for c in cols])
            print(f"{side + ' ' + name:18}{lo:10.3f}{mid:12.3f}{hi:12.3f}")
    for i, name in ((1, "user"), (3, "cpu"), (0, "wall")):
        ratios = [
            columns(ra)[i] / columns(rb)[i]
            for ra, rb in zip(runs["A"], runs["B"])
            if columns(rb)[i] > 0
        ]
        if ratios:
            lo, mid, hi = spread(ratios)
            print(f"{'A/B ' + name:18}{lo:10.4f}{mid:12.4f}{hi:12.4f}")
    if failures:
        print(f"{failures} run(s) exited non-zero")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
