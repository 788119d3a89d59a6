//! Expressions, opening and closing. An expression node becomes an expr_node when it
//! opens (operator and cast codes, entity, literal constants, its type from the
//! spelling or the named entity's declared type); a call or function-to-pointer decay is
//! typed when it closes, from its operands. Member references to later ids and
//! constructors are recorded for `finish`. When it closes, its operands are attached
//! and constant values flow through casts, substitutions and unary minus (a substitution
//! of a non-type template parameter keeps the parameter as its entity); wrappers
//! (parentheses, cleanups, `ConstantExpr`, opaque and pseudo-object expressions) stand
//! for their operand.

use super::entries::text;
use super::finalize::Closed;
use super::{strip_fn_type, Builder, Kid};
use crate::il::kinds as K;
use crate::il::{
    fields as F, CastKind, ConstantKind, Eix, EntryKind, ExprKind, IlError, Op, TypeKind,
};
use crate::import::clang_json::json::parse_int;
use crate::import::clang_json::kinds::{op_of, Class, ExprClass, BINARY_OPS, UNARY_OPS};
use crate::import::clang_json::types::{qual, Alt, Types};

impl Builder<'_> {
    /// The expr_node of frame `t` (class `ec`): kind and operator, type (deferred for a
    /// call or decay), entity or recorded fix-up, literal constant.
    pub(super) fn materialize_expr(&mut self, t: usize, ec: ExprClass) -> Result<(), IlError> {
        use ExprClass as E;
        let Some((ek, opc)) = self.expr_kind(t, ec) else {
            return Ok(());
        };
        let x = self.il.alloc_expr_node(ek)?;
        let e = self.il.eix(x)?;
        self.frames[t].entry = e;
        if matches!(ek, ExprKind::Operation | ExprKind::FoldExpression) {
            let mut x = self.il.expr_mut(e);
            x.set_op(opc);
            if ec == E::Cast {
                x.set_cast_kind(cast_kind(&self.frames[t].opcode));
            }
        }
        let referenced = match ec {
            E::DeclRef => self.frames[t].ref_id,
            E::Member => self.frames[t].member_ref,
            _ => 0,
        };
        let ty = if ec == E::Call
            || (ec == E::Cast && self.frames[t].opcode == "FunctionToPointerDecay")
        {
            // Typed when it closes, from its operands (`finish_expr_type`).
            self.frames[t].type_deferred = true;
            Eix::NONE
        } else {
            let alt = Alt::Type(self.declared_type(referenced));
            let ty = self.type_of_or(t, alt)?;
            self.set_child(e, F::EXPR_NODE_TYPE, ty)?;
            ty
        };
        match ec {
            E::DeclRef | E::New | E::Delete => {
                let target = self.frame_ref(t)?;
                self.set_ref(e, F::EXPR_NODE_ENTITY, target)?;
                if ec == E::DeclRef
                    && self.il.is_live(target)
                    && self.il.kind(target) == EntryKind::Constant
                {
                    self.set_child(e, F::EXPR_NODE_CONSTANT, target)?;
                }
            }
            E::Member => {
                let id = self.frames[t].member_ref;
                if let Some((m, _)) = self.lookup(id) {
                    self.set_ref(e, F::EXPR_NODE_ENTITY, m)?;
                } else if id != 0 {
                    self.fix_member.push((e, id));
                }
            }
            E::Cast => {
                // User-defined conversions name their function.
                let id = self.frames[t].ref_id;
                if id != 0 {
                    let target = self.frame_ref(t)?;
                    self.set_ref(e, F::EXPR_NODE_ENTITY, target)?;
                }
            }
            E::Construct => {
                let ct = strip_fn_type(&self.frames[t].ctor_type);
                self.fix_ctor.push((e, ct));
            }
            E::IntLit | E::FloatLit | E::StrLit | E::NullLit => {
                self.literal_constant(t, ec, e, ty)?;
            }
            E::SizeofPack => {
                let pack = self.pack_named(t);
                self.set_ref(e, F::EXPR_NODE_ENTITY, pack)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// The pack `sizeof...` frame `t` names (clang's dump gives only its name): in the
    /// innermost enclosing declaration that has one of that name, a template parameter,
    /// a function parameter pack, or a function parameter pack of a template's pattern
    /// (an instance's body names the pattern's pack: its own parameters are the
    /// expanded ones); `Eix::NONE` when none is found.
    fn pack_named(&self, t: usize) -> Eix {
        let name = self.frames[t].name.as_bytes();
        let il = &*self.il;
        let is_pack_param = |p: Eix| il.param_type(p).is_pack() && il.name(p) == name;
        // Only templates (parameters, the pattern) and routines (parameters) declare
        // packs: other frames (records, namespaces, the TU) are not searched.
        let declares = |f: &&super::Frame| {
            matches!(f.class, Some(Class::Template(_)) | Some(Class::Function(_)))
        };
        for f in self.frames[..t].iter().rev().filter(declares) {
            for k in &f.kids {
                let e = k.e;
                if e.is_none() || !il.is_live(e) {
                    continue;
                }
                match il.kind(e) {
                    EntryKind::TemplateParam if il.name(e) == name => return e,
                    EntryKind::ParamType if is_pack_param(e) => return e,
                    EntryKind::Routine if matches!(f.class, Some(Class::Template(_))) => {
                        let params = il.list_eix(e, F::ROUTINE_PARAMS);
                        if let Some(&p) = params.iter().find(|&&p| is_pack_param(p)) {
                            return p;
                        }
                    }
                    _ => {}
                }
            }
        }
        Eix::NONE
    }

    /// The expr_node kind and operator of an expression of class `ec`: `None` for the
    /// wrappers that stand for their operand and get no entry.
    fn expr_kind(&self, t: usize, ec: ExprClass) -> Option<(ExprKind, Op)> {
        use ExprClass as E;
        use ExprKind as X;
        let operation = |o| (X::Operation, o);
        Some(match ec {
            E::Binary => operation(op_of(BINARY_OPS, &self.frames[t].opcode)),
            E::Unary => operation(op_of(UNARY_OPS, &self.frames[t].opcode)),
            E::Call => operation(Op::Call),
            E::KernelCall => operation(Op::KernelCall),
            E::Member | E::Property => operation(Op::Member),
            E::Cast => operation(Op::Cast),
            E::Subscript => operation(Op::Subscript),
            E::Conditional => operation(Op::Cond),
            E::Construct => operation(Op::Construct),
            E::InitList => operation(Op::InitList),
            E::SubstNttp => operation(Op::SubstNttp),
            E::Dependent => operation(Op::Dependent),
            E::PackExpansion => (X::PackExpansion, Op::Paren),
            E::SizeofPack => operation(Op::SizeofPack),
            // The operator is not in the dump: a fold of an unknown operator.
            E::Fold => (X::FoldExpression, Op::Dependent),
            E::Other => operation(Op::Other),
            E::DeclRef => {
                let rc = self.class_of(self.frames[t].ref_kind);
                match rc {
                    Class::Function(_) => (X::Routine, Op::Paren),
                    Class::EnumConst => (X::Constant, Op::Paren),
                    _ => (X::Variable, Op::Paren),
                }
            }
            E::IntLit | E::FloatLit | E::StrLit | E::NullLit => (X::Constant, Op::Paren),
            E::New | E::Delete => (X::NewDelete, Op::Paren),
            E::Lambda => (X::Lambda, Op::Paren),
            E::TypeOperand => (X::TypeOperand, Op::Paren),
            E::Throw => (X::Throw, Op::Paren),
            E::Pseudo | E::OpaqueValue => return None,
        })
    }

    /// The constant of a literal `e` of class `ec` (integer, floating, string, null),
    /// typed `ty`, from the frame's `value`.
    fn literal_constant(
        &mut self,
        t: usize,
        ec: ExprClass,
        e: Eix,
        ty: Eix,
    ) -> Result<(), IlError> {
        use ExprClass as E;
        let c = self.alloc(EntryKind::Constant)?;
        let cid = self.il.id_of(c);
        let v = self.frames[t].value.clone();
        match ec {
            E::FloatLit => {
                K::set_constant_kind(self.il, cid, ConstantKind::Float)?;
                let f: f64 = v.trim().parse().unwrap_or(0.0);
                self.il.constant_mut(c).set_value(f.to_bits() as i64);
                // A type wider than `double` keeps clang's exact value as text: its
                // nearest double may be shared by several (both underflow to 0).
                let fr = &self.frames[t];
                if [&fr.qual_type, &fr.desugared]
                    .iter()
                    .any(|s| s.contains("long double") || s.contains("128"))
                {
                    let exact = v.trim();
                    self.il.constant_mut(c).set_text_len(exact.len() as u32);
                    if let Some(b) = text(c, exact) {
                        self.il.constant_mut(c).set_text(b);
                    }
                }
            }
            E::StrLit => {
                K::set_constant_kind(self.il, cid, ConstantKind::String)?;
                let literal = v
                    .strip_prefix('"')
                    .and_then(|s| s.strip_suffix('"'))
                    .unwrap_or(&v)
                    .to_string();
                self.il.constant_mut(c).set_text_len(literal.len() as u32);
                if let Some(b) = text(c, &literal) {
                    self.il.constant_mut(c).set_text(b);
                }
            }
            _ => {
                K::set_constant_kind(self.il, cid, ConstantKind::Integer)?;
                let n = match v.as_str() {
                    "true" => 1,
                    "false" | "" => 0,
                    s => parse_int(s.as_bytes()),
                };
                self.il.constant_mut(c).set_value(n);
            }
        }
        self.set_child(c, F::CONSTANT_TYPE, ty)?;
        self.set_child(e, F::EXPR_NODE_CONSTANT, c)?;
        if self.record_literals {
            let f = &self.frames[t];
            let ty = if f.desugared.is_empty() {
                &f.qual_type
            } else {
                &f.desugared
            };
            self.literals
                .push(crate::import::clang_json::LiteralOrigin {
                    constant: cid,
                    clang_id: f.id,
                    clang_type: ty.clone(),
                    value: v,
                    line: if f.has_pos { f.pos.1 } else { 0 },
                });
        }
        Ok(())
    }

    /// The declared type of the declaration with clang id `id`, if it was built (the
    /// referent's type when that is a reference): what an expression naming it has.
    fn declared_type(&self, id: u64) -> Eix {
        let Some((d, _)) = self.lookup(id) else {
            return Eix::NONE;
        };
        if !self.il.is_live(d) {
            return Eix::NONE;
        }
        let field = match self.il.kind(d) {
            EntryKind::Routine => F::ROUTINE_TYPE,
            EntryKind::Variable => F::VARIABLE_TYPE,
            EntryKind::Field => F::FIELD_TYPE,
            EntryKind::ParamType => F::PARAM_TYPE_TYPE,
            _ => return Eix::NONE,
        };
        let ty = self.il.child_eix(d, field).unwrap_or(Eix::NONE);
        self.referent(ty)
    }

    /// The type of a call (its callee's return type where clang's spelling, printed in the
    /// callee's scope, does not resolve here) or of a function-to-pointer decay (a pointer
    /// to its operand's function type).
    fn finish_expr_type(
        &mut self,
        t: usize,
        e: Eix,
        ec: ExprClass,
        kids: &[Kid],
    ) -> Result<(), IlError> {
        let operand = kids
            .iter()
            .map(|k| k.e)
            .find(|&k| !k.is_none() && self.il.kind(k) == EntryKind::ExprNode);
        let alt = match operand {
            Some(op) if ec == ExprClass::Call => Alt::Type(self.return_type_of(op)),
            Some(op) => self
                .il
                .child_eix(op, F::EXPR_NODE_TYPE)
                .map_or(Alt::None, Alt::PointerTo),
            None => Alt::None,
        };
        let ty = self.type_of_or(t, alt)?;
        self.set_child(e, F::EXPR_NODE_TYPE, ty)
    }

    /// The return type of the routine a callee expression designates (through its entity,
    /// else its function or function-pointer type); the referent for a reference.
    fn return_type_of(&self, callee: Eix) -> Eix {
        let by_entity = self
            .il
            .ref_eix(callee, F::EXPR_NODE_ENTITY)
            .filter(|&r| self.il.is_live(r) && self.il.kind(r) == EntryKind::Routine)
            .and_then(|r| self.il.child_eix(r, F::ROUTINE_TYPE));
        let fty = by_entity.or_else(|| {
            let ty = self.il.child_eix(callee, F::EXPR_NODE_TYPE)?;
            let ty = Types::strip(self.il, ty);
            if self
                .il
                .as_ty(ty)
                .is_some_and(|t| t.type_kind() == TypeKind::Pointer)
            {
                self.il.child_eix(ty, F::TYPE_BASE_TYPE)
            } else {
                Some(ty)
            }
        });
        let Some(fty) = fty else {
            return Eix::NONE;
        };
        if !self.types.is_resolved_type(self.il, fty) {
            return Eix::NONE;
        }
        let fty = Types::strip(self.il, fty);
        if self
            .il
            .as_ty(fty)
            .is_none_or(|t| t.type_kind() != TypeKind::Routine)
        {
            return Eix::NONE;
        }
        let ret = self
            .il
            .child_eix(fty, F::TYPE_BASE_TYPE)
            .unwrap_or(Eix::NONE);
        self.referent(ret)
    }

    /// `t` without an outer lvalue/rvalue reference.
    fn referent(&self, t: Eix) -> Eix {
        if t.is_none() || !self.il.is_live(t) || self.il.kind(t) != EntryKind::Type {
            return t;
        }
        let tb = self.il.ty(t);
        if tb.type_kind() == TypeKind::Pointer && tb.qualifiers() & (qual::LREF | qual::RREF) != 0 {
            return self.il.child_eix(t, F::TYPE_BASE_TYPE).unwrap_or(Eix::NONE);
        }
        t
    }

    /// A transparent expression (parentheses, cleanups, `ConstantExpr`, an opaque value):
    /// it stands for its first child, with its value; an opaque value's id names it.
    pub(super) fn finish_expr_pass(
        &mut self,
        t: usize,
        class: Class,
        kids: &[Kid],
        out: &mut Closed,
    ) {
        out.e = kids
            .iter()
            .map(|k| k.e)
            .find(|e| !e.is_none())
            .unwrap_or(Eix::NONE);
        out.val = kids.iter().find_map(|k| k.val);
        if self.frames[t].has_value {
            out.val = Some(parse_int(self.frames[t].value.as_bytes()));
        }
        if class == Class::Expr(ExprClass::OpaqueValue) {
            let id = self.frames[t].id;
            if id != 0 && !out.e.is_none() {
                self.ids.insert(id, (out.e, true));
            }
        }
    }

    /// A pseudo-object expression stands for its syntactic form; a builtin property
    /// (`threadIdx.x`) is fixed up to its field after the pass.
    pub(super) fn finish_pseudo(&mut self, t: usize, kids: &[Kid], out: &mut Closed) {
        out.e = kids
            .iter()
            .map(|k| k.e)
            .find(|e| !e.is_none())
            .unwrap_or(Eix::NONE);
        let fetch = std::mem::take(&mut self.frames[t].fetch);
        if !fetch.is_empty() && !out.e.is_none() {
            self.fix_prop.push((out.e, fetch));
        }
    }

    /// An expression: its constant value where one flows through it, its deferred type,
    /// operands (a lambda: its closure type).
    pub(super) fn finish_expr(
        &mut self,
        t: usize,
        e: Eix,
        ec: ExprClass,
        kids: &[Kid],
        out: &mut Closed,
    ) -> Result<(), IlError> {
        match ec {
            ExprClass::IntLit => {
                let v = &self.frames[t].value;
                out.val = Some(match v.as_str() {
                    "true" => 1,
                    _ => parse_int(v.as_bytes()),
                });
            }
            // Constant values flow through casts and substitutions (enumerator
            // initializers: ImplicitCastExpr(ConstantExpr{value}(...))), and `-`.
            ExprClass::Cast | ExprClass::SubstNttp => {
                out.val = kids.iter().find_map(|k| k.val);
            }
            ExprClass::Unary if self.frames[t].opcode == "-" => {
                out.val = kids.iter().find_map(|k| k.val).map(|v| v.wrapping_neg());
            }
            _ => {}
        }
        if self.frames[t].type_deferred && !e.is_none() {
            self.finish_expr_type(t, e, ec, kids)?;
        }
        for k in kids {
            if k.e.is_none() {
                continue;
            }
            match self.il.kind(k.e) {
                EntryKind::ExprNode => self.push(e, F::EXPR_NODE_OPERANDS, k.e)?,
                // The parameter a substitution replaces: its entity.
                EntryKind::TemplateParam if ec == ExprClass::SubstNttp => {
                    self.set_ref(e, F::EXPR_NODE_ENTITY, k.e)?;
                }
                EntryKind::Type if ec == ExprClass::Lambda => {
                    self.set_child(e, F::EXPR_NODE_TYPE, k.e)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The cast kind clang names `k` (`expr_node.op2` of a cast).
fn cast_kind(k: &str) -> CastKind {
    CastKind::ALL
        .into_iter()
        .find(|c| c.name() == k)
        .unwrap_or(CastKind::Other)
}
