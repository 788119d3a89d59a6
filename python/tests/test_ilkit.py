"""The Python module on the repository's corpus: answers equal networkx's (computed
here), LLVM 14's stored answers and the Rust API's (through the scan records here;
``test_summary.py`` compares them with the Rust API's own output line by line)."""

import gzip
import os
import random
import threading
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import ilkit
from ilkit import graph

ROOT = Path(__file__).resolve().parents[2]
ZLIB = ROOT / "tests/corpus/llvm/zlib"
LL = ZLIB / "zlib.O2.ll.gz"
PTX = ZLIB / "nvptx/deflate.ptx.gz"
NONE = ilkit.NONE


def random_graph(n, m, seed):
    rng = random.Random(seed)
    edges = [(rng.randrange(n), rng.randrange(n)) for _ in range(m)]
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    indptr, indices = graph.csr_from_edges(n, src, dst)
    return indptr, indices


def nx_of(indptr, indices):
    return graph.to_networkx(indptr, indices)


def partition(labels):
    groups = {}
    for v, l in enumerate(labels.tolist()):
        groups.setdefault(l, set()).add(v)
    return sorted(sorted(g) for g in groups.values())


def nx_idoms(g, root):
    """networkx's immediate dominators as a dict without the root's own entry (newer
    networkx leaves it out, older maps the root to itself)."""
    d = dict(nx.immediate_dominators(g, root))
    d.pop(root, None)
    return d


GRAPHS = [random_graph(n, m, seed) for seed, (n, m) in enumerate([(1, 0), (2, 1), (10, 15), (60, 90), (300, 420), (500, 1500)])]


@pytest.mark.parametrize("indptr,indices", GRAPHS)
def test_scc_equals_networkx(indptr, indices):
    labels = graph.scc(indptr, indices)
    assert labels.dtype == np.uint32 and len(labels) == len(indptr) - 1
    want = sorted(sorted(c) for c in nx.strongly_connected_components(nx_of(indptr, indices)))
    assert partition(labels) == want
    # post-order: every edge goes to the same or an earlier component
    for u in range(len(indptr) - 1):
        for v in indices[indptr[u] : indptr[u + 1]]:
            assert labels[v] <= labels[u]
    lab, starts, nodes = graph.scc_components(indptr, indices)
    assert (lab == labels).all()
    assert len(starts) == len(want) + 1 and sorted(nodes.tolist()) == list(range(len(labels)))


@pytest.mark.parametrize("indptr,indices", GRAPHS)
def test_idom_and_frontiers_equal_networkx(indptr, indices):
    g = nx_of(indptr, indices)
    idom = graph.idom(indptr, indices, 0)
    want = nx_idoms(g, 0)
    assert idom[0] == 0
    for v in range(1, len(idom)):
        assert idom[v] == want.get(v, NONE), v
    idom2, level = graph.dominators(indptr, indices, 0)
    assert (idom2 == idom).all()
    for v in range(len(idom)):
        if idom[v] == NONE:
            assert level[v] == NONE
        elif v != 0:
            assert level[v] == level[idom[v]] + 1
    starts, nodes = graph.dominance_frontiers(indptr, indices, 0)
    df = nx.dominance_frontiers(g, 0)
    for v in range(len(idom)):
        got = set(nodes[starts[v] : starts[v + 1]].tolist())
        assert got == set(df.get(v, set())), v


@pytest.mark.parametrize("indptr,indices", GRAPHS)
def test_post_dominators_equal_networkx_on_the_reverse_graph(indptr, indices):
    ipdom, level, roots = graph.post_dominators(indptr, indices)
    n = len(indptr) - 1
    # LLVM's tree: the dominator tree of the reverse graph below a virtual exit whose
    # children are the roots
    rev = nx_of(indptr, indices).reverse(copy=True)
    exit_ = n
    rev.add_node(exit_)
    rev.add_edges_from((exit_, r) for r in roots.tolist())
    want = nx_idoms(rev, exit_)
    for v in range(n):
        w = want[v]
        assert ipdom[v] == (ilkit.VIRTUAL_EXIT if w == exit_ else w), v
    assert (level > 0).all()


def natural_loops(g, root):
    """Natural loops from networkx's dominators: header -> blocks."""
    idom = nx_idoms(g, root)

    def dominates(a, b):
        while True:
            if a == b:
                return True
            if b not in idom:
                return False
            b = idom[b]

    reach = nx.descendants(g, root) | {root}
    loops = {}
    for u, h in g.edges:
        if u in reach and dominates(h, u):
            body = loops.setdefault(h, {h})
            stack = [u]
            while stack:
                x = stack.pop()
                if x not in body:
                    body.add(x)
                    stack.extend(p for p in g.predecessors(x) if p in reach)
    return loops


@pytest.mark.parametrize("indptr,indices", GRAPHS)
def test_loops_equal_natural_loops_from_networkx(indptr, indices):
    l = graph.loops(indptr, indices, 0)
    want = natural_loops(nx_of(indptr, indices), 0)
    got = {}
    for k, h in enumerate(l["header"].tolist()):
        got[h] = set(l["blocks"][l["block_starts"][k] : l["block_starts"][k + 1]].tolist())
        assert l["blocks"][l["block_starts"][k]] == h
        p = l["parent"][k]
        assert l["depth"][k] == (1 if p == NONE else l["depth"][p] + 1)
    assert got == want
    for b in range(len(indptr) - 1):
        containing = [h for h, body in want.items() if b in body]
        assert l["block_depth"][b] == len(containing)


def test_inputs_convert_and_errors_are_exceptions():
    # lists and int64 arrays are converted; uint32 arrays read in place
    assert graph.scc([0, 1, 2], [1, 0]).tolist() == [0, 0]
    assert graph.scc(np.array([0, 1, 2]), np.array([1, 0], dtype=np.int64)).tolist() == [0, 0]
    strided = np.array([0, 9, 1, 9, 2], dtype=np.uint32)[::2]
    assert graph.scc(strided, np.array([1, 0], dtype=np.uint32)).tolist() == [0, 0]
    with pytest.raises(ilkit.GraphError, match="not one of the 2 nodes"):
        graph.scc([0, 1, 2], [1, 5])
    with pytest.raises(ilkit.GraphError, match="CSR offsets"):
        graph.idom([0, 2, 1], [1, 0], 0)
    with pytest.raises(ilkit.GraphError, match="start node 7"):
        graph.idom([0, 1, 2], [1, 0], 7)
    with pytest.raises(ValueError, match="outside"):
        graph.scc([0, 1, 2], [1, -1])
    with pytest.raises(ValueError):
        graph.loops(np.zeros((2, 2), dtype=np.uint32), [], 0)
    with pytest.raises(TypeError):
        graph.scc([0.5, 1.0], [0])
    # an empty graph: one offset
    assert graph.scc([0], []).tolist() == []
    assert issubclass(ilkit.GraphError, ValueError)


def test_networkx_of_cfgs_and_call_graphs():
    cfg = ilkit.cfgs_from_ptx(PTX)[0]
    g = graph.to_networkx(cfg)
    assert g.number_of_nodes() == cfg.num_blocks and g.number_of_edges() == len(set(zip(
        np.repeat(np.arange(cfg.num_blocks), np.diff(cfg.succ_starts.astype(np.int64))).tolist(),
        cfg.succ_nodes.tolist())))
    assert [g.nodes[b]["name"] for b in range(cfg.num_blocks)] == cfg.block_names
    cg = ilkit.Module.from_ll(LL).call_graph()
    h = graph.to_networkx(cg)
    kinds = {d["kind"] for _, _, d in h.edges(data=True)}
    assert kinds <= {"call", "ref"} and "call" in kinds
    assert h.nodes[0]["name"] == cg.names[0]
    with pytest.raises(TypeError):
        graph.to_networkx(42)


def test_networkx_round_trip():
    indptr, indices = GRAPHS[3]
    g = graph.to_networkx(indptr, indices)
    p2, i2, nodes = graph.from_networkx(g)
    assert nodes == list(range(len(indptr) - 1))
    assert (p2 == indptr).all() and (i2 == indices).all()
    # a graph with names for nodes
    h = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c")])
    p, i, names = graph.from_networkx(h)
    labels = graph.scc(p, i)
    assert labels[names.index("a")] == labels[names.index("b")] != labels[names.index("c")]


def lcg_answer(path):
    """RefSCCs of opt-14 -passes=print-lcg, in post-order: [[[names]]]."""
    refsccs = []
    for line in gzip.open(path, "rt"):
        s = line.strip()
        if s.startswith("RefSCC with"):
            refsccs.append([])
        elif s.startswith("SCC with"):
            refsccs[-1].append([])
        elif refsccs and refsccs[-1] and s and not s.startswith("Edges"):
            refsccs[-1][-1].append(s)
    return refsccs


def test_call_graph_equals_llvm_and_networkx():
    m = ilkit.Module.from_ll(LL)
    cg = m.call_graph()
    assert cg.refsccs() == lcg_answer(ZLIB / "zlib.O2.lcg.txt.gz")
    assert [s for rc in cg.refsccs() for s in rc] == cg.sccs()
    # networkx: RefSCCs are the SCCs of call + ref edges, call SCCs those of call edges
    starts, targets, is_call = cg.edges()
    label = cg.scc_label
    inside = {v for v in range(cg.num_nodes) if label[v] != NONE}
    g_all, g_call = nx.DiGraph(), nx.DiGraph()
    g_all.add_nodes_from(inside)
    g_call.add_nodes_from(inside)
    for u in inside:
        for k in range(starts[u], starts[u + 1]):
            v = int(targets[k])
            if v in inside:
                g_all.add_edge(u, v)
                if is_call[k]:
                    g_call.add_edge(u, v)
                assert label[v] <= label[u] or not is_call[k]
    names = cg.names
    want_call = sorted(sorted(names[v] for v in c) for c in nx.strongly_connected_components(g_call))
    assert sorted(sorted(s) for s in cg.sccs()) == want_call
    want_ref = sorted(sorted(names[v] for v in c) for c in nx.strongly_connected_components(g_all))
    assert sorted(sorted(n for s in rc for n in s) for rc in cg.refsccs()) == want_ref


def check_cfg(cfg):
    n = cfg.num_blocks
    g = graph.to_networkx(cfg.succ_starts, cfg.succ_nodes)
    entry = cfg.entry
    want = nx_idoms(g, entry)
    idom = cfg.idom
    assert idom[entry] == entry
    for b in range(n):
        if b != entry:
            assert idom[b] == want.get(b, NONE)
    df = nx.dominance_frontiers(g, entry)
    for b in range(n):
        got = set(cfg.frontier_nodes[cfg.frontier_starts[b] : cfg.frontier_starts[b + 1]].tolist())
        assert got == set(df.get(b, set()))
    loops = natural_loops(g, entry)
    assert set(cfg.loop_header.tolist()) == set(loops)
    # the CSR graph functions give the CFG's own answers
    assert (graph.idom(cfg.succ_starts, cfg.succ_nodes, entry) == idom).all()
    ipdom, _, roots = graph.post_dominators(cfg.succ_starts, cfg.succ_nodes)
    assert (ipdom == cfg.ipdom).all() and (roots == cfg.pdom_roots).all()
    l = graph.loops(cfg.succ_starts, cfg.succ_nodes, entry)
    assert (l["header"] == cfg.loop_header).all() and (l["block_loop"] == cfg.block_loop).all()
    return len(cfg.loop_header)


def test_cfgs_equal_networkx_and_the_rust_scan():
    for path, cfgs in [
        (PTX, ilkit.cfgs_from_ptx(PTX)),
        (LL, ilkit.cfgs_from_ll(LL)),
    ]:
        assert cfgs
        loops = sum(check_cfg(c) for c in cfgs)
        (rec,) = ilkit.scan([path], jobs=1, analyses="cfg", dataframe=False)
        assert rec["error"] is None
        assert rec["functions"] == len(cfgs)
        assert rec["blocks"] == sum(c.num_blocks for c in cfgs)
        assert rec["edges"] == sum(len(c.succ_nodes) for c in cfgs)
        assert rec["loops"] == loops
        assert rec["unreachable"] == sum(int((c.idom == NONE).sum()) for c in cfgs)
    m = ilkit.Module.from_ll(LL)
    assert [c.name for c in m.cfgs()] == [c.name for c in ilkit.cfgs_from_ll(LL)]


def test_scan_records_equal_the_call_graph():
    (rec,) = ilkit.scan(LL, jobs=1, analyses="callgraph", dataframe=False)
    cg = ilkit.Module.from_ll(LL).call_graph()
    assert rec["sccs"] == len(cg.sccs())
    assert rec["refsccs"] == len(cg.refsccs())
    assert rec["largest_scc"] == max(len(s) for s in cg.sccs())
    recs = ilkit.scan([ZLIB / "nvptx"], jobs=2, analyses="cfg", dataframe=False)
    assert len(recs) > 10 and all(r["error"] is None for r in recs)
    try:
        import pandas  # noqa: F401
    except ImportError:
        return
    df = ilkit.scan([PTX, LL], jobs=2, analyses="cfg")
    assert list(df["kind"]) == ["ptx", "ll"]


def test_file_errors_are_exceptions_with_positions(tmp_path):
    bad = tmp_path / "bad.ll"
    bad.write_text("; ok\n\n= 3\n")
    with pytest.raises(ilkit.ParseError, match=r"bad\.ll:3:\d+:"):
        ilkit.Module.from_ll(bad)
    with pytest.raises(ilkit.ParseError, match=r"bad\.ll:3:"):
        ilkit.cfgs_from_ll(bad)
    with pytest.raises(FileNotFoundError):
        ilkit.Module.from_ll(tmp_path / "missing.ll")
    with pytest.raises(FileNotFoundError):
        ilkit.cfgs_from_ptx(tmp_path / "missing.ptx")
    garbage = tmp_path / "garbage.ptx"
    garbage.write_bytes(os.urandom(2000))
    with pytest.raises((ilkit.ParseError, ValueError)):
        ilkit.cfgs_from_ptx(garbage)
    (rec,) = ilkit.scan([bad], dataframe=False)
    assert "bad.ll:3:" in rec["error"]


def test_threads_run_in_parallel_without_errors():
    indptr, indices = random_graph(20000, 60000, 7)
    want = graph.scc(indptr, indices)
    out = []

    def work():
        out.append(graph.scc(indptr, indices))

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(out) == 4 and all((o == want).all() for o in out)


def test_device_il_of_a_clang_json_ast(tmp_path):
    d = ilkit.device_il(ROOT / "tests/fixtures/clang/kernels.json.gz")
    assert set(d) == {"kept", "live", "routines", "il"}
    assert 0 < d["kept"] <= d["live"] and d["routines"] and isinstance(d["il"], bytes)
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    with pytest.raises(ilkit.ParseError, match=r"bad\.json: byte \d+"):
        ilkit.device_il(bad)
    with pytest.raises(FileNotFoundError):
        ilkit.device_il(tmp_path / "missing.json")
