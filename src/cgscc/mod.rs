//! The CGSCC pass manager over the lazy call graph: bottom-up SCC walk, LLVM's
//! worklist protocol under graph mutation, `DevirtSCCRepeatedPass`, the CGSCC-to-function
//! adaptor, pass instrumentation and the pipeline text parser ([`pipeline`]); the passes
//! are the inliner ([`inliner`]) and `function-attrs` ([`attrs`], [`function_attrs`])
//! (seed 003).
//!
//! # What it owns
//! - [`CgsccModule`]: one module's call graph ([`LazyCallGraph`]) plus its
//!   [`Summaries`] and the side tables passes keep per node
//!   (inferred attributes, inline budget used, incoming edge counts), remarks and
//!   diagnostics; and, for a module read with its instruction view, the state of LLVM
//!   14's `function-attrs` ([`function_attrs::Inference`], see [`attrs`]).
//! - [`PassManager`]: runs a pipeline of [`CgsccPass`]es on every SCC, callees first.
//!
//! # The walk (LLVM 14's `ModuleToPostOrderCGSCCPassAdaptor`)
//! RefSCCs are taken in post-order through a worklist; inside one RefSCC an SCC worklist,
//! seeded with its SCCs in post-order, is popped from the top (both are
//! [`worklist::PriorityStack`]s, LLVM's `SmallPriorityWorklist`). A pass reports graph
//! changes through [`PassContext::set_function_edges`], which applies `update_node_edges`
//! and records, in the [`UpdateResult`], what LLVM's `updateCGAndAnalysisManagerForPass`
//! would:
//! - SCCs and RefSCCs merged away are invalidated and never visited again;
//! - a split SCC is queued again with its new pieces on top (the node's own piece aside),
//!   and after a promoted call edge moved SCCs below the node's, its SCC and the moved
//!   ones are queued; the pieces of a split RefSCC other than the node's go on the
//!   RefSCC worklist, and the walk goes on in the node's piece;
//! - when the node's SCC is no longer the one the pass ran on, `updated_c` names it: the
//!   remaining passes of the pipeline run on it ([`run_passes`]), and then the whole
//!   pipeline runs on it again, until a run moves nothing; an SCC just run that way is not
//!   run again when it is popped (LLVM's `LastUpdatedC`);
//! - the inliner's `InlinedInternalEdges` are forgotten when a RefSCC is done.
//!
//! `devirt<N>` runs its pipeline up to `N + 1` times, as LLVM 14's
//! `DevirtSCCRepeatedPass` does. The inliner removes the functions it left dead at the end
//! of each run, invalidating their SCC and RefSCC as LLVM's release build does; the last
//! of them leave the graph at the end of the walk. In debug builds (or with
//! [`Options::verify_each`]) the graph is verified after every pass.
//!
//! Where this still differs from LLVM 14: `update_node_edges` applies one function's edge
//! changes as a batch, and the worklist entries of a promotion are derived per promoted
//! edge from the positions before and after it, as LLVM does. The function passes ilkit
//! has (`no-op-function`, `print-size`) never change the call graph, so the
//! CGSCC-to-function adaptor has no update to make after them.
//!
//! # Using it
//! ```
//! use ilkit::cgscc::{CgsccModule, NoInstrumentation, Options, PassManager};
//! let text = "define internal void @leaf() {\n  ret void\n}\n\
//!             define void @root() {\n  call void @leaf()\n  ret void\n}\n";
//! let opts = ilkit::import::llvm_ir::ParseOptions { instructions: true };
//! let m = ilkit::llvm::Module::from_ll_str_with("m.ll", text, opts).unwrap();
//! let mut cm = CgsccModule::new(&m, "m.ll");
//! let mut pm = PassManager::from_text("cgscc(devirt<5>(inline,function-attrs))",
//!                                     Options::default()).unwrap();
//! let report = pm.run(&mut cm, &mut NoInstrumentation).unwrap();
//! assert_eq!(report.visits.len(), 2);                  // leaf, then root
//! assert!(cm.remarks[0].to_string().contains("'leaf' inlined into 'root'"));
//! use ilkit::callgraph::NodeIdx;
//! assert!(cm.graph.is_removed(NodeIdx::new(0)));        // leaf had no other use
//! assert_eq!(cm.inferred_attrs(NodeIdx::new(1)), "norecurse readnone");
//! ```
//!
//! # Complexity
//! One visit per SCC plus one per re-queue; a worklist insert is O(1). Passes cost what
//! they touch.

mod ahead;
pub mod attrs;
pub mod function_attrs;

pub mod inliner;
pub mod pipeline;
pub mod schedule;
pub mod summary;
pub mod worklist;

use crate::callgraph::{
    from_module, function_of_node, Edge, EdgeKind, LazyCallGraph, NodeIdx, RefSccIdx, SccIdx,
};
use crate::hash::FixedSet;
use crate::idx::IndexVec;
use crate::llvm::{ConstKind, Module, OperandRef};
use summary::{CallTarget, MemEffect, Summaries};
use worklist::PriorityStack;

pub use ahead::{
    AheadStats, ATTRS_PAY as AHEAD_ATTRS_PAY, TRIAL as AHEAD_TRIAL, WINDOW as AHEAD_WINDOW,
};
pub use inliner::{
    InlineModel, InlineParams, Profile, Remark, RemarkKind, ReplayError, ReplayFallback,
    ReplayFile, ReplayScope,
};
pub use pipeline::{parse_pipeline, parse_pipeline_allowing, PipelineError};

/// The diagnostic of `DevirtSCCRepeatedPass` when the limit is hit and the graph still
/// changes.
pub const MAX_DEVIRT_MESSAGE: &str = "Max devirtualization iterations reached";

/// A run stopped by `abort-on-max-devirt-iterations-reached`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abort(pub String);

impl std::fmt::Display for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LLVM ERROR: {}", self.0)
    }
}

/// Knobs of a pipeline run (the seed's knobs table).
#[derive(Clone, Debug)]
pub struct Options {
    /// Inliner knobs.
    pub inline: InlineParams,
    /// `abort-on-max-devirt-iterations-reached`.
    pub abort_on_max_devirt_iterations: bool,
    /// Verify the call graph after every pass (default: debug builds).
    pub verify_each: bool,
    /// Cap on SCC visits per run, a guard against a pass that keeps re-queueing
    /// (default: 64 visits per function plus 1024).
    pub max_visits: Option<usize>,
    /// Cap on the bytes the run's tables (summaries, remarks) may hold (`--max-memory`):
    /// checked after each SCC visit; when exceeded the run stops and says so. `None`: no
    /// cap.
    pub max_memory: Option<usize>,
    /// Run the inliner on units of one function ahead of the walk, on the pool's
    /// workers, in rounds over windows of the post-order (see `cgscc/ahead.rs`), each
    /// made while the walk commits the one before; the walk takes a run whose inputs
    /// still hold at the unit's turn; once it has taken fewer than three in four of the
    /// first runs ([`AHEAD_TRIAL`]), it starts no more rounds. The answer is the
    /// sequential one either way. On by default (it applies to LLVM 14's model on a
    /// pool of more than one worker): faster than the helpers alone on C++ modules and
    /// on most C modules, at more CPU (PERF.md).
    pub run_ahead: bool,
    /// How many post-order positions a round of runs ahead covers (at least 1;
    /// [`AHEAD_WINDOW`] by default).
    pub run_ahead_window: usize,
    /// With `run_ahead`, when the pipeline runs `function-attrs`: each run made ahead
    /// also infers its unit's attributes, over the body it left, which the walk takes
    /// at the unit's turn when every attribute it read is the walk's then, and which
    /// the runs chained on it read (on by default, until too few runs read what the
    /// inferences changed: [`AHEAD_ATTRS_PAY`]; off, the walk infers every unit's
    /// attributes itself, and runs read those of the walk's state when their round
    /// began). The answer is the same either way.
    pub run_ahead_attrs: bool,
    /// With `run_ahead`, when the pool's other workers make the inliner's tables of
    /// every body ahead of the walk (block frequencies, predecessor tables, ephemeral
    /// rows: `inliner/llvm14/prefetch.rs`): the rounds begin once they have taken every
    /// function's (default). Until then the walk makes its units itself, in its own
    /// form; a round started earlier would wait behind the tables, and the walk would
    /// make its runs, each at more than that cost (PERF.md). Off, the rounds begin at
    /// the walk's first unit of one function. The answer is the same either way.
    pub run_ahead_after_tables: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            inline: InlineParams::default(),
            abort_on_max_devirt_iterations: false,
            verify_each: cfg!(debug_assertions),
            max_visits: None,
            max_memory: None,
            run_ahead: true,
            run_ahead_window: AHEAD_WINDOW,
            run_ahead_attrs: true,
            run_ahead_after_tables: true,
        }
    }
}

/// One module under the pass manager: call graph, summaries and per-node side tables.
///
/// # Invariants
/// - node `n` of `graph` is function `n` of `summ` (both module order);
/// - `in_count[n]` is the number of nodes with an edge to `n`;
/// - after a run every populated edge of the graph agrees with the summaries:
///   call edges to the defined callees of `summ.calls`, ref edges to `summ.refs`.
#[derive(Clone, Debug)]
pub struct CgsccModule {
    /// The lazy call graph (built).
    pub graph: LazyCallGraph,
    /// Function summaries.
    pub summ: Summaries,
    /// Inferred memory effect per node (`function-attrs`; `None` until inferred).
    pub inferred_mem: IndexVec<NodeIdx, Option<MemEffect>>,
    /// Inferred `norecurse` per node.
    pub inferred_norecurse: IndexVec<NodeIdx, bool>,
    /// Work done per node, in instruction rows visited ([`schedule`]).
    pub work: IndexVec<NodeIdx, u64>,
    /// The RefSCC DAG of the module as read, what [`CgsccModule::schedule_stats`]
    /// weighs.
    pub dag: schedule::Dag,
    /// The call-SCC DAG of the module as read ([`schedule::Grain::Scc`]).
    pub scc_dag: schedule::Dag,
    /// Inline cost already spent per caller (NVIDIA budget).
    pub budget_used: IndexVec<NodeIdx, i64>,
    /// Incoming edges per node.
    pub in_count: IndexVec<NodeIdx, u32>,
    /// Entry root of the graph (external, aliased or referenced from a global).
    pub is_root: IndexVec<NodeIdx, bool>,
    /// Inliner remarks, in decision order.
    pub remarks: Vec<Remark>,
    /// Remarks made, per [`RemarkKind`] (counted whether or not they are kept).
    pub remark_counts: [usize; 6],
    /// Diagnostics (`Max devirtualization iterations reached`, visit cap, ...).
    pub diagnostics: Vec<String>,
    /// The caps this run hit, each saying which (`--inline-max-total`, `--max-memory`,
    /// the visit limit); also in `diagnostics`.
    pub caps_hit: Vec<String>,
    /// Inlines done in this module so far (what `InlineParams::max_total_inlines` caps).
    pub inlines_done: usize,
    /// SCCs created and merged away by the call-graph updates of this run (what
    /// `InlineParams::max_scc_churn` caps).
    pub scc_churn: usize,
    /// A cap stopped the inliner for the rest of the run.
    pub inliner_stopped: bool,
    /// Functions found dead, removed from the graph at the end of the run.
    pub dead: Vec<NodeIdx>,
    /// Edges `(caller, scc)` inlined inside one SCC (LLVM's `InlinedInternalEdges`).
    pub inlined_internal: FixedSet<(NodeIdx, SccIdx)>,
    /// Lines written by function passes (`print-size`).
    pub function_log: Vec<String>,
    /// LLVM 14's `function-attrs` state over the module's instruction view, when the
    /// module was read with it ([`function_attrs::Inference`]).
    pub fn_attrs: Option<function_attrs::Inference>,
    /// The LLVM 14 inline model's bodies and use counts (with the instruction view).
    pub llvm14: Option<Box<inliner::llvm14::State>>,
}

impl CgsccModule {
    /// Counts `r` under its kind and keeps it when `keep` (the inliner's
    /// [`InlineParams::keep_remarks`](inliner::InlineParams::keep_remarks)).
    pub fn record_remark(&mut self, keep: bool, r: Remark) {
        self.remark_counts[r.kind as usize] += 1;
        if keep {
            self.remarks.push(r);
        }
    }

    /// Heap bytes of the run's growing tables: the summaries (call sites, locations,
    /// histories) and the remarks. What `Options::max_memory` caps.
    pub fn heap_bytes(&self) -> usize {
        // A formatted location is counted at its average; the remarks are not walked.
        let loc_guess = if self.remarks.first().is_some_and(|r| !r.loc.is_empty()) {
            32
        } else {
            0
        };
        self.summ.heap_bytes()
            + self.remarks.capacity() * (std::mem::size_of::<Remark>() + loc_guess)
    }

    /// Builds the call graph of `m` (every node populated, RefSCCs built) and the
    /// summaries.
    pub fn new(m: &Module, module_id: &str) -> CgsccModule {
        // independent parts: the graph, the summaries, the inliner's tables and
        // function-attrs'; the schedule then needs the first two. The graph is made on
        // this thread while another worker makes the summaries and then the inliner's
        // tables (its own last task first), leaving function-attrs' and the inliner's
        // parallel parts to this thread once the schedule is made. (Begun together,
        // the tables took the other worker and this thread made the summaries after
        // the graph: 1 ms longer of 7.5 on two threads for llama.cpp.)
        let mut tables = None;
        let mut fn_attrs = None;
        let mut cm = rayon::scope(|s| {
            let (graph, summ) = rayon::join(
                || {
                    let mut graph = from_module(m, module_id);
                    graph.build_ref_sccs();
                    graph.populate_all();
                    graph
                },
                || {
                    s.spawn(|_| fn_attrs = Some(function_attrs::Inference::new(m)));
                    s.spawn(|_| tables = Some(inliner::llvm14::State::of_bodies(m).map(Box::new)));
                    Summaries::from_module(m)
                },
            );
            CgsccModule::with_graph(m, graph, summ)
        });
        cm.fn_attrs = fn_attrs.flatten();
        cm.llvm14 = tables.flatten().map(|mut st| {
            st.count_root_uses(&cm.referenced_roots());
            st
        });
        cm
    }

    /// Local functions that are entry roots: referenced from globals or aliases.
    fn referenced_roots(&self) -> Vec<bool> {
        self.is_root
            .iter_enumerated()
            .map(|(k, &root)| root && self.summ.linkage[k].is_local())
            .collect()
    }

    /// [`CgsccModule::new`]'s module over `graph` (populated, RefSCCs built) and
    /// `summ`: the schedule made, without the passes' tables.
    fn with_graph(m: &Module, mut graph: LazyCallGraph, mut summ: Summaries) -> CgsccModule {
        // a local callee whose remaining uses a cost decision reads: one the inliner
        // never prices (`noinline`, `alwaysinline`) orders nothing
        let local = |n: NodeIdx| {
            summ.linkage.get(n).is_some_and(|l| l.is_local())
                && summ.is_definition[n]
                && !summ.no_inline[n]
                && !summ.always_inline[n]
        };
        let dag = schedule::Dag::of(&mut graph).order_shared_locals(&graph, local);
        let scc_dag =
            schedule::Dag::at(&mut graph, schedule::Grain::Scc).order_shared_locals(&graph, local);
        let n = graph.num_nodes();
        let mut in_count = IndexVec::from_elem_n(0u32, n);
        for f in graph.nodes() {
            let address_taken = called_and_referenced(m, f);
            for e in graph.cached_edges(f) {
                in_count[e.target] += 1;
                if e.kind == EdgeKind::Ref || address_taken.contains(&e.target) {
                    summ.refs[f].push(e.target);
                }
            }
        }
        let mut is_root = IndexVec::from_elem_n(false, n);
        for &r in graph.entry_nodes() {
            is_root[r] = true;
        }
        CgsccModule {
            is_root,
            graph,
            summ,
            inferred_mem: IndexVec::from_elem_n(None, n),
            inferred_norecurse: IndexVec::from_elem_n(false, n),
            budget_used: IndexVec::from_elem_n(0, n),
            work: IndexVec::from_elem_n(0, n),
            dag,
            scc_dag,
            in_count,
            remarks: Vec::new(),
            remark_counts: [0; 6],
            caps_hit: Vec::new(),
            inlines_done: 0,
            scc_churn: 0,
            inliner_stopped: false,
            diagnostics: Vec::new(),
            dead: Vec::new(),
            inlined_internal: FixedSet::default(),
            function_log: Vec::new(),
            fn_attrs: None,
            llvm14: None,
        }
    }

    /// Node `n`'s edges as the summaries describe them: a call edge per distinct
    /// defined callee, then a ref edge per referenced function not called. Removed nodes
    /// and nodes in no SCC are left out.
    pub fn summary_edges(&self, n: NodeIdx) -> Vec<Edge> {
        let mut seen = FixedSet::default();
        let mut out = Vec::new();
        let ok = |t: NodeIdx| {
            self.summ.is_definition[t]
                && !self.graph.is_removed(t)
                && self.graph.scc_of(t).is_some()
        };
        for c in &self.summ.calls[n] {
            if let CallTarget::Function(t) = c.callee {
                if ok(t) && seen.insert(t) {
                    out.push(Edge {
                        target: t,
                        kind: EdgeKind::Call,
                    });
                }
            }
        }
        // LLVM adds a ref edge to every defined library function to every node
        for &t in self.summ.refs[n].iter().chain(self.graph.lib_functions()) {
            if ok(t) && seen.insert(t) {
                out.push(Edge {
                    target: t,
                    kind: EdgeKind::Ref,
                });
            }
        }
        out
    }

    /// Work, span and available parallelism of the walk so far, over the RefSCC DAG of
    /// the module as read.
    pub fn schedule_stats(&self) -> schedule::ScheduleStats {
        self.dag.stats(&self.work)
    }

    /// The same over the call-SCC DAG, ordered by call edges only: the bound a walk
    /// that ordered promoted ref edges otherwise could reach.
    pub fn scc_schedule_stats(&self) -> schedule::ScheduleStats {
        self.scc_dag.stats(&self.work)
    }

    /// Names of the nodes of SCC `s`.
    pub fn scc_names(&self, s: SccIdx) -> Vec<&str> {
        self.graph
            .scc_nodes(s)
            .iter()
            .map(|&n| self.graph.name_in_range(n))
            .collect()
    }

    /// Removes the queued dead functions from the graph (one batch, one scan).
    fn flush_dead(&mut self) {
        let mut dead = std::mem::take(&mut self.dead);
        dead.retain(|&n| !self.graph.is_removed(n) && self.in_count[n] == 0);
        for &n in &dead {
            for e in self.graph.cached_edges(n) {
                self.in_count[e.target] -= 1;
            }
        }
        // LLVM main's two steps: demote the dead functions' calls, then remove them.
        let mut ok = Vec::with_capacity(dead.len());
        for &n in &dead {
            match self.graph.mark_dead_function(n) {
                Ok(()) => ok.push(n),
                Err(e) => self.diagnostics.push(format!("not removed: {e}")),
            }
        }
        // `in_count` is 0 for each: no edge into them is left to drop
        if let Err(e) = self.graph.remove_unreferenced_dead_functions(&ok) {
            self.diagnostics.push(format!("not removed: {e}"));
        }
    }
}

/// Functions that `f` calls directly *and* uses as a value (an argument, a stored
/// address, an operand of a constant expression): when the calls are inlined away the
/// call edge is demoted to a ref edge rather than removed. Every direct call contributes
/// one `DirectCall` event and one `Const` event for its callee symbol, so a symbol with
/// more `Const` events than calls is also used as a value.
fn called_and_referenced(m: &Module, f: NodeIdx) -> Vec<NodeIdx> {
    let mut counts: crate::hash::FixedMap<crate::llvm::SymbolIdx, (u32, u32)> =
        crate::hash::FixedMap::default();
    let mut exprs = Vec::new();
    let consts = m.consts();
    for r in &m.function(function_of_node(f)).operand_refs {
        match *r {
            OperandRef::DirectCall(s, _) => counts.entry(s).or_default().0 += 1,
            OperandRef::Const(c) => match consts.kind(c) {
                ConstKind::Symbol(s) => counts.entry(s).or_default().1 += 1,
                ConstKind::Expr => {
                    for &op in consts.operands_of(c) {
                        if let ConstKind::Symbol(s) = consts.kind(op) {
                            exprs.push(s);
                        }
                    }
                }
            },
        }
    }
    let mut out: Vec<NodeIdx> = counts
        .iter()
        .filter(|(_, &(d, c))| d > 0 && c > d)
        .map(|(&s, _)| s)
        .chain(
            exprs
                .into_iter()
                .filter(|s| counts.get(s).is_some_and(|x| x.0 > 0)),
        )
        .filter_map(|s| m.symbol_function(s))
        .map(crate::callgraph::node_of_function)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// What passes changed, LLVM 14's `CGSCCUpdateResult`. Lives for a whole run.
#[derive(Clone, Debug, Default)]
pub struct UpdateResult {
    /// SCCs that must never be visited again (merged away, dead).
    pub invalidated_sccs: FixedSet<SccIdx>,
    /// RefSCCs that must never be visited again.
    pub invalidated_refsccs: FixedSet<RefSccIdx>,
    /// The SCC worklist of the current RefSCC (LLVM's `CWorklist`): seeded with the
    /// RefSCC's SCCs in post-order, then split pieces and SCCs to revisit go on top.
    pub cworklist: PriorityStack<SccIdx>,
    /// The RefSCC worklist (LLVM's `RCWorklist`): pieces of split RefSCCs go on top.
    pub rc_worklist: PriorityStack<RefSccIdx>,
    /// The SCC that now holds the node a pass updated, when it is not the SCC the pass
    /// ran on (LLVM's `UpdatedC`): the remaining passes run on it, then the whole
    /// pipeline runs on it again.
    pub updated_c: Option<SccIdx>,
    /// Likewise for the RefSCC (LLVM's `UpdatedRC`).
    pub updated_rc: Option<RefSccIdx>,
    /// New call edges reported (to targets with no edge or a ref edge before).
    pub new_call_edges: u64,
    /// Ref edges promoted to call edges: a reference became a direct call, what LLVM's
    /// `DevirtSCCRepeatedPass` counts as devirtualization.
    pub promoted_call_edges: u64,
    /// Any edge change reported.
    pub edge_changes: u64,
}

/// What a pass sees: the module, the update result and the options.
#[derive(Debug)]
pub struct PassContext<'a> {
    /// The module.
    pub m: &'a mut CgsccModule,
    /// Update result of the run.
    pub ur: &'a mut UpdateResult,
    /// Knobs.
    pub opts: &'a Options,
    /// Instrumentation callbacks.
    pub instr: &'a mut dyn Instrumentation,
}

impl PassContext<'_> {
    /// Gives node `n` (of the current SCC `cur`) the edge set `edges` through
    /// [`LazyCallGraph::update_node_edges`] and records the consequences in the update
    /// result as LLVM 14's `updateCGAndAnalysisManagerForPass` does: merged SCCs and
    /// RefSCCs are invalidated, split pieces and revisits go on the worklists, and
    /// `updated_c` / `updated_rc` name `n`'s SCC and RefSCC when they are no longer `cur`
    /// and its RefSCC.
    pub fn set_function_edges(&mut self, cur: SccIdx, n: NodeIdx, edges: &[Edge]) {
        let g = &mut self.m.graph;
        let old: Vec<Edge> = g.cached_edges(n).collect();
        let old_kind: crate::hash::FixedMap<NodeIdx, EdgeKind> =
            old.iter().map(|e| (e.target, e.kind)).collect();
        if old.len() == edges.len()
            && edges
                .iter()
                .all(|e| old_kind.get(&e.target) == Some(&e.kind))
        {
            return;
        }
        let cur_rc = g.scc_refscc(cur);
        // The pass manager hands over edges of live functions of the built graph, each
        // target once, which are update_node_edges' preconditions.
        let up = g
            .update_node_edges(n, edges)
            .unwrap_or_else(|e| panic!("set_function_edges: {e}"));
        self.ur.edge_changes += 1;
        self.m.scc_churn += up.new_sccs.len() + up.merged_sccs.len();
        for e in &old {
            self.m.in_count[e.target] -= 1;
        }
        for e in edges {
            self.m.in_count[e.target] += 1;
            let before = old_kind.get(&e.target);
            if e.kind == EdgeKind::Call && before != Some(&EdgeKind::Call) {
                self.ur.new_call_edges += 1;
                if before.is_some() {
                    self.ur.promoted_call_edges += 1;
                }
            }
        }
        let g = &self.m.graph;
        self.ur
            .invalidated_sccs
            .extend(up.merged_sccs.iter().copied());
        self.ur
            .invalidated_refsccs
            .extend(up.merged_refsccs.iter().copied());
        for &s in &up.requeue {
            self.ur.cworklist.insert(s);
        }
        for &r in &up.refscc_requeue {
            self.ur.rc_worklist.insert(r);
        }
        if let Some(rc) = g.refscc_of(n).filter(|&r| Some(r) != cur_rc) {
            self.ur.updated_rc = Some(rc);
        }
        if let Some(c) = g.scc_of(n).filter(|&c| c != cur) {
            self.ur.updated_c = Some(c);
        }
    }

    /// Removes the functions an inliner run left dead, as LLVM 14 does at the end of each
    /// run: each one's SCC and RefSCC are invalidated (and are no longer `updated_c`),
    /// and the function leaves the graph (an entry root too: its entry edge goes) when
    /// it has no incoming edge and is alone in its SCC and RefSCC. LLVM's release build
    /// invalidates the SCC and RefSCC even when the dead function's stale edges still
    /// hold others in them (its `removeDeadFunction` asserts they do not, then clears
    /// both); so does this, so the same SCCs are visited.
    pub fn remove_dead_functions(&mut self, dead: impl IntoIterator<Item = NodeIdx>) {
        let m = &mut *self.m;
        for nd in dead {
            let g = &m.graph;
            let Some(sf) = g.scc_of(nd) else { continue };
            let Some(rf) = g.scc_refscc(sf) else { continue };
            self.ur.invalidated_sccs.insert(sf);
            self.ur.invalidated_refsccs.insert(rf);
            if self.ur.updated_c == Some(sf) {
                self.ur.updated_c = None;
            }
            if m.in_count[nd] == 0 && g.scc_nodes(sf).len() == 1 && g.refscc_sccs(rf).len() == 1 {
                m.dead.push(nd);
            }
        }
        m.flush_dead();
    }
}

/// Whether a pass changed anything (LLVM's `PreservedAnalyses::all()` or not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassResult {
    /// Nothing changed.
    Unchanged,
    /// Something changed.
    Changed,
}

impl std::fmt::Debug for dyn CgsccPass + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::fmt::Debug for dyn FunctionPass + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::fmt::Debug for dyn Instrumentation + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Instrumentation")
    }
}

/// A pass over one SCC.
pub trait CgsccPass {
    /// Pipeline name (`inline`, `devirt<5>`, ...).
    fn name(&self) -> String;
    /// Runs on SCC `scc`. Graph changes go through [`PassContext::set_function_edges`].
    fn run(&mut self, scc: SccIdx, cx: &mut PassContext<'_>) -> Result<PassResult, Abort>;
    /// Whether the pass (or one it nests) is the inliner: the walk then starts helpers
    /// for the inliner's analyses on the pool's other workers.
    fn inlines(&self) -> bool {
        false
    }

    /// The first inliner this pass runs on an SCC, as (pass name, `only-mandatory`):
    /// the run the walk makes ahead on units of one function (`cgscc/ahead.rs`).
    fn first_inliner(&self) -> Option<(String, bool)> {
        None
    }

    /// Whether the pass (or one it nests) is `function-attrs`: runs made ahead of the
    /// walk then infer their units' attributes too.
    fn infers_attrs(&self) -> bool {
        false
    }
}

/// A pass over one function (inside the CGSCC-to-function adaptor).
pub trait FunctionPass {
    /// Pipeline name.
    fn name(&self) -> String;
    /// Runs on function `f`.
    fn run(&mut self, f: NodeIdx, m: &mut CgsccModule) -> PassResult;
}

/// Pass instrumentation callbacks (LLVM's `PassInstrumentation`): before and after each
/// pass, with the names of the SCC's functions (or the one function).
pub trait Instrumentation {
    /// Before `pass` runs on the IR unit `unit`.
    fn before_pass(&mut self, _pass: &str, _unit: &[&str]) {}
    /// After `pass` ran on `unit`; `invalidated` when the unit no longer exists in that
    /// shape (merged, split or removed).
    fn after_pass(&mut self, _pass: &str, _unit: &[&str], _changed: bool, _invalidated: bool) {}
    /// Whether the callbacks read `unit` (when not, the pass manager passes it empty
    /// rather than gather the names at every pass).
    fn reads_units(&self) -> bool {
        true
    }
}

/// Instrumentation that does nothing.
#[derive(Debug, Default)]
pub struct NoInstrumentation;
impl Instrumentation for NoInstrumentation {
    fn reads_units(&self) -> bool {
        false
    }
}

/// Instrumentation recording `Running pass: NAME on (f, g)` lines.
#[derive(Default, Debug, Clone)]
pub struct PassLog {
    /// One line per pass run.
    pub lines: Vec<String>,
}

impl Instrumentation for PassLog {
    fn before_pass(&mut self, pass: &str, unit: &[&str]) {
        self.lines
            .push(format!("Running pass: {pass} on ({})", unit.join(", ")));
    }
}

/// Fans out to several instrumentations in order.
#[derive(Debug)]
pub struct Fanout<'a>(pub Vec<&'a mut dyn Instrumentation>);

impl Instrumentation for Fanout<'_> {
    fn before_pass(&mut self, pass: &str, unit: &[&str]) {
        for i in &mut self.0 {
            i.before_pass(pass, unit);
        }
    }
    fn after_pass(&mut self, pass: &str, unit: &[&str], changed: bool, invalidated: bool) {
        for i in &mut self.0 {
            i.after_pass(pass, unit, changed, invalidated);
        }
    }
    fn reads_units(&self) -> bool {
        self.0.iter().any(|i| i.reads_units())
    }
}

/// One visit of an SCC: its nodes at the time and the passes run, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Visit {
    /// The SCC.
    pub scc: SccIdx,
    /// Its nodes when the visit began.
    pub nodes: Vec<NodeIdx>,
    /// Passes run (outermost pipeline passes and nested ones), in order.
    pub passes: Vec<String>,
}

/// Result of [`PassManager::run`].
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Visits in order.
    pub visits: Vec<Visit>,
    /// What the walk ran ahead of itself on the pool's other workers.
    pub ahead: AheadStats,
}

/// Runs passes in order on one SCC, as LLVM 14's `PassManager<SCC>::run`: after a pass
/// moved the SCC's node to another SCC (`updated_c`), the remaining passes run on that
/// one; an SCC that was invalidated (merged away, dead) stops the pipeline. Shared by the
/// pass manager and `devirt<N>`; returns the SCC the pipeline ended on.
pub fn run_passes(
    passes: &mut [Box<dyn CgsccPass>],
    mut scc: SccIdx,
    cx: &mut PassContext<'_>,
) -> Result<(PassResult, SccIdx), Abort> {
    let mut any = PassResult::Unchanged;
    for p in passes.iter_mut() {
        let name = p.name();
        let names: Vec<String> = if cx.instr.reads_units() {
            cx.m.scc_names(scc).iter().map(|s| s.to_string()).collect()
        } else {
            Vec::new()
        };
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        // an inference of `function-attrs` made ahead is for the pass right after the
        // inliner's run that took it
        if name != "function-attrs" {
            if let Some(st) = cx.m.llvm14.as_mut() {
                st.drop_made_attrs();
            }
        }
        cx.instr.before_pass(&name, &refs);
        let r = p.run(scc, cx)?;
        let before = scc;
        scc = cx.ur.updated_c.unwrap_or(scc);
        let invalid = scc != before || cx.ur.invalidated_sccs.contains(&scc);
        cx.instr
            .after_pass(&name, &refs, r == PassResult::Changed, invalid);
        if r == PassResult::Changed {
            any = PassResult::Changed;
        }
        if cx.opts.verify_each {
            let errs = cx.m.graph.verify();
            assert!(
                errs.is_empty(),
                "call graph broken after {name} on ({}): {}",
                cx.m.scc_names(scc).join(", "),
                errs.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
        if cx.ur.invalidated_sccs.contains(&scc) {
            break;
        }
    }
    Ok((any, scc))
}

/// The CGSCC pass manager: a pipeline plus instrumentation.
#[derive(Debug)]
pub struct PassManager {
    /// The pipeline, outermost passes.
    pub passes: Vec<Box<dyn CgsccPass>>,
    /// Knobs.
    pub opts: Options,
}

/// Records the passes of the current visit.
struct VisitRecorder<'a> {
    inner: &'a mut dyn Instrumentation,
    passes: Vec<String>,
}

impl Instrumentation for VisitRecorder<'_> {
    fn before_pass(&mut self, pass: &str, unit: &[&str]) {
        self.passes.push(pass.to_string());
        self.inner.before_pass(pass, unit);
    }
    fn after_pass(&mut self, pass: &str, unit: &[&str], changed: bool, invalidated: bool) {
        self.inner.after_pass(pass, unit, changed, invalidated);
    }
    fn reads_units(&self) -> bool {
        self.inner.reads_units()
    }
}

impl PassManager {
    /// A pass manager over a parsed pipeline (see [`parse_pipeline`]).
    pub fn new(passes: Vec<Box<dyn CgsccPass>>, opts: Options) -> PassManager {
        PassManager { passes, opts }
    }

    /// Parses `text` (e.g. `cgscc(devirt<5>(inline,function-attrs))`) into a pass manager.
    pub fn from_text(text: &str, opts: Options) -> Result<PassManager, PipelineError> {
        Ok(PassManager::new(parse_pipeline(text)?, opts))
    }

    /// Runs the pipeline over every SCC of `m`, callees first, with LLVM 14's
    /// `ModuleToPostOrderCGSCCPassAdaptor` protocol (see the module docs).
    pub fn run(
        &mut self,
        m: &mut CgsccModule,
        instr: &mut dyn Instrumentation,
    ) -> Result<RunReport, Abort> {
        m.graph.build_ref_sccs();
        let helpers = rayon::current_num_threads().saturating_sub(1);
        let prefetch = if helpers > 0
            && self.opts.inline.model == InlineModel::Llvm14
            && self.passes.iter().any(|p| p.inlines())
        {
            let order = walk_order(&mut m.graph);
            m.llvm14.as_mut().map(|st| st.start_prefetch(order))
        } else {
            None
        };
        if let Some(p) = &prefetch {
            for _ in 0..helpers {
                let p = p.clone();
                rayon::spawn(move || p.help());
            }
        }
        let out = self.walk(m, instr);
        if let Some(st) = m.llvm14.as_mut() {
            st.stop_prefetch();
        }
        out
    }

    /// The walk of [`PassManager::run`].
    fn walk(
        &mut self,
        m: &mut CgsccModule,
        instr: &mut dyn Instrumentation,
    ) -> Result<RunReport, Abort> {
        let mut report = RunReport::default();
        let mut ur = UpdateResult::default();
        let max_visits = self
            .opts
            .max_visits
            .unwrap_or(64 * m.graph.num_nodes() + 1024);
        // LLVM walks the post-order lazily with its iterator one step ahead, so RefSCCs
        // that splits create are reached through the worklist only: a snapshot is the
        // same walk.
        let postorder = m.graph.postorder_refsccs();
        let mut ahead = ahead::Ahead::new(&self.passes, &self.opts, m, &postorder);
        'walk: for (i, &first) in postorder.iter().enumerate() {
            if let Some(a) = ahead.as_mut() {
                a.before(i, m);
            }
            ur.rc_worklist.insert(first);
            while let Some(popped) = ur.rc_worklist.pop() {
                if ur.invalidated_refsccs.contains(&popped)
                    || m.graph.refscc_order(popped).is_none()
                {
                    continue;
                }
                let mut rc = popped;
                let mut last_updated_c: Option<SccIdx> = None;
                for &c in m.graph.refscc_sccs(rc).iter().rev() {
                    ur.cworklist.insert(c);
                }
                while let Some(popped_c) = ur.cworklist.pop() {
                    let mut c = popped_c;
                    if ur.invalidated_sccs.contains(&c)
                        || m.graph.scc_nodes(c).is_empty()
                        || Some(c) == last_updated_c
                        || m.graph.scc_refscc(c) != Some(rc)
                    {
                        continue;
                    }
                    // The pipeline runs on `c`, and again on the SCC a run moved the
                    // node it updated to, until a run moves nothing.
                    loop {
                        if let Err(stop) = self.within_caps(m, report.visits.len(), max_visits) {
                            m.caps_hit.push(stop.clone());
                            m.diagnostics.push(stop);
                            break 'walk;
                        }
                        last_updated_c = ur.updated_c.take();
                        ur.updated_rc = None;
                        let nodes = m.graph.scc_nodes(c).to_vec();
                        let mut rec = VisitRecorder {
                            inner: &mut *instr,
                            passes: Vec::new(),
                        };
                        let mut cx = PassContext {
                            m: &mut *m,
                            ur: &mut ur,
                            opts: &self.opts,
                            instr: &mut rec,
                        };
                        let res = run_passes(&mut self.passes, c, &mut cx);
                        let passes = std::mem::take(&mut rec.passes);
                        report.visits.push(Visit {
                            scc: c,
                            nodes,
                            passes,
                        });
                        res?;
                        c = ur.updated_c.unwrap_or(c);
                        rc = ur.updated_rc.unwrap_or(rc);
                        if ur.invalidated_sccs.contains(&c) || ur.updated_c.is_none() {
                            break;
                        }
                    }
                }
                // LLVM forgets the internal edges inlined once a RefSCC is done.
                m.inlined_internal.clear();
            }
            if let Some(a) = ahead.as_mut() {
                a.after(i, m);
            }
        }
        if let Some(a) = ahead.as_mut() {
            a.finish();
        }
        if let Some(st) = m.llvm14.as_mut() {
            st.clear_made();
            if let Some(a) = ahead.as_mut() {
                a.stats.taken = std::mem::take(&mut st.made_taken);
                a.stats.reproduced = std::mem::take(&mut st.made_reproduced);
                a.stats.attrs_taken = std::mem::take(&mut st.attrs_taken);
                st.attrs_mattered = 0;
                report.ahead = a.stats;
            }
        }
        ur.cworklist.clear();
        ur.rc_worklist.clear();
        m.flush_dead();
        if self.opts.verify_each {
            let errs = m.graph.verify();
            assert!(errs.is_empty(), "call graph broken after the run: {errs:?}");
        }
        Ok(report)
    }

    /// Whether the run may make its next visit: the visit limit, and every 64 visits the
    /// memory cap (the count walks the per-function tables). `Err` says which stopped it.
    fn within_caps(&self, m: &CgsccModule, visits: usize, max_visits: usize) -> Result<(), String> {
        if visits >= max_visits {
            return Err(format!("visit limit {max_visits} reached; run stopped"));
        }
        if let Some(cap) = self.opts.max_memory.filter(|_| visits.is_multiple_of(64)) {
            let used = m.heap_bytes();
            if used > cap {
                return Err(format!(
                    "memory cap reached: the run's tables hold {} MB, over {} MB; \
                     run stopped (--max-memory)",
                    used >> 20,
                    cap >> 20
                ));
            }
        }
        Ok(())
    }
}

/// The defined and declared functions of `g` in the walk's order as the graph stands:
/// RefSCCs in post-order, their SCCs in post-order, each SCC's nodes.
fn walk_order(g: &mut LazyCallGraph) -> Vec<crate::llvm::FuncIdx> {
    let mut out = Vec::with_capacity(g.num_nodes());
    for rc in g.postorder_refsccs() {
        for &c in g.refscc_sccs(rc) {
            out.extend(g.scc_nodes(c).iter().map(|&n| function_of_node(n)));
        }
    }
    out
}

/// `devirt<N>(...)`: LLVM's `DevirtSCCRepeatedPass`. Re-runs its pipeline on the SCC
/// while a run devirtualizes (promotes a ref edge to a call edge: the graph keeps
/// changing), at most `max` runs; if
/// the last allowed run still changed the graph it emits [`MAX_DEVIRT_MESSAGE`] and, with
/// `abort-on-max-devirt-iterations-reached`, aborts.
#[derive(Debug)]
pub struct DevirtRepeated {
    /// Maximum runs.
    pub max: u32,
    /// The wrapped pipeline.
    pub passes: Vec<Box<dyn CgsccPass>>,
}

impl CgsccPass for DevirtRepeated {
    fn name(&self) -> String {
        format!("devirt<{}>", self.max)
    }

    fn inlines(&self) -> bool {
        self.passes.iter().any(|p| p.inlines())
    }

    fn first_inliner(&self) -> Option<(String, bool)> {
        self.passes.iter().find_map(|p| p.first_inliner())
    }

    fn infers_attrs(&self) -> bool {
        self.passes.iter().any(|p| p.infers_attrs())
    }

    /// LLVM 14's `DevirtSCCRepeatedPass::run`: the pipeline runs on `scc` until a run
    /// devirtualizes nothing, the SCC moved (`updated_c` names another SCC: the adaptor
    /// takes over) or was invalidated; after `max` repeats (so `max + 1` runs) it stops.
    fn run(&mut self, scc: SccIdx, cx: &mut PassContext<'_>) -> Result<PassResult, Abort> {
        let mut any = PassResult::Unchanged;
        let mut iteration = 0;
        loop {
            let before = cx.ur.promoted_call_edges;
            // the LLVM 14 model counts calls as LLVM's DevirtSCCRepeatedPass does
            let llvm14 = cx.opts.inline.model == InlineModel::Llvm14 && cx.m.llvm14.is_some();
            let members: Vec<NodeIdx> = cx.m.graph.scc_nodes(scc).to_vec();
            let counts_before = if llvm14 {
                cx.m.llvm14.as_mut().unwrap().call_counts(&members)
            } else {
                Vec::new()
            };
            if run_passes(&mut self.passes, scc, cx)?.0 == PassResult::Changed {
                any = PassResult::Changed;
            }
            if cx.ur.updated_c.is_some_and(|u| u != scc) || cx.ur.invalidated_sccs.contains(&scc) {
                break;
            }
            let devirtualized = if llvm14 {
                let after = cx.m.llvm14.as_mut().unwrap().call_counts(&members);
                counts_before
                    .iter()
                    .zip(&after)
                    .any(|(b, a)| b.1 > a.1 && b.0 < a.0)
            } else {
                cx.ur.promoted_call_edges != before
            };
            if !devirtualized {
                break;
            }
            if iteration >= self.max {
                let names = cx.m.scc_names(scc).join(", ");
                cx.m.diagnostics
                    .push(format!("{MAX_DEVIRT_MESSAGE} on SCC ({names})"));
                if cx.opts.abort_on_max_devirt_iterations {
                    return Err(Abort(MAX_DEVIRT_MESSAGE.to_string()));
                }
                break;
            }
            iteration += 1;
        }
        Ok(any)
    }
}

/// `function(...)`: the CGSCC-to-function adaptor (LLVM's
/// `CGSCCToFunctionPassAdaptor`). Runs its function passes on every function of the SCC,
/// in the SCC's order.
#[derive(Debug)]
pub struct FunctionAdaptor {
    /// Function passes, in order.
    pub passes: Vec<Box<dyn FunctionPass>>,
}

impl CgsccPass for FunctionAdaptor {
    fn name(&self) -> String {
        let inner: Vec<String> = self.passes.iter().map(|p| p.name()).collect();
        format!("function({})", inner.join(","))
    }

    fn run(&mut self, scc: SccIdx, cx: &mut PassContext<'_>) -> Result<PassResult, Abort> {
        let nodes = cx.m.graph.scc_nodes(scc).to_vec();
        let mut any = PassResult::Unchanged;
        for f in nodes {
            if cx.m.graph.is_removed(f) {
                continue;
            }
            for p in &mut self.passes {
                let name = p.name();
                let fname = cx.m.graph.name_in_range(f).to_string();
                cx.instr.before_pass(&name, &[&fname]);
                let r = p.run(f, cx.m);
                cx.instr
                    .after_pass(&name, &[&fname], r == PassResult::Changed, false);
                if r == PassResult::Changed {
                    any = PassResult::Changed;
                }
            }
        }
        Ok(any)
    }
}

/// A pass that does nothing: LLVM's `no-op-cgscc`, or a registered pass ilkit does not
/// implement that the caller allowed to do nothing (`--allow-noop NAME`); it keeps its
/// place in pipelines and instrumentation.
#[derive(Debug)]
pub struct NoOpPass(pub String);

impl CgsccPass for NoOpPass {
    fn name(&self) -> String {
        self.0.clone()
    }
    fn run(&mut self, _: SccIdx, _: &mut PassContext<'_>) -> Result<PassResult, Abort> {
        Ok(PassResult::Unchanged)
    }
}

/// Function pass `no-op-function`.
#[derive(Debug)]
pub struct NoOpFunction;

impl FunctionPass for NoOpFunction {
    fn name(&self) -> String {
        "no-op-function".into()
    }
    fn run(&mut self, _: NodeIdx, _: &mut CgsccModule) -> PassResult {
        PassResult::Unchanged
    }
}

/// Function pass `print-size`: logs `NAME: N instructions, K calls`.
#[derive(Debug)]
pub struct PrintSize;

impl FunctionPass for PrintSize {
    fn name(&self) -> String {
        "print-size".into()
    }
    fn run(&mut self, f: NodeIdx, m: &mut CgsccModule) -> PassResult {
        let line = format!(
            "{}: {} instructions, {} calls",
            m.summ.names[f],
            m.summ.instructions[f],
            m.summ.calls[f].len()
        );
        m.function_log.push(line);
        PassResult::Unchanged
    }
}

/// Checks that `visits` is a bottom-up order of `m`'s *initial* call graph `initial`
/// (a clone taken before the run): the first visit of every function comes after the
/// first visit of every function it calls in another initial SCC, and every kernel is
/// first visited after every non-kernel function it reaches. Returns the violations.
pub fn check_visit_order(
    initial: &LazyCallGraph,
    summ: &Summaries,
    visits: &[Visit],
) -> Vec<String> {
    let n = initial.num_nodes();
    let mut first: IndexVec<NodeIdx, usize> = IndexVec::from_elem_n(usize::MAX, n);
    for (i, v) in visits.iter().enumerate() {
        for &x in &v.nodes {
            if first[x] == usize::MAX {
                first[x] = i;
            }
        }
    }
    let mut errs = Vec::new();
    for a in initial.nodes() {
        let Some(sa) = initial.scc_of(a) else {
            continue;
        };
        if first[a] == usize::MAX {
            errs.push(format!("{} never visited", initial.name_in_range(a)));
            continue;
        }
        for e in initial.cached_edges(a) {
            if e.kind != EdgeKind::Call || initial.scc_of(e.target) == Some(sa) {
                continue;
            }
            let fb = first[e.target];
            if fb == usize::MAX || fb > first[a] {
                errs.push(format!(
                    "{} visited before its callee {}",
                    initial.name_in_range(a),
                    initial.name_in_range(e.target)
                ));
            }
        }
    }
    // kernels after everything they reach
    for k in initial.nodes() {
        if !summ.is_kernel[k] || first[k] == usize::MAX {
            continue;
        }
        let mut seen = IndexVec::from_elem_n(false, n);
        let mut stack = vec![k];
        seen[k] = true;
        while let Some(x) = stack.pop() {
            for e in initial.cached_edges(x) {
                let t = e.target;
                if !seen[t] {
                    seen[t] = true;
                    stack.push(e.target);
                    if e.kind == EdgeKind::Call
                        && !summ.is_kernel[t]
                        && first[t] != usize::MAX
                        && first[t] > first[k]
                    {
                        errs.push(format!(
                            "kernel {} visited before {}",
                            initial.name_in_range(k),
                            initial.name_in_range(e.target)
                        ));
                    }
                }
            }
        }
    }
    errs
}

/// What [`run_default_pipeline`] reports for one module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PipelineSummary {
    /// SCC visits.
    pub visits: usize,
    /// Call sites inlined.
    pub inlined: usize,
    /// Remarks by kind: Inlined, NotInlined, AlwaysInline, NeverInline, TooBig,
    /// NoDefinition.
    pub remarks_by_kind: [usize; 6],
    /// Functions removed as dead.
    pub removed: usize,
    /// Defined functions left in SCCs.
    pub live_functions: usize,
    /// Call edges between functions in SCCs before the run.
    pub initial_call_edges: usize,
    /// Call edges left.
    pub call_edges: usize,
    /// Diagnostics emitted.
    pub diagnostics: Vec<String>,
    /// The caps the run hit (each names its knob).
    pub caps_hit: Vec<String>,
    /// `verify()` problems after the run.
    pub verify_errors: usize,
    /// Violations of the bottom-up visit order.
    pub order_errors: usize,
    /// Work, span and parallelism of the walk over the module's RefSCC DAG.
    pub schedule: schedule::ScheduleStats,
}

/// The default pipeline `cgscc(devirt<1>(inline,function-attrs))`, which `ilkit scan`
/// runs per `.ll` file with NVIDIA's knobs (budget 20,000) on the summary estimate.
pub const DEFAULT_PIPELINE: &str = "cgscc(devirt<1>(inline,function-attrs))";

/// Runs [`DEFAULT_PIPELINE`] on `m` and summarizes the outcome: remarks are counted,
/// not formatted; `max_memory` caps the run's tables (see [`Options::max_memory`]).
pub fn run_default_pipeline(
    m: &Module,
    max_memory: Option<usize>,
) -> Result<PipelineSummary, Abort> {
    let opts = Options {
        inline: InlineParams {
            model: InlineModel::Summary,
            remark_locations: false,
            keep_remarks: false,
            ..InlineParams::for_profile(Profile::Cicc)
        },
        max_memory,
        ..Options::default()
    };
    let mut pm = PassManager::from_text(DEFAULT_PIPELINE, opts)
        .unwrap_or_else(|e| unreachable!("the default pipeline parses: {e}"));
    run_pipeline_summary(m, &mut pm)
}

/// Runs the pass manager `pm` on `m` and summarizes the outcome.
pub fn run_pipeline_summary(m: &Module, pm: &mut PassManager) -> Result<PipelineSummary, Abort> {
    let mut cm = CgsccModule::new(m, "module");
    let initial = cm.graph.clone();
    let report = pm.run(&mut cm, &mut NoInstrumentation)?;
    let mut s = PipelineSummary {
        visits: report.visits.len(),
        initial_call_edges: initial
            .nodes()
            .filter(|&n| initial.scc_of(n).is_some())
            .map(|n| initial.cached_edges(n).filter(|e| e.is_call()).count())
            .sum(),
        ..Default::default()
    };
    s.remarks_by_kind = cm.remark_counts;
    s.inlined = cm.remark_counts[RemarkKind::Inlined as usize]
        + cm.remark_counts[RemarkKind::AlwaysInline as usize];
    for n in cm.graph.nodes() {
        if cm.graph.is_removed(n) {
            s.removed += 1;
        } else if cm.graph.scc_of(n).is_some() {
            s.live_functions += 1;
            s.call_edges += cm.graph.cached_edges(n).filter(|e| e.is_call()).count();
        }
    }
    s.diagnostics = cm.diagnostics.clone();
    s.caps_hit = cm.caps_hit.clone();
    s.verify_errors = cm.graph.verify().len();
    s.order_errors = check_visit_order(&initial, &cm.summ, &report.visits).len();
    s.schedule = cm.schedule_stats();
    Ok(s)
}
