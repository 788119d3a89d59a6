//! callgraph benches (divan): what the call graph really runs, and its baselines in the
//! same run.
//!
//! `cargo bench --bench callgraph`.
//! - `scc_*`: `ilkit_build_ref_sccs` is [`LazyCallGraph::build_ref_sccs`] on a graph made
//!   from edge lists (every edge a call edge; the graph is set up outside the timing):
//!   the RefSCCs and SCCs in LLVM's order, through `graph::Tarjan` (one run over every
//!   edge, a second scoped run only inside RefSCCs with a ref edge). Baselines: petgraph
//!   0.6 `tarjan_scc` (recursive, so it runs on a thread with a large stack) and
//!   `kosaraju_scc` on the same graph. Reference rows, not bars: the same build with one
//!   edge in ten a ref edge (`..._10pct_refs`, second runs inside RefSCCs), and the bare
//!   `graph::Tarjan` on a CSR in LLVM's root order (`tarjan_llvm_order`) and in
//!   `compute_any_order` (`tarjan_any_order`). `scc_callgraph_shaped_callees_first` is
//!   the same graph with its ids reversed (callees before callers, the order of a C
//!   module's definitions, see PERF.md): LLVM's root order (and petgraph's) then walks
//!   with the edges instead of against them.
//! - `split_*`: the incremental splits (`switch_internal_edge_to_ref`, scoped Tarjan with
//!   a sink; `remove_internal_ref_edges`, scoped Tarjan) each followed by the merge that
//!   undoes it, in place, against rebuilding every RefSCC and SCC from scratch.
//! - `import_ll`: parsing and building the graph of the largest corpus module.

use divan::counter::BytesCount;
use divan::Bencher;
use ilkit::callgraph::{Edge, EdgeKind, LazyCallGraph, NodeIdx};
use ilkit::graph::{Csr, Tarjan};

fn main() {
    divan::main();
}

const N: usize = 1_000_000;

mod callgraph_shapes;
use callgraph_shapes::{callgraph_edges, random_edges};

/// [`callgraph_shapes::edge_lists`] over `N` nodes.
fn edge_lists(edges: &[(u32, u32)], ref_every: usize) -> Vec<Vec<Edge>> {
    callgraph_shapes::edge_lists(N, edges, ref_every)
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

/// `build_ref_sccs` on fresh graphs over `lists` (set up outside the timing).
fn build(b: Bencher, lists: Vec<Vec<Edge>>) {
    b.with_inputs(|| LazyCallGraph::from_edge_lists(lists.clone()).unwrap())
        .bench_local_refs(|g| {
            g.build_ref_sccs();
            g.num_refsccs()
        });
}

/// One `Tarjan` run over and over on the CSR of `edges`, its tables reused.
fn tarjan(b: Bencher, edges: &[(u32, u32)], run: fn(&mut Tarjan, &Csr)) {
    let g = Csr::from_edges(N, edges).unwrap();
    let mut t = Tarjan::new();
    b.bench_local(|| {
        run(&mut t, &g);
        t.num_sccs()
    });
}

fn petgraph_tarjan(b: Bencher, edges: &[(u32, u32)]) {
    let g = std::sync::Arc::new(petgraph_of(N, edges));
    b.bench_local(|| {
        let g = g.clone();
        on_big_stack(move || petgraph::algo::tarjan_scc(&*g).len())
    });
}

fn petgraph_kosaraju(b: Bencher, edges: &[(u32, u32)]) {
    let g = std::sync::Arc::new(petgraph_of(N, edges));
    b.bench_local(|| {
        let g = g.clone();
        on_big_stack(move || petgraph::algo::kosaraju_scc(&*g).len())
    });
}

mod scc_callgraph_shaped {
    use super::*;

    /// The bar row: RefSCCs and SCCs of a LazyCallGraph, LLVM's order.
    #[divan::bench(sample_count = 10)]
    fn ilkit_build_ref_sccs(b: Bencher) {
        build(b, edge_lists(&callgraph_edges(N), 0));
    }

    #[divan::bench(sample_count = 10)]
    fn ilkit_build_ref_sccs_10pct_refs(b: Bencher) {
        build(b, edge_lists(&callgraph_edges(N), 10));
    }

    #[divan::bench(sample_count = 10)]
    fn tarjan_llvm_order(b: Bencher) {
        tarjan(b, &callgraph_edges(N), Tarjan::compute);
    }

    #[divan::bench(sample_count = 10)]
    fn tarjan_any_order(b: Bencher) {
        tarjan(b, &callgraph_edges(N), Tarjan::compute_any_order);
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_tarjan(b: Bencher) {
        super::petgraph_tarjan(b, &callgraph_edges(N));
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_kosaraju(b: Bencher) {
        super::petgraph_kosaraju(b, &callgraph_edges(N));
    }
}

/// `callgraph_edges` with ids reversed: every edge goes to a lower id.
fn callees_first_edges(n: usize) -> Vec<(u32, u32)> {
    let last = n as u32 - 1;
    callgraph_edges(n)
        .into_iter()
        .map(|(a, b)| (last - a, last - b))
        .collect()
}

mod scc_callgraph_shaped_callees_first {
    use super::*;

    #[divan::bench(sample_count = 10)]
    fn ilkit_build_ref_sccs(b: Bencher) {
        build(b, edge_lists(&callees_first_edges(N), 0));
    }

    #[divan::bench(sample_count = 10)]
    fn tarjan_llvm_order(b: Bencher) {
        tarjan(b, &callees_first_edges(N), Tarjan::compute);
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_tarjan(b: Bencher) {
        super::petgraph_tarjan(b, &callees_first_edges(N));
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_kosaraju(b: Bencher) {
        super::petgraph_kosaraju(b, &callees_first_edges(N));
    }
}

mod scc_random_1m_4m {
    use super::*;

    /// The bar row: RefSCCs and SCCs of a LazyCallGraph, LLVM's order.
    #[divan::bench(sample_count = 10)]
    fn ilkit_build_ref_sccs(b: Bencher) {
        build(b, edge_lists(&random_edges(N, 4 * N), 0));
    }

    #[divan::bench(sample_count = 10)]
    fn ilkit_build_ref_sccs_10pct_refs(b: Bencher) {
        build(b, edge_lists(&random_edges(N, 4 * N), 10));
    }

    #[divan::bench(sample_count = 10)]
    fn tarjan_llvm_order(b: Bencher) {
        tarjan(b, &random_edges(N, 4 * N), Tarjan::compute);
    }

    #[divan::bench(sample_count = 10)]
    fn tarjan_any_order(b: Bencher) {
        tarjan(b, &random_edges(N, 4 * N), Tarjan::compute_any_order);
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_tarjan(b: Bencher) {
        super::petgraph_tarjan(b, &random_edges(N, 4 * N));
    }

    #[divan::bench(sample_count = 10)]
    fn petgraph_kosaraju(b: Bencher) {
        super::petgraph_kosaraju(b, &random_edges(N, 4 * N));
    }
}

/// A 10^6-node lazy call graph whose nodes 0..16 form one cycle (of `kind` edges) on top
/// of the call-graph-shaped DAG.
fn lcg_with_cycle16(kind: EdgeKind) -> Vec<Vec<Edge>> {
    let mut lists = vec![Vec::new(); N];
    for (a, b) in callgraph_edges(N) {
        if a >= 16 && b >= 16 && !lists[a as usize].iter().any(|e: &Edge| e.target.raw() == b) {
            lists[a as usize].push(Edge {
                target: NodeIdx::from_raw(b),
                kind: EdgeKind::Call,
            });
        }
    }
    for i in 0..16u32 {
        lists[i as usize].push(Edge {
            target: NodeIdx::from_raw((i + 1) % 16),
            kind,
        });
        lists[i as usize].push(Edge {
            target: NodeIdx::from_raw(16 + i),
            kind: EdgeKind::Call,
        });
    }
    lists
}

mod split_cycle16_in_1m {
    use super::*;

    /// `switch_internal_edge_to_ref` splitting the 16-node SCC into 16 (a scoped Tarjan
    /// run with a sink), then `switch_internal_edge_to_call` merging it back, in place
    /// (an upper bound for the split alone).
    #[divan::bench(sample_count = 50)]
    fn scc_split_then_merge(b: Bencher) {
        let mut g = LazyCallGraph::from_edge_lists(lcg_with_cycle16(EdgeKind::Call)).unwrap();
        g.build_ref_sccs();
        let (last, first) = (NodeIdx::new(15), NodeIdx::new(0));
        b.bench_local(|| {
            let n = g.switch_internal_edge_to_ref(last, first).unwrap().len();
            g.switch_internal_edge_to_call(last, first, |_| {}).unwrap();
            n
        });
    }

    /// `remove_internal_ref_edges` splitting the 16-node RefSCC into 16 (a scoped Tarjan
    /// run), then `insert_incoming_ref_edge` merging it back, in place.
    #[divan::bench(sample_count = 50)]
    fn refscc_split_then_merge(b: Bencher) {
        let mut g = LazyCallGraph::from_edge_lists(lcg_with_cycle16(EdgeKind::Ref)).unwrap();
        g.build_ref_sccs();
        let (last, first) = (NodeIdx::new(15), NodeIdx::new(0));
        b.bench_local(|| {
            let n = g.remove_internal_ref_edges(&[(last, first)]).unwrap().len();
            g.insert_incoming_ref_edge(last, first).unwrap();
            n
        });
    }

    /// Baseline: rebuild every RefSCC and SCC from scratch (the graph's tables are set
    /// up outside the timing).
    #[divan::bench(sample_count = 10)]
    fn rebuild_from_scratch(b: Bencher) {
        build(b, lcg_with_cycle16(EdgeKind::Call));
    }
}

/// The corpus's largest module (`tests/corpus/llvm/zstd/zstd.O2.ll.gz`), decompressed.
fn corpus_ll() -> Option<(String, String)> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/llvm/zstd/zstd.O2.ll.gz");
    let t = ilkit::import::read_text(&p).ok()?;
    Some((p.display().to_string(), t))
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
