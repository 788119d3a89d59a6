//! The graphs `benches/callgraph.rs` measures, shared with `examples/profile_lcg_build.rs`
//! (which includes this file with `#[path]`).

use ilkit::callgraph::{Edge, EdgeKind, NodeIdx};

pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Call-graph shaped: node i calls 0..4 nodes in (i, i + 1000], and one node in a
/// thousand also calls back to an earlier neighbour (few, small cycles).
pub fn callgraph_edges(n: usize) -> Vec<(u32, u32)> {
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

pub fn random_edges(n: usize, m: usize) -> Vec<(u32, u32)> {
    let mut r = Rng(0x0bad_cafe_f00d_1234);
    (0..m)
        .map(|_| (r.next(n) as u32, r.next(n) as u32))
        .collect()
}

/// Per-node edge lists of `edges` over `n` nodes (duplicate targets dropped, as a call graph has one
/// edge per target); one edge in `ref_every` is a ref edge (never when 0).
pub fn edge_lists(n: usize, edges: &[(u32, u32)], ref_every: usize) -> Vec<Vec<Edge>> {
    let mut lists: Vec<Vec<Edge>> = vec![Vec::new(); n];
    for (k, &(a, b)) in edges.iter().enumerate() {
        let list = &mut lists[a as usize];
        if list.iter().any(|e| e.target.raw() == b) {
            continue;
        }
        let kind = if ref_every > 0 && k % ref_every == 0 {
            EdgeKind::Ref
        } else {
            EdgeKind::Call
        };
        list.push(Edge {
            target: NodeIdx::from_raw(b),
            kind,
        });
    }
    lists
}
