"""Graph analyses over CSR arrays, and conversions to and from networkx.

A graph of ``n`` nodes is ``indptr`` (``n + 1`` offsets, non-decreasing from 0 to the
number of edges) and ``indices`` (the successors, node ``v``'s being
``indices[indptr[v]:indptr[v + 1]]``, in that order). One-dimensional contiguous
``numpy.uint32`` arrays are read in place; anything else is converted once (values must
fit in ``uint32``). Results are ``numpy.uint32`` arrays; ``NONE`` (``2**32 - 1``) marks
"no node" (an unreachable node's idom, a block outside every loop) and ``VIRTUAL_EXIT``
(``2**32 - 2``) the post-dominator tree's virtual exit.
"""

import numpy as np

from ._native import (
    NONE,
    VIRTUAL_EXIT,
    dominance_frontiers,
    dominators,
    idom,
    loops,
    post_dominators,
    scc,
    scc_components,
)

__all__ = [
    "NONE",
    "VIRTUAL_EXIT",
    "scc",
    "scc_components",
    "idom",
    "dominators",
    "dominance_frontiers",
    "post_dominators",
    "loops",
    "csr_from_edges",
    "to_networkx",
    "from_networkx",
]


def _as_u32(a, what="array"):
    """``a`` as a contiguous one-dimensional ``uint32`` array, checking the range."""
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, not {arr.ndim}-dimensional")
    if arr.size == 0:
        return np.zeros(0, dtype=np.uint32)
    if arr.dtype == np.uint32:
        return np.ascontiguousarray(arr)
    if arr.dtype.kind not in "iub":
        raise TypeError(f"{what} must hold integers, not {arr.dtype}")
    if arr.min() < 0 or arr.max() > np.iinfo(np.uint32).max:
        raise ValueError(f"{what} has values outside 0..2**32 - 1")
    return np.ascontiguousarray(arr, dtype=np.uint32)


def csr_from_edges(num_nodes, sources, targets):
    """CSR arrays ``(indptr, indices)`` of ``num_nodes`` nodes from parallel arrays of
    edge sources and targets (edges keep their order per source)."""
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    if sources.shape != targets.shape:
        raise ValueError("sources and targets differ in length")
    order = np.argsort(sources, kind="stable")
    counts = np.bincount(sources, minlength=num_nodes) if sources.size else np.zeros(num_nodes, dtype=np.int64)
    indptr = np.zeros(num_nodes + 1, dtype=np.uint32)
    np.cumsum(counts, out=indptr[1:])
    return indptr, _as_u32(targets[order], "targets")


def to_networkx(indptr, indices=None, names=None):
    """A ``networkx.DiGraph`` of a CSR graph: nodes ``0..n-1`` (with a ``name``
    attribute when ``names`` is given), edges in CSR order.

    Also takes an ``ilkit.Cfg`` (blocks named by their labels) or an
    ``ilkit.CallGraph`` (functions named, edges with ``kind`` ``"call"`` or ``"ref"``)
    as its one argument."""
    import networkx as nx

    from ._native import CallGraph, Cfg

    if indices is None:
        obj = indptr
        if isinstance(obj, Cfg):
            return to_networkx(obj.succ_starts, obj.succ_nodes, obj.block_names)
        if isinstance(obj, CallGraph):
            starts, targets, is_call = obj.edges()
            g = to_networkx(starts, targets, obj.names)
            src = np.repeat(np.arange(len(starts) - 1), np.diff(starts.astype(np.int64)))
            for u, v, c in zip(src.tolist(), targets.tolist(), is_call.tolist()):
                g.edges[u, v]["kind"] = "call" if c else "ref"
            return g
        raise TypeError("to_networkx takes CSR arrays, an ilkit.Cfg or an ilkit.CallGraph")
    indptr = _as_u32(indptr, "indptr")
    indices = _as_u32(indices, "indices")
    n = len(indptr) - 1
    g = nx.DiGraph()
    if names is None:
        g.add_nodes_from(range(n))
    else:
        g.add_nodes_from((v, {"name": names[v]}) for v in range(n))
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr.astype(np.int64)))
    g.add_edges_from(zip(src.tolist(), indices.tolist()))
    return g


def from_networkx(g, nodelist=None):
    """CSR arrays of a networkx graph: ``(indptr, indices, nodes)``, node ``nodes[i]``
    numbered ``i`` (``nodelist`` or the graph's node order); successors in the graph's
    adjacency order. An undirected graph has both directions of every edge."""
    nodes = list(g.nodes) if nodelist is None else list(nodelist)
    index = {v: i for i, v in enumerate(nodes)}
    indptr = np.zeros(len(nodes) + 1, dtype=np.uint32)
    out = []
    adj = g.succ if g.is_directed() else g.adj
    for i, v in enumerate(nodes):
        succ = [index[w] for w in adj[v] if w in index]
        out.extend(succ)
        indptr[i + 1] = indptr[i] + len(succ)
    return indptr, np.asarray(out, dtype=np.uint32), nodes
