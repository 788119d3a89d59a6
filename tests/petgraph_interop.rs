//! petgraph's algorithms on ilkit graphs agree with ilkit's own answers (feature
//! `petgraph`): `tarjan_scc` and `kosaraju_scc` against `graph::Tarjan` and the call
//! graph's SCCs/RefSCCs, `dominators::simple_fast` against `Cfg::analyze`, `Dfs` against
//! reachability; conversions from petgraph graphs.
#![cfg(feature = "petgraph")]

use ilkit::callgraph::{Edge, EdgeKind, LazyCallGraph, NodeIdx};
use ilkit::cfg::{BlockIdx as B, Cfg};
use ilkit::graph::{Idom, Tarjan};
use ilkit::petgraph_interop::EdgeFilter;
use petgraph::algo::{dominators::simple_fast, kosaraju_scc, tarjan_scc};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Dfs, IntoNeighborsDirected, NodeIndexable};
use std::collections::BTreeSet;

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

fn random_cfg(rng: &mut Rng) -> Cfg {
    let n = 1 + rng.next(30);
    let m = rng.next(3 * n);
    let edges: Vec<(B, B)> = (0..m)
        .map(|_| (B::new(rng.next(n)), B::new(rng.next(n))))
        .collect();
    let entry = B::new(rng.next(n));
    Cfg::from_edges(n, &edges, entry).unwrap()
}

fn set_of<N: Ord + Copy>(sccs: Vec<Vec<N>>) -> BTreeSet<Vec<N>> {
    sccs.into_iter()
        .map(|mut v| {
            v.sort();
            v
        })
        .collect()
}

#[test]
fn tarjan_and_kosaraju_agree_on_cfgs() {
    let mut rng = Rng(7);
    for _ in 0..300 {
        let cfg = random_cfg(&mut rng);
        let mut t = Tarjan::<B>::new();
        t.compute(&cfg);
        let mine = set_of(t.sccs().map(|s| s.to_vec()).collect());
        assert_eq!(set_of(tarjan_scc(&cfg)), mine);
        assert_eq!(set_of(kosaraju_scc(&cfg)), mine);
    }
}

#[test]
fn simple_fast_agrees_with_ilkit_dominators() {
    let mut rng = Rng(11);
    for _ in 0..500 {
        let cfg = random_cfg(&mut rng);
        let info = cfg.analyze();
        let doms = simple_fast(&cfg, cfg.entry());
        for b in cfg.blocks() {
            let theirs = doms.immediate_dominator(b);
            match info.immediate_dominator(b) {
                Idom::Root => {
                    assert_eq!(b, cfg.entry());
                    assert_eq!(theirs, None);
                }
                Idom::Node(d) => assert_eq!(theirs, Some(d), "block {b}"),
                Idom::Unreachable => {
                    assert_eq!(theirs, None);
                    assert!(doms.dominators(b).is_none());
                }
                Idom::VirtualExit => unreachable!(),
            }
        }
        // Dfs reaches exactly the blocks ilkit calls reachable
        let mut dfs = Dfs::new(&cfg, cfg.entry());
        let mut seen = BTreeSet::new();
        while let Some(b) = dfs.next(&cfg) {
            seen.insert(b);
        }
        let reach: BTreeSet<B> = cfg
            .blocks()
            .filter(|&b| info.immediate_dominator(b).is_reachable())
            .collect();
        assert_eq!(seen, reach);
    }
}

#[test]
fn neighbors_directed_are_succs_and_preds() {
    let cfg = Cfg::from_edges(
        3,
        &[
            (B::new(0), B::new(1)),
            (B::new(0), B::new(2)),
            (B::new(1), B::new(2)),
        ],
        B::new(0),
    )
    .unwrap();
    let out: Vec<B> = (&cfg)
        .neighbors_directed(B::new(0), petgraph::Outgoing)
        .collect();
    let inc: Vec<B> = (&cfg)
        .neighbors_directed(B::new(2), petgraph::Incoming)
        .collect();
    assert_eq!(out, [B::new(1), B::new(2)]);
    assert_eq!(inc, [B::new(0), B::new(1)]);
    assert_eq!(cfg.node_bound(), 3);
    assert_eq!(
        (&cfg)
            .neighbors_directed(B::new(9), petgraph::Outgoing)
            .count(),
        0
    );
}

fn random_lcg(rng: &mut Rng) -> LazyCallGraph {
    let n = 1 + rng.next(25);
    let mut lists = vec![Vec::new(); n];
    for _ in 0..rng.next(3 * n) {
        let a = rng.next(n);
        let t = NodeIdx::new(rng.next(n));
        if lists[a].iter().any(|e: &Edge| e.target == t) {
            continue;
        }
        let kind = if rng.next(3) == 0 {
            EdgeKind::Ref
        } else {
            EdgeKind::Call
        };
        lists[a].push(Edge { target: t, kind });
    }
    let mut g = LazyCallGraph::from_edge_lists(lists).unwrap();
    g.build_ref_sccs();
    g
}

#[test]
fn tarjan_on_call_graph_views_matches_sccs_and_refsccs() {
    let mut rng = Rng(3);
    for _ in 0..300 {
        let mut g = random_lcg(&mut rng);
        g.build_ref_sccs();
        let mut sccs = BTreeSet::new();
        let mut rcs = BTreeSet::new();
        for r in g.built_refsccs() {
            let mut v: Vec<NodeIdx> = g.refscc_nodes(r).collect();
            v.sort();
            rcs.insert(v);
            for &s in g.refscc_sccs(r) {
                let mut v = g.scc_nodes(s).to_vec();
                v.sort();
                sccs.insert(v);
            }
        }
        let all = g.petgraph_view(EdgeFilter::All);
        let calls = g.petgraph_view(EdgeFilter::Calls);
        assert_eq!(set_of(tarjan_scc(&all)), rcs);
        assert_eq!(set_of(tarjan_scc(&calls)), sccs);
        assert_eq!(set_of(kosaraju_scc(&calls)), sccs);
    }
}

#[test]
fn petgraph_to_cfg_and_call_graph() {
    // a loop with an exit, entered at node 0
    let mut pg = DiGraph::<&str, ()>::new();
    let ns: Vec<NodeIndex> = ["entry", "head", "body", "exit"]
        .iter()
        .map(|s| pg.add_node(*s))
        .collect();
    for (a, b) in [(0, 1), (1, 2), (2, 1), (1, 3)] {
        pg.add_edge(ns[a], ns[b], ());
    }
    let cfg = Cfg::try_from(&pg).unwrap();
    let info = cfg.analyze();
    let theirs = simple_fast(&pg, ns[0]);
    for b in cfg.blocks() {
        assert_eq!(
            info.immediate_dominator(b).node().map(|d| d.idx()),
            theirs
                .immediate_dominator(NodeIndex::new(b.idx()))
                .map(|d| d.index())
        );
    }
    assert!(Cfg::from_petgraph(&pg, NodeIndex::new(9)).is_err());

    let mut cg = DiGraph::<&str, EdgeKind>::new();
    let f: Vec<NodeIndex> = ["main", "a", "b", "c"]
        .iter()
        .map(|s| cg.add_node(*s))
        .collect();
    cg.add_edge(f[0], f[1], EdgeKind::Call);
    cg.add_edge(f[1], f[2], EdgeKind::Call);
    cg.add_edge(f[2], f[1], EdgeKind::Ref);
    cg.add_edge(f[2], f[3], EdgeKind::Call);
    let mut g = LazyCallGraph::try_from(&cg).unwrap();
    assert!(g.verify().is_empty());
    assert_eq!(
        g.postorder_names(),
        vec![
            vec![vec!["c"]],
            vec![vec!["b"], vec!["a"]],
            vec![vec!["main"]]
        ]
    );
    let want = set_of(
        tarjan_scc(&cg)
            .into_iter()
            .map(|v| v.into_iter().map(|x| x.index()).collect())
            .collect(),
    );
    let mine = set_of(
        g.built_refsccs()
            .map(|r| g.refscc_nodes(r).map(|x| x.idx()).collect())
            .collect(),
    );
    assert_eq!(mine, want);
    // parallel edges and duplicate names are refused
    cg.add_edge(f[0], f[1], EdgeKind::Ref);
    assert!(LazyCallGraph::try_from(&cg).is_err());
    let mut dup = DiGraph::<&str, EdgeKind>::new();
    dup.add_node("x");
    dup.add_node("x");
    assert!(LazyCallGraph::try_from(&dup).is_err());
}
