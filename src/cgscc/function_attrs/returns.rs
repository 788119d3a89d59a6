//! What functions return: `returned` arguments (`addArgumentReturnedAttrs`), `noalias`
//! returns (`addNoAliasAttrs`, malloc-like functions) and `nonnull` returns
//! (`addNonNullAttrs`, over a context-free `isKnownNonZero`).

use super::capture::Tracker;
use super::Inference;
use super::{is_constant, is_null_value};
use crate::llvm::attrs::Attr;
use crate::llvm::ir::body::{RowIdx, V};
use crate::llvm::ir::{InstFlags, Opcode, Value};
use crate::llvm::types::{TypeIdx, TypeKind};
use crate::llvm::{FuncIdx, Linkage, SymbolDef};

/// LLVM's `MaxAnalysisRecursionDepth`.
const MAX_DEPTH: u32 = 6;
/// Pointer width in bits (the x86-64 and nvptx64 data layouts).
const POINTER_BITS: u32 = 64;

impl Inference {
    /// The operand of every `ret` of `f`, with its type.
    fn returned_values(&self, f: FuncIdx) -> Vec<(V, TypeIdx)> {
        let b = self.body(f);
        b.layout
            .iter()
            .filter_map(|&bb| b.term(bb))
            .filter(|&t| b.op(t) == Opcode::Ret && !b.ops(t).is_empty())
            .map(|t| (b.ops(t)[0], b.tys(t)[0]))
            .collect()
    }

    /// `addArgumentReturnedAttrs`.
    pub(super) fn add_returned(&mut self, nodes: &[FuncIdx]) {
        let ir = self.ir.clone();
        for &f in nodes {
            if !self.is_exact(f) || self.returns_void(f) {
                continue;
            }
            if ir.args(f).any(|a| self.arg_attrs[a].has(Attr::Returned)) {
                continue;
            }
            let ret_ty = ir.func(f).ret_ty;
            let mut found = None;
            let mut ok = true;
            for (v, t) in self.returned_values(f) {
                let stripped = self.strip_pointer_casts(f, v, t);
                match stripped {
                    V::Arg(n) if ir.arg_ty(self.arg_of(f, n)) == ret_ty => {
                        let a = self.arg_of(f, n);
                        if found.is_some_and(|b| b != a) {
                            ok = false;
                            break;
                        }
                        found = Some(a);
                    }
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if let (true, Some(a)) = (ok, found) {
                self.arg_attrs[a].add(Attr::Returned);
            }
        }
    }

    /// `addNoAliasAttrs`.
    pub(super) fn add_noalias(&mut self, nodes: &[FuncIdx]) {
        for &f in nodes {
            if self.ret_attrs[f].has(Attr::NoAlias) {
                continue;
            }
            if !self.is_exact(f) {
                return;
            }
            if !self.ir.types.is_pointer(self.ir.func(f).ret_ty) {
                continue;
            }
            if !self.malloc_like(f) {
                return;
            }
        }
        for &f in nodes {
            if self.ret_attrs[f].has(Attr::NoAlias)
                || !self.ir.types.is_pointer(self.ir.func(f).ret_ty)
            {
                continue;
            }
            self.ret_attrs[f].add(Attr::NoAlias);
        }
    }

    /// `isFunctionMallocLike`: every returned value is null, undef, or a fresh
    /// allocation (alloca, `noalias` call, call to an SCC member) that is not captured.
    fn malloc_like(&self, f: FuncIdx) -> bool {
        let b = self.body(f);
        let mut flows: Vec<V> = Vec::new();
        let push = |flows: &mut Vec<V>, v: V| {
            if !flows.contains(&v) {
                flows.push(v);
            }
        };
        for (v, _) in self.returned_values(f) {
            push(&mut flows, v);
        }
        let mut k = 0;
        while k < flows.len() {
            let v = flows[k];
            k += 1;
            if is_constant(v) {
                if !(is_null_value(v) || matches!(v, V::K(Value::Undef | Value::Poison))) {
                    return false;
                }
                continue;
            }
            let i = match v {
                V::Inst(i) => i,
                _ => return false,
            };
            match b.op(i) {
                Opcode::BitCast | Opcode::GetElementPtr | Opcode::AddrSpaceCast => {
                    push(&mut flows, b.ops(i)[0]);
                    continue;
                }
                Opcode::Select => {
                    push(&mut flows, b.ops(i)[1]);
                    push(&mut flows, b.ops(i)[2]);
                    continue;
                }
                Opcode::Phi => {
                    let ops = b.ops(i);
                    for j in (0..ops.len()).step_by(2) {
                        push(&mut flows, ops[j]);
                    }
                    continue;
                }
                Opcode::Alloca => {}
                Opcode::Call | Opcode::Invoke => {
                    let c = Self::call_at(b, i).expect("a call has a call row");
                    let source = self.ret_has(c, Attr::NoAlias)
                        || self.called_function(c).is_some_and(|g| self.in_scc[g]);
                    if !source {
                        return false;
                    }
                }
                _ => return false,
            }
            let mut t = Tracker::Simple {
                return_captures: false,
                captured: false,
            };
            self.capture_walk(f, v, &mut t);
            if t.captured() {
                return false;
            }
        }
        true
    }

    /// `addNonNullAttrs`.
    pub(super) fn add_nonnull(&mut self, nodes: &[FuncIdx]) {
        let mut scc_nonnull = true;
        for &f in nodes {
            if self.ret_attrs[f].has(Attr::NonNull) {
                continue;
            }
            if !self.is_exact(f) {
                return;
            }
            if !self.ir.types.is_pointer(self.ir.func(f).ret_ty) {
                continue;
            }
            match self.return_nonnull(f) {
                Some(false) => {
                    self.ret_attrs[f].add(Attr::NonNull);
                }
                Some(true) => {}
                None => scc_nonnull = false,
            }
        }
        if scc_nonnull {
            for &f in nodes {
                if self.ret_attrs[f].has(Attr::NonNull)
                    || !self.ir.types.is_pointer(self.ir.func(f).ret_ty)
                {
                    continue;
                }
                self.ret_attrs[f].add(Attr::NonNull);
            }
        }
    }

    /// `isReturnNonNull`: `Some(speculative)` when every returned value is non-null
    /// (speculative: some come from calls to SCC members), `None` otherwise.
    fn return_nonnull(&self, f: FuncIdx) -> Option<bool> {
        let b = self.body(f);
        let mut speculative = false;
        let mut flows: Vec<(V, TypeIdx)> = Vec::new();
        let push = |flows: &mut Vec<(V, TypeIdx)>, v: (V, TypeIdx)| {
            if !flows.iter().any(|x| x.0 == v.0) {
                flows.push(v);
            }
        };
        for v in self.returned_values(f) {
            push(&mut flows, v);
        }
        let mut k = 0;
        while k < flows.len() {
            let (v, t) = flows[k];
            k += 1;
            if self.known_non_zero(f, v, t, 0) {
                continue;
            }
            let V::Inst(i) = v else { return None };
            match b.op(i) {
                Opcode::BitCast | Opcode::GetElementPtr | Opcode::AddrSpaceCast => {
                    push(&mut flows, (b.ops(i)[0], b.tys(i)[0]));
                }
                Opcode::Select => {
                    let (ops, tys) = (b.ops(i), b.tys(i));
                    push(&mut flows, (ops[1], tys[1]));
                    push(&mut flows, (ops[2], tys[2]));
                }
                Opcode::Phi => {
                    let (ops, tys) = (b.ops(i), b.tys(i));
                    for j in (0..ops.len()).step_by(2) {
                        push(&mut flows, (ops[j], tys[j]));
                    }
                }
                Opcode::Call | Opcode::Invoke => {
                    let c = Self::call_at(b, i)?;
                    if self.called_function(c).is_some_and(|g| self.in_scc[g]) {
                        speculative = true;
                    } else {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        Some(speculative)
    }

    /// `isKnownNonZero(v)` without a context instruction, dominator tree or
    /// assumptions, for a value used in function `f`.
    pub(super) fn known_non_zero(&self, f: FuncIdx, v: V, ty: TypeIdx, depth: u32) -> bool {
        let ir = &*self.ir;
        if is_constant(v) {
            return match v {
                V::Int(x) => x != 0,
                V::K(Value::Global(s)) => self.global_value_nonnull(s),
                V::K(Value::Expr(e)) => {
                    let op = self.exprs().op(e);
                    if matches!(op, Some(Opcode::IntToPtr | Opcode::PtrToInt)) {
                        let (o, ot) = self.operand_of(f, v, 0);
                        let (sb, db) = (self.bits(ot), self.bits(self.exprs().ty(e)));
                        if sb.is_some() && db.is_some() && sb <= db {
                            return self.known_non_zero(f, o, ot, depth);
                        }
                    }
                    false
                }
                _ => false,
            };
        }
        if depth >= MAX_DEPTH {
            return false;
        }
        let depth = depth + 1;
        let vty = self.ty_of(f, v, ty);
        let b = self.body(f);
        if ir.types.is_pointer(vty) {
            match v {
                V::Inst(i) if b.op(i) == Opcode::Alloca => return true,
                V::Arg(n) => {
                    let a = self.arg_of(f, n);
                    let s = &self.arg_attrs[a];
                    let by_value =
                        s.has(Attr::ByVal) || s.has(Attr::InAlloca) || s.has(Attr::Preallocated);
                    let as_ = ir.types.addrspace(vty);
                    if (by_value && !self.null_defined(f, as_))
                        || s.has(Attr::NonNull)
                        || (s.dereferenceable > 0 && !self.null_defined(f, as_))
                    {
                        return true;
                    }
                }
                V::Inst(i) if b.op(i) == Opcode::Load && b.flags(i).has(InstFlags::NONNULL_MD) => {
                    return true;
                }
                V::Inst(i) if b.op(i).is_call() => {
                    if let Some(c) = Self::call_at(b, i) {
                        if self.call_returns_nonnull(f, c, vty) {
                            return true;
                        }
                        if let Some(a) = self.aliasing_returned_arg(c, true) {
                            let at = c.args().iter().position(|&x| x == a);
                            let aty = at.map_or(TypeIdx::NONE, |k| c.arg_tys()[k]);
                            return self.known_non_zero(f, a, aty, depth);
                        }
                    }
                }
                _ => {}
            }
            if let V::Inst(i) = v {
                match b.op(i) {
                    Opcode::GetElementPtr => return self.gep_known_non_null(f, i, depth),
                    Opcode::BitCast => {
                        let (o, ot) = self.operand_of(f, v, 0);
                        return self.known_non_zero(f, o, ot, depth);
                    }
                    Opcode::IntToPtr => {
                        let (o, ot) = self.operand_of(f, v, 0);
                        let (sb, db) = (self.bits(ot), self.bits(vty));
                        if sb.is_some() && db.is_some() && sb <= db {
                            return self.known_non_zero(f, o, ot, depth);
                        }
                    }
                    _ => {}
                }
            }
        }
        false
    }

    /// A global value in address space 0 that is not `extern_weak`.
    fn global_value_nonnull(&self, s: crate::llvm::SymbolIdx) -> bool {
        match self.facts.sym_def[s] {
            SymbolDef::Function(g) => self.facts.linkage[g] != Linkage::ExternWeak,
            SymbolDef::Global(g) => {
                self.facts.global_linkage[g] != Linkage::ExternWeak
                    && self.ir.global_addrspace(g) == 0
            }
            SymbolDef::Alias(a) => self.facts.alias_linkage[a] != Linkage::ExternWeak,
            SymbolDef::IFunc(_) => true,
            SymbolDef::Undefined => false,
        }
    }

    /// Width in bits of an integer or pointer type.
    fn bits(&self, t: TypeIdx) -> Option<u32> {
        if self.ir.types.is_pointer(t) {
            return Some(POINTER_BITS);
        }
        self.ir.types.int_bits(t)
    }

    /// `CallBase::isReturnNonNull`.
    fn call_returns_nonnull(&self, f: FuncIdx, c: super::Call<'_>, ty: TypeIdx) -> bool {
        if self.ret_has(c, Attr::NonNull) {
            return true;
        }
        let deref = self.call_ret_attrs(c).dereferenceable.max(
            self.called_function(c)
                .map_or(0, |g| self.ret_attrs[g].dereferenceable),
        );
        deref > 0 && !self.null_defined(f, self.ir.types.addrspace(ty))
    }

    /// `isGEPKnownNonNull` for GEP instruction `i`.
    fn gep_known_non_null(&self, f: FuncIdx, i: RowIdx, mut depth: u32) -> bool {
        let ir = &*self.ir;
        let b = self.body(f);
        let (ops, tys) = (b.ops(i), b.tys(i));
        let int_value = |v: V| match v {
            V::Int(x) => Some(x),
            _ => None,
        };
        if !b.flags(i).has(InstFlags::INBOUNDS) || self.null_defined(f, ir.types.addrspace(tys[0]))
        {
            return false;
        }
        if self.known_non_zero(f, ops[0], tys[0], depth) {
            return true;
        }
        let mut indexed = b.aux_ty(i);
        let mut struct_ty = TypeIdx::NONE;
        for (k, &idx) in ops.iter().enumerate().skip(1) {
            if k > 1 {
                let prev = indexed;
                match (!prev.is_none()).then(|| ir.types.kind(prev)) {
                    Some(TypeKind::Array { elem, .. }) | Some(TypeKind::Vector { elem, .. }) => {
                        struct_ty = TypeIdx::NONE;
                        indexed = elem;
                    }
                    Some(TypeKind::Struct { .. }) | Some(TypeKind::Named(_)) => {
                        struct_ty = prev;
                        indexed = ir.types.gep_step(prev, int_value(idx));
                    }
                    _ => return false,
                }
            }
            if !struct_ty.is_none() {
                match int_value(idx) {
                    Some(n) if n >= 0 => {
                        if ir.types.struct_field_offset_nonzero(struct_ty, n as usize) {
                            return true;
                        }
                    }
                    _ => return false,
                }
                continue;
            }
            if ir.types.is_zero_sized(indexed) {
                continue;
            }
            if let Some(n) = int_value(idx) {
                if n != 0 {
                    return true;
                }
                continue;
            }
            if depth >= MAX_DEPTH {
                continue;
            }
            depth += 1;
            if self.known_non_zero(f, idx, tys[k], depth) {
                return true;
            }
        }
        false
    }
}
