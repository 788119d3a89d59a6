//! The walk's units of one function, run ahead of the walk on the pool's workers.
//!
//! The walk visits the RefSCCs of the module in post-order, and a RefSCC reads only
//! the bodies of what it references (`schedule`). So when the walk is about to take a
//! unit — a RefSCC of one SCC of one function, what most of a module is — it runs
//! the inliner's run of every such unit of a window of the next positions
//! ([`WINDOW`] by default) on the pool, each as soon as the round has run the units
//! of the window it depends on: *chained*, reading their runs (bodies, deleted
//! callees, use-count changes) in place of what the walk has not committed yet. The
//! rest a run reads from a copy of the walk's state and call graph taken when its
//! round began (the bodies and tables shared, not copied: `State::snapshot`,
//! `FrozenGraph`), so that rounds run while the walk goes on: once a round is made,
//! the next window's round starts, over a copy taken then and chained on the runs of
//! the round before that the walk has not reached, and the walk commits the first
//! round's units while the workers make the second. A unit that depends on one no
//! round runs (a RefSCC of more than one function, a run that gave up, a unit the
//! walk took before its round was made) is not run.
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
//! made or not taken (`tests/cgscc_jobs.rs` compares 1 to 4 workers, with windows
//! of the default size and of three positions, which make many rounds). A copy older
//! than the walk's state changes nothing to this: whatever the walk commits between a
//! round's copy and a unit's turn that the run read — a body, attributes or deletion
//! (versions), a use count (tests asked again), a chained run (taken or not) — is
//! what the journal checks at the turn, as for a run over the walk's own state.
//!
//! A run gives up, and the walk makes the unit itself, where it would have had to
//! add to a table the walk numbers: a constant expression that inlining folds and
//! the module does not have yet, or a debug location's inlined copy not made yet.

use super::inliner::llvm14::{speculate, Chain, FrozenGraph, State, Unit};
use super::{CgsccModule, CgsccPass, InlineModel, Options};
use crate::callgraph::{function_of_node, NodeIdx, RefSccIdx, SccIdx};
use crate::llvm::FuncIdx;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The fewest units a round runs ahead.
const MIN_ROUND: usize = 2;

/// How many post-order positions a round of runs ahead covers, by default
/// ([`Options::run_ahead_window`]).
pub const WINDOW: usize = 256;

/// What the walk ran ahead of itself ([`super::RunReport::ahead`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AheadStats {
    /// Rounds of runs made on the pool.
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
    pass: (Arc<str>, bool),
    /// Per post-order position: the unit's SCC and function, when it is one function.
    units: Vec<Option<(SccIdx, NodeIdx)>>,
    /// Per position: a round already covered it.
    tried: Vec<bool>,
    /// The knobs, shared with the rounds.
    opts: Arc<Options>,
    /// The round being made while the walk commits the positions before it.
    next: Option<Arc<Round>>,
    pub(crate) stats: AheadStats,
}

/// One round: its units (window positions), the runs they wait for, their results, and
/// what they read — a copy of the walk's state and call graph taken when the round
/// began, and the runs of the round before it, which the walk has not committed.
#[derive(Debug)]
struct Round {
    st: Arc<State>,
    g: Arc<FrozenGraph>,
    opts: Arc<Options>,
    pass: (Arc<str>, bool),
    /// The positions the round covers.
    end: usize,
    /// Per unit: its position, SCC and function; whether it cannot run (it depends on
    /// a unit neither committed when the round began nor run by this round or the one
    /// before).
    pos: Vec<usize>,
    unit: Vec<(SccIdx, FuncIdx)>,
    blocked: Vec<bool>,
    /// Per unit: the round's units it depends on, directly and through others, and the
    /// runs of the round before (`prev`) it reads.
    reads: Vec<Vec<usize>>,
    reads_prev: Vec<Vec<usize>>,
    prev: Vec<Arc<Unit>>,
    /// Per unit: how many of its direct dependencies in the round have not finished;
    /// the units that wait for it.
    waiting: Vec<AtomicU32>,
    dependents: Vec<Vec<usize>>,
    made: Vec<OnceLock<Option<Arc<Unit>>>>,
    /// Units not finished yet.
    left: AtomicUsize,
}

impl Round {
    /// Starts `roots`, the units that wait for nothing (chosen before any runs: a
    /// run started meanwhile brings its dependents' counts to zero and starts them).
    fn start(self: &Arc<Round>, roots: Vec<usize>) {
        for w in roots {
            let r = Arc::clone(self);
            rayon::spawn(move || r.run(w));
        }
    }

    /// Runs unit `w` over the runs of the units it depends on, then starts the units
    /// that waited only for it. A run that panics (a bug) is not made: the walk makes
    /// the unit itself and meets the failure, if at all, where the sequential run would.
    fn run(self: Arc<Round>, w: usize) {
        let deps_made = self.reads[w]
            .iter()
            .map(|&d| self.made[d].get().and_then(|u| u.as_deref()))
            .collect::<Option<Vec<&Unit>>>();
        let made = match deps_made {
            Some(mut chain) if !self.blocked[w] => {
                chain.extend(self.reads_prev[w].iter().map(|&k| &*self.prev[k]));
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    speculate(
                        (&self.st, Chain::new(chain)),
                        self.st.frozen_copy(),
                        (&self.pass.0, self.pass.1),
                        self.unit[w],
                        &self.g,
                        &self.opts,
                    )
                }))
                .ok()
                .flatten()
                .map(Arc::from)
            }
            _ => None,
        };
        let _ = self.made[w].set(made);
        for &d in &self.dependents[w] {
            if self.waiting[d].fetch_sub(1, Ordering::AcqRel) == 1 {
                let r = Arc::clone(&self);
                rayon::spawn(move || r.run(d));
            }
        }
        self.left.fetch_sub(1, Ordering::AcqRel);
    }

    /// Waits for every unit of the round, running the pool's work meanwhile.
    fn wait(&self) {
        while self.left.load(Ordering::Acquire) > 0 {
            if rayon::yield_now() != Some(rayon::Yield::Executed) {
                std::thread::yield_now();
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
            pass: (pass.0.into(), pass.1),
            tried: vec![false; units.len()],
            units,
            opts: Arc::new(opts.clone()),
            next: None,
            stats: AheadStats::default(),
        })
    }

    /// Before the walk takes position `i`. When the round made meanwhile begins here:
    /// waits for it, hands its runs to the walk and starts the next round, made while
    /// the walk commits this one's positions. When no round is under way and `i` is a
    /// unit of one function not yet covered: makes a round of the next window's
    /// positions, waits for it, and starts the next the same way.
    pub(crate) fn before(&mut self, i: usize, m: &mut CgsccModule) {
        let begun = match &self.next {
            Some(r) if r.pos[0] <= i || r.left.load(Ordering::Acquire) == 0 => true,
            Some(_) => return,
            None => false,
        };
        let (cur, snap) = if begun {
            let r = self.next.take().expect("a round under way");
            (r, None)
        } else {
            if self.units[i].is_none() || self.tried[i] {
                return;
            }
            let snap = Snapshot::of(m, i);
            match self.launch(i, &[], &snap, m) {
                Some(r) => (r, Some(snap)),
                None => return,
            }
        };
        cur.wait();
        let Some(st) = m.llvm14.as_mut() else { return };
        self.stats.rounds += 1;
        // the walk took the positions before `i` without the round's runs
        for (&p, u) in cur.pos.iter().zip(&cur.made) {
            if let Some(u) = u.get().cloned().flatten().filter(|_| p >= i) {
                self.stats.made += 1;
                st.put_made(u);
            }
        }
        // nothing was committed since a round begun here was made: its copy serves
        let snap = snap.unwrap_or_else(|| Snapshot::of(m, i));
        self.next = self.launch(cur.end, &cur.chainable(i), &snap, m);
    }

    /// Starts a round over the positions from `start` on (those of one function not yet
    /// covered in the next window), over copy `snap` of the walk's state and the
    /// runs `prev` of the round before (by position), which the walk has not committed.
    fn launch(
        &mut self,
        start: usize,
        prev: &[(usize, Arc<Unit>, Vec<usize>)],
        snap: &Snapshot,
        m: &CgsccModule,
    ) -> Option<Arc<Round>> {
        let end = (start + self.opts.run_ahead_window.max(1)).min(self.units.len());
        let window: Vec<usize> = (start..end)
            .filter(|&j| self.units[j].is_some() && !self.tried[j])
            .collect();
        for &j in &window {
            self.tried[j] = true;
        }
        if window.len() < MIN_ROUND {
            return None;
        }
        // a run reads its callees' state, which a unit not committed changes only
        // through its body, deleted callees and use counts, unless the cost of a call
        // depends on the callee's recursion (which its edges, updated by the walk, say)
        let chains = self.opts.inline.function_inline_cost_multiplier == 1;
        // the positions before the copy's are committed in it
        let committed = snap.at;
        let in_prev = |d: usize| prev.binary_search_by_key(&d, |p| p.0).ok();
        let mut at: Vec<Option<usize>> = vec![None; end - start];
        for (w, &j) in window.iter().enumerate() {
            at[j - start] = Some(w);
        }
        let n = window.len();
        let mut blocked = vec![false; n];
        let mut direct: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut reads: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut reads_prev: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (w, &j) in window.iter().enumerate() {
            let (c, nd) = self.units[j].expect("a unit of one function");
            blocked[w] = m.graph.is_removed(nd) || m.graph.scc_of(nd) != Some(c);
            let (mut r, mut rp) = (Vec::new(), Vec::new());
            for &d in m.dag.deps(j) {
                let d = d as usize;
                if d < committed {
                    continue;
                }
                if !chains {
                    blocked[w] = true;
                } else if d >= start {
                    match at.get(d - start).copied().flatten() {
                        Some(dw) => {
                            direct[w].push(dw);
                            dependents[dw].push(w);
                            r.push(dw);
                            r.extend_from_slice(&reads[dw]);
                            rp.extend_from_slice(&reads_prev[dw]);
                        }
                        None => blocked[w] = true,
                    }
                } else {
                    match in_prev(d) {
                        Some(k) => {
                            rp.push(k);
                            rp.extend_from_slice(&prev[k].2);
                        }
                        None => blocked[w] = true,
                    }
                }
            }
            r.sort_unstable();
            r.dedup();
            rp.sort_unstable();
            rp.dedup();
            reads[w] = r;
            reads_prev[w] = rp;
        }
        let round = Arc::new(Round {
            st: Arc::clone(&snap.st),
            g: Arc::clone(&snap.g),
            opts: Arc::clone(&self.opts),
            pass: self.pass.clone(),
            end,
            unit: window
                .iter()
                .map(|&j| {
                    let (c, nd) = self.units[j].expect("a unit of one function");
                    (c, function_of_node(nd))
                })
                .collect(),
            pos: window,
            blocked,
            reads,
            reads_prev,
            prev: prev.iter().map(|p| Arc::clone(&p.1)).collect(),
            waiting: direct
                .iter()
                .map(|d| AtomicU32::new(d.len() as u32))
                .collect(),
            dependents,
            made: (0..n).map(|_| OnceLock::new()).collect(),
            left: AtomicUsize::new(n),
        });
        let roots = (0..n).filter(|&w| direct[w].is_empty()).collect();
        round.start(roots);
        Some(round)
    }

    /// After the walk finished position `i`: a run made for it and not taken goes.
    pub(crate) fn after(&mut self, i: usize, m: &mut CgsccModule) {
        if let (Some((_, nd)), Some(st)) = (self.units[i], m.llvm14.as_mut()) {
            st.take_made(function_of_node(nd));
        }
    }

    /// The walk's end: waits for a round still under way (its runs read copies only).
    pub(crate) fn finish(&mut self) {
        if let Some(r) = self.next.take() {
            r.wait();
        }
    }
}

impl Round {
    /// The round's runs at positions from `from` on (the walk's, whose state before it
    /// has committed the rest), which a round after it may chain on: by position, each
    /// with the runs among them it read (indices into the list).
    fn chainable(&self, from: usize) -> Vec<(usize, Arc<Unit>, Vec<usize>)> {
        let mut idx = vec![usize::MAX; self.pos.len()];
        let mut out = Vec::new();
        for (w, u) in self.made.iter().enumerate() {
            if let Some(Some(u)) = u.get().filter(|_| self.pos[w] >= from) {
                idx[w] = out.len();
                out.push((self.pos[w], Arc::clone(u), Vec::new()));
            }
        }
        for (w, &k) in idx.iter().enumerate() {
            if k != usize::MAX {
                // a made run's dependencies in the round were all made; those before
                // `from` are committed
                out[k].2 = self.reads[w]
                    .iter()
                    .map(|&d| idx[d])
                    .filter(|&d| d != usize::MAX)
                    .collect();
            }
        }
        out
    }
}

/// A copy of the walk's state (its constant-expression tables frozen) and call graph
/// for a round.
struct Snapshot {
    st: Arc<State>,
    g: Arc<FrozenGraph>,
    /// The walk's position when it was taken: everything before is committed.
    at: usize,
}

impl Snapshot {
    fn of(m: &mut CgsccModule, at: usize) -> Snapshot {
        let g = Arc::new(FrozenGraph::of(m));
        let st = m.llvm14.as_mut().expect("the inliner's state");
        let folds = st.frozen_folds();
        Snapshot {
            st: Arc::new(st.snapshot(folds)),
            g,
            at,
        }
    }
}
