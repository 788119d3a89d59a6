"""ilkit from Python: graph analyses over numpy CSR arrays, LLVM IR call graphs, PTX
and LLVM IR control-flow graphs with their analyses, and corpus scans.

>>> import numpy as np, ilkit
>>> indptr = np.array([0, 1, 2, 3], dtype=np.uint32)     # 0 -> 1 -> 2 -> 0
>>> indices = np.array([1, 2, 0], dtype=np.uint32)
>>> ilkit.graph.scc(indptr, indices).tolist()
[0, 0, 0]

- ``ilkit.graph``: ``scc``, ``idom``, ``dominators``, ``dominance_frontiers``,
  ``post_dominators``, ``loops`` over CSR arrays (``indptr`` of ``num_nodes + 1``
  offsets, ``indices`` the successors; ``uint32`` arrays are read in place), and
  conversions to and from networkx graphs;
- ``ilkit.Module.from_ll(path)``, ``.call_graph()`` (SCCs, RefSCCs) and ``.cfgs()``;
- ``ilkit.cfgs_from_ptx(path)``, ``ilkit.cfgs_from_ll(path)``: one ``Cfg`` per function;
- ``ilkit.device_il(path)``: a clang JSON AST's device IL (kept and live entries, kept
  routines, the binary IL file's bytes);
- ``ilkit.scan(paths, jobs=0)``: one record per file, as ``ilkit scan --json``.

The GIL is released while ilkit works. Errors are ``ilkit.ParseError`` (with file and
line:column or byte offset), ``ilkit.GraphError`` (malformed arrays), both subclasses of
``ilkit.IlkitError`` and ``ValueError``, and ``OSError`` for unreadable files.
"""

from ._native import (
    NONE,
    VIRTUAL_EXIT,
    CallGraph,
    Cfg,
    GraphError,
    IlkitError,
    Module,
    ParseError,
    __version__,
    cfgs_from_ll,
    cfgs_from_ptx,
    device_il,
)
from . import graph
from .scan import scan

__all__ = [
    "NONE",
    "VIRTUAL_EXIT",
    "CallGraph",
    "Cfg",
    "GraphError",
    "IlkitError",
    "Module",
    "ParseError",
    "__version__",
    "cfgs_from_ll",
    "cfgs_from_ptx",
    "device_il",
    "graph",
    "scan",
]
