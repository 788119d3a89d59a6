//! The inliner with LLVM 14's decision procedure and `InlineCost` model, over the
//! module's instruction view, with the profile's knobs ([`super::InlineParams`]).
//!
//! Per SCC it does what LLVM 14's `InlinerPass` does: one FIFO worklist of the SCC's
//! direct calls to defined functions (functions in SCC order, calls in layout order);
//! calls exposed by an inlining are appended last-to-first with an inline history (a
//! call whose callee is in its history is skipped silently, as is a call inside an SCC
//! whose internal edge was already inlined before the SCC split); each call is decided
//! by the attribute checks and then the cost analyzer ([`cost::analyze`]) on the
//! callee's *current* body — bodies are real instruction lists ([`Body`]) that
//! inlining rewrites ([`clone::inline_call`]), so a caller sees its callees after their
//! own inlining, with constant arguments folded and dead blocks pruned. Live-use counts
//! drive LastCallToStatic and the deletion of local callees left without uses.
//!
//! Cold call sites (a block frequency under 2 % of the entry's) come from a static
//! estimate of block frequencies ([`freq`]).

pub mod clone;
pub mod cost;
mod decide;
pub mod fold;
pub mod freq;
mod mass;
mod prefetch;
mod range;
mod run;
pub mod scaled;
mod simplify;
mod store;
#[cfg(test)]
mod tests;

pub(crate) use cost::Scratch;
pub(crate) use fold::{Folds, Private};
pub use prefetch::Prefetch;
pub(crate) use run::{run, speculate, FrozenGraph};
pub(crate) use store::{Chain, Unit};

use crate::callgraph::{function_of_node, node_of_function, NodeIdx};
use crate::cgscc::summary::{CallSummary, CallTarget, HistIdx, LocIdx};
use crate::hash::FixedMap;
use crate::idx::{BlockIdx, SharedVec};
use crate::llvm::attrs::{Attr, AttrSet};
use crate::llvm::ir::body::{Body, RowIdx, V};
use crate::llvm::ir::debugloc::DebugLocs;
use crate::llvm::ir::{Ir, Value};
use crate::llvm::{FuncIdx, Linkage, Module, SymbolDef};
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};

/// Module facts the model reads. The columns no pass changes are shared, so that a
/// copy (each round of runs made ahead takes one) costs a reference per column.
#[derive(Clone, Debug)]
pub struct Facts {
    /// The instruction view.
    pub ir: Arc<Ir>,
    /// Per symbol: the function it names.
    pub sym_func: Arc<[Option<FuncIdx>]>,
    /// Per symbol: the defined functions reached through its initializer, aliasee or
    /// resolver (LLVM's `visitReferences`), which a body mentioning it references.
    pub sym_refs: Arc<crate::idx::IndexVec<crate::llvm::SymbolIdx, Vec<NodeIdx>>>,
    /// Per symbol: its address needs no GOT load, so it folds into an addressing mode
    /// (variables: `dso_local`, as opt-14 prices a GEP off them; functions: local or
    /// defined).
    pub sym_local: Arc<[bool]>,
    /// Per symbol: the log2 of the alignments constant folding knows its address has
    /// ([`fold::address_low_bits`]): `.0` the one `ConstantFoldBinaryInstruction` takes
    /// for `ptrtoint @g` (a function's 4 bytes, what LLVM 14 assumes when the data
    /// layout gives functions none; a variable's explicit `align`), `.1` the one
    /// `computeKnownBits` gives its address (a variable's `align`, an alias's aliasee's
    /// when the alias cannot be interposed; none for a function). A variable without
    /// an explicit `align` (LLVM takes its type's preferred alignment) is not modelled.
    pub sym_align: Arc<[(u8, u8)]>,
    /// Function names.
    pub names: Arc<[String]>,
    /// `coldcc` functions.
    pub coldcc: Arc<[bool]>,
    /// Function linkages.
    pub linkage: Arc<[Linkage]>,
    /// Defined functions.
    pub is_def: Arc<[bool]>,
    /// The module's declarations of the intrinsics inlining calls.
    pub decls: clone::Decls,
    /// Per function: its attributes as a pass changed them (`function-attrs`), when one
    /// did; the module's otherwise ([`Facts::fn_attrs`]). Shared by chunks, like the
    /// bodies: a round's copy of the facts costs a reference per 256 functions.
    pub cur_attrs: SharedVec<Option<AttrSet>>,
    /// Per function: its `"target-features"` (the `+x` words, sorted) — the x86 rule
    /// of inline compatibility is that the callee's are a subset of the caller's.
    pub features: Arc<[Vec<String>]>,
    /// The types' sizes, alignments and field offsets.
    pub layouts: Arc<crate::llvm::ir::body::Layouts>,
    /// Per function: the walk's post-order position of its unit (`u32::MAX`: none),
    /// when runs are made ahead; with `committed`, the position of a round's copy.
    pub(crate) unit_pos: Arc<[u32]>,
    /// The walk had finished every position before this one when this copy was taken:
    /// their functions' attributes are final ([`Facts::settled`]).
    pub(crate) committed: u32,
}

/// The model's state over one run.
#[derive(Clone, Debug)]
pub struct State {
    /// Module facts.
    pub fx: Facts,
    /// Current bodies: a pass's copy once it edited one (`None`: the module's). Shared,
    /// so that a copy of the column costs a reference per 256 functions; a walk's edit
    /// of a body someone else holds copies it first.
    pub bodies: SharedVec<Option<Arc<Body>>>,
    /// Functions whose body inlining deleted.
    pub deleted: Vec<bool>,
    /// Per function: its comdat (`u32::MAX`: none); per comdat: its function members
    /// and whether a global variable is a member too.
    pub comdat_of: Vec<u32>,
    pub comdat_members: Arc<[(Vec<FuncIdx>, bool)]>,
    /// Live uses of each function (calls and references in live bodies, plus one for
    /// a reference from a global initializer or alias).
    pub uses: Vec<i64>,
    /// Per function: a count of the changes to its body and its deletion (what a run
    /// made ahead compares, [`store`]; the attributes it tested it journals).
    ver: Vec<u32>,
    /// Runs made ahead of the walk, by their unit's function, until its turn; and how
    /// many are waiting.
    made: Vec<Option<Arc<Unit>>>,
    n_made: usize,
    /// Runs made ahead that the walk took.
    pub(crate) made_taken: usize,
    /// Runs made ahead that the walk refused and its own run reproduced
    /// ([`store::Unit::reproduced`]): the runs chained on them read what it made.
    pub(crate) made_reproduced: usize,
    /// Functions whose bodies the inliner cleared (deleted callees), counted.
    pub(crate) cleared: usize,
    /// The run the walk took last, when it inferred its unit's `function-attrs`, with
    /// the unit's function's version then, until `function-attrs` runs;
    /// and how many such inferences the walk took.
    made_attrs: Option<(u32, Arc<Unit>)>,
    pub(crate) attrs_taken: usize,
    /// Runs taken whose tests of attributes read what was inferred ahead for a chained
    /// run, answering otherwise than the round's copy would have.
    pub(crate) attrs_mattered: usize,
    /// The walk's numbers of the constant expressions runs made ahead numbered
    /// provisionally, for the runs it took ([`fold::Folds::commit_private`]).
    pub(crate) renumbered: FixedMap<crate::llvm::ir::ExprIdx, crate::llvm::ir::ExprIdx>,
    /// Per function whose run made ahead the walk took: its version once the walk had
    /// finished the run (what a run chained on it checks, [`store::Chain`]); `u32::MAX`
    /// for the others.
    taken_ver: Vec<u32>,
    /// Per function: its block frequencies while its body is unchanged (LLVM's cached
    /// `BlockFrequencyInfo` of a callee).
    bfi: SharedVec<Option<Arc<Vec<u64>>>>,
    /// Per function: its blocks' predecessors ([`Body::pred_table`]) while its body is
    /// unchanged, what every cost analysis of a call to it walks.
    preds: SharedVec<Option<Arc<PredTable>>>,
    /// Per function: its ephemeral rows ([`cost::ephemeral_rows`]) while its body is
    /// unchanged, made with its predecessor table.
    eph: SharedVec<Option<Arc<[RowIdx]>>>,
    /// In a round's copy ([`State::snapshot`]), per function: the tables and block
    /// frequencies of its body in the copy, made by the first of the round's runs that
    /// needed them and the copy lacked, for the round's other runs; empty in the walk's
    /// own state.
    round: Box<[RoundTables]>,
    /// The constant expressions inlining made, interned with the module's.
    folds: fold::Folds,
    /// Per function: its body's (direct, indirect) call counts, until the body changes.
    call_counts: Vec<Option<(u32, u32)>>,
    /// Per function: the use lists of its current body, when a run made ahead made
    /// them (for `function-attrs`, which would make them on the walk's thread).
    use_tables: Vec<Option<crate::llvm::ir::body::Uses>>,
    /// The cost analysis' tables, reused from one call site to the next.
    scratch: cost::Scratch,
    /// Debug locations: the module's, plus the inlined-at chains of inlined calls.
    pub locs: DebugLocs,
    /// The helpers' answers while a run has helpers ([`prefetch`]).
    prefetch: Option<Arc<Prefetch>>,
    /// Per function: a pass changed attributes the prefetched analyses read, since
    /// the helpers started; and how many are marked.
    attrs_marked: Vec<bool>,
    n_marked: usize,
}

/// One function's tables and block frequencies, made once for the body a round's copy of
/// the state holds ([`State::round`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct RoundTables {
    tables: OnceLock<(Arc<PredTable>, Arc<[RowIdx]>)>,
    bfi: OnceLock<Arc<Vec<u64>>>,
}

impl Facts {
    /// What the inliner's seed makes of row `i` of `b`: `Some(Ok(g))` a call it queues
    /// (to `g`, defined and not deleted, as `deleted` says), `Some(Err(g))` a direct call
    /// it leaves (to a declaration or a deleted function), `None` anything else (not a
    /// call, or an indirect one).
    pub(crate) fn seeded_call(
        &self,
        b: &Body,
        i: RowIdx,
        deleted: impl Fn(FuncIdx) -> bool,
    ) -> Option<Result<FuncIdx, FuncIdx>> {
        let g = self.direct_callee(b, i)?;
        Some(if self.is_def[g.idx()] && !deleted(g) {
            Ok(g)
        } else {
            Err(g)
        })
    }

    /// The direct callee of call row `i` of `b`.
    pub fn direct_callee(&self, b: &Body, i: RowIdx) -> Option<FuncIdx> {
        let ci = b.call_of(i)?;
        match b.ops(i)[ci.callee_op as usize] {
            V::K(Value::Global(s)) => self.sym_func[s.idx()],
            _ => None,
        }
    }

    /// (direct, indirect) calls of body `b`.
    pub fn count_calls(&self, b: &Body) -> (u32, u32) {
        let mut c = (0, 0);
        for &bb in &b.layout {
            for &i in &b.blocks[bb] {
                if b.call_of(i).is_some() {
                    if self.direct_callee(b, i).is_some() {
                        c.0 += 1;
                    } else {
                        c.1 += 1;
                    }
                }
            }
        }
        c
    }

    /// Function `f`'s attributes as the passes so far left them: what `function-attrs`
    /// inferred when it ran on `f`, the module's otherwise (LLVM's passes change the
    /// function's own attributes, which the inliner then reads). Each test a run made
    /// ahead makes of them is journaled ([`FnAttrs::has`]).
    pub fn fn_attrs(&self, f: FuncIdx) -> FnAttrs<'_> {
        FnAttrs {
            set: self.attr_set(f),
            f,
            settled: self.settled(f),
        }
    }

    /// Nothing changes `f`'s attributes before the walk's next position, from this
    /// copy on: a declaration (the walk visits definitions only), or a function the
    /// walk had visited when the copy was taken (a pass changes the attributes of the
    /// functions of the unit it runs on only), so a run made ahead reads them without
    /// journaling the test.
    pub fn settled(&self, f: FuncIdx) -> bool {
        !self.is_def[f.idx()]
            || self
                .unit_pos
                .get(f.idx())
                .is_some_and(|&p| p < self.committed)
    }

    /// [`Facts::fn_attrs`] as a set, for the walk (a run made ahead reads them through
    /// the journal).
    pub fn attr_set(&self, f: FuncIdx) -> &AttrSet {
        match &self.cur_attrs[f.idx()] {
            Some(a) => a,
            None => self.ir.fn_attrs(f),
        }
    }
}

/// A function's attributes as the inliner tests them ([`Facts::fn_attrs`]): on the
/// thread of a run made ahead, each test is journaled, for the walk to ask again at the
/// unit's turn (`function-attrs` may have changed them meanwhile).
#[derive(Clone, Copy, Debug)]
pub struct FnAttrs<'a> {
    set: &'a AttrSet,
    f: FuncIdx,
    settled: bool,
}

impl FnAttrs<'_> {
    /// The function has attribute `a` (on the thread of a run made ahead: as
    /// `function-attrs` inferred it ahead for a run the run chained on, if it did).
    pub fn has(self, a: Attr) -> bool {
        if self.settled {
            return self.set.has(a);
        }
        ATTR_TESTS.with(|j| {
            let mut j = j.borrow_mut();
            if !j.active {
                return self.set.has(a);
            }
            let base = self.set.has(a);
            let v = j.chained_has(self.f, a).unwrap_or(base);
            j.mattered |= v != base;
            j.note(self.f, a, v);
            v
        })
    }
}

/// The attribute tests of a run made ahead, and the attributes `function-attrs`
/// inferred ahead for the runs it chained on, by function. It stays with its thread
/// from one run to the next: what it marks per function is stamped with the run.
#[derive(Debug, Default)]
struct Journal {
    /// A run made ahead is journaling on this thread.
    active: bool,
    /// One word per attribute of a function tested and answer, in the order first
    /// given ([`Journal::note`]).
    tests: Vec<u64>,
    chained: Vec<(FuncIdx, AttrSet)>,
    /// A test was answered otherwise than the round's copy of the walk's attributes
    /// answers it (by what was inferred ahead for a chained run).
    mattered: bool,
    /// The run's number on this thread (never 0 while journaling).
    stamp: u32,
    /// Per function: the run that last tested one of its attributes, and which ones,
    /// by answer.
    tested: Vec<(u32, [u128; 2])>,
    /// Per function: the run that last read its body's version.
    versions: Vec<u32>,
}

// every attribute has its bit in a function's mask of `Journal::tested`
const _: () = assert!(Attr::ALL.len() <= 128);

impl Journal {
    /// Journals that `f` has `a` is `v`, as one word, unless this run journaled that
    /// already (the copy it reads is frozen: a test repeats its answer).
    fn note(&mut self, f: FuncIdx, a: Attr, v: bool) {
        let k = f.idx();
        if k >= self.tested.len() {
            self.tested.resize(k + 1, (0, [0; 2]));
        }
        let (stamp, masks) = &mut self.tested[k];
        if *stamp != self.stamp {
            (*stamp, *masks) = (self.stamp, [0; 2]);
        }
        let bit = 1u128 << (a as u8);
        let mask = &mut masks[usize::from(v)];
        if *mask & bit == 0 {
            *mask |= bit;
            self.tests
                .push(((k as u64) << 9) | (u64::from(a as u8) << 1) | u64::from(v));
        }
    }

    /// Whether chained function `f` has `a` as inferred ahead (`None`: not inferred).
    fn chained_has(&self, f: FuncIdx, a: Attr) -> Option<bool> {
        let at = self.chained.binary_search_by_key(&f, |x| x.0).ok()?;
        Some(self.chained[at].1.has(a))
    }
}

thread_local! {
    /// The attribute tests of the run made ahead on this thread ([`AttrJournal`]).
    static ATTR_TESTS: std::cell::RefCell<Journal> = std::cell::RefCell::new(Journal::default());
}

/// Journals the attribute tests of this thread ([`FnAttrs::has`]) while it lives, and
/// tells the run's store which bodies' versions it reads first
/// ([`AttrJournal::first_version_read`]): a run made ahead holds one.
#[derive(Debug)]
pub(crate) struct AttrJournal(());

impl AttrJournal {
    /// Starts journaling on this thread, the tests of the functions in `chained`
    /// answered by the attributes given there (inferred ahead).
    pub(crate) fn start(mut chained: Vec<(FuncIdx, AttrSet)>) -> AttrJournal {
        chained.sort_unstable_by_key(|x| x.0);
        ATTR_TESTS.with(|j| {
            let mut j = j.borrow_mut();
            j.stamp = j.stamp.wrapping_add(1);
            if j.stamp == 0 {
                // numbers wrapped: no mark may pass for this run's
                j.tested.iter_mut().for_each(|t| t.0 = 0);
                j.versions.iter_mut().for_each(|v| *v = 0);
                j.stamp = 1;
            }
            j.active = true;
            j.tests.clear();
            j.mattered = false;
            j.chained = chained;
        });
        AttrJournal(())
    }

    /// Whether `f` has `a`, read past [`FnAttrs`] (the store's `mustprogress`): `has`
    /// unless `f` is chained and its attributes were inferred ahead; journaled.
    pub(crate) fn test(&self, f: FuncIdx, a: Attr, has: impl FnOnce() -> bool) -> bool {
        ATTR_TESTS.with(|j| {
            let mut j = j.borrow_mut();
            if !j.active {
                return has();
            }
            let v = j.chained_has(f, a).unwrap_or_else(has);
            j.note(f, a, v);
            v
        })
    }

    /// Whether this run reads `f`'s version for the first time (each read gives the
    /// same: the copy it reads is frozen).
    pub(crate) fn first_version_read(&self, f: FuncIdx) -> bool {
        ATTR_TESTS.with(|j| {
            let mut j = j.borrow_mut();
            let stamp = j.stamp;
            let k = f.idx();
            if k >= j.versions.len() {
                j.versions.resize(k + 1, 0);
            }
            std::mem::replace(&mut j.versions[k], stamp) != stamp
        })
    }

    /// Whether a test was answered by what was inferred ahead for a chained run, where
    /// the round's copy of the walk's attributes answers otherwise.
    pub(crate) fn mattered(&self) -> bool {
        ATTR_TESTS.with(|j| j.borrow().mattered)
    }

    /// The tests so far: (function, attribute, answer), each once, in the order first
    /// given.
    pub(crate) fn tests(&self) -> Vec<(FuncIdx, Attr, bool)> {
        let t = ATTR_TESTS.with(|j| std::mem::take(&mut j.borrow_mut().tests));
        t.into_iter()
            .map(|w| {
                let a = Attr::ALL[((w >> 1) & 0xff) as usize];
                (FuncIdx::new((w >> 9) as usize), a, w & 1 == 1)
            })
            .collect()
    }
}

impl Drop for AttrJournal {
    fn drop(&mut self) {
        ATTR_TESTS.with(|j| {
            let mut j = j.borrow_mut();
            j.active = false;
            j.chained.clear();
        });
    }
}

/// The comdats of module `m`: per function its comdat's number (`u32::MAX`: none), per
/// comdat its function members and whether a global variable belongs to it.
fn comdats(m: &crate::llvm::Module) -> (Vec<u32>, Vec<(Vec<FuncIdx>, bool)>) {
    fn id<'a>(ids: &mut FixedMap<&'a str, u32>, c: &'a str) -> u32 {
        let next = ids.len() as u32;
        *ids.entry(c).or_insert(next)
    }
    let mut ids: FixedMap<&str, u32> = FixedMap::default();
    let mut of = vec![u32::MAX; m.functions().len()];
    for (f, func) in m.functions().iter_enumerated() {
        if let Some(c) = &func.comdat {
            of[f.idx()] = id(&mut ids, c);
        }
    }
    let with_global: Vec<u32> = m
        .globals()
        .iter()
        .filter_map(|g| g.comdat.as_deref())
        .map(|c| id(&mut ids, c))
        .collect();
    let mut members: Vec<(Vec<FuncIdx>, bool)> = vec![(Vec::new(), false); ids.len()];
    for (f, &c) in of.iter().enumerate() {
        if c != u32::MAX {
            members[c as usize].0.push(FuncIdx::new(f));
        }
    }
    for c in with_global {
        members[c as usize].1 = true;
    }
    (of, members)
}

/// A body's predecessor table ([`Body::pred_table`]): (start per block, predecessors).
pub(crate) type PredTable = (Vec<u32>, Vec<BlockIdx>);

fn expr_funcs(
    ir: &Ir,
    folds: &fold::Folds,
    fx_sym: &[Option<FuncIdx>],
    v: Value,
    out: &mut Vec<FuncIdx>,
) {
    for_each_symbol(ir, folds, v, 0, &mut |s| out.extend(fx_sym[s.idx()]));
}

/// `f`'s body in `store` for editing, copied out of the module's on the first edit.
fn edit<'a>(store: &'a mut SharedVec<Option<Arc<Body>>>, ir: &Ir, f: FuncIdx) -> &'a mut Body {
    Arc::make_mut(store[f.idx()].get_or_insert_with(|| Arc::new(ir.body(f).clone())))
}

/// The symbols a constant mentions, through constant expressions.
fn expr_symbols(ir: &Ir, folds: &fold::Folds, v: Value, out: &mut Vec<crate::llvm::SymbolIdx>) {
    for_each_symbol(ir, folds, v, 0, &mut |s| out.push(s));
}

/// Calls `f` on each symbol constant `v` mentions, through the module's constant
/// expressions and the ones inlining made.
fn for_each_symbol(
    ir: &Ir,
    folds: &fold::Folds,
    v: Value,
    depth: u32,
    f: &mut impl FnMut(crate::llvm::SymbolIdx),
) {
    match v {
        Value::Global(s) => f(s),
        Value::Expr(e) if depth < 16 => match folds.made_operands(e) {
            Some(ops) => {
                for &o in ops {
                    if let V::K(k) = o {
                        for_each_symbol(ir, folds, k, depth + 1, f);
                    }
                }
            }
            None => {
                for &o in ir.expr_operands(e) {
                    for_each_symbol(ir, folds, o, depth + 1, f);
                }
            }
        },
        _ => {}
    }
}

impl cost::Functions for State {
    fn body(&self, f: FuncIdx) -> &Body {
        State::body(self, f)
    }

    fn tables(&self, f: FuncIdx) -> Option<(&PredTable, &[RowIdx])> {
        let preds = self.preds[f.idx()].as_deref()?;
        Some((preds, self.eph[f.idx()].as_deref().unwrap_or(&[])))
    }

    fn freqs(&self, f: FuncIdx) -> Option<&[u64]> {
        self.bfi[f.idx()].as_deref().map(|v| &v[..])
    }
}

impl State {
    /// The state for module `m` (`None` without an instruction view); `referenced[f]`:
    /// `f` is referenced from a global initializer or an alias.
    pub fn new(m: &Module, referenced: &[bool]) -> Option<State> {
        let mut st = State::of_bodies(m)?;
        st.count_root_uses(referenced);
        Some(st)
    }

    /// Adds a use to each function `referenced` marks: a local function that is an
    /// entry root of the call graph is referenced from a global or an alias.
    pub(crate) fn count_root_uses(&mut self, referenced: &[bool]) {
        for (u, &r) in self.uses.iter_mut().zip(referenced) {
            *u += i64::from(r);
        }
    }

    /// [`State::new`] before the roots' uses are counted: what the bodies give, which
    /// needs only the module (so it is made beside the call graph).
    pub(crate) fn of_bodies(m: &Module) -> Option<State> {
        let ir = m.ir_arc()?;
        let nsym = m.num_symbols();
        let mut sym_func = vec![None; nsym];
        let mut sym_local = vec![false; nsym];
        let mut sym_align = vec![(0u8, 0u8); nsym];
        for s in 0..nsym {
            match m.symbol_def(crate::llvm::SymbolIdx::new(s)) {
                SymbolDef::Function(f) => {
                    sym_func[s] = Some(f);
                    let fun = m.function(f);
                    sym_local[s] = fun.linkage.is_local() || fun.is_definition;
                    sym_align[s] = (2, 0);
                }
                SymbolDef::Global(g) => {
                    let gv = &m.globals()[g];
                    sym_local[s] = gv.dso_local;
                    let a = gv.align.map_or(0, |a| a.trailing_zeros() as u8);
                    sym_align[s] = (a, a);
                }
                _ => {}
            }
        }
        // an alias's address is its aliasee's, to `computeKnownBits`, unless another
        // definition may replace it (`isInterposable`)
        for a in m.aliases() {
            use crate::llvm::{ConstKind, Linkage::*};
            let interposable = matches!(a.linkage, Weak | Linkonce | Common | ExternWeak);
            let mut target = a.target;
            for _ in 0..8 {
                let Some(c) = target.filter(|_| !interposable) else {
                    break;
                };
                let ConstKind::Symbol(t) = m.consts().kind(c) else {
                    break;
                };
                match m.symbol_def(t) {
                    SymbolDef::Global(_) => {
                        sym_align[a.sym.idx()].1 = sym_align[t.idx()].1;
                        break;
                    }
                    SymbolDef::Alias(b) => target = m.aliases()[b].target,
                    _ => break,
                }
            }
        }
        let fs = m.functions();
        let n = fs.len();
        // the target features a function's attributes name
        let features_of = |f: &crate::llvm::Function| {
            let mut words: Vec<&String> = f.attrs.iter().collect();
            for g in &f.attr_groups {
                if let Some((_, w)) = m.attr_groups.iter().find(|(n, _)| n == g) {
                    words.extend(w);
                }
            }
            // the reader keeps `"target-features"` and its value as two words
            let mut out: Vec<String> = words
                .windows(2)
                .filter(|w| w[0] == "\"target-features\"")
                .flat_map(|w| w[1].trim_matches('"').split(','))
                .filter(|x| x.starts_with('+'))
                .map(str::to_string)
                .collect();
            out.sort();
            out.dedup();
            out
        };
        let folds = fold::Folds::new(&ir);
        // the uses of each function the bodies' constants name, counted by stretches of
        // functions and summed
        let count_uses = || {
            (0..n)
                .into_par_iter()
                .with_min_len(256)
                .fold(
                    || vec![0i64; n],
                    |mut uses, f| {
                        let b = ir.body(FuncIdx::new(f));
                        for i in b.live_rows() {
                            for &v in b.ops(i) {
                                let V::K(v) = v else { continue };
                                for_each_symbol(&ir, &folds, v, 0, &mut |s| {
                                    if let Some(g) = sym_func[s.idx()] {
                                        uses[g.idx()] += 1;
                                    }
                                });
                            }
                        }
                        uses
                    },
                )
                .reduce_with(|mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                })
                .unwrap_or_else(|| vec![0; n])
        };
        // the tables are independent of each other: made side by side on the pool
        let ((features, uses), ((layouts, sym_refs), (locs, (comdat_of, comdat_members)))) =
            rayon::join(
                || {
                    rayon::join(
                        || fs.raw().par_iter().map(features_of).collect::<Vec<_>>(),
                        count_uses,
                    )
                },
                || {
                    rayon::join(
                        || {
                            rayon::join(
                                || crate::llvm::ir::body::Layouts::new(&ir.types),
                                || crate::callgraph::symbol_function_refs(m),
                            )
                        },
                        || rayon::join(|| ir.debug_locs.clone(), || comdats(m)),
                    )
                },
            );
        let decl = |name: &str| {
            let s = m.symbol_by_name(name)?;
            let f = sym_func[s.idx()]?;
            Some((Value::Global(s), ir.func(f).fn_ty))
        };
        let decls = clone::Decls {
            memcpy: decl("llvm.memcpy.p0i8.p0i8.i64"),
            lifetime_start: decl("llvm.lifetime.start.p0i8"),
            lifetime_end: decl("llvm.lifetime.end.p0i8"),
            noalias_scope_decl: decl("llvm.experimental.noalias.scope.decl"),
        };
        let fx = Facts {
            decls,
            cur_attrs: SharedVec::from_elem(None, n),
            features: features.into(),
            layouts: Arc::new(layouts),
            names: fs.iter().map(|f| f.name.clone()).collect(),
            coldcc: fs.iter().map(|f| f.calling_conv == "coldcc").collect(),
            linkage: fs.iter().map(|f| f.linkage).collect(),
            is_def: fs.iter().map(|f| f.is_definition).collect(),
            ir,
            sym_func: sym_func.into(),
            sym_refs: Arc::new(sym_refs),
            sym_local: sym_local.into(),
            sym_align: sym_align.into(),
            unit_pos: Arc::from([]),
            committed: 0,
        };
        Some(State {
            comdat_of,
            comdat_members: comdat_members.into(),
            fx,
            bodies: SharedVec::from_elem(None, n),
            deleted: vec![false; n],
            uses,
            ver: vec![0; n],
            made: vec![None; n],
            n_made: 0,
            made_taken: 0,
            made_reproduced: 0,
            cleared: 0,
            made_attrs: None,
            attrs_taken: 0,
            attrs_mattered: 0,
            renumbered: FixedMap::default(),
            taken_ver: vec![u32::MAX; n],
            bfi: SharedVec::from_elem(None, n),
            preds: SharedVec::from_elem(None, n),
            eph: SharedVec::from_elem(None, n),
            round: Box::default(),
            call_counts: vec![None; n],
            use_tables: vec![None; n],
            folds,
            scratch: cost::Scratch::default(),
            locs,
            prefetch: None,
            attrs_marked: vec![false; n],
            n_marked: 0,
        })
    }

    /// The current bodies (by function) and the constant expressions they name beyond
    /// the module's: what `function-attrs` reads.
    pub fn body_store(
        &self,
    ) -> (
        &SharedVec<Option<Arc<Body>>>,
        Arc<crate::llvm::ir::body::MadeExprs>,
    ) {
        (&self.bodies, self.folds.made_shared())
    }

    /// The use lists of `fs`' current bodies that runs made ahead left, taken (`None`
    /// where there is none).
    pub(crate) fn take_use_tables(
        &mut self,
        fs: &[FuncIdx],
    ) -> Vec<Option<crate::llvm::ir::body::Uses>> {
        fs.iter().map(|f| self.use_tables[f.idx()].take()).collect()
    }

    /// A copy of this state for runs made ahead while the walk goes on writing it: the
    /// columns a run reads (bodies and tables shared by chunks, a reference per 256
    /// functions), with no runs waiting for their turn and no use lists (empty columns:
    /// nothing writes a copy), fresh scratch and `folds`, a frozen copy of the
    /// constant-expression tables ([`State::frozen_folds`]).
    pub(crate) fn snapshot(&self, folds: fold::Folds) -> State {
        State {
            fx: self.fx.clone(),
            bodies: self.bodies.clone(),
            deleted: self.deleted.clone(),
            comdat_of: self.comdat_of.clone(),
            comdat_members: Arc::clone(&self.comdat_members),
            uses: self.uses.clone(),
            ver: self.ver.clone(),
            made: Vec::new(),
            n_made: 0,
            made_taken: self.made_taken,
            made_reproduced: self.made_reproduced,
            cleared: self.cleared,
            made_attrs: None,
            attrs_taken: self.attrs_taken,
            attrs_mattered: self.attrs_mattered,
            renumbered: FixedMap::default(),
            taken_ver: self.taken_ver.clone(),
            bfi: self.bfi.clone(),
            preds: self.preds.clone(),
            eph: self.eph.clone(),
            round: (0..self.fx.is_def.len())
                .map(|_| RoundTables::default())
                .collect(),
            folds,
            call_counts: self.call_counts.clone(),
            use_tables: Vec::new(),
            scratch: cost::Scratch::default(),
            locs: self.locs.clone(),
            prefetch: self.prefetch.clone(),
            attrs_marked: self.attrs_marked.clone(),
            n_marked: self.n_marked,
        }
    }

    /// `f`'s tables for its body in this round's copy, made by one of the round's runs.
    pub(crate) fn round_tables(&self, f: FuncIdx) -> Option<&(Arc<PredTable>, Arc<[RowIdx]>)> {
        self.round.get(f.idx())?.tables.get()
    }

    /// `f`'s block frequencies for its body in this round's copy, made by one of the
    /// round's runs.
    pub(crate) fn round_bfi(&self, f: FuncIdx) -> Option<&Arc<Vec<u64>>> {
        self.round.get(f.idx())?.bfi.get()
    }

    /// Keeps tables `t` a run made for `f`'s body in this round's copy, for the round's
    /// other runs (the first made stays: all are made alike).
    pub(crate) fn keep_round_tables(&self, f: FuncIdx, t: &(Arc<PredTable>, Arc<[RowIdx]>)) {
        if let Some(r) = self.round.get(f.idx()) {
            let _ = r.tables.set((Arc::clone(&t.0), Arc::clone(&t.1)));
        }
    }

    /// Keeps block frequencies `v` a run made for `f`'s body in this round's copy, for
    /// the round's other runs.
    pub(crate) fn keep_round_bfi(&self, f: FuncIdx, v: &Arc<Vec<u64>>) {
        if let Some(r) = self.round.get(f.idx()) {
            let _ = r.bfi.set(Arc::clone(v));
        }
    }

    /// A copy of a snapshot's frozen constant-expression tables, for one run made ahead.
    pub(crate) fn frozen_copy(&self) -> fold::Folds {
        self.folds.clone()
    }

    /// Keeps run `u`, made ahead, for its unit's turn.
    pub(crate) fn put_made(&mut self, u: Arc<Unit>) {
        // the run counted the calls of the body it began from, which the walk's
        // devirtualization check counts first
        let counts = &mut self.call_counts[u.n.idx()];
        if counts.is_none() && u.holds_body(&self.ver) {
            *counts = Some(u.calls_before);
        }
        let slot = &mut self.made[u.n.idx()];
        self.n_made += usize::from(slot.is_none());
        *slot = Some(u);
    }

    /// The run made ahead for `f`'s unit, if one waits.
    pub(crate) fn take_made(&mut self, f: FuncIdx) -> Option<Arc<Unit>> {
        if self.n_made == 0 {
            return None;
        }
        let u = self.made[f.idx()].take()?;
        self.n_made -= 1;
        Some(u)
    }

    /// Keeps run `u`, just taken, for `function-attrs` to take its inference (when it
    /// made one) next.
    pub(crate) fn put_made_attrs(&mut self, u: Arc<Unit>) {
        self.made_attrs = u.attrs.is_some().then(|| (self.ver[u.n.idx()], u));
    }

    /// The run made ahead for `f` whose inference of `function-attrs` waits, when `f`'s
    /// body is still the one it read; any other is dropped.
    pub(crate) fn take_made_attrs(&mut self, f: FuncIdx) -> Option<Arc<Unit>> {
        let (v, u) = self.made_attrs.take()?;
        (u.n == f && self.ver[f.idx()] == v).then_some(u)
    }

    /// Drops the inference made ahead waiting for `function-attrs` (a pass other than
    /// `function-attrs` runs).
    pub(crate) fn drop_made_attrs(&mut self) {
        self.made_attrs = None;
    }

    /// Forgets the runs made ahead and the versions of the ones taken (a walk's end).
    pub(crate) fn clear_made(&mut self) {
        if self.n_made > 0 {
            self.made.iter_mut().for_each(|u| *u = None);
            self.n_made = 0;
        }
        if self.made_taken > 0 {
            self.taken_ver.iter_mut().for_each(|v| *v = u32::MAX);
        }
        self.made_attrs = None;
        self.renumbered.clear();
    }

    /// A frozen copy of the constant-expression tables, for runs made ahead while
    /// nothing writes this state ([`fold::Folds::frozen`]).
    pub(crate) fn frozen_folds(&mut self) -> fold::Folds {
        self.folds.frozen(&self.fx.ir)
    }

    /// Drops what was computed from `f`'s body, which changed.
    fn body_changed(&mut self, f: FuncIdx) {
        self.ver[f.idx()] += 1;
        self.preds[f.idx()] = None;
        self.eph[f.idx()] = None;
        self.bfi[f.idx()] = None;
        self.call_counts[f.idx()] = None;
        self.use_tables[f.idx()] = None;
    }

    /// `f`'s current body: the pipeline's copy once a pass edited it, else the
    /// module's, read in place.
    pub fn body(&self, f: FuncIdx) -> &Body {
        match &self.bodies[f.idx()] {
            Some(b) => b,
            None => self.fx.ir.body(f),
        }
    }

    /// The direct callee of call row `i` of `b`.
    pub fn direct_callee(&self, b: &Body, i: RowIdx) -> Option<FuncIdx> {
        self.fx.direct_callee(b, i)
    }

    /// Whether the inliner's run on `f` alone would queue no call: no call of its
    /// current body is one the run's seed queues (`Facts::seeded_call`). Such a run
    /// leaves the body, the use counts and every other function as they are; until a
    /// pass edits `f`, nothing the walk does elsewhere makes this false (definitions do
    /// not appear, deleted functions stay deleted).
    pub(crate) fn inlines_nothing(&self, f: FuncIdx) -> bool {
        let b = self.body(f);
        let deleted = |g: FuncIdx| self.deleted[g.idx()];
        b.layout.iter().all(|&bb| {
            b.blocks[bb]
                .iter()
                .all(|&i| !matches!(self.fx.seeded_call(b, i, deleted), Some(Ok(_))))
        })
    }

    /// The block frequencies of `f`, whose current body is `body`: a helper's, when
    /// made from the same body under the same attributes, else computed.
    fn freqs_of(&self, f: FuncIdx, body: &Body) -> Vec<u64> {
        match self.prefetched_tables(f, body) {
            Some(t) => t.freqs.clone(),
            None => freq::int_freqs(&self.fx, body),
        }
    }

    /// Sets `f`'s attributes as a pass left them, and marks `f` for the helpers'
    /// answers if what those read changed (a run made ahead journals the tests it made,
    /// which the walk asks again at the unit's turn).
    pub(crate) fn set_cur_attrs(&mut self, f: FuncIdx, a: AttrSet) {
        let old = *self.fx.attr_set(f);
        if old == a {
            return;
        }
        if prefetch::differ_where_read(&old, &a)
            && !std::mem::replace(&mut self.attrs_marked[f.idx()], true)
        {
            self.n_marked += 1;
        }
        self.fx.cur_attrs[f.idx()] = Some(a);
    }

    /// Starts helpers' state for a run of the walk over `order` (callees first);
    /// [`Prefetch::help`] is what a helper runs.
    pub fn start_prefetch(&mut self, order: Vec<FuncIdx>) -> Arc<Prefetch> {
        let order = order
            .into_iter()
            .filter(|f| self.fx.is_def[f.idx()])
            .collect();
        let p = Arc::new(Prefetch::new(self.fx.clone(), order));
        self.attrs_marked.iter_mut().for_each(|m| *m = false);
        self.n_marked = 0;
        self.prefetch = Some(p.clone());
        p
    }

    /// The helpers have taken every function of the walk's order (or none run).
    pub(crate) fn prefetch_done(&self) -> bool {
        self.prefetch.as_ref().is_none_or(|p| p.done())
    }

    /// Ends the helpers' work for this run.
    pub fn stop_prefetch(&mut self) {
        if let Some(p) = self.prefetch.take() {
            p.stop();
        }
    }

    /// No function in `refs` had attributes the analyses read changed since the
    /// helpers started.
    fn attrs_unchanged(&self, refs: &[FuncIdx]) -> bool {
        self.n_marked == 0 || refs.iter().all(|g| !self.attrs_marked[g.idx()])
    }

    /// `body` is `f`'s body as the module has it (not a copy a pass edited, which
    /// may be lent out of the store while it is read).
    fn is_module_body(&self, f: FuncIdx, body: &Body) -> bool {
        std::ptr::eq(body, self.fx.ir.body(f))
    }

    /// A helper's tables of `f` for `body`, when that is the module's body of `f` and
    /// the attributes they read are unchanged.
    fn prefetched_tables(&self, f: FuncIdx, body: &Body) -> Option<&prefetch::Tables> {
        let p = self.prefetch.as_deref()?;
        if !self.is_module_body(f, body) {
            return None;
        }
        p.ready_tables(f).filter(|t| self.attrs_unchanged(&t.refs))
    }

    /// The call and reference summary of body `f` (for the call graph).
    fn summarize(&self, f: FuncIdx) -> Summary {
        summarize(&self.fx, &self.folds, self.body(f))
    }

    /// Per function: (direct, indirect) calls of its current body (what LLVM's
    /// `DevirtSCCRepeatedPass` compares before and after a run: fewer indirect and more
    /// direct calls in a function means a devirtualization).
    pub fn call_counts(&mut self, fs: &[NodeIdx]) -> Vec<(u32, u32)> {
        fs.iter()
            .map(|&n| {
                let f = function_of_node(n);
                if !self.fx.is_def[f.idx()] || self.deleted[f.idx()] {
                    return (0, 0);
                }
                if let Some(c) = self.call_counts[f.idx()] {
                    return c;
                }
                let c = self.fx.count_calls(self.body(f));
                self.call_counts[f.idx()] = Some(c);
                c
            })
            .collect()
    }
}

/// A body's calls and references as the call graph's summary has them.
pub(crate) type Summary = (Vec<CallSummary>, Vec<NodeIdx>);

/// Body `b`'s direct calls of functions (in order) and the functions it references
/// otherwise (first mention first), `folds` naming its constant expressions.
fn summarize(fx: &Facts, folds: &fold::Folds, b: &Body) -> Summary {
    let mut calls = Vec::new();
    // (function, order of mention): deduplicated below in O(mentions), not over a
    // table of every function per body
    let mut found: Vec<(NodeIdx, u32)> = Vec::new();
    let mut syms = Vec::new();
    for &bb in &b.layout {
        for &i in &b.blocks[bb] {
            let inst = b.inst(i);
            let callee_op = inst.call.map(|c| c.callee_op as usize);
            for (k, &v) in inst.ops.iter().enumerate() {
                let V::K(kv) = v else { continue };
                if Some(k) == callee_op {
                    if let Value::Global(s) = kv {
                        if let Some(g) = fx.sym_func[s.idx()] {
                            calls.push(CallSummary {
                                callee: CallTarget::Function(node_of_function(g)),
                                arg_count: inst.call.unwrap().nargs,
                                loc: LocIdx::NONE,
                                history: HistIdx::NONE,
                            });
                            continue;
                        }
                    }
                }
                syms.clear();
                expr_symbols(&fx.ir, folds, kv, &mut syms);
                for &s in &syms {
                    let direct = fx.sym_func[s.idx()].map(node_of_function);
                    for &n in direct.iter().chain(&fx.sym_refs[s]) {
                        found.push((n, found.len() as u32));
                    }
                }
            }
        }
    }
    // each function once, at its first mention
    found.sort_unstable();
    found.dedup_by_key(|x| x.0);
    found.sort_unstable_by_key(|x| x.1);
    (calls, found.into_iter().map(|x| x.0).collect())
}

/// Functions referenced by `b` (with multiplicity).
fn ref_counts<S: store::Store>(st: &S, b: &Body) -> FixedMap<FuncIdx, i64> {
    let rows = b.layout.iter().flat_map(|&bb| b.blocks[bb].iter().copied());
    ref_counts_of(st, b, rows)
}

/// Functions referenced by rows `rows` of `b` (with multiplicity).
fn ref_counts_of<S: store::Store>(
    st: &S,
    b: &Body,
    rows: impl Iterator<Item = RowIdx>,
) -> FixedMap<FuncIdx, i64> {
    let fx = &st.sh().fx;
    let mut out = FixedMap::default();
    let mut tmp = Vec::new();
    for i in rows {
        for &v in b.ops(i) {
            if let V::K(k) = v {
                tmp.clear();
                expr_funcs(&fx.ir, st.folds(), &fx.sym_func, k, &mut tmp);
                for &g in &tmp {
                    *out.entry(g).or_default() += 1;
                }
            }
        }
    }
    out
}

/// The references an inlining added to caller `n` and removed from it: the new live
/// rows against the call row (the whole body when the call's value became a
/// constant, which may now stand in old rows).
fn inline_ref_delta<S: store::Store>(
    st: &S,
    n: FuncIdx,
    call_refs: FixedMap<FuncIdx, i64>,
    whole_before: Option<FixedMap<FuncIdx, i64>>,
    out: &clone::Inlined,
) -> (FixedMap<FuncIdx, i64>, FixedMap<FuncIdx, i64>) {
    let b = st.body(n);
    if out.value_is_constant {
        if let Some(before) = whole_before {
            return (ref_counts(st, b), before);
        }
    }
    let mut blocks: Vec<BlockIdx> = out.clones.iter().map(|c| c.1).collect();
    blocks.extend([out.call_block, out.after, b.layout[0]]);
    blocks.extend(out.unwind_blocks.iter().copied());
    blocks.sort_unstable();
    blocks.dedup();
    let rows = blocks.into_iter().flat_map(|bb| {
        b.blocks[bb]
            .iter()
            .copied()
            .filter(|&r| r >= out.first_new_row)
    });
    (ref_counts_of(st, b, rows), call_refs)
}

/// Callee `f`'s block frequencies for its current body, cached until its body changes.
fn callee_freqs<S: store::Store>(st: &mut S, f: FuncIdx) -> Arc<Vec<u64>> {
    if let Some(v) = st.bfi(f) {
        return v;
    }
    let v = Arc::new(st.sh().freqs_of(f, st.body(f)));
    st.set_bfi(f, v.clone());
    v
}

/// `f`'s predecessor table and ephemeral rows for its current body: a helper's, when
/// made from the same body under the same attributes, else computed.
fn tables_of<S: store::Store>(st: &S, f: FuncIdx) -> (PredTable, Box<[RowIdx]>) {
    let b = st.body(f);
    match st.sh().prefetched_tables(f, b) {
        Some(t) => (t.preds.clone(), t.eph.clone()),
        None => (b.pred_table(), cost::ephemeral_rows(&st.sh().fx, b)),
    }
}

/// What the decisions of one caller's batch read of the caller, kept as LLVM keeps its
/// analyses: computed when the batch first needs them, updated by each inlining into the
/// caller, dropped when the batch that inlined ends (LLVM invalidates the caller's
/// analyses there).
struct CallerFacts {
    /// The caller.
    f: FuncIdx,
    /// Block frequencies (LLVM's `BlockFrequencyInfo`).
    freqs: Vec<u64>,
    /// Per instruction row: its block.
    block_of: Vec<BlockIdx>,
    /// The caller calls itself (LLVM's `IsCallerRecursive`).
    recursive: bool,
}

impl CallerFacts {
    fn new<S: store::Store>(st: &S, f: FuncIdx) -> CallerFacts {
        // the walk has reached `f` as a caller: a helper not yet at it leaves it
        if let Some(p) = &st.sh().prefetch {
            p.claim(f);
        }
        let b = st.body(f);
        let mut block_of = vec![BlockIdx::NONE; b.num_rows() as usize];
        let mut recursive = false;
        for &bb in &b.layout {
            for &i in &b.blocks[bb] {
                block_of[i.idx()] = bb;
                recursive |= b.call_of(i).is_some() && st.sh().direct_callee(b, i) == Some(f);
            }
        }
        CallerFacts {
            f,
            // the frequencies of an unchanged body, if a decision about it as a callee
            // (or an earlier batch) computed them
            freqs: match st.bfi(f) {
                Some(cached) => cached.to_vec(),
                None => st.sh().freqs_of(f, b),
            },
            block_of,
            recursive,
        }
    }

    /// After a call of the caller was inlined (`out`) with a callee of frequencies
    /// `callee_freqs`: the frequencies as `InlineFunction` updates them, the blocks of
    /// the rows that moved or were made, and whether the clone calls the caller.
    fn update<S: store::Store>(
        &mut self,
        st: &S,
        callee_freqs: &[u64],
        callee_entry: BlockIdx,
        out: &clone::Inlined,
    ) {
        freq::update_after_inline(
            &mut self.freqs,
            callee_freqs,
            callee_entry,
            &out.clones,
            out.call_block,
            out.after,
        );
        let b = st.body(self.f);
        // blocks an invoke's inlining split off: unknown to the frequencies (0)
        if let Some(n) = out.unwind_blocks.iter().map(|u| u.idx() + 1).max() {
            if self.freqs.len() < n {
                self.freqs.resize(n, 0);
            }
        }
        self.block_of.resize(b.num_rows() as usize, BlockIdx::NONE);
        let touched = out
            .clones
            .iter()
            .map(|c| c.1)
            .chain([out.call_block, out.after, b.layout[0]])
            .chain(out.unwind_blocks.iter().copied());
        for bb in touched {
            for &i in &b.blocks[bb] {
                self.block_of[i.idx()] = bb;
            }
        }
        self.recursive |= out
            .new_calls
            .iter()
            .any(|&i| st.sh().direct_callee(b, i) == Some(self.f));
    }
}
