//! Substitution in constants: template-parameter constants, address and expression
//! constants, unknown-entity and overload-resolution constants, and constants whose value
//! is an expression to substitute in file scope.

use super::{Binding, Subst, Val, UNEXPECTED_CON};
use crate::il::{
    fields as F, AddressKind, ConstantKind, Eix, EntryKind, ExprKind, Il, IlError, RegionIdx,
    TemplateParamConstantKind, TypeKind,
};

/// The error of a template-parameter constant whose parameter has no value bound.
pub(super) const NO_VALUE: &str = "copy_template_param_con: no value bound to the parameter";

impl Subst<'_> {
    /// `copy_template_param_con`: the substituted constant for a template-parameter
    /// constant (kind 12), an address constant (6) or an expression constant (15).
    ///
    /// # Errors
    /// `copy_template_param_con: unexpected kind` for other kinds; errors of the
    /// expression substitution.
    pub fn copy_template_param_con(&mut self, il: &mut Il, c: Eix) -> Result<Eix, IlError> {
        use ConstantKind as C;
        if il.kind(c) != EntryKind::Constant {
            return Err(IlError::BadKind(UNEXPECTED_CON));
        }
        let mut c = c;
        // Kinds 12/4, 12/12 and 15/2 wrap another constant: unwrap iteratively.
        for _ in 0..1 << 20 {
            let t = il.constant(c);
            let wraps = t
                .template_param_constant_kind()
                .is_some_and(|p| p.wraps_constant())
                || t.reflected_kind() == Some(EntryKind::Constant);
            match il.child_eix(c, F::CONSTANT_OPERAND) {
                Some(i) if wraps && il.kind(i) == EntryKind::Constant => c = i,
                _ => break,
            }
        }
        let t = il.constant(c);
        let (k, value, value2) = (t.constant_kind(), t.value(), t.value2());
        let (tp, reflected) = (t.template_param_constant_kind(), t.reflected_kind());
        use TemplateParamConstantKind as P;
        match (k, tp, reflected) {
            (_, Some(P::Value), _) => {
                let (pos, depth) = (value as u16, value2 as u16);
                match self.tparam_binding(depth, pos) {
                    Some(Binding::Value(v)) => il.eix(*v),
                    _ => Err(IlError::Assert(NO_VALUE)),
                }
            }
            (_, Some(P::Expression), _) => {
                if let Some(x) = self.copy_template_param_con_overload_resolution(il, c)? {
                    return Ok(x);
                }
                let Some(x) = il.child_eix(c, F::CONSTANT_EXPR) else {
                    return Err(IlError::BadKind(UNEXPECTED_CON));
                };
                let n = self.copy_template_param_expr(il, x)?;
                self.expr_to_constant(il, n)
            }
            (_, Some(p @ (P::NonMemberEntity | P::MemberEntity)), _) => {
                self.copy_template_param_unknown_entity_con(il, c, p == P::MemberEntity)
            }
            (
                _,
                Some(P::Sizeof | P::Alignof | P::Scalar7 | P::Scalar8 | P::Scalar9 | P::Scalar10),
                _,
            )
            | (_, _, Some(EntryKind::Type)) => {
                let dt = self.subst_type(il, il.child_eix(c, F::CONSTANT_DECLARED_TYPE))?;
                let Some(dt) = dt else {
                    return Err(IlError::BadKind(UNEXPECTED_CON));
                };
                let v = match tp {
                    Some(P::Alignof) => self.align_of(il, dt),
                    _ => self.size_of(il, dt),
                };
                let st = self.size_type;
                let x = self.const_node(il, Val::Int(v as i128), st)?;
                self.expr_to_constant(il, x)
            }
            (_, Some(P::EntityWithArgs | P::TypeOnly), _) | (C::Address, _, _) => {
                self.retype_constant(il, c)
            }
            (_, _, Some(EntryKind::ExprNode)) => {
                let (pos, depth) = (value as u16, value2 as u16);
                match self.tparam_binding(depth, pos) {
                    Some(Binding::Value(v)) => il.eix(*v),
                    _ => self.retype_constant(il, c),
                }
            }
            _ => Err(IlError::BadKind(UNEXPECTED_CON)),
        }
    }

    fn expr_to_constant(&mut self, il: &mut Il, x: Eix) -> Result<Eix, IlError> {
        match il.child_eix(x, F::EXPR_NODE_CONSTANT) {
            Some(c) if il.expr(x).expr_kind() == ExprKind::Constant => Ok(c),
            _ => {
                // Not constant after substitution: a kind-12/1 constant holding the tree.
                let c = il.alloc(EntryKind::Constant)?;
                crate::il::kinds::set_constant_kind(il, c, ConstantKind::TemplateParam)?;
                crate::il::kinds::set_template_param_constant_kind(
                    il,
                    c,
                    TemplateParamConstantKind::Expression,
                )?;
                il.set_child(c, F::CONSTANT_EXPR, Some(il.id_of(x)))?;
                let t = Self::expr_type(il, x);
                il.set_child(c, F::CONSTANT_TYPE, t.map(|t| il.id_of(t)))?;
                il.eix(c)
            }
        }
    }

    /// A copy of constant `c` with its type and declared type substituted (through
    /// sharing when shareable), or `c` when nothing changes.
    fn retype_constant(&mut self, il: &mut Il, c: Eix) -> Result<Eix, IlError> {
        let t = il.child_eix(c, F::CONSTANT_TYPE);
        let d = il.child_eix(c, F::CONSTANT_DECLARED_TYPE);
        let (nt, nd) = (self.subst_type(il, t)?, self.subst_type(il, d)?);
        if nt == t && nd == d {
            return Ok(c);
        }
        let id = il.alloc_in(EntryKind::Constant, il.current_region());
        let n = il.eix(id)?;
        il.copy_entry_data(c, n);
        il.constant_mut(n).set_is_shared(false);
        il.replace_child_at(n, F::CONSTANT_TYPE.slot as usize, nt.unwrap_or(Eix::NONE));
        il.replace_child_at(
            n,
            F::CONSTANT_DECLARED_TYPE.slot as usize,
            nd.unwrap_or(Eix::NONE),
        );
        self.sharing.share_eix(il, n, true)
    }

    /// `copy_template_param_unknown_entity_con`: an entity constant whose entity is a
    /// template parameter takes the argument (a type argument becomes the constant's
    /// declared type); other entities are kept.
    ///
    /// # Errors
    /// Stale arguments.
    pub fn copy_template_param_unknown_entity_con(
        &mut self,
        il: &mut Il,
        c: Eix,
        _member: bool,
    ) -> Result<Eix, IlError> {
        if let Some(p) = il.child_eix(c, F::CONSTANT_OPERAND) {
            if let Some(tp) = il.as_template_param(p) {
                let (d, pos) = (tp.depth(), tp.position());
                match self.tparam_binding(d, pos) {
                    Some(Binding::Value(v)) => return il.eix(*v),
                    Some(Binding::Type(t)) => {
                        let t = il.eix(*t)?;
                        let id = il.alloc_in(EntryKind::Constant, il.current_region());
                        let n = il.eix(id)?;
                        il.copy_entry_data(c, n);
                        il.replace_child_at(n, F::CONSTANT_DECLARED_TYPE.slot as usize, t);
                        il.replace_child_at(n, F::CONSTANT_OPERAND.slot as usize, Eix::NONE);
                        return Ok(n);
                    }
                    _ => {}
                }
            }
        }
        self.retype_constant(il, c)
    }

    /// `copy_template_param_con_overload_resolution`: ilkit's IL holds no overload sets,
    /// so an expression parameter naming a routine (kind 19 on a routine) resolves to
    /// that routine's address constant; anything else is left to expression
    /// substitution (`None`).
    ///
    /// # Errors
    /// Allocation errors.
    pub fn copy_template_param_con_overload_resolution(
        &mut self,
        il: &mut Il,
        c: Eix,
    ) -> Result<Option<Eix>, IlError> {
        let Some(x) = il.child_eix(c, F::CONSTANT_EXPR) else {
            return Ok(None);
        };
        if il.expr(x).expr_kind() != ExprKind::Routine {
            return Ok(None);
        }
        let Some(rt) = il.ref_eix(x, F::EXPR_NODE_ENTITY) else {
            return Ok(None);
        };
        if il.kind(rt) != EntryKind::Routine {
            return Ok(None);
        }
        let a = il.alloc_local_constant(ConstantKind::Address)?;
        il.set_child(a, F::CONSTANT_OPERAND, Some(il.id_of(rt)))?;
        let rtype = il.child_eix(rt, F::ROUTINE_TYPE);
        if let Some(t) = rtype {
            let p = self.pointer_to(il, t)?;
            il.set_child(a, F::CONSTANT_TYPE, Some(il.id_of(p)))?;
        }
        let s = self.sharing.alloc_shareable_constant(il, a)?;
        il.free_local_constant(a)?;
        Ok(Some(il.eix(s)?))
    }

    fn pointer_to(&mut self, il: &mut Il, t: Eix) -> Result<Eix, IlError> {
        let p = il.alloc_in(EntryKind::Type, RegionIdx::FILE_SCOPE);
        crate::il::kinds::set_type_kind(il, p, TypeKind::Pointer)?;
        il.set_child(p, F::TYPE_BASE_TYPE, Some(il.id_of(t)))?;
        let e = il.eix(p)?;
        let ps = self.model.pointer_size;
        il.ty_mut(e).set_size(ps).set_alignment(ps as u32);
        Ok(e)
    }

    /// `copy_template_param_con_with_substitution`: the entry point. Allocates in file
    /// scope for the duration, substitutes `c` (an expression parameter first tries
    /// overload resolution), then normalizes the result: an array decays to a pointer to
    /// its element, a function to a pointer to it (both as address constants, sub-kind
    /// 2 / 0), anything else is converted to `expected_type` when given.
    ///
    /// # Errors
    /// As [`Subst::copy_template_param_con`].
    pub fn copy_template_param_con_with_substitution(
        &mut self,
        il: &mut Il,
        c: Eix,
        expected_type: Option<Eix>,
    ) -> Result<Eix, IlError> {
        let saved = il.current_region();
        il.switch_region(RegionIdx::FILE_SCOPE)?;
        let r = self.with_substitution_in_file_scope(il, c, expected_type);
        il.switch_region(saved)?;
        r
    }

    fn with_substitution_in_file_scope(
        &mut self,
        il: &mut Il,
        c: Eix,
        expected_type: Option<Eix>,
    ) -> Result<Eix, IlError> {
        let res = self.copy_template_param_con(il, c)?;
        let Some(t) = il.child_eix(res, F::CONSTANT_TYPE) else {
            return Ok(res);
        };
        let st = Self::strip(il, t);
        match Self::tk(il, st) {
            TypeKind::Array | TypeKind::Routine => {
                let (target, sub) = if Self::tk(il, st) == TypeKind::Array {
                    let element = il.child_eix(st, F::TYPE_BASE_TYPE).unwrap_or(st);
                    (element, AddressKind::Constant)
                } else {
                    (st, AddressKind::Routine)
                };
                let p = self.pointer_to(il, target)?;
                let a = il.alloc_local_constant(ConstantKind::Address)?;
                crate::il::kinds::set_address_constant_kind(il, a, sub)?;
                let operand = if sub == AddressKind::Constant {
                    Some(res)
                } else {
                    il.child_eix(res, F::CONSTANT_OPERAND)
                };
                il.set_child(a, F::CONSTANT_OPERAND, operand.map(|o| il.id_of(o)))?;
                il.set_child(a, F::CONSTANT_TYPE, Some(il.id_of(p)))?;
                let s = self.sharing.alloc_shareable_constant(il, a)?;
                il.free_local_constant(a)?;
                il.eix(s)
            }
            _ => match (expected_type, Self::value_of_constant(il, res)) {
                (Some(et), Some(v)) if !crate::compare::equiv_types(il, Some(t), Some(et)) => {
                    let x = self.const_node(il, v, et)?;
                    self.expr_to_constant(il, x)
                }
                _ => Ok(res),
            },
        }
    }
}
