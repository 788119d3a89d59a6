//! The post-dominator tree, as LLVM's `PostDominatorTree` builds it: a *virtual exit*
//! post-dominates every node, and its children are the tree's roots.
//!
//! Roots (LLVM's `SemiNCAInfo::FindRoots`, then `RemoveRedundantRoots`):
//! 1. every node without successors (an exit: `ret`, `unreachable`, ...), in node
//!    order; the nodes that reach one are marked by a backward DFS from it;
//! 2. for every node left (it reaches no exit: an infinite loop or a path into one), in
//!    node order: a forward DFS over the unmarked nodes, successors in increasing node
//!    order (LLVM sorts them by block order so the tree does not depend on the order of
//!    a branch's targets), whose *last* node reached becomes a root ("furthest away");
//!    a backward DFS from it marks what reaches it;
//! 3. a root of step 2 from which another root is forward-reachable is dropped (LLVM
//!    swaps it with the last root and pops, which is why the roots list may not be in
//!    node order).
//!
//! Then the tree is the dominator tree of the reverse graph extended with the virtual
//! exit (an edge from it to each root), computed by [`DomTree::compute_semi_nca`]. Every
//! node of the graph is in the tree, including nodes unreachable from the function's
//! entry (LLVM's tree holds every block).
//!
//! Agreement with LLVM: `tests/postdom_llvm.rs` compares roots and immediate
//! post-dominators with `opt-14 -passes='print<postdomtree>'` on random CFGs with
//! several exits, infinite loops and unreachable blocks (answers in
//! `tests/fixtures/postdom/`).
//!
//! Complexity: O((N + E) log N) for the tree; the roots cost O(N + E) for steps 1–2 and
//! one forward DFS per root of step 2 for step 3 (LLVM's cost too).
//!
//! # Invariants (after `compute`)
//! - every root has `ipdom(b) == Idom::VirtualExit` (other nodes may too: those whose
//!   paths lead to different roots); no node is `Unreachable`;
//! - `post_dominates(a, b)` iff every path from `b` to the virtual exit passes `a`.

use super::dom::{DomTree, Idom};
use super::frontier::DomFrontiers;
use super::{Csr, DirectedGraph, Predecessors, Successors, WithStart};
use crate::idx::Idx;

/// The reverse graph with a virtual exit (node `num_nodes - 1`).
#[derive(Clone, Debug, Default)]
struct Reverse {
    succ: Csr<u32>,
    pred: Csr<u32>,
}

impl DirectedGraph for Reverse {
    type Node = u32;
    fn num_nodes(&self) -> usize {
        self.succ.num_rows()
    }
}
impl Successors for Reverse {
    fn successors(&self, n: u32) -> &[u32] {
        self.succ.row(n)
    }
}
impl Predecessors for Reverse {
    fn predecessors(&self, n: u32) -> &[u32] {
        self.pred.row(n)
    }
}
impl WithStart for Reverse {
    fn start_node(&self) -> u32 {
        self.succ.num_rows().saturating_sub(1) as u32
    }
}

/// Post-dominator tree of every node of a graph (see the module docs).
///
/// Keyed by node; stays in sync with the graph it was computed on until that changes.
#[derive(Clone, Debug)]
pub struct PostDomTree<N: Idx = u32> {
    /// Dominator tree of the reverse graph; node `n` (= number of nodes) is the virtual
    /// exit.
    tree: DomTree<u32>,
    /// The virtual exit's children, in LLVM's order.
    roots: Vec<N>,
    rev: Reverse,
    n: usize,
    valid: bool,
    // scratch
    mark: Vec<u32>,
    is_root: Vec<bool>,
    stack: Vec<u32>,
    succs: Vec<u32>,
}

impl<N: Idx> Default for PostDomTree<N> {
    fn default() -> Self {
        PostDomTree {
            tree: DomTree::new(),
            roots: Vec::new(),
            rev: Reverse::default(),
            n: 0,
            valid: false,
            mark: Vec::new(),
            is_root: Vec::new(),
            stack: Vec::new(),
            succs: Vec::new(),
        }
    }
}

/// `mark` value of a node reached by a backward walk from a root (final).
const DONE: u32 = u32::MAX;
/// `mark` value of a node no walk has reached.
const FREE: u32 = u32::MAX - 1;

impl<N: Idx> PostDomTree<N> {
    /// An empty, invalid tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Computes the roots and the tree for `g`.
    pub fn compute<G: Successors<Node = N> + Predecessors + ?Sized>(&mut self, g: &G) {
        let n = g.num_nodes();
        self.n = n;
        self.find_roots(g);
        // The reverse graph plus the virtual exit `n` -> each root.
        let mut se: Vec<(u32, u32)> = Vec::with_capacity(n + self.roots.len());
        let mut pe: Vec<(u32, u32)> = Vec::with_capacity(n + self.roots.len());
        for v in 0..n {
            for &p in g.predecessors(N::new(v)) {
                se.push((v as u32, p.idx() as u32));
            }
            for &s in g.successors(N::new(v)) {
                pe.push((v as u32, s.idx() as u32));
            }
            if self.is_root[v] {
                pe.push((v as u32, n as u32));
            }
        }
        se.extend(self.roots.iter().map(|r| (n as u32, r.idx() as u32)));
        self.rev.succ = Csr::from_edges_in_range(n + 1, &se);
        self.rev.pred = Csr::from_edges_in_range(n + 1, &pe);
        self.tree.compute_semi_nca(&self.rev);
        self.valid = true;
    }

    /// LLVM's `FindRoots` + `RemoveRedundantRoots` (module docs).
    fn find_roots<G: Successors<Node = N> + Predecessors + ?Sized>(&mut self, g: &G) {
        let n = g.num_nodes();
        self.roots.clear();
        self.mark.clear();
        self.mark.resize(n, FREE);
        self.is_root.clear();
        self.is_root.resize(n, false);
        let mut nontrivial = false;
        for v in 0..n {
            if g.successors(N::new(v)).is_empty() {
                self.roots.push(N::new(v));
                self.is_root[v] = true;
                self.mark_backward(g, v as u32);
            }
        }
        for v in 0..n {
            if self.mark[v] != FREE {
                continue;
            }
            nontrivial = true;
            // Forward DFS over unmarked nodes, numbering at pop time; the last node
            // numbered is the furthest away. Forward marks hold `v` (a fresh value per
            // walk: `v` is unmarked, so no earlier walk used it).
            let stamp = v as u32;
            let mut furthest = v as u32;
            self.stack.clear();
            self.stack.push(v as u32);
            let mut reached = Vec::new();
            while let Some(b) = self.stack.pop() {
                if self.mark[b as usize] != FREE {
                    continue;
                }
                self.mark[b as usize] = stamp;
                reached.push(b);
                furthest = b;
                self.succs.clear();
                self.succs.extend(
                    g.successors(N::new(b as usize))
                        .iter()
                        .map(|s| s.idx() as u32),
                );
                self.succs.sort_unstable();
                for &s in &self.succs {
                    if self.mark[s as usize] == FREE {
                        self.stack.push(s);
                    }
                }
            }
            for &b in &reached {
                self.mark[b as usize] = FREE;
            }
            self.roots.push(N::new(furthest as usize));
            self.is_root[furthest as usize] = true;
            self.mark_backward(g, furthest);
        }
        if !nontrivial {
            return;
        }
        // RemoveRedundantRoots: a non-trivial root that reaches another root goes.
        let mut seen = vec![false; n];
        let mut touched = Vec::new();
        let mut i = 0;
        while i < self.roots.len() {
            let r = self.roots[i];
            if g.successors(r).is_empty() {
                i += 1;
                continue;
            }
            for &t in &touched {
                seen[t as usize] = false;
            }
            touched.clear();
            self.stack.clear();
            self.stack.push(r.idx() as u32);
            let mut redundant = false;
            while let Some(b) = self.stack.pop() {
                if seen[b as usize] {
                    continue;
                }
                seen[b as usize] = true;
                touched.push(b);
                if b as usize != r.idx() && self.is_root[b as usize] {
                    redundant = true;
                    break;
                }
                for &s in g.successors(N::new(b as usize)) {
                    if !seen[s.idx()] {
                        self.stack.push(s.idx() as u32);
                    }
                }
            }
            if redundant {
                self.is_root[r.idx()] = false;
                self.roots.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Marks every unmarked node that reaches `from` (backward DFS).
    fn mark_backward<G: Predecessors<Node = N> + ?Sized>(&mut self, g: &G, from: u32) {
        self.stack.clear();
        self.stack.push(from);
        self.mark[from as usize] = DONE;
        while let Some(b) = self.stack.pop() {
            for &p in g.predecessors(N::new(b as usize)) {
                if self.mark[p.idx()] != DONE {
                    self.mark[p.idx()] = DONE;
                    self.stack.push(p.idx() as u32);
                }
            }
        }
    }

    /// The virtual exit's children (LLVM's `getRoots()`, same order).
    pub fn roots(&self) -> &[N] {
        &self.roots
    }

    /// Number of nodes of the graph the tree was computed for.
    pub fn num_nodes(&self) -> usize {
        self.n
    }

    /// Where `b` sits: [`Idom::VirtualExit`] when its immediate post-dominator is the
    /// virtual exit (every root, and nodes whose paths lead to different roots), else
    /// [`Idom::Node`]; [`Idom::Unreachable`] only for an index that is not a node (or a
    /// tree not computed).
    pub fn ipdom(&self, b: N) -> Idom<N> {
        if !self.valid || b.idx() >= self.n {
            return Idom::Unreachable;
        }
        match self.tree.idom(b.idx() as u32) {
            Idom::Node(d) if d as usize == self.n => Idom::VirtualExit,
            Idom::Node(d) => Idom::Node(N::new(d as usize)),
            _ => Idom::Unreachable,
        }
    }

    /// Immediate post-dominator of `b`, `None` when it is the virtual exit (and for a
    /// non-node).
    pub fn ipdom_of(&self, b: N) -> Option<N> {
        self.ipdom(b).node()
    }

    /// True if `a` post-dominates `b` (reflexive): every path from `b` to the virtual
    /// exit passes `a`. False for non-nodes. O(1).
    pub fn post_dominates(&self, a: N, b: N) -> bool {
        self.valid
            && a.idx() < self.n
            && b.idx() < self.n
            && self.tree.dominates(a.idx() as u32, b.idx() as u32)
    }

    /// The nearest common post-dominator of `a` and `b`; `None` when it is the virtual
    /// exit or either is not a node.
    pub fn nearest_common_post_dominator(&self, a: N, b: N) -> Option<N> {
        if !self.valid || a.idx() >= self.n || b.idx() >= self.n {
            return None;
        }
        let c = self
            .tree
            .nearest_common_dominator(a.idx() as u32, b.idx() as u32)?;
        (c as usize != self.n).then(|| N::new(c as usize))
    }

    /// Post-dominator-tree children of `b`, increasing (empty for a non-node).
    pub fn children_of(&self, b: N) -> Vec<N> {
        if !self.valid || b.idx() >= self.n {
            return Vec::new();
        }
        self.tree
            .children_of(b.idx() as u32)
            .iter()
            .map(|&c| N::new(c as usize))
            .collect()
    }

    /// Depth in the tree: the virtual exit's children are at 1. `None` for a non-node.
    pub fn level_of(&self, b: N) -> Option<u32> {
        if !self.valid || b.idx() >= self.n {
            return None;
        }
        self.tree.level_of(b.idx() as u32)
    }

    /// Post-dominance frontiers (the control dependences: `y ∈ PDF(x)` iff `x`
    /// post-dominates a successor of `y` but does not strictly post-dominate `y`),
    /// computed on the reverse graph; the virtual exit is left out.
    pub fn frontiers(&self) -> DomFrontiers<N> {
        let mut df: DomFrontiers<u32> = DomFrontiers::new();
        if !self.valid {
            return DomFrontiers::new();
        }
        df.compute(&self.rev, &self.tree);
        let n = self.n;
        let pairs: Vec<(N, N)> = (0..n)
            .flat_map(|x| {
                df.frontier(x as u32)
                    .iter()
                    .filter(move |&&y| (y as usize) < n)
                    .map(move |&y| (N::new(x), N::new(y as usize)))
            })
            .collect();
        DomFrontiers::from_csr(Csr::group_in_range(n, &pairs))
    }

    /// Forgets the result (keeps scratch capacity).
    pub fn clear(&mut self) {
        self.tree.clear();
        self.roots.clear();
        self.n = 0;
        self.valid = false;
    }

    /// True when computed since the last `clear` for a graph of this many nodes.
    pub fn is_valid<G: DirectedGraph<Node = N> + ?Sized>(&self, g: &G) -> bool {
        self.valid && self.n == g.num_nodes()
    }

    /// Checks the tree against `g`: the reverse graph matches `g`, every node is in the
    /// tree, the roots are the virtual exit's children, every exit is a root, and the
    /// tree is a dominator tree of the reverse graph. Reports every problem; never panics.
    pub fn verify<G: Successors<Node = N> + Predecessors + ?Sized>(&self, g: &G) -> Vec<String> {
        if !self.valid {
            return vec!["postdom: not computed".into()];
        }
        let n = g.num_nodes();
        if self.n != n || self.rev.succ.num_rows() != n + 1 {
            return vec![format!(
                "postdom: computed for {} nodes, graph has {n}",
                self.n
            )];
        }
        let mut errs = Vec::new();
        let edges: usize = (0..n).map(|v| g.successors(N::new(v)).len()).sum();
        if self.rev.succ.num_edges() != edges + self.roots.len() {
            errs.push("postdom: the reverse graph does not match the graph".into());
        }
        for v in (0..n).map(N::new) {
            let is_root = self.roots.contains(&v);
            match self.ipdom(v) {
                Idom::Unreachable => {
                    errs.push(format!("postdom: node {} not in the tree", v.idx()))
                }
                Idom::Node(_) if is_root => {
                    errs.push(format!("postdom: root {} has a post-dominator", v.idx()))
                }
                _ => {}
            }
            if g.successors(v).is_empty() && !is_root {
                errs.push(format!("postdom: exit {} is not a root", v.idx()));
            }
        }
        errs.extend(self.tree.verify(&self.rev));
        errs
    }
}
