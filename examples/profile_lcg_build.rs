//! Profiling driver for `LazyCallGraph::build_ref_sccs` on the call-graph-shaped graph
//! of `benches/callgraph.rs` (10^6 nodes): `cargo run --release --example
//! profile_lcg_build [ITERATIONS]`, under `perf record` to see where a build goes.

use ilkit::callgraph::{Edge, EdgeKind, LazyCallGraph, NodeIdx};
use std::time::Instant;

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

fn main() {
    let iters: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let mut r = Rng(0x1234_5678_9abc_def1);
    let mut lists: Vec<Vec<Edge>> = vec![Vec::new(); N];
    for (i, list) in lists.iter_mut().enumerate() {
        let mut push = |j: usize| {
            if !list.iter().any(|e| e.target.0 == j as u32) {
                list.push(Edge {
                    target: NodeIdx(j as u32),
                    kind: EdgeKind::Call,
                });
            }
        };
        for _ in 0..r.next(5) {
            let j = i + 1 + r.next(1000);
            if j < N {
                push(j);
            }
        }
        if r.next(1000) == 0 && i > 50 {
            push(i - 1 - r.next(50));
        }
    }
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
