//! The attributes inferred by scanning bodies: the SCC's node set and its unknown
//! calls (`createSCCNodeSet`), `convergent` removal, `noreturn`, `willreturn`, the
//! SCC-wide inferer for `nounwind`, `nofree` and `nosync` (`AttributeInferer`),
//! `norecurse`, and the attributes others imply (`inferAttributesFromOthers`).

use super::Inference;
use crate::idx::BlockIdx;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{Body, RowIdx};
use crate::llvm::ir::{Intrinsic, Opcode};
use crate::llvm::FuncIdx;

/// The instruction predicate of one inferer attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    NoUnwind,
    NoFree,
    NoSync,
    NotConvergent,
}

impl Inference {
    /// `createSCCNodeSet`: the members that take part (not `optnone`, `naked` or a
    /// pre-split coroutine), and whether the SCC has an unknown call (such a member, or
    /// a call without a direct callee: indirect, inline asm, through a cast).
    pub(super) fn node_set(&self, members: &[FuncIdx]) -> (Vec<FuncIdx>, bool) {
        let mut unknown = false;
        let mut nodes = Vec::with_capacity(members.len());
        for &f in members {
            if self.has(f, Attr::OptNone)
                || self.has(f, Attr::Naked)
                || self.has(f, Attr::PresplitCoroutine)
            {
                unknown = true;
                continue;
            }
            if !unknown {
                let b = self.body(f);
                unknown = b
                    .live_rows()
                    .any(|i| Self::call_at(b, i).is_some_and(|c| self.is_unknown_call(c)));
            }
            nodes.push(f);
        }
        (nodes, unknown)
    }

    fn breaks(&self, rule: Rule, b: &Body, i: RowIdx) -> bool {
        match rule {
            Rule::NoUnwind => {
                if !self.may_throw(b, i) {
                    return false;
                }
                if b.op(i) == Opcode::Call {
                    if let Some(c) = Self::call_at(b, i) {
                        if self.called_function(c).is_some_and(|g| self.in_scc[g]) {
                            return false;
                        }
                    }
                }
                true
            }
            Rule::NoFree => {
                let Some(c) = Self::call_at(b, i) else {
                    return false;
                };
                if self.call_has(c, Attr::NoFree) {
                    return false;
                }
                !self.called_function(c).is_some_and(|g| self.in_scc[g])
            }
            Rule::NoSync => {
                if self.inst_volatile(b, i) {
                    return true;
                }
                let flags = b.flags(i);
                let ordered = match b.op(i) {
                    Opcode::Fence => !flags.has(crate::llvm::ir::InstFlags::SINGLETHREAD),
                    Opcode::AtomicCmpXchg | Opcode::AtomicRmw => true,
                    Opcode::Load | Opcode::Store => flags.is_atomic() && !flags.is_unordered(),
                    _ => false,
                };
                if ordered {
                    return true;
                }
                let Some(c) = Self::call_at(b, i) else {
                    return false;
                };
                if self.call_has(c, Attr::NoSync) {
                    return false;
                }
                if self.mem_intrinsic_volatile(c) == Some(false) {
                    return false;
                }
                !self.called_function(c).is_some_and(|g| self.in_scc[g])
            }
            Rule::NotConvergent => {
                let Some(c) = Self::call_at(b, i) else {
                    return false;
                };
                self.call_has(c, Attr::Convergent)
                    && !self.called_function(c).is_some_and(|g| self.in_scc[g])
            }
        }
    }

    fn skips(&self, rule: Rule, f: FuncIdx) -> bool {
        match rule {
            Rule::NoUnwind => self.has(f, Attr::NoUnwind),
            Rule::NoFree => self.only_reads(f) || self.has(f, Attr::NoFree),
            Rule::NoSync => self.has(f, Attr::NoSync),
            Rule::NotConvergent => !self.has(f, Attr::Convergent),
        }
    }

    fn apply(&mut self, rule: Rule, f: FuncIdx) {
        let s = &mut self.fn_attrs[f];
        match rule {
            Rule::NoUnwind => s.add(Attr::NoUnwind),
            Rule::NoFree => s.add(Attr::NoFree),
            Rule::NoSync => s.add(Attr::NoSync),
            Rule::NotConvergent => s.remove(Attr::Convergent),
        }
    }

    /// `AttributeInferer::run` for `rules` (each with its exactness requirement).
    fn infer(&mut self, nodes: &[FuncIdx], rules: &[(Rule, bool)]) {
        let mut alive: Vec<(Rule, bool)> = rules.to_vec();
        for &f in nodes {
            if alive.is_empty() {
                return;
            }
            alive.retain(|&(r, exact)| {
                self.skips(r, f) || !(!self.facts.is_def[f] || (exact && !self.is_exact(f)))
            });
            let mut here: Vec<Rule> = alive
                .iter()
                .filter(|&&(r, _)| !self.skips(r, f))
                .map(|&(r, _)| r)
                .collect();
            if here.is_empty() {
                continue;
            }
            let b = self.body(f);
            for i in b.live_rows() {
                let mut k = 0;
                while k < here.len() {
                    let r = here[k];
                    if self.breaks(r, b, i) {
                        alive.retain(|&(a, _)| a != r);
                        here.remove(k);
                    } else {
                        k += 1;
                    }
                }
                if here.is_empty() {
                    break;
                }
            }
        }
        if alive.is_empty() {
            return;
        }
        for &f in nodes {
            for &(r, _) in &alive {
                if !self.skips(r, f) {
                    self.apply(r, f);
                }
            }
        }
    }

    /// `inferConvergent`.
    pub(super) fn infer_convergent(&mut self, nodes: &[FuncIdx]) {
        self.infer(nodes, &[(Rule::NotConvergent, false)]);
    }

    /// `inferAttrsFromFunctionBodies`: `nounwind` and `nofree` in one scan.
    pub(super) fn infer_nounwind_nofree(&mut self, nodes: &[FuncIdx]) {
        self.infer(nodes, &[(Rule::NoUnwind, true), (Rule::NoFree, true)]);
    }

    /// `addNoSyncAttr`.
    pub(super) fn add_nosync(&mut self, nodes: &[FuncIdx]) {
        self.infer(nodes, &[(Rule::NoSync, true)]);
    }

    /// `addNoReturnAttrs`: no block reachable from the entry returns.
    pub(super) fn add_noreturn(&mut self, nodes: &[FuncIdx]) {
        for &f in nodes {
            if !self.is_exact(f) || self.has(f, Attr::Naked) || self.has(f, Attr::NoReturn) {
                continue;
            }
            if !self.can_return(f) {
                self.fn_attrs[f].add(Attr::NoReturn);
            }
        }
    }

    fn can_return(&self, f: FuncIdx) -> bool {
        let b = self.body(f);
        let Some(&entry) = b.layout.first() else {
            return false;
        };
        let mut seen = vec![false; b.blocks.len()];
        let mut stack = vec![entry];
        seen[entry.idx()] = true;
        while let Some(bb) = stack.pop() {
            let returns = b.term(bb).is_some_and(|t| b.op(t) == Opcode::Ret)
                && !b.blocks[bb].iter().any(|&i| {
                    Self::call_at(b, i).is_some_and(|c| self.call_has(c, Attr::NoReturn))
                });
            if returns {
                return true;
            }
            for s in b.succ_iter(bb) {
                if !seen[s.idx()] {
                    seen[s.idx()] = true;
                    stack.push(s);
                }
            }
        }
        false
    }

    /// `addWillReturn`.
    pub(super) fn add_willreturn(&mut self, nodes: &[FuncIdx]) {
        for &f in nodes {
            if self.has(f, Attr::WillReturn) {
                continue;
            }
            if self.will_return(f) {
                self.fn_attrs[f].add(Attr::WillReturn);
            }
        }
    }

    /// `functionWillReturn`.
    fn will_return(&self, f: FuncIdx) -> bool {
        if !self.is_exact(f) {
            return false;
        }
        if (self.has(f, Attr::MustProgress) || self.has(f, Attr::WillReturn)) && self.only_reads(f)
        {
            return true;
        }
        if self.has_reachable_cycle(f) {
            return false;
        }
        let b = self.body(f);
        b.live_rows().all(|i| self.inst_will_return(b, i))
    }

    /// `FindFunctionBackedges` is not empty: a DFS from the entry meets a block on its
    /// stack.
    fn has_reachable_cycle(&self, f: FuncIdx) -> bool {
        let body = self.body(f);
        let Some(&entry) = body.layout.first() else {
            return false;
        };
        // 0 unvisited, 1 on the stack, 2 done
        let mut state = vec![0u8; body.blocks.len()];
        let succs = |b: BlockIdx| -> Vec<BlockIdx> { body.succ_iter(b).collect() };
        let mut stack: Vec<(BlockIdx, Vec<BlockIdx>, usize)> = vec![(entry, succs(entry), 0)];
        state[entry.idx()] = 1;
        while let Some((b, ss, k)) = stack.last_mut() {
            if *k < ss.len() {
                let s = ss[*k];
                *k += 1;
                match state[s.idx()] {
                    1 => return true,
                    0 => {
                        state[s.idx()] = 1;
                        let next = succs(s);
                        stack.push((s, next, 0));
                    }
                    _ => {}
                }
            } else {
                state[b.idx()] = 2;
                stack.pop();
            }
        }
        false
    }

    /// `addNoRecurseAttrs`: a single-function SCC whose every call goes directly to
    /// another `norecurse` function (debug intrinsics and pseudo-probes aside).
    pub(super) fn add_norecurse(&mut self, nodes: &[FuncIdx]) {
        let [f] = nodes else { return };
        let f = *f;
        if !self.is_exact(f) || self.has(f, Attr::NoRecurse) {
            return;
        }
        let b = self.body(f);
        for i in b.live_rows() {
            let Some(c) = Self::call_at(b, i) else {
                continue;
            };
            let callee = self.called_function(c);
            if b.op(i) == Opcode::Call
                && callee.is_some_and(|g| {
                    matches!(
                        self.ir.intrinsic[g],
                        Intrinsic::Debug | Intrinsic::PseudoProbe
                    )
                })
            {
                continue;
            }
            match callee {
                Some(g) if g != f && self.has(g, Attr::NoRecurse) => {}
                _ => return,
            }
        }
        self.fn_attrs[f].add(Attr::NoRecurse);
    }

    /// `inferAttributesFromOthers`.
    pub(super) fn infer_from_others(&mut self, f: FuncIdx) {
        let s = &mut self.fn_attrs[f];
        if !s.has(Attr::NoSync) && s.has(Attr::ReadNone) && !s.has(Attr::Convergent) {
            s.add(Attr::NoSync);
        }
        if !s.has(Attr::NoFree) && (s.has(Attr::ReadNone) || s.has(Attr::ReadOnly)) {
            s.add(Attr::NoFree);
        }
        if !s.has(Attr::MustProgress) && s.has(Attr::WillReturn) {
            s.add(Attr::MustProgress);
        }
    }
}
