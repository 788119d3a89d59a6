//! Capture tracking (LLVM 14's `PointerMayBeCaptured` with a tracker): walks the uses
//! of a pointer through casts, GEPs, phis and selects and asks the tracker about every
//! use that may capture it.
//!
//! Two trackers: the argument tracker of `addArgumentAttrs` (a capture by a direct call
//! to an exact SCC member, at a formal argument position, is recorded as an edge of the
//! argument graph instead), and the simple tracker of `isFunctionMallocLike` (returning
//! is not a capture). Each value's uses are looked at up to 20; more is a capture.

use super::Inference;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::{ArgIdx, InstIdx, Intrinsic, Opcode, Use, Value};
use crate::llvm::types::TypeIdx;
use crate::llvm::FuncIdx;
use ahash::AHashSet;

/// LLVM's `MaxUsesToExplore` default.
const MAX_USES: usize = 20;

/// What the walk reports to.
pub(super) enum Tracker {
    /// `ArgumentUsesTracker`: SCC formals reached through calls.
    Args { uses: Vec<ArgIdx>, captured: bool },
    /// `SimpleCaptureTracker`.
    Simple {
        return_captures: bool,
        captured: bool,
    },
}

impl Tracker {
    pub(super) fn captured(&self) -> bool {
        match self {
            Tracker::Args { captured, .. } | Tracker::Simple { captured, .. } => *captured,
        }
    }

    fn too_many_uses(&mut self) {
        match self {
            Tracker::Args { captured, .. } | Tracker::Simple { captured, .. } => *captured = true,
        }
    }
}

impl Inference {
    /// The tracker's verdict on use `u` that may capture; true stops the walk.
    fn report(&self, t: &mut Tracker, u: Use) -> bool {
        let ir = &*self.ir;
        match t {
            Tracker::Simple {
                return_captures,
                captured,
            } => {
                if ir.op(u.user) == Opcode::Ret && !*return_captures {
                    return false;
                }
                *captured = true;
                true
            }
            Tracker::Args { uses, captured } => {
                let Some(c) = ir.call_of(u.user) else {
                    *captured = true;
                    return true;
                };
                let f = match self.called_function(c) {
                    Some(f) if self.is_exact(f) && self.in_scc[f] => f,
                    _ => {
                        *captured = true;
                        return true;
                    }
                };
                let j = u.op as usize;
                if j >= ir.call_arg_count(c) {
                    *captured = true;
                    return true;
                }
                match ir.arg(f, j) {
                    Some(a) => {
                        uses.push(a);
                        false
                    }
                    None => {
                        *captured = true;
                        true
                    }
                }
            }
        }
    }

    /// `PointerMayBeCaptured(v, tracker)` for a pointer `v` used in function `f`.
    pub(super) fn capture_walk(&self, f: FuncIdx, v: Value, t: &mut Tracker) {
        let ir = &*self.ir;
        let mut worklist: Vec<usize> = Vec::new();
        let mut visited: AHashSet<usize> = AHashSet::new();
        // AddUses: false when the value has too many uses.
        let add_uses = |v: Value,
                        worklist: &mut Vec<usize>,
                        visited: &mut AHashSet<usize>,
                        t: &mut Tracker| {
            for (count, k) in ir.use_rows(v).enumerate() {
                if count >= MAX_USES {
                    t.too_many_uses();
                    return false;
                }
                if visited.insert(k) {
                    worklist.push(k);
                }
            }
            true
        };
        if !add_uses(v, &mut worklist, &mut visited, t) {
            return;
        }
        while let Some(k) = worklist.pop() {
            let u = ir.use_at(k);
            let i = u.user;
            let op = ir.op(i);
            let flags = ir.flags(i);
            match op {
                Opcode::Call | Opcode::Invoke => {
                    let Some(c) = ir.call_of(i) else { continue };
                    if self.call_only_reads(c)
                        && self.call_has(c, Attr::NoUnwind)
                        && ir.types.is_void(ir.ty(i))
                    {
                        continue;
                    }
                    if matches!(
                        self.call_intrinsic(c),
                        Intrinsic::LaunderInvariantGroup | Intrinsic::StripInvariantGroup
                    ) {
                        if !add_uses(Value::Inst(i), &mut worklist, &mut visited, t) {
                            return;
                        }
                        continue;
                    }
                    if self.mem_intrinsic_volatile(c) == Some(true) && self.report(t, u) {
                        return;
                    }
                    let j = u.op as usize;
                    if j == ir.callee_operand_index(c) {
                        continue;
                    }
                    let data = ir.call_arg_count(c) + ir.call_bundle_ops(c);
                    if j < data
                        && !self.data_operand_has(c, j, Attr::NoCapture)
                        && self.report(t, u)
                    {
                        return;
                    }
                }
                Opcode::Load => {
                    if flags.is_volatile() && self.report(t, u) {
                        return;
                    }
                }
                Opcode::VaArg => {}
                Opcode::Store => {
                    if (u.op == 0 || flags.is_volatile()) && self.report(t, u) {
                        return;
                    }
                }
                Opcode::AtomicRmw => {
                    if (u.op == 1 || flags.is_volatile()) && self.report(t, u) {
                        return;
                    }
                }
                Opcode::AtomicCmpXchg => {
                    if (u.op == 1 || u.op == 2 || flags.is_volatile()) && self.report(t, u) {
                        return;
                    }
                }
                Opcode::BitCast
                | Opcode::GetElementPtr
                | Opcode::Phi
                | Opcode::Select
                | Opcode::AddrSpaceCast => {
                    if !add_uses(Value::Inst(i), &mut worklist, &mut visited, t) {
                        return;
                    }
                }
                Opcode::ICmp => {
                    if self.icmp_does_not_capture(f, i, u) {
                        continue;
                    }
                    if self.report(t, u) {
                        return;
                    }
                }
                _ => {
                    if self.report(t, u) {
                        return;
                    }
                }
            }
        }
    }

    /// The `icmp` cases of capture tracking that are not captures: a `noalias` call or
    /// a dereferenceable-or-null pointer compared with null, and a comparison with a
    /// value loaded from a global variable.
    fn icmp_does_not_capture(&self, f: FuncIdx, i: InstIdx, u: Use) -> bool {
        let ir = &*self.ir;
        let idx = u.op as usize;
        if idx > 1 {
            return false;
        }
        let other = ir.operand(i, 1 - idx);
        let tys = ir.operand_types(i);
        if other == Value::Null {
            let me = ir.operand(i, idx);
            if ir.types.addrspace(tys[1 - idx]) == 0 {
                let s = self.strip_pointer_casts(me, tys[idx]);
                if let Value::Inst(j) = s {
                    if let Some(c) = ir.call_of(j) {
                        if self.ret_has(c, Attr::NoAlias) {
                            return true;
                        }
                    }
                }
            }
            if !self.has(f, Attr::NullPointerIsValid) {
                let o = self.strip_same_representation(me, tys[idx]);
                if self.dereferenceable_or_null(o) {
                    return true;
                }
            }
        }
        if let Value::Inst(l) = other {
            if ir.op(l) == Opcode::Load && self.global_var(ir.operand(l, 0)).is_some() {
                return true;
            }
        }
        false
    }

    /// `CaptureTracker::isDereferenceableOrNull`: an inbounds GEP instruction, or a
    /// pointer with dereferenceable bytes.
    fn dereferenceable_or_null(&self, v: Value) -> bool {
        let ir = &*self.ir;
        match v {
            Value::Inst(i) => match ir.op(i) {
                Opcode::GetElementPtr => ir.flags(i).has(crate::llvm::ir::InstFlags::INBOUNDS),
                Opcode::Alloca => {
                    let array = !matches!(ir.operands(i), [] | [Value::Int(1)]);
                    !array && ir.types.has_nonzero_size(ir.aux_ty(i))
                }
                op if op.is_call() => {
                    let Some(c) = ir.call_of(i) else { return false };
                    let callee = self.called_function(c);
                    let deref = ir
                        .call_ret_attrs(c)
                        .dereferenceable
                        .max(callee.map_or(0, |g| self.ret_attrs[g].dereferenceable));
                    let or_null = ir
                        .call_ret_attrs(c)
                        .dereferenceable_or_null
                        .max(callee.map_or(0, |g| self.ret_attrs[g].dereferenceable_or_null));
                    deref > 0 || or_null > 0
                }
                _ => false,
            },
            Value::Arg(a) => {
                let s = &self.arg_attrs[a];
                s.dereferenceable > 0
                    || s.dereferenceable_or_null > 0
                    || (!s.ty.is_none()
                        && (s.has(Attr::ByVal)
                            || s.has(Attr::ByRef)
                            || s.has(Attr::Preallocated)
                            || s.has(Attr::InAlloca)
                            || s.has(Attr::StructRet))
                        && ir.types.has_nonzero_size(s.ty))
            }
            Value::Global(_) => match self.global_var(v) {
                Some(g) => {
                    self.facts.global_linkage[g] != crate::llvm::Linkage::ExternWeak
                        && ir.types.has_nonzero_size(ir.global_ty(g))
                }
                None => false,
            },
            _ => false,
        }
    }

    /// `stripPointerCasts`: through zero-index GEPs, bitcasts, addrspacecasts and calls
    /// with a `returned` argument.
    pub(super) fn strip_pointer_casts(&self, v: Value, ty: TypeIdx) -> Value {
        self.strip(v, ty, true)
    }

    /// `stripPointerCastsSameRepresentation`: as [`Self::strip_pointer_casts`], but not
    /// through addrspacecasts.
    fn strip_same_representation(&self, v: Value, ty: TypeIdx) -> Value {
        self.strip(v, ty, false)
    }

    fn strip(&self, mut v: Value, ty: TypeIdx, addrspace_casts: bool) -> Value {
        if !self.is_ptr(v, ty) {
            return v;
        }
        let mut visited: Vec<Value> = vec![v];
        loop {
            match self.opcode_of(v) {
                Some(Opcode::GetElementPtr) => {
                    if !self.gep_all_zero(v) {
                        return v;
                    }
                    v = self.operand_of(v, 0).0;
                }
                Some(Opcode::BitCast) => {
                    let (o, ot) = self.operand_of(v, 0);
                    v = o;
                    if !self.is_ptr(v, ot) {
                        return v;
                    }
                }
                Some(Opcode::AddrSpaceCast) if addrspace_casts => v = self.operand_of(v, 0).0,
                Some(op) if op.is_call() => {
                    let Value::Inst(i) = v else { return v };
                    match self.ir.call_of(i).and_then(|c| self.returned_arg(c)) {
                        Some(a) => v = a,
                        None => return v,
                    }
                }
                _ => return v,
            }
            if visited.contains(&v) {
                return v;
            }
            visited.push(v);
        }
    }
}
