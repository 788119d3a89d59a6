//! The function memory attribute (`addReadAttrs`): `readnone`, `readonly` or
//! `writeonly`, from a scan of each body in which accesses to local or constant memory
//! (BasicAA's `pointsToConstantMemory(.., OrLocal)`) do not count, and calls count as
//! their declared mod/ref behaviour (BasicAA's `getModRefBehavior`, call site and
//! callee intersected).

use super::Call;
use super::Inference;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{RowIdx, V};
use crate::llvm::ir::{Intrinsic, Opcode, Value};
use crate::llvm::types::TypeIdx;
use crate::llvm::{FuncIdx, Linkage, SymbolDef};

/// Where a behaviour may access memory (bits of LLVM's `FunctionModRefLocation`).
const LOC_ARG: u8 = 1;
const LOC_INACCESSIBLE: u8 = 2;
const LOC_OTHER: u8 = 4;
const LOC_ANYWHERE: u8 = LOC_ARG | LOC_INACCESSIBLE | LOC_OTHER;
/// Mod/ref bits.
const REF: u8 = 1;
const MOD: u8 = 2;

/// A `FunctionModRefBehavior`: locations and mod/ref; intersection is bitwise and.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mrb {
    loc: u8,
    mr: u8,
}

impl Mrb {
    const NONE: Mrb = Mrb { loc: 0, mr: 0 };

    fn and(self, o: Mrb) -> Mrb {
        Mrb {
            loc: self.loc & o.loc,
            mr: self.mr & o.mr,
        }
    }
}

/// What a function's body does to memory visible outside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    ReadNone,
    ReadOnly,
    WriteOnly,
    MayWrite,
}

impl Inference {
    /// BasicAA's behaviour of function `f` from its attributes.
    fn fn_mrb(&self, f: FuncIdx) -> Mrb {
        if self.has(f, Attr::ReadNone) {
            return Mrb::NONE;
        }
        let mr = if self.only_reads(f) {
            REF
        } else if self.only_writes(f) {
            MOD
        } else {
            REF | MOD
        };
        let loc = if self.has(f, Attr::ArgMemOnly) {
            LOC_ARG
        } else if self.has(f, Attr::InaccessibleMemOnly) {
            LOC_INACCESSIBLE
        } else if self.has(f, Attr::InaccessibleMemOrArgMemOnly) {
            LOC_ARG | LOC_INACCESSIBLE
        } else {
            LOC_ANYWHERE
        };
        Mrb { loc, mr }
    }

    /// BasicAA's behaviour of call `c`: the call site's attributes (callee through a
    /// bitcast) intersected with the direct callee's, unless the call has bundles.
    fn call_mrb(&self, c: Call<'_>) -> Mrb {
        if self.call_has(c, Attr::ReadNone) {
            return Mrb::NONE;
        }
        let mr = if self.call_only_reads(c) {
            REF
        } else if self.call_only_writes(c) {
            MOD
        } else {
            REF | MOD
        };
        let loc = if self.call_has(c, Attr::ArgMemOnly) {
            LOC_ARG
        } else if self.call_has(c, Attr::InaccessibleMemOnly) {
            LOC_INACCESSIBLE
        } else if self.call_has(c, Attr::InaccessibleMemOrArgMemOnly) {
            LOC_ARG | LOC_INACCESSIBLE
        } else {
            LOC_ANYWHERE
        };
        let mut m = Mrb { loc, mr };
        if !c.ci.bundles.any() {
            if let Some(f) = self.called_function(c) {
                m = m.and(self.fn_mrb(f));
            }
        }
        m
    }

    /// `checkFunctionMemoryAccess`: what `f` does to non-local memory, `nodes` being the
    /// SCC (calls to them do not count).
    pub(super) fn function_access(&self, f: FuncIdx) -> Access {
        let own = self.fn_mrb(f);
        if own == Mrb::NONE {
            return Access::ReadNone;
        }
        if !self.is_exact(f) {
            return if own.mr & MOD == 0 {
                Access::ReadOnly
            } else if own.mr & REF == 0 {
                Access::WriteOnly
            } else {
                Access::MayWrite
            };
        }
        let ir = &*self.ir;
        let b = self.body(f);
        let (mut reads, mut writes) = (false, false);
        for i in b.live_rows() {
            let op = b.op(i);
            if let Some(c) = Self::call_at(b, i) {
                if !c.ci.bundles.any() && self.called_function(c).is_some_and(|g| self.in_scc[g]) {
                    continue;
                }
                let m = self.call_mrb(c);
                if m.mr == 0 || self.call_intrinsic(c) == Intrinsic::PseudoProbe {
                    continue;
                }
                if m.loc & !LOC_ARG != 0 {
                    writes |= m.mr & MOD != 0;
                    reads |= m.mr & REF != 0;
                    continue;
                }
                let tys = c.arg_tys();
                for (k, &a) in c.args().iter().enumerate() {
                    if !ir.types.is_ptr_or_ptr_vector(self.ty_of(f, a, tys[k])) {
                        continue;
                    }
                    if self.local_or_const(f, a, tys[k]) {
                        continue;
                    }
                    writes |= m.mr & MOD != 0;
                    reads |= m.mr & REF != 0;
                }
                continue;
            }
            let flags = b.flags(i);
            let skip = match op {
                Opcode::Load => !flags.is_volatile() && self.local_or_const_operand(f, i, 0),
                Opcode::Store => !flags.is_volatile() && self.local_or_const_operand(f, i, 1),
                Opcode::VaArg => self.local_or_const_operand(f, i, 0),
                _ => false,
            };
            if skip {
                continue;
            }
            writes |= match op {
                Opcode::Fence
                | Opcode::Store
                | Opcode::VaArg
                | Opcode::AtomicCmpXchg
                | Opcode::AtomicRmw
                | Opcode::CatchPad
                | Opcode::CatchRet => true,
                Opcode::Load => !flags.is_unordered(),
                _ => false,
            };
            reads |= match op {
                Opcode::VaArg
                | Opcode::Load
                | Opcode::Fence
                | Opcode::AtomicCmpXchg
                | Opcode::AtomicRmw
                | Opcode::CatchPad
                | Opcode::CatchRet => true,
                Opcode::Store => !flags.is_unordered(),
                _ => false,
            };
        }
        match (reads, writes) {
            (_, true) if !reads => Access::WriteOnly,
            (true, true) => Access::MayWrite,
            (true, false) => Access::ReadOnly,
            _ => Access::ReadNone,
        }
    }

    /// `addReadAttrs` over the SCC's nodes.
    pub(super) fn add_read_attrs(&mut self, nodes: &[FuncIdx]) {
        let (mut reads, mut writes) = (false, false);
        for &f in nodes {
            match self.function_access(f) {
                Access::MayWrite => return,
                Access::ReadOnly => reads = true,
                Access::WriteOnly => writes = true,
                Access::ReadNone => {}
            }
        }
        if reads && writes {
            return;
        }
        for &f in nodes {
            if self.has(f, Attr::ReadNone)
                || (self.only_reads(f) && reads)
                || (self.only_writes(f) && writes)
            {
                continue;
            }
            let s = &mut self.fn_attrs[f];
            s.remove(Attr::ReadOnly);
            s.remove(Attr::ReadNone);
            s.remove(Attr::WriteOnly);
            if !writes && !reads {
                s.remove(Attr::ArgMemOnly);
                s.remove(Attr::InaccessibleMemOnly);
                s.remove(Attr::InaccessibleMemOrArgMemOnly);
            }
            s.add(if writes {
                Attr::WriteOnly
            } else if reads {
                Attr::ReadOnly
            } else {
                Attr::ReadNone
            });
        }
    }

    fn local_or_const_operand(&self, f: FuncIdx, i: RowIdx, n: usize) -> bool {
        let (v, ty) = self.operand_of(f, V::Inst(i), n);
        self.local_or_const(f, v, ty)
    }

    /// BasicAA's `pointsToConstantMemory(ptr, OrLocal = true)`: every underlying object
    /// is an `alloca` or a `constant` global, looking through selects and phis of at
    /// most 8 incoming values; at most 8 objects are looked at, and reaching one twice
    /// fails.
    pub(super) fn local_or_const(&self, f: FuncIdx, ptr: V, ty: TypeIdx) -> bool {
        let b = self.body(f);
        let mut worklist: Vec<(V, TypeIdx)> = vec![(ptr, ty)];
        let mut visited: Vec<V> = Vec::with_capacity(8);
        let mut budget = 8u32;
        while let Some((p, pt)) = worklist.pop() {
            let v = self.underlying_object(f, p, pt);
            if visited.contains(&v) {
                return false;
            }
            visited.push(v);
            match v {
                V::Inst(i) if b.op(i) == Opcode::Alloca => {}
                V::K(Value::Global(s)) => match self.facts.sym_def[s] {
                    SymbolDef::Global(g) if self.facts.global_constant[g] => {}
                    _ => return false,
                },
                V::Inst(i) if b.op(i) == Opcode::Select => {
                    let (ops, tys) = (b.ops(i), b.tys(i));
                    worklist.push((ops[1], tys[1]));
                    worklist.push((ops[2], tys[2]));
                }
                V::Inst(i) if b.op(i) == Opcode::Phi => {
                    let ops = b.ops(i);
                    if ops.len() / 2 > 8 {
                        return false;
                    }
                    let tys = b.tys(i);
                    for k in (0..ops.len()).step_by(2) {
                        worklist.push((ops[k], tys[k]));
                    }
                }
                _ => return false,
            }
            budget -= 1;
            if worklist.is_empty() || budget == 0 {
                break;
            }
        }
        worklist.is_empty()
    }

    /// `getUnderlyingObject(v, 6)`: through GEPs, bitcasts, addrspacecasts,
    /// non-interposable aliases, one-input phis and calls returning an argument.
    pub(super) fn underlying_object(&self, f: FuncIdx, mut v: V, ty: TypeIdx) -> V {
        if !self.is_ptr(f, v, ty) {
            return v;
        }
        let b = self.body(f);
        for _ in 0..6 {
            match self.opcode_of(f, v) {
                Some(Opcode::GetElementPtr) => v = self.operand_of(f, v, 0).0,
                Some(Opcode::BitCast) | Some(Opcode::AddrSpaceCast) => {
                    let (o, ot) = self.operand_of(f, v, 0);
                    v = o;
                    if !self.is_ptr(f, v, ot) {
                        return v;
                    }
                }
                Some(Opcode::Phi) => {
                    let V::Inst(i) = v else { return v };
                    let ops = b.ops(i);
                    if ops.len() != 2 {
                        return v;
                    }
                    v = ops[0];
                }
                Some(op) if op.is_call() => {
                    let V::Inst(i) = v else { return v };
                    let Some(c) = Self::call_at(b, i) else {
                        return v;
                    };
                    match self.aliasing_returned_arg(c, false) {
                        Some(a) => v = a,
                        None => return v,
                    }
                }
                _ => {
                    if let V::K(Value::Global(s)) = v {
                        if let SymbolDef::Alias(a) = self.facts.sym_def[s] {
                            let l = self.facts.alias_linkage[a];
                            if matches!(
                                l,
                                Linkage::Weak
                                    | Linkage::Linkonce
                                    | Linkage::Common
                                    | Linkage::ExternWeak
                            ) {
                                return v;
                            }
                            v = V::K(self.ir.alias_target(a));
                            continue;
                        }
                    }
                    return v;
                }
            }
        }
        v
    }
}
