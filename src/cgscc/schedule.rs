//! Where the parallelism of a CGSCC walk is: the RefSCC DAG of the module as read, each
//! RefSCC weighted by the work the walk did for its functions.
//!
//! A RefSCC may run once every RefSCC it references (by a call or a ref edge) has
//! finished: a pass over one RefSCC reads only its own functions' bodies and, for
//! decisions, the bodies of what they reference. Under that rule the walk's **work**
//! is the sum of the RefSCCs' work, its **span** the heaviest chain of RefSCCs through
//! the DAG, and work / span the speedup no number of workers can exceed. The work unit
//! is an instruction row: rows an inlining decision's cost analysis walked, rows an
//! inlining cloned, rows the inliner and `function-attrs` scanned (the summary estimate
//! counts the callee's instruction count per decision and per inlining instead).
//!
//! What crosses the DAG, and how a schedule orders it (the span here includes the
//! edges that lengthen it):
//!
//! - **A local callee shared by callers in different RefSCCs**
//!   ([`Dag::order_shared_locals`]): LLVM's last-call-to-static bonus reads the
//!   callee's remaining uses, and each caller that inlines it lowers them, so the
//!   callers' RefSCCs run in the sequential post-order's relative order.
//! - **Dead functions**: a callee left without uses is dropped from the graph at the
//!   end of the inliner run that killed it; it has no caller left to read it, so a
//!   parallel walk defers the removals to a barrier and applies them in the
//!   sequential order (no edge in the DAG).
//! - **Library functions** (LLVM's `isLibFunction`, kept alive and referenced "out of
//!   thin air"): a pass that may introduce a call to one would need its RefSCC
//!   finished first. None of ilkit's passes does (`inline` only copies calls its
//!   callee already makes, which the callee's own edges order; `function-attrs`
//!   makes none), so there is no edge for them.
//! - **Module-global state the walk writes**: the live-use counts (ordered by the
//!   first rule for local callees; a callee outside its caller's RefSCC is finished,
//!   its count only read for deletion), the constant expressions and debug locations
//!   inlining makes and the inline history (append-only tables whose indices nothing
//!   prints: per worker, renumbered on commit in the sequential order), the remarks
//!   and the visit log (per RefSCC, printed in post-order), the caps that count across
//!   the module (`--inline-max-total`, the visit limit, the memory cap: a run with one
//!   of them set stays sequential), and the call graph's SCC and RefSCC tables, whose
//!   splits insert at the splitting RefSCC's own position.
//!
//! This is the bound of such a schedule. `ilkit cgscc --jobs N` still commits the walk
//! on one worker, in the sequential order, with helpers making its body tables ahead
//! (`inliner/llvm14/prefetch.rs`); by default (`--no-run-ahead` turns it off) it also
//! runs the inliner on units of one function ahead of itself, in overlapping windows
//! of the post-order, each unit over the runs of the units it depends on, the constant
//! expressions runs make numbered provisionally and renumbered when the walk takes
//! them (`cgscc/ahead.rs`). A schedule gated by the walk's own commits instead reaches
//! little of this bound: in post-order a unit becomes ready just before the walk
//! reaches it. `scripts/schedule_sim.py` list-schedules a module's units (`ilkit cgscc
//! --format json --stats` prints them) both ways.

use crate::callgraph::{LazyCallGraph, NodeIdx};
use crate::idx::IndexVec;

/// Work, span and available parallelism of a walk ([`Dag::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScheduleStats {
    /// Units of the DAG (RefSCCs, or call SCCs) of the module as read.
    pub refsccs: usize,
    /// Instruction rows the walk visited, in all.
    pub work: u64,
    /// The heaviest chain of RefSCCs, in the same unit.
    pub span: u64,
}

impl ScheduleStats {
    /// `work / span`: the most a parallel schedule of the RefSCC DAG could gain.
    pub fn parallelism(&self) -> f64 {
        if self.span == 0 {
            1.0
        } else {
            self.work as f64 / self.span as f64
        }
    }

    /// The speedup `workers` workers could reach on this DAG: at most
    /// `min(workers, work / span)`, and a greedy schedule reaches at least Brent's
    /// `work / (work / workers + span)` (never below 1); returns (at least, at most).
    pub fn predicted_speedup(&self, workers: u32) -> (f64, f64) {
        let p = workers.max(1) as f64;
        let w = self.work as f64;
        let t = w / p + self.span as f64;
        let lower = if t == 0.0 { 1.0 } else { (w / t).max(1.0) };
        (lower, p.min(self.parallelism()))
    }
}

/// How finely [`Dag::at`] cuts the call graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grain {
    /// RefSCCs, ordered by call and ref edges: the schedule LLVM's protocol allows
    /// (a ref edge may become a call edge, which only a RefSCC contains).
    RefScc,
    /// Call SCCs, ordered by call edges only: what a walk could reach if ref edges
    /// that become calls were ordered some other way (an optimistic bound).
    Scc,
}

/// The RefSCC DAG of a call graph: per node its RefSCC (in post-order numbering) and
/// per RefSCC the RefSCCs it references (or the same for call SCCs, [`Grain::Scc`]).
#[derive(Clone, Debug, Default)]
pub struct Dag {
    /// Per node: its RefSCC's post-order position (`u32::MAX`: in none).
    refscc_of: IndexVec<NodeIdx, u32>,
    /// Per RefSCC (post-order): the RefSCCs it references, as `deps[start[r]..start[r + 1]]`.
    start: Vec<u32>,
    deps: Vec<u32>,
}

impl Dag {
    /// The DAG of `g`'s RefSCCs (built if they were not), over call and ref edges.
    pub fn of(g: &mut LazyCallGraph) -> Dag {
        Dag::at(g, Grain::RefScc)
    }

    /// The DAG of `g`'s units of `grain`.
    pub fn at(g: &mut LazyCallGraph, grain: Grain) -> Dag {
        let units: Vec<Vec<NodeIdx>> = match grain {
            Grain::RefScc => g
                .postorder_refsccs()
                .into_iter()
                .map(|r| g.refscc_nodes(r).collect())
                .collect(),
            Grain::Scc => g
                .postorder_refsccs()
                .into_iter()
                .flat_map(|r| g.refscc_sccs(r).to_vec())
                .map(|s| g.scc_nodes(s).to_vec())
                .collect(),
        };
        let mut refscc_of = IndexVec::from_elem_n(u32::MAX, g.num_nodes());
        for (k, nodes) in units.iter().enumerate() {
            for &n in nodes {
                refscc_of[n] = k as u32;
            }
        }
        let mut start = vec![0u32];
        let mut deps = Vec::new();
        for (k, nodes) in units.iter().enumerate() {
            let row = deps.len();
            for &n in nodes {
                for e in g.edges(n) {
                    if grain == Grain::Scc && !e.is_call() {
                        continue;
                    }
                    let d = refscc_of[e.target];
                    if d != u32::MAX && d != k as u32 {
                        debug_assert!(d < k as u32, "post-order puts what is referenced first");
                        deps.push(d);
                    }
                }
            }
            deps[row..].sort_unstable();
            let mut w = row;
            for i in row..deps.len() {
                if i == row || deps[i] != deps[w - 1] {
                    deps[w] = deps[i];
                    w += 1;
                }
            }
            deps.truncate(w);
            start.push(deps.len() as u32);
        }
        Dag {
            refscc_of,
            start,
            deps,
        }
    }

    /// Adds the ordering edges between units that share a local callee (`local(n)`:
    /// `n` has local linkage): LLVM's last-call-to-static bonus reads the callee's
    /// remaining uses, which every caller that inlines it changes, so its callers'
    /// units run in the sequential post-order's relative order (each waits for the
    /// previous one). Returns `self`.
    pub fn order_shared_locals(
        mut self,
        g: &LazyCallGraph,
        local: impl Fn(NodeIdx) -> bool,
    ) -> Dag {
        let mut callers: Vec<Vec<u32>> = vec![Vec::new(); g.num_nodes()];
        for n in g.nodes() {
            let u = self.refscc_of[n];
            for e in g.cached_edges(n) {
                if e.is_call() && local(e.target) && u != u32::MAX && u != self.refscc_of[e.target]
                {
                    callers[e.target.idx()].push(u);
                }
            }
        }
        let mut extra: Vec<Vec<u32>> = vec![Vec::new(); self.len()];
        for mut us in callers {
            us.sort_unstable();
            us.dedup();
            for w in us.windows(2) {
                extra[w[1] as usize].push(w[0]);
            }
        }
        let mut start = vec![0u32];
        let mut deps = Vec::with_capacity(self.deps.len());
        for (r, more) in extra.iter_mut().enumerate() {
            more.extend_from_slice(self.deps(r));
            more.sort_unstable();
            more.dedup();
            deps.extend_from_slice(more);
            start.push(deps.len() as u32);
        }
        self.start = start;
        self.deps = deps;
        self
    }

    /// Number of RefSCCs.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// Whether the graph has no RefSCC.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The post-order position of node `n`'s unit (`None`: in none).
    pub fn unit_of(&self, n: NodeIdx) -> Option<usize> {
        self.refscc_of
            .get(n)
            .filter(|&&u| u != u32::MAX)
            .map(|&u| u as usize)
    }

    /// The RefSCCs RefSCC `r` (post-order position) references.
    pub fn deps(&self, r: usize) -> &[u32] {
        &self.deps[self.start[r] as usize..self.start[r + 1] as usize]
    }

    /// Per unit (post-order position): the work its nodes did, `work[n]` rows for
    /// node `n` (nodes past `work`'s end or in no unit count nothing).
    pub fn unit_work(&self, work: &IndexVec<NodeIdx, u64>) -> Vec<u64> {
        let mut own = vec![0u64; self.len()];
        for (n, &w) in work.iter_enumerated() {
            if let Some(&r) = self.refscc_of.get(n) {
                if r != u32::MAX {
                    own[r as usize] += w;
                }
            }
        }
        own
    }

    /// Work, span and RefSCC count when node `n` did `work[n]` rows of work (nodes
    /// past `work`'s end or in no RefSCC count nothing).
    pub fn stats(&self, work: &IndexVec<NodeIdx, u64>) -> ScheduleStats {
        let own = self.unit_work(work);
        // post-order: every RefSCC's dependencies come before it
        let mut finish = vec![0u64; self.len()];
        for r in 0..self.len() {
            let before = self.deps(r).iter().map(|&d| finish[d as usize]).max();
            finish[r] = own[r] + before.unwrap_or(0);
        }
        ScheduleStats {
            refsccs: self.len(),
            work: own.iter().sum(),
            span: finish.iter().copied().max().unwrap_or(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::callgraph::{Edge, EdgeKind};

    fn edge(t: usize, kind: EdgeKind) -> Edge {
        Edge {
            target: NodeIdx::new(t),
            kind,
        }
    }

    /// 0 calls 1, 1 calls 2; 3 stands alone; 4 and 5 reference each other (one RefSCC,
    /// two call SCCs) and 5 calls 2.
    fn graph() -> LazyCallGraph {
        use EdgeKind::{Call, Ref};
        LazyCallGraph::from_edge_lists(vec![
            vec![edge(1, Call)],
            vec![edge(2, Call)],
            vec![],
            vec![],
            vec![edge(5, Ref)],
            vec![edge(4, Ref), edge(2, Call)],
        ])
        .unwrap()
    }

    #[test]
    fn span_is_the_heaviest_chain_and_work_the_sum() {
        let mut g = graph();
        let work: IndexVec<NodeIdx, u64> = [10u64, 20, 30, 100, 5, 7].into_iter().collect();
        let s = Dag::of(&mut g).stats(&work);
        assert_eq!(s.refsccs, 5);
        assert_eq!(s.work, 172);
        // 3 alone (100) outweighs 0 -> 1 -> 2 (60) and {4, 5} -> 2 (42)
        assert_eq!(s.span, 100);
        assert!((s.parallelism() - 1.72).abs() < 1e-9);
        let (lo, hi) = s.predicted_speedup(2);
        assert!((hi - 1.72).abs() < 1e-9 && lo >= 1.0 && lo <= hi);
        // the call chain becomes the span when it is heavier
        let work: IndexVec<NodeIdx, u64> = [50u64, 50, 50, 100, 5, 7].into_iter().collect();
        assert_eq!(Dag::of(&mut g).stats(&work).span, 150);
    }

    #[test]
    fn callers_of_a_shared_local_callee_run_in_post_order() {
        // 0 and 3 are independent until both call local 2: then 3's unit waits for 0's
        use EdgeKind::Call;
        let mut g = LazyCallGraph::from_edge_lists(vec![
            vec![edge(2, Call)],
            vec![],
            vec![],
            vec![edge(2, Call)],
        ])
        .unwrap();
        let work: IndexVec<NodeIdx, u64> = [10u64, 1, 1, 10].into_iter().collect();
        assert_eq!(Dag::of(&mut g).stats(&work).span, 11);
        let ordered = Dag::of(&mut g).order_shared_locals(&g, |n| n.idx() == 2);
        assert_eq!(ordered.stats(&work).span, 21);
        // a callee that is not local orders nothing
        let open = Dag::of(&mut g).order_shared_locals(&g, |_| false);
        assert_eq!(open.stats(&work).span, 11);
    }

    #[test]
    fn call_scc_grain_splits_a_refscc_its_ref_edges_hold_together() {
        let mut g = graph();
        let work: IndexVec<NodeIdx, u64> = [0u64, 0, 1, 0, 40, 50].into_iter().collect();
        // {4, 5} is one RefSCC: 1 + 40 + 50 in a chain
        assert_eq!(Dag::of(&mut g).stats(&work).span, 91);
        // as call SCCs, 4 no longer waits for 5: 5 -> 2 is the heaviest chain
        let s = Dag::at(&mut g, Grain::Scc).stats(&work);
        assert_eq!((s.refsccs, s.span), (6, 51));
    }
}
