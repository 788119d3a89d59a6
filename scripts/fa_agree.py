#!/usr/bin/env python3
"""Agreement of ilkit's `function-attrs` with LLVM 14's, per attribute kind.

Usage:
    fa_agree.py run M.ll[.gz] [M2.ll ...] [--require PCT] [--diff N] [--json]
                    [--opt OPT] [--ilkit ILKIT] [--passes PIPELINE]
    fa_agree.py compare OPT_LINES ILKIT_LINES [--require PCT] [--diff N] [--json]

`run` runs, for each module, `opt-14 -passes='cgscc(function-attrs)' -S` (its
changes read by `fa_diff.py`) and `ilkit cgscc M.ll --passes 'cgscc(function-attrs)'
--format attrs` (`--passes` runs another pipeline on both sides, e.g.
`'cgscc(devirt<4>(inline,function-attrs))'`: items are then counted on the functions
opt-14 keeps); `compare` takes the two sets of change lines already made (the
output of `fa_diff.py` and of `ilkit ... --format attrs`).

An item is one (function, position, signed attribute): `@f arg0 %p +nocapture
+readonly` is two items. Items are counted per kind, the position class and the
signed attribute (`fn +nofree`, `ret +nonnull`, `arg +nocapture`). Printed: per
module the changes opt-14 made, those ilkit made and those both made; per kind
opt-14's, ilkit's, both, opt-14 only, ilkit only and the agreement
both / (both + opt-14 only + ilkit only); an overall line. `--diff N` lists up to N
items only one side made. `--require PCT` exits with status 1 when any kind's
agreement (or the overall one) is below PCT percent.

Tools: `--opt` (default `$OPT14` or `opt-14`), `--ilkit` (default `$ILKIT`, else
`ilkit` on PATH, else the repository's `target/release/ilkit`). Modules may be
gzipped (`tests/corpus/llvm/zlib/zlib.O0.ll.gz`); they are decompressed to a
temporary file first.

Example:
    scripts/fa_agree.py run tests/corpus/llvm/zlib/zlib.O0.ll.gz --require 100
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fa_diff  # noqa: E402  (same folder)
from tools import default_ilkit, plain_file  # noqa: E402  (same folder)

PASSES = "cgscc(function-attrs)"


def opt_lines(module, opt, tmpdir, passes=PASSES):
    """opt-14's changes to `module`, as `fa_diff.py` prints them, and the names of the
    functions its output defines (as the lines print them)."""
    after = os.path.join(tmpdir, "opt-output.ll")
    subprocess.run([opt, f"-passes={passes}", "-S", module, "-o", after], check=True)
    out = fa_diff.read_module(after)
    kept = {"@" + fa_diff.print_name(n) for n in out}
    return fa_diff.change_lines(fa_diff.read_module(module), out), kept


def ilkit_lines(module, ilkit, passes=PASSES, kept=None):
    """ilkit's changes to `module` (`--format attrs`), on the functions in `kept` when
    given."""
    out = subprocess.run([ilkit, "cgscc", module, "--passes", passes, "--format", "attrs"],
                         check=True, capture_output=True, text=True).stdout
    lines = [line for line in out.splitlines() if line.strip()]
    if kept is not None:
        lines = [line for line in lines if line.split()[0] in kept]
    return lines


def read_lines(path):
    """Change lines from a file (blank lines and `#` comments skipped)."""
    text = fa_diff.read_text(path)
    return [l for l in text.splitlines() if l.strip() and not l.startswith("#")]


def items(lines):
    """The set of `(function, position, signed attribute)` of change lines."""
    out = set()
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        func, pos, rest = parts[0], parts[1], parts[2:]
        if pos.startswith("arg"):
            names = [t for t in rest if not t.startswith(("+", "-"))]
            pos = " ".join([pos] + names)
        for attr in rest:
            if attr.startswith(("+", "-")):
                out.add((func, pos, attr))
    return out


def kind(item):
    """`fn +nofree`, `ret +nonnull`, `arg +nocapture`."""
    cls = item[1].split()[0]
    return f"{'arg' if cls.startswith('arg') else cls} {item[2]}"


def pct(both, only_a, only_b):
    total = both + only_a + only_b
    return 100.0 if total == 0 else 100.0 * both / total


class Tally:
    """Items of both sides over one or more modules, per kind."""

    def __init__(self):
        self.modules = []  # (name, opt count, ilkit count, both)
        self.kinds = {}  # kind -> Counter(both, opt_only, ilkit_only)
        self.only = []  # (module, side, item)

    def add(self, name, opt, ilk):
        a, b = items(opt), items(ilk)
        self.modules.append((name, len(a), len(b), len(a & b)))
        for it in a | b:
            c = self.kinds.setdefault(kind(it), Counter())
            c["both" if it in a and it in b else "opt" if it in a else "ilkit"] += 1
        self.only += [(name, "opt-14 only", it) for it in sorted(a - b)]
        self.only += [(name, "ilkit only", it) for it in sorted(b - a)]

    def rows(self):
        """`(kind, opt, ilkit, both, opt only, ilkit only, pct)`, most frequent first."""
        rows = []
        for k, c in self.kinds.items():
            rows.append((k, c["both"] + c["opt"], c["both"] + c["ilkit"], c["both"],
                         c["opt"], c["ilkit"], pct(c["both"], c["opt"], c["ilkit"])))
        rows.sort(key=lambda r: (-r[3] - r[4] - r[5], r[0]))
        return rows

    def overall(self):
        both = sum(r[3] for r in self.rows())
        oo = sum(r[4] for r in self.rows())
        io = sum(r[5] for r in self.rows())
        return both + oo, both + io, both, oo, io, pct(both, oo, io)


def print_report(t, diff_n):
    print("| module | opt-14 changes | ilkit changes | both |")
    print("|---|---|---|---|")
    for name, a, b, both in t.modules:
        print(f"| {name} | {a} | {b} | {both} |")
    print()
    print("| attribute | opt-14 | ilkit | both | opt-14 only | ilkit only | agreement |")
    print("|---|---|---|---|---|---|---|")
    for k, a, b, both, oo, io, p in t.rows():
        print(f"| `{k}` | {a} | {b} | {both} | {oo} | {io} | {p:.1f}% |")
    a, b, both, oo, io, p = t.overall()
    print()
    print(f"overall: opt-14 {a}, ilkit {b}, both {both}, opt-14 only {oo}, "
          f"ilkit only {io}, agreement {p:.2f}%")
    for name, side, (func, pos, attr) in t.only[:diff_n]:
        print(f"{side}: {name}: {func} {pos} {attr}")


def report_json(t):
    a, b, both, oo, io, p = t.overall()
    return {
        "modules": [dict(zip(("module", "opt", "ilkit", "both"), m)) for m in t.modules],
        "kinds": [dict(zip(("kind", "opt", "ilkit", "both", "opt_only", "ilkit_only",
                            "agreement"), r)) for r in t.rows()],
        "overall": dict(zip(("opt", "ilkit", "both", "opt_only", "ilkit_only",
                             "agreement"), (a, b, both, oo, io, p))),
        "only": [{"module": m, "side": s, "item": " ".join(it)} for m, s, it in t.only],
    }


def run_modules(paths, opt, ilkit, passes=PASSES):
    t = Tally()
    for path in paths:
        with tempfile.TemporaryDirectory() as tmp:
            module = plain_file(path, tmp)
            name = os.path.basename(module)
            ours, kept = opt_lines(module, opt, tmp, passes)
            t.add(name, ours, ilkit_lines(module, ilkit, passes, kept))
    return t


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run opt-14 and ilkit on modules")
    r.add_argument("modules", nargs="+")
    r.add_argument("--opt", default=os.environ.get("OPT14", "opt-14"))
    r.add_argument("--ilkit", default=default_ilkit())
    r.add_argument("--passes", default=PASSES,
                   help=f"the pipeline both sides run (default {PASSES})")
    c = sub.add_parser("compare", help="compare two files of change lines")
    c.add_argument("opt_lines", help="fa_diff.py's output")
    c.add_argument("ilkit_lines", help="ilkit cgscc ... --format attrs output")
    for s in (r, c):
        s.add_argument("--require", type=float, metavar="PCT",
                       help="exit 1 when any kind agrees below PCT percent")
        s.add_argument("--diff", type=int, default=0, metavar="N",
                       help="list up to N items only one side made")
        s.add_argument("--json", action="store_true", help="print one JSON object")
    return p.parse_args(argv)


def main(argv=None):
    a = parse_args(argv)
    if a.cmd == "run":
        t = run_modules(a.modules, a.opt, a.ilkit, a.passes)
    else:
        t = Tally()
        t.add(os.path.basename(a.opt_lines), read_lines(a.opt_lines), read_lines(a.ilkit_lines))
    if a.json:
        json.dump(report_json(t), sys.stdout, indent=1)
        print()
    else:
        print_report(t, a.diff)
    if a.require is not None:
        worst = min([r[6] for r in t.rows()] + [t.overall()[5]])
        if worst < a.require:
            print(f"agreement {worst:.2f}% is below the required {a.require}%",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    sys.exit(main())
