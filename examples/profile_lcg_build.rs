//! Profiling driver for `LazyCallGraph::build_ref_sccs` on the call-graph-shaped graph
//! of `benches/callgraph.rs` (10^6 nodes): `cargo run --release --example
//! profile_lcg_build [ITERATIONS]`, under `perf record` to see where a build goes.

use ilkit::callgraph::LazyCallGraph;
use std::time::Instant;

#[path = "../benches/callgraph_shapes.rs"]
#[allow(dead_code)]
mod callgraph_shapes;

const N: usize = 1_000_000;

fn main() {
    let iters: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let lists = callgraph_shapes::edge_lists(N, &callgraph_shapes::callgraph_edges(N), 0);
    let mut times = Vec::new();
    for _ in 0..iters {
        let mut g = LazyCallGraph::from_edge_lists(lists.clone()).expect("valid edge lists");
        let t = Instant::now();
        g.build_ref_sccs();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(g.num_refsccs());
    }
    times.sort_by(f64::total_cmp);
    println!(
        "build_ref_sccs: median {:.1} ms, min {:.1} ms over {iters}",
        times[iters / 2],
        times[0]
    );
}
