#!/usr/bin/env python3
"""Compare the inliner's decisions of opt-14 and ilkit, read from their remarks.

Usage:
    inline_remarks.py parse REMARKS.txt [--json]
    inline_remarks.py compare OPT.txt ILKIT.txt [--diff N] [--json]
    inline_remarks.py run F.ll[.gz] [--prepare] [--threshold N] [--passes P]
                      [--repeat K] [--save-dir DIR] [--diff N] [--json]
                      [--opt OPT] [--ilkit ILKIT]

The remarks are the text that

    opt-14 -passes='cgscc(devirt<4>(inline))' -pass-remarks=inline \\
        -pass-remarks-missed=inline -disable-output F.ll 2>OPT.txt

writes on standard error, and what

    ilkit cgscc F.ll --passes 'cgscc(devirt<4>(inline))' --inline-model llvm14 \\
        --remarks >ILKIT.txt

prints (ilkit prints the remarks in opt's text; lines not starting with `remark:`
are skipped). Each remark that records a decision becomes one decision: callee,
caller, inlined or not, with its cost, threshold and reason. LLVM 14's forms:

    'g' inlined into 'f' with (cost=N, threshold=T)
    'g' inlined into 'f' with (cost=always): always inline attribute
    'g' not inlined into 'f' because too costly to inline (cost=N, threshold=T)
    'g' not inlined into 'f' because it should never be inlined (cost=never): REASON
    'g' is not inlined into 'f': REASON                (the inlining itself failed)
    Not inlining. Cost of inlining 'g' increases the cost of inlining 'f' in other contexts
    g will not be inlined into f because its definition is unavailable

(the location before them, `<unknown>:0:0` or `file.c:12:3`, and the
` at callsite f:1:2;` opt appends with debug information are ignored; ilkit's
summary-model form `remark: inline: Kind: ... at callsite LOC;` is read too). The
last form (NoDefinition; opt prints it only into a YAML file) is not a decision
unless `--no-definition` is given. Other remarks the `inline` regular expression
lets through (`g has uninlinable pattern (recursive) and cost is not fully
computed`, from InlineCost) are counted as skipped.

`parse` prints one line per decision. `compare` turns both files into multisets of
(callee, caller, inlined) and prints the counts on each side, the decisions both
made (multiset intersection), A→B = the share of opt-14's decisions ilkit
reproduces and B→A = the share of ilkit's decisions opt-14 made, the same per
verdict, the decisions made at the same cost and threshold too (the remark text
agrees; the share is of the larger side), and with `--diff N` the first N
decisions only one side made. `--json`
prints all of it, with both decision lists, as one object (what `classify.py`
reads).

`run` runs both tools on F.ll itself (`--prepare` first runs `prepare_module.sh`
on it, for a raw clang -O0 module) and compares. `--threshold N` passes
`-inline-threshold=N` to opt and `--inline-threshold N` to ilkit. With `--repeat K`
each tool runs K times, alternated, and the median wall time of the whole process
(`time.perf_counter` around the subprocess) is reported; the remarks are those of
the first run. `--save-dir DIR` keeps `opt.txt` and `ilkit.txt`.

Tools: `--opt` (default `$OPT14` or `opt-14`), `--ilkit` (default `$ILKIT`, else
`ilkit` on PATH, else the repository's `target/release/ilkit`). F.ll may be gzipped.

Example (zlib, PERF.md "Inliner vs LLVM 14"):
    scripts/inline_remarks.py run --prepare tests/corpus/llvm/zlib/zlib.O0.ll.gz --repeat 5
"""

import argparse
import gzip
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tools import default_ilkit, plain_file  # noqa: E402  (same folder)

DEFAULT_PASSES = "cgscc(devirt<4>(inline))"
SCRIPTS = os.path.dirname(os.path.abspath(__file__))

# `remark: LOC: TEXT`; LOC is `<unknown>:0:0` or `file:line:col`.
REMARK_RE = re.compile(r"^remark: (?:(?P<loc>.*?:\d+:\d+)|(?P<pass>[-\w.]+)): (?P<text>.*)$")
# ilkit's summary-model prefix and suffix (`Inlined: ... at callsite f:2;`).
SUMMARY_KIND_RE = re.compile(r"^(?P<kind>[A-Z]\w*): (?P<text>.*)$")
CALLSITE_RE = re.compile(r" at callsite [^;]*;$")

# The inline cost as printed: `(cost=N, threshold=T)`, `(cost=always): reason`.
COST_RE = re.compile(
    r"\(cost=(?P<cost>-?\d+|always|never)(?:, threshold=(?P<thr>-?\d+))?\)(?:: (?P<reason>.*))?")

INLINED_RE = re.compile(r"^'(?P<callee>.+?)' inlined into '(?P<caller>.+?)'(?: with (?P<ic>.*))?$")
NOT_INLINED_RE = re.compile(
    r"^'(?P<callee>.+?)' not inlined into '(?P<caller>.+?)' because (?P<why>.*)$")
FAILED_RE = re.compile(r"^'(?P<callee>.+?)' is not inlined into '(?P<caller>.+?)': (?P<reason>.*)$")
DEFERRED_RE = re.compile(
    r"^Not inlining\. Cost of inlining '(?P<callee>.+?)' increases the cost of inlining "
    r"'(?P<caller>.+?)' in other contexts$")
NO_DEFINITION_RE = re.compile(
    r"^'?(?P<callee>.+?)'? will not be inlined into '?(?P<caller>.+?)'? because its "
    r"definition is unavailable$")


def parse_cost(text):
    """`(cost, threshold, reason)` from the text after `with` / `because ...`:
    cost is an int, `always` or `never` (None when absent)."""
    m = COST_RE.search(text or "")
    if not m:
        return None, None, None
    cost = m.group("cost")
    cost = int(cost) if cost not in ("always", "never") else cost
    thr = int(m.group("thr")) if m.group("thr") is not None else None
    return cost, thr, m.group("reason")


def decision(kind, m, inlined, cost=None, thr=None, reason=None):
    return {"callee": m.group("callee"), "caller": m.group("caller"), "inlined": inlined,
            "kind": kind, "cost": cost, "threshold": thr, "reason": reason}


def parse_not_inlined(m):
    """A `not inlined into ... because WHY` remark."""
    why = m.group("why")
    cost, thr, reason = parse_cost(why)
    if why.startswith("too costly to inline"):
        return decision("TooCostly", m, False, cost, thr, reason)
    if why.startswith("it should never be inlined"):
        if reason is None:  # ilkit's summary form: `...inlined: REASON (cost=never)`
            r = re.match(r"it should never be inlined: (.*?)(?: \(cost=never\))?$", why)
            reason = r.group(1) if r else None
        return decision("NeverInline", m, False, cost, thr, reason)
    return decision("NotInlined", m, False, cost, thr, reason or why)


def parse_text(text, no_definition=False):
    """The decision one remark's text records, or None."""
    m = INLINED_RE.match(text)
    if m:
        cost, thr, reason = parse_cost(m.group("ic"))
        kind = "AlwaysInline" if cost == "always" else "Inlined"
        return decision(kind, m, True, cost, thr, reason)
    m = NOT_INLINED_RE.match(text)
    if m:
        return parse_not_inlined(m)
    m = FAILED_RE.match(text)
    if m:
        return decision("NotInlined", m, False, reason=m.group("reason"))
    m = DEFERRED_RE.match(text)
    if m:
        return decision("Deferred", m, False, reason="increases the cost in other contexts")
    m = NO_DEFINITION_RE.match(text)
    if m and no_definition:
        return decision("NoDefinition", m, False, reason="definition unavailable")
    return None


def parse_remarks(text, no_definition=False):
    """`(decisions, skipped)`: the decisions of the `remark:` lines in order (each with
    its line number), and how many `remark:` lines were no decision."""
    decisions, skipped = [], 0
    for n, line in enumerate(text.splitlines(), 1):
        m = REMARK_RE.match(line.rstrip())
        if not m:
            continue
        body = m.group("text")
        if m.group("pass"):  # ilkit's summary form
            k = SUMMARY_KIND_RE.match(body)
            body = k.group("text") if k else body
        body = CALLSITE_RE.sub("", body)  # opt adds it with debug locations
        d = parse_text(body, no_definition)
        if d is None:
            skipped += 1
            continue
        d["line"] = n
        decisions.append(d)
    return decisions, skipped


def read_text(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return f.read()


def key(d):
    return (d["callee"], d["caller"], d["inlined"])


def verdict(d):
    return "inlined" if d["inlined"] else "not inlined"


def cost_text(d):
    if d["cost"] is None:
        s = ""
    elif d["threshold"] is None:
        s = f"(cost={d['cost']})"
    else:
        s = f"(cost={d['cost']}, threshold={d['threshold']})"
    if d.get("reason") and d["kind"] not in ("Inlined", "TooCostly"):
        s += f": {d['reason']}" if s else d["reason"]
    return s


def describe(d):
    return f"'{d['callee']}' {verdict(d)} into '{d['caller']}' {cost_text(d)}".rstrip()


def unmatched(mine, theirs):
    """The decisions of `mine` left over after matching `theirs` as multisets: for each
    (callee, caller, verdict) the occurrences beyond the other side's count, in order."""
    left = Counter(key(d) for d in theirs)
    out = []
    for d in mine:
        k = key(d)
        if left[k] > 0:
            left[k] -= 1
        else:
            out.append(d)
    return out


def share(part, whole):
    return 100.0 * part / whole if whole else 100.0


def compare(opt, ilk):
    """The summary of two decision lists (see the module docstring)."""
    a, b = Counter(map(key, opt)), Counter(map(key, ilk))
    both = a & b
    summary = {
        "opt": len(opt), "ilkit": len(ilk), "agree": sum(both.values()),
        "opt_inlined": sum(d["inlined"] for d in opt),
        "ilkit_inlined": sum(d["inlined"] for d in ilk),
    }
    summary["a_to_b"] = share(summary["agree"], summary["opt"])
    summary["b_to_a"] = share(summary["agree"], summary["ilkit"])
    per = {}
    for v in (True, False):
        na = sum(c for k, c in a.items() if k[2] == v)
        nb = sum(c for k, c in b.items() if k[2] == v)
        nboth = sum(c for k, c in both.items() if k[2] == v)
        per["inlined" if v else "not inlined"] = {
            "opt": na, "ilkit": nb, "agree": nboth,
            "a_to_b": share(nboth, na), "b_to_a": share(nboth, nb)}
    summary["per_verdict"] = per
    # the same decision at the same cost and threshold: the remark text itself agrees
    exact = lambda d: key(d) + (d["cost"], d["threshold"])
    summary["exact"] = sum((Counter(map(exact, opt)) & Counter(map(exact, ilk))).values())
    summary["exact_share"] = share(summary["exact"], max(summary["opt"], summary["ilkit"]))
    return summary


def print_summary(s, skipped, diff_n, only_opt, only_ilk):
    print(f"opt-14: {s['opt']} decisions ({s['opt_inlined']} inlined, "
          f"{s['opt'] - s['opt_inlined']} not), {skipped[0]} other remarks skipped")
    print(f"ilkit:  {s['ilkit']} decisions ({s['ilkit_inlined']} inlined, "
          f"{s['ilkit'] - s['ilkit_inlined']} not), {skipped[1]} other remarks skipped")
    print(f"agree:  {s['agree']}")
    print(f"A→B (opt-14's decisions ilkit reproduces): {s['agree']}/{s['opt']} = "
          f"{s['a_to_b']:.1f} %")
    print(f"B→A (ilkit's decisions opt-14 made):       {s['agree']}/{s['ilkit']} = "
          f"{s['b_to_a']:.1f} %")
    for v, p in s["per_verdict"].items():
        print(f"  {v:12} opt-14 {p['opt']:6}  ilkit {p['ilkit']:6}  agree {p['agree']:6}"
              f"  A→B {p['a_to_b']:5.1f} %  B→A {p['b_to_a']:5.1f} %")
    print(f"same cost and threshold too: {s['exact']} = {s['exact_share']:.1f} %")
    print(f"differing: {len(only_opt)} only in opt-14, {len(only_ilk)} only in ilkit")
    if diff_n:
        for d in only_opt[:diff_n]:
            print(f"  opt-14 only (line {d['line']}): {describe(d)}")
        for d in only_ilk[:diff_n]:
            print(f"  ilkit only  (line {d['line']}): {describe(d)}")


def print_run_header(extra):
    """The module, pipeline and times of a `run`."""
    if "module" in extra:
        print(f"module: {extra['module']}{' (prepared)' if extra.get('prepared') else ''}")
        print(f"passes: {extra['passes']}" + (f", inline threshold {extra['threshold']}"
                                             if extra.get("threshold") is not None else ""))
    for tool, t in extra.get("times", {}).items():
        print(f"{tool} time: median {t['median']:.3f} s over {len(t['runs'])} "
              f"run(s) ({', '.join(f'{x:.3f}' for x in t['runs'])})")


def report(opt_file, ilk_file, args, extra=None):
    """Parse, compare and print two remark texts; returns the exit status."""
    opt, sk_a = parse_remarks(opt_file[1], args.no_definition)
    ilk, sk_b = parse_remarks(ilk_file[1], args.no_definition)
    s = compare(opt, ilk)
    only_opt, only_ilk = unmatched(opt, ilk), unmatched(ilk, opt)
    if args.json:
        out = dict(extra or {})
        out.update({
            "summary": s,
            "opt": {"file": opt_file[0], "skipped": sk_a, "decisions": opt},
            "ilkit": {"file": ilk_file[0], "skipped": sk_b, "decisions": ilk},
            "only_opt": only_opt, "only_ilkit": only_ilk,
        })
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0
    print_run_header(extra or {})
    print_summary(s, (sk_a, sk_b), args.diff, only_opt, only_ilk)
    return 0


# ---------------------------------------------------------------- running the tools

def plain_module(path, tmpdir, prepare, opt):
    """A plain-text module to give both tools: `path` itself, its decompressed copy,
    or (`prepare`) the output of `prepare_module.sh`."""
    if prepare:
        out = os.path.join(tmpdir, "prepared.ll")
        env = dict(os.environ, OPT14=opt)
        subprocess.run([os.path.join(SCRIPTS, "prepare_module.sh"), path, out],
                       check=True, env=env)
        return out
    return plain_file(path, tmpdir)


def commands(module, a):
    """The opt-14 and ilkit command lines for module `module`."""
    opt = [a.opt, f"-passes={a.passes}", "-pass-remarks=inline",
           "-pass-remarks-missed=inline", "-disable-output", module]
    ilk = [a.ilkit, "cgscc", module, "--passes", a.passes, "--inline-model", "llvm14",
           "--remarks"]
    if a.threshold is not None:
        opt.insert(1, f"-inline-threshold={a.threshold}")
        ilk += ["--inline-threshold", str(a.threshold)]
    return opt, ilk


def timed(cmd, stream):
    """`(seconds, text)`: one whole run of `cmd`, `stream` ('stdout' or 'stderr')."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return dt, getattr(p, stream)


def run_tools(module, a):
    """Runs both tools `a.repeat` times, alternated; `(opt text, ilkit text, times)`."""
    opt_cmd, ilk_cmd = commands(module, a)
    runs = {"opt-14": [], "ilkit": []}
    texts = {}
    for i in range(max(1, a.repeat)):
        order = [("opt-14", opt_cmd, "stderr"), ("ilkit", ilk_cmd, "stdout")]
        if i % 2:
            order.reverse()
        for name, cmd, stream in order:
            dt, text = timed(cmd, stream)
            runs[name].append(dt)
            texts.setdefault(name, text)
    times = {k: {"median": statistics.median(v), "runs": v} for k, v in runs.items()}
    return texts["opt-14"], texts["ilkit"], times


def cmd_run(a):
    with tempfile.TemporaryDirectory() as tmp:
        module = plain_module(a.module, tmp, a.prepare, a.opt)
        opt_text, ilk_text, times = run_tools(module, a)
    if a.save_dir:
        os.makedirs(a.save_dir, exist_ok=True)
        for name, text in (("opt.txt", opt_text), ("ilkit.txt", ilk_text)):
            with open(os.path.join(a.save_dir, name), "w") as f:
                f.write(text)
    extra = {"module": a.module, "passes": a.passes, "prepared": a.prepare,
             "threshold": a.threshold, "times": times}
    return report(("opt-14", opt_text), ("ilkit", ilk_text), a, extra)


def cmd_parse(a):
    decisions, skipped = parse_remarks(read_text(a.remarks), a.no_definition)
    if a.json:
        json.dump({"skipped": skipped, "decisions": decisions}, sys.stdout, indent=1)
        print()
        return 0
    for d in decisions:
        print(f"{d['caller']}\t{d['callee']}\t{verdict(d)}\t{d['kind']}\t"
              f"{'' if d['cost'] is None else d['cost']}\t"
              f"{'' if d['threshold'] is None else d['threshold']}\t{d['reason'] or ''}")
    print(f"# {len(decisions)} decisions, {skipped} other remarks skipped", file=sys.stderr)
    return 0


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("parse", help="one line per decision of a remark file")
    pp.add_argument("remarks")
    c = sub.add_parser("compare", help="compare opt-14's and ilkit's remark files")
    c.add_argument("opt_remarks")
    c.add_argument("ilkit_remarks")
    r = sub.add_parser("run", help="run opt-14 and ilkit on a module and compare")
    r.add_argument("module")
    r.add_argument("--prepare", action="store_true",
                   help="run prepare_module.sh on the module first (raw clang -O0 input)")
    r.add_argument("--passes", default=DEFAULT_PASSES)
    r.add_argument("--threshold", type=int, help="the inline threshold (default 225)")
    r.add_argument("--repeat", type=int, default=1, metavar="K",
                   help="runs per tool, alternated; the median time is reported")
    r.add_argument("--save-dir", metavar="DIR", help="keep opt.txt and ilkit.txt here")
    r.add_argument("--opt", default=os.environ.get("OPT14", "opt-14"))
    r.add_argument("--ilkit", default=default_ilkit())
    for s in (pp, c, r):
        s.add_argument("--json", action="store_true", help="print one JSON object")
        s.add_argument("--no-definition", action="store_true",
                       help="count 'definition is unavailable' remarks as decisions")
    for s in (c, r):
        s.add_argument("--diff", type=int, default=0, metavar="N",
                       help="print the first N decisions only one side made")
    return p.parse_args(argv)


def main(argv=None):
    a = parse_args(argv)
    if a.cmd == "parse":
        return cmd_parse(a)
    if a.cmd == "compare":
        return report((a.opt_remarks, read_text(a.opt_remarks)),
                      (a.ilkit_remarks, read_text(a.ilkit_remarks)), a)
    return cmd_run(a)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    sys.exit(main())
