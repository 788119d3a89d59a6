//! The walk's units of one function, run ahead of the walk on the pool's workers.
//!
//! The walk visits the RefSCCs of the module in post-order, and a RefSCC reads only
//! the bodies of what it references (`schedule`). So when the walk is about to take a
//! unit — a RefSCC of one SCC of one function, what most of a module is — it starts a
//! *round*: the inliner's run of every such unit of a window of the next positions
//! ([`WINDOW`] by default), each run as soon as the runs of the window's units it
//! depends on have finished: *chained*, reading their runs (bodies, deleted callees,
//! use-count changes, constant expressions) in place of what the walk has not
//! committed yet. The rest a run reads from a copy of the walk's state and call graph
//! taken when its round began (the bodies and tables shared, not copied:
//! `State::snapshot`, `FrozenGraph`), so that rounds run while the walk goes on; the
//! tables and block frequencies a run makes of that copy's bodies stay with the copy
//! for the round's other runs, which would otherwise each make them again.
//! The first round begins once the pool's workers have made the inliner's tables of
//! every body (`prefetch`; `Options::run_ahead_after_tables`): before, its helpers
//! would wait behind those tables and the walk would make the round's runs itself,
//! so the walk makes its units in its own form until then.
//! Rounds overlap: once the walk enters a round (or most of its units have finished,
//! up to [`MAX_ROUNDS`] under way), the next window's round starts, over a copy taken
//! then and chained on the runs of the rounds under way at positions the walk has not
//! reached, finished or still running — each with what it read of the runs before it
//! that the walk has not committed, through any number of rounds. The pool's other
//! workers each run a round's units, the first ready one in post-order first, and
//! those of the rounds after it while it has none ready; the walk, at each position,
//! waits only for that position's run, running it itself when no worker has, and
//! while a worker runs it, the units ready as the workers would take them. A unit
//! that depends on one no round runs (a RefSCC of more than one function) is not
//! run, nor are the units that read it. A unit whose run would inline nothing (no
//! call of its body names a defined function: over a quarter of llama.cpp's units of
//! one function, most of SQLite's) is not run either, unless the runs infer
//! `function-attrs` (below), which its run would give the runs that read it: its
//! turn leaves its body, the use counts and every other function as the round's copy
//! has them, so the runs that depend on it read it there, as committed, without
//! waiting for it, and the walk makes it itself for less than a run and its taking
//! cost.
//!
//! Each run keeps its writes aside (`inliner::llvm14` `store`) and journals what the
//! walk could still change before the unit's turn: the use-count tests it made (last
//! call to a static callee, a callee left dead; whether a callee in a comdat was left
//! unused is asked at the turn instead), the versions of the functions whose bodies it
//! read in the walk's state, each test of the attributes of a function the walk may
//! still visit before the unit's turn (not of one it had visited when the round began:
//! a pass changes only the attributes of the unit it runs on), the chained runs it
//! read, and the provisional numbers of the constant expressions other runs made that
//! it names. The walk takes a run at the unit's turn, in its own order, when its pass
//! is the first inliner to run there, every test gives the same answer (an attribute
//! `function-attrs` changed since, where the run tested it, refuses the run), no
//! version moved, every chained run was taken and its body left unchanged since (a
//! devirtualization's repeat changing it refuses the runs that read it), and the
//! expressions it names were committed; otherwise it runs the unit itself. A run
//! refused so still serves the runs chained on it when the walk's own run leaves what
//! they read of it — the body the run left and the callees it deleted (the rest they
//! read of it, use counts, attributes and constant expressions, each journaled itself):
//! a test answered otherwise (an attribute `function-attrs` gave a callee since) often
//! changes no decision, and without this every run chained on the refused one, through
//! any number of runs, would be refused and made again. Once
//! [`TRIAL`] runs have had their turn, a walk that took fewer than three in four starts
//! no more rounds (it would make most units twice).
//!
//! When the pipeline runs `function-attrs`, a run also infers its unit's attributes
//! over the body it left (`function_attrs` `ahead`): over a copy of the walk's
//! attributes taken when its round began, with those inferred by the runs it chained on
//! written over it, noting the attributes it read — the function's own before the pass
//! and those of every function its calls name. The runs chained on it read what it
//! inferred (their tests of its attributes are journaled as any other). At the unit's
//! turn, right after the walk took the inliner's run, `function-attrs` takes the
//! inference when every attribute it read is the walk's then and the body is the one
//! it read; otherwise it infers the unit itself. The inferences pay where the runs
//! chained on them would otherwise be refused: once [`TRIAL`] runs have had their turn,
//! if fewer than one in [`ATTRS_PAY`] tested an attribute that a chained run's
//! inference answered otherwise than the round's copy of the walk's, the rounds
//! started after leave `function-attrs` to the walk. Everything else after the inliner's
//! batch — the caller's new edges to the call graph, the dead callees leaving it,
//! devirtualization's repeats — stays with the walk, in the walk's order. The answer
//! is the sequential one, for any number of workers, by
//! construction: a run is either the one the walk would have made or not taken
//! (`tests/cgscc_jobs.rs` compares 1 to 4 workers, with windows of the default size
//! and of three positions, which make many rounds). A copy older than the walk's
//! state changes nothing to this: whatever the walk commits between a round's copy
//! and a unit's turn that the run read — a body or deletion (versions), an attribute
//! (tests asked again), a use count (tests asked again), a chained run (taken or not) —
//! is what the journal checks at the turn, as for a run over the walk's own state.
//!
//! A constant expression that inlining folds and the tables the run reads lack gets a
//! provisional number, apart from the walk's and every other run's (`fold`): runs
//! chained on the run find it by its structure, and the walk, taking the run, numbers
//! the run's expressions in its own tables in the order the run made them (each the
//! one of equal structure already there, or a new one: the numbers the sequential
//! walk gives them) and renumbers the body. Two runs that do not read each other may
//! number one structure twice, and a run may number one the walk has numbered since
//! its round began; a run chained on such runs reads every number of a structure as
//! one (the walk's, or the first met), their bodies renumbered for it, as the walk's
//! commit gives them all one number (`Folds::speculative`, `Chain::renumbered`). A run
//! gives up, and the walk makes the unit itself, only where it would have had to make
//! a debug location's inlined copy the walk's table lacks.

use super::function_attrs::{Inference, MadeAttrs};
use super::inliner::llvm14::{speculate, Chain, Folds, FrozenGraph, Private, Scratch, State, Unit};
use super::{CgsccModule, CgsccPass, InlineModel, Options};
use crate::callgraph::{function_of_node, NodeIdx, RefSccIdx, SccIdx};
use crate::llvm::FuncIdx;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Function names by call-graph node.
type Names = Arc<crate::idx::IndexVec<NodeIdx, Arc<str>>>;

/// How many runs made ahead reach their turn before the walk judges whether running
/// ahead pays ([`AheadStats::stopped`]).
pub const TRIAL: usize = 128;

/// Inferring `function-attrs` in the runs pays while at least one run in this many
/// reads a chained run's inference that changes a test's answer (a run the walk would
/// otherwise refuse and make again itself); C modules: one in 3 to 11, llama.cpp one in
/// 146, where the inferences cost more than the refusals they save (PERF.md).
pub const ATTRS_PAY: usize = 32;

/// The most rounds under way at once.
const MAX_ROUNDS: usize = 4;

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
    /// Units of one function no round ran because their run would inline nothing (no
    /// call of their bodies names a defined function) and the rounds did not infer
    /// `function-attrs`: the walk ran them itself, and the runs that depend on them
    /// read them as committed.
    pub inert: usize,
    /// Runs the walk refused at their unit's turn whose writes its own run on the unit
    /// reproduced: the runs chained on them may still be taken.
    pub reproduced: usize,
    /// Inferences of `function-attrs` made with the runs that the walk took.
    pub attrs_taken: usize,
    /// The rounds stopped inferring `function-attrs`: of the first [`TRIAL`] or more
    /// runs whose turn had come, fewer than one in [`ATTRS_PAY`] tested an attribute
    /// that a chained run's inference answered otherwise than the walk's copy.
    pub attrs_stopped: bool,
    /// The walk stopped starting rounds: it took too few of the runs (fewer than three
    /// in four of the first [`TRIAL`] or more whose turn had come).
    pub stopped: bool,
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
    /// Per position covered: the unit's run would inline nothing (no call of its body
    /// names a defined function) and the rounds do not infer `function-attrs`, so no
    /// round runs it and the runs that depend on it read it from their round's copy, as
    /// committed: the walk's run leaves its body, the use counts and every other
    /// function as they are.
    inert: Vec<bool>,
    /// The knobs, shared with the rounds.
    opts: Arc<Options>,
    /// The rounds under way, in post-order: the one the walk is in (or reaches next)
    /// first; each chained on the one before it.
    rounds: VecDeque<Arc<Round>>,
    /// The positions before it were considered for a round.
    frontier: usize,
    /// The functions' names, shared by the rounds' copies of the call graph.
    names: Names,
    /// The cost analysis' tables the runs reuse ([`Round`]'s).
    scratch: Arc<Mutex<Vec<Scratch>>>,
    /// The pipeline runs `function-attrs`: runs infer their units' attributes too.
    attrs: bool,
    pub(crate) stats: AheadStats,
}

/// One round: its units (window positions), the runs they wait for, their results, and
/// what they read — a copy of the walk's state and call graph taken when the round
/// began, and the runs of the round before it, which the walk has not committed.
#[derive(Debug)]
struct Round {
    st: Arc<State>,
    g: Arc<FrozenGraph>,
    /// A copy of the walk's `function-attrs` attributes when the round began, when
    /// the pipeline runs the pass: each run infers its unit's attributes over it; and
    /// copies runs finished with, for the next runs.
    attrs: Option<Arc<Inference>>,
    spare: Mutex<Vec<Inference>>,
    /// The cost analysis' tables runs left, for the next runs of any round (shared by
    /// the walk's rounds, dropped with them).
    scratch: Arc<Mutex<Vec<Scratch>>>,
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
    /// units of the rounds before (`olds`) it reads, made or still running, as (round,
    /// unit) there.
    reads: Vec<Vec<usize>>,
    reads_old: Vec<Vec<(u32, u32)>>,
    /// The round's number in the walk, and those of the rounds under way when it began
    /// (`olds`, by their place there).
    id: usize,
    old_ids: Vec<usize>,
    /// The rounds under way when this one began, oldest first, until this one has
    /// finished.
    olds: Mutex<Vec<Arc<Round>>>,
    /// The round after, once started: the helpers run its units when this one has none
    /// ready.
    succ: OnceLock<Arc<Round>>,
    /// Per unit: how many of its direct dependencies in the round have not finished;
    /// the units that wait for it.
    waiting: Vec<AtomicU32>,
    dependents: Vec<Vec<usize>>,
    /// Per unit: a worker (or the walk) took it to run; the units before
    /// `first_open` are all taken.
    claimed: Vec<AtomicBool>,
    first_open: AtomicUsize,
    made: Vec<OnceLock<Option<Arc<Unit>>>>,
    /// Units not finished yet.
    left: AtomicUsize,
}

impl Round {
    /// Starts the round: one helper per other worker of the pool.
    fn start(self: &Arc<Round>) {
        for _ in 1..rayon::current_num_threads() {
            let r = Arc::clone(self);
            rayon::spawn(move || r.help());
        }
    }

    /// Unit `w` waits for no run any more: its dependencies in this round and the runs
    /// of the rounds before it reads (`olds`, empty once this round has finished) have
    /// finished.
    fn ready(&self, w: usize, olds: &[Arc<Round>]) -> bool {
        self.waiting[w].load(Ordering::Acquire) == 0
            && self.reads_old[w].iter().all(|&(r, k)| {
                olds.get(r as usize)
                    .is_some_and(|o| o.made[k as usize].get().is_some())
            })
    }

    /// The cost analysis' tables runs left.
    fn scratch_pool(&self) -> std::sync::MutexGuard<'_, Vec<Scratch>> {
        self.scratch.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The rounds before, while this one runs.
    fn olds(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Round>>> {
        self.olds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes unit `w` to run it, when it is ready and no worker took it.
    fn claim(&self, w: usize, olds: &[Arc<Round>]) -> bool {
        !self.claimed[w].load(Ordering::Acquire)
            && self.ready(w, olds)
            && !self.claimed[w].swap(true, Ordering::AcqRel)
    }

    /// The first unit, in post-order, ready and not taken yet, taken.
    fn claim_next(&self) -> Option<usize> {
        let olds = self.olds();
        let from = self.first_open.load(Ordering::Acquire);
        let mut all_taken = true;
        for w in from..self.pos.len() {
            if self.claimed[w].load(Ordering::Acquire) {
                if all_taken {
                    self.first_open.fetch_max(w + 1, Ordering::AcqRel);
                }
                continue;
            }
            all_taken = false;
            if self.claim(w, &olds[..]) {
                return Some(w);
            }
        }
        None
    }

    /// Runs unit `w` over the runs of the units it depends on, then counts it done for
    /// the units that wait for it. A run that panics (a bug) is not made: the walk makes
    /// the unit itself and meets the failure, if at all, where the sequential run would.
    fn run(&self, w: usize) {
        // the runs of the rounds before that it reads, held by the run (those rounds may
        // finish meanwhile); not the rounds themselves, whose reference counts every run
        // of both threads would write
        let old_made: Option<Vec<Arc<Unit>>> = {
            let olds = self.olds();
            self.reads_old[w]
                .iter()
                .map(|&(r, k)| {
                    olds.get(r as usize)
                        .and_then(|o| o.made[k as usize].get())
                        .and_then(Clone::clone)
                })
                .collect()
        };
        let deps_made = old_made.as_ref().and_then(|old| {
            self.reads[w]
                .iter()
                .map(|&d| self.made[d].get().and_then(|u| u.as_deref()))
                .chain(old.iter().map(|u| Some(&**u)))
                .collect::<Option<Vec<&Unit>>>()
        });
        let made = match deps_made {
            Some(chain) if !self.blocked[w] => {
                // what the runs read inferred, when this round infers too
                let chain_attrs: Vec<&MadeAttrs> = match self.attrs {
                    Some(_) => chain.iter().filter_map(|u| u.attrs.as_ref()).collect(),
                    None => Vec::new(),
                };
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    // the expressions the chained bodies may name: the runs' own and
                    // those of the runs they read, each once
                    let mut exprs: Vec<Arc<Private>> = Vec::new();
                    for u in &chain {
                        for p in u.exprs.iter().chain(&u.read_exprs) {
                            if !exprs.iter().any(|q| Arc::ptr_eq(p, q)) {
                                exprs.push(Arc::clone(p));
                            }
                        }
                    }
                    let (folds, alias) =
                        Folds::speculative(self.st.frozen_copy(), self.unit[w].1, exprs);
                    // the chained bodies as the run reads them: one number per structure
                    let renumbered = Chain::renumbered(&chain, &alias);
                    let mut scratch = self.scratch_pool().pop().unwrap_or_default();
                    let u = speculate(
                        (&self.st, Chain::new(&chain, &renumbered)),
                        folds,
                        (&self.pass.0, self.pass.1),
                        self.unit[w],
                        &self.g,
                        &self.opts,
                        &mut scratch,
                    );
                    self.scratch_pool().push(scratch);
                    let mut u = u?;
                    if let Some(base) = &self.attrs {
                        self.infer_attrs(base, &mut u, &chain_attrs);
                    }
                    Some(u)
                }))
                .ok()
                .flatten()
                .map(Arc::from)
            }
            _ => None,
        };
        drop(old_made);
        let _ = self.made[w].set(made);
        for &d in &self.dependents[w] {
            self.waiting[d].fetch_sub(1, Ordering::AcqRel);
        }
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            // finished: the rounds before are read no more
            if let Ok(mut o) = self.olds.lock() {
                o.clear();
            }
        }
    }

    /// `function-attrs` on the unit of run `u` ahead, over `base` and the inferences of
    /// the runs it read (`chain`), when its body names no provisional numbers.
    fn infer_attrs(&self, base: &Inference, u: &mut Unit, chain: &[&MadeAttrs]) {
        let n = u.n;
        let Some(inputs) = u.attrs_inputs(&self.st) else {
            return;
        };
        let made = self.st.body_store().1;
        let spare = self.spare.lock().ok().and_then(|mut s| s.pop());
        let mut inf = spare.unwrap_or_else(|| base.clone());
        let dropped = inputs.must_progress_dropped;
        let a = inf.infer_ahead(base, (n, inputs.body, inputs.uses), made, chain, dropped);
        u.attrs = Some(a);
        if let Ok(mut s) = self.spare.lock() {
            s.push(inf);
        }
    }

    /// A helper: runs the units of this round, first in post-order first, and of the
    /// rounds after it while this one has none ready, until this one has finished;
    /// yields the core while no unit is ready.
    fn help(self: Arc<Round>) {
        self.help_until(|| false);
    }

    /// Runs ready units not taken yet — this round's, first in post-order first, else
    /// those of the rounds after it — until `done` or every unit of this round has run;
    /// yields the core while none is ready. The walk waiting for a unit a worker is
    /// running runs the later rounds' units too: on two workers it would otherwise
    /// wait idle about a twentieth of the walk, while the other worker has runs to
    /// make (PERF.md).
    fn help_until(&self, done: impl Fn() -> bool) {
        while !done() && self.left.load(Ordering::Acquire) > 0 {
            if !self.run_next() {
                std::thread::yield_now();
            }
        }
    }

    /// Runs the first ready unit not taken yet of this round or, with none, of the
    /// rounds after it; `false` when none is ready.
    fn run_next(&self) -> bool {
        let mut r = self;
        loop {
            if let Some(w) = r.claim_next() {
                r.run(w);
                return true;
            }
            match r.succ.get() {
                Some(n) => r = n,
                None => return false,
            }
        }
    }

    /// Most of the round's units have finished: the workers will soon have none of its
    /// units to run.
    fn running_out(&self) -> bool {
        self.left.load(Ordering::Acquire) * 2 <= self.pos.len()
    }

    /// Waits for every unit of the round, running its units meanwhile.
    fn wait(&self) {
        self.help_until(|| false);
    }

    /// Waits for unit `w`'s run (made or not), running it, or the units ready before
    /// it is, meanwhile.
    fn wait_for(&self, w: usize) {
        let ready = self.claim(w, &self.olds()[..]);
        if ready {
            self.run(w);
        }
        self.help_until(|| self.made[w].get().is_some());
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
        let attrs =
            opts.run_ahead_attrs && m.fn_attrs.is_some() && passes.iter().any(|p| p.infers_attrs());
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
            inert: vec![false; units.len()],
            units,
            opts: Arc::new(opts.clone()),
            rounds: VecDeque::new(),
            frontier: 0,
            names: Arc::new(m.summ.names.clone()),
            scratch: Arc::default(),
            attrs,
            stats: AheadStats::default(),
        })
    }

    /// Before the walk takes position `i`: starts the next round when the walk has
    /// entered the last one under way or most of that one has finished (or, with none under way,
    /// when `i` is a unit of one function no round covered), then waits for position
    /// `i`'s run, if a round has one, running the round's units meanwhile, and hands it
    /// to the walk.
    pub(crate) fn before(&mut self, i: usize, m: &mut CgsccModule) {
        while self.rounds.front().is_some_and(|r| r.end <= i) {
            self.rounds.pop_front();
        }
        if !self.stats.stopped && self.stats.made >= TRIAL {
            // the runs the walk refused it made again itself: with too many, running
            // ahead costs more than it gives (a module whose functions `function-attrs`
            // gives attributes the runs chained on them tested)
            let taken = m.llvm14.as_ref().map_or(0, |st| st.made_taken);
            self.stats.stopped = taken * 4 < self.stats.made * 3;
        }
        if self.attrs && self.stats.made >= TRIAL {
            // the runs' inferences pay where the runs chained on them would otherwise
            // be refused; once too few were, later rounds leave them to the walk
            let (taken, mattered) = m
                .llvm14
                .as_ref()
                .map_or((0, 0), |st| (st.made_taken, st.attrs_mattered));
            if mattered * ATTRS_PAY < taken {
                self.attrs = false;
                self.stats.attrs_stopped = true;
            }
        }
        // the pool's workers make the inliner's tables first (`prefetch`): a round
        // started before they finish would wait for them, its runs made by the walk
        // itself, each at more than its cost in the walk's own form
        let tables_made = !self.opts.run_ahead_after_tables
            || m.llvm14.as_ref().is_none_or(|st| st.prefetch_done());
        let next = !self.stats.stopped
            && tables_made
            && match self.rounds.back() {
                None => self.units[i].is_some() && !self.tried[i],
                Some(last) => {
                    let entered = last.pos.first().is_some_and(|&p| p <= i);
                    last.succ.get().is_none()
                        && (entered || (self.rounds.len() < MAX_ROUNDS && last.running_out()))
                }
            };
        if next {
            let start = self.frontier.max(i);
            if let Some((window, end)) = self.window(start, m) {
                // the cost of a call depends on its callee's recursion
                let recursion = self.opts.inline.function_inline_cost_multiplier != 1;
                let snap = Snapshot::of(m, i, &mut self.names, (self.attrs, recursion));
                let r = self.launch(start, (window, end), &snap, m);
                if let Some(p) = self.rounds.back() {
                    let _ = p.succ.set(Arc::clone(&r));
                }
                r.start();
                self.stats.rounds += 1;
                self.rounds.push_back(r);
            }
        }
        let Some(r) = self
            .rounds
            .iter()
            .find(|r| r.pos.first().is_some_and(|&p| p <= i) && i < r.end)
        else {
            return;
        };
        let Ok(w) = r.pos.binary_search(&i) else {
            return;
        };
        r.wait_for(w);
        if let (Some(u), Some(st)) = (r.made[w].get().cloned().flatten(), m.llvm14.as_mut()) {
            self.stats.made += 1;
            st.put_made(u);
        }
    }

    /// The positions of one function from `start` on not yet covered, in the next
    /// window (marked covered), less the inert ones (marked), and the window's end;
    /// `None` when too few.
    fn window(&mut self, start: usize, m: &CgsccModule) -> Option<(Vec<usize>, usize)> {
        let end = (start + self.opts.run_ahead_window.max(1)).min(self.units.len());
        self.frontier = self.frontier.max(end);
        let mut window = Vec::new();
        for j in start..end {
            let Some((_, nd)) = self.units[j] else {
                continue;
            };
            if self.tried[j] {
                continue;
            }
            self.tried[j] = true;
            // not visited yet: its body is the one its run will read; while the runs
            // infer `function-attrs`, its run is made for the inference the runs that
            // depend on it read
            let inert = !self.attrs
                && m.llvm14
                    .as_ref()
                    .is_some_and(|st| st.inlines_nothing(function_of_node(nd)));
            if inert {
                self.inert[j] = true;
                self.stats.inert += 1;
            } else {
                window.push(j);
            }
        }
        (window.len() >= MIN_ROUND).then_some((window, end))
    }

    /// A round over `window` (positions from `start` to `end`), over copy `snap` of the
    /// walk's state and the runs of the rounds under way, which the walk has not
    /// committed (made or still running).
    fn launch(
        &self,
        start: usize,
        (window, end): (Vec<usize>, usize),
        snap: &Snapshot,
        m: &CgsccModule,
    ) -> Arc<Round> {
        // a run reads its callees' state, which a unit not committed changes only
        // through its body, deleted callees and use counts, unless the cost of a call
        // depends on the callee's recursion (which its edges, updated by the walk, say)
        let chains = self.opts.inline.function_inline_cost_multiplier == 1;
        // the positions before the copy's are committed in it
        let committed = snap.at;
        let olds: Vec<Arc<Round>> = self.rounds.iter().cloned().collect();
        // a position before the window: its run in a round under way, as (round, unit)
        let in_olds = |d: usize| {
            olds.iter()
                .enumerate()
                .rev()
                .find_map(|(r, o)| Some((r, o.pos.binary_search(&d).ok()?)))
        };
        let mut at: Vec<Option<usize>> = vec![None; end - start];
        for (w, &j) in window.iter().enumerate() {
            at[j - start] = Some(w);
        }
        let n = window.len();
        let mut blocked = vec![false; n];
        let mut direct: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut reads: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut reads_old: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (w, &j) in window.iter().enumerate() {
            let (c, nd) = self.units[j].expect("a unit of one function");
            blocked[w] = m.graph.is_removed(nd) || m.graph.scc_of(nd) != Some(c);
            let (mut r, mut rp) = (Vec::new(), Vec::new());
            for &d in m.dag.deps(j) {
                let d = d as usize;
                // committed in the copy, or inert: the copy holds what its turn leaves
                if d < committed || self.inert[d] {
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
                            rp.extend_from_slice(&reads_old[dw]);
                        }
                        None => blocked[w] = true,
                    }
                } else {
                    match in_olds(d) {
                        Some((o, k)) => {
                            // the run, and what it read of the runs the walk has not
                            // committed: of its own round and of the rounds before it
                            let p = &olds[o];
                            rp.push((o as u32, k as u32));
                            rp.extend(
                                p.reads[k]
                                    .iter()
                                    .filter(|&&x| p.pos[x] >= committed)
                                    .map(|&x| (o as u32, x as u32)),
                            );
                            for &(r0, k0) in &p.reads_old[k] {
                                let Some(o0) = p
                                    .old_ids
                                    .get(r0 as usize)
                                    .and_then(|&id| olds.iter().position(|x| x.id == id))
                                else {
                                    // a round no longer under way: all committed
                                    continue;
                                };
                                if olds[o0].pos[k0 as usize] >= committed {
                                    rp.push((o0 as u32, k0));
                                }
                            }
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
            reads_old[w] = rp;
        }
        Arc::new(Round {
            st: Arc::clone(&snap.st),
            g: Arc::clone(&snap.g),
            attrs: snap.attrs.clone(),
            spare: Mutex::new(Vec::new()),
            scratch: Arc::clone(&self.scratch),
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
            reads_old,
            id: self.stats.rounds,
            old_ids: olds.iter().map(|o| o.id).collect(),
            olds: Mutex::new(olds),
            succ: OnceLock::new(),
            waiting: direct
                .iter()
                .map(|d| AtomicU32::new(d.len() as u32))
                .collect(),
            dependents,
            claimed: (0..n).map(|_| AtomicBool::new(false)).collect(),
            first_open: AtomicUsize::new(0),
            made: (0..n).map(|_| OnceLock::new()).collect(),
            left: AtomicUsize::new(n),
        })
    }

    /// After the walk finished position `i`: a run made for it and not taken goes.
    pub(crate) fn after(&mut self, i: usize, m: &mut CgsccModule) {
        if let (Some((_, nd)), Some(st)) = (self.units[i], m.llvm14.as_mut()) {
            st.take_made(function_of_node(nd));
        }
    }

    /// The walk's end: waits for a round still under way (its runs read copies only).
    pub(crate) fn finish(&mut self) {
        for r in std::mem::take(&mut self.rounds) {
            r.wait();
        }
    }
}

/// A copy of the walk's state (its constant-expression tables frozen) and call graph
/// for a round.
struct Snapshot {
    st: Arc<State>,
    g: Arc<FrozenGraph>,
    /// `function-attrs`' attributes, when runs infer them.
    attrs: Option<Arc<Inference>>,
    /// The walk's position when it was taken: everything before is committed.
    at: usize,
}

impl Snapshot {
    /// `recursion`: the runs' decisions read whether callees are in cycles of calls.
    fn of(
        m: &mut CgsccModule,
        at: usize,
        names: &mut Names,
        (attrs, recursion): (bool, bool),
    ) -> Snapshot {
        if names.len() != m.summ.names.len() {
            *names = Arc::new(m.summ.names.clone());
        }
        let g = Arc::new(FrozenGraph::of(m, Arc::clone(names), recursion));
        let attrs = m
            .fn_attrs
            .as_ref()
            .filter(|_| attrs)
            .map(|i| Arc::new(i.clone()));
        let st = m.llvm14.as_mut().expect("the inliner's state");
        if st.fx.unit_pos.is_empty() {
            st.fx.unit_pos = (0..st.fx.is_def.len())
                .map(|f| {
                    let nd = crate::callgraph::node_of_function(FuncIdx::new(f));
                    m.dag.unit_of(nd).map_or(u32::MAX, |p| p as u32)
                })
                .collect();
        }
        let folds = st.frozen_folds();
        let mut copy = st.snapshot(folds);
        copy.fx.committed = at as u32;
        Snapshot {
            st: Arc::new(copy),
            g,
            attrs,
            at,
        }
    }
}
