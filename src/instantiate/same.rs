//! Identity of what a substitution produced and what clang wrote: types up to typedefs
//! ([`same_type`]) and the value or entity an expression designates ([`designated`]).
//! Both the check and the partial-specialization matcher compare through these.

use crate::il::{fields as F, ConstantKind, Eix, EntryKind, ExprKind, Il, Op, TypeKind};

/// `t` without typerefs, and the qualifiers they carried.
pub(super) fn strip(il: &Il, mut t: Eix) -> (Eix, u8) {
    let mut q = 0u8;
    for _ in 0..64 {
        let Some(ty) = il.as_ty(t) else { break };
        if ty.type_kind() != TypeKind::Typeref {
            break;
        }
        q |= ty.qualifiers();
        match il.child_eix(t, F::TYPE_BASE_TYPE) {
            Some(b) => t = b,
            None => break,
        }
    }
    let own = il.as_ty(t).map_or(0, |x| x.qualifiers());
    (t, q | own)
}

/// Type identity up to typedefs: the same kind, qualifiers (wherever a typedef put them),
/// size, integer kind and format all along the chain; classes and enums (integers of
/// format 1) the same entry
/// or the same non-empty name; routine types by return and parameter types.
pub fn same_type(il: &Il, a: Option<Eix>, b: Option<Eix>) -> bool {
    same_type_with(il, a, b, false)
}

/// [`same_type`], where `loose_bounds` lets an array without a bound constant match an
/// array of any size.
pub(super) fn same_type_with(il: &Il, a: Option<Eix>, b: Option<Eix>, loose_bounds: bool) -> bool {
    let mut stack = vec![(a, b)];
    let mut steps = 0;
    while let Some((a, b)) = stack.pop() {
        steps += 1;
        if steps > 1 << 16 {
            return false;
        }
        let (x, y) = match (a, b) {
            (None, None) => continue,
            (Some(x), Some(y)) if x == y => continue,
            (Some(x), Some(y)) => (x, y),
            _ => return false,
        };
        if il.kind(x) != EntryKind::Type || il.kind(y) != EntryKind::Type {
            return false;
        }
        let ((x, qx), (y, qy)) = (strip(il, x), strip(il, y));
        if x == y && qx == qy {
            continue;
        }
        let (tx, ty) = (il.ty(x), il.ty(y));
        let k = tx.type_kind();
        if k != ty.type_kind()
            || qx != qy
            || tx.int_kind() != ty.int_kind()
            || tx.format() != ty.format()
        {
            return false;
        }
        if k.is_class() || (k == TypeKind::Integer && tx.format() == 1) {
            if il.name(x).is_empty() || il.name(x) != il.name(y) {
                return false;
            }
            continue;
        }
        let unbounded = k == TypeKind::Array
            && (il.child_eix(x, F::TYPE_ARRAY_BOUND).is_none()
                || il.child_eix(y, F::TYPE_ARRAY_BOUND).is_none());
        let bounds = (
            il.child_eix(x, F::TYPE_ARRAY_BOUND)
                .map(|c| il.constant(c).value()),
            il.child_eix(y, F::TYPE_ARRAY_BOUND)
                .map(|c| il.constant(c).value()),
        );
        let sized = match (k, bounds) {
            // Arrays: the same bound (the size follows from it and the element).
            (TypeKind::Array, (Some(a), Some(b))) => a == b,
            (TypeKind::Routine, _) => true,
            _ => tx.size() == ty.size() || (loose_bounds && unbounded),
        };
        if !sized {
            return false;
        }
        if k == TypeKind::Routine {
            let params = |t: Eix| {
                il.child_eix(t, F::TYPE_ROUTINE_SUPPLEMENT)
                    .map(|s| il.list_eix(s, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS).to_vec())
                    .unwrap_or_default()
            };
            let (px, py) = (params(x), params(y));
            if px.len() != py.len() {
                return false;
            }
            for (&p, &q) in px.iter().zip(&py) {
                stack.push((
                    il.child_eix(p, F::PARAM_TYPE_TYPE),
                    il.child_eix(q, F::PARAM_TYPE_TYPE),
                ));
            }
        }
        stack.push((
            il.child_eix(x, F::TYPE_BASE_TYPE),
            il.child_eix(y, F::TYPE_BASE_TYPE),
        ));
    }
    true
}

/// What a value expression designates: an integer or floating value, or an entity
/// whose address it is.
#[derive(Debug, PartialEq)]
pub(super) enum Designated {
    Value(i64),
    Address(Eix),
}

/// The value an expression holds, through conversions: a constant's value, an address
/// constant's entity, `&entity`.
pub(super) fn designated(il: &Il, mut e: Eix) -> Option<Designated> {
    for _ in 0..64 {
        if il.kind(e) != EntryKind::ExprNode {
            return None;
        }
        let x = il.expr(e);
        let ops = il.list_eix(e, F::EXPR_NODE_OPERANDS);
        match (x.expr_kind(), x.op()) {
            (ExprKind::Constant, _) => {
                let c = il.child_eix(e, F::EXPR_NODE_CONSTANT)?;
                let ct = il.constant(c);
                return match ct.constant_kind() {
                    ConstantKind::Integer | ConstantKind::Float => {
                        Some(Designated::Value(ct.value()))
                    }
                    ConstantKind::Address => il
                        .child_eix(c, F::CONSTANT_OPERAND)
                        .map(Designated::Address),
                    _ => None,
                };
            }
            (ExprKind::Operation, Op::Cast | Op::ImplicitConv | Op::Paren) if ops.len() == 1 => {
                e = ops[0]
            }
            (ExprKind::Operation, Op::AddrOf) if ops.len() == 1 => {
                return il
                    .ref_eix(ops[0], F::EXPR_NODE_ENTITY)
                    .map(Designated::Address);
            }
            _ => return None,
        }
    }
    None
}
