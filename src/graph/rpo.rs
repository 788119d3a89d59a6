//! Reverse post-order (RPO) numbering of the nodes reachable from a graph's start node.
//!
//! Two traversals, both without recursion:
//! - [`RpoVariant::Ptxas`]: the ptxas `CFG::computeRPO` scheme (seed 004, `sub_BDE150`):
//!   an explicit stack of node ids, a `need_expand` bit array (1 = successors not pushed
//!   yet) and an `in_stack` bit array (1 = expanded, not finished), a counter that counts
//!   down from the block count, and duplicate stack entries that are silently discarded
//!   when they surface. Successors are pushed in reverse so the first successor is
//!   explored first.
//!
//!   One deliberate difference from the seed's pseudocode: the seed guards the push with
//!   `need_expand[s] && !in_stack[s]`, which (a) never numbers the entry block and (b) on
//!   a cross edge to a block that is pushed but not yet expanded yields an order in which
//!   a forward edge looks like a backedge (see `seed_guard_breaks_rpo` in the tests). Here
//!   a block is pushed again while it is still unexpanded (that is what creates the
//!   "duplicate stack entries" the seed discards), which makes the result a true DFS
//!   post-order, identical to the recursive traversal.
//! - [`RpoVariant::Recursive`]: the recursive DFS of `sub_BDE6C0`, run on an explicit
//!   `(node, next successor)` stack. Same visit order as `Ptxas`; kept as a cross-check.
//!
//! # Invariants (after `compute`)
//! - `rpo_array.len() == number of reachable nodes`, `rpo_array[0] == start`.
//! - `rpo_number[rpo_array[k]] == k`; `rpo_number[b] == UNREACHED` iff `b` is unreachable.
//! - for every edge `u -> v` between reachable nodes, `rpo_number[u] < rpo_number[v]`
//!   unless `u -> v` is a DFS backedge (`rpo_number[v] <= rpo_number[u]`, and then `v` is
//!   an ancestor of `u` in the DFS tree).
//! - the same traversal's DFS tree: `pre_number[pre_order[k]] == k`, `pre_order.len() ==
//!   rpo_array.len()`, and for `k > 0`, `pre_parent[k] < k` and
//!   `pre_order[pre_parent[k]] -> pre_order[k]` is an edge.
//!
//! Complexity: O(N + E) time; the `Ptxas` stack holds at most E + 1 entries, the
//! `Recursive` stack at most N. Scratch buffers are kept for reuse across `compute` calls.
//!
//! Reference: Tarjan, "Depth-first search and linear graph algorithms" (1972).

use super::{Successors, WithStart};
use crate::idx::{Idx, IndexVec};

/// The `rpo_number` / `pre_number` of a node the traversal did not reach.
pub const UNREACHED: u32 = u32::MAX;
/// The `pre_parent` of the start node.
const NO_PARENT: u32 = u32::MAX;

/// Which DFS drives the numbering (both give the same order; see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RpoVariant {
    /// ptxas' iterative DFS with `need_expand` / `in_stack` bits and duplicate entries.
    #[default]
    Ptxas,
    /// The recursive DFS, run on an explicit `(node, edge index)` stack.
    Recursive,
}

/// RPO numbers and order of the nodes reachable from the start node.
///
/// Keyed by node (`rpo_number`, `pre_number`) and by position (`rpo_array`,
/// `pre_order`, `pre_parent`); stays in sync with the graph it was computed on until
/// that graph changes. Positions are plain `u32`s; [`UNREACHED`] marks a node the
/// traversal did not reach.
#[derive(Clone, Debug)]
pub struct Rpo<N: Idx = u32> {
    /// `rpo_number[node]`: RPO position, or [`UNREACHED`].
    pub(crate) rpo_number: IndexVec<N, u32>,
    /// `rpo_array[k]`: the node at RPO position `k` (reachable nodes only).
    pub(crate) rpo_array: Vec<N>,
    /// The DFS tree the traversal walked, in preorder: `pre_order[k]` is the k-th node
    /// entered (`pre_order[0] == start`). Semi-NCA runs on it without a DFS of its own.
    pub(crate) pre_order: Vec<N>,
    /// `pre_number[node]`: the node's preorder position, [`UNREACHED`] if unreachable.
    pub(crate) pre_number: IndexVec<N, u32>,
    /// `pre_parent[k]`: preorder position of the DFS-tree parent of `pre_order[k]`
    /// (`u32::MAX` for the start).
    pub(crate) pre_parent: Vec<u32>,
    valid: bool,
    // scratch
    need_expand: Vec<u64>,
    in_stack: Vec<u64>,
    stack: Vec<N>,
    edge_stack: Vec<(N, u32)>,
    path: Vec<u32>,
    tmp: Vec<N>,
}

impl<N: Idx> Default for Rpo<N> {
    fn default() -> Self {
        Rpo {
            rpo_number: IndexVec::new(),
            rpo_array: Vec::new(),
            pre_order: Vec::new(),
            pre_number: IndexVec::new(),
            pre_parent: Vec::new(),
            valid: false,
            need_expand: Vec::new(),
            in_stack: Vec::new(),
            stack: Vec::new(),
            edge_stack: Vec::new(),
            path: Vec::new(),
            tmp: Vec::new(),
        }
    }
}

#[inline]
fn bit(v: &[u64], i: usize) -> bool {
    v[i >> 6] >> (i & 63) & 1 != 0
}
#[inline]
fn set(v: &mut [u64], i: usize) {
    v[i >> 6] |= 1 << (i & 63);
}
#[inline]
fn unset(v: &mut [u64], i: usize) {
    v[i >> 6] &= !(1 << (i & 63));
}

impl<N: Idx> Rpo<N> {
    /// An empty, invalid RPO.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the RPO with the ptxas traversal.
    pub fn compute<G: Successors<Node = N> + WithStart>(&mut self, g: &G) {
        self.compute_with(g, RpoVariant::Ptxas)
    }

    /// Computes the RPO with the chosen traversal.
    pub fn compute_with<G: Successors<Node = N> + WithStart>(
        &mut self,
        g: &G,
        variant: RpoVariant,
    ) {
        let n = g.num_nodes();
        self.rpo_number.clear();
        self.rpo_number.resize(n, UNREACHED);
        self.rpo_array.clear();
        self.pre_order.clear();
        self.pre_number.clear();
        self.pre_number.resize(n, UNREACHED);
        self.pre_parent.clear();
        self.valid = true;
        let start = g.start_node();
        if start.idx() >= n {
            // No start node (an empty graph): nothing is reachable.
            return;
        }
        // Numbers are first assigned counting down from n - 1 (as ptxas does from its
        // block count) into `tmp`, then shifted so that the entry gets 0.
        self.tmp.clear();
        self.tmp.resize(n, N::NONE);
        let mut counter = n as u32; // next number is counter - 1
        match variant {
            RpoVariant::Ptxas => {
                let words = n.div_ceil(64);
                self.need_expand.clear();
                self.need_expand.resize(words, !0u64);
                self.in_stack.clear();
                self.in_stack.resize(words, 0);
                // Locals, so the loop keeps the table pointers in registers.
                let (need_expand, in_stack) = (&mut self.need_expand[..], &mut self.in_stack[..]);
                let (rpo_number, tmp) = (self.rpo_number.raw_mut(), &mut self.tmp[..]);
                let pre_number = self.pre_number.raw_mut();
                let (pre_order, pre_parent) = (&mut self.pre_order, &mut self.pre_parent);
                let stack = &mut self.stack;
                stack.clear();
                stack.push(start);
                // `path`: preorder numbers of the expanded, unfinished nodes (the DFS
                // path); its top is the tree parent of the next node expanded.
                let path = &mut self.path;
                path.clear();
                while let Some(&b) = stack.last() {
                    if bit(need_expand, b.idx()) {
                        unset(need_expand, b.idx());
                        set(in_stack, b.idx());
                        let k = pre_order.len() as u32;
                        pre_number[b.idx()] = k;
                        pre_order.push(b);
                        pre_parent.push(path.last().copied().unwrap_or(NO_PARENT));
                        path.push(k);
                        for &s in g.successors(b).iter().rev() {
                            if bit(need_expand, s.idx()) {
                                stack.push(s);
                            }
                        }
                        continue;
                    }
                    stack.pop();
                    if bit(in_stack, b.idx()) {
                        unset(in_stack, b.idx());
                        path.pop();
                        counter -= 1;
                        rpo_number[b.idx()] = counter;
                        tmp[counter as usize] = b;
                    }
                    // else: duplicate stack entry of a finished node, discarded.
                }
            }
            RpoVariant::Recursive => {
                // `rpo_number` doubles as the visited mark (UNREACHED - 1 = on the path).
                self.edge_stack.clear();
                self.edge_stack.push((start, 0));
                self.rpo_number[start] = UNREACHED - 1;
                self.pre_number[start] = 0;
                self.pre_order.push(start);
                self.pre_parent.push(NO_PARENT);
                while let Some(top) = self.edge_stack.last_mut() {
                    let (b, i) = *top;
                    let succs = g.successors(b);
                    if (i as usize) < succs.len() {
                        top.1 += 1;
                        let s = succs[i as usize];
                        if self.rpo_number[s] == UNREACHED {
                            self.rpo_number[s] = UNREACHED - 1;
                            self.pre_parent.push(self.pre_number[b]);
                            self.pre_number[s] = self.pre_order.len() as u32;
                            self.pre_order.push(s);
                            self.edge_stack.push((s, 0));
                        }
                    } else {
                        self.edge_stack.pop();
                        counter -= 1;
                        self.rpo_number[b] = counter;
                        self.tmp[counter as usize] = b;
                    }
                }
            }
        }
        let shift = counter;
        self.rpo_array
            .extend_from_slice(&self.tmp[shift as usize..]);
        for &b in &self.rpo_array {
            self.rpo_number[b] -= shift;
        }
    }

    /// Forgets the result (keeps the scratch capacity).
    pub fn clear(&mut self) {
        self.rpo_number.clear();
        self.rpo_array.clear();
        self.pre_order.clear();
        self.pre_number.clear();
        self.pre_parent.clear();
        self.valid = false;
    }

    /// True when `compute` ran since the last `clear` and the node count still matches.
    pub fn is_valid<G: Successors<Node = N>>(&self, g: &G) -> bool {
        self.valid && self.rpo_number.len() == g.num_nodes()
    }

    /// Whether the result describes some graph of `n` nodes: computed, its tables sized
    /// for `n` (what the algorithms that take an RPO check before trusting it).
    pub(crate) fn fits(&self, n: usize) -> bool {
        self.valid
            && self.rpo_number.len() == n
            && self.pre_number.len() == n
            && self.rpo_array.iter().all(|b| b.idx() < n)
    }

    /// True if `node` is reachable from the start node.
    #[inline]
    pub fn is_reachable(&self, node: N) -> bool {
        self.rpo_number.get(node).is_some_and(|&r| r != UNREACHED)
    }

    /// The RPO position of `node`, `None` if it is unreachable.
    #[inline]
    pub fn number(&self, node: N) -> Option<u32> {
        self.rpo_number
            .get(node)
            .copied()
            .filter(|&r| r != UNREACHED)
    }

    /// The reachable nodes in reverse post-order (`order()[k]` has number `k`).
    pub fn order(&self) -> &[N] {
        &self.rpo_array
    }

    /// The DFS tree the traversal walked, in preorder (`pre_order()[0]` is the start).
    pub fn pre_order(&self) -> &[N] {
        &self.pre_order
    }

    /// The preorder position of `node` in that DFS tree, `None` if it is unreachable.
    pub fn pre_number(&self, node: N) -> Option<u32> {
        self.pre_number
            .get(node)
            .copied()
            .filter(|&r| r != UNREACHED)
    }

    /// Nodes not reachable from the start node, in index order.
    pub fn unreachable(&self) -> impl Iterator<Item = N> + '_ {
        self.rpo_number
            .iter_enumerated()
            .filter(|&(_, &r)| r == UNREACHED)
            .map(|(b, _)| b)
    }

    /// DFS backedges `u -> v` (`rpo_number[v] <= rpo_number[u]`, both reachable), source-major
    /// in node order, successors in stored order. Nodes of `g` this RPO does not number
    /// (it was computed for another graph) count as unreachable.
    pub fn backedges<G: Successors<Node = N>>(&self, g: &G) -> Vec<(N, N)> {
        let mut out = Vec::new();
        let numbered = self.rpo_number.iter_enumerated().take(g.num_nodes());
        for (u, &ru) in numbered {
            if ru == UNREACHED {
                continue;
            }
            for &v in g.successors(u) {
                if self.rpo_number.get(v).is_some_and(|&rv| rv <= ru) {
                    out.push((u, v));
                }
            }
        }
        out
    }

    /// Checks the invariants against `g`; returns every problem found, never panics.
    pub fn verify<G: Successors<Node = N> + WithStart>(&self, g: &G) -> Vec<String> {
        let mut errs = Vec::new();
        let n = g.num_nodes();
        if !self.valid {
            errs.push("rpo: not computed".to_string());
            return errs;
        }
        if self.rpo_number.len() != n {
            errs.push(format!(
                "rpo: {} numbers for {} nodes",
                self.rpo_number.len(),
                n
            ));
            return errs;
        }
        for (k, &b) in self.rpo_array.iter().enumerate() {
            if b.idx() >= n || self.rpo_number[b] != k as u32 {
                errs.push(format!(
                    "rpo: rpo_array[{k}] = {} but its number disagrees",
                    b.idx()
                ));
            }
        }
        if self.pre_order.len() != self.rpo_array.len()
            || self.pre_parent.len() != self.pre_order.len()
            || self.pre_number.len() != n
        {
            errs.push("rpo: DFS tree tables have the wrong sizes".to_string());
            return errs;
        }
        for (k, &b) in self.pre_order.iter().enumerate() {
            let p = self.pre_parent[k];
            let tree_edge =
                (p as usize) < k && g.successors(self.pre_order[p as usize]).contains(&b);
            if b.idx() >= n || self.pre_number[b] != k as u32 || (k > 0 && !tree_edge) {
                errs.push(format!(
                    "rpo: DFS tree entry {k} (node {}) is inconsistent",
                    b.idx()
                ));
            }
        }
        if g.start_node().idx() < n && self.rpo_array.first() != Some(&g.start_node()) {
            errs.push("rpo: start node is not first".to_string());
        }
        let numbered = self.rpo_number.iter().filter(|&&r| r != UNREACHED).count();
        if numbered != self.rpo_array.len() {
            errs.push(format!(
                "rpo: {numbered} numbered nodes, {} in rpo_array",
                self.rpo_array.len()
            ));
        }
        // Reachability closure: every edge out of a numbered node lands on a numbered node.
        for (u, &ru) in self.rpo_number.iter_enumerated() {
            if ru == UNREACHED {
                continue;
            }
            for &v in g.successors(u) {
                if v.idx() >= n || self.rpo_number[v] == UNREACHED {
                    errs.push(format!(
                        "rpo: edge {}->{} leaves the numbered set",
                        u.idx(),
                        v.idx()
                    ));
                }
            }
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Csr, DirectedGraph};

    struct G(Csr, u32);
    impl DirectedGraph for G {
        type Node = u32;
        fn num_nodes(&self) -> usize {
            self.0.num_nodes()
        }
    }
    impl Successors for G {
        fn successors(&self, n: u32) -> &[u32] {
            self.0.successors(n)
        }
    }
    impl WithStart for G {
        fn start_node(&self) -> u32 {
            self.1
        }
    }

    fn g(n: usize, e: &[(u32, u32)]) -> G {
        G(Csr::from_edges(n, e).unwrap(), 0)
    }

    #[test]
    fn seed_example() {
        // bix0 -> bix1, bix3; bix1 -> bix2; bix2 -> bix1, bix3 (the seed's DOT example).
        let gr = g(4, &[(0, 1), (0, 3), (1, 2), (2, 1), (2, 3)]);
        let mut r = Rpo::new();
        r.compute(&gr);
        assert_eq!(r.rpo_array, vec![0, 1, 2, 3]);
        assert_eq!(r.backedges(&gr), vec![(2, 1)]);
        assert!(r.verify(&gr).is_empty());
    }

    #[test]
    fn seed_guard_breaks_rpo() {
        // 0 -> [1, 2], 1 -> 2. With the literal seed guard (no duplicate push) 2 would be
        // numbered before 1 is finished and 1 -> 2 would look like a backedge.
        let gr = g(3, &[(0, 1), (0, 2), (1, 2)]);
        let mut r = Rpo::new();
        r.compute(&gr);
        assert_eq!(r.rpo_array, vec![0, 1, 2]);
        assert!(r.backedges(&gr).is_empty());
    }

    #[test]
    fn unreachable_not_numbered_and_variants_agree() {
        let gr = g(5, &[(0, 2), (2, 0), (3, 1), (2, 4), (4, 2)]);
        let mut a = Rpo::new();
        let mut b = Rpo::new();
        a.compute_with(&gr, RpoVariant::Ptxas);
        b.compute_with(&gr, RpoVariant::Recursive);
        assert_eq!(a.rpo_array, b.rpo_array);
        assert_eq!(a.pre_order, b.pre_order);
        assert_eq!(a.pre_parent, b.pre_parent);
        assert!(a.verify(&gr).is_empty() && b.verify(&gr).is_empty());
        assert_eq!(a.unreachable().collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(a.rpo_array, vec![0, 2, 4]);
    }
}
