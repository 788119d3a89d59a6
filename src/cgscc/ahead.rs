//! The walk's units of one function, run ahead of the walk on the pool's workers.
//!
//! The walk visits the RefSCCs of the module in post-order, and a RefSCC reads only
//! the bodies of what it references (`schedule`). So when the walk is about to take a
//! unit — a RefSCC of one SCC of one function, what most of a module is — it first
//! runs the inliner's run of every such unit among the next [`WINDOW`] positions, on
//! the pool, each as soon as the round has run the units of the window it depends
//! on: *chained*, reading their runs (bodies, deleted callees, use-count changes) in
//! place of what the walk has not committed yet, and the walk's own state, which
//! nothing writes meanwhile, for the rest. A unit that depends on one the round cannot
//! run (a RefSCC of more than one function, a run that gave up) is not run.
//!
//! Each run keeps its writes aside (`inliner::llvm14` `store`) and journals what the
//! walk could still change before the unit's turn: the use-count tests it made (last
//! call to a static callee, a callee left dead; whether a callee in a comdat was left
//! unused is asked at the turn instead), the versions of the functions it read
//! in the walk's state, and the chained runs it read. The walk takes a run at the
//! unit's turn, in its own order, when its pass is the first inliner to run there,
//! every test gives the same answer, no version moved, and every chained run was taken
//! and its function left unchanged since (`function-attrs` or a devirtualization's
//! repeat changing it refuses the runs that read it); otherwise it runs the unit
//! itself. Everything after the inliner's batch — the caller's new edges to the call
//! graph, the dead callees leaving it, `function-attrs`, devirtualization's repeats —
//! stays with the walk, in the walk's order. The answer is the sequential one, for any
//! number of workers, by construction: a run is either the one the walk would have
//! made or not taken (`tests/cgscc_jobs.rs` compares 1 to 4 workers).
//!
//! A run gives up, and the walk makes the unit itself, where it would have had to
//! add to a table the walk numbers: a constant expression that inlining folds and
//! the module does not have yet, or a debug location's inlined copy not made yet.

use super::inliner::llvm14::{fold::Folds, speculate, Chain, FrozenGraph, State, Unit};
use super::{CgsccModule, CgsccPass, InlineModel, Options};
use crate::callgraph::{function_of_node, NodeIdx, RefSccIdx, SccIdx};
use crate::llvm::FuncIdx;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// The fewest units a round runs ahead.
const MIN_ROUND: usize = 2;

/// How many post-order positions a round of runs ahead covers.
pub const WINDOW: usize = 256;

/// What the walk ran ahead of itself ([`super::RunReport::ahead`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AheadStats {
    /// Rounds of runs made at once on the pool.
    pub rounds: usize,
    /// Units run ahead (a run that gave up is not counted).
    pub made: usize,
    /// Runs the walk took at their unit's turn.
    pub taken: usize,
}

/// The walk's runs ahead over one post-order of RefSCCs.
#[derive(Debug)]
pub(crate) struct Ahead {
    /// The first inliner of the pipeline: (pass name, `only-mandatory`).
    pass: (String, bool),
    /// Per post-order position: the unit's SCC and function, when it is one function.
    units: Vec<Option<(SccIdx, NodeIdx)>>,
    /// Per position: a round already ran it (or chose not to).
    tried: Vec<bool>,
    pub(crate) stats: AheadStats,
}

/// One round's shared state: its units (window positions), the runs they wait for,
/// and their results.
struct Round<'a> {
    st: &'a State,
    g: &'a FrozenGraph,
    opts: &'a Options,
    pass: (&'a str, bool),
    folds: &'a Folds,
    /// Per unit: its SCC and function; whether it cannot run (it depends on a unit
    /// the walk has not committed and the round does not run).
    unit: Vec<(SccIdx, FuncIdx)>,
    blocked: Vec<bool>,
    /// Per unit: the round's units it depends on, directly and through others.
    reads: Vec<Vec<usize>>,
    /// Per unit: how many of its direct dependencies in the round have not finished;
    /// the units that wait for it.
    waiting: Vec<AtomicU32>,
    dependents: Vec<Vec<usize>>,
    made: Vec<OnceLock<Option<Box<Unit>>>>,
}

impl<'a> Round<'a> {
    /// Runs unit `w` over the runs of the units it depends on, then starts the units
    /// that waited only for it.
    fn run<'s>(&'s self, s: &rayon::Scope<'s>, w: usize) {
        let deps_made = self.reads[w]
            .iter()
            .map(|&d| self.made[d].get().and_then(|u| u.as_deref()))
            .collect::<Option<Vec<&Unit>>>();
        let made = match deps_made {
            Some(chain) if !self.blocked[w] => speculate(
                (self.st, Chain::new(chain)),
                self.folds.clone(),
                self.pass,
                self.unit[w],
                self.g,
                self.opts,
            ),
            _ => None,
        };
        let _ = self.made[w].set(made);
        for &d in &self.dependents[w] {
            if self.waiting[d].fetch_sub(1, Ordering::AcqRel) == 1 {
                s.spawn(move |s| self.run(s, d));
            }
        }
    }
}

impl Ahead {
    /// Runs ahead for a walk of `postorder` over `m` with `passes`, when asked to
    /// (`Options::run_ahead`), the pool has more than one worker, the pipeline has an
    /// inliner of LLVM 14's model and the module's schedule numbers the RefSCCs as
    /// the walk does.
    pub(crate) fn new(
        passes: &[Box<dyn CgsccPass>],
        opts: &Options,
        m: &CgsccModule,
        postorder: &[RefSccIdx],
    ) -> Option<Ahead> {
        if !opts.run_ahead
            || rayon::current_num_threads() < 2
            || opts.inline.model != InlineModel::Llvm14
            || m.llvm14.is_none()
            || m.dag.len() != postorder.len()
        {
            return None;
        }
        let pass = passes.iter().find_map(|p| p.first_inliner())?;
        let g = &m.graph;
        let mut units = Vec::with_capacity(postorder.len());
        for (j, &rc) in postorder.iter().enumerate() {
            let sccs = g.refscc_sccs(rc);
            let first = sccs.first().and_then(|&c| g.scc_nodes(c).first().copied());
            // the schedule's positions must be the walk's
            if first.and_then(|nd| m.dag.unit_of(nd)) != Some(j) {
                return None;
            }
            units.push(match sccs {
                [c] => match g.scc_nodes(*c) {
                    [nd] => Some((*c, *nd)),
                    _ => None,
                },
                _ => None,
            });
        }
        Some(Ahead {
            pass,
            tried: vec![false; units.len()],
            units,
            stats: AheadStats::default(),
        })
    }

    /// Before the walk takes position `i`: when its unit is one function not yet
    /// tried, runs the units of one function among the next [`WINDOW`] positions on
    /// the pool, each as soon as the round has run the units it depends on that the
    /// walk has not committed (over their runs: chained).
    pub(crate) fn before(&mut self, i: usize, m: &mut CgsccModule, opts: &Options) {
        if self.units[i].is_none() || self.tried[i] {
            return;
        }
        let end = (i + WINDOW).min(self.units.len());
        let window: Vec<usize> = (i..end)
            .filter(|&j| self.units[j].is_some() && !self.tried[j])
            .collect();
        for &j in &window {
            self.tried[j] = true;
        }
        if window.len() < MIN_ROUND {
            return;
        }
        // a run reads its callees' state, which a unit in the window changes only
        // through its body, deleted callees and use counts, unless the cost of a call
        // depends on the callee's recursion (which its edges, updated by the walk, say)
        let chains = opts.inline.function_inline_cost_multiplier == 1;
        // per position from `i`: its index in the window
        let mut at: Vec<Option<usize>> = vec![None; end - i];
        for (w, &j) in window.iter().enumerate() {
            at[j - i] = Some(w);
        }
        let n = window.len();
        let mut blocked = vec![false; n];
        let mut direct: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut reads: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (w, &j) in window.iter().enumerate() {
            let (c, nd) = self.units[j].expect("a unit of one function");
            blocked[w] = m.graph.is_removed(nd) || m.graph.scc_of(nd) != Some(c);
            let mut r = Vec::new();
            for &d in m.dag.deps(j) {
                let d = d as usize;
                if d < i {
                    continue;
                }
                match at.get(d - i).copied().flatten() {
                    Some(dw) if chains => {
                        direct[w].push(dw);
                        dependents[dw].push(w);
                        r.push(dw);
                        r.extend_from_slice(&reads[dw]);
                    }
                    _ => blocked[w] = true,
                }
            }
            r.sort_unstable();
            r.dedup();
            reads[w] = r;
        }
        let Some(st) = m.llvm14.as_mut() else { return };
        let folds = st.frozen_folds();
        let g = FrozenGraph::of(m);
        let Some(st) = m.llvm14.as_deref() else {
            return;
        };
        let round = Round {
            st,
            g: &g,
            opts,
            pass: (self.pass.0.as_str(), self.pass.1),
            folds: &folds,
            unit: window
                .iter()
                .map(|&j| {
                    let (c, nd) = self.units[j].expect("a unit of one function");
                    (c, function_of_node(nd))
                })
                .collect(),
            blocked,
            reads,
            waiting: direct
                .iter()
                .map(|d| AtomicU32::new(d.len() as u32))
                .collect(),
            dependents,
            made: (0..n).map(|_| OnceLock::new()).collect(),
        };
        rayon::scope(|s| {
            for (w, d) in direct.iter().enumerate() {
                if d.is_empty() {
                    let round = &round;
                    s.spawn(move |s| round.run(s, w));
                }
            }
        });
        let made: Vec<Box<Unit>> = round
            .made
            .into_iter()
            .filter_map(|u| u.into_inner().flatten())
            .collect();
        let Some(st) = m.llvm14.as_mut() else { return };
        self.stats.rounds += 1;
        for u in made {
            self.stats.made += 1;
            st.put_made(u);
        }
    }

    /// After the walk finished position `i`: a run made for it and not taken goes.
    pub(crate) fn after(&mut self, i: usize, m: &mut CgsccModule) {
        if let (Some((_, nd)), Some(st)) = (self.units[i], m.llvm14.as_mut()) {
            st.take_made(function_of_node(nd));
        }
    }
}
