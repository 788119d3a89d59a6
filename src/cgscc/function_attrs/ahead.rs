//! `function-attrs` on a unit of one function, made ahead of the walk.
//!
//! A run of the inliner made ahead (`cgscc::ahead`) leaves the body its function will
//! have at its turn, if the walk takes the run. What `function-attrs` infers for the
//! function then depends on that body, on the function's own attributes before the pass
//! and on the attributes of the functions it reads (its callees' function, return and
//! argument attributes): nothing else it reads changes during the walk. So the run also
//! infers the attributes, over a copy of the walk's attributes taken when its round
//! began, with the attributes inferred ahead for the functions of the runs it chained on
//! written over it, and notes, with the values it saw, the function's own attributes
//! before the pass and all the attributes of every function its calls name — the only
//! others the rules read (debug builds check each read against that list). At the
//! unit's turn the walk compares them with its own ([`MadeAttrs::holds`]): when all are
//! equal the
//! inference is the one it would make, and it takes the result
//! ([`Inference::take_made`]); otherwise it infers the unit itself.

use super::column::{Col, Reads};
use super::Inference;
use crate::llvm::attrs::{Attr, AttrSet};
use crate::llvm::ir::body::{Body, MadeExprs, Uses};
use crate::llvm::ir::ArgIdx;
use crate::llvm::FuncIdx;
use std::sync::Arc;

/// What `function-attrs` inferred for a unit of one function ahead of the walk.
#[derive(Clone, Debug)]
pub(crate) struct MadeAttrs {
    /// The unit's function.
    pub(crate) f: FuncIdx,
    fn_attrs: AttrSet,
    ret_attrs: AttrSet,
    /// By argument, in order.
    args: Vec<AttrSet>,
    /// Anything changed.
    changed: bool,
    /// What the inference read, with the value it saw: the function's own attributes
    /// before the pass, then those of other functions it read, sorted.
    read: Vec<(Col, u32, AttrSet)>,
}

impl MadeAttrs {
    /// The function's attributes after the pass, as [`Inference::fn_attrs`] has them.
    pub(crate) fn fn_attrs(&self) -> &AttrSet {
        &self.fn_attrs
    }

    /// Every attribute the inference read is `inf`'s: the inference over `inf` is this
    /// one.
    pub(crate) fn holds(&self, inf: &Inference) -> bool {
        self.read.iter().all(|&(c, i, v)| inf.value(c, i) == v)
    }
}

impl Inference {
    /// Entry `i` of column `c`, not journaled.
    fn value(&self, c: Col, i: u32) -> AttrSet {
        match c {
            Col::Fn => *self.fn_attrs.get(FuncIdx::new(i as usize)),
            Col::Ret => *self.ret_attrs.get(FuncIdx::new(i as usize)),
            Col::Arg => *self.arg_attrs.get(ArgIdx::new(i as usize)),
        }
    }

    /// Writes `base`'s attributes of function `f` (its own, return and arguments') over
    /// this copy's.
    fn restore(&mut self, base: &Inference, f: FuncIdx) {
        self.fn_attrs[f] = *base.fn_attrs.get(f);
        self.ret_attrs[f] = *base.ret_attrs.get(f);
        for a in base.ir.args(f) {
            self.arg_attrs[a] = *base.arg_attrs.get(a);
        }
    }

    /// Infers the attributes of function `f` alone in its SCC, ahead of the walk, over
    /// this copy of `base` (a copy of the walk's taken earlier, which this one reads as
    /// between calls) with `chain`'s results written over it, `f` without
    /// `mustprogress` when `drop_must_progress` (the inliner's run dropped it); `body`
    /// is `f`'s body after the inliner's run (`None`: the module's), `uses` its use
    /// lists when made, `made` the constant expressions it names beyond the module's
    /// (the use lists come back, made when they were not).
    pub(crate) fn infer_ahead(
        &mut self,
        base: &Inference,
        (f, body, uses): (FuncIdx, Option<Arc<Body>>, &mut Option<Uses>),
        made: Arc<MadeExprs>,
        chain: &[&MadeAttrs],
        drop_must_progress: bool,
    ) -> MadeAttrs {
        debug_assert!(Arc::ptr_eq(&self.ir, &base.ir));
        // the functions its calls name, the only others the rules read (checked in
        // debug builds): of the chain's inferences only theirs are written over the copy
        let held = std::mem::replace(&mut self.made, Arc::clone(&made));
        let callees = self.callees(body.as_deref().unwrap_or_else(|| self.ir.body(f)));
        self.made = held;
        let read_of_chain: Vec<&MadeAttrs> = chain
            .iter()
            .copied()
            .filter(|c| c.f == f || callees.binary_search(&c.f).is_ok())
            .collect();
        for c in &read_of_chain {
            self.take_made(c);
        }
        if drop_must_progress {
            self.fn_attrs[f].remove(Attr::MustProgress);
        }
        let args: Vec<ArgIdx> = self.ir.args(f).collect();
        let own = |c: Col, i: u32| match c {
            Col::Fn | Col::Ret => i as usize == f.idx(),
            Col::Arg => args.iter().any(|a| a.idx() == i as usize),
        };
        let mut read = Vec::new();
        let mut note = |inf: &Inference, g: FuncIdx| {
            read.push((Col::Fn, g.idx() as u32, *inf.fn_attrs.get(g)));
            read.push((Col::Ret, g.idx() as u32, *inf.ret_attrs.get(g)));
            for a in inf.ir.args(g) {
                read.push((Col::Arg, a.idx() as u32, *inf.arg_attrs.get(a)));
            }
        };
        // its own attributes before the pass, and all those of the functions its calls
        // name
        note(self, f);
        for &g in callees.iter().filter(|&&g| g != f) {
            note(self, g);
        }
        let journal = cfg!(debug_assertions).then(|| {
            self.fn_attrs.journal_as(Some(Col::Fn));
            self.ret_attrs.journal_as(Some(Col::Ret));
            self.arg_attrs.journal_as(Some(Col::Arg));
            Reads::start()
        });
        let mut lent = [uses.take()];
        let changed = self.run_members(&[f], &mut [body], made, &mut lent);
        *uses = lent[0].take();
        if let Some(j) = journal {
            self.fn_attrs.journal_as(None);
            self.ret_attrs.journal_as(None);
            self.arg_attrs.journal_as(None);
            for (c, i) in j.take() {
                debug_assert!(
                    own(c, i) || read.iter().any(|x| (x.0, x.1) == (c, i)),
                    "function-attrs read {c:?} {i} of a function the calls do not name"
                );
            }
        }
        let inferred = MadeAttrs {
            f,
            fn_attrs: *self.fn_attrs.get(f),
            ret_attrs: *self.ret_attrs.get(f),
            args: args.iter().map(|&a| *self.arg_attrs.get(a)).collect(),
            changed,
            read,
        };
        // what was written goes back to `base`'s: the chunks written stay this copy's
        for c in &read_of_chain {
            self.restore(base, c.f);
        }
        self.restore(base, f);
        inferred
    }

    /// The functions the calls of `b` name, as callee or as the function whose
    /// attributes a call falls back to, sorted, each once.
    fn callees(&self, b: &Body) -> Vec<FuncIdx> {
        let mut out = Vec::new();
        for &bb in &b.layout {
            for &i in &b.blocks[bb] {
                if let Some(c) = Self::call_at(b, i) {
                    out.extend(self.called_function(c));
                    out.extend(self.attr_callee(c));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Writes the results of inference `m`, made ahead, over this one's: the walk's
    /// when [`MadeAttrs::holds`] over it, a run's copy for the runs chained on `m`'s
    /// (only what differs: a chunk shared with a copy is copied on its first write);
    /// returns whether the pass changed anything in `m`.
    pub(crate) fn take_made(&mut self, m: &MadeAttrs) -> bool {
        if *self.fn_attrs.get(m.f) != m.fn_attrs {
            self.fn_attrs[m.f] = m.fn_attrs;
        }
        if *self.ret_attrs.get(m.f) != m.ret_attrs {
            self.ret_attrs[m.f] = m.ret_attrs;
        }
        let args: Vec<ArgIdx> = self.ir.args(m.f).collect();
        for (a, v) in args.into_iter().zip(&m.args) {
            if self.arg_attrs.get(a) != v {
                self.arg_attrs[a] = *v;
            }
        }
        m.changed
    }
}
