//! The lifecycle of functions in a built [`LazyCallGraph`]: dead functions (LLVM 14's
//! `removeDeadFunction`, LLVM main's `markDeadFunction` + `removeDeadFunctions`) and new
//! ones (functions added into an SCC or RefSCC, split functions, ref-recursive split
//! groups), with LLVM's semantics.

use super::{Edge, EdgeKind, LazyCallGraph, LcgError, NodeIdx, Packed, RefSccIdx, SccIdx, NO_POS};
use crate::hash::FixedSet;

impl LazyCallGraph {
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
    /// same visible edges. Cost: one pass over every edge list, O(N + E), unless the
    /// caller knows no live node has an edge into `dead` (`sweep` false).
    fn finish_removal(&mut self, dead: &[NodeIdx], sweep: bool) {
        for &n in dead {
            self.edges.clear(n);
            self.removed[n] = true;
            self.populated[n] = true;
            self.unindex_name(n);
        }
        self.num_removed += dead.len();
        let removed = &self.removed;
        if dead.iter().any(|&d| self.in_entry.get(d) == Some(&true)) {
            // the entry sequence keeps its place (walks skip it): no pass over it
            for &d in dead {
                if let Some(e) = self.in_entry.get_mut(d) {
                    *e = false;
                }
            }
            self.entry_live.take();
        }
        if !sweep {
            return;
        }
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
        self.finish_removal(&[n], true);
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
        self.remove_dead(dead, true)
    }

    /// [`remove_dead_functions`](Self::remove_dead_functions) for a caller that counts
    /// the edges into each node and knows that no node outside `dead` has an edge into
    /// one of them (the CGSCC walk's `in_count`): the pass over every edge list, which
    /// would find nothing, is skipped, so a removal costs only the RefSCCs involved.
    /// [`verify`](Self::verify) reports an edge into a removed node should the
    /// promise be broken.
    ///
    /// # Errors
    /// As [`remove_dead_functions`](Self::remove_dead_functions).
    pub(crate) fn remove_unreferenced_dead_functions(
        &mut self,
        dead: &[NodeIdx],
    ) -> Result<(), LcgError> {
        self.remove_dead(dead, false)
    }

    fn remove_dead(&mut self, dead: &[NodeIdx], sweep: bool) -> Result<(), LcgError> {
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
        self.finish_removal(&dead, sweep);
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
        // An unpopulated node has no edges in the table yet, but its source may give
        // it some once it is populated: only a populated node without edges is new.
        if !self.populated[n] {
            return Err(LcgError::NotPopulated(n));
        }
        if !self.edges[n].is_empty() {
            return Err(LcgError::HasEdges(n));
        }
        Ok(())
    }

    /// Puts new node `n` into a new SCC at the end of RefSCC `rc`'s list (an ilkit
    /// helper; LLVM has no public counterpart). Returns the SCC. Add the node's edges
    /// next (with [`update_node_edges`](Self::update_node_edges) on it and on a member
    /// of `rc`): until both directions are there, `verify` reports `rc` as not strongly
    /// connected.
    ///
    /// # Errors
    /// `NotBuilt`; `UnknownNode`/`RemovedNode`, `AlreadyPlaced`, `NotPopulated`,
    /// `HasEdges` (`n` is not a new function: make one with
    /// [`add_function`](Self::add_function));
    /// `DeadRefScc` (`rc` is not a live RefSCC of this graph). Nothing changes on error.
    pub fn add_new_function_into_refscc(
        &mut self,
        n: NodeIdx,
        rc: RefSccIdx,
    ) -> Result<SccIdx, LcgError> {
        self.check_new(n)?;
        if !self.live_refscc(rc) {
            return Err(LcgError::DeadRefScc(rc));
        }
        self.tarjan.close(n);
        let s = self.new_scc(rc, &[n]);
        self.scc_pos[s] = self.rc_sccs.get(rc).len() as u32;
        self.rc_sccs.push(rc, s);
        Ok(s)
    }

    /// Puts new node `n` into existing SCC `s` (an ilkit helper). As for
    /// [`add_new_function_into_refscc`](Self::add_new_function_into_refscc), the call
    /// edges that keep `s` strongly connected come next.
    ///
    /// # Errors
    /// As [`add_new_function_into_refscc`](Self::add_new_function_into_refscc), with
    /// `DeadScc` for an `s` that is not a live SCC of this graph.
    pub fn add_new_function_into_scc(&mut self, n: NodeIdx, s: SccIdx) -> Result<(), LcgError> {
        self.check_new(n)?;
        if !self.live_scc(s) {
            return Err(LcgError::DeadScc(s));
        }
        self.tarjan.close(n);
        self.scc_nodes.push(s, n);
        self.scc_of[n] = s;
        Ok(())
    }

    /// Puts new node `n` into a new RefSCC placed just before RefSCC `before` in
    /// post-order (where LLVM's `addSplitFunction` puts a split-off function that
    /// forms no cycle with its original). Returns the new RefSCC.
    ///
    /// # Errors
    /// As [`add_new_function_into_refscc`](Self::add_new_function_into_refscc)
    /// (`DeadRefScc` for `before`).
    pub fn add_new_function_as_refscc(
        &mut self,
        n: NodeIdx,
        before: RefSccIdx,
    ) -> Result<RefSccIdx, LcgError> {
        self.check_new(n)?;
        if !self.live_refscc(before) {
            return Err(LcgError::DeadRefScc(before));
        }
        self.tarjan.close(n);
        let r = self.new_refscc();
        let s = self.new_scc(r, &[n]);
        self.scc_pos[s] = 0;
        self.rc_sccs.push(r, s);
        self.order.insert_before(&[r], before);
        Ok(r)
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
        let mut seen = FixedSet::with_capacity_and_hasher(edges.len(), Default::default());
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

    /// Adds function `name`, split out of `original` (outlining, coroutine splitting),
    /// with outgoing `edges` (only to `original`'s RefSCC or earlier ones, as LLVM
    /// requires), plus the edge `original -> new` of kind `kind`; places it like LLVM's
    /// `addSplitFunction` (14 = main): into `original`'s SCC when `original` calls it
    /// and it calls back into that SCC; else into a new SCC of `original`'s RefSCC when
    /// it has any edge back into that RefSCC (before `original`'s SCC if called, else
    /// last); else into a new RefSCC just before `original`'s. Returns the new node.
    ///
    /// # Errors
    /// `NotBuilt`, a bad `original`, an edge target that is bad, a declaration
    /// (`EdgeToDeclaration`), repeated (`RepeatedEdge`) or in a later RefSCC than
    /// `original`'s, or (when `kind` is `Call`) a call into a later SCC of
    /// `original`'s RefSCC (`NotDescendant`).
    pub fn add_split_function(
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
    /// `AlreadyPlaced`, `NotPopulated`, `HasEdges` or listed twice (`RepeatedEdge`); a
    /// bad edge target as for [`add_split_function`](Self::add_split_function);
    /// `NotRefClique` (a missing ref edge between two new functions, or a call edge
    /// between them). Nothing changes on error.
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
}
