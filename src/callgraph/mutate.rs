//! Incremental mutation of a built [`LazyCallGraph`], with LLVM 14's semantics
//! (`LazyCallGraph::RefSCC::switchInternalEdgeToCall` and friends): the same SCC and
//! RefSCC structure, the same post-order updates, the same node orders.
//!
//! Each operation touches only the SCCs of one RefSCC (edge kind switches, SCC merges
//! and splits) or the RefSCCs between the two endpoints in post-order (RefSCC merges).
//! Splits are scoped runs of the graph's one [`crate::graph::Tarjan`]: the nodes of the
//! old SCC / RefSCC are opened, every other node stays finished, so a split walks only
//! the nodes and edges it is about.

use super::{
    AllEdges, CallEdges, Edge, EdgeKind, LazyCallGraph, NodeIdx, Packed, RefSccIdx, SccIdx,
    VerifyError, NO_POS,
};
use crate::graph::CompIdx;
use crate::idx::{Idx, IndexVec};
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

impl LazyCallGraph {
    fn set_edge_kind(&mut self, a: NodeIdx, b: NodeIdx, kind: EdgeKind) {
        let e = self.edges[a].iter_mut().find(|e| e.target() == b);
        let e = e.unwrap_or_else(|| panic!("no edge {} -> {}", self.names[a], self.names[b]));
        *e = Packed::new(Edge { target: b, kind });
    }

    fn assert_built(&self) {
        assert!(self.built, "mutations need build_ref_sccs() first");
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
    /// whether a new cycle formed.
    ///
    /// # Panics
    /// If there is no such ref edge or the endpoints are in different RefSCCs.
    pub fn switch_internal_edge_to_call(
        &mut self,
        src: NodeIdx,
        tgt: NodeIdx,
        mut merge_cb: impl FnMut(&[SccIdx]),
    ) -> bool {
        self.assert_built();
        assert_eq!(
            self.edge(src, tgt).map(|e| e.kind),
            Some(EdgeKind::Ref),
            "must start with a ref edge"
        );
        let ss = self.scc_of[src];
        let ts = self.scc_of[tgt];
        let rc = self.scc_rc[ss];
        assert_eq!(
            rc, self.scc_rc[ts],
            "switch_internal_edge_to_call across RefSCCs"
        );
        if ss == ts || self.scc_pos[ts] < self.scc_pos[ss] {
            self.set_edge_kind(src, tgt, EdgeKind::Call);
            return false;
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
        merge_cb(&range[start..end]);
        if start == end {
            self.set_edge_kind(src, tgt, EdgeKind::Call);
            return false;
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
        true
    }

    /// Turns the call edge `src -> tgt` (both in one RefSCC) into a ref edge. If both
    /// were in one SCC it may split: `tgt` keeps the old SCC, the new SCCs are inserted
    /// before it (Tarjan over call edges restricted to the old SCC, with `tgt` as the
    /// sink every node that still reaches it is absorbed into). Returns the new SCCs in
    /// post-order (empty when nothing split).
    ///
    /// # Panics
    /// If there is no such call edge or the endpoints are in different RefSCCs.
    pub fn switch_internal_edge_to_ref(&mut self, src: NodeIdx, tgt: NodeIdx) -> Vec<SccIdx> {
        self.assert_built();
        assert_eq!(
            self.edge(src, tgt).map(|e| e.kind),
            Some(EdgeKind::Call),
            "must start with a call edge"
        );
        let old = self.scc_of[tgt];
        let rc = self.scc_rc[old];
        assert_eq!(
            Some(rc),
            self.refscc_of(src),
            "switch_internal_edge_to_ref across RefSCCs"
        );
        self.set_edge_kind(src, tgt, EdgeKind::Ref);
        if self.scc_of[src] != old {
            return Vec::new();
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
        new_sccs
    }

    /// Turns the ref edge `src -> tgt` into a call edge when `tgt` is in another
    /// (necessarily earlier) RefSCC. No structure changes.
    ///
    /// # Panics
    /// If there is no such ref edge or the endpoints share a RefSCC.
    pub fn switch_outgoing_edge_to_call(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.switch_outgoing_edge(src, tgt, EdgeKind::Ref, EdgeKind::Call);
    }

    /// Turns the call edge `src -> tgt` into a ref edge when `tgt` is in another
    /// RefSCC. No structure changes.
    ///
    /// # Panics
    /// If there is no such call edge or the endpoints share a RefSCC.
    pub fn switch_outgoing_edge_to_ref(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.switch_outgoing_edge(src, tgt, EdgeKind::Call, EdgeKind::Ref);
    }

    /// Flips an edge between two RefSCCs from `from` to `to`: neither SCCs nor RefSCCs
    /// change, since only edges inside a RefSCC shape either.
    fn switch_outgoing_edge(&mut self, src: NodeIdx, tgt: NodeIdx, from: EdgeKind, to: EdgeKind) {
        self.assert_built();
        assert_eq!(
            self.edge(src, tgt).map(|e| e.kind),
            Some(from),
            "must start with a {from:?} edge"
        );
        assert_ne!(
            self.refscc_of(src),
            self.refscc_of(tgt),
            "switching an outgoing edge to {to:?} inside a RefSCC"
        );
        self.set_edge_kind(src, tgt, to);
    }

    /// Adds a ref edge between two nodes of one RefSCC. No structure changes.
    ///
    /// # Panics
    /// If the edge exists or the endpoints are in different RefSCCs.
    pub fn insert_internal_ref_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.assert_built();
        assert!(self.edge(src, tgt).is_none(), "edge already present");
        assert_eq!(
            self.refscc_of(src),
            self.refscc_of(tgt),
            "insert_internal_ref_edge across RefSCCs"
        );
        self.push_edge(
            src,
            Edge {
                target: tgt,
                kind: EdgeKind::Ref,
            },
        );
    }

    /// Adds an edge from `src` to a node of an earlier RefSCC (a descendant). No
    /// structure changes.
    ///
    /// # Panics
    /// If the edge exists or `tgt`'s RefSCC is not earlier in post-order than `src`'s.
    pub fn insert_outgoing_edge(&mut self, src: NodeIdx, tgt: NodeIdx, kind: EdgeKind) {
        self.assert_built();
        assert!(self.edge(src, tgt).is_none(), "edge already present");
        let (rs, rt) = (
            self.refscc_of(src).expect("src in a RefSCC"),
            self.refscc_of(tgt).expect("tgt in a RefSCC"),
        );
        assert!(
            self.order.label(rt) < self.order.label(rs),
            "insert_outgoing_edge must go to a descendant"
        );
        self.push_edge(src, Edge { target: tgt, kind });
    }

    /// Adds a call edge `src -> tgt` (or upgrades an existing ref edge) where the edge
    /// changes no SCC: `tgt` is in `src`'s SCC, an earlier SCC of its RefSCC, or an
    /// earlier RefSCC (LLVM's `insertTrivialCallEdge`).
    ///
    /// # Panics
    /// If the edge would go to a later SCC or RefSCC.
    pub fn insert_trivial_call_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.assert_built();
        let (ss, ts) = (self.scc_of[src], self.scc_of[tgt]);
        let (rs, rt) = (self.scc_rc[ss], self.scc_rc[ts]);
        let trivial = if rs == rt {
            self.scc_pos[ts] <= self.scc_pos[ss]
        } else {
            self.order.label(rt) < self.order.label(rs)
        };
        assert!(trivial, "insert_trivial_call_edge: edge is not trivial");
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
    }

    /// Adds a ref edge `src -> tgt` (no-op if any edge exists) where `tgt` is in
    /// `src`'s RefSCC or an earlier one (LLVM's `insertTrivialRefEdge`).
    ///
    /// # Panics
    /// If `tgt`'s RefSCC is later than `src`'s.
    pub fn insert_trivial_ref_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.assert_built();
        let (rs, rt) = (
            self.refscc_of(src).expect("src in a RefSCC"),
            self.refscc_of(tgt).expect("tgt in a RefSCC"),
        );
        assert!(
            rs == rt || self.order.label(rt) < self.order.label(rs),
            "insert_trivial_ref_edge: edge is not trivial"
        );
        if self.edge(src, tgt).is_none() {
            self.push_edge(
                src,
                Edge {
                    target: tgt,
                    kind: EdgeKind::Ref,
                },
            );
        }
    }

    /// Adds an edge before [`build_ref_sccs`](Self::build_ref_sccs) (LLVM's
    /// `insertEdge`); populates `src` first.
    ///
    /// # Panics
    /// After the SCCs are built, or if the edge exists.
    pub fn insert_edge(&mut self, src: NodeIdx, tgt: NodeIdx, kind: EdgeKind) {
        assert!(
            !self.built,
            "insert_edge cannot be called after SCCs are built"
        );
        self.populate(src);
        assert!(self.edge(src, tgt).is_none(), "edge already present");
        self.push_edge(src, Edge { target: tgt, kind });
    }

    /// Removes an edge before [`build_ref_sccs`](Self::build_ref_sccs) (LLVM's
    /// `removeEdge`).
    ///
    /// # Panics
    /// After the SCCs are built, or if there is no such edge.
    pub fn remove_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        assert!(
            !self.built,
            "remove_edge cannot be called after SCCs are built"
        );
        self.populate(src);
        self.remove_edge_internal(src, tgt);
    }

    /// Renames node `n` (LLVM's `replaceNodeFunction`: the function body moved to a new
    /// function with the same edges).
    pub fn replace_node_function(&mut self, n: NodeIdx, new_name: impl Into<String>) {
        let new_name = new_name.into();
        if self.name_index.get(&self.names[n]) == Some(&n) {
            self.name_index.remove(&self.names[n]);
        }
        self.name_index.insert(new_name.clone(), n);
        self.names[n] = new_name;
    }

    /// Removes the edge `src -> tgt` whose endpoints are in different RefSCCs. No
    /// structure changes.
    ///
    /// # Panics
    /// If there is no such edge or the endpoints share a RefSCC.
    pub fn remove_outgoing_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.assert_built();
        assert_ne!(
            self.refscc_of(src),
            self.refscc_of(tgt),
            "remove_outgoing_edge inside a RefSCC"
        );
        self.remove_edge_internal(src, tgt);
    }

    fn remove_edge_internal(&mut self, src: NodeIdx, tgt: NodeIdx) {
        let k = self.edges[src].iter().position(|e| e.target() == tgt);
        let k = k.unwrap_or_else(|| panic!("no edge {} -> {}", self.names[src], self.names[tgt]));
        self.edges.remove_at(src, k);
    }

    /// Removes ref edges `src -> t` for each `t` in `targets` (all in `src`'s RefSCC).
    /// The RefSCC may split: the new RefSCCs replace it at its post-order position.
    /// Returns the new RefSCCs in post-order (empty when the RefSCC stays whole).
    ///
    /// # Panics
    /// If an edge is missing, is a call edge, or leaves the RefSCC.
    pub fn remove_internal_ref_edges(
        &mut self,
        src: NodeIdx,
        targets: &[NodeIdx],
    ) -> Vec<RefSccIdx> {
        self.assert_built();
        let rc = self.refscc_of(src).expect("src in a RefSCC");
        for &t in targets {
            assert_eq!(
                self.edge(src, t).map(|e| e.kind),
                Some(EdgeKind::Ref),
                "must remove a ref edge"
            );
            assert_eq!(
                self.refscc_of(t),
                Some(rc),
                "remove_internal_ref_edges target outside the RefSCC"
            );
            self.remove_edge_internal(src, t);
        }
        if targets.iter().all(|&t| t == src) {
            return Vec::new();
        }
        let sc = self.scc_of[src];
        if targets.iter().all(|&t| self.scc_of[t] == sc) {
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
                c.expect("every node of the RefSCC is walked").idx()
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
    /// RefSCCs (now dead).
    ///
    /// # Panics
    /// If the edge exists or `src`'s RefSCC is not earlier than `tgt`'s.
    pub fn insert_incoming_ref_edge(&mut self, src: NodeIdx, tgt: NodeIdx) -> Vec<RefSccIdx> {
        self.assert_built();
        assert!(self.edge(src, tgt).is_none(), "edge already present");
        let this = self.refscc_of(tgt).expect("tgt in a RefSCC");
        let sc = self.refscc_of(src).expect("src in a RefSCC");
        assert!(
            self.order.label(sc) < self.order.label(this),
            "insert_incoming_ref_edge: edge is not incoming"
        );
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
        merged
    }

    /// Takes dead node `n` (alone in SCC `s`, RefSCC `r`) out of the structure.
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

    /// Removes a function with no remaining uses: it must be alone in its SCC and
    /// RefSCC and no edge may target it (a library function cannot be removed).
    pub fn remove_dead_function(&mut self, n: NodeIdx) -> Result<(), VerifyError> {
        self.assert_built();
        if self.libs.contains(&n) {
            return Err(VerifyError(format!(
                "cannot remove library function {}",
                self.name(n)
            )));
        }
        if let Some(src) = self
            .nodes()
            .find(|&m| self.edges[m].iter().any(|e| e.target() == n))
        {
            return Err(VerifyError(format!(
                "{} is still used by {}",
                self.name(n),
                self.name(src)
            )));
        }
        self.entry.retain(|&x| x != n);
        self.edges.clear(n);
        self.removed[n] = true;
        let Some(s) = self.scc_of(n) else {
            return Ok(());
        };
        let r = self.scc_rc[s];
        if !self.alone(s, r) {
            return Err(VerifyError(format!(
                "dead function {} is not alone in its SCC/RefSCC",
                self.name(n)
            )));
        }
        self.unplace_dead(n, s, r);
        Ok(())
    }

    /// Removes several dead functions with one scan for remaining uses (O(N + E) in
    /// all, where [`remove_dead_function`](Self::remove_dead_function) scans per node).
    /// A function that is still used (by any node), is a library function
    /// or is not alone in its SCC/RefSCC is left in place and reported.
    pub fn remove_dead_functions(&mut self, ns: &[NodeIdx]) -> Vec<VerifyError> {
        self.assert_built();
        let mut errs = Vec::new();
        let mut used_by: IndexVec<NodeIdx, NodeIdx> =
            IndexVec::from_elem_n(NodeIdx::NONE, self.num_nodes());
        for (m, list) in self.edges.iter_enumerated() {
            for e in list {
                if used_by[e.target()].is_none() {
                    used_by[e.target()] = m;
                }
            }
        }
        let mut removed = IndexVec::from_elem_n(false, self.num_nodes());
        for &n in ns {
            if self.removed[n] {
                continue;
            }
            if let Some(u) = used_by[n].some() {
                errs.push(VerifyError(format!(
                    "{} is still used by {}",
                    self.name(n),
                    self.name(u)
                )));
                continue;
            }
            if self.libs.contains(&n) {
                errs.push(VerifyError(format!(
                    "cannot remove library function {}",
                    self.name(n)
                )));
                continue;
            }
            if let Some(s) = self.scc_of(n) {
                let r = self.scc_rc[s];
                if !self.alone(s, r) {
                    errs.push(VerifyError(format!(
                        "dead function {} is not alone in its SCC/RefSCC",
                        self.name(n)
                    )));
                    continue;
                }
                self.unplace_dead(n, s, r);
            }
            self.edges.clear(n);
            self.removed[n] = true;
            removed[n] = true;
        }
        self.entry.retain(|&x| !removed[x]);
        errs
    }

    /// Adds a new defined function with no edges and no SCC yet (LLVM's `initNode`).
    /// Put it into the structure with [`add_new_function_into_refscc`],
    /// [`add_new_function_into_scc`] or [`add_new_function_as_refscc`], then add edges.
    ///
    /// [`add_new_function_into_refscc`]: Self::add_new_function_into_refscc
    /// [`add_new_function_into_scc`]: Self::add_new_function_into_scc
    /// [`add_new_function_as_refscc`]: Self::add_new_function_as_refscc
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

    fn place_new(&mut self, n: NodeIdx) {
        assert!(self.scc_of[n].is_none(), "node already placed");
        assert!(
            self.edges[n].is_empty(),
            "a new node gets its edges after placement"
        );
        self.tarjan.close(n);
    }

    /// Puts new node `n` into a new SCC at the end of RefSCC `rc`'s list (LLVM's
    /// `addNewFunctionIntoRefSCC`). Returns the SCC.
    pub fn add_new_function_into_refscc(&mut self, n: NodeIdx, rc: RefSccIdx) -> SccIdx {
        self.assert_built();
        self.place_new(n);
        let s = self.new_scc(rc, &[n]);
        self.scc_pos[s] = self.rc_sccs.get(rc).len() as u32;
        self.rc_sccs.push(rc, s);
        s
    }

    /// Puts new node `n` into existing SCC `s` (LLVM's `addNewFunctionIntoSCC`).
    pub fn add_new_function_into_scc(&mut self, n: NodeIdx, s: SccIdx) {
        self.assert_built();
        self.place_new(n);
        self.scc_nodes.push(s, n);
        self.scc_of[n] = s;
    }

    /// Puts new node `n` into a new RefSCC placed just before RefSCC `before` in
    /// post-order (where LLVM's `addSplitFunction` puts a split-off function that
    /// forms no cycle with its original). Returns the new RefSCC.
    pub fn add_new_function_as_refscc(&mut self, n: NodeIdx, before: RefSccIdx) -> RefSccIdx {
        self.assert_built();
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
    /// `addSplitFunction`: into `original`'s SCC when `original` calls it and it calls
    /// back into that SCC; else into a new SCC of `original`'s RefSCC when it has any
    /// edge back into that RefSCC (before `original`'s SCC if called, else last); else
    /// into a new RefSCC just before `original`'s. Returns the new node.
    ///
    /// # Panics
    /// If `original` is not in the built graph or an edge target repeats.
    pub fn add_split_function(
        &mut self,
        original: NodeIdx,
        name: impl Into<String>,
        kind: EdgeKind,
        edges: Vec<Edge>,
    ) -> NodeIdx {
        self.assert_built();
        let oc = self.scc_of(original).expect("original in an SCC");
        let orc = self.scc_rc[oc];
        let n = self.add_function(name);
        self.tarjan.close(n);
        let mut seen = AHashSet::new();
        for e in &edges {
            assert!(seen.insert(e.target), "edge target repeats");
        }
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
        n
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
