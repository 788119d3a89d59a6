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
//! Methods returning `Result` check every precondition before the first edit and
//! return an [`LcgError`] naming the broken one (the graph is unchanged then). The
//! older methods without `try_` keep their signatures and panic on a broken
//! precondition; each has a `try_` twin that returns the error instead.
//!
//! Each operation touches only the SCCs of one RefSCC (edge kind switches, SCC merges
//! and splits) or the RefSCCs between the two endpoints in post-order (RefSCC merges).
//! Splits are scoped runs of the graph's one [`crate::graph::Tarjan`]: the nodes of the
//! old SCC / RefSCC are opened, every other node stays finished, so a split walks only
//! the nodes and edges it is about.

use super::{
    AllEdges, CallEdges, Edge, EdgeKind, LazyCallGraph, LcgError, NodeIdx, Packed, RefSccIdx,
    SccIdx, VerifyError, NO_POS,
};
use crate::graph::CompIdx;
use crate::idx::Idx;
use ahash::{AHashMap, AHashSet};

/// LLVM's `updatePostorderSequenceForEdgeInsertion` on the part of a post-order that
/// runs from the source component (`range[0]`) to the target (`range[last]`).
/// `has_edge_into(c, set)` says whether component `c` has an edge (of the relevant
/// kind) into `set`; `succs(c, out)` lists the components `c` has edges into. The range
/// is reordered in place so the post-order stays valid; returns the local range
/// `[start, end)` of components that now form a cycle with the target and must merge
/// into it (empty when none). Cost: proportional to the range and its edges.
fn update_postorder_for_insertion<C: Idx>(
    range: &mut [C],
    mut has_edge_into: impl FnMut(C, &AHashSet<C>) -> bool,
    mut succs: impl FnMut(C, &mut Vec<C>),
) -> (usize, usize) {
    let last = range.len() - 1;
    let target = range[last];
    // components in the range that (transitively) reach the source
    let mut set = AHashSet::new();
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
        let local: AHashMap<C, usize> = range.iter().enumerate().map(|(k, &c)| (c, k)).collect();
        let mut reach = AHashSet::new();
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

/// What [`LazyCallGraph::try_switch_internal_edge_to_call`] hands its callback: a
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
    fn reindex_sccs(&mut self, rc: RefSccIdx, from: usize) {
        let to = self.rc_sccs.get(rc).len();
        self.reindex_sccs_range(rc, from, to);
    }

    /// Turns the ref edge `src -> tgt` (both in one RefSCC) into a call edge. SCCs that
    /// now form a cycle are merged into `tgt`'s SCC; `merge_cb` sees them (in post-order)
    /// before the merge (it is not called when `tgt`'s SCC already precedes `src`'s, and
    /// is called with an empty slice when only the post-order needed fixing). Returns
    /// whether a new cycle formed. LLVM 14 = main (`switchInternalEdgeToCall`).
    ///
    /// [`try_switch_internal_edge_to_call`](Self::try_switch_internal_edge_to_call) is
    /// the checked form, whose callback also sees the merged SCCs' members.
    ///
    /// # Panics
    /// On a broken precondition (see the [`LcgError`] the checked form returns).
    pub fn switch_internal_edge_to_call(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
        mut merge_cb: impl FnMut(&[SccIdx]),
    ) -> bool {
        self.try_switch_internal_edge_to_call(src, tgt, |m| merge_cb(m.sccs()))
            .unwrap_or_else(|e| panic!("switch_internal_edge_to_call: {e}"))
    }

    /// Checked [`switch_internal_edge_to_call`](Self::switch_internal_edge_to_call):
    /// the callback gets an [`SccMerge`], a read-only view of the graph just before the
    /// merge, so it can list the merged SCCs and their member nodes.
    ///
    /// # Errors
    /// `NotBuilt`, `UnknownNode`/`RemovedNode`/`NotInGraph` for either endpoint,
    /// `NoEdge`, `WrongEdgeKind` (not a ref edge), `NotInternal` (different RefSCCs).
    pub fn try_switch_internal_edge_to_call(
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
    /// # Panics
    /// On a broken precondition (see [`try_switch_internal_edge_to_ref`](Self::try_switch_internal_edge_to_ref)).
    pub fn switch_internal_edge_to_ref(&mut self, src: NodeIdx, tgt: NodeIdx) -> Vec<SccIdx> {
        self.try_switch_internal_edge_to_ref(src, tgt)
            .unwrap_or_else(|e| panic!("switch_internal_edge_to_ref: {e}"))
    }

    /// Checked [`switch_internal_edge_to_ref`](Self::switch_internal_edge_to_ref).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `WrongEdgeKind` (not a call edge),
    /// `NotInternal`.
    pub fn try_switch_internal_edge_to_ref(
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
    /// # Panics
    /// On a broken precondition (see [`try_switch_outgoing_edge_to_call`](Self::try_switch_outgoing_edge_to_call)).
    pub fn switch_outgoing_edge_to_call(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.try_switch_outgoing_edge_to_call(src, tgt)
            .unwrap_or_else(|e| panic!("switch_outgoing_edge_to_call: {e}"))
    }

    /// Checked [`switch_outgoing_edge_to_call`](Self::switch_outgoing_edge_to_call).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `WrongEdgeKind`, `NotOutgoing`.
    pub fn try_switch_outgoing_edge_to_call(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
    ) -> Result<(), LcgError> {
        self.switch_outgoing_edge(src, tgt, EdgeKind::Ref, EdgeKind::Call)
    }

    /// Turns the call edge `src -> tgt` into a ref edge when `tgt` is in another
    /// RefSCC. No structure changes.
    ///
    /// # Panics
    /// On a broken precondition (see [`try_switch_outgoing_edge_to_ref`](Self::try_switch_outgoing_edge_to_ref)).
    pub fn switch_outgoing_edge_to_ref(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.try_switch_outgoing_edge_to_ref(src, tgt)
            .unwrap_or_else(|e| panic!("switch_outgoing_edge_to_ref: {e}"))
    }

    /// Checked [`switch_outgoing_edge_to_ref`](Self::switch_outgoing_edge_to_ref).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `WrongEdgeKind`, `NotOutgoing`.
    pub fn try_switch_outgoing_edge_to_ref(
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
    /// # Panics
    /// On a broken precondition (see [`try_insert_internal_ref_edge`](Self::try_insert_internal_ref_edge)).
    pub fn insert_internal_ref_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.try_insert_internal_ref_edge(src, tgt)
            .unwrap_or_else(|e| panic!("insert_internal_ref_edge: {e}"))
    }

    /// Checked [`insert_internal_ref_edge`](Self::insert_internal_ref_edge).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `EdgeExists`, `NotInternal`.
    pub fn try_insert_internal_ref_edge(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
    ) -> Result<(), LcgError> {
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
    /// # Panics
    /// On a broken precondition (see [`try_insert_outgoing_edge`](Self::try_insert_outgoing_edge)).
    pub fn insert_outgoing_edge(&mut self, src: NodeIdx, tgt: NodeIdx, kind: EdgeKind) {
        self.try_insert_outgoing_edge(src, tgt, kind)
            .unwrap_or_else(|e| panic!("insert_outgoing_edge: {e}"))
    }

    /// Checked [`insert_outgoing_edge`](Self::insert_outgoing_edge).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `EdgeExists`, `NotOutgoing` (same RefSCC),
    /// `NotDescendant` (`tgt`'s RefSCC is later in post-order).
    pub fn try_insert_outgoing_edge(
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
    /// # Panics
    /// On a broken precondition (see [`try_insert_trivial_call_edge`](Self::try_insert_trivial_call_edge)).
    pub fn insert_trivial_call_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.try_insert_trivial_call_edge(src, tgt)
            .unwrap_or_else(|e| panic!("insert_trivial_call_edge: {e}"))
    }

    /// Checked [`insert_trivial_call_edge`](Self::insert_trivial_call_edge).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NotDescendant` (the edge would go to a later SCC or
    /// RefSCC).
    pub fn try_insert_trivial_call_edge(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
    ) -> Result<(), LcgError> {
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
    /// # Panics
    /// On a broken precondition (see [`try_insert_trivial_ref_edge`](Self::try_insert_trivial_ref_edge)).
    pub fn insert_trivial_ref_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.try_insert_trivial_ref_edge(src, tgt)
            .unwrap_or_else(|e| panic!("insert_trivial_ref_edge: {e}"))
    }

    /// Checked [`insert_trivial_ref_edge`](Self::insert_trivial_ref_edge).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NotDescendant` (`tgt`'s RefSCC is later).
    pub fn try_insert_trivial_ref_edge(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
    ) -> Result<(), LcgError> {
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
    /// # Panics
    /// On a broken precondition (see [`try_insert_edge`](Self::try_insert_edge)).
    pub fn insert_edge(&mut self, src: NodeIdx, tgt: NodeIdx, kind: EdgeKind) {
        self.try_insert_edge(src, tgt, kind)
            .unwrap_or_else(|e| panic!("insert_edge: {e}"))
    }

    /// Checked [`insert_edge`](Self::insert_edge).
    ///
    /// # Errors
    /// `AlreadyBuilt`, `UnknownNode`/`RemovedNode`, `EdgeToDeclaration`, `EdgeExists`.
    pub fn try_insert_edge(
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
    /// # Panics
    /// On a broken precondition (see [`try_remove_edge`](Self::try_remove_edge)).
    pub fn remove_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.try_remove_edge(src, tgt)
            .unwrap_or_else(|e| panic!("remove_edge: {e}"))
    }

    /// Checked [`remove_edge`](Self::remove_edge).
    ///
    /// # Errors
    /// `AlreadyBuilt`, `UnknownNode`/`RemovedNode`, `NoEdge`.
    pub fn try_remove_edge(&mut self, src: NodeIdx, tgt: NodeIdx) -> Result<(), LcgError> {
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
    /// function with the same edges). The name index follows. Does nothing for an
    /// out-of-range `n`.
    pub fn replace_node_function(&mut self, n: NodeIdx, new_name: impl Into<String>) {
        if n.idx() >= self.num_nodes() {
            return;
        }
        let new_name = new_name.into();
        self.unindex_name(n);
        self.name_index.insert(new_name.clone(), n);
        self.names[n] = new_name;
    }

    /// Drops `n`'s entry from the name index (if it owns it).
    fn unindex_name(&mut self, n: NodeIdx) {
        if self.name_index.get(&self.names[n]) == Some(&n) {
            self.name_index.remove(&self.names[n]);
        }
    }

    /// Removes the edge `src -> tgt` whose endpoints are in different RefSCCs. No
    /// structure changes.
    ///
    /// # Panics
    /// On a broken precondition (see [`try_remove_outgoing_edge`](Self::try_remove_outgoing_edge)).
    pub fn remove_outgoing_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.try_remove_outgoing_edge(src, tgt)
            .unwrap_or_else(|e| panic!("remove_outgoing_edge: {e}"))
    }

    /// Checked [`remove_outgoing_edge`](Self::remove_outgoing_edge).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `NoEdge`, `NotOutgoing`.
    pub fn try_remove_outgoing_edge(&mut self, src: NodeIdx, tgt: NodeIdx) -> Result<(), LcgError> {
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

    fn remove_edge_internal(&mut self, src: NodeIdx, tgt: NodeIdx) {
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
        let mut seen = AHashSet::with_capacity(pairs.len());
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
    fn remove_internal_ref_edges_unchecked(
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
    /// # Panics
    /// On a broken precondition (see [`try_insert_incoming_ref_edge`](Self::try_insert_incoming_ref_edge)).
    pub fn insert_incoming_ref_edge(&mut self, src: NodeIdx, tgt: NodeIdx) -> Vec<RefSccIdx> {
        self.try_insert_incoming_ref_edge(src, tgt)
            .unwrap_or_else(|e| panic!("insert_incoming_ref_edge: {e}"))
    }

    /// Checked [`insert_incoming_ref_edge`](Self::insert_incoming_ref_edge).
    ///
    /// # Errors
    /// `NotBuilt`, a bad endpoint, `EdgeExists`, `NotIncoming` (`src`'s RefSCC is not
    /// earlier than `tgt`'s).
    pub fn try_insert_incoming_ref_edge(
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

    // ------------------------------------------------------------ dead functions

    /// Takes dead node `n` (alone in SCC `s`, RefSCC `r`) out of the structure. LLVM
    /// keeps the emptied RefSCC in its post-order vector, where the iterator skips it;
    /// here it is unlinked from the post-order list (the same visible order).
    fn unplace_dead(&mut self, n: NodeIdx, s: SccIdx, r: RefSccIdx) {
        self.scc_of[n] = SccIdx::NONE;
        self.scc_nodes.clear(s);
        self.scc_rc[s] = RefSccIdx::NONE;
        self.scc_pos[s] = NO_POS;
        self.rc_sccs.clear(r);
        self.order.unlink(r);
    }

    /// Whether SCC `s` (of RefSCC `r`) holds one node and `r` one SCC.
    fn alone(&self, s: SccIdx, r: RefSccIdx) -> bool {
        self.scc_nodes(s).len() == 1 && self.refscc_sccs(r).len() == 1
    }

    /// The last step of every removal: the nodes in `dead` (already out of the SCC
    /// structure) lose their edges, entry edge and name, become removed, and every
    /// edge into them is dropped. LLVM leaves such stale edges in the live nodes' lists
    /// and hides them (an edge to a dead node is invisible); dropping them gives the
    /// same visible edges. Cost: one pass over every edge list, O(N + E).
    fn finish_removal(&mut self, dead: &[NodeIdx]) {
        for &n in dead {
            self.edges.clear(n);
            self.removed[n] = true;
            self.populated[n] = true;
            self.unindex_name(n);
        }
        self.num_removed += dead.len();
        let removed = &self.removed;
        self.entry.retain(|&x| !removed[x]);
        for m in self.names.indices() {
            if self.edges[m].iter().any(|e| removed[e.target()]) {
                self.edges.edit(m, |l| l.retain(|e| !removed[e.target()]));
            }
        }
    }

    /// LLVM 14's `removeDeadFunction(F)`: removes a function with no remaining IR uses
    /// that is alone in its SCC and RefSCC. Its outgoing edges go with it; stale edges
    /// into it from other RefSCCs (spurious refs) are tolerated and dropped. A node in
    /// no SCC (never reached from a root) is just dropped. LLVM main replaced this with
    /// [`mark_dead_function`](Self::mark_dead_function) +
    /// [`remove_dead_functions`](Self::remove_dead_functions), which also accept a dead
    /// function inside a bigger RefSCC.
    ///
    /// # Errors
    /// `NotBuilt`, `UnknownNode`/`RemovedNode`, `LibraryFunction`, `NotAlone`.
    pub fn remove_dead_function(&mut self, n: NodeIdx) -> Result<(), LcgError> {
        if !self.built {
            return Err(LcgError::NotBuilt);
        }
        self.check_node(n)?;
        if self.libs.contains(&n) {
            return Err(LcgError::LibraryFunction(n));
        }
        if let Some(s) = self.scc_of(n) {
            let r = self.scc_rc[s];
            if !self.alone(s, r) {
                return Err(LcgError::NotAlone(n));
            }
            self.unplace_dead(n, s, r);
        }
        self.finish_removal(&[n]);
        Ok(())
    }

    /// LLVM main's `markDeadFunction(F)` (not in LLVM 14): the first half of deleting a
    /// function whose body is gone. Every outgoing call edge of `n` becomes a ref edge,
    /// in place; SCCs, RefSCCs and the post-order are untouched (legal because a
    /// function without uses is alone in its SCC). Finish with
    /// [`remove_dead_functions`](Self::remove_dead_functions). Works before and after
    /// [`build_ref_sccs`](Self::build_ref_sccs); populates `n` first.
    ///
    /// # Errors
    /// `UnknownNode`/`RemovedNode`, `LibraryFunction`, `DeadFunctionCalled` (another
    /// node of its SCC calls it, so it still has uses).
    pub fn mark_dead_function(&mut self, n: NodeIdx) -> Result<(), LcgError> {
        self.check_node(n)?;
        if self.libs.contains(&n) {
            return Err(LcgError::LibraryFunction(n));
        }
        if let Some(s) = self.scc_of(n) {
            let caller =
                self.scc_nodes(s).iter().copied().find(|&m| {
                    m != n && self.edges[m].iter().any(|e| e.is_call() && e.target() == n)
                });
            if let Some(caller) = caller {
                return Err(LcgError::DeadFunctionCalled { dead: n, caller });
            }
        }
        self.populate(n);
        for e in self.edges.get_mut(n) {
            if e.is_call() {
                *e = Packed::new(Edge {
                    target: e.target(),
                    kind: EdgeKind::Ref,
                });
            }
        }
        Ok(())
    }

    /// LLVM main's `removeDeadFunctions(ArrayRef<Function *>)` (not in LLVM 14): deletes
    /// functions that have no IR uses and no outgoing call edges (call
    /// [`mark_dead_function`](Self::mark_dead_function) on each first). Stale edges into
    /// them from live functions are fine, and a dead function may still sit in a bigger
    /// RefSCC through its own ref edges. Per RefSCC of dead functions: their edges to
    /// other RefSCCs are removed, their internal edges are removed in one
    /// [`remove_internal_ref_edges`](Self::remove_internal_ref_edges) batch (which may
    /// split the RefSCC; the pieces take its post-order slot), and then each dead
    /// function, now alone in a RefSCC, is taken out. Finally every edge into them is
    /// dropped (see [`is_removed`](Self::is_removed)). Repeated entries count once; a
    /// node never reached from a root (no SCC) is just dropped. An empty list is a
    /// no-op.
    ///
    /// Cost: the RefSCCs involved, plus one pass over every edge list.
    ///
    /// # Errors
    /// `NotBuilt`, `UnknownNode`/`RemovedNode`, `LibraryFunction`, `DeadFunctionCalls`
    /// (an outgoing call edge is left). Nothing changes on error.
    pub fn remove_dead_functions(&mut self, dead: &[NodeIdx]) -> Result<(), LcgError> {
        if dead.is_empty() {
            return Ok(());
        }
        if !self.built {
            return Err(LcgError::NotBuilt);
        }
        let mut dead = dead.to_vec();
        dead.sort_unstable();
        dead.dedup();
        for &n in &dead {
            self.check_node(n)?;
            if self.libs.contains(&n) {
                return Err(LcgError::LibraryFunction(n));
            }
            if let Some(e) = self.edges[n].iter().find(|e| e.is_call()) {
                return Err(LcgError::DeadFunctionCalls {
                    dead: n,
                    callee: e.target(),
                });
            }
        }
        // Group the placed ones by RefSCC (groups touch disjoint RefSCCs, so their order
        // does not change the result; LLVM walks a hash map).
        let mut placed: Vec<(RefSccIdx, NodeIdx)> = dead
            .iter()
            .filter_map(|&n| self.refscc_of(n).map(|r| (r, n)))
            .collect();
        placed.sort_unstable();
        let mut pairs = Vec::new();
        for group in placed.chunk_by(|a, b| a.0 == b.0) {
            let rc = group[0].0;
            pairs.clear();
            for &(_, d) in group {
                let targets: Vec<NodeIdx> = self.edges[d].iter().map(|e| e.target()).collect();
                for t in targets {
                    if self.refscc_of(t) == Some(rc) {
                        pairs.push((d, t));
                    } else {
                        self.remove_edge_internal(d, t);
                    }
                }
            }
            self.remove_internal_ref_edges_unchecked(rc, &pairs);
            for &(_, d) in group {
                let s = self.scc_of[d];
                let r = self.scc_rc[s];
                // A node without out-edges is its own SCC and RefSCC.
                debug_assert!(self.alone(s, r), "dead node not alone after the split");
                if self.alone(s, r) {
                    self.unplace_dead(d, s, r);
                }
            }
        }
        self.finish_removal(&dead);
        Ok(())
    }

    // ------------------------------------------------------------ new functions

    /// Adds a new defined function with no edges and no SCC yet (LLVM's `initNode`).
    /// Put it into the structure with [`add_new_function_into_refscc`],
    /// [`add_new_function_into_scc`], [`add_new_function_as_refscc`] or
    /// [`add_split_ref_recursive_functions`], then add edges.
    ///
    /// [`add_new_function_into_refscc`]: Self::add_new_function_into_refscc
    /// [`add_new_function_into_scc`]: Self::add_new_function_into_scc
    /// [`add_new_function_as_refscc`]: Self::add_new_function_as_refscc
    /// [`add_split_ref_recursive_functions`]: Self::add_split_ref_recursive_functions
    pub fn add_function(&mut self, name: impl Into<String>) -> NodeIdx {
        let name = name.into();
        let n = self.names.push(name.clone());
        self.name_index.entry(name).or_insert(n);
        self.defined.push(true);
        self.populated.push(true);
        self.removed.push(false);
        self.edges.push_list(&[]);
        self.scc_of.push(SccIdx::NONE);
        // Out of every walk until placed (LLVM's DFSNumber -1 once placed).
        self.tarjan.grow(self.num_nodes());
        n
    }

    /// `n` is a live node not placed yet and without edges.
    fn check_new(&self, n: NodeIdx) -> Result<(), LcgError> {
        if !self.built {
            return Err(LcgError::NotBuilt);
        }
        self.check_node(n)?;
        if self.scc_of[n].some().is_some() {
            return Err(LcgError::AlreadyPlaced(n));
        }
        if !self.edges[n].is_empty() {
            return Err(LcgError::HasEdges(n));
        }
        Ok(())
    }

    fn place_new(&mut self, n: NodeIdx) {
        if let Err(e) = self.check_new(n) {
            panic!("placing a new function: {e}");
        }
        self.tarjan.close(n);
    }

    /// Puts new node `n` into a new SCC at the end of RefSCC `rc`'s list (an ilkit
    /// helper; LLVM has no public counterpart). Returns the SCC.
    ///
    /// # Panics
    /// If `n` is not a new, unplaced node without edges, or the graph is not built.
    pub fn add_new_function_into_refscc(&mut self, n: NodeIdx, rc: RefSccIdx) -> SccIdx {
        self.place_new(n);
        let s = self.new_scc(rc, &[n]);
        self.scc_pos[s] = self.rc_sccs.get(rc).len() as u32;
        self.rc_sccs.push(rc, s);
        s
    }

    /// Puts new node `n` into existing SCC `s` (an ilkit helper).
    ///
    /// # Panics
    /// As [`add_new_function_into_refscc`](Self::add_new_function_into_refscc).
    pub fn add_new_function_into_scc(&mut self, n: NodeIdx, s: SccIdx) {
        self.place_new(n);
        self.scc_nodes.push(s, n);
        self.scc_of[n] = s;
    }

    /// Puts new node `n` into a new RefSCC placed just before RefSCC `before` in
    /// post-order (where LLVM's `addSplitFunction` puts a split-off function that
    /// forms no cycle with its original). Returns the new RefSCC.
    ///
    /// # Panics
    /// As [`add_new_function_into_refscc`](Self::add_new_function_into_refscc).
    pub fn add_new_function_as_refscc(&mut self, n: NodeIdx, before: RefSccIdx) -> RefSccIdx {
        self.place_new(n);
        let r = self.new_refscc();
        let s = self.new_scc(r, &[n]);
        self.scc_pos[s] = 0;
        self.rc_sccs.push(r, s);
        self.order.insert_before(&[r], before);
        r
    }

    /// Adds function `name`, split out of `original` (outlining, coroutine splitting),
    /// with outgoing `edges` (only to `original`'s RefSCC or earlier ones, as LLVM
    /// requires), plus the edge `original -> new` of kind `kind`; places it like LLVM's
    /// `addSplitFunction` (14 = main): into `original`'s SCC when `original` calls it
    /// and it calls back into that SCC; else into a new SCC of `original`'s RefSCC when
    /// it has any edge back into that RefSCC (before `original`'s SCC if called, else
    /// last); else into a new RefSCC just before `original`'s. Returns the new node.
    ///
    /// # Panics
    /// On a broken precondition (see [`try_add_split_function`](Self::try_add_split_function)).
    pub fn add_split_function(
        &mut self,
        original: NodeIdx,
        name: impl Into<String>,
        kind: EdgeKind,
        edges: Vec<Edge>,
    ) -> NodeIdx {
        self.try_add_split_function(original, name, kind, edges)
            .unwrap_or_else(|e| panic!("add_split_function: {e}"))
    }

    /// Checks the edges of a function split out of `original`: every target is a live
    /// placed defined node in `original`'s RefSCC or an earlier one, once.
    fn check_split_edges(
        &self,
        original: NodeIdx,
        src: NodeIdx,
        edges: &[Edge],
        is_new: impl Fn(NodeIdx) -> bool,
    ) -> Result<(), LcgError> {
        let orc = self.scc_rc[self.placed(original)?];
        let mut seen = AHashSet::with_capacity(edges.len());
        for e in edges {
            let t = e.target;
            if !seen.insert(t) {
                return Err(LcgError::RepeatedEdge { src, tgt: t });
            }
            self.check_node(t)?;
            if !self.defined[t] {
                return Err(LcgError::EdgeToDeclaration { src, tgt: t });
            }
            if is_new(t) {
                continue;
            }
            let rt = self.scc_rc[self.placed(t)?];
            if rt != orc && self.order.label(rt) > self.order.label(orc) {
                return Err(LcgError::NotDescendant { src, tgt: t });
            }
        }
        Ok(())
    }

    /// Checked [`add_split_function`](Self::add_split_function).
    ///
    /// # Errors
    /// `NotBuilt`, a bad `original`, an edge target that is bad, a declaration
    /// (`EdgeToDeclaration`), repeated (`RepeatedEdge`) or in a later RefSCC than
    /// `original`'s, or (when `kind` is `Call`) a call into a later SCC of
    /// `original`'s RefSCC (`NotDescendant`).
    pub fn try_add_split_function(
        &mut self,
        original: NodeIdx,
        name: impl Into<String>,
        kind: EdgeKind,
        edges: Vec<Edge>,
    ) -> Result<NodeIdx, LcgError> {
        let oc = self.placed(original)?;
        let orc = self.scc_rc[oc];
        let next = NodeIdx::new(self.num_nodes());
        self.check_split_edges(original, next, &edges, |_| false)?;
        if kind == EdgeKind::Call {
            for e in edges.iter().filter(|e| e.is_call()) {
                let ts = self.scc_of[e.target];
                if self.scc_rc[ts] == orc && self.scc_pos[ts] > self.scc_pos[oc] {
                    return Err(LcgError::NotDescendant {
                        src: next,
                        tgt: e.target,
                    });
                }
            }
        }
        let n = self.add_function(name);
        self.tarjan.close(n);
        let same_scc = kind == EdgeKind::Call
            && edges
                .iter()
                .any(|e| e.is_call() && self.scc_of[e.target] == oc);
        if same_scc {
            self.scc_nodes.push(oc, n);
            self.scc_of[n] = oc;
        } else if edges.iter().any(|e| self.refscc_of(e.target) == Some(orc)) {
            let s = self.new_scc(orc, &[n]);
            let at = if kind == EdgeKind::Call {
                self.scc_pos[oc] as usize
            } else {
                self.rc_sccs.get(orc).len()
            };
            self.rc_sccs.edit(orc, |l| l.insert(at, s));
            self.reindex_sccs(orc, at);
        } else {
            let r = self.new_refscc();
            let s = self.new_scc(r, &[n]);
            self.scc_pos[s] = 0;
            self.rc_sccs.push(r, s);
            self.order.insert_before(&[r], orc);
        }
        let packed: Vec<Packed> = edges.iter().map(|&e| Packed::new(e)).collect();
        self.edges.set(n, &packed);
        self.push_edge(original, Edge { target: n, kind });
        Ok(n)
    }

    /// LLVM's `addSplitRefRecursiveFunctions(Original, NewFunctions)` (14 = main):
    /// several functions split out of `original` that reference each other (every new
    /// function has a ref edge to every other one). Each `(node, edges)` names a node
    /// made by [`add_function`](Self::add_function) (not placed, no edges yet) and its
    /// outgoing edges: ref edges to the other new functions, any edges to `original`'s
    /// RefSCC or earlier ones. Adds a ref edge `original -> new` for each (in order).
    /// If any new function has an edge into `original`'s RefSCC, all of them join that
    /// RefSCC; otherwise they form one new RefSCC just before it in post-order. Either
    /// way each gets its own one-node SCC, appended in the given order.
    ///
    /// # Errors
    /// `NoFunctions`, `NotBuilt`, a bad `original`; a new node that is bad,
    /// `AlreadyPlaced`, `HasEdges` or listed twice (`RepeatedEdge`); a bad edge target as
    /// for [`try_add_split_function`](Self::try_add_split_function); `NotRefClique` (a
    /// missing ref edge between two new functions, or a call edge between them).
    /// Nothing changes on error.
    pub fn add_split_ref_recursive_functions(
        &mut self,
        original: NodeIdx,
        new_fns: &[(NodeIdx, Vec<Edge>)],
    ) -> Result<(), LcgError> {
        if new_fns.is_empty() {
            return Err(LcgError::NoFunctions);
        }
        let oc = self.placed(original)?;
        let orc = self.scc_rc[oc];
        let is_new = |t: NodeIdx| new_fns.iter().any(|(n, _)| *n == t);
        for (k, (n, edges)) in new_fns.iter().enumerate() {
            self.check_new(*n)?;
            if new_fns[..k].iter().any(|(m, _)| m == n) {
                return Err(LcgError::RepeatedEdge {
                    src: original,
                    tgt: *n,
                });
            }
            self.check_split_edges(original, *n, edges, is_new)?;
            for e in edges {
                if is_new(e.target) && (e.is_call() || e.target == *n) {
                    return Err(LcgError::NotRefClique {
                        src: *n,
                        tgt: e.target,
                    });
                }
            }
        }
        for (a, ea) in new_fns {
            for (b, _) in new_fns {
                if a != b && !ea.iter().any(|e| e.target == *b) {
                    return Err(LcgError::NotRefClique { src: *a, tgt: *b });
                }
            }
        }
        let mut connected = false;
        for (n, edges) in new_fns {
            let packed: Vec<Packed> = edges.iter().map(|&e| Packed::new(e)).collect();
            self.edges.set(*n, &packed);
            self.tarjan.close(*n);
            self.push_edge(
                original,
                Edge {
                    target: *n,
                    kind: EdgeKind::Ref,
                },
            );
            connected |= edges
                .iter()
                .any(|e| !is_new(e.target) && self.scc_rc[self.scc_of[e.target]] == orc);
        }
        let rc = if connected {
            orc
        } else {
            let r = self.new_refscc();
            self.order.insert_before(&[r], orc);
            r
        };
        for (n, _) in new_fns {
            let s = self.new_scc(rc, &[*n]);
            self.scc_pos[s] = self.rc_sccs.get(rc).len() as u32;
            self.rc_sccs.push(rc, s);
        }
        Ok(())
    }

    /// Checks every invariant listed in the module docs. Reports all problems; never
    /// panics.
    pub fn verify(&self) -> Vec<VerifyError> {
        let mut errs = Vec::new();
        let mut err = |m: String| errs.push(VerifyError(m));
        let n = self.num_nodes();
        for (node, list) in self.edges.iter_enumerated() {
            for e in list {
                if e.target().idx() >= n {
                    err(format!("edge {} -> {} dangles", node.0, e.target().0));
                }
            }
        }
        if !self.built {
            return errs;
        }
        for e in self.order.check() {
            err(e);
        }
        let num_rc = self.rc_sccs.num_lists();
        for r in self.order.iter() {
            if r.idx() >= num_rc || self.refscc_sccs(r).is_empty() {
                err(format!("{r} is empty"));
            }
        }
        let rc_of = |s: SccIdx| self.scc_rc.get(s).copied().unwrap_or(RefSccIdx::NONE);
        let pos_of = |s: SccIdx| self.scc_pos.get(s).copied().unwrap_or(NO_POS);
        let scc_of = |x: NodeIdx| self.scc_of.get(x).copied().unwrap_or(SccIdx::NONE);
        for r in self.order.iter() {
            if r.idx() >= num_rc {
                continue;
            }
            for (k, &s) in self.refscc_sccs(r).iter().enumerate() {
                if rc_of(s) != r || pos_of(s) != k as u32 {
                    err(format!(
                        "{s} in {r} at {k} has refscc/pos {}/{}",
                        rc_of(s),
                        pos_of(s)
                    ));
                }
                if s.idx() >= self.scc_nodes.num_lists() || self.scc_nodes(s).is_empty() {
                    err(format!("{s} is empty"));
                    continue;
                }
                for &x in self.scc_nodes(s) {
                    if scc_of(x) != s {
                        err(format!(
                            "node {} in {s} maps to {}",
                            self.name(x),
                            scc_of(x)
                        ));
                    }
                }
            }
        }
        // edge direction rules
        for a in self.nodes() {
            let sa = self.scc_of[a];
            if sa.is_none() {
                continue;
            }
            let ra = rc_of(sa);
            for e in self.cached_edges(a) {
                let sb = scc_of(e.target);
                if sb.is_none() {
                    err(format!(
                        "edge {} -> {} leaves the built graph",
                        self.name(a),
                        self.name(e.target)
                    ));
                    continue;
                }
                let rb = rc_of(sb);
                if self.order.label(rb) > self.order.label(ra) {
                    err(format!(
                        "edge {} -> {} goes to a later RefSCC",
                        self.name(a),
                        self.name(e.target)
                    ));
                }
                if e.is_call() && ra == rb && pos_of(sb) > pos_of(sa) {
                    err(format!(
                        "call {} -> {} goes to a later SCC",
                        self.name(a),
                        self.name(e.target)
                    ));
                }
            }
        }
        // strong connectivity: every SCC over its call edges, every RefSCC over all edges
        for r in self.order.iter() {
            if r.idx() >= num_rc {
                continue;
            }
            for &s in self.refscc_sccs(r) {
                if s.idx() < self.scc_nodes.num_lists()
                    && !self.strongly_connected(self.scc_nodes(s), true)
                {
                    err(format!("{s} is not strongly connected over call edges"));
                }
            }
            let nodes: Vec<NodeIdx> = self.refscc_nodes(r).collect();
            if !self.strongly_connected(&nodes, false) {
                err(format!("{r} is not strongly connected"));
            }
        }
        errs
    }

    /// Whether `nodes` form one strongly connected set using edges inside the set.
    fn strongly_connected(&self, nodes: &[NodeIdx], calls_only: bool) -> bool {
        if nodes.len() <= 1 {
            return true;
        }
        let set: AHashSet<NodeIdx> = nodes.iter().copied().collect();
        let reach = |forward: bool| -> usize {
            let mut seen = AHashSet::new();
            seen.insert(nodes[0]);
            let mut stack = vec![nodes[0]];
            while let Some(x) = stack.pop() {
                if forward {
                    for e in self.cached_edges(x) {
                        if (!calls_only || e.is_call())
                            && set.contains(&e.target)
                            && seen.insert(e.target)
                        {
                            stack.push(e.target);
                        }
                    }
                } else {
                    for &y in nodes {
                        if !seen.contains(&y)
                            && self.edges[y]
                                .iter()
                                .any(|e| e.target() == x && (!calls_only || e.is_call()))
                        {
                            seen.insert(y);
                            stack.push(y);
                        }
                    }
                }
            }
            seen.len()
        };
        reach(true) == nodes.len() && reach(false) == nodes.len()
    }
}
