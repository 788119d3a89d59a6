"""The lines of ``capi/examples/summary.rs`` (the Rust API's answers on the repository's
corpus), computed with the Python module alone: the same inputs in the same order, the
same arrays hashed with the same FNV-1a 64.

    python python/tests/summary.py [REPO_ROOT]

``test_summary.py`` compares these lines with ``summary.golden.txt``, the Rust example's
output (``capi/tests/summary_golden.rs`` keeps that file equal to it).
"""

import re
import sys
from pathlib import Path

import numpy as np

import ilkit
from ilkit import graph

NONE = ilkit.NONE


class Fnv:
    """FNV-1a 64, fed as the Rust example feeds it."""

    def __init__(self):
        self.h = 0xCBF29CE484222325

    def bytes(self, b):
        h = self.h
        for x in b:
            h = ((h ^ x) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        self.h = h

    def array(self, a):
        """A ``u32`` array: its length, then its values, little-endian."""
        a = np.asarray(a)
        assert a.ndim == 1 and (a.size == 0 or a.dtype == np.uint32), a.dtype
        self.bytes(np.uint32(len(a)).astype("<u4").tobytes())
        self.bytes(a.astype("<u4").tobytes())

    def name(self, s):
        """A name: its UTF-8 bytes and a NUL."""
        self.bytes(s.encode() + b"\0")

    def hex(self):
        return f"{self.h:016x}"


def known_graphs():
    # the diamond of the C example: 0 -> {1, 2} -> 3, 4 -> 3
    indptr, indices = graph.csr_from_edges(5, [0, 0, 1, 2, 4], [1, 2, 3, 3, 3])
    assert graph.idom(indptr, indices, 0).tolist() == [0, 0, 0, 0, NONE]
    return "graphs: ok"


def call_graph(root, rel):
    g = ilkit.Module.from_ll(root / rel).call_graph()
    h = Fnv()
    refsccs = g.refsccs()
    sccs = 0
    for rc in refsccs:
        for scc in rc:
            sccs += 1
            for n in scc:
                h.name(n)
            h.bytes(b"\xff")
        h.bytes(b"\xfe")
    defined = int(np.count_nonzero(g.defined))
    return f"callgraph {rel}: nodes {g.num_nodes} defined {defined} sccs {sccs} refsccs {len(refsccs)} hash {h.hex()}"


def cfgs(root, kind, rel):
    path = root / rel
    cfgs = ilkit.cfgs_from_ptx(path) if kind == "ptx" else ilkit.cfgs_from_ll(path)
    h = Fnv()
    blocks = loops = 0
    for c in cfgs:
        h.bytes(c.name.encode())
        blocks += c.num_blocks
        loops += len(c.loop_header)
        for a in [
            c.succ_starts,
            c.succ_nodes,
            c.rpo,
            c.idom,
            c.dom_level,
            c.frontier_starts,
            c.frontier_nodes,
            c.ipdom,
            c.pdom_roots,
            c.loop_header,
            c.loop_parent,
            c.loop_depth,
            c.loop_block_starts,
            c.loop_blocks,
            c.block_loop,
        ]:
            h.array(a)
        for b in c.block_names:
            h.name(b)
    return f"cfgs {rel}: functions {len(cfgs)} blocks {blocks} loops {loops} hash {h.hex()}"


def device_il(root, rel):
    d = ilkit.device_il(root / rel)
    h = Fnv()
    for n in d["routines"]:
        h.name(n)
    h.bytes(d["il"])
    return (
        f"il {rel}: kept {d['kept']} live {d['live']} routines {len(d['routines'])} "
        f"bytes {len(d['il'])} hash {h.hex()}"
    )


def errors(root):
    path = root / "tests/fixtures/clang/kernels.json.gz"
    try:
        ilkit.Module.from_ll(path)
    except ilkit.ParseError as e:
        m = re.match(re.escape(str(path)) + r":(\d+):(\d+): ", str(e))
        assert m and int(m[1]) >= 1 and int(m[2]) >= 1, str(e)
    else:
        raise AssertionError(f"{path} parsed as LLVM IR")
    return "errors: ok"


def summary_lines(root):
    """Every line of ``capi/examples/summary.rs`` for the repository at ``root``."""
    root = Path(root)
    return [
        known_graphs(),
        call_graph(root, "tests/corpus/llvm/zlib/zlib.O2.ll.gz"),
        cfgs(root, "ll", "tests/corpus/llvm/zlib/zlib.O2.ll.gz"),
        cfgs(root, "ptx", "tests/corpus/llvm/zlib/nvptx/deflate.ptx.gz"),
        device_il(root, "tests/fixtures/clang/kernels.json.gz"),
        errors(root),
    ]


def main(argv):
    root = argv[1] if len(argv) > 1 else Path(__file__).resolve().parents[2]
    for line in summary_lines(root):
        print(line)


if __name__ == "__main__":
    main(sys.argv)
