//! callgraph benches (divan): ilkit and its baselines in the same run.
//!
//! `cargo bench --bench callgraph`. Baselines: petgraph 0.6 `tarjan_scc` (recursive, so
//! it runs on a thread with a large stack; ilkit's Tarjan runs the same way for
//! fairness) and `kosaraju_scc`; a from-scratch rebuild for the incremental split.
//! ilkit's rows use `Tarjan::compute_any_order` (roots walked against the edges'
//! prevailing direction); `ilkit_llvm_root_order` is `Tarjan::compute` (roots in id
//! order, as the call graph needs).

use divan::counter::BytesCount;
use divan::Bencher;
use ilkit::callgraph::{Edge, EdgeKind, LazyCallGraph, NodeIdx};
use ilkit::graph::{Csr, Tarjan};

fn main() {
    divan::main();
}

const N: usize = 1_000_000;

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Call-graph shaped: node i calls 0..4 nodes in (i, i + 1000], and one node in a
/// thousand also calls back to an earlier neighbour (few, small cycles).
fn callgraph_edges(n: usize) -> Vec<(u32, u32)> {
    let mut r = Rng(0x1234_5678_9abc_def1);
    let mut e = Vec::with_capacity(n * 3);
    for i in 0..n {
        for _ in 0..r.next(5) {
            let j = i + 1 + r.next(1000);
            if j < n {
                e.push((i as u32, j as u32));
            }
        }
        if r.next(1000) == 0 && i > 50 {
            e.push((i as u32, (i - 1 - r.next(50)) as u32));
        }
    }
    e
}

fn random_edges(n: usize, m: usize) -> Vec<(u32, u32)> {
    let mut r = Rng(0x0bad_cafe_f00d_1234);
    (0..m)
        .map(|_| (r.next(n) as u32, r.next(n) as u32))
        .collect()
}

fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(4 << 30)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

fn petgraph_of(n: usize, e: &[(u32, u32)]) -> petgraph::Graph<(), ()> {
    let mut g = petgraph::Graph::<(), ()>::with_capacity(n, e.len());
    for _ in 0..n {
        g.add_node(());
    }
    for &(a, b) in e {
        g.add_edge(a.into(), b.into(), ());
    }
    g
}

/// One `Tarjan` run over and over on the graph of `edges`, its tables reused.
fn reused_tables(b: Bencher, edges: &[(u32, u32)], run: fn(&mut Tarjan, &Csr)) {
    let g = Csr::from_edges(N, edges);
    let mut t = Tarjan::new();
    b.bench_local(|| {
        run(&mut t, &g);
        t.num_sccs()
    });
}

mod tarjan_callgraph_shaped {
    use super::*;

    /// Roots `0..n` in order, as LLVM walks them (the order the call graph needs).
    #[divan::bench(sample_count = 10)]
    fn ilkit_llvm_root_order(b: Bencher) {
        reused_tables(b, &callgraph_edges(N), Tarjan::compute);
    }

    /// ilkit as a host uses it: one `Tarjan` whose side tables are reused across runs
    /// (no recursion, so no big-stack thread either).
    #[divan::bench(sample_count = 10)]
    fn ilkit_reused(b: Bencher) {
        reused_tables(b, &callgraph_edges(N), Tarjan::compute_any_order);
    }

    #[divan::bench(sample_count = 10)]
    fn ilkit(b: Bencher) {
        let g = std::sync::Arc::new(Csr::from_edges(N, &callgraph_edges(N)));
        b.bench_local(|| {
            let g = g.clone();
            on_big_stack(move || {
                let mut t = Tarjan::new();
                t.compute_any_order(&*g);
                t.num_sccs()
            })
        });
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_tarjan(b: Bencher) {
        let g = std::sync::Arc::new(petgraph_of(N, &callgraph_edges(N)));
        b.bench_local(|| {
            let g = g.clone();
            on_big_stack(move || petgraph::algo::tarjan_scc(&*g).len())
        });
    }

    /// Not a bar baseline: petgraph given the same locality by hand, on the graph with its
    /// ids reversed (petgraph walks roots in id order and takes no root order).
    #[divan::bench(sample_count = 10)]
    fn petgraph_tarjan_reversed_ids(b: Bencher) {
        let n = N as u32 - 1;
        let e: Vec<(u32, u32)> = callgraph_edges(N)
            .into_iter()
            .map(|(a, b)| (n - a, n - b))
            .collect();
        let g = std::sync::Arc::new(petgraph_of(N, &e));
        b.bench_local(|| {
            let g = g.clone();
            on_big_stack(move || petgraph::algo::tarjan_scc(&*g).len())
        });
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_kosaraju(b: Bencher) {
        let g = std::sync::Arc::new(petgraph_of(N, &callgraph_edges(N)));
        b.bench_local(|| {
            let g = g.clone();
            on_big_stack(move || petgraph::algo::kosaraju_scc(&*g).len())
        });
    }
}

mod tarjan_random_1m_4m {
    use super::*;

    /// Roots `0..n` in order, as LLVM walks them (the order the call graph needs).
    #[divan::bench(sample_count = 10)]
    fn ilkit_llvm_root_order(b: Bencher) {
        reused_tables(b, &random_edges(N, 4 * N), Tarjan::compute);
    }

    /// ilkit as a host uses it: one `Tarjan` whose side tables are reused across runs
    /// (no recursion, so no big-stack thread either).
    #[divan::bench(sample_count = 10)]
    fn ilkit_reused(b: Bencher) {
        reused_tables(b, &random_edges(N, 4 * N), Tarjan::compute_any_order);
    }

    #[divan::bench(sample_count = 10)]
    fn ilkit(b: Bencher) {
        let g = std::sync::Arc::new(Csr::from_edges(N, &random_edges(N, 4 * N)));
        b.bench_local(|| {
            let g = g.clone();
            on_big_stack(move || {
                let mut t = Tarjan::new();
                t.compute_any_order(&*g);
                t.num_sccs()
            })
        });
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_tarjan(b: Bencher) {
        let g = std::sync::Arc::new(petgraph_of(N, &random_edges(N, 4 * N)));
        b.bench_local(|| {
            let g = g.clone();
            on_big_stack(move || petgraph::algo::tarjan_scc(&*g).len())
        });
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_kosaraju(b: Bencher) {
        let g = std::sync::Arc::new(petgraph_of(N, &random_edges(N, 4 * N)));
        b.bench_local(|| {
            let g = g.clone();
            on_big_stack(move || petgraph::algo::kosaraju_scc(&*g).len())
        });
    }
}

/// A 10^6-node lazy call graph whose nodes 0..16 form one call cycle on top of the
/// call-graph-shaped DAG.
fn lcg_with_cycle16() -> Vec<Vec<Edge>> {
    let mut lists = vec![Vec::new(); N];
    for (a, b) in callgraph_edges(N) {
        if a >= 16 && b >= 16 && !lists[a as usize].iter().any(|e: &Edge| e.target.0 == b) {
            lists[a as usize].push(Edge {
                target: NodeIdx(b),
                kind: EdgeKind::Call,
            });
        }
    }
    for i in 0..16u32 {
        lists[i as usize].push(Edge {
            target: NodeIdx((i + 1) % 16),
            kind: EdgeKind::Call,
        });
        lists[i as usize].push(Edge {
            target: NodeIdx(16 + i),
            kind: EdgeKind::Call,
        });
    }
    lists
}

mod split_scc16_in_1m {
    use super::*;

    /// `switch_internal_edge_to_ref` splitting the 16-node SCC into 16, then
    /// `switch_internal_edge_to_call` merging it back, in place (an upper bound for
    /// the split alone).
    #[divan::bench(sample_count = 50)]
    fn ilkit_split_then_merge(b: Bencher) {
        let mut g = LazyCallGraph::from_edge_lists(lcg_with_cycle16());
        g.build_ref_sccs();
        b.bench_local(|| {
            let n = g.switch_internal_edge_to_ref(NodeIdx(15), NodeIdx(0)).len();
            g.switch_internal_edge_to_call(NodeIdx(15), NodeIdx(0), |_| {});
            n
        });
    }

    /// Baseline: rebuild every RefSCC and SCC from scratch (Tarjan over the whole
    /// graph; the graph's tables are set up outside the timing).
    #[divan::bench(sample_count = 10)]
    fn rebuild_from_scratch(b: Bencher) {
        let lists = lcg_with_cycle16();
        b.with_inputs(|| LazyCallGraph::from_edge_lists(lists.clone()))
            .bench_local_refs(|g| {
                g.build_ref_sccs();
                g.num_refsccs()
            });
    }
}

fn corpus_ll() -> Option<(String, String)> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for c in ["../shared/corpus", "../../shared/corpus"] {
        let p = root.join(c).join("llvm/zstd/zstd.O2.ll");
        if let Ok(t) = std::fs::read_to_string(&p) {
            return Some((p.display().to_string(), t));
        }
    }
    None
}

mod import_ll {
    use super::*;

    /// Parse throughput on the largest corpus module (zstd.O2.ll, 14 MB), or on the
    /// fixture when the corpus is absent.
    #[divan::bench(sample_count = 10)]
    fn parse(b: Bencher) {
        let (name, text) = corpus_ll().unwrap_or_else(|| {
            (
                "lcg_small.ll".into(),
                include_str!("../tests/fixtures/llvm/lcg_small.ll").to_string(),
            )
        });
        b.counter(BytesCount::of_str(&text))
            .bench_local(|| ilkit::llvm::Module::from_ll_str(&name, &text).unwrap());
    }

    /// Parse + call graph + RefSCCs (what `ilkit callgraph --format json` does).
    #[divan::bench(sample_count = 10)]
    fn parse_and_build_lcg(b: Bencher) {
        let (name, text) = corpus_ll().unwrap_or_else(|| {
            (
                "lcg_small.ll".into(),
                include_str!("../tests/fixtures/llvm/lcg_small.ll").to_string(),
            )
        });
        b.counter(BytesCount::of_str(&text)).bench_local(|| {
            let m = ilkit::llvm::Module::from_ll_str(&name, &text).unwrap();
            let mut g = ilkit::callgraph::from_module(&m, &name);
            g.build_ref_sccs();
            g.num_refsccs()
        });
    }
}
