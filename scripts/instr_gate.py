#!/usr/bin/env python3
"""Deterministic performance gate: instruction counts of the hot paths under callgrind,
against committed baselines (`scripts/instr_baselines.json`).

    scripts/instr_gate.py check [--tolerance PCT] [--rows a,b] [--no-build] [--keep DIR]
    scripts/instr_gate.py baseline [--rows a,b] [--no-build] [--keep DIR]
    scripts/instr_gate.py list

Wall-clock ratios on a shared host move with its load; the instructions a fixed input
executes do not. Each row runs one program under `valgrind --tool=callgrind
--toggle-collect=GLOB`, so only the calls of the row's hot function (and what they call)
are counted, not the input's setup or the harness: a divan bench executable with
`--bench --exact PATH --sample-count 1 --sample-size 1` (as `scripts/bars.py instr`
runs them), or `examples/instr_rows.rs`, whose rows count one `#[inline(never)]`
function each, where the bench gives no function to count (its entry point is inlined
into the bench's closure: clang JSON import, dominators) or its program starts a thread
pool before the counted call (binary IL). Where the hot function also runs in the
bench's setup (a fixture's probe, a correctness check), `--zero-before` on it keeps only
its last call, the sample's. Every input is generated or checked into the repository
(`tests/fixtures`, `tests/corpus`). `list` prints each row's command and callgrind
options.

`check` builds what the rows need (those benches and examples, in the release profile
with one codegen unit, into `TARGET/instr-gate`; cargo honours CARGO_TARGET_DIR and
CARGO_BUILD_JOBS), counts each row, prints row, baseline, now and the change, and exits
1 if a row grew by more than the tolerance (default 3 %), 0 otherwise. A row that shrank
by more than the tolerance passes, with a hint to re-baseline. `baseline` counts the rows and rewrites the baselines file with the
rustc version, the date and the commit (`--rows` updates only those rows). Counts depend
on the compiler: when `rustc -V` differs from the recorded one, `check` warns (it does
not fail); re-baselining on the new compiler is the fix.

Counts are made repeatable by running every program with a fixed environment
(`LC_ALL=C`, `RAYON_NUM_THREADS=1` so that nothing runs on a second thread, and the
row's own variables; nothing of the caller's, so no `DIVAN_*`, `ILKIT_*`, `MALLOC_*` or
`GLIBC_TUNABLES`), and with `getrandom` replaced by a fixed sequence (a small
`LD_PRELOAD` library built with `cc` into the target directory): hash tables seeded at
random (ahash, std) otherwise probe differently in every run, which moves a row by up to
0.02 %. Without `cc` the gate runs anyway and says so.

On a 2-core host that others build on:
`CARGO_TARGET_DIR=DIR CARGO_BUILD_JOBS=1 nice -n 10 python3 scripts/instr_gate.py check`.
Needs valgrind. Python 3 standard library only.
"""

import argparse
import datetime
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no scripts/__pycache__ in the work tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bars import ROOT, cargo_executables  # noqa: E402  (scripts/bars.py)

BASELINES = ROOT / "scripts" / "instr_baselines.json"
DEFAULT_TOLERANCE = 3.0

# The build: release with one codegen unit, as a profile of its own (defined on cargo's
# command line, so Cargo.toml is untouched and `target/release` is not rebuilt). With
# release's 16 units, which unit a generic function is instantiated in, and so whether it
# is inlined into its caller, moves with unrelated edits: one such edit inlined
# `Tarjan::run` into `build_ref_sccs` and moved that row by 4.5 %.
PROFILE = "instr-gate"
PROFILE_CONFIG = [f'profile.{PROFILE}.inherits="release"', f"profile.{PROFILE}.codegen-units=1"]


def divan(path):
    """One divan sample of one iteration of the bench at `path` (crate::module::name);
    `--exact` so that `walk::ilkit_mark_aged` does not also run
    `walk::ilkit_mark_aged_parallel`."""
    return ["--bench", "--exact", path, "--sample-count", "1", "--sample-size", "1"]


def row(name, desc, target, args, toggle, env=None, last_call_of=None, requires=()):
    """`toggle`: callgrind globs; it counts inside any of them, which must not call one
    another (each entry flips collection). `last_call_of`: the exact (demangled) name of
    a toggled function that also runs before the measured call; costs are zeroed on each
    entry to it, so only its last call counts. `requires`: input files (from the
    repository's root) without which the bench would quietly run a smaller stand-in."""
    return {"name": name, "desc": desc, "target": target, "args": args,
            "toggle": [toggle] if isinstance(toggle, str) else toggle,
            "env": env or {}, "last_call_of": last_call_of, "requires": list(requires)}


ZSTD_LL = "tests/corpus/llvm/zstd/zstd.O2.ll.gz"


ROWS = [
    row("alloc", "IL allocation: 10^6 expression nodes into a fresh IL",
        ("bench", "store"), divan("store::ilkit_alloc_expr_nodes"),
        "*alloc_expr_nodes_work*"),
    row("keep_aged", "keep-in-IL marking, aged scale-10 world (the sample's mark_from)",
        ("bench", "walk"), divan("walk::ilkit_mark_aged"), "*keep::mark_from*",
        last_call_of="ilkit::walk::keep::mark_from"),
    row("keep_fresh", "keep-in-IL marking, fresh scale-10 world (the sample's mark_from)",
        ("bench", "walk"), divan("walk::ilkit_mark_fresh"), "*keep::mark_from*",
        last_call_of="ilkit::walk::keep::mark_from"),
    row("subtree_copy", "deep copy of a 10^4-node subtree into a recycled region, "
        "proof kept (the last of 4 passes)",
        ("bench", "copy"), [], "*profiled_subtree_copy*",
        env={"ILKIT_COPY_PROFILE": "subtree", "ILKIT_COPY_PASSES": "4"}),
    row("sharing", "constant sharing: share_many on a one-thread pool (the sample's call)",
        ("bench", "share"), divan("share::ilkit_sharing_one_thread"), "*share_many*",
        last_call_of="ilkit::share::ConstantSharing::share_many"),
    row("binary_il_write", "binary IL write, one thread, scale-1 generated TU",
        ("example", "instr_rows"), ["binary-il"], "*instr_rows::binary_il_write_work*"),
    row("binary_il_read", "binary IL read, one thread, scale-1 generated TU",
        ("example", "instr_rows"), ["binary-il"], "*instr_rows::binary_il_read_work*"),
    row("clang_json", "clang JSON import of tests/fixtures/clang/kernels.json.gz "
        "(decompressed before) into a fresh IL",
        ("example", "instr_rows"), ["clang-json"], "*instr_rows::clang_json_work*"),
    row("callgraph_build", "call-graph build: build_ref_sccs on the call-graph-shaped "
        "10^6-node graph (edge lists made before)",
        ("bench", "callgraph"), divan("callgraph::scc_callgraph_shaped::ilkit_build_ref_sccs"),
        "*LazyCallGraph::build_ref_sccs*"),
    row("lcg_from_module", "lazy call graph from a module: from_module + build_ref_sccs "
        "on tests/corpus/llvm/zstd/zstd.O2.ll.gz (parsed before)",
        ("bench", "callgraph"), divan("callgraph::import_ll::parse_and_build_lcg"),
        ["*callgraph::module::from_module*", "*LazyCallGraph::build_ref_sccs*"],
        requires=[ZSTD_LL]),
    row("idom", "immediate dominators: Rpo::compute + DomTree::compute_auto, unstructured "
        "10^5-block CFG (benches/cfg.rs's)",
        ("example", "instr_rows"), ["idom"], "*instr_rows::idom_work*"),
    row("ll_parse", ".ll parse: Module::from_ll_str (parse_with) on "
        "tests/corpus/llvm/zstd/zstd.O2.ll.gz (14.5 MB, decompressed before)",
        ("bench", "callgraph"), divan("callgraph::import_ll::parse"),
        "*llvm_ir::parse_with*", requires=[ZSTD_LL]),
]
ROW_NAMES = [r["name"] for r in ROWS]

# The whole environment of a counted program, besides the row's own variables.
FIXED_ENV = {"LC_ALL": "C", "RAYON_NUM_THREADS": "1"}

# getrandom(2) and getentropy(3) answering a fixed xorshift sequence, for LD_PRELOAD.
FIXED_GETRANDOM_C = r"""
#include <stddef.h>
#include <sys/types.h>
static unsigned long long state = 0x9e3779b97f4a7c15ULL;
ssize_t getrandom(void *buf, size_t len, unsigned int flags) {
    unsigned char *p = buf;
    (void)flags;
    for (size_t i = 0; i < len; i++) {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17;
        p[i] = (unsigned char)(state >> 24);
    }
    return (ssize_t)len;
}
int getentropy(void *buf, size_t len) { getrandom(buf, len, 0); return 0; }
"""


def select(rows_arg):
    if not rows_arg:
        return ROWS
    wanted = [r.strip() for r in rows_arg.split(",") if r.strip()]
    unknown = [r for r in wanted if r not in ROW_NAMES]
    if unknown:
        sys.exit(f"instr_gate: unknown rows {', '.join(unknown)} "
                 f"(rows: {', '.join(ROW_NAMES)})")
    return [r for r in ROWS if r["name"] in wanted]


def target_dir():
    """Cargo's target directory (CARGO_TARGET_DIR, cargo config, or ROOT/target)."""
    out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"],
                         cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True).stdout
    return Path(json.loads(out)["target_directory"])


def build(rows):
    """Builds the rows' benches and examples; {(kind, target): executable}."""
    args = ["build", "--profile", PROFILE]
    for c in PROFILE_CONFIG:
        args += ["--config", c]
    targets = list(dict.fromkeys(r["target"] for r in rows))
    for kind, name in targets:
        args += [f"--{kind}", name]
    print("building: cargo " + " ".join(args), file=sys.stderr, flush=True)
    found = cargo_executables(args)
    return {t: found[t[1]] for t in targets}


def executables_without_build(rows, tdir):
    """The executables of a previous build (for a bench, its newest hashed file)."""
    out = {}
    for kind, name in dict.fromkeys(r["target"] for r in rows):
        if kind == "example":
            exe = tdir / PROFILE / "examples" / name
        else:
            cands = [p for p in (tdir / PROFILE / "deps").glob(f"{name}-*")
                     if p.suffix == "" and os.access(p, os.X_OK)]
            exe = max(cands, key=lambda p: p.stat().st_mtime) if cands else None
        if exe is None or not exe.exists():
            sys.exit(f"instr_gate: {kind} {name} is not built under {tdir} (drop --no-build)")
        out[(kind, name)] = str(exe)
    return out


def fixed_getrandom(tdir):
    """Builds the LD_PRELOAD library (once); its path, or None without a C compiler."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        return None
    d = tdir / "instr-gate-preload"
    d.mkdir(parents=True, exist_ok=True)
    src, lib = d / "fixed_getrandom.c", d / "fixed_getrandom.so"
    if not (src.exists() and src.read_text() == FIXED_GETRANDOM_C and lib.exists()):
        src.write_text(FIXED_GETRANDOM_C)
        r = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(lib), str(src)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            return None
    return str(lib)


def calls_into(outfile, globs):
    """Calls from outside the toggled functions into them, per callgrind's call arcs."""
    names, caller, callee, total = {}, None, None, 0
    fn_line = re.compile(r"^(c?)fn=\((\d+)\)(?: (.*))?$")

    def toggled(name):
        return any(fnmatch.fnmatchcase(name or "", g) for g in globs)

    with open(outfile) as f:
        for line in f:
            m = fn_line.match(line.rstrip("\n"))
            if m:
                if m.group(3) is not None:
                    names[m.group(2)] = m.group(3)
                if m.group(1):
                    callee = names.get(m.group(2))
                else:
                    caller = names.get(m.group(2))
                continue
            if line.startswith("calls="):
                if toggled(callee) and not toggled(caller):
                    total += int(line[6:].split()[0])
    return total


def count(r, exe, preload, keep_dir=None):
    """Instructions callgrind collects under the row's toggles in one run, and the calls
    into them (None for a row that keeps only the last call)."""
    env = {**FIXED_ENV, **r["env"]}
    if preload:
        env["LD_PRELOAD"] = preload
    opts = [f"--toggle-collect={t}" for t in r["toggle"]]
    if r["last_call_of"]:
        opts.append(f"--zero-before={r['last_call_of']}")
    with tempfile.TemporaryDirectory(prefix="instr-gate-") as tmp:
        out = Path(tmp) / "callgrind.out"
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *opts,
               exe, *r["args"]]
        p = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            sys.stderr.write(p.stderr[-4000:])
            raise RuntimeError(f"{' '.join(cmd)} exited with {p.returncode}")
        totals = {}
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                key, value = line.split()[:2]
                totals[key] = int(value)
        # With --zero-before the call arcs into the function are zeroed too.
        calls = None if r["last_call_of"] else calls_into(out, r["toggle"])
        if keep_dir:
            shutil.copy(out, Path(keep_dir) / f"callgrind.{r['name']}")
    # `totals:` sums the costs in the file: after a --zero-before, only those since the
    # last zeroing (`summary:` may still hold the whole run's when the zeroing ran on
    # another thread than the main one).
    total = totals.get("totals:", totals.get("summary:"))
    if not total:
        raise RuntimeError(f"{r['name']}: nothing counted under {r['toggle']} "
                           "(the function renamed or inlined, or the bench not run?)")
    return total, calls


def measure(rows, no_build=False, keep_dir=None):
    if shutil.which("valgrind") is None:
        sys.exit("instr_gate: valgrind is not installed")
    for r in rows:
        for f in r["requires"]:
            if not (ROOT / f).is_file():
                sys.exit(f"instr_gate: {r['name']} needs {f}, which is missing")
    tdir = target_dir()
    exes = executables_without_build(rows, tdir) if no_build else build(rows)
    preload = fixed_getrandom(tdir)
    if preload is None:
        print("warning: no C compiler for the fixed getrandom; rows with randomly seeded "
              "hash tables vary by up to 0.02 % between runs", file=sys.stderr)
    if keep_dir:
        Path(keep_dir).mkdir(parents=True, exist_ok=True)
    counts = {}
    started = time.monotonic()
    for r in rows:
        t = time.monotonic()
        counts[r["name"]] = count(r, exes[r["target"]], preload, keep_dir)
        print(f"  {r['name']:16} {counts[r['name']][0]:>15,}  "
              f"({time.monotonic() - t:.1f} s)", file=sys.stderr, flush=True)
    print(f"counted {len(rows)} rows in {time.monotonic() - started:.1f} s "
          "(build excluded)", file=sys.stderr)
    return counts, preload is not None


def rustc_version():
    return subprocess.run(["rustc", "-V"], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                          check=True).stdout.strip()


def valgrind_version():
    return subprocess.run(["valgrind", "--version"], stdout=subprocess.PIPE, text=True,
                          check=True).stdout.strip()


def git_commit():
    """HEAD's commit, `+dirty` when tracked files differ from it (read-only git)."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    dirty = subprocess.run(["git", "diff-index", "--quiet", "HEAD", "--"], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return head + ("+dirty" if dirty else "")


def load_baselines():
    return json.loads(BASELINES.read_text()) if BASELINES.exists() else None


def warn_versions(base):
    now = rustc_version()
    if base.get("rustc") and base["rustc"] != now:
        print(f"warning: the baselines were counted with {base['rustc']}, this is {now}: "
              "counts move with the compiler (re-baseline on it if rows differ)",
              file=sys.stderr)
    vg = valgrind_version()
    if base.get("valgrind") and base["valgrind"] != vg:
        print(f"warning: the baselines were counted with {base['valgrind']}, this is {vg}",
              file=sys.stderr)


def check(args):
    base = load_baselines()
    if base is None:
        sys.exit(f"instr_gate: no {BASELINES.relative_to(ROOT)}; run `baseline` first")
    rows = select(args.rows)
    missing = [r["name"] for r in rows if r["name"] not in base["rows"]]
    if missing:
        sys.exit(f"instr_gate: no baseline for {', '.join(missing)}; "
                 f"run `baseline --rows {','.join(missing)}`")
    warn_versions(base)
    counts, fixed = measure(rows, args.no_build, args.keep)
    if base.get("fixed_getrandom") is not None and base["fixed_getrandom"] != fixed:
        print("warning: the baselines were counted "
              f"{'with' if base['fixed_getrandom'] else 'without'} the fixed getrandom, "
              f"this run {'with' if fixed else 'without'} it", file=sys.stderr)
    tol = args.tolerance
    print(f"baselines: commit {base.get('commit', '?')}, {base.get('date', '?')}, "
          f"{base.get('rustc', '?')}")
    print(f"{'row':16} {'baseline':>15} {'now':>15} {'change':>9}  verdict "
          f"(tolerance {tol:g} %)")
    failed, improved = [], []
    for r in rows:
        name = r["name"]
        b = base["rows"][name]["instructions"]
        n, calls = counts[name]
        pct = 100.0 * (n - b) / b
        if pct > tol:
            verdict = "REGRESSED"
            failed.append(name)
        elif pct < -tol:
            verdict = "improved: re-baseline"
            improved.append(name)
        else:
            verdict = "ok"
        bcalls = base["rows"][name].get("calls")
        if bcalls is not None and calls is not None and bcalls != calls:
            verdict += f" (calls into the toggle {bcalls} -> {calls}: harness changed?)"
        print(f"{name:16} {b:>15,} {n:>15,} {pct:>+8.3f}%  {verdict}")
    if improved:
        print(f"improved beyond the tolerance: {', '.join(improved)}; if that is meant, "
              f"re-baseline: scripts/instr_gate.py baseline --rows {','.join(improved)}")
    if failed:
        print(f"FAIL: {', '.join(failed)} grew by more than {tol:g} %")
        return 1
    print("PASS")
    return 0


def describe(r):
    kind, target = r["target"]
    envs = [f"{k}={v}" for k, v in r["env"].items()]
    opts = [f"--toggle-collect='{t}'" for t in r["toggle"]]
    if r["last_call_of"]:
        opts.append(f"--zero-before='{r['last_call_of']}'")
    return " ".join([*envs, f"{kind}:{target}", *r["args"]]), " ".join(opts)


def baseline(args):
    rows = select(args.rows)
    counts, fixed = measure(rows, args.no_build, args.keep)
    old = load_baselines() if args.rows else None
    data = {
        "about": "Instruction counts of the rows of scripts/instr_gate.py (callgrind, "
                 "deterministic); written by `scripts/instr_gate.py baseline`.",
        "rustc": rustc_version(),
        "valgrind": valgrind_version(),
        "fixed_getrandom": fixed,
        "date": datetime.date.today().isoformat(),
        "commit": git_commit(),
        "rows": dict(old["rows"]) if old else {},
    }
    for r in rows:
        command, opts = describe(r)
        data["rows"][r["name"]] = {
            "instructions": counts[r["name"]][0],
            "description": r["desc"],
            "command": command,
            "callgrind": opts,
        }
        if counts[r["name"]][1] is not None:
            data["rows"][r["name"]]["calls"] = counts[r["name"]][1]
    data["rows"] = {k: data["rows"][k] for k in ROW_NAMES if k in data["rows"]}
    BASELINES.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {BASELINES.relative_to(ROOT)} ({len(rows)} rows counted)")
    for r in rows:
        print(f"{r['name']:16} {counts[r['name']][0]:>15,}")
    return 0


def list_rows(_args):
    for r in ROWS:
        command, opts = describe(r)
        print(f"{r['name']:16} {r['desc']}\n{'':16} {command}\n{'':16} {opts}")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    for cmd, help_ in [("check", "count the rows and compare them with the baselines"),
                       ("baseline", "count the rows and rewrite the baselines")]:
        s = sub.add_parser(cmd, help=help_)
        s.add_argument("--rows", help="comma-separated subset of the rows (see `list`)")
        s.add_argument("--no-build", action="store_true",
                       help="use the executables of a previous build")
        s.add_argument("--keep", metavar="DIR",
                       help="keep each row's callgrind output in DIR (callgrind_annotate)")
        if cmd == "check":
            s.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                           help="allowed growth in percent (default %(default)s)")
    sub.add_parser("list", help="the rows, their commands and callgrind options")
    args = p.parse_args()
    sys.exit({"check": check, "baseline": baseline, "list": list_rows}[args.cmd](args))


if __name__ == "__main__":
    main()
