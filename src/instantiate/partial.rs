//! Which partial specialization a class template instantiation came from.
//!
//! clang's JSON names the primary template of a class template specialization, not the
//! partial specialization it was instantiated from. The partial specialization is
//! recognised as [temp.class.spec.match] does it: each partial specialization of the
//! template (a template of kind `PartialSpecialization` of the same name, whose
//! pattern's template info holds the specialization's arguments as written over its own
//! parameters) is matched against the instantiation's arguments, deducing its
//! parameters; the instantiation comes from the one that matches. Deduction is
//! structural: a parameter (a type parameter, by name or by clang's canonical
//! `type-parameter-D-I`; a non-type parameter's reference) takes the argument, once and
//! consistently; pointers, references, arrays, qualifiers and class template-ids are
//! matched part by part; anything else must be the same type or value. When several
//! match, partial ordering picks the one at least as specialized as every other (the
//! other's deduction succeeds from its written arguments, [temp.class.order]); when
//! none is, the match is reported ambiguous, not guessed.

use super::same::{designated, same_type, strip, Designated};
use crate::il::{
    fields as F, ConstantKind, Eix, EntryKind, ExprKind, Il, TemplateParamKind, TypeKind,
};

/// How a partial specialization matched an instantiation's arguments.
pub(super) enum Match {
    /// The arguments its parameters take, in parameter order.
    Deduced(Vec<Eix>),
    /// It does not match.
    No,
}

/// Bounded steps of one match (a malformed cycle of types ends it).
const MAX_STEPS: usize = 4096;

struct Deduction<'a> {
    il: &'a Il,
    params: &'a [Eix],
    got: Vec<Option<Eix>>,
    steps: usize,
}

impl Deduction<'_> {
    /// The partial specialization parameter type `t` stands for, if it is one.
    fn param_of_type(&self, t: Eix) -> Option<usize> {
        let il = self.il;
        let ty = il.as_ty(t)?;
        if ty.type_kind() != TypeKind::TemplateParam || il.child_eix(t, F::TYPE_BASE_TYPE).is_some()
        {
            return None;
        }
        let name = il.name(t);
        self.params.iter().position(|&p| {
            let tp = il.template_param(p);
            tp.param_kind() == TemplateParamKind::Type
                && (il.name(p) == name
                    || name
                        == format!("type-parameter-{}-{}", tp.depth(), tp.position()).as_bytes())
        })
    }

    /// The partial specialization parameter expression `e` names, if it names one.
    fn param_of_expr(&self, mut e: Eix) -> Option<usize> {
        let il = self.il;
        for _ in 0..16 {
            if il.kind(e) != EntryKind::ExprNode {
                return None;
            }
            match il.list_eix(e, F::EXPR_NODE_OPERANDS) {
                [x] if il.expr(e).expr_kind() == ExprKind::Operation => e = *x,
                _ => break,
            }
        }
        let r = il.ref_eix(e, F::EXPR_NODE_ENTITY)?;
        self.params.iter().position(|&p| p == r)
    }

    fn bind(&mut self, i: usize, a: Eix) -> bool {
        match self.got[i] {
            None => {
                self.got[i] = Some(a);
                true
            }
            Some(b) => b == a || self.same_arg(b, a),
        }
    }

    fn same_arg(&self, a: Eix, b: Eix) -> bool {
        let il = self.il;
        match (il.kind(a), il.kind(b)) {
            (EntryKind::Type, EntryKind::Type) => same_type(il, Some(a), Some(b)),
            _ => same_value(il, a, b),
        }
    }

    /// Counts one step of the match; false past [`MAX_STEPS`].
    fn step(&mut self) -> bool {
        self.steps += 1;
        self.steps <= MAX_STEPS
    }

    /// Matches one written argument `p` against the instantiation's `a`.
    fn arg(&mut self, p: Eix, a: Eix) -> bool {
        if !self.step() {
            return false;
        }
        let il = self.il;
        match (il.kind(p), il.kind(a)) {
            (EntryKind::Type, EntryKind::Type) => self.ty(p, a),
            (EntryKind::Type, _) | (_, EntryKind::Type) => false,
            _ => match self.param_of_expr(p) {
                Some(i) => self.bind(i, a),
                None => same_value(il, p, a),
            },
        }
    }

    /// Matches written type `p` against type `a`, part by part.
    fn ty(&mut self, p: Eix, a: Eix) -> bool {
        if !self.step() {
            return false;
        }
        let il = self.il;
        let (sp, qp) = strip(il, p);
        let (sa, qa) = strip(il, a);
        if let Some(id) = template_id(il, p) {
            // A template-id written over the parameters (`Alloc<T *>`): the argument is
            // an instance of that template whose arguments match.
            return qp == qa && self.template_args(id, Some(sp), sa);
        }
        if let Some(i) = self.param_of_type(sp) {
            // `const T` matches `const int` with T = int: the written qualifiers must be
            // among the argument's, the rest go to the parameter.
            if qp & !qa != 0 {
                return false;
            }
            let bound = if qp == 0 { a } else { sa };
            return self.bind(i, bound);
        }
        if qp != qa {
            return false;
        }
        let (Some(tp), Some(ta)) = (il.as_ty(sp), il.as_ty(sa)) else {
            return false;
        };
        if tp.type_kind() != ta.type_kind() {
            return false;
        }
        match tp.type_kind() {
            TypeKind::Pointer | TypeKind::Array => {
                match (
                    il.child_eix(sp, F::TYPE_BASE_TYPE),
                    il.child_eix(sa, F::TYPE_BASE_TYPE),
                ) {
                    (Some(x), Some(y)) => {
                        tp.qualifiers() == ta.qualifiers()
                            && (tp.type_kind() != TypeKind::Array || tp.size() == ta.size())
                            && self.ty(x, y)
                    }
                    _ => false,
                }
            }
            k if k.is_class() => self.class(sp, sa),
            _ => same_type(il, Some(sp), Some(sa)),
        }
    }

    /// Two class types: the same, or instances of one template whose arguments match.
    fn class(&mut self, p: Eix, a: Eix) -> bool {
        let il = self.il;
        if p == a || same_type(il, Some(p), Some(a)) {
            return true;
        }
        match il.child_eix(p, F::TYPE_TEMPLATE_INFO) {
            Some(ip) => self.template_args(ip, None, a),
            None => false,
        }
    }

    /// Whether class `a` is an instance of the template of template info `ip` (or, for
    /// a template-id written in a pattern, of the template whose pattern is `pattern`)
    /// with arguments matching `ip`'s.
    fn template_args(&mut self, ip: Eix, pattern: Option<Eix>, a: Eix) -> bool {
        let il = self.il;
        let Some(ia) = il.as_ty(a).and(il.child_eix(a, F::TYPE_TEMPLATE_INFO)) else {
            return false;
        };
        let template = |i| il.ref_eix(i, F::TEMPLATE_INFO_TEMPLATE);
        let same = match (template(ip), template(ia)) {
            (Some(x), Some(y)) => x == y,
            (None, Some(y)) => pattern.is_some() && il.child_eix(y, F::TEMPLATE_PATTERN) == pattern,
            _ => false,
        };
        if !same {
            return false;
        }
        let (xs, ys) = (
            il.list_eix(ip, F::TEMPLATE_INFO_ARGS),
            il.list_eix(ia, F::TEMPLATE_INFO_ARGS),
        );
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(&x, &y)| self.arg(x, y))
    }
}

/// The template info of a template-id written in a pattern (a typeref holding its
/// arguments), on `t`'s typeref chain.
fn template_id(il: &Il, mut t: Eix) -> Option<Eix> {
    for _ in 0..64 {
        let ty = il.as_ty(t)?;
        if ty.type_kind() != TypeKind::Typeref {
            return None;
        }
        if let Some(i) = il.child_eix(t, F::TYPE_TEMPLATE_INFO) {
            return Some(i);
        }
        t = il.child_eix(t, F::TYPE_BASE_TYPE)?;
    }
    None
}

/// Whether two non-type arguments stand for one known value.
fn same_value(il: &Il, a: Eix, b: Eix) -> bool {
    let v = value(il, a);
    v.is_some() && v == value(il, b)
}

/// The value a non-type argument stands for: a constant entry's (an integer, or the
/// entity of an address), or an expression's through its conversions ([`designated`]).
fn value(il: &Il, e: Eix) -> Option<Designated> {
    if il.kind(e) != EntryKind::Constant {
        return designated(il, e);
    }
    let c = il.constant(e);
    match c.constant_kind() {
        ConstantKind::Integer | ConstantKind::Float => Some(Designated::Value(c.value())),
        ConstantKind::Address => il
            .child_eix(e, F::CONSTANT_OPERAND)
            .map(Designated::Address),
        _ => None,
    }
}

/// Matches partial specialization `spec` (a template of kind `PartialSpecialization`)
/// against an instantiation's arguments `args`.
pub(super) fn deduce(il: &Il, spec: Eix, args: &[Eix]) -> Match {
    let params = il.list_eix(spec, F::TEMPLATE_PARAMS);
    let Some(written) = il
        .child_eix(spec, F::TEMPLATE_PATTERN)
        .and_then(|p| il.child_eix(p, F::TYPE_TEMPLATE_INFO))
        .map(|i| il.list_eix(i, F::TEMPLATE_INFO_ARGS))
    else {
        return Match::No;
    };
    if written.len() != args.len() || params.iter().any(|&p| il.template_param(p).is_pack()) {
        return Match::No;
    }
    let mut d = Deduction {
        il,
        params,
        got: vec![None; params.len()],
        steps: 0,
    };
    if !written.iter().zip(args).all(|(&p, &a)| d.arg(p, a)) {
        return Match::No;
    }
    match d.got.into_iter().collect::<Option<Vec<Eix>>>() {
        Some(v) => Match::Deduced(v),
        None => Match::No,
    }
}

/// Whether partial specialization `a` is at least as specialized as `b`
/// ([temp.class.order], by deduction): `b` matches `a`'s written arguments.
pub(super) fn at_least_as_specialized(il: &Il, a: Eix, b: Eix) -> bool {
    let Some(written) = il
        .child_eix(a, F::TEMPLATE_PATTERN)
        .and_then(|p| il.child_eix(p, F::TYPE_TEMPLATE_INFO))
        .map(|i| il.list_eix(i, F::TEMPLATE_INFO_ARGS))
    else {
        return false;
    };
    matches!(deduce(il, b, written), Match::Deduced(_))
}
