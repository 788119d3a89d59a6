//! Replacing one function's edges after a transformation, in the order LLVM 14's
//! `updateCGAndAnalysisManagerForPass` applies the mutations (without the analysis
//! manager): new edges enter as ref edges, dead edges are demoted and removed (outgoing
//! ones directly, internal ones in one batch that may split the RefSCC), demoted calls
//! may split SCCs, and promoted calls may merge SCCs.

use super::{Edge, EdgeKind, LazyCallGraph, LcgError, NodeIdx, RefSccIdx, SccIdx};
use crate::hash::FixedSet;

/// What [`LazyCallGraph::update_node_edges`] changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeUpdate {
    /// SCCs created by splits (demoted or removed call edges), in creation order.
    pub new_sccs: Vec<SccIdx>,
    /// SCCs merged away by promoted call edges (now dead).
    pub merged_sccs: Vec<SccIdx>,
    /// RefSCCs created by removing internal ref edges, in post-order.
    pub new_refsccs: Vec<RefSccIdx>,
    /// RefSCCs merged away by new edges to later RefSCCs (now dead).
    pub merged_refsccs: Vec<RefSccIdx>,
    /// The SCCs LLVM 14's `updateCGAndAnalysisManagerForPass` puts on its SCC worklist,
    /// in insertion order (a CGSCC pass manager inserts them into its worklist as they
    /// come): on a split (`incorporateNewSCCRange`) the SCC that held the node, then the
    /// new SCCs other than the node's, last in post-order first; after a promoted call
    /// edge that moved SCCs below the node's (`InitialSCCIndex < NewSCCIndex`), the node's
    /// SCC, then the moved SCCs, last first.
    pub requeue: Vec<SccIdx>,
    /// The RefSCCs it puts on its RefSCC worklist: the pieces of a split RefSCC other
    /// than the node's, last in post-order first.
    pub refscc_requeue: Vec<RefSccIdx>,
}

impl LazyCallGraph {
    /// Makes `new_edges` the edge set of node `n` (one entry per target; `Call` for a
    /// direct call, `Ref` for a reference), updating SCCs and RefSCCs incrementally.
    /// Retained edges keep their position, new ones are appended. Unlike LLVM, which
    /// only allows new edges to the same or a descendant RefSCC, an edge to a later
    /// RefSCC is accepted too (it merges RefSCCs through
    /// [`insert_incoming_ref_edge`](Self::insert_incoming_ref_edge)).
    ///
    /// # Errors
    /// `NotBuilt`; `UnknownNode`/`RemovedNode`/`NotInGraph` for `n` or a target (every
    /// target must be placed in an SCC); `RepeatedEdge` (a target listed twice). Every
    /// check runs before the first edit, so nothing changes on error.
    pub fn update_node_edges(
        &mut self,
        n: NodeIdx,
        new_edges: &[Edge],
    ) -> Result<EdgeUpdate, LcgError> {
        self.placed(n)?;
        let mut up = EdgeUpdate::default();
        // LLVM's current SCC `C` through the update (the SCC that holds `n`)
        let mut c = self.scc_of(n).unwrap_or(SccIdx::NONE);
        let mut retained = FixedSet::default();
        let mut new_calls = Vec::new();
        let mut new_refs = Vec::new();
        let mut promoted = Vec::new();
        let mut demoted = Vec::new();
        for e in new_edges {
            self.placed(e.target)?;
            if !retained.insert(e.target) {
                return Err(LcgError::RepeatedEdge {
                    src: n,
                    tgt: e.target,
                });
            }
            match (self.edge(n, e.target).map(|x| x.kind), e.kind) {
                (None, EdgeKind::Call) => new_calls.push(e.target),
                (None, EdgeKind::Ref) => new_refs.push(e.target),
                (Some(EdgeKind::Ref), EdgeKind::Call) => promoted.push(e.target),
                (Some(EdgeKind::Call), EdgeKind::Ref) => demoted.push(e.target),
                _ => {}
            }
        }
        // From here on every step's preconditions hold (the checks above, and each
        // step keeps them for the next), so the `?`s below never fire.
        // New edges enter as ref edges (calls get promoted below).
        for &t in new_refs.iter().chain(&new_calls) {
            let rc = self.refscc_of(n).unwrap_or(RefSccIdx::NONE);
            let trc = self.refscc_of(t).unwrap_or(RefSccIdx::NONE);
            if rc == trc {
                self.insert_internal_ref_edge(n, t)?;
            } else if self.order.label(trc) < self.order.label(rc) {
                self.insert_outgoing_edge(n, t, EdgeKind::Ref)?;
            } else {
                up.merged_refsccs
                    .extend(self.insert_incoming_ref_edge(n, t)?);
            }
        }
        // Dead edges: demote internal calls, remove outgoing edges, batch-remove the rest.
        let dead: Vec<Edge> = self
            .cached_edges(n)
            .filter(|e| !retained.contains(&e.target))
            .collect();
        let mut dead_internal = Vec::new();
        for e in dead {
            let same_rc = self.refscc_of(n) == self.refscc_of(e.target);
            if same_rc && e.is_call() {
                let new = self.switch_internal_edge_to_ref(n, e.target)?;
                self.incorporate_new_sccs(n, &mut c, &new, &mut up);
            }
            if same_rc {
                dead_internal.push(e.target);
            } else {
                self.remove_outgoing_edge(n, e.target)?;
            }
        }
        up.new_refsccs = self.remove_internal_ref_edge(n, &dead_internal)?;
        if !up.new_refsccs.is_empty() {
            let own = self.refscc_of(n);
            up.refscc_requeue.extend(
                up.new_refsccs
                    .iter()
                    .rev()
                    .copied()
                    .filter(|&r| Some(r) != own),
            );
        }
        // Demote calls that are now references.
        for t in demoted {
            if self.refscc_of(n) == self.refscc_of(t) {
                let new = self.switch_internal_edge_to_ref(n, t)?;
                self.incorporate_new_sccs(n, &mut c, &new, &mut up);
            } else {
                self.switch_outgoing_edge_to_ref(n, t)?;
            }
        }
        // Promote references (and the new calls) to calls.
        for t in promoted.into_iter().chain(new_calls) {
            if self.refscc_of(n) == self.refscc_of(t) {
                let initial = self.scc_position(c);
                let merged = &mut up.merged_sccs;
                self.switch_internal_edge_to_call(n, t, |m| merged.extend_from_slice(m.sccs()))?;
                c = self.scc_of(n).unwrap_or(c);
                // SCCs moved below the node's: revisit it after them
                if let (Some(i), Some(j)) = (initial, self.scc_position(c)) {
                    if i < j {
                        up.requeue.push(c);
                        let rc = self.scc_refscc(c).unwrap_or(RefSccIdx::NONE);
                        let moved = &self.refscc_sccs(rc)[i as usize..j as usize];
                        up.requeue.extend(moved.iter().rev().copied());
                    }
                }
            } else {
                self.switch_outgoing_edge_to_call(n, t)?;
            }
        }
        Ok(up)
    }

    /// LLVM 14's `incorporateNewSCCRange`: the SCC `c` that held `n` split into `new`
    /// (post-order) besides itself; `c` is queued again, becomes the SCC that holds `n`
    /// now, and the other new SCCs are queued, last first.
    fn incorporate_new_sccs(
        &self,
        n: NodeIdx,
        c: &mut SccIdx,
        new: &[SccIdx],
        up: &mut EdgeUpdate,
    ) {
        up.new_sccs.extend_from_slice(new);
        if new.is_empty() {
            return;
        }
        up.requeue.push(*c);
        *c = self.scc_of(n).unwrap_or(*c);
        up.requeue
            .extend(new.iter().rev().copied().filter(|&s| s != *c));
    }
}
