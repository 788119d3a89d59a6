//! [`Cfg`]s of the functions of an LLVM module ([`crate::llvm::Module`]).
//!
//! Block `b` of the CFG is the function's `b`-th block in `.ll` order (block 0 = entry);
//! successors keep LLVM order (br: true then false; switch: default then cases,
//! duplicates kept). Block names are LLVM's (label without `%`, or the slot number for
//! unnamed blocks). An instruction id is `b`'s position in a running count of the
//! function's instructions, so each block owns `instruction_count` consecutive ids;
//! `label_id` is the block's first instruction id. O(blocks + edges).

use super::{Cfg, InsnIdx, Term};
use crate::llvm::{Function, Module, Terminator};
use rayon::prelude::*;

impl Term {
    /// The CFG terminator of an LLVM IR terminator.
    pub fn from_llvm(t: Terminator) -> Term {
        match t {
            Terminator::Br => Term::Br,
            Terminator::Switch => Term::Switch,
            Terminator::IndirectBr => Term::IndirectBr,
            Terminator::Invoke => Term::Invoke,
            Terminator::CallBr => Term::CallBr,
            Terminator::Resume => Term::Resume,
            Terminator::Unreachable => Term::Unreachable,
            Terminator::Ret => Term::LlvmRet,
            Terminator::None
            | Terminator::CleanupRet
            | Terminator::CatchRet
            | Terminator::CatchSwitch => Term::Other,
        }
    }
}

impl Cfg {
    /// The CFG of one function (an empty CFG for a declaration). A successor that is
    /// not one of `f`'s blocks (never in a module the reader made; `Function`'s fields
    /// are public) is dropped.
    pub fn from_llvm_function(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let mut names = Vec::with_capacity(n);
        let mut label_id = Vec::with_capacity(n);
        let mut terms = Vec::with_capacity(n);
        let mut insns = Vec::with_capacity(n);
        let mut succs = Vec::with_capacity(n);
        let mut next = 0u32;
        for b in f.blocks.iter() {
            names.push(b.name.clone());
            label_id.push(next);
            terms.push(Term::from_llvm(b.term));
            let c = b.instruction_count;
            insns.push((next..next + c).map(InsnIdx).collect());
            next += c;
            succs.push(b.succs.iter().copied().filter(|s| s.idx() < n).collect());
        }
        Cfg::from_parts_in_range(f.name.clone(), names, label_id, terms, insns, &succs)
    }

    /// The CFG of every defined function of `m`, in module order, built in parallel.
    pub fn from_llvm_module(m: &Module) -> Vec<Cfg> {
        m.functions()
            .raw()
            .par_iter()
            .filter(|f| f.is_definition)
            .map(Cfg::from_llvm_function)
            .collect()
    }
}
