//! The walk's units of one function, run ahead of the walk on the pool's workers.
//!
//! The walk visits the RefSCCs of the module in post-order, and a RefSCC reads only
//! the bodies of what it references, which the walk has finished before it
//! (`schedule`). So when the walk is about to take a unit — a RefSCC of one SCC of
//! one function, what most of a module is — it first runs the inliner's run on that
//! unit and on the units of the next [`WINDOW`] positions whose dependencies it has
//! finished, all at once on the pool, over its own state, which nothing writes
//! meanwhile. Each such run keeps its writes aside (`inliner::llvm14` `store`) and
//! journals what the walk could still change before the unit's turn: the use counts
//! it read (last call to a static callee, a callee left dead, which another caller of
//! a shared callee changes) and the versions of the functions it read. The walk
//! takes a run at the unit's turn, in its own order, when its pass is the first
//! inliner to run there and nothing it read changed; otherwise it runs the unit
//! itself. Everything after the inliner's batch — the caller's new edges to the call
//! graph, the dead callees leaving it, `function-attrs`, devirtualization's repeats —
//! stays with the walk, in the walk's order. The answer is the sequential one, for
//! any number of workers, by construction: a run is either the one the walk would
//! have made or not taken (`tests/cgscc_jobs.rs` compares 1 to 4 workers).
//!
//! A run gives up, and the walk makes the unit itself, where it would have had to
//! add to a table the walk numbers: a constant expression that inlining folds and
//! the module does not have yet, or a debug location's inlined copy not made yet.

use super::inliner::llvm14::{speculate, Unit};
use super::{CgsccModule, CgsccPass, InlineModel, Options};
use crate::callgraph::{function_of_node, NodeIdx, RefSccIdx, SccIdx};
use rayon::prelude::*;

/// The fewest units a round runs ahead.
const MIN_ROUND: usize = 2;

/// The most units a round of runs ahead takes.
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
    /// Per position: how many of the positions it depends on the walk has not
    /// finished; per position, the positions that depend on it.
    waiting: Vec<u32>,
    dependents: Vec<Vec<u32>>,
    /// Units of one function, not tried, whose dependencies the walk has finished.
    ready: std::collections::BTreeSet<usize>,
    pub(crate) stats: AheadStats,
}

impl Ahead {
    /// Runs ahead for a walk of `postorder` over `m` with `passes`, when the pool has
    /// more than one worker, the pipeline has an inliner of LLVM 14's model and the
    /// module's schedule numbers the RefSCCs as the walk does.
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
        let mut waiting = vec![0u32; units.len()];
        let mut dependents = vec![Vec::new(); units.len()];
        for (j, w) in waiting.iter_mut().enumerate() {
            let deps = m.dag.deps(j);
            *w = deps.len() as u32;
            for &d in deps {
                dependents[d as usize].push(j as u32);
            }
        }
        let ready = (0..units.len())
            .filter(|&j| waiting[j] == 0 && units[j].is_some())
            .collect();
        Some(Ahead {
            pass,
            tried: vec![false; units.len()],
            units,
            waiting,
            dependents,
            ready,
            stats: AheadStats::default(),
        })
    }

    /// Before the walk takes position `i`: when its unit is one function not yet
    /// tried, runs it and up to [`WINDOW`] other such units whose dependencies the
    /// walk has finished, nearest first, on the pool.
    pub(crate) fn before(&mut self, i: usize, m: &mut CgsccModule, opts: &Options) {
        if self.units[i].is_none() || self.tried[i] {
            return;
        }
        let mut batch = Vec::new();
        while batch.len() < WINDOW {
            let Some(j) = self.ready.pop_first() else {
                break;
            };
            self.tried[j] = true;
            let Some((c, nd)) = self.units[j] else {
                continue;
            };
            if !m.graph.is_removed(nd) && m.graph.scc_of(nd) == Some(c) {
                batch.push((c, function_of_node(nd)));
            }
        }
        // one unit alone gains nothing from running ahead: the walk runs it
        if batch.len() < MIN_ROUND {
            return;
        }
        let Some(st) = m.llvm14.as_mut() else { return };
        let folds = st.frozen_folds();
        let m_now: &CgsccModule = m;
        let Some(st) = m_now.llvm14.as_deref() else {
            return;
        };
        let pass = (self.pass.0.as_str(), self.pass.1);
        let made: Vec<Option<Box<Unit>>> = batch
            .par_iter()
            .map(|&(c, f)| speculate(st, folds.clone(), pass, (c, f), m_now, opts))
            .collect();
        let Some(st) = m.llvm14.as_mut() else { return };
        self.stats.rounds += 1;
        for u in made.into_iter().flatten() {
            self.stats.made += 1;
            st.made.insert(u.n, u);
        }
    }

    /// After the walk finished position `i`: a run made for it and not taken goes;
    /// the units that waited only for it are ready.
    pub(crate) fn after(&mut self, i: usize, m: &mut CgsccModule) {
        if let (Some((_, nd)), Some(st)) = (self.units[i], m.llvm14.as_mut()) {
            st.made.remove(&function_of_node(nd));
        }
        for &d in &self.dependents[i] {
            let d = d as usize;
            self.waiting[d] -= 1;
            if self.waiting[d] == 0 && self.units[d].is_some() && !self.tried[d] {
                self.ready.insert(d);
            }
        }
    }
}
