#!/usr/bin/env python3
"""Totals of `ilkit il check-instantiations` over many clang JSON ASTs.

Usage:
    check_instantiations.py PATH [PATH ...] [--jobs N] [--json] [--ilkit ILKIT]

Each PATH is a clang JSON AST (`.json`, `.json.gz`) or a folder, of which every
`*.json` and `*.json.gz` is taken (sorted by name). For each file the script runs
`ilkit il check-instantiations FILE --format json` and prints one table row (the
TU is the file name without `.json[.gz]`):

    | TU | routine / class instantiations | (a) agree / checked |
    | (b) agree / compared | (c) agree / checked |

with (a) the substituted non-type parameters (`nttp`), (b) the declaration types
(`decl_types`), (c) the bodies (`bodies`), a percentage where they differ, then a
total row over all files, and the totals of each part's classes of difference
(`differences`) and out-of-scope cases (`out_of_scope`, and the instantiations set
aside, `instantiations_out_of_scope`). Every integer counter of the report is
summed, so keys added later are totalled too (`--json` prints the totals and the
per-file reports as one object). A file ilkit fails on is reported and skipped; the
exit status is then 1.

`--jobs N` runs N files at a time (default 1). ilkit is `--ilkit`, `$ILKIT`,
`ilkit` on PATH, or the repository's `target/release/ilkit`.

Example:
    scripts/check_instantiations.py tests/fixtures/clang
"""

import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tools import default_ilkit  # noqa: E402  (same folder)

PARTS = [("nttp", "(a) substituted non-type parameters"),
         ("decl_types", "(b) declaration types"),
         ("bodies", "(c) bodies")]


def input_files(paths):
    """The JSON files named or contained (one level) in `paths`."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            found = glob.glob(os.path.join(p, "*.json")) + glob.glob(os.path.join(p, "*.json.gz"))
            out += sorted(found)
        else:
            out.append(p)
    return out


def tu_name(path):
    name = os.path.basename(path)
    for ext in (".gz", ".json"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    return name


def check(path, ilkit):
    """`(path, report or None, error text, seconds)` of one file."""
    t0 = time.perf_counter()
    p = subprocess.run([ilkit, "il", "check-instantiations", path, "--format", "json"],
                       capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return path, None, p.stderr.strip() or f"exit status {p.returncode}", dt
    try:
        return path, json.loads(p.stdout), "", dt
    except json.JSONDecodeError as e:
        return path, None, f"unreadable output: {e}", dt


def add_into(total, report):
    """Adds every integer counter of `report` (nested dicts) into `total`."""
    for k, v in report.items():
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            total[k] = total.get(k, 0) + v
        elif isinstance(v, dict):
            add_into(total.setdefault(k, {}), v)


def ratio(part):
    """`agree / checked`, with the percentage when they differ."""
    agree, checked = part.get("agree", 0), part.get("checked", 0)
    s = f"{agree} / {checked}"
    if agree != checked and checked:
        s += f" ({100.0 * agree / checked:.2f} %)"
    return s


def row(name, r):
    cells = [name, f"{r.get('routines', 0)} / {r.get('classes', 0)}"]
    cells += [ratio(r.get(key, {})) for key, _ in PARTS]
    return "| " + " | ".join(cells) + " |"


def print_table(results, total):
    print("| TU | routine / class instantiations | (a) agree / checked "
          "| (b) agree / compared | (c) agree / checked |")
    print("|---|---:|---:|---:|---:|")
    for path, report, _, _ in results:
        if report is not None:
            print(row(tu_name(path), report))
    n = sum(1 for r in results if r[1] is not None)
    print(row(f"**all {n}**", total))


def print_classes(total):
    for key, title in PARTS:
        part = total.get(key, {})
        for what in ("differences", "out_of_scope"):
            classes = part.get(what, {})
            if classes:
                label = "differ" if what == "differences" else "out of scope"
                print(f"\n{title}, {label}:")
                for cls, n in sorted(classes.items(), key=lambda x: (-x[1], x[0])):
                    print(f"  {n:6}  {cls}")
    aside = total.get("instantiations_out_of_scope", {})
    if aside:
        print("\ninstantiations set aside:")
        for cls, n in sorted(aside.items(), key=lambda x: (-x[1], x[0])):
            print(f"  {n:6}  {cls}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", help="clang JSON ASTs or folders of them")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.add_argument("--ilkit", default=default_ilkit())
    a = p.parse_args(argv)
    files = input_files(a.paths)
    if not files:
        sys.exit("check_instantiations.py: no .json or .json.gz files")
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda f: check(f, a.ilkit), files))
    wall = time.perf_counter() - t0
    total = {}
    for _, report, _, _ in results:
        if report is not None:
            add_into(total, report)
    failed = [(f, err) for f, r, err, _ in results if r is None]
    if a.json:
        json.dump({"total": total,
                   "files": {f: r for f, r, _, _ in results if r is not None},
                   "failed": dict(failed)}, sys.stdout, indent=1)
        print()
    else:
        print_table(results, total)
        print_classes(total)
        print(f"\n{len(files)} files, {len(failed)} failed, {wall:.2f} s")
    for f, err in failed:
        print(f"check_instantiations.py: {f}: {err}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    sys.exit(main())
