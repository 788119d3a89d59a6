//! Where one inliner run reads and writes the inliner's state: the walk's own
//! [`State`], or a [`Spec`] — a run of one unit made ahead of the walk on another
//! worker, reading a copy of the walk's state taken when its round began
//! ([`State::snapshot`]) and keeping its own writes aside, for the walk to take at the
//! unit's turn ([`Unit`]).
//!
//! The run's code (`run.rs`, `decide.rs`, the caller's facts) is one, written against
//! [`Store`]; only where a value lives differs. A speculative run reads the walk's
//! tables as they stood when it began and journals what the sequential walk could
//! have changed before the unit's turn:
//!
//! - the live-use counts it tested (last call to a static callee, a callee left
//!   dead): each test's answer, asked again of the walk's count at the unit's turn;
//!   a discardable callee in a comdat left without uses is only read by the end of
//!   the run, so that test is not made ahead but at the turn, where the walk's count
//!   answers it (other callers of a shared `linkonce_odr` callee, outside the unit's
//!   dependencies, decide which of them leaves it unused);
//! - every function whose body or deletion it read: the function's version (bumped
//!   by every body edit and deletion), compared too;
//! - every test of a function's attributes ([`super::FnAttrs::has`], journaled on
//!   the run's thread): each answer, asked again of the walk's attributes at the
//!   unit's turn (`function-attrs` may have changed them since the copy: for a
//!   callee not committed then, or one that a chained run's body calls); a chained
//!   run's function is tested on the attributes `function-attrs` inferred in that
//!   run, when it did (`cgscc::ahead`);
//! - the runs of uncommitted units it read in place of the walk's state ([`Chain`]):
//!   each must have been taken, its body unchanged since;
//! - the provisional numbers of constant expressions other runs made that it names
//!   (found by structure among the chain's, `fold`): each must have been committed
//!   by the walk, its run taken;
//! - whether the other functions it read had `mustprogress` (a caller with it keeps it
//!   only when its inlined callee has it, a chained run may have dropped it): journaled
//!   with the attribute tests;
//!
//! A constant expression the tables lack gets a provisional number of the run's own,
//! which the walk replaces by its own numbering when it takes the run
//! ([`Unit::install`]). The run gives up (the walk then runs the unit itself) where it
//! would have had to add to the other table the walk numbers: a debug location's
//! inlined copy the walk's table does not have yet.
//!
//! A function's attributes change only at its own SCC's visit (`function-attrs`;
//! `mustprogress` lost in its own run), which for a dependency of the unit comes before
//! the unit's turn: the journal of the tests is what makes a run over a copy taken
//! earlier hold or not.

use super::clone::{self, ArgFacts, Inlined};
use super::{cost, fold::Folds, PredTable, State, Summary};
use crate::callgraph::NodeIdx;
use crate::cgscc::inliner::remark::Remark;
use crate::hash::FixedMap;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{Body, RowIdx};
use crate::llvm::ir::debugloc::DebugLocIdx;
use crate::llvm::ir::ExprIdx;
use crate::llvm::FuncIdx;
use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};

/// A call site to inline: caller, call row, callee.
type Site = (FuncIdx, RowIdx, FuncIdx);

/// A body's predecessor table and ephemeral rows, as the walk keeps them.
type BodyTables = (Arc<PredTable>, Arc<[RowIdx]>);

/// The inliner's state as one run sees it.
pub(super) trait Store: cost::Functions {
    /// The walk's state: read for what the run never writes (module facts, comdats,
    /// the walk's tables as they stand).
    fn sh(&self) -> &State;
    /// `f`'s body was deleted.
    fn is_deleted(&self, f: FuncIdx) -> bool;
    /// `f` has `v` live uses.
    fn uses_are(&self, f: FuncIdx, v: i64) -> bool;
    /// Adds `d` to `f`'s live uses.
    fn add_uses(&mut self, f: FuncIdx, d: i64);
    /// Whether discardable `f`, in a comdat, is left without uses, so that the end of
    /// the run considers deleting it; `None` when a speculative run leaves the test to
    /// the unit's turn (its answer changes nothing in the run before its end).
    fn dead_in_comdat(&mut self, f: FuncIdx) -> Option<bool>;
    /// Deletes `f`'s body (its references already left the use counts).
    fn clear_body(&mut self, f: FuncIdx);
    /// `f`'s body for editing.
    fn body_mut(&mut self, f: FuncIdx) -> &mut Body;
    /// Inlines `f`'s current body at `row` of `n` (`(n, row, f)`); `None` when a
    /// speculative run cannot (it gives up: a callee it deleted, more constant
    /// expressions than it may number).
    fn inline_into(&mut self, site: Site, args: &ArgFacts) -> Option<Inlined>;
    /// Drops what was computed from `f`'s body, which changed.
    fn body_changed(&mut self, f: FuncIdx);
    /// Keeps `f`'s predecessor table and ephemeral rows.
    fn set_tables(&mut self, f: FuncIdx, t: PredTable, eph: Box<[RowIdx]>);
    /// `f`'s block frequencies, when computed for its current body.
    fn bfi(&self, f: FuncIdx) -> Option<Arc<Vec<u64>>>;
    /// Keeps `f`'s block frequencies for its current body.
    fn set_bfi(&mut self, f: FuncIdx, v: Arc<Vec<u64>>);
    /// The constant expressions, the module's and the ones inlining made.
    fn folds(&self) -> &Folds;
    /// Location `loc` inlined at `site`; `None` when a speculative run would have had
    /// to make it.
    fn inline_loc(&mut self, loc: DebugLocIdx, site: DebugLocIdx) -> Option<DebugLocIdx>;
    /// `f` has `mustprogress`.
    fn must_progress(&self, f: FuncIdx) -> bool {
        self.sh().fx.attr_set(f).has(Attr::MustProgress)
    }
    /// Removes `mustprogress` from `n` (`mergeAttributesForInlining`).
    fn drop_must_progress(&mut self, n: FuncIdx);
    /// A speculative run gave up.
    fn gave_up(&self) -> bool {
        false
    }
}

impl Store for State {
    fn sh(&self) -> &State {
        self
    }
    fn is_deleted(&self, f: FuncIdx) -> bool {
        self.deleted[f.idx()]
    }
    fn uses_are(&self, f: FuncIdx, v: i64) -> bool {
        self.uses[f.idx()] == v
    }
    fn add_uses(&mut self, f: FuncIdx, d: i64) {
        self.uses[f.idx()] += d;
    }
    fn dead_in_comdat(&mut self, f: FuncIdx) -> Option<bool> {
        Some(self.uses_are(f, 0))
    }
    fn clear_body(&mut self, f: FuncIdx) {
        self.cleared += 1;
        self.deleted[f.idx()] = true;
        self.bodies[f.idx()] = Some(Arc::default());
        self.use_tables[f.idx()] = None;
        self.ver[f.idx()] += 1;
    }
    fn body_mut(&mut self, f: FuncIdx) -> &mut Body {
        super::edit(&mut self.bodies, &self.fx.ir, f)
    }
    fn inline_into(&mut self, (n, row, f): Site, args: &ArgFacts) -> Option<Inlined> {
        let ir = &*self.fx.ir;
        // the callee's body is read from the module in place or, when a pass edited
        // it, shared out of the store while the caller's is edited (a call of a
        // function to itself, which `decide` refuses, would copy the caller first)
        let lent = self.bodies[f.idx()].clone();
        let callee_body = lent.as_deref().unwrap_or_else(|| ir.body(f));
        let caller_body = super::edit(&mut self.bodies, ir, n);
        let out = clone::inline_call(
            &self.fx,
            &mut self.folds,
            (n, caller_body),
            row,
            callee_body,
            args,
        );
        Some(out)
    }
    fn body_changed(&mut self, f: FuncIdx) {
        State::body_changed(self, f);
    }
    fn set_tables(&mut self, f: FuncIdx, t: PredTable, eph: Box<[RowIdx]>) {
        self.preds[f.idx()] = Some(Arc::new(t));
        self.eph[f.idx()] = Some(eph.into());
    }
    fn bfi(&self, f: FuncIdx) -> Option<Arc<Vec<u64>>> {
        self.bfi[f.idx()].clone()
    }
    fn set_bfi(&mut self, f: FuncIdx, v: Arc<Vec<u64>>) {
        self.bfi[f.idx()] = Some(v);
    }
    fn folds(&self) -> &Folds {
        &self.folds
    }
    fn inline_loc(&mut self, loc: DebugLocIdx, site: DebugLocIdx) -> Option<DebugLocIdx> {
        Some(self.locs.inline_at(loc, site))
    }
    fn drop_must_progress(&mut self, n: FuncIdx) {
        let mut a = *self.fx.attr_set(n);
        a.remove(Attr::MustProgress);
        self.set_cur_attrs(n, a);
    }
}

/// What a speculative run reads in place of the walk's state: the runs of units it
/// depends on that the walk has not committed yet (their bodies, deleted callees and
/// use-count changes). A run that read one holds only if the walk takes that run and
/// nothing changes its function after ([`Unit::holds`]).
#[derive(Debug, Default)]
pub(crate) struct Chain<'a> {
    units: FixedMap<FuncIdx, &'a Unit>,
    /// Per deleted callee: the unit whose run deleted it.
    cleared: FixedMap<FuncIdx, FuncIdx>,
    /// The bodies of runs read through aliases of their constant expressions' numbers,
    /// in place of the runs' own ([`Chain::renumbered`]).
    bodies: FixedMap<FuncIdx, &'a Body>,
}

impl<'a> Chain<'a> {
    /// Over the runs `units`, whose bodies are read as `renumbered` has them, where it
    /// has one.
    pub(crate) fn new(units: &[&'a Unit], renumbered: &'a [(FuncIdx, Body)]) -> Chain<'a> {
        let mut c = Chain::default();
        c.units.reserve(units.len());
        c.cleared
            .reserve(units.iter().map(|u| u.cleared.len()).sum::<usize>());
        for &u in units {
            c.units.insert(u.n, u);
            for &f in &u.cleared {
                c.cleared.insert(f, u.n);
            }
        }
        for (f, b) in renumbered {
            c.bodies.insert(*f, b);
        }
        c
    }

    /// Copies of the bodies of `units` that name constant expressions `alias` gives
    /// other numbers ([`super::fold::Folds::speculative`]), renumbered: what a run
    /// reads in their place ([`Chain::new`]).
    pub(crate) fn renumbered(
        units: &[&Unit],
        alias: &super::fold::Aliases,
    ) -> Vec<(FuncIdx, Body)> {
        if alias.is_empty() {
            return Vec::new();
        }
        units
            .iter()
            .filter_map(|u| {
                let b = u.body.as_deref()?;
                if !b.named_exprs().any(|e| alias.contains_key(&e)) {
                    return None;
                }
                let mut b = b.clone();
                b.renumber_exprs(|e| alias.get(&e).copied());
                Some((u.n, b))
            })
            .collect()
    }

    /// The unit whose run deleted `f`'s body, if one did.
    fn cleared_by(&self, f: FuncIdx) -> Option<FuncIdx> {
        self.cleared.get(&f).copied()
    }

    /// The runs' changes to `f`'s use count.
    fn uses(&self, f: FuncIdx) -> i64 {
        self.units
            .values()
            .filter_map(|u| {
                let at = u.uses.binary_search_by_key(&f, |x| x.0).ok()?;
                Some(u.uses[at].1)
            })
            .sum()
    }
}

/// A speculative run of the inliner on a unit of one function: its writes, kept aside
/// over the walk's state it reads.
pub(crate) struct Spec<'a> {
    base: &'a State,
    /// Runs of uncommitted units it depends on, read in place of `base`.
    chain: Chain<'a>,
    /// The unit's function.
    n: FuncIdx,
    /// Its body once inlining edited it.
    body: Option<Body>,
    /// Its body changed: the walk's tables of it no longer hold.
    n_changed: bool,
    /// Callees whose bodies the run deleted, and the empty body they now have.
    cleared: Vec<FuncIdx>,
    empty: Body,
    /// Use-count changes.
    uses: FixedMap<FuncIdx, i64>,
    /// Tables the run made.
    tables: FixedMap<FuncIdx, BodyTables>,
    bfi: FixedMap<FuncIdx, Arc<Vec<u64>>>,
    folds: Folds,
    /// `mustprogress` left the unit's function.
    must_progress_dropped: bool,
    /// What the walk may change before the unit's turn: the use counts' tests and
    /// (function, version seen).
    uses_read: RefCell<Vec<UsesRead>>,
    /// The tests of functions' attributes it made ([`super::FnAttrs::has`]; whether
    /// another function had `mustprogress`, as a chained run left it, among them).
    attr_tests: super::AttrJournal,
    versions_read: RefCell<Vec<(FuncIdx, u32)>>,
    /// The units of `chain` it read.
    chained_read: RefCell<Vec<FuncIdx>>,
    /// The comdat deadness tests left to the unit's turn: callee, the run's own change
    /// to its use count then.
    comdat_tests: Vec<(FuncIdx, i64)>,
    gave_up: bool,
}

impl<'a> Spec<'a> {
    /// A run on the unit of function `n` over `base` and the runs of `chain`; `folds`
    /// is a frozen copy of the walk's ([`Folds::frozen`]).
    pub(crate) fn new(base: &'a State, chain: Chain<'a>, n: FuncIdx, folds: Folds) -> Spec<'a> {
        // what `function-attrs` inferred ahead for the chained runs' functions is what
        // their tests read
        let inferred: Vec<(FuncIdx, crate::llvm::attrs::AttrSet)> = chain
            .units
            .values()
            .filter_map(|u| Some((u.n, *u.attrs.as_ref()?.fn_attrs())))
            .collect();
        Spec {
            base,
            chain,
            n,
            body: None,
            n_changed: false,
            cleared: Vec::new(),
            empty: Body::default(),
            uses: FixedMap::default(),
            tables: FixedMap::default(),
            bfi: FixedMap::default(),
            folds,
            must_progress_dropped: false,
            uses_read: RefCell::new(Vec::new()),
            attr_tests: super::AttrJournal::start(inferred),
            versions_read: RefCell::new(vec![(n, base.ver[n.idx()])]),
            chained_read: RefCell::new(Vec::new()),
            comdat_tests: Vec::new(),
            gave_up: false,
        }
    }

    fn read_version(&self, f: FuncIdx) {
        if self.attr_tests.first_version_read(f) {
            self.versions_read
                .borrow_mut()
                .push((f, self.base.ver[f.idx()]));
        }
    }

    /// `f`'s run in the chain, noted as read.
    fn chained(&self, f: FuncIdx) -> Option<&'a Unit> {
        let u = self.chain.units.get(&f).copied()?;
        self.chained_read.borrow_mut().push(f);
        Some(u)
    }

    /// `f`'s body as the run reads it: the chain's, else the walk's (its version noted).
    fn other_body(&self, f: FuncIdx) -> &'a Body {
        match self.chained(f) {
            Some(u) => match self.chain.bodies.get(&f) {
                Some(b) => b,
                None => u.body.as_deref().unwrap_or_else(|| self.base.body(f)),
            },
            None => {
                self.read_version(f);
                self.base.body(f)
            }
        }
    }

    /// The walk's tables of `f` do not describe the body the run reads.
    fn tables_stale(&self, f: FuncIdx) -> bool {
        (f == self.n && self.n_changed) || self.chained_body(f).is_some()
    }

    /// The run reads `f`'s body as the round's copy has it: the tables made of it serve
    /// the round's other runs too.
    fn reads_copy_body(&self, f: FuncIdx) -> bool {
        !self.tables_stale(f) && !self.cleared.contains(&f) && self.chain.cleared_by(f).is_none()
    }

    /// `f`'s run in the chain, when it changed `f`'s body: the tables of the body it
    /// left are made once, by the first run of the round that needs them.
    fn chained_body(&self, f: FuncIdx) -> Option<&'a Unit> {
        self.chain
            .units
            .get(&f)
            .copied()
            .filter(|u| u.body.is_some())
    }

    /// What the run leaves for the walk, with the run's own record `out`.
    pub(crate) fn finish(self, out: RunOut, pass: (Arc<str>, bool)) -> Option<Box<Unit>> {
        if self.gave_up || self.folds.missed() {
            return None;
        }
        let mut versions = self.versions_read.into_inner();
        versions.sort_unstable();
        versions.dedup();
        let mut chained = self.chained_read.into_inner();
        chained.sort_unstable();
        chained.dedup();
        let mut uses_read = self.uses_read.into_inner();
        uses_read.sort_unstable();
        uses_read.dedup();
        let mut uses: Vec<(FuncIdx, i64)> = self.uses.into_iter().filter(|x| x.1 != 0).collect();
        uses.sort_unstable();
        let keep = |f: &FuncIdx| *f != self.n || !self.n_changed;
        let fx = &self.base.fx;
        let calls_before = fx.count_calls(self.base.body(self.n));
        let calls_after = match &self.body {
            Some(b) => fx.count_calls(b),
            None => calls_before,
        };
        let summary = self
            .body
            .as_ref()
            .map(|b| super::summarize(fx, &self.folds, b));
        let use_table = self.body.as_ref().map(Body::use_table);
        let exprs = self.folds.private().map(Arc::new);
        let read_exprs = self.folds.read_privates().to_vec();
        // the provisional numbers of other runs it names: the walk must have committed
        // them (their runs taken) for it to be taken
        let is_own = |e| exprs.as_ref().is_some_and(|p| p.made.owns(e));
        let named = || {
            self.body
                .iter()
                .flat_map(|b| b.named_exprs())
                .chain(exprs.iter().flat_map(|p| p.operand_exprs()))
                .filter(|&e| super::fold::is_provisional(e))
        };
        // a body names provisional numbers only of the expressions the run made or read
        // with the chained bodies (the walk's copy has its own numbers only): without
        // either, its operands need no look
        let mut foreign: Vec<ExprIdx> = if exprs.is_none() && read_exprs.is_empty() {
            debug_assert!(named().next().is_none());
            Vec::new()
        } else {
            named().collect()
        };
        let provisional = !foreign.is_empty();
        foreign.retain(|&e| !is_own(e));
        foreign.sort_unstable();
        foreign.dedup();
        // every number it names is one of the runs it read, whose bodies it copied
        debug_assert!(foreign
            .iter()
            .all(|&e| read_exprs.iter().any(|p| p.made.owns(e))));
        // the last tests of attributes were made above
        let attrs_read = self.attr_tests.tests();
        let attrs_mattered = self.attr_tests.mattered();
        Some(Box::new(Unit {
            n: self.n,
            pass: pass.0,
            only_mandatory: pass.1,
            versions,
            uses_read,
            attrs_read,
            chained,
            comdat_tests: self.comdat_tests,
            calls_before,
            calls_after,
            exprs,
            read_exprs,
            provisional,
            foreign,
            body: self.body.map(Arc::new),
            uses,
            cleared: self.cleared,
            must_progress_dropped: self.must_progress_dropped,
            tables: self.tables.into_iter().filter(|x| keep(&x.0)).collect(),
            bfi: self.bfi.into_iter().filter(|x| keep(&x.0)).collect(),
            shared: OnceLock::new(),
            shared_bfi: OnceLock::new(),
            attrs: None,
            attrs_mattered,
            parts: Mutex::new(Parts {
                out,
                summary,
                use_table,
            }),
        }))
    }
}

impl cost::Functions for Spec<'_> {
    fn body(&self, f: FuncIdx) -> &Body {
        if f == self.n {
            if let Some(b) = &self.body {
                return b;
            }
        }
        if self.cleared.contains(&f) {
            return &self.empty;
        }
        if let Some(k) = self.chain.cleared_by(f) {
            self.chained_read.borrow_mut().push(k);
            return &self.empty;
        }
        self.other_body(f)
    }
    fn tables(&self, f: FuncIdx) -> Option<(&PredTable, &[RowIdx])> {
        if let Some((p, e)) = self.tables.get(&f) {
            return Some((p, e));
        }
        if let Some(u) = self.chained_body(f) {
            return u.shared.get().map(|(p, e)| (&**p, &**e));
        }
        if self.tables_stale(f) {
            return None;
        }
        cost::Functions::tables(self.base, f)
            .or_else(|| self.base.round_tables(f).map(|(p, e)| (&**p, &**e)))
    }
    fn freqs(&self, f: FuncIdx) -> Option<&[u64]> {
        if let Some(v) = self.bfi.get(&f) {
            return Some(v);
        }
        if let Some(u) = self.chained_body(f) {
            return u.shared_bfi.get().map(|v| v.as_slice());
        }
        if self.tables_stale(f) {
            return None;
        }
        cost::Functions::freqs(self.base, f)
            .or_else(|| self.base.round_bfi(f).map(|v| v.as_slice()))
    }
}

impl Store for Spec<'_> {
    fn sh(&self) -> &State {
        self.base
    }
    fn is_deleted(&self, f: FuncIdx) -> bool {
        if self.cleared.contains(&f) {
            return true;
        }
        if let Some(k) = self.chain.cleared_by(f) {
            self.chained_read.borrow_mut().push(k);
            return true;
        }
        if self.chained(f).is_some() {
            return false;
        }
        self.read_version(f);
        self.base.deleted[f.idx()]
    }
    fn uses_are(&self, f: FuncIdx, v: i64) -> bool {
        // the test holds at the unit's turn when the walk's count (with the chain's
        // changes by then) plus the run's own gives the same answer
        let own = self.uses.get(&f).copied().unwrap_or(0);
        let chain = self.chain.uses(f);
        let is = self.base.uses[f.idx()] + chain + own == v;
        self.uses_read.borrow_mut().push(UsesRead { f, own, v, is });
        is
    }
    fn add_uses(&mut self, f: FuncIdx, d: i64) {
        *self.uses.entry(f).or_default() += d;
    }
    fn dead_in_comdat(&mut self, f: FuncIdx) -> Option<bool> {
        // callers of a shared callee outside the unit's dependencies decide, before
        // the unit's turn, which of them leaves it without uses
        let own = self.uses.get(&f).copied().unwrap_or(0);
        self.comdat_tests.push((f, own));
        None
    }
    fn clear_body(&mut self, f: FuncIdx) {
        if f == self.n {
            // the unit deleting its own function: left to the walk
            self.gave_up = true;
        }
        self.cleared.push(f);
    }
    fn body_mut(&mut self, f: FuncIdx) -> &mut Body {
        if f != self.n {
            // only the unit's own body is edited; anything else is the walk's to do
            self.gave_up = true;
        }
        let base = self.base;
        let n = self.n;
        self.body.get_or_insert_with(|| base.body(n).clone())
    }
    fn inline_into(&mut self, (n, row, f): Site, args: &ArgFacts) -> Option<Inlined> {
        if n != self.n || f == n || self.cleared.contains(&f) {
            self.gave_up = true;
            return None;
        }
        let base = self.base;
        let callee = self.other_body(f);
        let caller = self.body.get_or_insert_with(|| base.body(n).clone());
        let out = clone::inline_call(&base.fx, &mut self.folds, (n, caller), row, callee, args);
        if self.folds.missed() {
            self.gave_up = true;
            return None;
        }
        Some(out)
    }
    fn body_changed(&mut self, f: FuncIdx) {
        if f == self.n {
            self.n_changed = true;
        }
        self.tables.remove(&f);
        self.bfi.remove(&f);
    }
    fn set_tables(&mut self, f: FuncIdx, t: PredTable, eph: Box<[RowIdx]>) {
        let t = (Arc::new(t), eph.into());
        match self.chained_body(f) {
            Some(u) => {
                let _ = u.shared.set(t);
            }
            None => {
                if self.reads_copy_body(f) {
                    self.base.keep_round_tables(f, &t);
                }
                self.tables.insert(f, t);
            }
        }
    }
    fn bfi(&self, f: FuncIdx) -> Option<Arc<Vec<u64>>> {
        if let Some(v) = self.bfi.get(&f) {
            return Some(v.clone());
        }
        if let Some(u) = self.chained_body(f) {
            return u.shared_bfi.get().cloned();
        }
        if self.tables_stale(f) {
            return None;
        }
        self.base.bfi[f.idx()]
            .clone()
            .or_else(|| self.base.round_bfi(f).cloned())
    }
    fn set_bfi(&mut self, f: FuncIdx, v: Arc<Vec<u64>>) {
        match self.chained_body(f) {
            Some(u) => {
                let _ = u.shared_bfi.set(v);
            }
            None => {
                if self.reads_copy_body(f) {
                    self.base.keep_round_bfi(f, &v);
                }
                self.bfi.insert(f, v);
            }
        }
    }
    fn folds(&self) -> &Folds {
        &self.folds
    }
    fn inline_loc(&mut self, loc: DebugLocIdx, site: DebugLocIdx) -> Option<DebugLocIdx> {
        let copy = self.base.locs.inlined_copy(loc, site);
        self.gave_up |= copy.is_none();
        copy
    }
    fn must_progress(&self, f: FuncIdx) -> bool {
        if f == self.n {
            return !self.must_progress_dropped && self.base.fx.attr_set(f).has(Attr::MustProgress);
        }
        if self.base.fx.settled(f) {
            return self.base.fx.attr_set(f).has(Attr::MustProgress);
        }
        let dropped = self.chained(f).is_some_and(|u| u.must_progress_dropped);
        self.attr_tests.test(f, Attr::MustProgress, || {
            !dropped && self.base.fx.attr_set(f).has(Attr::MustProgress)
        })
    }
    fn drop_must_progress(&mut self, n: FuncIdx) {
        if n == self.n {
            self.must_progress_dropped = true;
        } else {
            self.gave_up = true;
        }
    }
    fn gave_up(&self) -> bool {
        self.gave_up || self.folds.missed()
    }
}

/// A test of a use count a speculative run made: the walk's count of `f` plus the
/// run's own changes `own` was `v` (`is`) or not. It holds at the unit's turn when the
/// walk's count then gives the same answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct UsesRead {
    f: FuncIdx,
    own: i64,
    v: i64,
    is: bool,
}

/// What one inliner run leaves for the pass manager (remarks, work, inlinings), kept
/// by the run and handed over after each caller's batch (or, for a speculative run,
/// at the unit's turn).
#[derive(Clone, Debug, Default)]
pub(crate) struct RunOut {
    /// Remarks, in order, when the pass manager keeps them
    /// ([`crate::cgscc::inliner::InlineParams::keep_remarks`]).
    pub remarks: Vec<Remark>,
    /// Otherwise the remarks' count by kind.
    pub unkept: [usize; 6],
    /// Work done per node.
    pub work: Vec<(NodeIdx, u64)>,
    /// Calls inlined.
    pub inlines: usize,
    /// Functions that lost `mustprogress`, for `function-attrs`' tables.
    pub must_progress: Vec<FuncIdx>,
    /// The callees inlined by the unit's batch (a speculative run's only batch).
    pub inlined: Vec<FuncIdx>,
    /// Dead callees: deleted during the batch, then at the end of the run (comdats).
    pub dead: Vec<FuncIdx>,
    pub dead_in_batch: usize,
    /// Anything inlined.
    pub changed: bool,
}

/// What `function-attrs` reads of a unit after its run made ahead
/// ([`Unit::attrs_inputs`]).
pub(crate) struct AttrsInputs<'a> {
    /// The body the run left (`None`: the module's).
    pub body: Option<Arc<Body>>,
    /// Its use lists (lent: made when they were not).
    pub uses: &'a mut Option<crate::llvm::ir::body::Uses>,
    /// `mustprogress` left the function.
    pub must_progress_dropped: bool,
}

/// A speculative run's result, waiting for its unit's turn.
#[derive(Debug)]
pub(crate) struct Unit {
    /// The unit's function.
    pub n: FuncIdx,
    /// The pass it ran as: name, `only-mandatory`.
    pub pass: Arc<str>,
    pub only_mandatory: bool,
    versions: Vec<(FuncIdx, u32)>,
    uses_read: Vec<UsesRead>,
    /// The tests of functions' attributes the run made: (function, attribute, answer;
    /// `mustprogress` among them, which `function-attrs` may give a function after).
    attrs_read: Vec<(FuncIdx, Attr, bool)>,
    /// Units of the chain it read: each must be taken, its function unchanged since.
    chained: Vec<FuncIdx>,
    /// The comdat deadness tests left to the unit's turn, in the run's order: callee,
    /// the run's own change to its use count at the test.
    comdat_tests: Vec<(FuncIdx, i64)>,
    /// (direct, indirect) calls of the unit's body before and after the run, which
    /// devirtualization's check compares.
    pub calls_before: (u32, u32),
    calls_after: (u32, u32),
    /// The constant expressions the run made, numbered provisionally, and whether the
    /// body it left names provisional numbers (its own or those of the runs it read).
    pub(crate) exprs: Option<Arc<super::fold::Private>>,
    /// Those of the runs it read, and of the runs they read: what a run chained on
    /// this one reads its body with (each once).
    pub(crate) read_exprs: Vec<Arc<super::fold::Private>>,
    provisional: bool,
    /// The provisional numbers of other runs it names (sorted).
    foreign: Vec<ExprIdx>,
    body: Option<Arc<Body>>,
    uses: Vec<(FuncIdx, i64)>,
    cleared: Vec<FuncIdx>,
    must_progress_dropped: bool,
    tables: Vec<(FuncIdx, BodyTables)>,
    bfi: Vec<(FuncIdx, Arc<Vec<u64>>)>,
    /// The tables of the body the run left (when it changed it), made once by the
    /// first run chained on it that needs them, and the walk's at the unit's turn.
    shared: OnceLock<BodyTables>,
    shared_bfi: OnceLock<Arc<Vec<u64>>>,
    /// What `function-attrs` inferred ahead for the unit over the body the run left
    /// (`cgscc::function_attrs` `ahead`).
    pub(crate) attrs: Option<crate::cgscc::function_attrs::MadeAttrs>,
    /// A test of the run's was answered by what was inferred ahead for a run it chained
    /// on, otherwise than its round's copy of the walk's attributes answers it.
    pub(crate) attrs_mattered: bool,
    /// What only the walk takes of the run, once, at the unit's turn (the runs chained
    /// on it do not read it), even while rounds still hold the run.
    parts: Mutex<Parts>,
}

/// What the walk takes of a run made ahead besides its writes ([`Unit::take_parts`]).
#[derive(Debug, Default)]
struct Parts {
    /// The run's record.
    out: RunOut,
    /// The call graph's summary of the body the run left, when it changed.
    summary: Option<Summary>,
    /// That body's use lists (`function-attrs` reads them).
    use_table: Option<crate::llvm::ir::body::Uses>,
}

impl Unit {
    /// Nothing the run read has changed in `st` since it began, and every run of the
    /// chain it read was taken, its function unchanged since.
    pub(crate) fn holds(&self, st: &State) -> bool {
        self.versions.iter().all(|&(f, v)| st.ver[f.idx()] == v)
            && self
                .chained
                .iter()
                .all(|k| st.taken_ver[k.idx()] == st.ver[k.idx()])
            && self
                .uses_read
                .iter()
                .all(|u| (st.uses[u.f.idx()] + u.own == u.v) == u.is)
            && self.foreign.iter().all(|e| st.renumbered.contains_key(e))
            && self
                .attrs_read
                .iter()
                .all(|&(f, a, has)| st.fx.attr_set(f).has(a) == has)
    }

    /// The walk's own run on the unit, refused this run, left what the runs chained on
    /// this one read of it: the body the run left (`ver`: the unit's version before
    /// the walk's run, for a run that left it unchanged) and the callees it deleted
    /// (`cleared`: [`State::cleared`] before). The rest they read of it — use counts,
    /// attributes, constant expressions — each of them journaled itself.
    pub(crate) fn reproduced(&self, st: &State, ver: u32, cleared: usize) -> bool {
        let same_body = match &self.body {
            None => st.ver[self.n.idx()] == ver,
            Some(b) => st.ver[self.n.idx()] != ver && **b == *st.body(self.n),
        };
        same_body
            && st.cleared - cleared == self.cleared.len()
            && self.cleared.iter().all(|f| st.deleted[f.idx()])
    }

    /// What `function-attrs` reads of the unit after the run, over `st`, the state the
    /// run read; `None` when the body names provisional numbers of constant
    /// expressions.
    pub(crate) fn attrs_inputs(&mut self, st: &State) -> Option<AttrsInputs<'_>> {
        if self.provisional {
            return None;
        }
        let body = match &self.body {
            Some(b) => Some(Arc::clone(b)),
            None => st.bodies[self.n.idx()].clone(),
        };
        Some(AttrsInputs {
            body,
            uses: &mut self
                .parts
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .use_table,
            must_progress_dropped: self.must_progress_dropped,
        })
    }

    /// The unit's body is still the one the run began from (`ver`: the walk's
    /// versions).
    pub(crate) fn holds_body(&self, ver: &[u32]) -> bool {
        self.versions
            .binary_search_by_key(&self.n, |x| x.0)
            .is_ok_and(|at| self.versions[at].1 == ver[self.n.idx()])
    }

    /// The comdat deadness tests the run left to its turn, answered by `st` before
    /// [`Unit::install`]: the callees the end of the run considers deleting, in the
    /// order the run would have found them.
    pub(crate) fn dead_in_comdats(&self, st: &State) -> Vec<FuncIdx> {
        let mut dead = Vec::new();
        for &(f, own) in &self.comdat_tests {
            if st.uses[f.idx()] + own == 0 && !dead.contains(&f) {
                dead.push(f);
            }
        }
        dead
    }

    /// What the walk takes of the run besides its writes: its record, the summary of the
    /// body it left and that body's use lists, moved out (the walk takes them once, at
    /// the unit's turn).
    pub(crate) fn take_parts(
        &self,
    ) -> (RunOut, Option<Summary>, Option<crate::llvm::ir::body::Uses>) {
        let p = std::mem::take(&mut *self.parts.lock().unwrap_or_else(|e| e.into_inner()));
        (p.out, p.summary, p.use_table)
    }

    /// Writes the run's changes into `st` (which [`Unit::holds`]), with `use_table` the
    /// use lists of the body it left ([`Unit::take_parts`]).
    pub(crate) fn install(&self, st: &mut State, use_table: Option<crate::llvm::ir::body::Uses>) {
        if let Some(p) = &self.exprs {
            st.folds.commit_private(&st.fx.ir, p, &mut st.renumbered);
        }
        let mut body = self.body.clone();
        if let (true, Some(b)) = (self.provisional, body.as_mut()) {
            // its own numbers were just committed, those of the runs it read before
            let to = &st.renumbered;
            let b = Arc::make_mut(b);
            b.renumber_exprs(|e| to.get(&e).copied());
            debug_assert!(!b.named_exprs().any(super::fold::is_provisional));
        }
        for &(f, d) in &self.uses {
            st.uses[f.idx()] += d;
        }
        for &f in &self.cleared {
            st.clear_body(f);
        }
        if let Some(b) = body {
            st.bodies[self.n.idx()] = Some(b);
            State::body_changed(st, self.n);
            st.call_counts[self.n.idx()] = Some(self.calls_after);
            st.use_tables[self.n.idx()] = use_table;
            // made from the same body over what the unit's journal held
            if let Some((p, e)) = self.shared.get() {
                st.preds[self.n.idx()] = Some(Arc::clone(p));
                st.eph[self.n.idx()] = Some(Arc::clone(e));
            }
            if let Some(v) = self.shared_bfi.get() {
                st.bfi[self.n.idx()] = Some(Arc::clone(v));
            }
        }
        if self.must_progress_dropped {
            st.drop_must_progress(self.n);
        }
        for (f, (p, e)) in &self.tables {
            if st.preds[f.idx()].is_none() {
                st.preds[f.idx()] = Some(Arc::clone(p));
                st.eph[f.idx()] = Some(Arc::clone(e));
            }
        }
        for (f, v) in &self.bfi {
            st.bfi[f.idx()].get_or_insert_with(|| Arc::clone(v));
        }
    }
}
