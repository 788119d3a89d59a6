//! Property tests of the graph layer on random graphs (any start node, self loops,
//! duplicate edges, unreachable nodes, infinite loops):
//! - dominance frontiers equal the definition, iterated frontiers equal the fixpoint;
//! - the post-dominator tree is the dominator tree of the reverse graph entered from a
//!   virtual exit that jumps to its roots, and its roots are LLVM's kind of roots;
//! - no query panics, whatever the index, on computed and default trees.
//!
//! CI runs a few hundred graphs per property; the heavy run (10^4 graphs each) is
//! `#[ignore]`d: `cargo test --release --test graph_props -- --ignored`.

use ilkit::cfg::{BlockIdx, Cfg, CfgInfo};
use ilkit::graph::rpo::Rpo;
use ilkit::graph::{
    CsrGraph, DirectedGraph, DomFrontiers, DomTree, Idom, PostDomTree, Predecessors, Successors,
    WithStart,
};
use proptest::prelude::*;

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

/// A random graph of 1..=max nodes: a mix of chains, branches, back edges, self loops
/// and duplicates; a random start.
fn random_graph(seed: u64, max: usize) -> CsrGraph {
    let mut r = Rng(seed);
    let n = 1 + r.below(max);
    let m = r.below(3 * n + 1);
    let mut e = Vec::with_capacity(m);
    for _ in 0..m {
        let a = r.below(n) as u32;
        let b = match r.below(4) {
            0 => (a + 1).min(n as u32 - 1),
            1 => a.saturating_sub(r.below(3) as u32),
            _ => r.below(n) as u32,
        };
        e.push((a, b));
    }
    let start = r.below(n) as u32;
    CsrGraph::from_edges(n, &e, start).unwrap()
}

fn dom_of(g: &CsrGraph) -> DomTree {
    let mut rpo = Rpo::new();
    rpo.compute(g);
    let mut d = DomTree::new();
    d.compute_auto(g, &rpo);
    d
}

/// DF(x) for every x by the definition; IDF by iterating DF over the growing set.
fn check_frontiers(seed: u64, max: usize) {
    let g = random_graph(seed, max);
    let dom = dom_of(&g);
    let mut df = DomFrontiers::new();
    df.compute(&g, &dom);
    let errs = df.verify(&g, &dom);
    assert!(errs.is_empty(), "seed {seed}: {errs:?}");
    // iterated frontier of a random set, against the fixpoint of the definition
    let mut r = Rng(seed ^ 0x1df);
    let n = g.num_nodes();
    let defs: Vec<u32> = (0..1 + r.below(3)).map(|_| r.below(n) as u32).collect();
    let mut set: Vec<bool> = vec![false; n];
    for &d in &defs {
        set[d as usize] = true;
    }
    let mut idf = vec![false; n];
    loop {
        let mut grew = false;
        for x in 0..n {
            if !(set[x] || idf[x]) {
                continue;
            }
            for &y in df.frontier(x as u32) {
                grew |= !std::mem::replace(&mut idf[y as usize], true);
            }
        }
        if !grew {
            break;
        }
    }
    let want: Vec<u32> = (0..n as u32).filter(|&y| idf[y as usize]).collect();
    assert_eq!(
        df.iterated(defs.iter().copied()),
        want,
        "seed {seed} defs {defs:?}"
    );
}

/// The post-dominator tree against the dominator tree of the reverse graph with a
/// virtual exit `n` -> each root; the roots against their definition.
fn check_postdom(seed: u64, max: usize) {
    let g = random_graph(seed, max);
    let n = g.num_nodes();
    let mut pdt = PostDomTree::new();
    pdt.compute(&g);
    assert!(
        pdt.verify(&g).is_empty(),
        "seed {seed}: {:?}",
        pdt.verify(&g)
    );
    let roots = pdt.roots().to_vec();
    let mut edges: Vec<(u32, u32)> = g.edges().map(|(a, b)| (b, a)).collect();
    edges.extend(roots.iter().map(|&r| (n as u32, r)));
    let rev = CsrGraph::from_edges(n + 1, &edges, n as u32).unwrap();
    let dom = dom_of(&rev);
    for b in 0..n as u32 {
        let want = match dom.idom(b) {
            Idom::Node(d) if d as usize == n => Idom::VirtualExit,
            other => other,
        };
        assert_eq!(pdt.ipdom(b), want, "seed {seed}: ipdom({b})");
        for a in 0..n as u32 {
            assert_eq!(pdt.post_dominates(a, b), dom.dominates(a, b), "seed {seed}");
        }
    }
    // Roots: every exit; every other root reaches no exit and no other root.
    let reach = |from: u32| -> Vec<bool> {
        let mut seen = vec![false; n];
        let mut st = vec![from];
        seen[from as usize] = true;
        while let Some(x) = st.pop() {
            for &y in g.successors(x) {
                if !std::mem::replace(&mut seen[y as usize], true) {
                    st.push(y);
                }
            }
        }
        seen
    };
    for v in 0..n as u32 {
        let exit = g.successors(v).is_empty();
        assert_eq!(
            exit,
            exit && roots.contains(&v),
            "seed {seed}: exit {v} not a root"
        );
    }
    for &r in roots.iter().filter(|&&r| !g.successors(r).is_empty()) {
        let seen = reach(r);
        for v in 0..n as u32 {
            if v != r && seen[v as usize] {
                assert!(
                    !g.successors(v).is_empty(),
                    "seed {seed}: root {r} reaches an exit"
                );
                assert!(
                    !roots.contains(&v),
                    "seed {seed}: root {r} reaches root {v}"
                );
            }
        }
    }
    // Post-dominance frontiers are the frontiers of the reverse graph (the virtual exit
    // left out).
    let pdf = pdt.frontiers();
    let mut rdf = DomFrontiers::new();
    rdf.compute(&rev, &dom);
    for x in 0..n as u32 {
        let want: Vec<u32> = rdf
            .frontier(x)
            .iter()
            .copied()
            .filter(|&y| (y as usize) < n)
            .collect();
        assert_eq!(pdf.frontier(x), want.as_slice(), "seed {seed}: PDF({x})");
    }
}

/// Entry and unreachable nodes are told apart; nothing panics on any index.
fn check_queries(seed: u64, max: usize) {
    let g = random_graph(seed, max);
    let n = g.num_nodes();
    let mut rpo = Rpo::new();
    rpo.compute(&g);
    let dom = dom_of(&g);
    let mut df = DomFrontiers::new();
    df.compute(&g, &dom);
    let mut pdt = PostDomTree::new();
    pdt.compute(&g);
    let (empty_dom, empty_df, empty_pdt): (DomTree, DomFrontiers, PostDomTree) = Default::default();
    for b in (0..n as u32 + 3).chain([u32::MAX, u32::MAX - 1]) {
        let want = if b == g.start_node() {
            Idom::Root
        } else if rpo.is_reachable(b) && (b as usize) < n {
            Idom::Node(dom.idoms()[b])
        } else {
            Idom::Unreachable
        };
        assert_eq!(dom.idom(b), want, "seed {seed} node {b}");
        assert_eq!(dom.is_reachable(b), want.is_reachable());
        for a in [0, b, g.start_node(), u32::MAX] {
            let _ = (dom.dominates(a, b), dom.nearest_common_dominator(a, b));
            let _ = (
                pdt.post_dominates(a, b),
                pdt.nearest_common_post_dominator(a, b),
            );
            let _ = empty_pdt.nearest_common_post_dominator(a, b);
            assert!(!empty_dom.dominates(a, b));
        }
        let _ = (
            dom.children_of(b),
            dom.level_of(b),
            df.frontier(b),
            pdt.ipdom(b),
        );
        let _ = (pdt.children_of(b), pdt.level_of(b));
        assert_eq!(empty_dom.idom(b), Idom::Unreachable);
        assert_eq!(empty_pdt.ipdom(b), Idom::Unreachable);
        assert!(empty_df.frontier(b).is_empty());
    }
    let _ = df.iterated([u32::MAX, 0, n as u32]);
    let info = CfgInfo::default();
    for b in [0, 1, u32::MAX] {
        assert_eq!(info.idom(BlockIdx::from_raw(b)), None);
        assert_eq!(
            info.immediate_dominator(BlockIdx::from_raw(b)),
            Idom::Unreachable
        );
        assert!(!info.is_reachable(BlockIdx::from_raw(b)));
    }
    // The same graph as a CFG entered at the same node gives the same tree.
    let edges: Vec<(BlockIdx, BlockIdx)> = g
        .edges()
        .map(|(a, b)| (BlockIdx::from_raw(a), BlockIdx::from_raw(b)))
        .collect();
    let cfg = Cfg::from_edges(n, &edges, BlockIdx::from_raw(g.start_node())).unwrap();
    let info = cfg.analyze();
    assert!(
        info.verify(&cfg).is_empty(),
        "seed {seed}: {:?}",
        info.verify(&cfg)
    );
    for b in 0..n as u32 {
        let want = match dom.idom(b) {
            Idom::Node(d) => Idom::Node(BlockIdx::from_raw(d)),
            Idom::Root => Idom::Root,
            _ => Idom::Unreachable,
        };
        assert_eq!(
            info.immediate_dominator(BlockIdx::from_raw(b)),
            want,
            "seed {seed}"
        );
        assert_eq!(
            cfg.dominance_frontiers(&info)
                .frontier(BlockIdx::from_raw(b)),
            df.frontier(b)
                .iter()
                .map(|&y| BlockIdx::from_raw(y))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn empty_graph_and_entry_loop() {
    let g: CsrGraph = CsrGraph::from_edges(0, &[], 0).unwrap();
    let dom = dom_of(&g);
    assert!(dom.verify(&g).is_empty());
    let mut df = DomFrontiers::new();
    df.compute(&g, &dom);
    assert!(df.is_empty());
    let mut pdt = PostDomTree::new();
    pdt.compute(&g);
    assert!(pdt.roots().is_empty() && pdt.verify(&g).is_empty());
    // 1 -> 0 -> 1, entered at 1: the entry is in its own frontier and in 0's.
    let g: CsrGraph = CsrGraph::from_edges(2, &[(1, 0), (0, 1)], 1).unwrap();
    let dom = dom_of(&g);
    df.compute(&g, &dom);
    assert_eq!((df.frontier(1), df.frontier(0)), (&[1][..], &[1][..]));
    assert_eq!(df.iterated([0]), vec![1]);
    // an infinite loop with no exit: one root, the node furthest away from node 0 (the
    // first node not reaching an exit)
    pdt.compute(&g);
    assert_eq!(pdt.roots(), &[1]);
    assert_eq!(pdt.ipdom(0), Idom::Node(1));
    assert_eq!(pdt.ipdom(1), Idom::VirtualExit);
}

#[test]
fn diamond_frontiers_and_postdoms() {
    // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 1 (loop), 3 -> 4 (exit)
    let g: CsrGraph =
        CsrGraph::from_edges(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 1), (3, 4)], 0).unwrap();
    let dom = dom_of(&g);
    let mut df = DomFrontiers::new();
    df.compute(&g, &dom);
    let rows: Vec<&[u32]> = (0..5).map(|x| df.frontier(x)).collect();
    assert_eq!(rows, [&[][..], &[3], &[3], &[1], &[]]);
    assert_eq!(df.iterated([2]), vec![1, 3]);
    let mut pdt = PostDomTree::new();
    pdt.compute(&g);
    assert_eq!(pdt.roots(), &[4]);
    let ip: Vec<Idom<u32>> = (0..5).map(|b| pdt.ipdom(b)).collect();
    use Idom::*;
    assert_eq!(ip, [Node(3), Node(3), Node(3), Node(4), VirtualExit]);
    let pdf = pdt.frontiers();
    // 1 and 2 are control dependent on 0's branch; 3 on itself (the loop), 1 on 3
    assert_eq!(pdf.frontier(1), &[0, 3]);
    assert_eq!(pdf.frontier(2), &[0]);
    assert_eq!(pdf.frontier(3), &[3]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn frontiers_match_the_definition(seed in any::<u64>()) {
        check_frontiers(seed, 24);
    }
    #[test]
    fn postdom_is_dom_of_the_reverse_graph(seed in any::<u64>()) {
        check_postdom(seed, 24);
    }
    #[test]
    fn queries_never_panic(seed in any::<u64>()) {
        check_queries(seed, 16);
    }
}

/// 10^4 graphs per property (a few seconds in release).
#[test]
#[ignore]
fn heavy_graph_properties() {
    for seed in 0..10_000u64 {
        check_frontiers(seed, 40);
        check_postdom(seed, 40);
        check_queries(seed, 24);
    }
}

// the traits the tests lean on, named so unused-import lints stay quiet
fn _bounds<G: Successors + Predecessors + WithStart + DirectedGraph>() {}
