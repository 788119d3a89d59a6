//! LLVM's SCC and RefSCC relation queries (`isParentOf`, `isChildOf`, `isAncestorOf`,
//! `isDescendantOf`; the same in LLVM 14 and main).
//!
//! "Parent" means *has a direct edge into*: for SCCs only call edges count, for RefSCCs
//! call and ref edges. "Ancestor" is the transitive closure, across RefSCC boundaries.
//! Every query is false when both arguments are the same SCC (RefSCC), even with
//! internal edges or self edges, and false for a dead or out-of-range index. The
//! ancestor walks cost O(nodes + edges) of the part of the graph they reach and
//! allocate one flag per SCC (RefSCC).

use super::{LazyCallGraph, RefSccIdx, SccIdx};
use crate::idx::Idx;

/// Whether `b` is reachable from `a` (`a != b`) in the condensation whose `num`
/// components have the successors `succ(c)` (repeats allowed): a depth-first search with
/// one flag per component.
fn reaches<K: Idx, I: Iterator<Item = K>>(a: K, b: K, num: usize, succ: impl Fn(K) -> I) -> bool {
    let mut seen = vec![false; num];
    seen[a.idx()] = true;
    let mut work = vec![a];
    while let Some(c) = work.pop() {
        for t in succ(c) {
            if t == b {
                return true;
            }
            if !seen[t.idx()] {
                seen[t.idx()] = true;
                work.push(t);
            }
        }
    }
    false
}

impl LazyCallGraph {
    /// Whether SCC `s` is live (has nodes).
    pub(super) fn live_scc(&self, s: SccIdx) -> bool {
        !self.scc_nodes(s).is_empty()
    }

    /// Whether RefSCC `r` is live (in the post-order).
    pub(super) fn live_refscc(&self, r: RefSccIdx) -> bool {
        self.order.is_live(r) && !self.refscc_sccs(r).is_empty()
    }

    /// LLVM's `SCC::isParentOf`: some node of `a` has a **call** edge into SCC `b`.
    pub fn scc_is_parent_of(&self, a: SccIdx, b: SccIdx) -> bool {
        if a == b || !self.live_scc(a) || !self.live_scc(b) {
            return false;
        }
        self.scc_nodes(a).iter().any(|&n| {
            self.edges[n]
                .iter()
                .any(|e| e.is_call() && self.scc_of[e.target()] == b)
        })
    }

    /// LLVM's `SCC::isChildOf`: `b` is a parent of `a`.
    pub fn scc_is_child_of(&self, a: SccIdx, b: SccIdx) -> bool {
        self.scc_is_parent_of(b, a)
    }

    /// LLVM's `SCC::isAncestorOf`: SCC `b` is reachable from `a` through call edges
    /// (across RefSCCs).
    pub fn scc_is_ancestor_of(&self, a: SccIdx, b: SccIdx) -> bool {
        if a == b || !self.live_scc(a) || !self.live_scc(b) {
            return false;
        }
        reaches(a, b, self.scc_nodes.num_lists(), |c| {
            self.scc_nodes(c).iter().flat_map(move |&n| {
                self.edges[n]
                    .iter()
                    .filter(|e| e.is_call())
                    .filter_map(move |e| self.scc_of[e.target()].some())
            })
        })
    }

    /// LLVM's `SCC::isDescendantOf`: `b` is an ancestor of `a`.
    pub fn scc_is_descendant_of(&self, a: SccIdx, b: SccIdx) -> bool {
        self.scc_is_ancestor_of(b, a)
    }

    /// LLVM's `RefSCC::isParentOf`: some node of `a` has an edge (call or ref) into
    /// RefSCC `b`.
    pub fn refscc_is_parent_of(&self, a: RefSccIdx, b: RefSccIdx) -> bool {
        if a == b || !self.live_refscc(a) || !self.live_refscc(b) {
            return false;
        }
        self.refscc_nodes(a).any(|n| {
            self.edges[n]
                .iter()
                .any(|e| self.refscc_of(e.target()) == Some(b))
        })
    }

    /// LLVM's `RefSCC::isChildOf`: `b` is a parent of `a`.
    pub fn refscc_is_child_of(&self, a: RefSccIdx, b: RefSccIdx) -> bool {
        self.refscc_is_parent_of(b, a)
    }

    /// LLVM's `RefSCC::isAncestorOf`: RefSCC `b` is reachable from `a` through any
    /// edges.
    pub fn refscc_is_ancestor_of(&self, a: RefSccIdx, b: RefSccIdx) -> bool {
        if a == b || !self.live_refscc(a) || !self.live_refscc(b) {
            return false;
        }
        reaches(a, b, self.rc_sccs.num_lists(), |c| {
            self.refscc_nodes(c).flat_map(move |n| {
                self.edges[n]
                    .iter()
                    .filter_map(move |e| self.refscc_of(e.target()))
            })
        })
    }

    /// LLVM's `RefSCC::isDescendantOf`: `b` is an ancestor of `a`.
    pub fn refscc_is_descendant_of(&self, a: RefSccIdx, b: RefSccIdx) -> bool {
        self.refscc_is_ancestor_of(b, a)
    }
}
