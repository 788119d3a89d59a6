"""ilkit vs rustworkx vs networkx from Python, in one run, with equal answers asserted.

    python benches/python/bench.py [--sizes 100000,1000000] [--networkx-max 100000]
                                   [--repeat 5] [--quick]

For each size and shape (call-graph-shaped: sparse, power-law in- and out-degrees, a
few cycles; CFG-shaped: one entry, fall-through and forward branches, nested loops), it
times SCCs and immediate dominators with each library on its own graph type (built
before timing; building is not timed), checks that the answers agree, and prints a
table of the best time of each and ilkit's speed-up. Then the per-call cost on a
10-node graph: the Python call against the same work called from Rust in a loop.

Needs numpy, networkx and rustworkx (``pip install numpy networkx rustworkx``) and
ilkit (``pip install .`` at the repository root).
"""

import argparse
import gc
import sys
import time

import numpy as np

import ilkit
from ilkit import _native, graph


def call_graph_shaped(n, seed):
    """A call-graph-shaped graph: out-degrees and callee popularity power-law (a few
    functions called from everywhere, most from one or two places), calls mostly to
    functions defined earlier (callees first, as in a C file), and about 2% of edges
    going the other way, which makes cycles (recursion through callbacks)."""
    rng = np.random.default_rng(seed)
    out_deg = np.minimum(rng.zipf(2.0, n) - 1, 200)  # mean ~0.6, heavy tail
    out_deg += rng.integers(0, 4, n)  # mean ~2.1 extra
    m = int(out_deg.sum())
    src = np.repeat(np.arange(n, dtype=np.int64), out_deg)
    # popularity: callee rank ~ Zipf, mapped to an earlier node for most edges
    back = rng.random(m) < 0.02
    span = np.maximum(src, 1)
    pop = np.minimum(rng.zipf(1.6, m), 10**9)
    dst = src - 1 - (pop - 1) % span  # earlier than the caller
    dst = np.where(src == 0, 0, dst)
    dst[back] = rng.integers(0, n, back.sum())  # any node: cycles
    dst = np.clip(dst, 0, n - 1)
    # the last node is `main`: it calls every 64th function (the entry points), so
    # dominators from it cover most of the graph
    entry = np.arange(0, n - 1, 64, dtype=np.int64)
    src = np.concatenate([src, np.full(entry.size, n - 1)])
    dst = np.concatenate([dst, entry])
    return src, dst, n - 1


def cfg_shaped(n, seed):
    """A CFG-shaped graph: block i falls through to i + 1; a third of the blocks end in
    a conditional branch forward (a short skip, an if/else join); loops are back edges
    from the end of a body to its header, nested (a loop body is a range, bodies nest
    or follow each other); a few blocks return. Entry 0."""
    rng = np.random.default_rng(seed)
    src = [np.arange(n - 1, dtype=np.int64)]
    dst = [np.arange(1, n, dtype=np.int64)]
    br = np.nonzero(rng.random(n) < 0.33)[0]
    br = br[br < n - 2]
    src.append(br)
    dst.append(np.minimum(br + 2 + rng.integers(0, 6, br.size), n - 1))
    # loops: back edges latch -> header, header < latch, lengths log-uniform
    k = n // 20
    lat = rng.integers(1, n, k)
    length = np.exp(rng.uniform(0, np.log(2000), k)).astype(np.int64)
    hdr = np.maximum(lat - length, 0)
    src.append(lat)
    dst.append(hdr)
    # loop exits jump past the latch
    ex = rng.integers(0, k, k // 2)
    src.append(np.clip(hdr[ex] + 1, 0, n - 1))
    dst.append(np.minimum(lat[ex] + 1, n - 1))
    return np.concatenate(src), np.concatenate(dst), 0


class Graph:
    def __init__(self, shape, n, src, dst, root):
        self.shape, self.n, self.root = shape, n, root
        self.src, self.dst = src, dst
        self.indptr, self.indices = graph.csr_from_edges(n, src, dst)
        self.m = len(self.indices)
        self._rx = self._nx = None

    def rx(self):
        if self._rx is None:
            import rustworkx as rx

            g = rx.PyDiGraph(multigraph=True)
            g.add_nodes_from(range(self.n))
            # edges in CSR order, so every library sees successors in the same order
            s = np.repeat(np.arange(self.n), np.diff(self.indptr.astype(np.int64)))
            g.add_edges_from_no_data(list(zip(s.tolist(), self.indices.tolist())))
            self._rx = g
        return self._rx

    def nx(self):
        if self._nx is None:
            self._nx = graph.to_networkx(self.indptr, self.indices)
        return self._nx


def best(f, repeat):
    times = []
    out = None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def canon_labels(groups, n):
    """SCCs as a label array numbered by first appearance in node order (so two
    partitions compare equal as arrays)."""
    label = np.empty(n, dtype=np.int64)
    for k, grp in enumerate(groups):
        label[np.fromiter(grp, dtype=np.int64, count=len(grp))] = k
    return canon_from_labels(label)


def canon_from_labels(label):
    _, first, inv = np.unique(label, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inv]


def idom_array(d, n, root):
    out = np.full(n, ilkit.NONE, dtype=np.int64)
    for k, v in d.items():
        out[k] = v
    out[root] = root
    return out


def run(sizes, nx_max, repeat):
    import networkx as nx
    import rustworkx as rx

    rows = []
    for n in sizes:
        for shape, gen in [("call graph", call_graph_shaped), ("CFG", cfg_shaped)]:
            src, dst, root = gen(n, seed=n)
            g = Graph(shape, n, src, dst, root)
            with_nx = n <= nx_max
            print(f"# {shape} n={n} m={g.m}: building rustworkx{' and networkx' if with_nx else ''} graphs", file=sys.stderr)
            g.rx()
            if with_nx:
                g.nx()

            # SCCs
            t_il, lab = best(lambda: graph.scc(g.indptr, g.indices), repeat)
            t_rx, rx_sccs = best(lambda: rx.strongly_connected_components(g.rx()), max(1, repeat // 2))
            want = canon_from_labels(lab.astype(np.int64))
            assert (canon_labels(rx_sccs, n) == want).all(), "SCCs differ from rustworkx"
            t_nx = None
            if with_nx:
                t_nx, nx_sccs = best(lambda: list(nx.strongly_connected_components(g.nx())), 1)
                assert (canon_labels(nx_sccs, n) == want).all(), "SCCs differ from networkx"
            rows.append((shape, n, g.m, "SCC", t_il, t_rx, t_nx, int(lab.max()) + 1 if n else 0))

            # immediate dominators from the root (the call graph's `main`, the CFG's entry)
            r = g.root
            t_il, idom = best(lambda: graph.idom(g.indptr, g.indices, r), repeat)
            t_rx, rx_idom = best(lambda: rx.immediate_dominators(g.rx(), r), max(1, repeat // 2))
            assert (idom_array(rx_idom, n, r) == idom.astype(np.int64)).all(), "idom differs from rustworkx"
            t_nx = None
            if with_nx:
                t_nx, nx_idom = best(lambda: nx.immediate_dominators(g.nx(), r), 1)
                assert (idom_array(nx_idom, n, r) == idom.astype(np.int64)).all(), "idom differs from networkx"
            reach = int((idom != ilkit.NONE).sum())
            rows.append((shape, n, g.m, "idom", t_il, t_rx, t_nx, reach))
            g._nx = g._rx = None
            gc.collect()
    return rows


def fmt_t(t):
    if t is None:
        return "-"
    return f"{t * 1e3:9.2f} ms" if t >= 1e-3 else f"{t * 1e6:9.1f} us"


def fmt_x(a, b):
    return "-" if b is None else f"{b / a:7.1f}x"


def overhead():
    """ns per call on a 10-node graph: Python -> ilkit, and the same work in Rust."""
    indptr, indices = graph.csr_from_edges(
        10, [0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 8], [1, 2, 0, 3, 4, 5, 3, 7, 8, 6, 9]
    )
    out = []
    for what, call in [
        ("scc", lambda: graph.scc(indptr, indices)),
        ("idom", lambda: graph.idom(indptr, indices, 0)),
    ]:
        iters = 200_000
        rust = min(_native._rust_ns_per_call(what, indptr, indices, 0, iters) for _ in range(5))
        py = []
        for _ in range(5):
            t = time.perf_counter_ns()
            for _ in range(iters):
                call()
            py.append((time.perf_counter_ns() - t) / iters)
        out.append((what, min(py), rust))
    t = time.perf_counter_ns()
    for _ in range(200_000):
        _native._noop(indptr, indices)
    noop = (time.perf_counter_ns() - t) / 200_000
    return out, noop


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--networkx-max", type=int, default=100000, help="largest n networkx runs on")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="sizes 10^4 and 10^5, 3 repeats")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.quick:
        sizes, a.repeat = [10_000, 100_000], 3
    import rustworkx
    import networkx

    print(f"ilkit {ilkit.__version__}, rustworkx {rustworkx.__version__}, networkx {networkx.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}")
    rows = run(sizes, a.networkx_max, a.repeat)
    print()
    print(f"{'graph':<11} {'nodes':>8} {'edges':>8} {'what':<5} {'ilkit':>12} {'rustworkx':>12} {'networkx':>12} {'vs rx':>8} {'vs nx':>8}  answer")
    for shape, n, m, what, t_il, t_rx, t_nx, ans in rows:
        tag = "SCCs" if what == "SCC" else "reachable"
        print(
            f"{shape:<11} {n:>8} {m:>8} {what:<5} {fmt_t(t_il):>12} {fmt_t(t_rx):>12} {fmt_t(t_nx):>12} "
            f"{fmt_x(t_il, t_rx):>8} {fmt_x(t_il, t_nx):>8}  {ans} {tag}"
        )
    print("(best of the runs; answers equal across the libraries)")
    calls, noop = overhead()
    print()
    print("per call on a 10-node graph:")
    for what, py, rust in calls:
        print(f"  {what:<5} Python {py:7.0f} ns   Rust {rust:7.0f} ns   overhead {py - rust:7.0f} ns")
    print(f"  a call that only checks its two arrays: {noop:.0f} ns")


if __name__ == "__main__":
    main()
