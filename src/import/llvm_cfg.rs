//! `.ll` → [`Cfg`]: one CFG per defined function of an LLVM IR module, built on the
//! LLVM IR reader in [`crate::import::llvm_ir`] (no second parser).
//!
//! Block `b` of the CFG is the function's `b`-th block in `.ll` order (block 0 = entry);
//! successors keep LLVM order (br: true then false; switch: default then cases,
//! duplicates kept). Block names are LLVM's (label without `%`, or the slot number for
//! unnamed blocks). An instruction id is `b`'s position in a running count of the
//! function's instructions, so each block owns `instruction_count` consecutive ids.
//! `label_id` is the block's first instruction id. O(blocks + edges).

use super::llvm_ir;
use crate::cfg::{Cfg, Term};

/// Builds the CFG of one defined function (an empty CFG for a declaration).
pub fn build_cfg(f: &llvm_ir::Function) -> Cfg {
    let n = f.blocks.len();
    let mut names = Vec::with_capacity(n);
    let mut label_id = Vec::with_capacity(n);
    let mut terms = Vec::with_capacity(n);
    let mut insns = Vec::with_capacity(n);
    let mut succs = Vec::with_capacity(n);
    let mut next = 0u32;
    for b in &f.blocks {
        names.push(b.name.clone());
        label_id.push(next);
        terms.push(Term::from_llvm(&b.term));
        let c = b.instruction_count;
        insns.push((next..next + c).collect());
        next += c;
        // Successor indices come from the reader; keep only in-range ones (the reader
        // guarantees this, but the Cfg constructor asserts it).
        succs.push(
            b.succs
                .iter()
                .copied()
                .filter(|&s| (s as usize) < n)
                .collect::<Vec<u32>>(),
        );
    }
    Cfg::from_parts(f.name.clone(), names, label_id, terms, insns, &succs)
}

/// Parses `text` and builds the CFG of every defined function, in module order.
/// Errors are formatted `file:line:col: message`.
pub fn cfgs_from_ll(path: &str, text: &str) -> Result<Vec<Cfg>, String> {
    let m = llvm_ir::parse(path, text).map_err(|e| e.to_string())?;
    Ok(m.functions
        .iter()
        .filter(|f| f.is_definition)
        .map(build_cfg)
        .collect())
}
