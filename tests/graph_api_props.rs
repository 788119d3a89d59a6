//! No panic from the public graph and CFG API (`graph`, `cfg`), whatever the typed
//! arguments: random call sequences on random CFGs and graphs (empty ones, self loops,
//! duplicate edges, unreachable blocks, any entry), with block / node / loop / cycle /
//! component indices that are out of range, `NONE`, or taken from another graph, and
//! analyses (RPO, dominator tree, frontiers, loops, `CfgInfo`) computed for *another*
//! graph, of the same size or not, or never computed. A panic fails the test. After each
//! CFG mutation `verify()` must be clean, and a refused mutation (an error, `None` or
//! `false`) must leave the CFG unchanged.
//!
//! The guarantee covers values built through the API: `Cfg`, `Csr` and `LoopForest`
//! have public columns, and a host that writes inconsistent columns gets what
//! `verify()` reports (the algorithms may then panic).
//!
//! CI runs 256 sequences of 24 steps (`api_sequences_never_panic`); the ignored
//! `api_sequences_many` runs 10 000 (`GRAPH_API_SEQS=N` to change):
//! `cargo test --release --test graph_api_props -- --ignored` (10 000 sequences in
//! 7.2 s, 100 000 in 80 s, on the 2-core build machine, 2026-11-24).

use ilkit::cfg::loops::{CycleIdx, LoopForest, LoopIdx};
use ilkit::cfg::{layout, print, summary, BlockIdx, Cfg, CfgInfo, DomAlgo, Term};
use ilkit::graph::rpo::{Rpo, RpoVariant};
use ilkit::graph::{
    CompIdx, Csr, CsrGraph, DirectedGraph, DomFrontiers, DomTree, GraphError, Plain, PostDomTree,
    Predecessors, Successors, Tarjan, WithStart,
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
    fn coin(&mut self, k: usize) -> bool {
        self.below(k) == 0
    }
}

const TERMS: [Term; 8] = [
    Term::Fallthrough,
    Term::Bra,
    Term::CondBra,
    Term::Ret,
    Term::CondRet,
    Term::Brx,
    Term::Exit,
    Term::Other,
];

/// An index: usually in `0..n`, sometimes just past it, far beyond it, or `u32::MAX`.
fn idx(rng: &mut Rng, n: usize) -> u32 {
    match rng.below(12) {
        0 => n as u32 + rng.below(3) as u32,
        1 => 64 + rng.below(64) as u32,
        2 => u32::MAX - rng.below(2) as u32,
        _ => rng.below(n) as u32,
    }
}

fn blk(rng: &mut Rng, n: usize) -> BlockIdx {
    BlockIdx::from_raw(idx(rng, n))
}

/// A random CFG of 0..=max blocks (edges biased to neighbours, some back edges).
fn random_cfg(rng: &mut Rng, max: usize) -> Cfg {
    let n = rng.below(max + 1);
    let mut succs = vec![Vec::new(); n];
    for _ in 0..rng.below(2 * n + 1) {
        let a = rng.below(n);
        let b = match rng.below(3) {
            0 => (a + 1).min(n - 1),
            _ => rng.below(n),
        };
        succs[a].push(BlockIdx::new(b));
    }
    let mut next = 0u32;
    let insns = (0..n)
        .map(|_| {
            let k = rng.below(4) as u32;
            next += k;
            (next - k..next)
                .map(ilkit::cfg::InsnIdx::from_raw)
                .collect()
        })
        .collect();
    let names = (0..n)
        .map(|i| {
            if rng.coin(2) {
                format!("L{i}")
            } else {
                String::new()
            }
        })
        .collect();
    let labels = (0..n as u32).collect();
    let terms = (0..n).map(|_| TERMS[rng.below(TERMS.len())]).collect();
    let mut cfg = Cfg::from_parts("f".into(), names, labels, terms, insns, &succs).unwrap();
    if n > 0 {
        cfg.set_entry(BlockIdx::new(rng.below(n))).unwrap();
    }
    cfg
}

/// Everything a CFG holds (its `Debug` output lists every column).
fn snap(cfg: &Cfg) -> String {
    format!("{cfg:?}")
}

/// The analyses a query may be handed: `cfg`'s own, another CFG's, stale ones, none.
fn infos(cfg: &Cfg, other: &Cfg, rng: &mut Rng) -> Vec<CfgInfo> {
    let mut own = CfgInfo::default();
    let algo = [DomAlgo::Auto, DomAlgo::Chk, DomAlgo::SemiNca][rng.below(3)];
    own.compute_with(cfg, algo);
    let theirs = other.analyze();
    let mut stale = cfg.clone();
    let _ = stale.set_entry(BlockIdx::new(0));
    let stale = stale.analyze();
    vec![own, theirs, stale, CfgInfo::default()]
}

/// Every read-only CFG query and printer, with `info` (possibly not `cfg`'s).
fn query_cfg(cfg: &Cfg, info: &CfgInfo, rng: &mut Rng) -> usize {
    let n = cfg.num_blocks();
    let mut d = info.verify(cfg).len() + cfg.verify().len() + cfg.edges().len();
    for _ in 0..4 {
        let (b, c) = (blk(rng, n), blk(rng, n));
        d += cfg.display_name(b).len() + cfg.insns(b).len();
        d += cfg.successors(b).len() + cfg.predecessors(b).len();
        d += info.idom(b).is_some() as usize + info.is_reachable(b) as usize;
        d += info.immediate_dominator(b).is_reachable() as usize;
        d += layout::fallthrough_succ(cfg, b).is_some() as usize;
        let (l, k) = (
            LoopIdx::from_raw(idx(rng, 4)),
            CycleIdx::from_raw(idx(rng, 3)),
        );
        let loops = info.loops();
        d += loops.loop_blocks(l).len() + loops.cycle_blocks(k).len();
        d += loops.parent_of(l).is_some() as usize + loops.preheader_of(l).is_some() as usize;
        d += loops.innermost(b).is_some() as usize + loops.contains(l, b) as usize;
        d += info.dom().dominates(b, c) as usize + info.dom().children_of(b).len();
        d += info.rpo().number(b).is_some() as usize;
    }
    d += info.backedge_map().len() + cfg.edge_map().len();
    d += cfg.dominance_frontiers(info).len() + cfg.post_dominators().roots().len();
    d += layout::place_blocks_in_source_order(cfg).len();
    let cold = layout::default_cold(cfg, info);
    let order = layout::hot_cold_layout(cfg, info, &|b| cold.get(b).copied().unwrap_or(false));
    d += layout::fallthrough_breaks(cfg, &order) + layout::fallthrough_breaks(cfg, cfg.layout());
    let mut s = String::new();
    print::dot(cfg, &mut s);
    print::edges(cfg, &mut s);
    print::rpo(cfg, info, &mut s);
    print::llvm_dot(cfg, info, None, &mut s);
    print::named_edges(cfg, &mut s);
    print::named_rpo(cfg, info, &mut s);
    print::json(cfg, info, &mut s);
    d + s.len() + summary::summarize(std::slice::from_ref(cfg)).blocks as usize
}

/// Every analysis recomputed for `cfg` from inputs computed for `other` (or nothing).
fn mixed_analyses(cfg: &Cfg, other: &Cfg, rng: &mut Rng) -> usize {
    let mut theirs = Rpo::new();
    theirs.compute_with(
        other,
        [RpoVariant::Ptxas, RpoVariant::Recursive][rng.below(2)],
    );
    let mut dom = DomTree::new();
    dom.compute_auto(cfg, &theirs);
    let mut d = dom.verify(cfg).len();
    dom.compute_chk(cfg, &theirs);
    d += dom.verify(cfg).len();
    d += theirs.backedges(cfg).len() + theirs.verify(cfg).len();
    let mut other_dom = DomTree::new();
    other_dom.compute_semi_nca(other);
    let mut df = DomFrontiers::new();
    df.compute(cfg, &other_dom);
    d += df.verify(cfg, &other_dom).len()
        + df.iterated([BlockIdx::new(0), BlockIdx::from_raw(u32::MAX)])
            .len();
    let mut loops = LoopForest::new();
    loops.compute(cfg, &theirs, &other_dom);
    d += loops.verify(cfg, &other_dom).len() + loops.len();
    loops.compute(cfg, &Rpo::new(), &DomTree::new());
    d += loops.len();
    let mut pdt = PostDomTree::new();
    pdt.compute(other);
    d += pdt.verify(cfg).len() + pdt.frontiers().len();
    d
}

/// One random CFG mutation; `Ok(true)` if it changed the CFG, `Ok(false)` if refused.
fn mutate(cfg: &mut Cfg, other: &Cfg, rng: &mut Rng) -> Result<bool, GraphError> {
    let n = cfg.num_blocks();
    let b = blk(rng, n);
    Ok(match rng.below(8) {
        0 => {
            let k = rng.below(cfg.insns(b).len() + 2) as u32;
            cfg.split_block(b, k).is_some()
        }
        1 => cfg.merge_blocks(b),
        2 => {
            let from = b;
            let old = match cfg.successors(from).first() {
                Some(&t) if rng.coin(2) => t,
                _ => blk(rng, n),
            };
            cfg.redirect_edge(from, old, blk(rng, n))
        }
        3 => {
            let info = infos(cfg, other, rng).swap_remove(rng.below(4));
            let h = match info.loops().loops().next() {
                Some(l) if rng.coin(2) => info.loops().header_of(l).unwrap(),
                _ => b,
            };
            cfg.insert_preheader(&info, h)?.is_some()
        }
        4 => {
            let region: Vec<BlockIdx> = (0..rng.below(5)).map(|_| blk(rng, n)).collect();
            cfg.make_single_entry(&region).is_some()
        }
        5 => {
            let edges: Vec<(BlockIdx, BlockIdx)> = (0..rng.below(2 * n + 2))
                .map(|_| (blk(rng, n), blk(rng, n)))
                .collect();
            cfg.set_edges(&edges)?;
            true
        }
        6 => {
            cfg.set_entry(b)?;
            true
        }
        _ => {
            // a mutation with analyses, then a query on the stale ones
            let info = cfg.analyze();
            let r = cfg.split_block(b, 0).is_some();
            query_cfg(cfg, &info, rng);
            r
        }
    })
}

/// The graph layer on `CsrGraph`s: constructors with bad input, the algorithms, and
/// `Tarjan`'s scoped runs with roots and scope changes out of range.
fn graph_layer(rng: &mut Rng, max: usize) -> usize {
    let n = rng.below(max + 1);
    let edges: Vec<(u32, u32)> = (0..rng.below(3 * n + 2))
        .map(|_| (idx(rng, n), idx(rng, n)))
        .collect();
    let mut d = 0;
    let start = idx(rng, n);
    let g = match CsrGraph::from_edges(n, &edges, start) {
        Ok(g) => g,
        Err(e) => {
            d += e.to_string().len();
            let ok: Vec<(u32, u32)> = edges
                .iter()
                .copied()
                .filter(|&(a, b)| (a as usize) < n && (b as usize) < n)
                .collect();
            let start = if n == 0 { 0 } else { start % n as u32 };
            CsrGraph::from_edges(n, &ok, start).unwrap()
        }
    };
    d += Csr::<u32>::from_edges(n, &edges).map_or(1, |c| c.num_edges());
    d += Csr::<u32, u32>::group(n, &edges).map_or(1, |c| c.num_rows());
    let bad = Csr::<u32>::from_raw(vec![0, 5, 2], vec![1]);
    d += CsrGraph::from_csr(bad.clone(), 0).is_err() as usize;
    d += (0..4).map(|r| bad.row(r).len()).sum::<usize>() + bad.transpose().num_edges();
    let mut h = g.clone();
    d += h.set_start(idx(rng, n)).is_err() as usize + h.reversed(idx(rng, n)).is_err() as usize;
    let mut rpo = Rpo::new();
    rpo.compute(&g);
    let mut dom = DomTree::new();
    dom.compute_auto(&g, &rpo);
    let mut pdt = PostDomTree::new();
    pdt.compute(&g);
    let mut t = Tarjan::new();
    t.compute(&g);
    d += t.verify(&g).len();
    for _ in 0..6 {
        let (a, b) = (idx(rng, n), idx(rng, n));
        d += g.successors(a).len() + g.predecessors(a).len() + g.succ().row(a).len();
        d += rpo.is_reachable(a) as usize + dom.dominates(a, b) as usize;
        d += pdt.post_dominates(a, b) as usize + pdt.children_of(a).len();
        d += t.comp_of(a).is_some() as usize + t.scc(CompIdx::from_raw(idx(rng, n))).len();
        d += t.is_unvisited(a) as usize;
    }
    // scoped runs: open / close / roots / sink beyond the table
    t.close_all(n);
    t.open((0..4).map(|_| idx(rng, n)));
    t.close(idx(rng, n));
    let roots: Vec<u32> = (0..3).map(|_| idx(rng, n)).collect();
    t.run(&mut Plain(&g), roots.iter().copied());
    d += t.num_sccs() + t.scc_nodes().len();
    t.open((0..n as u32).filter(|_| rng.coin(2)));
    t.run_with_sink(&mut Plain(&g), roots.iter().copied(), idx(rng, n));
    d += t.absorbed().len() + t.sccs().len();
    // a Tarjan table smaller than the graph: every node beyond it is out of scope
    t.reset(n / 2);
    t.run(&mut Plain(&g), 0..n as u32);
    d + t.take_components().num_rows() + g.start_node() as usize + g.num_nodes()
}

/// One sequence: two CFGs, `steps` random mutations of the first with the analyses and
/// queries mixed between them.
fn sequence(seed: u64, steps: usize) {
    let mut rng = Rng(seed ^ 0x517c_c1b7_2722_0a95);
    let mut cfg = random_cfg(&mut rng, 10);
    let mut other = random_cfg(&mut rng, 10);
    if rng.coin(3) {
        // same size, different edges: indices line up, meanings do not
        other = cfg.clone();
        let n = other.num_blocks();
        let edges: Vec<(BlockIdx, BlockIdx)> = (0..rng.below(2 * n + 1))
            .map(|_| (BlockIdx::new(rng.below(n)), BlockIdx::new(rng.below(n))))
            .collect();
        other.set_edges(&edges).unwrap();
    }
    let mut d = graph_layer(&mut rng, 12);
    for step in 0..steps {
        let before = snap(&cfg);
        match mutate(&mut cfg, &other, &mut rng) {
            Ok(true) => {}
            Ok(false) | Err(_) => {
                assert_eq!(
                    snap(&cfg),
                    before,
                    "seed {seed} step {step}: refused but changed"
                )
            }
        }
        let errs = cfg.verify();
        assert!(errs.is_empty(), "seed {seed} step {step}: {errs:?}");
        let info = infos(&cfg, &other, &mut rng).swap_remove(rng.below(4));
        d += query_cfg(&cfg, &info, &mut rng);
        d += mixed_analyses(&cfg, &other, &mut rng);
        if rng.coin(4) {
            std::mem::swap(&mut cfg, &mut other);
        }
    }
    // constructors with mismatched columns
    let bad = Cfg::from_parts("g".into(), vec![String::new()], vec![], vec![], vec![], &[]);
    assert!(matches!(bad, Err(GraphError::ColumnLengths { .. })));
    let bad = Cfg::from_edges(2, &[(BlockIdx::new(0), BlockIdx::new(2))], BlockIdx::new(0));
    assert!(matches!(bad, Err(GraphError::EdgeOutOfRange { .. })));
    let bad = Cfg::from_edges(2, &[], BlockIdx::new(5));
    assert!(matches!(bad, Err(GraphError::StartOutOfRange { .. })));
    assert!(d > 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn api_sequences_never_panic(seed in any::<u64>()) {
        sequence(seed, 24);
    }
}

/// 10^4 sequences (`GRAPH_API_SEQS` to change); run with `--release -- --ignored`.
#[test]
#[ignore]
fn api_sequences_many() {
    let n: u64 = std::env::var("GRAPH_API_SEQS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let t = std::time::Instant::now();
    for seed in 0..n {
        sequence(seed, 24);
    }
    eprintln!("{n} sequences x 24 steps, {:.1?}", t.elapsed());
}
