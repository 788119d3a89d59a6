//! Dominance frontiers and iterated dominance frontiers (where SSA construction puts its
//! φ-nodes).
//!
//! `DF(x)` is the set of nodes `y` such that `x` dominates a predecessor of `y` but does
//! not strictly dominate `y` (Cytron, Ferrante, Rosen, Wegman, Zadeck, "Efficiently
//! Computing Static Single Assignment Form and the Control Dependence Graph", 1991).
//! [`DomFrontiers::compute`] uses the "runner" formulation of Cooper, Harvey, Kennedy,
//! "A Simple, Fast Dominance Algorithm" (2001), figure 5: for every edge `p -> y` between
//! reachable nodes, walk up the dominator tree from `p` until `idom(y)`, adding `y` to the
//! frontier of every node passed. A node is added to one frontier at most once per `y`
//! (a per-node mark), so the cost is O(E + Σ|DF|) and the frontiers come out sorted:
//! `y` is taken in increasing order and the CSR is filled by a stable counting sort.
//!
//! The start node is in the frontier of every node on a dominator-tree path from it to
//! a predecessor of it (a loop back to the entry), itself included, as the definition
//! says; unreachable nodes have empty frontiers and appear in none.
//!
//! [`DomFrontiers::iterated`] is `DF⁺(S)`, the limit of `DF(S ∪ DF(S ∪ ...))`, by the
//! usual worklist over the precomputed frontiers. The same computation on a
//! [`PostDomTree`](super::postdom::PostDomTree)'s reverse graph gives post-dominance
//! frontiers (control dependence): [`PostDomTree::frontiers`](super::postdom::PostDomTree::frontiers).
//!
//! # Invariants (after `compute`)
//! - `df.num_rows() == num_nodes`; every row is strictly increasing;
//! - `y ∈ row(x)` iff `x` dominates a predecessor of `y` and `x` does not strictly
//!   dominate `y` (checked by [`DomFrontiers::verify`] and by the definition-based tests).
//!
//! Numbers (10^5-block CFGs, frontiers against the idom computation): PERF.md, cfg.

use super::dom::DomTree;
use super::{Csr, Predecessors};
use crate::idx::Idx;

/// Dominance frontiers of every node, as a CSR keyed by node.
///
/// Stays in sync with the graph and dominator tree it was computed from until either
/// changes.
#[derive(Clone, Debug, Default)]
pub struct DomFrontiers<N: Idx = u32> {
    /// `df.row(x)` = DF(x), increasing.
    df: Csr<N>,
    valid: bool,
    // scratch
    pairs: Vec<(N, N)>,
    mark: Vec<u32>,
    fill: Vec<u32>,
}

impl<N: Idx> DomFrontiers<N> {
    /// Empty, invalid frontiers.
    pub fn new() -> Self {
        DomFrontiers {
            df: Csr::default(),
            valid: false,
            pairs: Vec::new(),
            mark: Vec::new(),
            fill: Vec::new(),
        }
    }

    /// Frontiers given as a table (already computed elsewhere, e.g. post-dominance
    /// frontiers).
    pub(crate) fn from_csr(df: Csr<N>) -> Self {
        DomFrontiers {
            df,
            valid: true,
            ..DomFrontiers::new()
        }
    }

    /// Computes every node's frontier from `g`'s predecessors and `dom` (which must be
    /// the dominator tree of `g`, computed from its start node).
    pub fn compute<G: Predecessors<Node = N> + ?Sized>(&mut self, g: &G, dom: &DomTree<N>) {
        let n = g.num_nodes();
        self.pairs.clear();
        self.valid = true;
        if dom.idom.len() != n {
            self.df.regroup(n, std::iter::empty(), &mut self.fill);
            return;
        }
        let idom = dom.idom.raw();
        let start = dom.root().map_or(u32::MAX, |s| s.idx() as u32);
        let mark = &mut self.mark;
        mark.clear();
        mark.resize(n, u32::MAX);
        for y in 0..n {
            let stop = idom[y];
            if stop.is_none() {
                continue; // unreachable: in no frontier
            }
            // The start has no immediate dominator: the walk goes through the root.
            let stop = if y as u32 == start {
                u32::MAX
            } else {
                stop.idx() as u32
            };
            for &p in g.predecessors(N::new(y)) {
                let mut r = p.idx() as u32;
                if idom[r as usize].is_none() {
                    continue; // an unreachable predecessor dominates nothing
                }
                while r != stop && mark[r as usize] != y as u32 {
                    mark[r as usize] = y as u32;
                    self.pairs.push((N::new(r as usize), N::new(y)));
                    if r == start {
                        break;
                    }
                    r = idom[r as usize].idx() as u32;
                }
            }
        }
        self.df
            .regroup(n, self.pairs.iter().copied(), &mut self.fill);
    }

    /// DF(`x`), in increasing order (empty if `x` is unreachable or not a node).
    pub fn frontier(&self, x: N) -> &[N] {
        if x.idx() < self.df.num_rows() {
            self.df.row(x)
        } else {
            &[]
        }
    }

    /// The frontiers as a CSR table keyed by node.
    pub fn as_csr(&self) -> &Csr<N> {
        &self.df
    }

    /// Total size of all frontiers.
    pub fn len(&self) -> usize {
        self.df.num_edges()
    }

    /// Whether every frontier is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The iterated dominance frontier `DF⁺(defs)`, in increasing node order: where SSA
    /// construction puts φ-nodes for a variable defined in `defs`. Indices that are not
    /// nodes are ignored. O(|defs| + Σ|DF(x)| over the nodes reached).
    pub fn iterated(&self, defs: impl IntoIterator<Item = N>) -> Vec<N> {
        let n = self.df.num_rows();
        let mut in_result = vec![false; n];
        let mut queued = vec![false; n];
        let mut work: Vec<N> = Vec::new();
        for d in defs {
            if d.idx() < n && !queued[d.idx()] {
                queued[d.idx()] = true;
                work.push(d);
            }
        }
        let mut out = Vec::new();
        while let Some(x) = work.pop() {
            for &y in self.df.row(x) {
                if !in_result[y.idx()] {
                    in_result[y.idx()] = true;
                    out.push(y);
                    if !queued[y.idx()] {
                        queued[y.idx()] = true;
                        work.push(y);
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Forgets the result (keeps scratch capacity).
    pub fn clear(&mut self) {
        self.df.clear();
        self.valid = false;
    }

    /// True when computed since the last `clear` and the node count still matches.
    pub fn is_valid<G: Predecessors<Node = N> + ?Sized>(&self, g: &G) -> bool {
        self.valid && self.df.num_rows() == g.num_nodes()
    }

    /// Checks every frontier against the definition (O(N·E): for tests and debugging);
    /// returns every problem found, never panics.
    pub fn verify<G: Predecessors<Node = N> + ?Sized>(
        &self,
        g: &G,
        dom: &DomTree<N>,
    ) -> Vec<String> {
        let n = g.num_nodes();
        if !self.valid {
            return vec!["df: not computed".into()];
        }
        if self.df.num_rows() != n || dom.idom.len() != n {
            return vec![format!("df: {} rows for {n} nodes", self.df.num_rows())];
        }
        let mut errs = Vec::new();
        for x in (0..n).map(N::new) {
            let row = self.frontier(x);
            if row.windows(2).any(|w| w[0] >= w[1]) {
                errs.push(format!("df: DF({}) is not strictly increasing", x.idx()));
            }
            let mut want = Vec::new();
            for y in (0..n).map(N::new) {
                let in_df = g.predecessors(y).iter().any(|&p| dom.dominates(x, p))
                    && !dom.strictly_dominates(x, y);
                if in_df {
                    want.push(y);
                }
            }
            if row != want.as_slice() {
                errs.push(format!(
                    "df: DF({}) = {:?}, the definition gives {:?}",
                    x.idx(),
                    row.iter().map(|y| y.idx()).collect::<Vec<_>>(),
                    want.iter().map(|y| y.idx()).collect::<Vec<_>>()
                ));
            }
        }
        errs
    }
}
