//! Instructions and calls: each opcode's operand syntax, read into the instruction
//! table with the layout [`crate::llvm::ir`] documents.

use super::{Builder, Operand};
use crate::idx::BlockIdx;
use crate::import::llvm_ir::grammar::{is_int_type, TYPE_WORDS};
use crate::import::llvm_ir::lexer::{Tk, Tok};
use crate::import::llvm_ir::{name_of, unquote, ParseError};
use crate::llvm::attrs::{Attr, AttrSet};
use crate::llvm::ir::body::{const_operand, CallInfo, Head, RowIdx, V};
use crate::llvm::ir::{BundleTags, InstFlags, Intrinsic, Opcode, Ordering, Predicate, Value};
use crate::llvm::types::{TypeIdx, TypeKind};
use crate::llvm::FuncIdx;
use std::borrow::Cow;

impl<'a> Builder<'a, '_> {
    /// Appends an operand of type `ty` to the instruction being read.
    fn push_op(&mut self, ty: TypeIdx, o: Operand<'a>) {
        let v = match o {
            Operand::V(v) => {
                let wide = &self.ir.wide_ints;
                const_operand(v, self.ir.types.int_bits(ty), |w| wide[w as usize])
            }
            Operand::L(v, _) => v,
            Operand::Local(raw, at) => match self.locals.get(raw) {
                Some(&v) => v,
                None => {
                    let (row, k) = (self.body.next_row(), self.ops.len() as u32);
                    self.pending.push((row, k, raw, at));
                    V::None
                }
            },
            Operand::Label(at) => {
                let (row, k) = (self.body.next_row(), self.ops.len() as u32);
                self.pending_labels.push((row, k, at));
                V::None
            }
            Operand::Opaque(start, len) => {
                let (row, k) = (self.body.next_row(), self.ops.len() as u32);
                self.cur.opaque.push((row, k, start, len));
                V::K(Value::Other)
            }
        };
        self.ops.push((v, ty));
    }

    fn push_typed(&mut self) -> Result<TypeIdx, ParseError> {
        let (t, v) = self.typed()?;
        self.push_op(t, v);
        Ok(t)
    }

    fn label(&mut self) -> Result<Operand<'a>, ParseError> {
        let t = self.p.next();
        if !(t.kind == Tk::Word && self.text(t) == "label") {
            return self.err(t, format!("expected 'label', found {}", self.p.describe(t)));
        }
        let l = self.p.next();
        self.block_ref(l)
    }

    /// A block reference; one laid out later resolves when the body ends.
    fn block_ref(&mut self, l: Tok) -> Result<Operand<'a>, ParseError> {
        if l.kind != Tk::Local {
            return self.err(
                l,
                format!("expected a block reference, found {}", self.p.describe(l)),
            );
        }
        let name = name_of(self.text(l));
        Ok(match self.labels.get(name.as_ref()) {
            Some(&b) => Operand::V(Value::Block(b)),
            None => Operand::Label(l),
        })
    }

    fn push_label(&mut self) -> Result<(), ParseError> {
        let v = self.label()?;
        self.push_op(self.label_ty, v);
        Ok(())
    }

    /// Words before the type of an arithmetic / comparison instruction (flags, fast-math).
    fn inst_flags(&mut self, flags: &mut InstFlags) {
        loop {
            let t = self.p.peek();
            if t.kind != Tk::Word || t.nl_before {
                return;
            }
            let w = self.text(t);
            if is_int_type(w) || TYPE_WORDS.contains(&w) {
                return;
            }
            match w {
                "nuw" => flags.0 |= InstFlags::NUW,
                "nsw" => flags.0 |= InstFlags::NSW,
                "exact" => flags.0 |= InstFlags::EXACT,
                "inbounds" => flags.0 |= InstFlags::INBOUNDS,
                "volatile" => flags.0 |= InstFlags::VOLATILE,
                _ => {}
            }
            self.p.next();
        }
    }

    /// `syncscope("...")` and orderings after a memory operand; a second ordering
    /// (cmpxchg failure) goes to `second`.
    fn orderings(&mut self, flags: &mut InstFlags, second: &mut u32) -> Result<(), ParseError> {
        loop {
            let t = self.p.peek();
            if t.kind != Tk::Word || t.nl_before {
                return Ok(());
            }
            let w = self.text(t);
            if w == "syncscope" {
                self.p.next();
                self.p.expect_punct("(")?;
                let s = self.p.next();
                if self.text(s) == "\"singlethread\"" {
                    flags.0 |= InstFlags::SINGLETHREAD;
                }
                self.p.expect_punct(")")?;
            } else if let Some(o) = Ordering::from_word(w) {
                self.p.next();
                if flags.ordering() == Ordering::NotAtomic {
                    flags.set_ordering(o);
                } else {
                    *second = o as u32;
                }
            } else {
                return Ok(());
            }
        }
    }

    /// The rest of an instruction's line: `, align N`, metadata attachments (`!nonnull`
    /// sets a flag). Anything else after the operands is an error.
    fn rest(&mut self, flags: &mut InstFlags, f: FuncIdx, row: RowIdx) -> Result<(), ParseError> {
        let t = self.p.peek();
        if !self.p.at_eol() && !self.p.is_punct(",") && t.kind != Tk::Meta {
            return self.err(
                t,
                format!(
                    "expected ',' or the end of the instruction, found {}",
                    self.p.describe(t)
                ),
            );
        }
        while !self.p.at_eol() {
            let t = self.p.peek();
            if t.kind == Tk::Meta && self.text(t) == "!nonnull" {
                flags.0 |= InstFlags::NONNULL_MD;
            }
            if t.kind == Tk::Meta && self.text(t) == "!prof" {
                self.p.next();
                let v = self.p.peek();
                if v.kind == Tk::Meta && !v.nl_before {
                    if let Some(n) = super::debuginfo::md_number(self.text(v)) {
                        self.p.next();
                        self.prof_terms.push((f, row, n));
                    }
                }
                continue;
            }
            if self.p.is_punct("(") || self.p.is_punct("{") || self.p.is_punct("[") {
                self.p.skip_group()?;
            } else {
                self.p.next();
            }
        }
        Ok(())
    }

    /// Parses one instruction; returns whether it ends its block.
    pub(super) fn instruction(&mut self, f: FuncIdx, b: BlockIdx) -> Result<bool, ParseError> {
        let mut t = self.p.next();
        let mut name: Option<&'a str> = None;
        if t.kind == Tk::Local {
            let raw = &self.text(t)[1..];
            if let Ok(n) = raw.parse::<u32>() {
                self.next_slot = n.saturating_add(1);
            }
            name = Some(raw);
            self.p.expect_punct("=")?;
            t = self.p.next();
        }
        let mut flags = InstFlags::default();
        let mut w = self.text(t);
        while matches!(w, "tail" | "musttail" | "notail") {
            match w {
                "tail" => flags.0 |= InstFlags::TAIL,
                "musttail" => flags.0 |= InstFlags::TAIL | InstFlags::MUSTTAIL,
                _ => {}
            }
            t = self.p.next();
            w = self.text(t);
        }
        let Some(op) = Opcode::from_word(w).filter(|_| t.kind == Tk::Word) else {
            return self.err(
                t,
                format!(
                    "expected an instruction opcode, found {}",
                    self.p.describe(t)
                ),
            );
        };
        let row = self.body.next_row();
        self.ops.clear();
        let mut call = None;
        let void = self.void_ty;
        let mut ty = void;
        let mut aux_ty = TypeIdx::NONE;
        let mut aux = 0u32;
        let label_ty = self.label_ty;
        match op {
            Opcode::Ret => {
                if !self.p.at_eol() {
                    // `ret void`, but `ret void (i32)* %f` returns a value
                    let t = self.ty()?;
                    if t != self.void_ty {
                        let v = self.value(t)?;
                        self.push_op(t, v);
                    }
                }
            }
            Opcode::Br => {
                if self.p.is_word("label") {
                    self.push_label()?;
                } else {
                    self.push_typed()?;
                    self.p.expect_punct(",")?;
                    self.push_label()?;
                    self.p.expect_punct(",")?;
                    self.push_label()?;
                }
            }
            Opcode::Switch => {
                self.push_typed()?;
                self.p.expect_punct(",")?;
                self.push_label()?;
                self.p.expect_punct("[")?;
                while !self.p.eat_punct("]") {
                    if self.p.peek().kind == Tk::Eof {
                        let e = self.p.peek();
                        return self.err(e, "unterminated switch");
                    }
                    self.push_typed()?;
                    self.p.expect_punct(",")?;
                    self.push_label()?;
                }
            }
            Opcode::IndirectBr => {
                self.push_typed()?;
                self.p.expect_punct(",")?;
                self.p.expect_punct("[")?;
                while !self.p.eat_punct("]") {
                    self.push_label()?;
                    self.p.eat_punct(",");
                }
            }
            Opcode::Call | Opcode::Invoke | Opcode::CallBr => {
                let (rt, fty, ci) = self.call(op, f, row)?;
                ty = rt;
                aux_ty = fty;
                call = Some(ci);
            }
            Opcode::Resume => {
                self.push_typed()?;
            }
            Opcode::Unreachable => {}
            Opcode::CleanupRet | Opcode::CatchRet => {
                // cleanupret from %p unwind (label %u | to caller); catchret from %p to label %l
                self.p.expect_word("from")?;
                let v = self.value(TypeIdx::NONE)?;
                let tok = self.token_ty;
                self.push_op(tok, v);
                if self.p.is_word("unwind") {
                    self.p.next();
                    if self.p.is_word("to") {
                        self.p.next();
                        self.p.expect_word("caller")?;
                        flags.0 |= InstFlags::UNWIND_TO_CALLER;
                    } else {
                        self.push_label()?;
                    }
                } else if self.p.is_word("to") {
                    self.p.next();
                    self.push_label()?;
                }
            }
            Opcode::CatchSwitch => {
                self.p.expect_word("within")?;
                let v = self.value(TypeIdx::NONE)?;
                let tok = self.token_ty;
                self.push_op(tok, v);
                ty = tok;
                self.p.expect_punct("[")?;
                while !self.p.eat_punct("]") {
                    self.push_label()?;
                    self.p.eat_punct(",");
                }
                self.p.expect_word("unwind")?;
                if self.p.is_word("to") {
                    self.p.next();
                    self.p.expect_word("caller")?;
                    flags.0 |= InstFlags::UNWIND_TO_CALLER;
                } else {
                    self.push_label()?;
                }
            }
            Opcode::CatchPad | Opcode::CleanupPad => {
                self.p.expect_word("within")?;
                let v = self.value(TypeIdx::NONE)?;
                let tok = self.token_ty;
                self.push_op(tok, v);
                ty = tok;
                self.p.expect_punct("[")?;
                if !self.p.eat_punct("]") {
                    loop {
                        self.push_typed()?;
                        if self.p.eat_punct(",") {
                            continue;
                        }
                        self.p.expect_punct("]")?;
                        break;
                    }
                }
            }
            Opcode::FNeg | Opcode::Freeze => {
                self.inst_flags(&mut flags);
                ty = self.push_typed()?;
            }
            Opcode::Add
            | Opcode::FAdd
            | Opcode::Sub
            | Opcode::FSub
            | Opcode::Mul
            | Opcode::FMul
            | Opcode::UDiv
            | Opcode::SDiv
            | Opcode::FDiv
            | Opcode::URem
            | Opcode::SRem
            | Opcode::FRem
            | Opcode::Shl
            | Opcode::LShr
            | Opcode::AShr
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor => {
                self.inst_flags(&mut flags);
                ty = self.push_typed()?;
                self.p.expect_punct(",")?;
                let v = self.value(ty)?;
                self.push_op(ty, v);
            }
            Opcode::ICmp | Opcode::FCmp => {
                let fcmp = op == Opcode::FCmp;
                loop {
                    let pt = self.p.next();
                    if let Some(p) = Predicate::from_word(self.text(pt), fcmp) {
                        aux = p.0 as u32;
                        break;
                    }
                    if pt.kind != Tk::Word || pt.nl_before {
                        return self.err(pt, "expected a comparison predicate");
                    }
                }
                let ot = self.push_typed()?;
                self.p.expect_punct(",")?;
                let v = self.value(ot)?;
                self.push_op(ot, v);
                let i1 = self.i1_ty;
                ty = match self.ir.types.kind(ot) {
                    TypeKind::Vector { len, scalable, .. } => {
                        self.ir.types.leaf(TypeKind::Vector {
                            len,
                            elem: i1,
                            scalable,
                        })
                    }
                    _ => i1,
                };
            }
            Opcode::ExtractElement => {
                let vt = self.push_typed()?;
                self.p.expect_punct(",")?;
                self.push_typed()?;
                ty = match self.ir.types.kind(vt) {
                    TypeKind::Vector { elem, .. } => elem,
                    _ => TypeIdx::NONE,
                };
            }
            Opcode::InsertElement => {
                ty = self.push_typed()?;
                self.p.expect_punct(",")?;
                self.push_typed()?;
                self.p.expect_punct(",")?;
                self.push_typed()?;
            }
            Opcode::ShuffleVector => {
                let vt = self.push_typed()?;
                self.p.expect_punct(",")?;
                self.push_typed()?;
                self.p.expect_punct(",")?;
                let mt = self.push_typed()?;
                ty = match (self.ir.types.kind(vt), self.ir.types.kind(mt)) {
                    (TypeKind::Vector { elem, .. }, TypeKind::Vector { len, scalable, .. }) => {
                        self.ir.types.leaf(TypeKind::Vector {
                            len,
                            elem,
                            scalable,
                        })
                    }
                    _ => TypeIdx::NONE,
                };
            }
            Opcode::ExtractValue | Opcode::InsertValue => {
                let agg = self.push_typed()?;
                if op == Opcode::InsertValue {
                    self.p.expect_punct(",")?;
                    self.push_typed()?;
                }
                let mut cur = agg;
                while self.p.eat_punct(",") {
                    if self.p.peek().kind != Tk::Num {
                        // metadata attachment after the indices
                        break;
                    }
                    let x = self.num()? as i64;
                    cur = self.ir.types.gep_step(cur, Some(x));
                    let v = self.int_const(x);
                    self.push_op(self.i32_ty, Operand::V(v));
                }
                ty = if op == Opcode::InsertValue { agg } else { cur };
            }
            Opcode::Alloca => {
                if self.p.is_word("inalloca") {
                    self.p.next();
                    flags.0 |= InstFlags::INALLOCA;
                }
                aux_ty = self.ty()?;
                let mut addrspace = 0;
                while self.p.eat_punct(",") {
                    if self.p.is_word("align") {
                        self.p.next();
                        self.num()?;
                    } else if self.p.is_word("addrspace") {
                        self.p.next();
                        addrspace = self.paren_num()? as u32;
                    } else if self.p.peek().kind == Tk::Meta {
                        break;
                    } else {
                        self.push_typed()?;
                    }
                }
                let pointee = if self.opaque { TypeIdx::NONE } else { aux_ty };
                ty = self.ir.types.ptr(pointee, addrspace);
            }
            Opcode::Load => {
                if self.p.is_word("atomic") {
                    // the ordering word after the pointer sets the ordering
                    self.p.next();
                }
                if self.p.is_word("volatile") {
                    self.p.next();
                    flags.0 |= InstFlags::VOLATILE;
                }
                ty = self.ty()?;
                self.p.expect_punct(",")?;
                self.push_typed()?;
                self.orderings(&mut flags, &mut aux)?;
            }
            Opcode::Store => {
                if self.p.is_word("atomic") {
                    self.p.next();
                }
                if self.p.is_word("volatile") {
                    self.p.next();
                    flags.0 |= InstFlags::VOLATILE;
                }
                self.push_typed()?;
                self.p.expect_punct(",")?;
                self.push_typed()?;
                self.orderings(&mut flags, &mut aux)?;
            }
            Opcode::Fence => {
                self.orderings(&mut flags, &mut aux)?;
            }
            Opcode::AtomicCmpXchg => {
                self.inst_flags(&mut flags);
                if self.p.is_word("weak") {
                    self.p.next();
                    flags.0 |= InstFlags::WEAK;
                }
                if self.p.is_word("volatile") {
                    self.p.next();
                    flags.0 |= InstFlags::VOLATILE;
                }
                self.push_typed()?;
                self.p.expect_punct(",")?;
                let vt = self.push_typed()?;
                self.p.expect_punct(",")?;
                self.push_typed()?;
                self.orderings(&mut flags, &mut aux)?;
                ty = self.ir.types.literal_struct(&[vt, self.i1_ty], false);
            }
            Opcode::AtomicRmw => {
                if self.p.is_word("volatile") {
                    self.p.next();
                    flags.0 |= InstFlags::VOLATILE;
                }
                let opw = self.p.next();
                aux = RMW_OPS
                    .iter()
                    .position(|&o| o == self.text(opw))
                    .unwrap_or(RMW_OPS.len()) as u32;
                self.push_typed()?;
                self.p.expect_punct(",")?;
                ty = self.push_typed()?;
                self.orderings(&mut flags, &mut 0)?;
            }
            Opcode::GetElementPtr => {
                loop {
                    let t = self.p.peek();
                    if t.kind != Tk::Word || self.p.is_type_start() {
                        break;
                    }
                    if self.text(t) == "inbounds" {
                        flags.0 |= InstFlags::INBOUNDS;
                    }
                    self.p.next();
                    if self.p.is_punct("(") {
                        self.p.skip_group()?;
                    }
                }
                aux_ty = self.ty()?;
                // the pointer operand is not optional
                self.p.expect_punct(",")?;
                let mut ops = vec![self.typed()?];
                while self.p.eat_punct(",") {
                    if self.p.peek().kind == Tk::Meta {
                        break;
                    }
                    if self.p.is_word("inrange") {
                        self.p.next();
                    }
                    let (t, v) = self.typed()?;
                    ops.push((t, v));
                }
                let base_ty = ops.first().map(|o| o.0).unwrap_or(TypeIdx::NONE);
                let idx: Vec<(TypeIdx, Value)> = ops
                    .iter()
                    .skip(1)
                    .map(|&(t, o)| {
                        (
                            t,
                            match o {
                                Operand::V(v) => v,
                                Operand::Opaque(..) => Value::Other,
                                Operand::L(..) | Operand::Local(..) | Operand::Label(..) => {
                                    Value::None
                                }
                            },
                        )
                    })
                    .collect();
                ty = self.gep_result(aux_ty, base_ty, &idx);
                for (t, o) in ops {
                    self.push_op(t, o);
                }
            }
            _ if op.is_cast() => {
                self.inst_flags(&mut flags); // nneg, nuw, nsw (LLVM 18+)
                self.push_typed()?;
                self.p.expect_word("to")?;
                ty = self.ty()?;
            }
            Opcode::Phi => {
                self.inst_flags(&mut flags);
                ty = self.ty()?;
                loop {
                    self.p.expect_punct("[")?;
                    let v = self.value(ty)?;
                    self.push_op(ty, v);
                    self.p.expect_punct(",")?;
                    let l = self.p.next();
                    let bv = self.block_ref(l)?;
                    self.push_op(label_ty, bv);
                    self.p.expect_punct("]")?;
                    if !self.p.eat_punct(",") {
                        break;
                    }
                    if self.p.peek().kind == Tk::Meta {
                        break;
                    }
                }
            }
            Opcode::Select => {
                self.inst_flags(&mut flags);
                self.push_typed()?;
                self.p.expect_punct(",")?;
                ty = self.push_typed()?;
                self.p.expect_punct(",")?;
                self.push_typed()?;
            }
            Opcode::VaArg => {
                self.push_typed()?;
                self.p.expect_punct(",")?;
                ty = self.ty()?;
            }
            Opcode::LandingPad => {
                ty = self.ty()?;
                loop {
                    if self.p.is_word("cleanup") {
                        self.p.next();
                    } else if self.p.is_word("catch") || self.p.is_word("filter") {
                        self.p.next();
                        self.push_typed()?;
                    } else {
                        break;
                    }
                }
            }
            _ => {
                let e = self.p.peek();
                return self.err(e, format!("unhandled opcode '{}'", op.name()));
            }
        }
        self.rest(&mut flags, f, row)?;
        let head = Head {
            op,
            ty,
            aux_ty,
            aux,
            flags,
        };
        let params = &self.call_params[..];
        let r = self
            .body
            .push(head, self.ops.iter().copied(), call.map(|ci| (ci, params)));
        debug_assert_eq!(r, row);
        self.body.blocks[b].push(row);
        match name {
            Some(raw) => {
                self.locals.insert(Cow::Borrowed(raw), V::Inst(row));
            }
            None if ty != void && !ty.is_none() && op != Opcode::Store => {
                self.locals
                    .insert(Cow::Owned(self.next_slot.to_string()), V::Inst(row));
                self.next_slot += 1;
            }
            None => {}
        }
        Ok(op.is_terminator())
    }

    /// After metadata attachment name `name` (just read): when it is `!dbg` and a numbered
    /// node `!N` follows on the same line, reads it into `dbg` (`N` saturates at
    /// `u32::MAX`, which no node defines). Anything else is left to the caller to skip.
    pub(super) fn dbg_attachment(&mut self, name: Tok, dbg: &mut Option<(u32, Tok)>) {
        if name.kind != Tk::Meta || self.text(name) != "!dbg" {
            return;
        }
        let v = self.p.peek();
        if v.kind != Tk::Meta || v.nl_before {
            return;
        }
        if let Some(n) = super::debuginfo::md_number(self.text(v)) {
            self.p.next();
            *dbg = Some((n, v));
        }
    }

    /// A call, invoke or callbr after its opcode (the instruction at `row` of `f`): pushes
    /// the operands and the call-site parameter attributes; returns `(result type,
    /// function type, call details)`.
    fn call(
        &mut self,
        op: Opcode,
        f: FuncIdx,
        row: RowIdx,
    ) -> Result<(TypeIdx, TypeIdx, CallInfo), ParseError> {
        let mut ret_attrs = AttrSet::EMPTY;
        loop {
            let t = self.p.peek();
            match t.kind {
                Tk::Word => {
                    let w = self.text(t);
                    if is_int_type(w) || TYPE_WORDS.contains(&w) {
                        break;
                    }
                    self.p.next();
                    if w == "cc" && self.p.peek().kind == Tk::Num {
                        self.p.next();
                    } else if let Some(a) = Attr::from_word(w) {
                        self.attr_payload(&mut ret_attrs, a)?;
                    } else if self.p.is_punct("(") {
                        self.p.skip_group()?;
                    }
                }
                Tk::Str => {
                    self.p.next();
                }
                _ => break,
            }
        }
        let ty = self.ty()?;
        let (explicit, ret_ty) = match self.ir.types.kind(ty) {
            TypeKind::Function { ret, .. } => (true, ret),
            _ => (false, ty),
        };
        // callee
        let callee = {
            let t = self.p.peek();
            if t.kind == Tk::Global {
                self.p.next();
                Operand::V(self.global_ref(t)?)
            } else {
                self.value(TypeIdx::NONE)?
            }
        };
        // arguments
        let open = self.p.expect_punct("(")?;
        let mut args: Vec<(TypeIdx, AttrSet, Operand<'a>)> = Vec::new();
        if !self.p.eat_punct(")") {
            loop {
                let t = self.ty()?;
                let mut set = AttrSet::EMPTY;
                let v = if self.ir.types.kind(t) == TypeKind::Metadata {
                    self.p.skip_to_comma()?;
                    Operand::V(Value::Metadata)
                } else {
                    self.param_attrs(&mut set)?;
                    self.value(t)?
                };
                args.push((t, set, v));
                if self.p.eat_punct(",") {
                    continue;
                }
                if self.p.eat_punct(")") {
                    break;
                }
                let t = self.p.peek();
                return self.err(
                    t,
                    format!(
                        "expected ',' or ')' in call arguments (opened at {}:{}), found {}",
                        open.line,
                        open.col,
                        self.p.describe(t)
                    ),
                );
            }
        }
        // function attributes, bundles, destinations, metadata
        let mut fn_attrs = AttrSet::EMPTY;
        let mut bundle_ops: Vec<(TypeIdx, Operand<'a>)> = Vec::new();
        let mut tags = 0u8;
        let mut dests: Vec<Operand<'a>> = Vec::new();
        let mut dbg: Option<(u32, Tok)> = None;
        loop {
            if op == Opcode::Call && self.p.at_eol() {
                break;
            }
            let t = self.p.peek();
            if t.kind == Tk::Eof {
                break;
            }
            if t.nl_before
                && op != Opcode::Call
                && !self.p.is_word("to")
                && !self.p.is_word("unwind")
                && !self.p.is_punct("[")
            {
                break;
            }
            if self.p.is_punct("[") {
                self.p.next();
                if op == Opcode::CallBr && !dests.is_empty() {
                    while !self.p.eat_punct("]") {
                        dests.push(self.label()?);
                        self.p.eat_punct(",");
                    }
                    continue;
                }
                while !self.p.eat_punct("]") {
                    let tag = self.p.next();
                    if tag.kind == Tk::Eof {
                        return self.err(tag, "unterminated operand bundle list");
                    }
                    tags |= BundleTags::bit(unquote(self.text(tag)));
                    if self.p.eat_punct("(") && !self.p.eat_punct(")") {
                        loop {
                            bundle_ops.push(self.typed()?);
                            if self.p.eat_punct(",") {
                                continue;
                            }
                            self.p.expect_punct(")")?;
                            break;
                        }
                    }
                    self.p.eat_punct(",");
                }
                continue;
            }
            if self.p.is_word("to") || self.p.is_word("unwind") {
                self.p.next();
                dests.push(self.label()?);
                continue;
            }
            if self.p.is_punct("(") {
                self.p.skip_group()?;
                continue;
            }
            self.p.next();
            match t.kind {
                Tk::Attr => {
                    if let Some(s) = self.text(t)[1..]
                        .parse::<u32>()
                        .ok()
                        .and_then(|n| self.groups.get(&n))
                    {
                        fn_attrs.bits |= s.bits;
                    }
                }
                Tk::Word => {
                    if let Some(a) = Attr::from_word(self.text(t)) {
                        self.attr_payload(&mut fn_attrs, a)?;
                    } else if self.p.is_punct("(") {
                        self.p.skip_group()?;
                    }
                }
                // `, !dbg !12, !srcloc !3`: metadata attachments end a call (an invoke's
                // or a callbr's follow its destinations, which may be on the next line)
                Tk::Meta => {
                    self.dbg_attachment(t, &mut dbg);
                    if op == Opcode::Call {
                        while !self.p.at_eol() {
                            if self.p.is_punct("(") || self.p.is_punct("{") || self.p.is_punct("[")
                            {
                                self.p.skip_group()?;
                            } else {
                                let m = self.p.next();
                                self.dbg_attachment(m, &mut dbg);
                            }
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
        let fn_ty = if explicit {
            ty
        } else {
            let params: Vec<TypeIdx> = args.iter().map(|a| a.0).collect();
            self.ir.types.function(ret_ty, &params, false)
        };
        if let Some((n, at)) = dbg {
            self.dbg_calls.push((f, row, n, at));
        }
        let nargs = args.len() as u32;
        let mut ci = CallInfo::synthetic(Intrinsic::None, nargs);
        ci.callee_op = nargs + bundle_ops.len() as u32;
        ci.attrs = self.intern(fn_attrs);
        ci.ret_attrs = self.intern(ret_attrs);
        ci.bundles = BundleTags(tags);
        self.call_params.clear();
        for (t, set, v) in args {
            let s = self.intern(set);
            self.call_params.push(s);
            self.push_op(t, v);
        }
        for (t, v) in bundle_ops {
            self.push_op(t, v);
        }
        let callee_ty = self
            .ir
            .types
            .ptr(if self.opaque { TypeIdx::NONE } else { fn_ty }, 0);
        self.push_op(callee_ty, callee);
        let label_ty = self.label_ty;
        for d in dests {
            self.push_op(label_ty, d);
        }
        Ok((ret_ty, fn_ty, ci))
    }
}

/// `atomicrmw` operations in LangRef order (the auxiliary word of an `atomicrmw` row).
pub(crate) const RMW_OPS: &[&str] = &[
    "xchg",
    "add",
    "sub",
    "and",
    "nand",
    "or",
    "xor",
    "max",
    "min",
    "umax",
    "umin",
    "fadd",
    "fsub",
    "fmax",
    "fmin",
    "uinc_wrap",
    "udec_wrap",
];
