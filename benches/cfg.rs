//! cfg benches (divan): ilkit and its baselines in one run.
//!
//! - `dominators/*`, `dominators_structured/*`: RPO + idom on 10^5-block CFGs (unstructured
//!   and irreducible; structured and reducible) — ilkit auto (what `CfgInfo` runs; RPO
//!   included), ilkit CHK (RPO included), ilkit Semi-NCA with its own DFS, and
//!   `petgraph::algo::dominators::simple_fast` (CHK on petgraph's graph); beside them
//!   `ilkit_frontiers` (dominance frontiers of every block from the computed tree: the
//!   frontier step alone) and `ilkit_postdom` (LLVM-style post-dominator tree: roots,
//!   reverse graph, Semi-NCA).
//! - `adversarial/*`: auto vs CHK vs Semi-NCA on long parallel chains, deep irreducible nests and
//!   the backward ladder (CHK needs one pass per block).
//! - `edges/*`: walking every successor list through CSR vs the ptxas FNV-1a edge map.
//! - `ptx_import`: parse + build every CFG of the largest corpus PTX file (BytesCount);
//!   a generated module stands in when the corpus is absent.
//!
//! Run: `cargo bench --bench cfg`.

use divan::{black_box, counter::BytesCount, Bencher};
use ilkit::cfg::edgemap::FnvEdgeMap;
use ilkit::cfg::{BlockIdx, Cfg};
use ilkit::graph::dom::DomTree;
use ilkit::graph::rpo::{Rpo, RpoVariant};
use ilkit::graph::Successors;
use ilkit::graph::{DomFrontiers, PostDomTree};
use petgraph::graph::{DiGraph, NodeIndex};

#[path = "support/cfg_gen.rs"]
mod cfg_gen;
use cfg_gen::{cfg_from, unstructured, Rng};

fn main() {
    divan::main();
}

/// Structured (reducible) code: properly nested if-then joins and loops over a
/// fall-through spine, built with an explicit stack of open constructs.
fn structured(n: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut r = Rng(seed);
    let mut open: Vec<(bool, u32)> = Vec::new(); // (is_loop, cond block or header)
    let mut e = Vec::with_capacity(2 * n);
    for b in 0..n as u32 - 1 {
        e.push((b, b + 1));
        match r.below(10) {
            0 | 1 => open.push((false, b)),
            2 => open.push((true, b + 1)),
            3 | 4 => match open.pop() {
                Some((false, c)) => e.push((c, b + 1)),
                Some((true, h)) if h <= b => e.push((b, h)),
                _ => {}
            },
            _ => {}
        }
    }
    e
}

/// k chains of length len from the entry, joined at one exit, with every chain's end
/// also jumping to the next chain's middle (late joins).
fn parallel_chains(k: usize, len: usize) -> (usize, Vec<(u32, u32)>) {
    let n = 2 + k * len;
    let exit = (n - 1) as u32;
    let mut e = Vec::new();
    for c in 0..k {
        let base = 1 + (c * len) as u32;
        e.push((0, base));
        for i in 0..len as u32 - 1 {
            e.push((base + i, base + i + 1));
        }
        e.push((base + len as u32 - 1, exit));
        let nb = 1 + (((c + 1) % k) * len) as u32 + len as u32 / 2;
        e.push((base + len as u32 - 1, nb));
    }
    (n, e)
}

/// A nest of `d` irreducible two-entry cycles: level i has blocks a_i, b_i with
/// a_i <-> b_i, entered at both from level i-1, and each level jumps back to the
/// previous level's b (so CHK sees ever longer retreating chains).
fn irreducible_nest(d: usize) -> (usize, Vec<(u32, u32)>) {
    let n = 1 + 2 * d + 1;
    let mut e = Vec::new();
    let (mut pa, mut pb) = (0u32, 0u32);
    for i in 0..d as u32 {
        let (a, b) = (1 + 2 * i, 2 + 2 * i);
        e.push((pa, a));
        e.push((pb, b));
        e.push((a, b));
        e.push((b, a));
        if i > 0 {
            e.push((b, pb));
        }
        pa = a;
        pb = b;
    }
    e.push((pa, (n - 1) as u32));
    (n, e)
}

/// CHK's bad case: a chain r -> v1 -> ... -> vn with every vi <-> vi+1 and r -> vn. The
/// right idom (r) reaches v_{n-k} only on pass k, so CHK makes n passes; Semi-NCA does not
/// iterate.
fn backward_ladder(n: usize) -> (usize, Vec<(u32, u32)>) {
    let mut e = vec![(0, 1), (0, n as u32)];
    for i in 1..n as u32 {
        e.push((i, i + 1));
        e.push((i + 1, i));
    }
    (n + 1, e)
}

const N: usize = 100_000;

/// One dominator computation as the benches time it.
#[derive(Clone, Copy, PartialEq)]
enum Algo {
    Chk,
    SemiNca,
    /// What `CfgInfo` runs: the ptxas RPO, then Semi-NCA on the DFS tree it walked.
    Auto,
    /// The baseline: `petgraph::algo::dominators::simple_fast` on the same graph.
    Petgraph,
    /// Dominance frontiers of every block, from a tree computed outside the timed part.
    Frontiers,
    /// The post-dominator tree (virtual exit, LLVM's roots).
    PostDom,
}

/// Times `algo` on the graph `(n, edges)` rooted at node 0 (RPO included for CHK/Auto).
fn run(bencher: Bencher, (n, e): (usize, Vec<(u32, u32)>), algo: Algo) {
    if algo == Algo::Petgraph {
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, e.len());
        for _ in 0..n {
            g.add_node(());
        }
        for &(a, b) in &e {
            g.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), ());
        }
        bencher.bench_local(|| {
            let d = petgraph::algo::dominators::simple_fast(&g, NodeIndex::new(0));
            black_box(d.immediate_dominator(NodeIndex::new(n - 1)))
        });
        return;
    }
    let cfg = cfg_from(n, &e);
    let mut rpo = Rpo::new();
    let mut dom = DomTree::new();
    if algo == Algo::Frontiers {
        rpo.compute(&cfg);
        dom.compute_auto(&cfg, &rpo);
        let mut df = DomFrontiers::new();
        bencher.bench_local(|| {
            df.compute(&cfg, &dom);
            black_box(df.len())
        });
        return;
    }
    if algo == Algo::PostDom {
        let mut pdt = PostDomTree::new();
        bencher.bench_local(|| {
            pdt.compute(&cfg);
            black_box(pdt.roots().len())
        });
        return;
    }
    bencher.bench_local(|| {
        match algo {
            Algo::Chk => {
                rpo.compute(&cfg);
                dom.compute_chk(&cfg, &rpo);
            }
            Algo::Auto => {
                rpo.compute(&cfg);
                dom.compute_auto(&cfg, &rpo);
            }
            Algo::SemiNca => dom.compute_semi_nca(&cfg),
            Algo::Petgraph | Algo::Frontiers | Algo::PostDom => unreachable!(),
        }
        black_box(dom.idoms()[BlockIdx::new(n - 1)])
    });
}

/// RPO + idom on an unstructured 10^5-block CFG (~13k irreducible edges), and petgraph.
#[divan::bench_group]
mod dominators {
    use super::*;

    #[divan::bench]
    fn ilkit_rpo_auto(b: Bencher) {
        run(b, (N, unstructured(N, 42)), Algo::Auto)
    }
    #[divan::bench]
    fn ilkit_rpo_chk(b: Bencher) {
        run(b, (N, unstructured(N, 42)), Algo::Chk)
    }
    #[divan::bench]
    fn ilkit_semi_nca(b: Bencher) {
        run(b, (N, unstructured(N, 42)), Algo::SemiNca)
    }
    #[divan::bench]
    fn petgraph_simple_fast(b: Bencher) {
        run(b, (N, unstructured(N, 42)), Algo::Petgraph)
    }
    #[divan::bench]
    fn ilkit_frontiers(b: Bencher) {
        run(b, (N, unstructured(N, 42)), Algo::Frontiers)
    }
    #[divan::bench]
    fn ilkit_postdom(b: Bencher) {
        run(b, (N, unstructured(N, 42)), Algo::PostDom)
    }
}

/// The same on a structured (reducible) 10^5-block CFG, plus RPO alone.
#[divan::bench_group]
mod dominators_structured {
    use super::*;

    #[divan::bench]
    fn ilkit_rpo_auto(b: Bencher) {
        run(b, (N, structured(N, 42)), Algo::Auto)
    }
    #[divan::bench]
    fn ilkit_rpo_chk(b: Bencher) {
        run(b, (N, structured(N, 42)), Algo::Chk)
    }
    #[divan::bench]
    fn ilkit_semi_nca(b: Bencher) {
        run(b, (N, structured(N, 42)), Algo::SemiNca)
    }
    #[divan::bench]
    fn petgraph_simple_fast(b: Bencher) {
        run(b, (N, structured(N, 42)), Algo::Petgraph)
    }
    #[divan::bench]
    fn ilkit_frontiers(b: Bencher) {
        run(b, (N, structured(N, 42)), Algo::Frontiers)
    }
    #[divan::bench]
    fn ilkit_postdom(b: Bencher) {
        run(b, (N, structured(N, 42)), Algo::PostDom)
    }

    #[divan::bench(args = [RpoVariant::Ptxas, RpoVariant::Recursive])]
    fn rpo_only(bencher: Bencher, v: RpoVariant) {
        let cfg = cfg_from(N, &structured(N, 42));
        let mut rpo = Rpo::new();
        bencher.bench_local(|| {
            rpo.compute_with(&cfg, v);
            black_box(rpo.order().len())
        });
    }
}

#[divan::bench_group]
mod adversarial {
    use super::*;

    #[divan::bench]
    fn chains_rpo_auto(b: Bencher) {
        run(b, parallel_chains(100, 1000), Algo::Auto)
    }
    #[divan::bench]
    fn ladder_rpo_auto(b: Bencher) {
        run(b, backward_ladder(400), Algo::Auto)
    }
    #[divan::bench]
    fn irreducible_nest_rpo_auto(b: Bencher) {
        run(b, irreducible_nest(2000), Algo::Auto)
    }

    #[divan::bench]
    fn chains_chk(b: Bencher) {
        run(b, parallel_chains(100, 1000), Algo::Chk)
    }
    #[divan::bench]
    fn chains_semi_nca(b: Bencher) {
        run(b, parallel_chains(100, 1000), Algo::SemiNca)
    }
    #[divan::bench]
    fn ladder_chk(b: Bencher) {
        run(b, backward_ladder(400), Algo::Chk)
    }
    #[divan::bench]
    fn ladder_semi_nca(b: Bencher) {
        run(b, backward_ladder(400), Algo::SemiNca)
    }
    #[divan::bench]
    fn irreducible_nest_chk(b: Bencher) {
        run(b, irreducible_nest(2000), Algo::Chk)
    }
    #[divan::bench]
    fn irreducible_nest_semi_nca(b: Bencher) {
        run(b, irreducible_nest(2000), Algo::SemiNca)
    }
}

/// Every function CFG of the largest corpus module (zstd.O2.ll); empty without the corpus.
fn corpus_cfgs() -> Vec<Cfg> {
    match corpus_text("llvm/zstd/zstd.O2.ll.gz") {
        Some((name, t)) => ilkit::llvm::Module::from_ll_str(&name, &t)
            .map(|m| Cfg::from_llvm_module(&m))
            .unwrap_or_default(),
        None => Vec::new(),
    }
}

/// A file of the repository's corpus (`tests/corpus/`), decompressed: (path, text).
fn corpus_text(rel: &str) -> Option<(String, String)> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(rel);
    let t = ilkit::import::read_text(&p).ok()?;
    Some((p.display().to_string(), t))
}

/// Real CFGs: all functions of zstd.O2.ll (RPO + idom per function, scratch reused).
#[divan::bench_group]
mod corpus {
    use super::*;

    #[divan::bench]
    fn zstd_rpo_chk(bencher: Bencher) {
        let cfgs = corpus_cfgs();
        let mut rpo = Rpo::new();
        let mut dom = DomTree::new();
        bencher.bench_local(|| {
            for c in &cfgs {
                rpo.compute(c);
                dom.compute_chk(c, &rpo);
            }
            black_box(dom.idoms().len())
        });
    }

    #[divan::bench]
    fn zstd_semi_nca(bencher: Bencher) {
        let cfgs = corpus_cfgs();
        let mut dom = DomTree::new();
        bencher.bench_local(|| {
            for c in &cfgs {
                dom.compute_semi_nca(c);
            }
            black_box(dom.idoms().len())
        });
    }

    #[divan::bench]
    fn zstd_full_analysis(bencher: Bencher) {
        let cfgs = corpus_cfgs();
        let mut info = ilkit::cfg::CfgInfo::default();
        bencher.bench_local(|| {
            for c in &cfgs {
                info.compute(c);
            }
            black_box(info.loops().len())
        });
    }
}

#[divan::bench_group]
mod edges {
    use super::*;

    #[divan::bench]
    fn csr_all_successors(bencher: Bencher) {
        let cfg = cfg_from(N, &unstructured(N, 7));
        bencher.bench_local(|| {
            let mut s = 0u64;
            for b in cfg.blocks() {
                for &t in cfg.successors(b) {
                    s += t.raw() as u64;
                }
            }
            black_box(s)
        });
    }

    #[divan::bench]
    fn fnv_all_successors(bencher: Bencher) {
        let cfg = cfg_from(N, &unstructured(N, 7));
        let map = FnvEdgeMap::from_graph(&cfg);
        bencher.bench_local(|| {
            let mut s = 0u64;
            for b in cfg.blocks() {
                for &t in map.get(b).unwrap_or(&[]) {
                    s += t.raw() as u64;
                }
            }
            black_box(s)
        });
    }

    #[divan::bench]
    fn fnv_build(bencher: Bencher) {
        let cfg = cfg_from(N, &unstructured(N, 7));
        bencher.bench_local(|| black_box(FnvEdgeMap::from_graph(&cfg).len()));
    }

    #[divan::bench]
    fn csr_build(bencher: Bencher) {
        let e = unstructured(N, 7);
        bencher.bench_local(|| {
            black_box(
                ilkit::graph::Csr::from_edges(N, &e)
                    .unwrap()
                    .transpose()
                    .num_edges(),
            )
        });
    }
}

fn ptx_input() -> (String, String) {
    if let Some(found) = corpus_text("llvm/zlib/nvptx/deflate.ptx.gz") {
        return found;
    }
    // generated stand-in: 200 functions of 200 blocks
    let mut s = String::from(".version 6.0\n.target sm_70\n.address_size 64\n");
    for f in 0..200 {
        s.push_str(&format!(
            ".visible .func f{f}(.param .b32 p)\n{{\n\t.reg .pred %p<3>;\n"
        ));
        for b in 0..200 {
            s.push_str(&format!(
                "L{b}:\n\tadd.s32 %r1, %r1, 1;\n\tsetp.eq.s32 %p1, %r1, {b};\n\t@%p1 bra L{};\n",
                (b * 7) % 200
            ));
        }
        s.push_str("\tret;\n}\n");
    }
    ("generated.ptx".into(), s)
}

#[divan::bench]
fn ptx_import(bencher: Bencher) {
    let (name, text) = ptx_input();
    bencher
        .counter(BytesCount::new(text.len()))
        .bench_local(|| {
            let m = ilkit::import::ptx::parse(&name, &text).unwrap();
            let n: usize = m
                .functions
                .iter()
                .filter(|f| f.has_body)
                .map(|f| ilkit::import::ptx::build_cfg(f).num_blocks())
                .sum();
            black_box(n)
        });
}
