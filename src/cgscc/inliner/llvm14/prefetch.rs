//! Tables the inliner's walk will ask for, made ahead on the pool's other workers.
//!
//! The walk stays one sequential walk: it alone edits bodies, counts uses, decides,
//! updates the call graph and emits remarks, in LLVM's order. Some of what it reads is
//! a pure function of one body: its block frequencies (which every caller's first
//! batch of decisions needs), its predecessor table and its ephemeral rows (which the
//! cost analysis of a call to it walks). While the walk runs, helpers (the pool's
//! other workers) make them for the module's bodies *as read*, in the walk's order
//! (callees first), and the walk takes a helper's table only when every input is
//! still what the helper saw:
//!
//! - the body is the module's: not a copy a pass edited (a function's body is copied
//!   out of the module on its first edit, and the test is on the body's address, so a
//!   copy lent out of the store while it is read never passes);
//! - the attributes read are unchanged: the walk marks a function whose attributes a
//!   pass changed (`function-attrs`' inferences; the merge of `mustprogress`, which
//!   none of these tables reads, does not count), and a table is refused when a
//!   function its body mentions — directly, through constant expressions or through
//!   global initializers — is marked.
//!
//! Anything else the walk computes as before, so the answer is the sequential one for
//! any number of helpers, by construction (`tests/cgscc_jobs.rs` compares 1 to 4
//! workers). A helper never blocks the walk: a table not ready when asked for is
//! computed by the walk itself, and a function the walk has reached is left to it.
//!
//! The cost analyses themselves are not made ahead: on SQLite 3.45 (`-O0`, prepared,
//! `cgscc(devirt<4>(inline))`) 98.6 % of the rows they walk are in a caller or a
//! callee that inlining had already edited, which only the walk's own order knows.

use super::{cost, expr_symbols, fold, freq, Facts, PredTable};
use crate::callgraph::function_of_node;
use crate::llvm::attrs::{Attr, AttrSet};
use crate::llvm::ir::body::{Body, RowIdx, V};
use crate::llvm::FuncIdx;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// What a body's analyses give, for the module's body of one function.
#[derive(Debug)]
pub(super) struct Tables {
    /// Block frequencies ([`freq::int_freqs`]).
    pub freqs: Vec<u64>,
    /// Predecessor table ([`Body::pred_table`]).
    pub preds: PredTable,
    /// Ephemeral rows ([`cost::ephemeral_rows`]).
    pub eph: Box<[RowIdx]>,
    /// The functions the body mentions, sorted: whose attributes these tables may have
    /// read.
    pub refs: Box<[FuncIdx]>,
}

#[derive(Debug, Default)]
struct Slot {
    tables: OnceLock<Tables>,
    /// The function was taken (by a helper, or by the walk, which then makes what it
    /// needs itself).
    claimed: AtomicBool,
}

/// The helpers' shared state for one run of the pass manager.
#[derive(Debug)]
pub struct Prefetch {
    /// The module facts as the run began.
    fx: Facts,
    folds: fold::Folds,
    /// Defined functions in the walk's order (callees first).
    order: Vec<FuncIdx>,
    next: AtomicUsize,
    stop: AtomicBool,
    slots: Vec<Slot>,
}

/// Attributes none of the prefetched analyses read: a change of only these does not
/// mark a function.
const UNREAD: [Attr; 1] = [Attr::MustProgress];

/// Whether attribute sets `a` and `b` differ in what the analyses read.
pub(super) fn differ_where_read(a: &AttrSet, b: &AttrSet) -> bool {
    let (mut a, mut b) = (*a, *b);
    for x in UNREAD {
        a.remove(x);
        b.remove(x);
    }
    a != b
}

impl Prefetch {
    /// Helpers' state for a run over `order` (defined functions, callees first) that
    /// starts from facts `fx`.
    pub(super) fn new(fx: Facts, order: Vec<FuncIdx>) -> Prefetch {
        let folds = fold::Folds::new(&fx.ir);
        let slots = (0..fx.is_def.len()).map(|_| Slot::default()).collect();
        Prefetch {
            fx,
            folds,
            order,
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            slots,
        }
    }

    /// A helper's loop: the next function in the walk's order not yet taken, its
    /// tables, until the order is done or the run ends. A table that fails to be made
    /// (a panic, which would be a bug in the analyses) ends the helpers' work instead
    /// of the process: the walk makes that table itself and meets the failure, if at
    /// all, where the sequential run would.
    pub fn help(&self) {
        while !self.stop.load(Ordering::Relaxed) {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(&n) = self.order.get(i) else { return };
            if !self.slots[n.idx()].claimed.swap(true, Ordering::AcqRel) {
                let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.tables(n);
                }));
                if made.is_err() {
                    self.stop();
                }
            }
        }
    }

    /// Every function of the order was taken (by a helper or the walk), or the
    /// helpers' work ended.
    pub(super) fn done(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.next.load(Ordering::Relaxed) >= self.order.len()
    }

    /// Ends the helpers' work (they stop after the item at hand).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Makes `f`'s tables.
    fn tables(&self, f: FuncIdx) -> &Tables {
        self.slots[f.idx()].tables.get_or_init(|| {
            let b = self.fx.ir.body(f);
            Tables {
                freqs: freq::int_freqs(&self.fx, b),
                preds: b.pred_table(),
                eph: cost::ephemeral_rows(&self.fx, b),
                refs: self.mentioned(b),
            }
        })
    }

    /// The functions body `b` mentions: operands, constant expressions and the
    /// functions global initializers and aliases reach.
    fn mentioned(&self, b: &Body) -> Box<[FuncIdx]> {
        let mut syms = Vec::new();
        let mut out = Vec::new();
        for i in b.live_rows() {
            for &v in b.ops(i) {
                if let V::K(k) = v {
                    syms.clear();
                    expr_symbols(&self.fx.ir, &self.folds, k, &mut syms);
                    for &s in &syms {
                        out.extend(self.fx.sym_func[s.idx()]);
                        out.extend(self.fx.sym_refs[s].iter().map(|&nd| function_of_node(nd)));
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out.into_boxed_slice()
    }

    /// Claims `n` for the walk (a helper that has not started it will not).
    pub(super) fn claim(&self, n: FuncIdx) {
        self.slots[n.idx()].claimed.store(true, Ordering::Release);
    }

    /// `f`'s tables if a helper has made them.
    pub(super) fn ready_tables(&self, f: FuncIdx) -> Option<&Tables> {
        self.slots[f.idx()].tables.get()
    }
}
