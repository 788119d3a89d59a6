//! Incremental mutation of a built [`LazyCallGraph`], with LLVM's semantics
//! (`LazyCallGraph::RefSCC::switchInternalEdgeToCall` and friends): the same SCC and
//! RefSCC structure, the same post-order updates, the same node orders.
//!
//! # LLVM 14 and LLVM main
//! Most operations are the same in both (each method's docs say "14 = main"). Where
//! they differ, both are here and the docs name the version:
//! - dead functions: LLVM 14's [`LazyCallGraph::remove_dead_function`] (the function
//!   must be alone in its SCC and RefSCC) vs main's [`LazyCallGraph::mark_dead_function`]
//!   then [`LazyCallGraph::remove_dead_functions`] (it may still sit in a bigger
//!   RefSCC; its outgoing edges are removed first, which may split the RefSCC);
//! - internal ref-edge removal: 14's [`LazyCallGraph::remove_internal_ref_edge`] (one
//!   source, several targets) vs main's [`LazyCallGraph::remove_internal_ref_edges`]
//!   ((source, target) pairs).
//!
//! # Errors
//! Every mutation checks its preconditions before the first edit and returns an
//! [`LcgError`] naming the broken one (the graph is unchanged then); none panics.
//!
//! Each operation touches only the SCCs of one RefSCC (edge kind switches, SCC merges
//! and splits) or the RefSCCs between the two endpoints in post-order (RefSCC merges).
//! Splits are scoped runs of the graph's one [`crate::graph::Tarjan`]: the nodes of the
//! old SCC / RefSCC are opened, every other node stays finished, so a split walks only
//! the nodes and edges it is about.

use super::{
    AllEdges, CallEdges, Edge, EdgeKind, LazyCallGraph, LcgError, NodeIdx, Packed, RefSccIdx,
    SccIdx, NO_POS,
};
use crate::graph::CompIdx;
use crate::hash::{FixedMap, FixedSet};
use crate::idx::Idx;

/// LLVM's `updatePostorderSequenceForEdgeInsertion` on the part of a post-order that
/// runs from the source component (`range[0]`) to the target (`range[last]`).
/// `has_edge_into(c, set)` says whether component `c` has an edge (of the relevant
/// kind) into `set`; `succs(c, out)` lists the components `c` has edges into. The range
/// is reordered in place so the post-order stays valid; returns the local range
/// `[start, end)` of components that now form a cycle with the target and must merge
/// into it (empty when none). Cost: proportional to the range and its edges.
fn update_postorder_for_insertion<C: Idx>(
    range: &mut [C],
    mut has_edge_into: impl FnMut(C, &FixedSet<C>) -> bool,
    mut succs: impl FnMut(C, &mut Vec<C>),
) -> (usize, usize) {
    let last = range.len() - 1;
    let target = range[last];
    // components in the range that (transitively) reach the source
    let mut set = FixedSet::default();
    set.insert(range[0]);
    for &c in &range[1..] {
        if has_edge_into(c, &set) {
            set.insert(c);
        }
    }
    // stable partition: the others first, then the source and what reaches it
    let (mut a, mut b): (Vec<C>, Vec<C>) = range.iter().partition(|c| !set.contains(c));
    let split = a.len();
    a.append(&mut b);
    range.copy_from_slice(&a);
    if !set.contains(&target) {
        return (split, split);
    }
    let si = split;
    let mut ti = last;
    if si + 1 < ti {
        // components after the source that the target reaches
        let local: FixedMap<C, usize> = range.iter().enumerate().map(|(k, &c)| (c, k)).collect();
        let mut reach = FixedSet::default();
        reach.insert(target);
        let mut work = vec![target];
        let mut out = Vec::new();
        while let Some(c) = work.pop() {
            out.clear();
            succs(c, &mut out);
            for &d in &out {
                if local.get(&d).is_some_and(|&k| k > si) && reach.insert(d) {
                    work.push(d);
                }
            }
        }
        let (mut a, mut b): (Vec<C>, Vec<C>) =
            range[si + 1..].iter().partition(|c| reach.contains(c));
        let n_conn = a.len();
        a.append(&mut b);
        range[si + 1..].copy_from_slice(&a);
        ti = si + n_conn;
    }
    debug_assert_eq!(range[ti], target);
    (si, ti)
}

/// What [`LazyCallGraph::switch_internal_edge_to_call`] hands its callback: a
/// read-only view of the graph just before the SCCs on the new cycle merge into the
/// target's SCC (so they still hold their members).
#[derive(Clone, Copy, Debug)]
pub struct SccMerge<'a> {
    graph: &'a LazyCallGraph,
    sccs: &'a [SccIdx],
    target: SccIdx,
}

impl<'a> SccMerge<'a> {
    /// The SCCs about to be merged away, in post-order, starting with the source's
    /// SCC; never the target's SCC. Empty when only the post-order was fixed.
    pub fn sccs(&self) -> &'a [SccIdx] {
        self.sccs
    }

    /// The SCC that absorbs them (the edge target's SCC, which keeps its index).
    pub fn target(&self) -> SccIdx {
        self.target
    }

    /// The members of one merged SCC (or of any SCC), in LLVM order.
    pub fn members(&self, s: SccIdx) -> &'a [NodeIdx] {
        self.graph.scc_nodes(s)
    }

    /// Every node that moves into the target SCC, SCC by SCC in post-order.
    pub fn merged_nodes(&self) -> impl Iterator<Item = NodeIdx> + 'a {
        let g = self.graph;
        self.sccs
            .iter()
            .flat_map(move |&s| g.scc_nodes(s).iter().copied())
    }

    /// The whole graph, as it is before the merge.
    pub fn graph(&self) -> &'a LazyCallGraph {
        self.graph
    }
}

impl LazyCallGraph {
    fn set_edge_kind(&mut self, a: NodeIdx, b: NodeIdx, kind: EdgeKind) {
        if let Some(e) = self.edges.get_mut(a).iter_mut().find(|e| e.target() == b) {
            *e = Packed::new(Edge { target: b, kind });
        }
    }

    // ------------------------------------------------------------ precondition checks

    /// `n` is in range and not removed.
    pub(super) fn check_node(&self, n: NodeIdx) -> Result<(), LcgError> {
        if n.idx() >= self.num_nodes() {
            Err(LcgError::UnknownNode(n))
        } else if self.removed[n] {
            Err(LcgError::RemovedNode(n))
        } else {
            Ok(())
        }
    }

    /// The graph is built and `n` is a live node with an SCC; returns the SCC.
    pub(super) fn placed(&self, n: NodeIdx) -> Result<SccIdx, LcgError> {
        if !self.built {
            return Err(LcgError::NotBuilt);
        }
        self.check_node(n)?;
        self.scc_of[n].some().ok_or(LcgError::NotInGraph(n))
    }

    /// The edge `src -> tgt` exists and has kind `kind`.
    fn check_edge(&self, src: NodeIdx, tgt: NodeIdx, kind: EdgeKind) -> Result<(), LcgError> {
        match self.edge(src, tgt) {
            None => Err(LcgError::NoEdge { src, tgt }),
            Some(e) if e.kind != kind => Err(LcgError::WrongEdgeKind {
                src,
                tgt,
                expected: kind,
            }),
            Some(_) => Ok(()),
        }
    }

    /// There is no edge `src -> tgt`.
    fn check_no_edge(&self, src: NodeIdx, tgt: NodeIdx) -> Result<(), LcgError> {
        match self.edge(src, tgt) {
            Some(_) => Err(LcgError::EdgeExists { src, tgt }),
            None => Ok(()),
        }
    }

    /// Both endpoints are placed; returns their SCCs.
    fn placed2(&self, src: NodeIdx, tgt: NodeIdx) -> Result<(SccIdx, SccIdx), LcgError> {
        Ok((self.placed(src)?, self.placed(tgt)?))
    }

    /// Refreshes `scc_pos` for the SCCs at positions `from..to` of RefSCC `rc`'s list.
    fn reindex_sccs_range(&mut self, rc: RefSccIdx, from: usize, to: usize) {
        for k in from..to {
            let s = self.rc_sccs.get(rc)[k];
            self.scc_pos[s] = k as u32;
        }
    }

    /// Refreshes `scc_pos` from position `from` to the end of RefSCC `rc`'s list.
    pub(super) fn reindex_sccs(&mut self, rc: RefSccIdx, from: usize) {
        let to = self.rc_sccs.get(rc).len();
        self.reindex_sccs_range(rc, from, to);
    }

    /// Turns the ref edge `src -> tgt` (both in one RefSCC) into a call edge. SCCs that
    /// now form a cycle are merged into `tgt`'s SCC; `merge_cb` sees them (in post-order)
    /// before the merge (it is not called when `tgt`'s SCC already precedes `src`'s, and
    /// is called with an empty slice when only the post-order needed fixing). Returns
    /// whether a new cycle formed. LLVM 14 = main (`switchInternalEdgeToCall`).
    ///
    /// The callback gets an [`SccMerge`], a read-only view of the graph just before the
    /// merge, so it can list the merged SCCs ([`SccMerge::sccs`]) and their members.
    ///
    /// # Errors
    /// `NotBuilt`, `UnknownNode`/`RemovedNode`/`NotInGraph` for either endpoint,
    /// `NoEdge`, `WrongEdgeKind` (not a ref edge), `NotInternal` (different RefSCCs).
    pub fn switch_internal_edge_to_call(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
        mut merge_cb: impl FnMut(SccMerge<'_>),
    ) -> Result<bool, LcgError> {
        let (ss, ts) = self.placed2(src, tgt)?;
        self.check_edge(src, tgt, EdgeKind::Ref)?;
        let rc = self.scc_rc[ss];
        if rc != self.scc_rc[ts] {
            return Err(LcgError::NotInternal { src, tgt });
        }
        if ss == ts || self.scc_pos[ts] < self.scc_pos[ss] {
            self.set_edge_kind(src, tgt, EdgeKind::Call);
            return Ok(false);
        }
        let si = self.scc_pos[ss] as usize;
        let ti = self.scc_pos[ts] as usize;
        let mut range = self.rc_sccs.get(rc)[si..=ti].to_vec();
        let (start, end) = {
            let this = &*self;
            update_postorder_for_insertion(
                &mut range,
                |c, set| {
                    this.scc_nodes(c).iter().any(|&n| {
                        this.edges[n]
                            .iter()
                            .any(|e| e.is_call() && set.contains(&this.scc_of[e.target()]))
                    })
                },
                |c, out| {
                    for &n in this.scc_nodes(c) {
                        for e in &this.edges[n] {
                            if e.is_call() {
                                out.push(this.scc_of[e.target()]);
                            }
                        }
                    }
                },
            )
        };
        self.rc_sccs.get_mut(rc)[si..=ti].copy_from_slice(&range);
        self.reindex_sccs_range(rc, si, ti + 1);
        // As upstream, the callback also runs (with an empty slice) when only the
        // post-order had to be fixed.
        merge_cb(SccMerge {
            graph: self,
            sccs: &range[start..end],
            target: ts,
        });
        if start == end {
            self.set_edge_kind(src, tgt, EdgeKind::Call);
            return Ok(false);
        }
        for &c in &range[start..end] {
            let nodes = self.scc_nodes.get(c).to_vec();
            self.scc_nodes.clear(c);
            for &n in &nodes {
                self.scc_of[n] = ts;
            }
            self.scc_nodes.extend(ts, &nodes);
            self.scc_pos[c] = NO_POS;
            self.scc_rc[c] = RefSccIdx::NONE;
        }
        self.rc_sccs
            .edit(rc, |l| l.drain(si + start..si + end).for_each(drop));
        self.reindex_sccs(rc, si + start);
        self.set_edge_kind(src, tgt, EdgeKind::Call);
        Ok(true)
    }

    /// Turns the call edge `src -> tgt` (both in one RefSCC) into a ref edge. If both
    /// were in one SCC it may split: `tgt` keeps the old SCC, the new SCCs are inserted
    /// before it (Tarjan over call edges restricted to the old SCC, with `tgt` as the
    /// sink every node that still reaches it is absorbed into). Returns the new SCCs in
    /// post-order (empty when nothing split). LLVM 14 = main (`switchInternalEdgeToRef`),
    /// except that LLVM asserts the endpoints share an SCC, where this also accepts an
    /// edge between two SCCs and then acts as
    /// [`switch_trivial_internal_edge_to_ref`](Self::switch_trivial_internal_edge_to_ref).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `WrongEdgeKind` (not a call edge),
    /// `NotInternal`.
    pub fn switch_internal_edge_to_ref(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
    ) -> Result<Vec<SccIdx>, LcgError> {
        let (ss, old) = self.placed2(src, tgt)?;
        self.check_edge(src, tgt, EdgeKind::Call)?;
        let rc = self.scc_rc[old];
        if rc != self.scc_rc[ss] {
            return Err(LcgError::NotInternal { src, tgt });
        }
        self.set_edge_kind(src, tgt, EdgeKind::Ref);
        if ss != old {
            return Ok(Vec::new());
        }
        // LLVM's walk: the old SCC's nodes in order, over call edges, with `tgt` (which
        // reaches every node of the old SCC) as the sink.
        let worklist = self.scc_nodes.get(old).to_vec();
        // A build may have left no table (every node out of scope).
        self.tarjan.grow(self.num_nodes());
        self.tarjan.open(worklist.iter().copied());
        self.tarjan
            .run_with_sink(&mut CallEdges(&self.edges), worklist.iter().copied(), tgt);
        let mut keep = vec![tgt];
        keep.extend_from_slice(self.tarjan.absorbed());
        self.scc_nodes.set(old, &keep);
        let mut new_sccs = Vec::with_capacity(self.tarjan.num_sccs());
        for k in 0..self.tarjan.num_sccs() {
            let nodes = self.tarjan.scc(CompIdx::new(k)).to_vec();
            new_sccs.push(self.new_scc(rc, &nodes));
        }
        let old_idx = self.scc_pos[old] as usize;
        self.rc_sccs.edit(rc, |l| {
            l.splice(old_idx..old_idx, new_sccs.iter().copied())
                .for_each(drop)
        });
        self.reindex_sccs(rc, old_idx);
        Ok(new_sccs)
    }

    /// Turns the call edge `src -> tgt` between two *different* SCCs of one RefSCC into
    /// a ref edge. No structure changes: the SCCs were separate already. LLVM 14 = main
    /// (`switchTrivialInternalEdgeToRef`).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `WrongEdgeKind` (not a call edge),
    /// `NotInternal` (different RefSCCs), `SameScc` (use
    /// [`switch_internal_edge_to_ref`](Self::switch_internal_edge_to_ref) there).
    pub fn switch_trivial_internal_edge_to_ref(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
    ) -> Result<(), LcgError> {
        let (ss, ts) = self.placed2(src, tgt)?;
        self.check_edge(src, tgt, EdgeKind::Call)?;
        if self.scc_rc[ss] != self.scc_rc[ts] {
            return Err(LcgError::NotInternal { src, tgt });
        }
        if ss == ts {
            return Err(LcgError::SameScc { src, tgt });
        }
        self.set_edge_kind(src, tgt, EdgeKind::Ref);
        Ok(())
    }

    /// Turns the ref edge `src -> tgt` into a call edge when `tgt` is in another
    /// (necessarily earlier) RefSCC. No structure changes.
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `WrongEdgeKind`, `NotOutgoing`.
    pub fn switch_outgoing_edge_to_call(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
    ) -> Result<(), LcgError> {
        self.switch_outgoing_edge(src, tgt, EdgeKind::Ref, EdgeKind::Call)
    }

    /// Turns the call edge `src -> tgt` into a ref edge when `tgt` is in another
    /// RefSCC. No structure changes.
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `WrongEdgeKind`, `NotOutgoing`.
    pub fn switch_outgoing_edge_to_ref(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
    ) -> Result<(), LcgError> {
        self.switch_outgoing_edge(src, tgt, EdgeKind::Call, EdgeKind::Ref)
    }

    /// Flips an edge between two RefSCCs from `from` to `to`: neither SCCs nor RefSCCs
    /// change, since only edges inside a RefSCC shape either.
    fn switch_outgoing_edge(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
        from: EdgeKind,
        to: EdgeKind,
    ) -> Result<(), LcgError> {
        let (ss, ts) = self.placed2(src, tgt)?;
        self.check_edge(src, tgt, from)?;
        if self.scc_rc[ss] == self.scc_rc[ts] {
            return Err(LcgError::NotOutgoing { src, tgt });
        }
        self.set_edge_kind(src, tgt, to);
        Ok(())
    }

    /// Adds a ref edge between two nodes of one RefSCC. No structure changes.
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `EdgeExists`, `NotInternal`.
    pub fn insert_internal_ref_edge(&mut self, src: NodeIdx, tgt: NodeIdx) -> Result<(), LcgError> {
        let (ss, ts) = self.placed2(src, tgt)?;
        self.check_no_edge(src, tgt)?;
        if self.scc_rc[ss] != self.scc_rc[ts] {
            return Err(LcgError::NotInternal { src, tgt });
        }
        self.push_edge(
            src,
            Edge {
                target: tgt,
                kind: EdgeKind::Ref,
            },
        );
        Ok(())
    }

    /// Adds an edge from `src` to a node of an earlier RefSCC (a descendant). No
    /// structure changes.
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `EdgeExists`, `NotOutgoing` (same RefSCC),
    /// `NotDescendant` (`tgt`'s RefSCC is later in post-order).
    pub fn insert_outgoing_edge(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
        kind: EdgeKind,
    ) -> Result<(), LcgError> {
        let (ss, ts) = self.placed2(src, tgt)?;
        self.check_no_edge(src, tgt)?;
        let (rs, rt) = (self.scc_rc[ss], self.scc_rc[ts]);
        if rs == rt {
            return Err(LcgError::NotOutgoing { src, tgt });
        }
        if self.order.label(rt) > self.order.label(rs) {
            return Err(LcgError::NotDescendant { src, tgt });
        }
        self.push_edge(src, Edge { target: tgt, kind });
        Ok(())
    }

    /// Adds a call edge `src -> tgt` (or upgrades an existing ref edge) where the edge
    /// changes no SCC: `tgt` is in `src`'s SCC, an earlier SCC of its RefSCC, or an
    /// earlier RefSCC (LLVM's `insertTrivialCallEdge`).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NotDescendant` (the edge would go to a later SCC or
    /// RefSCC).
    pub fn insert_trivial_call_edge(&mut self, src: NodeIdx, tgt: NodeIdx) -> Result<(), LcgError> {
        let (ss, ts) = self.placed2(src, tgt)?;
        let (rs, rt) = (self.scc_rc[ss], self.scc_rc[ts]);
        let trivial = if rs == rt {
            self.scc_pos[ts] <= self.scc_pos[ss]
        } else {
            self.order.label(rt) < self.order.label(rs)
        };
        if !trivial {
            return Err(LcgError::NotDescendant { src, tgt });
        }
        match self.edge(src, tgt) {
            Some(_) => self.set_edge_kind(src, tgt, EdgeKind::Call),
            None => self.push_edge(
                src,
                Edge {
                    target: tgt,
                    kind: EdgeKind::Call,
                },
            ),
        }
        Ok(())
    }

    /// Adds a ref edge `src -> tgt` (no-op if any edge exists) where `tgt` is in
    /// `src`'s RefSCC or an earlier one (LLVM's `insertTrivialRefEdge`).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NotDescendant` (`tgt`'s RefSCC is later).
    pub fn insert_trivial_ref_edge(&mut self, src: NodeIdx, tgt: NodeIdx) -> Result<(), LcgError> {
        let (ss, ts) = self.placed2(src, tgt)?;
        let (rs, rt) = (self.scc_rc[ss], self.scc_rc[ts]);
        if rs != rt && self.order.label(rt) > self.order.label(rs) {
            return Err(LcgError::NotDescendant { src, tgt });
        }
        if self.edge(src, tgt).is_none() {
            self.push_edge(
                src,
                Edge {
                    target: tgt,
                    kind: EdgeKind::Ref,
                },
            );
        }
        Ok(())
    }

    /// Adds an edge before [`build_ref_sccs`](Self::build_ref_sccs) (LLVM's
    /// `insertEdge`); populates `src` first.
    ///
    /// # Errors
    /// `AlreadyBuilt`, `UnknownNode`/`RemovedNode`, `EdgeToDeclaration`, `EdgeExists`.
    pub fn insert_edge(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
        kind: EdgeKind,
    ) -> Result<(), LcgError> {
        if self.built {
            return Err(LcgError::AlreadyBuilt);
        }
        self.check_node(src)?;
        self.check_node(tgt)?;
        if !self.defined[tgt] {
            return Err(LcgError::EdgeToDeclaration { src, tgt });
        }
        self.populate(src);
        self.check_no_edge(src, tgt)?;
        self.push_edge(src, Edge { target: tgt, kind });
        Ok(())
    }

    /// Removes an edge before [`build_ref_sccs`](Self::build_ref_sccs) (LLVM's
    /// `removeEdge`).
    ///
    /// # Errors
    /// `AlreadyBuilt`, `UnknownNode`/`RemovedNode`, `NoEdge`.
    pub fn remove_edge(&mut self, src: NodeIdx, tgt: NodeIdx) -> Result<(), LcgError> {
        if self.built {
            return Err(LcgError::AlreadyBuilt);
        }
        self.check_node(src)?;
        self.check_node(tgt)?;
        self.populate(src);
        if self.edge(src, tgt).is_none() {
            return Err(LcgError::NoEdge { src, tgt });
        }
        self.remove_edge_internal(src, tgt);
        Ok(())
    }

    /// Renames node `n` (LLVM's `replaceNodeFunction`: the function body moved to a new
    /// function with the same edges). The name index follows.
    ///
    /// # Errors
    /// `UnknownNode`, `RemovedNode` (a removed function has no name to replace).
    pub fn replace_node_function(
        &mut self,
        n: NodeIdx,
        new_name: impl Into<String>,
    ) -> Result<(), LcgError> {
        self.check_node(n)?;
        let new_name = new_name.into();
        self.unindex_name(n);
        self.name_index.insert(new_name.clone(), n);
        self.names[n] = new_name;
        Ok(())
    }

    /// Drops `n`'s entry from the name index (if it owns it).
    pub(super) fn unindex_name(&mut self, n: NodeIdx) {
        if self.name_index.get(&self.names[n]) == Some(&n) {
            self.name_index.remove(&self.names[n]);
        }
    }

    /// Removes the edge `src -> tgt` whose endpoints are in different RefSCCs. No
    /// structure changes.
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `NotOutgoing`.
    pub fn remove_outgoing_edge(&mut self, src: NodeIdx, tgt: NodeIdx) -> Result<(), LcgError> {
        let (ss, ts) = self.placed2(src, tgt)?;
        if self.edge(src, tgt).is_none() {
            return Err(LcgError::NoEdge { src, tgt });
        }
        if self.scc_rc[ss] == self.scc_rc[ts] {
            return Err(LcgError::NotOutgoing { src, tgt });
        }
        self.remove_edge_internal(src, tgt);
        Ok(())
    }

    pub(super) fn remove_edge_internal(&mut self, src: NodeIdx, tgt: NodeIdx) {
        if let Some(k) = self.edges[src].iter().position(|e| e.target() == tgt) {
            self.edges.remove_at(src, k);
        }
    }

    /// LLVM 14's `removeInternalRefEdge(Src, Targets)`: removes the ref edges
    /// `src -> t` for each `t` in `targets` (all in `src`'s RefSCC). Same as
    /// [`remove_internal_ref_edges`](Self::remove_internal_ref_edges) with the pairs
    /// `(src, t)`.
    ///
    /// # Errors
    /// As [`remove_internal_ref_edges`](Self::remove_internal_ref_edges).
    pub fn remove_internal_ref_edge(
        &mut self,
        src: NodeIdx,
        targets: &[NodeIdx],
    ) -> Result<Vec<RefSccIdx>, LcgError> {
        let pairs: Vec<(NodeIdx, NodeIdx)> = targets.iter().map(|&t| (src, t)).collect();
        self.remove_internal_ref_edges(&pairs)
    }

    /// LLVM main's `RefSCC::removeInternalRefEdges(ArrayRef<pair<Node*, Node*>>)`:
    /// removes the ref edges `src -> tgt` of every pair (the sources may differ; every
    /// endpoint must be in one RefSCC). The RefSCC may split: one Tarjan walk over all
    /// edges, scoped to the RefSCC with roots popped from the back of its node list,
    /// numbers the pieces; the new RefSCCs replace it at its post-order position, in
    /// that order, and each old SCC moves whole (keeping its index) into its piece.
    /// Returns the new RefSCCs in post-order: empty when the RefSCC stays whole (also
    /// for an empty list, or when every pair is a self edge or lies inside one SCC).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `WrongEdgeKind` (a call edge: switch it to
    /// ref first), `NotInternal` (a pair crosses RefSCCs), `SpansRefSccs` (pairs in
    /// different RefSCCs), `RepeatedEdge`. Nothing changes on error.
    pub fn remove_internal_ref_edges(
        &mut self,
        pairs: &[(NodeIdx, NodeIdx)],
    ) -> Result<Vec<RefSccIdx>, LcgError> {
        let Some(&(s0, _)) = pairs.first() else {
            return Ok(Vec::new());
        };
        let rc = self.scc_rc[self.placed(s0)?];
        let mut seen = FixedSet::with_capacity_and_hasher(pairs.len(), Default::default());
        for &(src, tgt) in pairs {
            let (ss, ts) = self.placed2(src, tgt)?;
            self.check_edge(src, tgt, EdgeKind::Ref)?;
            if self.scc_rc[ss] != self.scc_rc[ts] {
                return Err(LcgError::NotInternal { src, tgt });
            }
            if self.scc_rc[ss] != rc {
                return Err(LcgError::SpansRefSccs { src, tgt });
            }
            if !seen.insert((src, tgt)) {
                return Err(LcgError::RepeatedEdge { src, tgt });
            }
        }
        Ok(self.remove_internal_ref_edges_unchecked(rc, pairs))
    }

    /// [`remove_internal_ref_edges`](Self::remove_internal_ref_edges) after its checks:
    /// every pair is an edge of RefSCC `rc` (any kind; `remove_dead_functions` passes
    /// the dead nodes' internal edges, which are refs after `mark_dead_function`).
    pub(super) fn remove_internal_ref_edges_unchecked(
        &mut self,
        rc: RefSccIdx,
        pairs: &[(NodeIdx, NodeIdx)],
    ) -> Vec<RefSccIdx> {
        for &(src, tgt) in pairs {
            self.remove_edge_internal(src, tgt);
        }
        if pairs
            .iter()
            .all(|&(s, t)| s == t || self.scc_of[s] == self.scc_of[t])
        {
            return Vec::new();
        }
        // LLVM's walk: every edge, scoped to the RefSCC, roots from the end of its node
        // list (upstream pops a worklist); only the post-order numbering of the pieces
        // matters, each SCC goes whole into its piece.
        let nodes: Vec<NodeIdx> = self.refscc_nodes(rc).collect();
        // A build may have left no table (every node out of scope).
        self.tarjan.grow(self.num_nodes());
        self.tarjan.open(nodes.iter().copied());
        self.tarjan
            .run(&mut AllEdges(&self.edges), nodes.iter().rev().copied());
        let pieces = self.tarjan.num_sccs();
        if pieces == 1 {
            return Vec::new();
        }
        let piece_of: Vec<usize> = self
            .rc_sccs
            .get(rc)
            .iter()
            .map(|&s| {
                let c = self.tarjan.comp_of(self.scc_nodes(s)[0]);
                c.map_or(0, |c| c.idx())
            })
            .collect();
        let result: Vec<RefSccIdx> = (0..pieces).map(|_| self.new_refscc()).collect();
        self.order.insert_before(&result, rc);
        self.order.unlink(rc);
        let sccs = self.rc_sccs.get(rc).to_vec();
        self.rc_sccs.clear(rc);
        for (s, p) in sccs.into_iter().zip(piece_of) {
            let r = result[p];
            self.scc_pos[s] = self.rc_sccs.get(r).len() as u32;
            self.scc_rc[s] = r;
            self.rc_sccs.push(r, s);
        }
        result
    }

    /// Adds the ref edge `src -> tgt` where `src`'s RefSCC is earlier in post-order
    /// than `tgt`'s (an edge "up" the post-order). RefSCCs on the new cycle merge into
    /// `tgt`'s RefSCC (their SCCs first, then its own). Returns the merged-away
    /// RefSCCs (now dead). LLVM 14 = main (`insertIncomingRefEdge`).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `EdgeExists`, `NotIncoming` (`src`'s RefSCC is not
    /// earlier than `tgt`'s).
    pub fn insert_incoming_ref_edge(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
    ) -> Result<Vec<RefSccIdx>, LcgError> {
        let (ss, ts) = self.placed2(src, tgt)?;
        self.check_no_edge(src, tgt)?;
        let this = self.scc_rc[ts];
        let sc = self.scc_rc[ss];
        if self.order.label(sc) >= self.order.label(this) {
            return Err(LcgError::NotIncoming { src, tgt });
        }
        // the post-order from the source's RefSCC to the target's
        let mut segment = Vec::new();
        let mut r = sc;
        loop {
            segment.push(r);
            if r == this {
                break;
            }
            r = self.order.next_of(r);
        }
        let mut range = segment.clone();
        let (start, end) = {
            let g = &*self;
            let rc_of = |n: NodeIdx| g.scc_rc[g.scc_of[n]];
            update_postorder_for_insertion(
                &mut range,
                |c, set| {
                    g.refscc_nodes(c)
                        .any(|n| g.edges[n].iter().any(|e| set.contains(&rc_of(e.target()))))
                },
                |c, out| {
                    for n in g.refscc_nodes(c) {
                        out.extend(g.edges[n].iter().map(|e| rc_of(e.target())));
                    }
                },
            )
        };
        self.order.reorder_segment(&segment, &range);
        let merged: Vec<RefSccIdx> = range[start..end].to_vec();
        let mut sccs: Vec<SccIdx> = Vec::new();
        for &r in &merged {
            sccs.extend_from_slice(self.rc_sccs.get(r));
            self.rc_sccs.clear(r);
            self.order.unlink(r);
        }
        sccs.extend_from_slice(self.rc_sccs.get(this));
        for (k, &s) in sccs.iter().enumerate() {
            self.scc_rc[s] = this;
            self.scc_pos[s] = k as u32;
        }
        self.rc_sccs.set(this, &sccs);
        self.push_edge(
            src,
            Edge {
                target: tgt,
                kind: EdgeKind::Ref,
            },
        );
        Ok(merged)
    }
}
