//! Immediate dominators, the dominator tree and O(1) dominance queries.
//!
//! Two algorithms fill the same [`DomTree`]:
//! - [`DomTree::compute_chk`]: Cooper, Harvey, Kennedy, "A Simple, Fast Dominance
//!   Algorithm" (2001), iterated over RPO — what ptxas' `CFG::buildRPOAndIdom` runs (seed
//!   004). Works in RPO-number space on a predecessor CSR renumbered once, so the
//!   two-finger `intersect` walks dense `u32` arrays. O(N·E) worst case (O(d·E) for loop
//!   connectedness d); close to linear on real CFGs, which need 2–3 passes.
//! - [`DomTree::compute_semi_nca`]: Semi-NCA (Georgiadis, Tarjan, Werneck, "Finding
//!   Dominators in Practice", 2006; as in LLVM's `SemiNCAInfo`): Lengauer-Tarjan
//!   semidominators with path compression, then a nearest-common-ancestor pass.
//!   O(N log N + E) worst case; it does not iterate, so it wins on CFGs where CHK needs
//!   many passes (deeply nested irreducible regions, long chains with late joins).
//!   [`DomTree::compute_auto`] (what `CfgInfo` runs) is Semi-NCA on the DFS tree the
//!   ptxas RPO traversal already walked ([`Rpo::pre_order`]), so one DFS serves both.
//!   Path compression is iterative over dense `u32` arrays in preorder space, and it
//!   keeps the least semidominator on the compressed path itself (Semi-NCA never needs
//!   the vertex, only its value), so `eval` touches two arrays.
//!
//! After either, `dominates(a, b)` is O(1) through DFS intervals of the dominator tree.
//!
//! # Invariants (after `compute_*`)
//! - `idom[start] == start`; `idom[b] == NONE` iff `b` is unreachable from the start.
//! - for every edge `u -> v` between reachable nodes, `idom[v]` dominates `u`.
//! - `children` is the CSR of the tree (children in increasing node order);
//!   `pre[b] <= pre[c] <= last[b]` iff `b` dominates `c`.
//!
//! No recursion: DFS and path compression use explicit stacks. Scratch is reused.

use super::{Csr, Predecessors, Successors, WithStart};
use crate::graph::rpo::{Rpo, UNREACHED};
use crate::idx::{Idx, IndexVec};

/// "No number" in the position-space tables (`u32::MAX`).
const NO: u32 = u32::MAX;

/// Where a node sits in a dominator (or post-dominator) tree: what
/// [`DomTree::idom`] and [`PostDomTree::ipdom`](super::postdom::PostDomTree::ipdom)
/// answer, so the root and an unreachable node are never confused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Idom<N> {
    /// The node is the root of a dominator tree: the start node.
    Root,
    /// The node's immediate (post-)dominator.
    Node(N),
    /// Post-dominator trees only: the immediate post-dominator is the virtual exit (the
    /// node is one of the tree's roots, or its paths lead to different roots).
    VirtualExit,
    /// The node is not in the tree: unreachable from the start (dominators only), not a
    /// node of the graph, or the tree is not computed.
    Unreachable,
}

impl<N> Idom<N> {
    /// The immediate dominator as an option (`None` for the root, the virtual exit and an
    /// unreachable node).
    pub fn node(self) -> Option<N> {
        match self {
            Idom::Node(n) => Some(n),
            _ => None,
        }
    }

    /// Whether the node is in the tree (a root or dominated by a node).
    pub fn is_reachable(&self) -> bool {
        !matches!(self, Idom::Unreachable)
    }
}

/// The dominator tree of the nodes reachable from the start node.
///
/// All tables are keyed by node and stay in sync with the graph they were computed on
/// until it changes.
#[derive(Clone, Debug)]
pub struct DomTree<N: Idx = u32> {
    /// Immediate dominator; `idom[start] == start`, `N::NONE` for unreachable nodes.
    pub(crate) idom: IndexVec<N, N>,
    /// Dominator-tree children (CSR keyed by node).
    pub(crate) children: Csr<N>,
    /// Preorder number in the dominator tree (`u32::MAX` if unreachable).
    pub(crate) pre: IndexVec<N, u32>,
    /// Largest preorder number in the node's dominator subtree.
    pub(crate) last: IndexVec<N, u32>,
    /// Depth in the dominator tree (start = 0; `u32::MAX` if unreachable).
    pub(crate) level: IndexVec<N, u32>,
    /// Passes over the RPO the last `compute_chk` made (the last one changes nothing);
    /// 0 after `compute_semi_nca`.
    pub(crate) chk_passes: u32,
    start: N,
    valid: bool,
    // scratch (positions: RPO or preorder numbers)
    rpo_preds: Csr<u32>,
    doms: Vec<u32>,
    order: Vec<N>,
    num: IndexVec<N, u32>,
    parent: Vec<u32>,
    semi: Vec<u32>,
    best: Vec<u32>,
    ancestor: Vec<u32>,
    stack: Vec<(N, u32)>,
    path: Vec<u32>,
}

impl<N: Idx> Default for DomTree<N> {
    fn default() -> Self {
        DomTree {
            idom: IndexVec::new(),
            children: Csr::default(),
            pre: IndexVec::new(),
            last: IndexVec::new(),
            level: IndexVec::new(),
            chk_passes: 0,
            start: N::NONE,
            valid: false,
            rpo_preds: Csr::default(),
            doms: Vec::new(),
            order: Vec::new(),
            num: IndexVec::new(),
            parent: Vec::new(),
            semi: Vec::new(),
            best: Vec::new(),
            ancestor: Vec::new(),
            stack: Vec::new(),
            path: Vec::new(),
        }
    }
}

/// Lengauer-Tarjan `eval` for Semi-NCA, with iterative path compression: the least
/// semidominator on the forest path from the linked node `v` up to (not including) its
/// root, where nodes numbered above `w` are linked.
#[inline]
fn eval(anc: &mut [u32], best: &mut [u32], path: &mut Vec<u32>, v: u32, w: u32) -> u32 {
    let mut x = v;
    if anc[x as usize] > w {
        path.clear();
        while anc[x as usize] > w {
            path.push(x);
            x = anc[x as usize];
        }
        // x is the child of the root; compress from the top of the path down.
        while let Some(y) = path.pop() {
            let a = anc[y as usize] as usize;
            if best[a] < best[y as usize] {
                best[y as usize] = best[a];
            }
            anc[y as usize] = anc[a];
        }
    }
    best[v as usize]
}

impl<N: Idx> DomTree<N> {
    /// An empty, invalid tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// The default: Semi-NCA on the DFS tree recorded by `rpo`'s traversal (which must be
    /// valid for `g`), so no second DFS. CHK is cheaper only by a little on reducible CFGs
    /// and degrades on irreducible ones (backward ladders: 60x), where Semi-NCA does not
    /// iterate; same result either way.
    ///
    /// An `rpo` not computed for a graph of `g`'s size leaves the tree empty (every
    /// query answers "unreachable"); one computed for another graph of the same size
    /// gives some tree, not `g`'s (`verify` says so), without a panic.
    pub fn compute_auto<G: Predecessors<Node = N> + WithStart>(&mut self, g: &G, rpo: &Rpo<N>) {
        if !rpo.fits(g.num_nodes()) {
            self.clear();
            return;
        }
        self.semi_nca_on(g, &rpo.pre_order, rpo.pre_number.raw(), &rpo.pre_parent);
    }

    /// Cooper-Harvey-Kennedy over the given RPO (which must be valid for `g`), iterated
    /// until no idom changes. An `rpo` that is not an RPO of `g` (another size, or a
    /// reachable node without a predecessor earlier in it: computed for another graph)
    /// leaves the tree empty; the check is one pass over the predecessors.
    pub fn compute_chk<G: Predecessors<Node = N> + WithStart>(&mut self, g: &G, rpo: &Rpo<N>) {
        let n = g.num_nodes();
        // CHK terminates because every reachable node but the first has a predecessor
        // earlier in the RPO (so `doms[x] < x` in RPO space); check it rather than trust.
        let fits = rpo.fits(n)
            && rpo.rpo_array.first().is_none_or(|&s| s == g.start_node())
            && rpo.rpo_array.iter().enumerate().skip(1).all(|(k, &b)| {
                g.predecessors(b).iter().any(|&q| {
                    rpo.rpo_number
                        .get(q)
                        .is_some_and(|&r| r != UNREACHED && (r as usize) < k)
                })
            });
        if !fits {
            self.clear();
            return;
        }
        let m = rpo.rpo_array.len();
        // Predecessor CSR in RPO-number space; unreachable predecessors dropped.
        let p = &mut self.rpo_preds;
        p.starts.clear();
        p.targets.clear();
        p.starts.push(0);
        for &b in &rpo.rpo_array {
            for &q in g.predecessors(b) {
                let r = rpo.rpo_number[q];
                if r != UNREACHED {
                    p.targets.push(r);
                }
            }
            p.starts.push(p.targets.len() as u32);
        }
        let doms = &mut self.doms;
        doms.clear();
        doms.resize(m, NO);
        if m > 0 {
            doms[0] = 0;
        }
        let mut changed = true;
        self.chk_passes = 0;
        while changed {
            changed = false;
            self.chk_passes += 1;
            for b in 1..m {
                let preds = &p.targets[p.starts[b] as usize..p.starts[b + 1] as usize];
                let mut new_idom = NO;
                for &q in preds {
                    if doms[q as usize] == NO {
                        continue;
                    }
                    if new_idom == NO {
                        new_idom = q;
                        continue;
                    }
                    // intersect: in RPO space a node's idom has a smaller number.
                    let (mut f1, mut f2) = (q, new_idom);
                    while f1 != f2 {
                        while f1 > f2 {
                            f1 = doms[f1 as usize];
                        }
                        while f2 > f1 {
                            f2 = doms[f2 as usize];
                        }
                    }
                    new_idom = f1;
                }
                if doms[b] != new_idom {
                    doms[b] = new_idom;
                    changed = true;
                }
            }
        }
        self.idom.clear();
        self.idom.resize(n, N::NONE);
        for (k, &d) in doms.iter().enumerate() {
            self.idom[rpo.rpo_array[k]] = rpo.rpo_array[d as usize];
        }
        self.finish(g.start_node(), n);
    }

    /// Semi-NCA (needs successors for its own DFS and predecessors for semidominators).
    pub fn compute_semi_nca<G: Successors<Node = N> + Predecessors + WithStart>(&mut self, g: &G) {
        let n = g.num_nodes();
        let start = g.start_node();
        // DFS preorder: order[k] = node, num[node] = k.
        self.num.clear();
        self.num.resize(n, NO);
        self.order.clear();
        self.parent.clear();
        self.stack.clear();
        if start.idx() < n {
            self.num[start] = 0;
            self.order.push(start);
            self.parent.push(NO);
            self.stack.push((start, 0));
        }
        while let Some(top) = self.stack.last_mut() {
            let (b, i) = *top;
            let succs = g.successors(b);
            if (i as usize) < succs.len() {
                top.1 += 1;
                let s = succs[i as usize];
                if self.num[s] == NO {
                    self.num[s] = self.order.len() as u32;
                    self.parent.push(self.num[b]);
                    self.order.push(s);
                    self.stack.push((s, 0));
                }
            } else {
                self.stack.pop();
            }
        }
        let (order, num, parent) = (
            std::mem::take(&mut self.order),
            std::mem::take(&mut self.num),
            std::mem::take(&mut self.parent),
        );
        self.semi_nca_on(g, &order, num.raw(), &parent);
        (self.order, self.num, self.parent) = (order, num, parent);
    }

    /// Semi-NCA over a DFS tree of `g` from its start: `order[k]` is the k-th node in
    /// preorder, `num[node]` its position (`u32::MAX` if unreached), `parent[k]` the
    /// parent's position.
    fn semi_nca_on<G: Predecessors<Node = N> + WithStart>(
        &mut self,
        g: &G,
        order: &[N],
        num: &[u32],
        parent: &[u32],
    ) {
        let n = g.num_nodes();
        let m = order.len();
        self.chk_passes = 0;
        // Link forest: processing w in reverse preorder links w to its parent, so a node
        // is linked iff its number is above the current w; `ancestor` starts as the
        // parent and is compressed, `best[x]` is the least semi on x's compressed path.
        let (semi, best, anc) = (&mut self.semi, &mut self.best, &mut self.ancestor);
        semi.clear();
        semi.extend(0..m as u32);
        best.clear();
        best.extend(0..m as u32);
        anc.clear();
        anc.extend_from_slice(parent);
        let path = &mut self.path;
        for w in (1..m as u32).rev() {
            let mut sw = w;
            for &v in g.predecessors(order[w as usize]) {
                let v = num[v.idx()];
                if v == NO {
                    continue;
                }
                // An unlinked predecessor (number <= w) is its own best value.
                let cand = if v <= w {
                    v
                } else {
                    eval(anc, best, path, v, w)
                };
                sw = sw.min(cand);
            }
            semi[w as usize] = sw;
            best[w as usize] = sw;
        }
        // NCA pass: idom(w) is the nearest ancestor of parent(w) with number <= semi(w).
        // `ancestor` is no longer needed; it becomes the idom table in preorder space.
        let doms = anc;
        doms.clear();
        doms.extend_from_slice(parent);
        if m > 0 {
            doms[0] = 0;
        }
        for w in 1..m {
            let mut d = doms[w];
            while d > semi[w] {
                d = doms[d as usize];
            }
            doms[w] = d;
        }
        self.idom.clear();
        self.idom.resize(n, N::NONE);
        for (k, &d) in doms.iter().enumerate() {
            self.idom[order[k]] = order[d as usize];
        }
        self.finish(g.start_node(), n);
    }

    /// Builds `children`, `pre`, `last`, `level` from `idom`.
    fn finish(&mut self, start: N, n: usize) {
        self.start = start;
        // Children CSR, nodes in increasing order under each parent (buffers reused).
        let parent_child = self
            .idom
            .iter_enumerated()
            .filter(|&(b, &d)| !d.is_none() && b != start)
            .map(|(b, &d)| (d, b));
        self.children.regroup(n, parent_child, &mut self.path);
        self.pre.clear();
        self.pre.resize(n, NO);
        self.last.clear();
        self.last.resize(n, NO);
        self.level.clear();
        self.level.resize(n, NO);
        self.valid = true;
        if start.idx() >= n || self.idom[start].is_none() {
            return;
        }
        // Preorder over the tree on an explicit stack of (node, next child slot); locals
        // so the loop keeps the table pointers in registers.
        let (starts, kids) = (&self.children.starts[..], &self.children.targets[..]);
        let (pre, last, level) = (
            self.pre.raw_mut(),
            self.last.raw_mut(),
            self.level.raw_mut(),
        );
        let stack = &mut self.stack;
        stack.clear();
        stack.push((start, starts[start.idx()]));
        pre[start.idx()] = 0;
        level[start.idx()] = 0;
        let mut counter = 1u32;
        while let Some(top) = stack.last_mut() {
            let (b, i) = *top;
            if i < starts[b.idx() + 1] {
                top.1 = i + 1;
                let c = kids[i as usize];
                pre[c.idx()] = counter;
                level[c.idx()] = level[b.idx()] + 1;
                counter += 1;
                stack.push((c, starts[c.idx()]));
            } else {
                last[b.idx()] = counter - 1;
                stack.pop();
            }
        }
    }

    /// Forgets the result (keeps scratch capacity).
    pub fn clear(&mut self) {
        self.idom.clear();
        self.pre.clear();
        self.last.clear();
        self.level.clear();
        self.children.clear();
        self.valid = false;
    }

    /// True when computed since the last `clear` and the node count still matches.
    pub fn is_valid<G: WithStart<Node = N>>(&self, g: &G) -> bool {
        self.valid && self.idom.len() == g.num_nodes()
    }

    /// The start node the tree was computed from (`None` before `compute_*` or when the
    /// start is not a node of the graph).
    pub fn root(&self) -> Option<N> {
        (self.start.idx() < self.idom.len() && !self.idom[self.start].is_none())
            .then_some(self.start)
    }

    /// Whether `b` is in the tree (reachable from the start). False for an index that is
    /// not a node, and on a tree not computed. O(1).
    #[inline]
    pub fn is_reachable(&self, b: N) -> bool {
        self.idom.get(b).is_some_and(|d| !d.is_none())
    }

    /// True if `a` dominates `b` (reflexive). False if either is unreachable or not a
    /// node. O(1).
    #[inline]
    pub fn dominates(&self, a: N, b: N) -> bool {
        match (self.pre.get(a), self.pre.get(b)) {
            (Some(&pa), Some(&pb)) => pa != NO && pb != NO && pa <= pb && pb <= self.last[a],
            _ => false,
        }
    }

    /// True if `a` dominates `b` and `a != b`. O(1).
    #[inline]
    pub fn strictly_dominates(&self, a: N, b: N) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Where `b` sits in the tree: [`Idom::Root`] for the start node,
    /// [`Idom::Unreachable`] for a node the start does not reach (or an index that is not
    /// a node), else its immediate dominator. Never panics, on a default tree too.
    pub fn idom(&self, b: N) -> Idom<N> {
        match self.idom.get(b) {
            None => Idom::Unreachable,
            Some(d) if d.is_none() => Idom::Unreachable,
            Some(_) if b == self.start => Idom::Root,
            Some(&d) => Idom::Node(d),
        }
    }

    /// The whole immediate-dominator column, read-only (a scan's view): entry `b` is
    /// `b`'s immediate dominator, the root itself for the root, `NONE` if unreachable.
    pub fn idoms(&self) -> &IndexVec<N, N> {
        &self.idom
    }

    /// Immediate dominator of `b`: `None` for the start node *and* for unreachable
    /// nodes; [`DomTree::idom`] tells the two apart.
    pub fn idom_of(&self, b: N) -> Option<N> {
        self.idom(b).node()
    }

    /// Depth of `b` in the tree (the start is at 0), `None` if unreachable.
    pub fn level_of(&self, b: N) -> Option<u32> {
        self.level.get(b).copied().filter(|&l| l != NO)
    }

    /// Dominator-tree children of `b`, in increasing node order (empty if unreachable or
    /// not a node).
    pub fn children_of(&self, b: N) -> &[N] {
        if b.idx() < self.children.num_rows() {
            self.children.row(b)
        } else {
            &[]
        }
    }

    /// The nearest common dominator of `a` and `b` (`None` if either is unreachable).
    /// O(depth).
    pub fn nearest_common_dominator(&self, a: N, b: N) -> Option<N> {
        let (mut la, mut lb) = (self.level_of(a)?, self.level_of(b)?);
        let (mut a, mut b) = (a, b);
        while la > lb {
            a = self.idom[a];
            la -= 1;
        }
        while lb > la {
            b = self.idom[b];
            lb -= 1;
        }
        while a != b {
            a = self.idom[a];
            b = self.idom[b];
        }
        Some(a)
    }

    /// Checks the tree against `g`; returns every problem found, never panics.
    pub fn verify<G: Successors<Node = N> + WithStart>(&self, g: &G) -> Vec<String> {
        let mut errs = Vec::new();
        let n = g.num_nodes();
        if !self.valid {
            return vec!["dom: not computed".into()];
        }
        if self.idom.len() != n || self.pre.len() != n || self.last.len() != n {
            return vec![format!(
                "dom: tables sized {} for {} nodes",
                self.idom.len(),
                n
            )];
        }
        let s = g.start_node();
        if s.idx() >= n {
            if self.idom.iter().any(|d| !d.is_none()) {
                errs.push("dom: nodes in the tree of a graph without a start node".into());
            }
            return errs;
        }
        if self.idom[s] != s {
            errs.push(format!(
                "dom: idom[start={}] = {}",
                s.idx(),
                self.idom[s].idx()
            ));
        }
        for (b, &d) in self.idom.iter_enumerated() {
            if d.is_none() {
                continue;
            }
            let (bi, di) = (b.idx(), d.idx());
            if di >= n || self.idom[d].is_none() {
                errs.push(format!("dom: idom[{bi}] = {di} is not a reachable node"));
                continue;
            }
            if b != s && (self.pre[d] >= self.pre[b] || !self.dominates(d, b)) {
                errs.push(format!(
                    "dom: tree intervals disagree with idom[{bi}] = {di}"
                ));
            }
            for &v in g.successors(b) {
                let vi = v.idx();
                if vi >= n || self.idom[v].is_none() {
                    errs.push(format!(
                        "dom: edge {bi}->{vi} from a reachable node to an unreachable one"
                    ));
                } else if v != s && !self.dominates(self.idom[v], b) {
                    errs.push(format!(
                        "dom: edge {bi}->{vi}: idom[{vi}] does not dominate {bi}"
                    ));
                }
            }
        }
        errs
    }
}
