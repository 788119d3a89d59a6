//! Iterative Tarjan strongly connected components over any [`Successors`] graph.
//!
//! R. Tarjan, "Depth-first search and linear graph algorithms" (1972), in the
//! space-saving form of D. J. Pearce, "A space-efficient algorithm for finding strongly
//! connected components" (IPL 2016): one `u32` per node (`rindex`) holds the DFS
//! number, then the low-link, then the finished SCC, so visiting an edge touches one
//! word of the target and no on-stack bit or separate low-link table. The DFS runs on an
//! explicit stack of frames (no recursion: real call chains and CFGs are deep), and a
//! node that is its own trivial SCC (most of a call graph) never enters the pending
//! stack. O(N + E) time; the table and stacks live in [`Tarjan`] and are reused across
//! runs.
//!
//! # Output order
//! SCCs come out in *post-order*: every SCC after all SCCs it has edges into
//! (callee-first on a call graph). Roots are walked in the order given and successors in
//! stored order, like LLVM's `LazyCallGraph::buildGenericSCCs`; inside an SCC the nodes
//! are listed as LLVM lists them (the SCC's root first, then the rest of the pending
//! stack from the top down).
//!
//! # Invariants after [`Tarjan::compute`]
//! - `scc_of[n] == s` iff `n` is in `sccs(s)`; unreached nodes have `scc_of[n] == NONE`.
//! - `scc_starts.len() == num_sccs() + 1`.

use super::{Successors, NONE};

/// One suspended visit: the node, its next edge, its DFS number and its low-link so far.
#[derive(Clone, Copy, Debug)]
struct Frame {
    node: u32,
    edge: u32,
    index: u32,
    low: u32,
}

/// Reusable Tarjan state and result.
#[derive(Clone, Debug, Default)]
pub struct Tarjan {
    /// SCC index per node (`NONE` if not reached). During `compute` this is Pearce's
    /// `rindex`, complemented: `!0 == NONE` = unvisited; `!low` for a visited node not yet
    /// in an SCC; `k` = in the k-th SCC.
    scc_of: Vec<u32>,
    /// Offsets into `scc_nodes`, one per SCC plus one.
    scc_starts: Vec<u32>,
    /// Nodes grouped by SCC, SCCs in post-order.
    scc_nodes: Vec<u32>,
    frames: Vec<Frame>,
    pending: Vec<u32>,
}

impl Tarjan {
    /// An empty state; buffers grow on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// SCCs of the whole graph, roots `0..num_nodes()` in order.
    pub fn compute<G: Successors>(&mut self, g: &G) {
        self.compute_from(g, 0..g.num_nodes() as u32);
    }

    /// SCCs of the whole graph in *a* valid post-order, chosen for memory locality rather
    /// than to match LLVM: the roots are walked against the direction most edges point
    /// (descending ids when most edges go to higher ids, ascending otherwise), so most
    /// edges reach a node that is already finished and the walk streams through the
    /// tables instead of diving through the whole graph. Graphs numbered in (or against)
    /// call order — a generator's callers-first ids, a C file's callees-first definitions
    /// — finish almost every node with one scan of its edges. One extra sequential pass
    /// over (a sample of) the edges decides the direction. The partition is the same as
    /// [`Tarjan::compute`]'s; only the order of the SCCs (and of nodes inside one) may
    /// differ.
    pub fn compute_any_order<G: Successors>(&mut self, g: &G) {
        let n = g.num_nodes() as u32;
        let (mut forward, mut backward) = (0usize, 0usize);
        // An evenly spaced sample of at most 2^16 nodes decides.
        let stride = (n as usize >> 16).max(1);
        for v in (0..n).step_by(stride) {
            for &t in g.successors(v) {
                forward += (t > v) as usize;
                backward += (t < v) as usize;
            }
        }
        if forward > backward {
            self.compute_from(g, (0..n).rev());
        } else {
            self.compute_from(g, 0..n);
        }
    }

    /// SCCs of the part of `g` reachable from `roots` (walked in order).
    pub fn compute_from<G: Successors>(&mut self, g: &G, roots: impl IntoIterator<Item = u32>) {
        let n = g.num_nodes();
        assert!(n < (NONE / 2) as usize, "Tarjan: too many nodes");
        self.clear();
        self.scc_of.resize(n, NONE);
        self.scc_nodes.reserve(n);
        self.scc_starts.reserve(n + 1);
        self.scc_starts.push(0);
        let rindex = &mut self.scc_of[..];
        // Pearce's value of a node is `!rindex[node]`: 0 = unvisited, `1..next` = the
        // low-link of a live node, `!k` = in SCC k (above every live value). Stored
        // complemented, the table ends up as `scc_of` itself (NONE = unreached) with no
        // pass over it afterwards. Each finished SCC of size s gives back s numbers.
        let mut next = 1u32;
        let mut scc = 0u32;
        for root in roots {
            if rindex[root as usize] != NONE {
                continue;
            }
            rindex[root as usize] = !next;
            let mut f = Frame {
                node: root,
                edge: 0,
                index: next,
                low: next,
            };
            next += 1;
            let mut succ = g.successors(root);
            loop {
                while let Some(&c) = succ.get(f.edge as usize) {
                    f.edge += 1;
                    let rc = !rindex[c as usize];
                    if rc != 0 {
                        f.low = f.low.min(rc);
                        continue;
                    }
                    // Visit c. Scan its edges up to the first unvisited target: if there
                    // is none, c finishes here without a frame (most call-graph nodes).
                    let index = next;
                    next += 1;
                    rindex[c as usize] = !index;
                    let cs = g.successors(c);
                    let mut low = index;
                    let mut k = 0;
                    while let Some(&d) = cs.get(k) {
                        let rd = !rindex[d as usize];
                        if rd == 0 {
                            break;
                        }
                        low = low.min(rd);
                        k += 1;
                    }
                    if k == cs.len() {
                        if low == index {
                            // A trivial SCC: nothing was pushed above it.
                            rindex[c as usize] = scc;
                            scc += 1;
                            next -= 1;
                            self.scc_nodes.push(c);
                            self.scc_starts.push(self.scc_nodes.len() as u32);
                        } else {
                            rindex[c as usize] = !low;
                            self.pending.push(c);
                            f.low = f.low.min(low);
                        }
                        continue;
                    }
                    // Descend; ancestors' low-links must be visible to back edges.
                    rindex[f.node as usize] = !f.low;
                    self.frames.push(f);
                    f = Frame {
                        node: c,
                        edge: k as u32,
                        index,
                        low,
                    };
                    succ = cs;
                }
                let child_low = if f.low == f.index {
                    // f.node roots an SCC: it, then the pending nodes numbered after it.
                    rindex[f.node as usize] = scc;
                    self.scc_nodes.push(f.node);
                    next -= 1;
                    while let Some(&w) = self.pending.last() {
                        if !rindex[w as usize] < f.index {
                            break;
                        }
                        self.pending.pop();
                        rindex[w as usize] = scc;
                        self.scc_nodes.push(w);
                        next -= 1;
                    }
                    self.scc_starts.push(self.scc_nodes.len() as u32);
                    scc += 1;
                    NONE
                } else {
                    rindex[f.node as usize] = !f.low;
                    self.pending.push(f.node);
                    f.low
                };
                let Some(parent) = self.frames.pop() else {
                    break;
                };
                f = parent;
                if child_low < f.low {
                    f.low = child_low;
                }
                succ = g.successors(f.node);
            }
        }
    }

    /// Forgets the last result (keeps the buffers).
    pub fn clear(&mut self) {
        self.scc_of.clear();
        self.scc_starts.clear();
        self.scc_nodes.clear();
        self.frames.clear();
        self.pending.clear();
    }

    /// True when a result is present.
    pub fn is_valid(&self) -> bool {
        !self.scc_starts.is_empty()
    }

    /// Number of SCCs found.
    pub fn num_sccs(&self) -> usize {
        self.scc_starts.len().saturating_sub(1)
    }

    /// Nodes of SCC `s` (post-order index).
    pub fn scc(&self, s: u32) -> &[u32] {
        &self.scc_nodes
            [self.scc_starts[s as usize] as usize..self.scc_starts[s as usize + 1] as usize]
    }

    /// SCC index per node (`NONE` when not reached).
    pub fn scc_of(&self) -> &[u32] {
        &self.scc_of
    }

    /// Checks the result against `g`: partition consistency and post-order (every edge
    /// goes to the same or an earlier SCC). Reports every problem; never panics.
    pub fn verify<G: Successors>(&self, g: &G) -> Vec<String> {
        let mut errs = Vec::new();
        if self.scc_of.len() != g.num_nodes() {
            errs.push(format!(
                "scc_of has {} entries for {} nodes",
                self.scc_of.len(),
                g.num_nodes()
            ));
            return errs;
        }
        for s in 0..self.num_sccs() as u32 {
            for &n in self.scc(s) {
                if self.scc_of.get(n as usize) != Some(&s) {
                    errs.push(format!(
                        "node {n} listed in scc {s} but scc_of says otherwise"
                    ));
                }
            }
        }
        for n in 0..g.num_nodes() as u32 {
            let sn = self.scc_of[n as usize];
            if sn == NONE {
                continue;
            }
            for &t in g.successors(n) {
                let st = self.scc_of.get(t as usize).copied().unwrap_or(NONE);
                if st == NONE || st > sn {
                    errs.push(format!(
                        "edge {n}->{t} goes to a later or missing scc ({sn} -> {st})"
                    ));
                }
            }
        }
        errs
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;
    use crate::graph::{Csr, DirectedGraph};

    /// Slow oracle: SCC partition by mutual reachability.
    fn oracle(g: &Csr) -> Vec<Vec<bool>> {
        let n = g.num_nodes();
        let mut reach = vec![vec![false; n]; n];
        for s in 0..n {
            let mut stack = vec![s as u32];
            reach[s][s] = true;
            while let Some(x) = stack.pop() {
                for &y in g.successors(x) {
                    if !reach[s][y as usize] {
                        reach[s][y as usize] = true;
                        stack.push(y);
                    }
                }
            }
        }
        reach
    }

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn matches_reachability_oracle_on_random_graphs() {
        let mut seed = 7u64;
        let mut t = Tarjan::new();
        for _ in 0..300 {
            let n = (lcg(&mut seed) % 12 + 1) as usize;
            let m = (lcg(&mut seed) % (3 * n as u64 + 1)) as usize;
            let edges: Vec<(u32, u32)> = (0..m)
                .map(|_| {
                    (
                        (lcg(&mut seed) % n as u64) as u32,
                        (lcg(&mut seed) % n as u64) as u32,
                    )
                })
                .collect();
            let g = Csr::from_edges(n, &edges);
            t.compute(&g);
            assert!(t.verify(&g).is_empty(), "{:?}", t.verify(&g));
            let r = oracle(&g);
            for a in 0..n {
                for b in 0..n {
                    let same = t.scc_of()[a] == t.scc_of()[b];
                    assert_eq!(same, r[a][b] && r[b][a], "nodes {a} {b} in {edges:?}");
                }
            }
        }
    }

    #[test]
    fn any_order_has_the_same_partition_in_a_valid_post_order() {
        let mut seed = 11u64;
        let (mut a, mut b) = (Tarjan::new(), Tarjan::new());
        for round in 0..200u32 {
            let n = (lcg(&mut seed) % 40 + 1) as usize;
            let m = (lcg(&mut seed) % (3 * n as u64 + 1)) as usize;
            // Half the graphs lean forward (callers first), half backward.
            let edges: Vec<(u32, u32)> = (0..m)
                .map(|_| {
                    let x = (lcg(&mut seed) % n as u64) as u32;
                    let y = (lcg(&mut seed) % n as u64) as u32;
                    let lean = !lcg(&mut seed).is_multiple_of(8);
                    if lean && (x < y) == round.is_multiple_of(2) {
                        (y, x)
                    } else {
                        (x, y)
                    }
                })
                .collect();
            let g = Csr::from_edges(n, &edges);
            a.compute(&g);
            b.compute_any_order(&g);
            assert!(b.verify(&g).is_empty(), "{:?}", b.verify(&g));
            assert_eq!(a.num_sccs(), b.num_sccs());
            for x in 0..n {
                for y in 0..n {
                    let same_a = a.scc_of()[x] == a.scc_of()[y];
                    let same_b = b.scc_of()[x] == b.scc_of()[y];
                    assert_eq!(same_a, same_b, "nodes {x} {y} in {edges:?}");
                }
            }
        }
    }

    #[test]
    fn deep_chain_does_not_overflow() {
        let n = 200_000u32;
        let edges: Vec<(u32, u32)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        let g = Csr::from_edges(n as usize, &edges);
        let mut t = Tarjan::new();
        t.compute(&g);
        assert_eq!(t.num_sccs(), 1);
        assert_eq!(t.scc(0)[0], 0, "root first");
    }
}
