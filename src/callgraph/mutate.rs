//! Incremental mutation of a built [`LazyCallGraph`], with LLVM 14's semantics
//! (`LazyCallGraph::RefSCC::switchInternalEdgeToCall` and friends): the same SCC and
//! RefSCC structure, the same post-order updates, the same node orders.
//!
//! Each operation touches only the SCCs of one RefSCC (edge kind switches, SCC merges
//! and splits) or the RefSCCs between the two endpoints in post-order (RefSCC merges);
//! a RefSCC split or merge also shifts the post-order position table after the
//! affected range (a `memmove` plus an index refresh, as upstream).

use super::{Edge, EdgeKind, LazyCallGraph, NodeIdx, RefSccIdx, SccIdx, VerifyError};
use crate::graph::NONE;
use ahash::{AHashMap, AHashSet};

/// LLVM's `updatePostorderSequenceForEdgeInsertion` on the part of a post-order that
/// runs from the source component (`range[0]`) to the target (`range[last]`).
/// `has_edge_into(c, set)` says whether component `c` has an edge (of the relevant
/// kind) into `set`; `succs(c, out)` lists the components `c` has edges into. The range
/// is reordered in place so the post-order stays valid; returns the local range
/// `[start, end)` of components that now form a cycle with the target and must merge
/// into it (empty when none). Cost: proportional to the range and its edges.
fn update_postorder_for_insertion(
    range: &mut [u32],
    mut has_edge_into: impl FnMut(u32, &AHashSet<u32>) -> bool,
    mut succs: impl FnMut(u32, &mut Vec<u32>),
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
    let (mut a, mut b): (Vec<u32>, Vec<u32>) = range.iter().partition(|c| !set.contains(c));
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
        let local: AHashMap<u32, usize> = range.iter().enumerate().map(|(k, &c)| (c, k)).collect();
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
        let (mut a, mut b): (Vec<u32>, Vec<u32>) =
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
        let e = self.edges[a as usize].iter_mut().find(|e| e.target == b);
        let e = e.unwrap_or_else(|| {
            panic!(
                "no edge {} -> {}",
                self.names[a as usize], self.names[b as usize]
            )
        });
        e.kind = kind;
    }

    fn assert_built(&self) {
        assert!(self.built, "mutations need build_ref_sccs() first");
    }

    fn reindex_sccs(&mut self, rc: RefSccIdx, from: usize) {
        for k in from..self.rc_sccs[rc as usize].len() {
            let s = self.rc_sccs[rc as usize][k];
            self.scc_pos[s as usize] = k as u32;
        }
    }

    fn reindex_sccs_range(&mut self, rc: RefSccIdx, from: usize, to: usize) {
        for k in from..to {
            let s = self.rc_sccs[rc as usize][k];
            self.scc_pos[s as usize] = k as u32;
        }
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
        let ss = self.scc_of[src as usize];
        let ts = self.scc_of[tgt as usize];
        let rc = self.scc_rc[ss as usize];
        assert_eq!(
            rc, self.scc_rc[ts as usize],
            "switch_internal_edge_to_call across RefSCCs"
        );
        if ss == ts || self.scc_pos[ts as usize] < self.scc_pos[ss as usize] {
            self.set_edge_kind(src, tgt, EdgeKind::Call);
            return false;
        }
        let si = self.scc_pos[ss as usize] as usize;
        let ti = self.scc_pos[ts as usize] as usize;
        let mut range = self.rc_sccs[rc as usize][si..=ti].to_vec();
        let (start, end) = {
            let this = &*self;
            update_postorder_for_insertion(
                &mut range,
                |c, set| {
                    this.scc_nodes[c as usize].iter().any(|&n| {
                        this.edges[n as usize]
                            .iter()
                            .any(|e| e.is_call() && set.contains(&this.scc_of[e.target as usize]))
                    })
                },
                |c, out| {
                    for &n in &this.scc_nodes[c as usize] {
                        for e in &this.edges[n as usize] {
                            if e.is_call() {
                                out.push(this.scc_of[e.target as usize]);
                            }
                        }
                    }
                },
            )
        };
        self.rc_sccs[rc as usize][si..=ti].copy_from_slice(&range);
        self.reindex_sccs_range(rc, si, ti + 1);
        // As upstream, the callback also runs (with an empty slice) when only the
        // post-order had to be fixed.
        merge_cb(&range[start..end]);
        if start == end {
            self.set_edge_kind(src, tgt, EdgeKind::Call);
            return false;
        }
        for &c in &range[start..end] {
            let nodes = std::mem::take(&mut self.scc_nodes[c as usize]);
            for &n in &nodes {
                self.scc_of[n as usize] = ts;
            }
            self.scc_nodes[ts as usize].extend(nodes);
            self.scc_pos[c as usize] = NONE;
            self.scc_rc[c as usize] = NONE;
        }
        self.rc_sccs[rc as usize].drain(si + start..si + end);
        self.reindex_sccs(rc, si + start);
        self.set_edge_kind(src, tgt, EdgeKind::Call);
        true
    }

    /// Turns the call edge `src -> tgt` (both in one RefSCC) into a ref edge. If both
    /// were in one SCC it may split: `tgt` keeps the old SCC, the new SCCs are inserted
    /// before it (Tarjan over call edges restricted to the old SCC). Returns the new
    /// SCCs in post-order (empty when nothing split).
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
        let old = self.scc_of[tgt as usize];
        let rc = self.scc_rc[old as usize];
        assert_eq!(
            rc,
            self.refscc_of(src).unwrap_or(NONE),
            "switch_internal_edge_to_ref across RefSCCs"
        );
        self.set_edge_kind(src, tgt, EdgeKind::Ref);
        if self.scc_of[src as usize] != old {
            return Vec::new();
        }
        let worklist = std::mem::take(&mut self.scc_nodes[old as usize]);
        for &n in &worklist {
            self.dfs[n as usize] = 0;
            self.low[n as usize] = 0;
            self.scc_of[n as usize] = NONE;
        }
        self.dfs[tgt as usize] = -1;
        self.low[tgt as usize] = -1;
        self.scc_nodes[old as usize].push(tgt);
        self.scc_of[tgt as usize] = old;
        let mut new_sccs = Vec::new();
        let mut dfs_stack: Vec<(NodeIdx, u32)> = Vec::new();
        let mut pending: Vec<NodeIdx> = Vec::new();
        for &root in &worklist {
            if self.dfs[root as usize] != 0 {
                continue;
            }
            self.dfs[root as usize] = 1;
            self.low[root as usize] = 1;
            let mut next = 2i32;
            dfs_stack.push((root, 0));
            while let Some((mut n, mut i)) = dfs_stack.pop() {
                let mut pulled = false;
                while let Some(&e) = self.edges[n as usize].get(i as usize) {
                    if !e.is_call() {
                        i += 1;
                        continue;
                    }
                    let c = e.target as usize;
                    if self.dfs[c] == 0 {
                        dfs_stack.push((n, i));
                        self.dfs[c] = next;
                        self.low[c] = next;
                        next += 1;
                        n = e.target;
                        i = 0;
                        continue;
                    }
                    if self.dfs[c] == -1 {
                        if self.scc_of[c] == old {
                            // n reaches the target, which reaches everything: the whole
                            // DFS and pending stacks join the old SCC.
                            let mut add = vec![n];
                            add.append(&mut pending);
                            add.extend(dfs_stack.drain(..).rev().map(|(x, _)| x));
                            for &x in &add {
                                self.dfs[x as usize] = -1;
                                self.low[x as usize] = -1;
                                self.scc_of[x as usize] = old;
                            }
                            self.scc_nodes[old as usize].extend(add);
                            pulled = true;
                            break;
                        }
                        i += 1;
                        continue;
                    }
                    if self.low[c] < self.low[n as usize] {
                        self.low[n as usize] = self.low[c];
                    }
                    i += 1;
                }
                if pulled {
                    break;
                }
                pending.push(n);
                let root_dfs = self.dfs[n as usize];
                if self.low[n as usize] != root_dfs {
                    continue;
                }
                let mut nodes = Vec::new();
                while let Some(&top) = pending.last() {
                    if self.dfs[top as usize] < root_dfs {
                        break;
                    }
                    pending.pop();
                    self.dfs[top as usize] = -1;
                    self.low[top as usize] = -1;
                    nodes.push(top);
                }
                let s = self.new_scc(rc, nodes);
                new_sccs.push(s);
            }
        }
        let old_idx = self.scc_pos[old as usize] as usize;
        let list = &mut self.rc_sccs[rc as usize];
        list.splice(old_idx..old_idx, new_sccs.iter().copied());
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
        self.edges[src as usize].push(Edge {
            target: tgt,
            kind: EdgeKind::Ref,
        });
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
        self.edges[src as usize].push(Edge { target: tgt, kind });
    }

    /// Adds a call edge `src -> tgt` (or upgrades an existing ref edge) where the edge
    /// changes no SCC: `tgt` is in `src`'s SCC, an earlier SCC of its RefSCC, or an
    /// earlier RefSCC (LLVM's `insertTrivialCallEdge`).
    ///
    /// # Panics
    /// If the edge would go to a later SCC or RefSCC.
    pub fn insert_trivial_call_edge(&mut self, src: NodeIdx, tgt: NodeIdx) {
        self.assert_built();
        let (ss, ts) = (self.scc_of[src as usize], self.scc_of[tgt as usize]);
        let (rs, rt) = (self.scc_rc[ss as usize], self.scc_rc[ts as usize]);
        let trivial = if rs == rt {
            self.scc_pos[ts as usize] <= self.scc_pos[ss as usize]
        } else {
            self.order.label(rt) < self.order.label(rs)
        };
        assert!(trivial, "insert_trivial_call_edge: edge is not trivial");
        match self.edge(src, tgt) {
            Some(_) => self.set_edge_kind(src, tgt, EdgeKind::Call),
            None => self.edges[src as usize].push(Edge {
                target: tgt,
                kind: EdgeKind::Call,
            }),
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
            self.edges[src as usize].push(Edge {
                target: tgt,
                kind: EdgeKind::Ref,
            });
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
        self.edges[src as usize].push(Edge { target: tgt, kind });
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
        if self.name_index.get(&self.names[n as usize]) == Some(&n) {
            self.name_index.remove(&self.names[n as usize]);
        }
        self.name_index.insert(new_name.clone(), n);
        self.names[n as usize] = new_name;
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
        let list = &mut self.edges[src as usize];
        let k = list.iter().position(|e| e.target == tgt);
        let k = k.unwrap_or_else(|| {
            panic!(
                "no edge {} -> {}",
                self.names[src as usize], self.names[tgt as usize]
            )
        });
        list.remove(k);
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
        let sc = self.scc_of[src as usize];
        if targets.iter().all(|&t| self.scc_of[t as usize] == sc) {
            return Vec::new();
        }
        let mut worklist: Vec<NodeIdx> = Vec::new();
        for &s in &self.rc_sccs[rc as usize] {
            for &n in &self.scc_nodes[s as usize] {
                self.dfs[n as usize] = 0;
                self.low[n as usize] = 0;
                worklist.push(n);
            }
        }
        let total = worklist.len();
        let mut post_number = 0i32;
        let mut dfs_stack: Vec<(NodeIdx, u32)> = Vec::new();
        let mut pending: Vec<NodeIdx> = Vec::new();
        // Component number per node, stored in `low` once a node is done (as upstream).
        while let Some(root) = worklist.pop() {
            if self.dfs[root as usize] != 0 {
                continue;
            }
            self.dfs[root as usize] = 1;
            self.low[root as usize] = 1;
            let mut next = 2i32;
            dfs_stack.push((root, 0));
            while let Some((mut n, mut i)) = dfs_stack.pop() {
                while let Some(&e) = self.edges[n as usize].get(i as usize) {
                    let c = e.target as usize;
                    if self.dfs[c] == 0 {
                        dfs_stack.push((n, i));
                        self.dfs[c] = next;
                        self.low[c] = next;
                        next += 1;
                        n = e.target;
                        i = 0;
                        continue;
                    }
                    if self.dfs[c] != -1 && self.low[c] >= 0 && self.low[c] < self.low[n as usize] {
                        self.low[n as usize] = self.low[c];
                    }
                    i += 1;
                }
                pending.push(n);
                if self.low[n as usize] != self.dfs[n as usize] {
                    continue;
                }
                let number = post_number;
                post_number += 1;
                let root_dfs = self.dfs[n as usize];
                let mut k = pending.len();
                while k > 0 && self.dfs[pending[k - 1] as usize] >= root_dfs {
                    k -= 1;
                    let x = pending[k] as usize;
                    self.dfs[x] = -1;
                    self.low[x] = number;
                }
                if pending.len() - k == total {
                    for &x in &pending[k..] {
                        self.low[x as usize] = -1;
                    }
                    return Vec::new();
                }
                pending.truncate(k);
            }
        }
        let result: Vec<RefSccIdx> = (0..post_number).map(|_| self.new_refscc()).collect();
        self.order.insert_before(&result, rc);
        self.order.unlink(rc);
        let sccs = std::mem::take(&mut self.rc_sccs[rc as usize]);
        for s in sccs {
            let number = self.low[self.scc_nodes[s as usize][0] as usize];
            for &n in &self.scc_nodes[s as usize] {
                debug_assert_eq!(self.low[n as usize], number, "one number per SCC");
                self.low[n as usize] = -1;
            }
            let r = result[number as usize];
            self.scc_pos[s as usize] = self.rc_sccs[r as usize].len() as u32;
            self.scc_rc[s as usize] = r;
            self.rc_sccs[r as usize].push(s);
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
            let rc_of = |n: NodeIdx| g.scc_rc[g.scc_of[n as usize] as usize];
            update_postorder_for_insertion(
                &mut range,
                |c, set| {
                    g.rc_sccs[c as usize].iter().any(|&s| {
                        g.scc_nodes[s as usize].iter().any(|&n| {
                            g.edges[n as usize]
                                .iter()
                                .any(|e| set.contains(&rc_of(e.target)))
                        })
                    })
                },
                |c, out| {
                    for &s in &g.rc_sccs[c as usize] {
                        for &n in &g.scc_nodes[s as usize] {
                            out.extend(g.edges[n as usize].iter().map(|e| rc_of(e.target)));
                        }
                    }
                },
            )
        };
        self.order.reorder_segment(&segment, &range);
        let merged: Vec<RefSccIdx> = range[start..end].to_vec();
        let mut sccs: Vec<SccIdx> = Vec::new();
        for &r in &merged {
            sccs.extend(std::mem::take(&mut self.rc_sccs[r as usize]));
            self.order.unlink(r);
        }
        sccs.extend(std::mem::take(&mut self.rc_sccs[this as usize]));
        for (k, &s) in sccs.iter().enumerate() {
            self.scc_rc[s as usize] = this;
            self.scc_pos[s as usize] = k as u32;
        }
        self.rc_sccs[this as usize] = sccs;
        self.edges[src as usize].push(Edge {
            target: tgt,
            kind: EdgeKind::Ref,
        });
        merged
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
        if let Some(src) = (0..self.num_nodes() as u32)
            .find(|&m| self.edges[m as usize].iter().any(|e| e.target == n))
        {
            return Err(VerifyError(format!(
                "{} is still used by {}",
                self.name(n),
                self.name(src)
            )));
        }
        self.entry.retain(|&x| x != n);
        self.edges[n as usize].clear();
        self.removed[n as usize] = true;
        let Some(s) = self.scc_of(n) else {
            return Ok(());
        };
        let r = self.scc_rc[s as usize];
        if self.scc_nodes[s as usize].len() != 1 || self.rc_sccs[r as usize].len() != 1 {
            return Err(VerifyError(format!(
                "dead function {} is not alone in its SCC/RefSCC",
                self.name(n)
            )));
        }
        self.scc_of[n as usize] = NONE;
        self.dfs[n as usize] = 0;
        self.low[n as usize] = 0;
        self.scc_nodes[s as usize].clear();
        self.scc_rc[s as usize] = NONE;
        self.scc_pos[s as usize] = NONE;
        self.rc_sccs[r as usize].clear();
        self.order.unlink(r);
        Ok(())
    }

    /// Removes several dead functions with one scan for remaining uses (O(N + E) in
    /// all, where [`remove_dead_function`](Self::remove_dead_function) scans per node).
    /// A function that is still used (by any node), is a library function
    /// or is not alone in its SCC/RefSCC is left in place and reported.
    pub fn remove_dead_functions(&mut self, ns: &[NodeIdx]) -> Vec<VerifyError> {
        self.assert_built();
        let mut errs = Vec::new();
        let mut used_by = vec![NONE; self.num_nodes()];
        for m in 0..self.num_nodes() {
            for e in &self.edges[m] {
                if used_by[e.target as usize] == NONE {
                    used_by[e.target as usize] = m as NodeIdx;
                }
            }
        }
        let mut removed = vec![false; self.num_nodes()];
        for &n in ns {
            let (i, u) = (n as usize, used_by[n as usize]);
            if self.removed[i] {
                continue;
            }
            if u != NONE {
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
                let r = self.scc_rc[s as usize];
                if self.scc_nodes[s as usize].len() != 1 || self.rc_sccs[r as usize].len() != 1 {
                    errs.push(VerifyError(format!(
                        "dead function {} is not alone in its SCC/RefSCC",
                        self.name(n)
                    )));
                    continue;
                }
                self.scc_of[i] = NONE;
                self.dfs[i] = 0;
                self.low[i] = 0;
                self.scc_nodes[s as usize].clear();
                self.scc_rc[s as usize] = NONE;
                self.scc_pos[s as usize] = NONE;
                self.rc_sccs[r as usize].clear();
                self.order.unlink(r);
            }
            self.edges[i].clear();
            self.removed[i] = true;
            removed[i] = true;
        }
        self.entry.retain(|&x| !removed[x as usize]);
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
        let n = self.names.len() as NodeIdx;
        let name = name.into();
        self.name_index.entry(name.clone()).or_insert(n);
        self.names.push(name);
        self.defined.push(true);
        self.populated.push(true);
        self.removed.push(false);
        self.edges.push(Vec::new());
        self.scc_of.push(NONE);
        self.dfs.push(0);
        self.low.push(0);
        n
    }

    fn place_new(&mut self, n: NodeIdx) {
        assert_eq!(self.scc_of[n as usize], NONE, "node already placed");
        assert!(
            self.edges[n as usize].is_empty(),
            "a new node gets its edges after placement"
        );
        self.dfs[n as usize] = -1;
        self.low[n as usize] = -1;
    }

    /// Puts new node `n` into a new SCC at the end of RefSCC `rc`'s list (LLVM's
    /// `addNewFunctionIntoRefSCC`). Returns the SCC.
    pub fn add_new_function_into_refscc(&mut self, n: NodeIdx, rc: RefSccIdx) -> SccIdx {
        self.assert_built();
        self.place_new(n);
        let s = self.new_scc(rc, vec![n]);
        self.scc_pos[s as usize] = self.rc_sccs[rc as usize].len() as u32;
        self.rc_sccs[rc as usize].push(s);
        s
    }

    /// Puts new node `n` into existing SCC `s` (LLVM's `addNewFunctionIntoSCC`).
    pub fn add_new_function_into_scc(&mut self, n: NodeIdx, s: SccIdx) {
        self.assert_built();
        self.place_new(n);
        self.scc_nodes[s as usize].push(n);
        self.scc_of[n as usize] = s;
    }

    /// Puts new node `n` into a new RefSCC placed just before RefSCC `before` in
    /// post-order (where LLVM's `addSplitFunction` puts a split-off function that
    /// forms no cycle with its original). Returns the new RefSCC.
    pub fn add_new_function_as_refscc(&mut self, n: NodeIdx, before: RefSccIdx) -> RefSccIdx {
        self.assert_built();
        self.place_new(n);
        let r = self.new_refscc();
        let s = self.new_scc(r, vec![n]);
        self.scc_pos[s as usize] = 0;
        self.rc_sccs[r as usize].push(s);
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
        let orc = self.scc_rc[oc as usize];
        let n = self.add_function(name);
        self.dfs[n as usize] = -1;
        self.low[n as usize] = -1;
        let mut seen = AHashSet::new();
        for e in &edges {
            assert!(seen.insert(e.target), "edge target repeats");
        }
        let same_scc = kind == EdgeKind::Call
            && edges
                .iter()
                .any(|e| e.is_call() && self.scc_of[e.target as usize] == oc);
        if same_scc {
            self.scc_nodes[oc as usize].push(n);
            self.scc_of[n as usize] = oc;
        } else if edges.iter().any(|e| self.refscc_of(e.target) == Some(orc)) {
            let s = self.new_scc(orc, vec![n]);
            let at = if kind == EdgeKind::Call {
                self.scc_pos[oc as usize] as usize
            } else {
                self.rc_sccs[orc as usize].len()
            };
            self.rc_sccs[orc as usize].insert(at, s);
            self.reindex_sccs(orc, at);
        } else {
            let r = self.new_refscc();
            let s = self.new_scc(r, vec![n]);
            self.scc_pos[s as usize] = 0;
            self.rc_sccs[r as usize].push(s);
            self.order.insert_before(&[r], orc);
        }
        self.edges[n as usize] = edges;
        self.edges[original as usize].push(Edge { target: n, kind });
        n
    }

    /// Checks every invariant listed in the module docs. Reports all problems; never
    /// panics.
    pub fn verify(&self) -> Vec<VerifyError> {
        let mut errs = Vec::new();
        let mut err = |m: String| errs.push(VerifyError(m));
        let n = self.num_nodes();
        let get = |v: &Vec<u32>, i: u32| v.get(i as usize).copied().unwrap_or(NONE);
        for (node, list) in self.edges.iter().enumerate() {
            for e in list {
                if e.target as usize >= n {
                    err(format!("edge {node} -> {} dangles", e.target));
                }
            }
        }
        if !self.built {
            return errs;
        }
        for e in self.order.check() {
            err(e);
        }
        for r in self.order.iter() {
            if self.rc_sccs.get(r as usize).is_none_or(|l| l.is_empty()) {
                err(format!("refscc {r} is empty"));
            }
        }
        for r in self.order.iter() {
            let Some(list) = self.rc_sccs.get(r as usize) else {
                continue;
            };
            for (k, &s) in list.iter().enumerate() {
                if get(&self.scc_rc, s) != r || get(&self.scc_pos, s) != k as u32 {
                    err(format!(
                        "scc {s} in refscc {r} at {k} has refscc/pos {}/{}",
                        get(&self.scc_rc, s),
                        get(&self.scc_pos, s)
                    ));
                }
                if self.scc_nodes.get(s as usize).is_none_or(|l| l.is_empty()) {
                    err(format!("scc {s} is empty"));
                    continue;
                }
                for &x in &self.scc_nodes[s as usize] {
                    if get(&self.scc_of, x) != s {
                        err(format!(
                            "node {} in scc {s} maps to {}",
                            self.name(x),
                            get(&self.scc_of, x)
                        ));
                    }
                }
            }
        }
        // edge direction rules
        for a in 0..n as u32 {
            let sa = self.scc_of[a as usize];
            if sa == NONE {
                continue;
            }
            let ra = get(&self.scc_rc, sa);
            for e in &self.edges[a as usize] {
                let sb = get(&self.scc_of, e.target);
                if sb == NONE {
                    err(format!(
                        "edge {} -> {} leaves the built graph",
                        self.name(a),
                        self.name(e.target)
                    ));
                    continue;
                }
                let rb = get(&self.scc_rc, sb);
                if self.order.label(rb) > self.order.label(ra) {
                    err(format!(
                        "edge {} -> {} goes to a later RefSCC",
                        self.name(a),
                        self.name(e.target)
                    ));
                }
                if e.is_call() && ra == rb && get(&self.scc_pos, sb) > get(&self.scc_pos, sa) {
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
            let Some(list) = self.rc_sccs.get(r as usize) else {
                continue;
            };
            for &s in list {
                if let Some(nodes) = self.scc_nodes.get(s as usize) {
                    if !self.strongly_connected(nodes, true) {
                        err(format!("scc {s} is not strongly connected over call edges"));
                    }
                }
            }
            let nodes: Vec<NodeIdx> = self.refscc_nodes(r).collect();
            if !self.strongly_connected(&nodes, false) {
                err(format!("refscc {r} is not strongly connected"));
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
                    for e in &self.edges[x as usize] {
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
                            && self.edges[y as usize]
                                .iter()
                                .any(|e| e.target == x && (!calls_only || e.is_call()))
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
