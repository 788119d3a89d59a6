#!/usr/bin/env python3
"""The IL store's bench rows: rounds of ratios against their bars, and instruction counts.

    scripts/bars.py run [--rounds N] [--out DIR] [--clang-dumps DIR]
    scripts/bars.py summary DIR [DIR ...] [--quiet-pointer-ms MS] [--quiet-box-ms MS]
    scripts/bars.py instr [--out FILE]

`run` builds the benches once, then runs rounds: each round runs every row's bench file in
its own process (`store`, `copy`, `share`, `walk`, only the rows below), takes each ratio
from the divan medians of that one run, and, with `--clang-dumps`, imports every `*.json`
there with `ilkit il stats` (MB per user-CPU second). Each round's divan text goes to
`DIR/round.N` and its ratios are printed with the host's phase indicators: the medians of
the pointer marker and of the Box-tree clone, which run no ilkit code. The full clang
dumps come from `scripts/corpus/cuda.sh` with `KEEP_FULL=1`.

`summary` prints, over the rounds in the given directories, each row's median and how many
rounds meet its bar: over all rounds, and over the quiet ones (the pointer marker and the
Box-tree clone at or under the given medians; on the 2-core EPYC VM of PERF.md, 60 and 110
ms), so that a shared host's loaded stretches can be told apart by the baselines alone.

`instr` counts each row's instructions under callgrind (deterministic, so two builds
compare on any host): the same harnesses and toggles PERF.md quotes. Needs valgrind.

Python 3 standard library only. Not part of the test suite.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Bench file -> the rows a round runs from it.
BENCHES = {
    "store": ["ilkit_alloc_expr_nodes", "baseline_bump_arena"],
    "copy": [
        "ilkit_deep_copy_forest",
        "box_tree_clone_forest",
        "ilkit_contiguous_subtree",
        "memcpy_same_bytes",
    ],
    "share": ["ilkit_sharing_one_thread", "hashmap_ahash", "hashconsing_crate"],
    "walk": [
        "ilkit_mark_aged",
        "ilkit_mark_fresh",
        "baseline_pointer_recursive_aged",
        "baseline_csr_fifo_prefetch",
        "binary_il_write",
        "binary_il_read",
    ],
}

# (label, ilkit row, baseline row, bar): the ratio is the baseline's median over ilkit's.
RATIOS = [
    ("alloc vs bump arena", "ilkit_alloc_expr_nodes", "baseline_bump_arena", 0.33),
    ("forest vs Box clone", "ilkit_deep_copy_forest", "box_tree_clone_forest", 4.0),
    ("subtree vs memcpy", "ilkit_contiguous_subtree", "memcpy_same_bytes", 0.15),
    ("sharing vs ahash", "ilkit_sharing_one_thread", "hashmap_ahash", 1.5),
    ("sharing vs hashconsing", "ilkit_sharing_one_thread", "hashconsing_crate", 6.0),
    ("keep-in-IL aged", "ilkit_mark_aged", "baseline_pointer_recursive_aged", 4.0),
    ("keep-in-IL fresh", "ilkit_mark_fresh", "baseline_csr_fifo_prefetch", 0.75),
]
BINARY_IL_BAR = 400.0  # MB/s, write + read
CLANG_BAR = 500.0  # MB per user-CPU second
POINTER, BOX = "baseline_pointer_recursive_aged", "box_tree_clone_forest"

UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
BYTES = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024, "MiB": 2**20, "GiB": 2**30}
TIME = r"([\d.]+) (ns|µs|us|ms|s)"
ROW = re.compile(r"^[│├╰─\s]*([a-z_0-9]+)\s+" + TIME + r"\s+│\s+" + TIME + r"\s+│\s+" + TIME)
RATE = r"([\d.]+) ([KMG]?i?B)/s"
THROUGHPUT = re.compile(r"^[│\s]*" + RATE + r"\s+│\s+" + RATE + r"\s+│\s+" + RATE)
CLANG = re.compile(r"^clang: ([\d.]+) MB in ([\d.]+) user-s")


def parse(text):
    """Divan medians (seconds) and median throughputs (bytes/s) by row, and the clang line."""
    medians, rates, clang = {}, {}, None
    last = None
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            last = m.group(1)
            medians[last] = float(m.group(6)) * UNITS[m.group(7)]
            continue
        m = THROUGHPUT.match(line)
        if m and last:
            rates[last] = float(m.group(5)) * BYTES[m.group(6)]
            continue
        m = CLANG.match(line)
        if m:
            clang = float(m.group(1)) / float(m.group(2))
    return medians, rates, clang


def round_values(text):
    """label -> value for one round (missing rows are left out)."""
    med, rates, clang = parse(text)
    out = {}
    for label, ours, base, _ in RATIOS:
        if ours in med and base in med:
            out[label] = med[base] / med[ours]
    w, r = "binary_il_write", "binary_il_read"
    if w in med and r in med and w in rates:
        size = rates[w] * med[w]
        out["binary IL MB/s"] = size / (med[w] + med[r]) / 1e6
    if clang is not None:
        out["clang MB/user-s"] = clang
    for name, key in [(POINTER, "pointer ms"), (BOX, "Box clone ms")]:
        if name in med:
            out[key] = med[name] * 1e3
    return out


BARS = {label: bar for label, _, _, bar in RATIOS}
BARS["binary IL MB/s"] = BINARY_IL_BAR
BARS["clang MB/user-s"] = CLANG_BAR
ORDER = [label for label, _, _, _ in RATIOS] + [
    "binary IL MB/s",
    "clang MB/user-s",
    "pointer ms",
    "Box clone ms",
]


def fmt(v):
    return f"{v:.0f}" if v >= 100 else (f"{v:.2f}" if v >= 1 else f"{v:.3f}")


def cargo_executables(args):
    """Builds with cargo and returns {target name: executable path}."""
    out = subprocess.run(
        ["cargo", *args, "--message-format=json"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    found = {}
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
            found[msg["target"]["name"]] = msg["executable"]
    return found


def bench_executables():
    args = ["bench", "--no-run"]
    for b in BENCHES:
        args += ["--bench", b]
    return cargo_executables(args)


def clang_rate(ilkit, dumps):
    """MB of clang JSON imported per user-CPU second, one `ilkit il stats` per dump."""
    total, user = 0, 0.0
    for f in sorted(Path(dumps).glob("*.json")):
        child = subprocess.Popen(
            [ilkit, "il", "stats", str(f)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(child.pid, 0)
        if status != 0:
            print(f"ilkit il stats {f} failed", file=sys.stderr)
        total += f.stat().st_size
        user += usage.ru_utime
    return total / 1e6, user


def run(args):
    exes = bench_executables()
    ilkit = None
    if args.clang_dumps:
        ilkit = cargo_executables(["build", "--release", "--bin", "ilkit"])["ilkit"]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    first = 1 + max((int(p.suffix[1:]) for p in out.glob("round.*")), default=0)
    for n in range(first, first + args.rounds):
        started = time.strftime("%H:%M:%S")
        text = f"start {started}\n"
        for bench, rows in BENCHES.items():
            r = subprocess.run(
                [exes[bench], "--bench", *rows],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            text += r.stdout
        if ilkit:
            mb, user = clang_rate(ilkit, args.clang_dumps)
            text += f"clang: {mb:.1f} MB in {user:.2f} user-s\n"
        text += f"end {time.strftime('%H:%M:%S')}\n"
        (out / f"round.{n}").write_text(text)
        v = round_values(text)
        print(f"round {n} ({started}): " + ", ".join(f"{k} {fmt(v[k])}" for k in ORDER if k in v))


def summary(args):
    rounds = []
    for d in args.dirs:
        for p in sorted(Path(d).glob("round.*"), key=lambda p: int(p.suffix[1:])):
            text = p.read_text()
            if "\nend " in text:
                rounds.append(round_values(text))

    def quiet(v):
        return (
            v.get("pointer ms", float("inf")) <= args.quiet_pointer_ms
            and v.get("Box clone ms", float("inf")) <= args.quiet_box_ms
        )

    for title, sel in [("all rounds", rounds), ("quiet rounds", [v for v in rounds if quiet(v)])]:
        print(f"{title}: {len(sel)}")
        for k in ORDER:
            vals = [v[k] for v in sel if k in v]
            if not vals:
                continue
            med = statistics.median(vals)
            line = f"  {k:24} median {fmt(med):>6}"
            if k in BARS:
                met = sum(x >= BARS[k] for x in vals)
                verdict = "met" if med >= BARS[k] else "NOT met"
                line += f"  bar {fmt(BARS[k]):>5}  {verdict:7}  {met} of {len(vals)} rounds meet"
            print(line)


# (row, command after `valgrind --tool=callgrind`, extra environment).
def instr_runs():
    exes = bench_executables()
    prof = cargo_executables(["build", "--release", "--example", "profile_binary_il"])
    one = ["--sample-count", "1", "--sample-size", "1"]
    return [
        ("allocation, 10^6 nodes", "*alloc_expr_nodes_work*",
         [exes["store"], "--bench", "ilkit_alloc_expr_nodes", *one], {}),
        ("sharing, one thread (every share_many call)", "*share_many*",
         [exes["share"], "--bench", "ilkit_sharing_one_thread", *one], {}),
        ("keep-in-IL aged (every mark_from call)", "*mark_from*",
         [exes["walk"], "--bench", "ilkit_mark_aged", *one], {}),
        ("keep-in-IL fresh (every mark_from call)", "*mark_from*",
         [exes["walk"], "--bench", "ilkit_mark_fresh", *one], {}),
        ("subtree copy, proof kept", "*profiled_subtree_copy*",
         [exes["copy"], "--bench", "ilkit_contiguous_subtree", *one],
         {"ILKIT_COPY_PROFILE": "subtree"}),
        ("binary IL write, one thread, scale 1", "*write_il_single_threaded*",
         [prof["profile_binary_il"], "--scale", "1", "--callgrind"], {}),
        ("binary IL read, one thread, scale 1", "*read_il_single_threaded*",
         [prof["profile_binary_il"], "--scale", "1", "--callgrind"], {}),
    ]


def instr(args):
    if shutil.which("valgrind") is None:
        sys.exit("bars.py instr: valgrind is not installed")
    lines = []
    for label, toggle, cmd, env in instr_runs():
        outfile = f"/tmp/bars-callgrind.{os.getpid()}"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={outfile}",
             f"--toggle-collect={toggle}", *cmd],
            env={**os.environ, **env},
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        total = None
        for line in Path(outfile).read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
        os.remove(outfile)
        lines.append(f"{label:45} {toggle:30} {total:>15,}")
        print(lines[-1], flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="rounds of every row")
    r.add_argument("--rounds", type=int, default=1)
    r.add_argument("--out", default="target/bars")
    r.add_argument("--clang-dumps", help="directory of full clang JSON dumps (*.json)")
    s = sub.add_parser("summary", help="medians over rounds, all and quiet")
    s.add_argument("dirs", nargs="+")
    s.add_argument("--quiet-pointer-ms", type=float, default=60.0)
    s.add_argument("--quiet-box-ms", type=float, default=110.0)
    i = sub.add_parser("instr", help="instruction counts under callgrind")
    i.add_argument("--out")
    args = p.parse_args()
    {"run": run, "summary": summary, "instr": instr}[args.cmd](args)


if __name__ == "__main__":
    main()
