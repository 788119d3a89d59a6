//! Capture tracking (LLVM 14's `PointerMayBeCaptured` with a tracker): walks the uses
//! of a pointer through casts, GEPs, phis and selects and asks the tracker about every
//! use that may capture it.
//!
//! Two trackers: the argument tracker of `addArgumentAttrs` (a capture by a direct call
//! to an exact SCC member, at a formal argument position, is recorded as an edge of the
//! argument graph instead), and the simple tracker of `isFunctionMallocLike` (returning
//! is not a capture). Each value's uses are looked at up to 20; more is a capture.

use super::Inference;
use crate::hash::FixedSet;
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{Body, RowIdx, V};
use crate::llvm::ir::{ArgIdx, Intrinsic, Opcode, Value};
use crate::llvm::types::TypeIdx;
use crate::llvm::FuncIdx;

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
    fn report(&self, b: &Body, t: &mut Tracker, u: (RowIdx, u32)) -> bool {
        let ir = &*self.ir;
        match t {
            Tracker::Simple {
                return_captures,
                captured,
            } => {
                if b.op(u.0) == Opcode::Ret && !*return_captures {
                    return false;
                }
                *captured = true;
                true
            }
            Tracker::Args { uses, captured } => {
                let Some(c) = Self::call_at(b, u.0) else {
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
                let j = u.1 as usize;
                if j >= c.nargs() {
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
    pub(super) fn capture_walk(&self, f: FuncIdx, v: V, t: &mut Tracker) {
        let ir = &*self.ir;
        let (b, uses) = (self.body(f), self.uses(f));
        let mut worklist: Vec<usize> = Vec::new();
        let mut visited: FixedSet<usize> = FixedSet::default();
        // AddUses: false when the value has too many uses.
        let add_uses =
            |v: V, worklist: &mut Vec<usize>, visited: &mut FixedSet<usize>, t: &mut Tracker| {
                for (count, k) in uses.rows_of(v).enumerate() {
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
            let u = uses.at(k);
            let i = u.0;
            let op = b.op(i);
            let flags = b.flags(i);
            match op {
                Opcode::Call | Opcode::Invoke => {
                    let Some(c) = Self::call_at(b, i) else {
                        continue;
                    };
                    if self.call_only_reads(c)
                        && self.call_has(c, Attr::NoUnwind)
                        && ir.types.is_void(b.ty(i))
                    {
                        continue;
                    }
                    if matches!(
                        self.call_intrinsic(c),
                        Intrinsic::LaunderInvariantGroup | Intrinsic::StripInvariantGroup
                    ) {
                        if !add_uses(V::Inst(i), &mut worklist, &mut visited, t) {
                            return;
                        }
                        continue;
                    }
                    if self.mem_intrinsic_volatile(c) == Some(true) && self.report(b, t, u) {
                        return;
                    }
                    let j = u.1 as usize;
                    if j == c.callee_index() {
                        continue;
                    }
                    let data = c.nargs() + c.bundle_ops();
                    if j < data
                        && !self.data_operand_has(c, j, Attr::NoCapture)
                        && self.report(b, t, u)
                    {
                        return;
                    }
                }
                Opcode::Load => {
                    if flags.is_volatile() && self.report(b, t, u) {
                        return;
                    }
                }
                Opcode::VaArg => {}
                Opcode::Store => {
                    if (u.1 == 0 || flags.is_volatile()) && self.report(b, t, u) {
                        return;
                    }
                }
                Opcode::AtomicRmw => {
                    if (u.1 == 1 || flags.is_volatile()) && self.report(b, t, u) {
                        return;
                    }
                }
                Opcode::AtomicCmpXchg => {
                    if (u.1 == 1 || u.1 == 2 || flags.is_volatile()) && self.report(b, t, u) {
                        return;
                    }
                }
                Opcode::BitCast
                | Opcode::GetElementPtr
                | Opcode::Phi
                | Opcode::Select
                | Opcode::AddrSpaceCast => {
                    if !add_uses(V::Inst(i), &mut worklist, &mut visited, t) {
                        return;
                    }
                }
                Opcode::ICmp => {
                    if self.icmp_does_not_capture(f, i, u.1) {
                        continue;
                    }
                    if self.report(b, t, u) {
                        return;
                    }
                }
                _ => {
                    if self.report(b, t, u) {
                        return;
                    }
                }
            }
        }
    }

    /// The `icmp` cases of capture tracking that are not captures: a `noalias` call or
    /// a dereferenceable-or-null pointer compared with null, and a comparison with a
    /// value loaded from a global variable.
    fn icmp_does_not_capture(&self, f: FuncIdx, i: RowIdx, op: u32) -> bool {
        let ir = &*self.ir;
        let b = self.body(f);
        let idx = op as usize;
        if idx > 1 {
            return false;
        }
        let other = b.ops(i)[1 - idx];
        let tys = b.tys(i);
        if other == V::K(Value::Null) {
            let me = b.ops(i)[idx];
            if ir.types.addrspace(tys[1 - idx]) == 0 {
                let s = self.strip_pointer_casts(f, me, tys[idx]);
                if let V::Inst(j) = s {
                    if let Some(c) = Self::call_at(b, j) {
                        if self.ret_has(c, Attr::NoAlias) {
                            return true;
                        }
                    }
                }
            }
            if !self.has(f, Attr::NullPointerIsValid) {
                let o = self.strip_same_representation(f, me, tys[idx]);
                if self.dereferenceable_or_null(f, o) {
                    return true;
                }
            }
        }
        if let V::Inst(l) = other {
            if b.op(l) == Opcode::Load && self.global_var(b.ops(l)[0]).is_some() {
                return true;
            }
        }
        false
    }

    /// `CaptureTracker::isDereferenceableOrNull`: an inbounds GEP instruction, or a
    /// pointer with dereferenceable bytes.
    fn dereferenceable_or_null(&self, f: FuncIdx, v: V) -> bool {
        let ir = &*self.ir;
        let b = self.body(f);
        match v {
            V::Inst(i) => match b.op(i) {
                Opcode::GetElementPtr => b.flags(i).has(crate::llvm::ir::InstFlags::INBOUNDS),
                Opcode::Alloca => {
                    let array = !matches!(b.ops(i), [] | [V::Int(1)]);
                    !array && ir.types.has_nonzero_size(b.aux_ty(i))
                }
                op if op.is_call() => {
                    let Some(c) = Self::call_at(b, i) else {
                        return false;
                    };
                    let callee = self.called_function(c);
                    let deref = self
                        .call_ret_attrs(c)
                        .dereferenceable
                        .max(callee.map_or(0, |g| self.ret_attrs[g].dereferenceable));
                    let or_null = self
                        .call_ret_attrs(c)
                        .dereferenceable_or_null
                        .max(callee.map_or(0, |g| self.ret_attrs[g].dereferenceable_or_null));
                    deref > 0 || or_null > 0
                }
                _ => false,
            },
            V::Arg(n) => {
                let s = &self.arg_attrs[self.arg_of(f, n)];
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
            V::K(Value::Global(_)) => match self.global_var(v) {
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
    pub(super) fn strip_pointer_casts(&self, f: FuncIdx, v: V, ty: TypeIdx) -> V {
        self.strip(f, v, ty, true)
    }

    /// `stripPointerCastsSameRepresentation`: as [`Self::strip_pointer_casts`], but not
    /// through addrspacecasts.
    fn strip_same_representation(&self, f: FuncIdx, v: V, ty: TypeIdx) -> V {
        self.strip(f, v, ty, false)
    }

    fn strip(&self, f: FuncIdx, mut v: V, ty: TypeIdx, addrspace_casts: bool) -> V {
        if !self.is_ptr(f, v, ty) {
            return v;
        }
        let b = self.body(f);
        let mut visited: Vec<V> = vec![v];
        loop {
            match self.opcode_of(f, v) {
                Some(Opcode::GetElementPtr) => {
                    if !self.gep_all_zero(f, v) {
                        return v;
                    }
                    v = self.operand_of(f, v, 0).0;
                }
                Some(Opcode::BitCast) => {
                    let (o, ot) = self.operand_of(f, v, 0);
                    v = o;
                    if !self.is_ptr(f, v, ot) {
                        return v;
                    }
                }
                Some(Opcode::AddrSpaceCast) if addrspace_casts => v = self.operand_of(f, v, 0).0,
                Some(op) if op.is_call() => {
                    let V::Inst(i) = v else { return v };
                    match Self::call_at(b, i).and_then(|c| self.returned_arg(c)) {
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
