//! The kind an explicit cast takes once its operand and target types are known.
//!
//! A cast written in a template pattern over a dependent operand or type has no kind
//! yet (clang's `Dependent`); instantiation gives it one, as clang's `Sema` does when it
//! rebuilds the cast: the kind of the conversion's last step (the decays before it are
//! separate implicit steps, which comparison drops). Only the standard conversions are
//! classified (a pointer between classes by their bases: derived-to-base,
//! base-to-derived, else a reinterpretation); a cast that needs overload resolution
//! (through a constructor or a conversion function), or of a reference, vector or
//! pointer to member, keeps `Dependent`.

use crate::compare::equiv_types;
use crate::il::kinds::{qual, strip_typerefs};
use crate::il::{fields as F, CastKind, Eix, Il, IntKind, TypeKind};

/// What a value of type `t` is for a conversion.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Void,
    Bool,
    Integral,
    Floating,
    /// A pointer (an array or a function decays to one); its pointee.
    Pointer(Option<Eix>),
    Other,
}

fn class_of(il: &Il, t: Eix) -> Class {
    let t = strip_typerefs(il, t);
    let Some(ty) = il.as_ty(t) else {
        return Class::Other;
    };
    match ty.type_kind() {
        TypeKind::Void => Class::Void,
        TypeKind::Integer if ty.int_kind() == IntKind::Bool => Class::Bool,
        TypeKind::Integer => Class::Integral,
        TypeKind::Float => Class::Floating,
        TypeKind::Pointer if ty.qualifiers() & (qual::LREF | qual::RREF) == 0 => {
            Class::Pointer(il.child_eix(t, F::TYPE_BASE_TYPE))
        }
        TypeKind::Array => Class::Pointer(il.child_eix(t, F::TYPE_BASE_TYPE)),
        TypeKind::Routine => Class::Pointer(Some(t)),
        _ => Class::Other,
    }
}

/// Whether two pointee types are the same type once typedefs and qualifiers are set
/// aside (a cast between them only adds or drops qualifiers).
fn same_pointee(il: &Il, a: Option<Eix>, b: Option<Eix>) -> bool {
    let strip = |t: Option<Eix>| t.map(|t| strip_typerefs(il, t));
    let (a, b) = (strip(a), strip(b));
    a == b || equiv_types(il, a, b)
}

fn is_class(il: &Il, t: Option<Eix>) -> bool {
    t.map(|t| strip_typerefs(il, t))
        .and_then(|t| il.as_ty(t))
        .is_some_and(|t| t.type_kind().is_class())
}

/// Whether class `derived` has class `base` among its bases, directly or through
/// theirs (a bounded walk: a malformed cycle of bases ends it).
fn derives_from(il: &Il, derived: Eix, base: Eix) -> bool {
    let base = strip_typerefs(il, base);
    let mut todo = vec![strip_typerefs(il, derived)];
    let mut steps = 0;
    while let Some(c) = todo.pop() {
        steps += 1;
        if steps > 4096 {
            return false;
        }
        for &b in il.list_eix(c, F::TYPE_BASES) {
            let Some(t) = il.child_eix(b, F::BASE_CLASS_TYPE) else {
                continue;
            };
            let t = strip_typerefs(il, t);
            if t == base || equiv_types(il, Some(t), Some(base)) {
                return true;
            }
            todo.push(t);
        }
    }
    false
}

/// The kind of an explicit cast of a value of type `from` to type `to`, or `None` when
/// the conversion is not a standard one this classifies (class types, references,
/// vectors, pointers to members).
pub(super) fn explicit_cast_kind(il: &Il, from: Eix, to: Eix) -> Option<CastKind> {
    use Class::*;
    let (f, t) = (class_of(il, from), class_of(il, to));
    Some(match (f, t) {
        (_, Void) => CastKind::ToVoid,
        (Bool | Integral, Bool) => CastKind::IntegralToBoolean,
        (Floating, Bool) => CastKind::FloatingToBoolean,
        (Pointer(_), Bool) => CastKind::PointerToBoolean,
        (Bool | Integral, Integral) if same_pointee(il, Some(from), Some(to)) => CastKind::NoOp,
        (Bool | Integral, Integral) => CastKind::IntegralCast,
        (Bool | Integral, Floating) => CastKind::IntegralToFloating,
        (Floating, Integral) => CastKind::FloatingToIntegral,
        (Floating, Floating) if same_pointee(il, Some(from), Some(to)) => CastKind::NoOp,
        (Floating, Floating) => CastKind::FloatingCast,
        (Bool | Integral, Pointer(_)) => CastKind::IntegralToPointer,
        (Pointer(_), Integral) => CastKind::PointerToIntegral,
        (Pointer(a), Pointer(b)) if same_pointee(il, a, b) => CastKind::NoOp,
        // Between two classes: derived-to-base or base-to-derived by their bases
        // (unrelated classes: a reinterpretation, `BitCast`).
        (Pointer(Some(a)), Pointer(Some(b))) if is_class(il, Some(a)) && is_class(il, Some(b)) => {
            if derives_from(il, a, b) {
                CastKind::DerivedToBase
            } else if derives_from(il, b, a) {
                CastKind::BaseToDerived
            } else {
                CastKind::BitCast
            }
        }
        (Pointer(_), Pointer(_)) => CastKind::BitCast,
        _ => return None,
    })
}
