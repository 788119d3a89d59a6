#!/usr/bin/env python3
"""Classes of the inliner decisions on which opt-14 and ilkit differ.

Usage:
    classify.py REPORT.json [--lcg CALLGRAPH | --module F.ll[.gz]] [--examples K]
                [--json] [--ilkit ILKIT]

REPORT.json is `inline_remarks.py compare ... --json` or `inline_remarks.py run ...
--json` (both decision lists). The call graph tells which functions are in recursive
SCCs: `--lcg` reads `ilkit callgraph F.ll` (or its `--format json`), or the
`opt-14 -passes=print-lcg -disable-output F.ll` text (the same text); `--module`
runs `ilkit callgraph` on the module; without either, the module `run` recorded in
the report is used (with `--prepare` in the report the module is prepared again).
Give the module the inliner saw (the prepared one), not its raw -O0 form.

A (callee, caller) pair whose decision multisets differ is put in one class:

    revisit    the two sides printed a different number of decisions for the pair
               and the caller is in a recursive multi-function SCC (the pass
               manager's re-visits of split SCCs)
    exposed    a different number of decisions otherwise (an earlier different
               decision exposed or removed call sites; `one-sided` when one side
               has no decision at all for the pair)
    threshold  as many decisions on each side, verdicts differ, the same cost
               against a different threshold
    cost<5%    verdicts differ, costs differ by under 5 %
    cost       verdicts differ, costs differ by 5 % or more
    verdict    verdicts differ otherwise (e.g. `never` against a cost)

A pair counts max(decisions only opt-14 made, decisions only ilkit made) sites. For
every class the script prints pairs, sites, the decisions only each side made, how
many pairs have the caller or the callee in a recursive SCC (multi-function, or
calling itself), how many are one-sided, and up to K examples (default 3).

Example:
    scripts/inline_remarks.py run --prepare tests/corpus/llvm/zlib/zlib.O0.ll.gz --json > r.json
    scripts/classify.py r.json
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inline_remarks  # noqa: E402  (same folder)

CLASSES = ["revisit", "exposed", "threshold", "cost<5%", "cost", "verdict"]


# ---------------------------------------------------------------- the call graph

class CallGraph:
    """SCC membership and self-calls of a module's lazy call graph."""

    def __init__(self):
        self.scc_of = {}  # function -> frozenset of its call SCC
        self.self_calls = set()

    def in_multi_scc(self, f):
        return len(self.scc_of.get(f, ())) > 1

    def recursive(self, f):
        return self.in_multi_scc(f) or f in self.self_calls


def parse_lcg_text(text):
    """A CallGraph from `print-lcg` text (`Edges in function:`, `SCC with N functions:`)."""
    g = CallGraph()
    current, scc = None, None
    for line in text.splitlines():
        if line.startswith("  Edges in function: "):
            current, scc = line[len("  Edges in function: "):], None
        elif line.startswith("    call -> ") and current is not None:
            if line[len("    call -> "):] == current:
                g.self_calls.add(current)
        elif line.startswith("    SCC with "):
            current, scc = None, []
        elif line.startswith("      ") and scc is not None and line.strip():
            scc.append(line[6:])
            members = frozenset(scc)
            for f in scc:
                g.scc_of[f] = members
        elif line.startswith("  RefSCC with "):
            current, scc = None, None
    return g


def parse_lcg_json(data):
    """A CallGraph from `ilkit callgraph --format json` (SCCs; edges when present)."""
    g = CallGraph()
    for refscc in data.get("refsccs", []):
        for scc in refscc.get("sccs", []):
            members = frozenset(scc)
            for f in scc:
                g.scc_of[f] = members
    for e in data.get("edges", []) or []:
        if isinstance(e, dict) and e.get("kind", "call") == "call" and e.get("from") == e.get("to"):
            g.self_calls.add(e.get("from"))
    return g


def read_lcg(path):
    text = inline_remarks.read_text(path)
    if text.lstrip().startswith("{"):
        return parse_lcg_json(json.loads(text))
    return parse_lcg_text(text)


def module_lcg(module, ilkit, prepare=False, opt=None):
    """The call graph of `module` by `ilkit callgraph` (decompressed or prepared first)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = inline_remarks.plain_module(module, tmp, prepare, opt or "opt-14")
        out = subprocess.run([ilkit, "callgraph", path], check=True, capture_output=True,
                             text=True).stdout
    return parse_lcg_text(out)


# ---------------------------------------------------------------- classification

def by_pair(decisions):
    out = defaultdict(list)
    for d in decisions:
        out[(d["callee"], d["caller"])].append(d)
    return out


def near(c1, c2):
    return abs(c1 - c2) < 0.05 * max(abs(c1), abs(c2))


def verdict_class(only_opt, only_ilk):
    """Class of a pair with as many decisions on each side but different verdicts:
    its differing decisions are paired in order and the costs compared."""
    pairs = list(zip(only_opt, only_ilk))
    ints = [(a, b) for a, b in pairs
            if isinstance(a["cost"], int) and isinstance(b["cost"], int)]
    if any(a["cost"] == b["cost"] and a["threshold"] != b["threshold"] for a, b in ints):
        return "threshold"
    differ = [(a, b) for a, b in ints if a["cost"] != b["cost"]]
    if differ:
        return "cost<5%" if all(near(a["cost"], b["cost"]) for a, b in differ) else "cost"
    return "verdict"


def classify_pair(pair, opt, ilk, g):
    """`(class, only_opt, only_ilkit)` for one pair's decisions, or None if they agree."""
    only_opt = inline_remarks.unmatched(opt, ilk)
    only_ilk = inline_remarks.unmatched(ilk, opt)
    if not only_opt and not only_ilk:
        return None
    if len(opt) != len(ilk):
        cls = "revisit" if g.in_multi_scc(pair[1]) else "exposed"
    else:
        cls = verdict_class(only_opt, only_ilk)
    return cls, only_opt, only_ilk


def classify(report, g):
    """`{class: [entry]}`, each entry a dict describing one differing pair."""
    opt = by_pair(report["opt"]["decisions"])
    ilk = by_pair(report["ilkit"]["decisions"])
    classes = {c: [] for c in CLASSES}
    for pair in sorted(set(opt) | set(ilk), key=lambda p: (p[1], p[0])):
        r = classify_pair(pair, opt.get(pair, []), ilk.get(pair, []), g)
        if r is None:
            continue
        cls, only_opt, only_ilk = r
        classes[cls].append({
            "callee": pair[0], "caller": pair[1],
            "opt": opt.get(pair, []), "ilkit": ilk.get(pair, []),
            "only_opt": only_opt, "only_ilkit": only_ilk,
            "sites": max(len(only_opt), len(only_ilk)),
            "one_sided": not opt.get(pair) or not ilk.get(pair),
            "caller_recursive": g.recursive(pair[1]),
            "callee_recursive": g.recursive(pair[0]),
        })
    return classes


# ---------------------------------------------------------------- output

def class_row(entries):
    return {
        "pairs": len(entries),
        "sites": sum(e["sites"] for e in entries),
        "only_opt": sum(len(e["only_opt"]) for e in entries),
        "only_ilkit": sum(len(e["only_ilkit"]) for e in entries),
        "one_sided": sum(e["one_sided"] for e in entries),
        "caller_recursive": sum(e["caller_recursive"] for e in entries),
        "callee_recursive": sum(e["callee_recursive"] for e in entries),
    }


def short(ds):
    """`3× inlined (cost=.., threshold=..)`-style summary of a decision list."""
    c = Counter(f"{inline_remarks.verdict(d)} {inline_remarks.cost_text(d)}".strip()
                for d in ds)
    return "; ".join(f"{n}× {t}" if n > 1 else t for t, n in c.items()) or "—"


def print_text(classes, k):
    print("| class | pairs | sites | only opt-14 | only ilkit | one-sided | caller rec. "
          "| callee rec. |")
    print("|---|---|---|---|---|---|---|---|")
    total = []
    for cls in CLASSES:
        r = class_row(classes[cls])
        total += classes[cls]
        print(f"| {cls} | {r['pairs']} | {r['sites']} | {r['only_opt']} | {r['only_ilkit']} "
              f"| {r['one_sided']} | {r['caller_recursive']} | {r['callee_recursive']} |")
    r = class_row(total)
    print(f"| **all** | {r['pairs']} | {r['sites']} | {r['only_opt']} | {r['only_ilkit']} "
          f"| {r['one_sided']} | {r['caller_recursive']} | {r['callee_recursive']} |")
    for cls in CLASSES:
        for e in classes[cls][:k]:
            rec = [w for w, f in (("caller in recursive SCC", e["caller_recursive"]),
                                  ("callee in recursive SCC", e["callee_recursive"])) if f]
            print(f"\n{cls}: '{e['callee']}' into '{e['caller']}'"
                  + (f" ({', '.join(rec)})" if rec else ""))
            print(f"  opt-14: {short(e['opt'])}")
            print(f"  ilkit:  {short(e['ilkit'])}")


def load_graph(a, report):
    if a.lcg:
        return read_lcg(a.lcg)
    if a.module:
        return module_lcg(a.module, a.ilkit)
    if report.get("module"):
        return module_lcg(report["module"], a.ilkit, report.get("prepared", False))
    print("classify.py: no call graph (--lcg or --module); recursion unknown",
          file=sys.stderr)
    return CallGraph()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("report", help="inline_remarks.py --json output")
    p.add_argument("--lcg", help="print-lcg text or ilkit callgraph --format json")
    p.add_argument("--module", help="run ilkit callgraph on this (prepared) module")
    p.add_argument("--examples", type=int, default=3, metavar="K")
    p.add_argument("--json", action="store_true")
    p.add_argument("--ilkit", default=inline_remarks.default_ilkit())
    a = p.parse_args(argv)
    with open(a.report) as f:
        report = json.load(f)
    classes = classify(report, load_graph(a, report))
    if a.json:
        out = {c: {"summary": class_row(es), "pairs": es} for c, es in classes.items()}
        json.dump(out, sys.stdout, indent=1)
        print()
    else:
        print_text(classes, a.examples)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    sys.exit(main())
