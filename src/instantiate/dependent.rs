//! Dependent types substitution resolves by lookup, not by rebuilding: a dependent
//! member type (`typename T::value_type`: a `tk_template_param` type whose base type is
//! the qualifier and whose name is the member's) and a dependent template-id
//! (`Traits<T>`: a typeref over the class template's pattern with a `template_info`
//! holding the arguments as written).
//!
//! - a dependent template-id becomes the specialization of that template whose
//!   arguments equal the substituted ones ([`Specializations`], made from the world's
//!   class instantiations and explicit specializations);
//! - a dependent member type becomes the member type of that name declared in the class
//!   its substituted qualifier names (its scope's types, then its bases', depth-first).
//!
//! Either is left as it is when nothing matches. Lookups nest (a member of a
//! template-id whose argument is a member type, ...) at most `MAX_NEST` deep, so a
//! world whose types refer to themselves ends in the unresolved type, not the stack.

use super::{same::same_type, Subst, Val};
use crate::il::{
    fields as F, ConstantKind, Eix, EntryKind, ExprKind, Il, IlError, IntKind, TypeKind,
};
use ahash::AHashMap;

/// Deepest nesting of dependent lookups in one substitution.
pub(super) const MAX_NEST: u32 = 32;

/// Class template specializations by the template's pattern type: what a dependent
/// template-id resolves to.
#[derive(Clone, Debug, Default)]
pub struct Specializations {
    by_pattern: AHashMap<Eix, Vec<Eix>>,
    /// Every class specialization by its template's name (the name before `<`): the
    /// candidates of a template-id made over a specialization where the dump holds no
    /// pattern.
    by_base_name: AHashMap<Vec<u8>, Vec<Eix>>,
}

/// A template-id name's template name: before its first `<`.
fn base_name(n: &[u8]) -> &[u8] {
    &n[..n.iter().position(|&c| c == b'<').unwrap_or(n.len())]
}

impl Specializations {
    /// Indexes every class type with a `template_info` (in type order) under the
    /// pattern of the template it names; one whose template is not recorded (an
    /// explicit specialization an importer met before its template) under the class
    /// template pattern of the same name (`Traits` for `Traits<float>`), when that name
    /// is unique.
    pub fn new(il: &Il) -> Specializations {
        let mut by_name: AHashMap<&[u8], Option<Eix>> = AHashMap::new();
        for tmpl in il.kind_list(EntryKind::Template) {
            if let Some(p) = il.child_eix(tmpl, F::TEMPLATE_PATTERN) {
                if il.kind(p) == EntryKind::Type && il.ty(p).type_kind().is_class() {
                    by_name
                        .entry(il.name(p))
                        .and_modify(|x| {
                            if *x != Some(p) {
                                *x = None
                            }
                        })
                        .or_insert(Some(p));
                }
            }
        }
        let mut by_pattern: AHashMap<Eix, Vec<Eix>> = AHashMap::new();
        let mut by_base_name: AHashMap<Vec<u8>, Vec<Eix>> = AHashMap::new();
        for t in il.kind_list(EntryKind::Type) {
            if !il.ty(t).type_kind().is_class() {
                continue;
            }
            let Some(info) = il.child_eix(t, F::TYPE_TEMPLATE_INFO) else {
                continue;
            };
            by_base_name
                .entry(base_name(il.name(t)).to_vec())
                .or_default()
                .push(t);
            let pattern = match il.ref_eix(info, F::TEMPLATE_INFO_TEMPLATE) {
                Some(tmpl) if il.kind(tmpl) == EntryKind::Template => {
                    il.child_eix(tmpl, F::TEMPLATE_PATTERN)
                }
                _ => by_name.get(base_name(il.name(t))).copied().flatten(),
            };
            match pattern {
                Some(p) if p != t && il.kind(p) == EntryKind::Type => {
                    by_pattern.entry(p).or_default().push(t)
                }
                _ => {}
            }
        }
        Specializations {
            by_pattern,
            by_base_name,
        }
    }

    /// The specializations of the template whose pattern is `pattern`.
    pub fn of(&self, pattern: Eix) -> &[Eix] {
        self.by_pattern.get(&pattern).map_or(&[], |v| v.as_slice())
    }

    /// The candidates of a template-id over `base`: the specializations of the template
    /// whose pattern `base` is, or, when `base` is itself a specialization (the dump
    /// holds no pattern of its template), every specialization of that template's name.
    fn candidates(&self, il: &Il, base: Eix) -> &[Eix] {
        if self.by_pattern.contains_key(&base)
            || il.child_eix(base, F::TYPE_TEMPLATE_INFO).is_none()
        {
            return self.of(base);
        }
        self.by_base_name
            .get(base_name(il.name(base)))
            .map_or(&[], |v| v.as_slice())
    }
}

/// What a template argument is, for matching.
#[derive(Debug, PartialEq)]
enum Arg {
    Type(Eix),
    /// An integral value, and whether it is typed `bool`.
    Value(i128, bool),
    Other,
}

impl Arg {
    /// Two values are one argument: equal, or both of a `bool` the same truth (clang's
    /// dump prints `true` as the 1-bit value -1 in a specialization's arguments).
    fn same_value(&self, other: &Arg) -> bool {
        match (self, other) {
            (Arg::Value(x, bx), Arg::Value(y, by)) => {
                x == y || ((*bx || *by) && (*x != 0) == (*y != 0))
            }
            _ => false,
        }
    }
}

impl Subst<'_> {
    /// Whether `t` is a dependent member type (see the module documentation).
    pub(super) fn is_dependent_member(il: &Il, t: Eix) -> bool {
        il.ty(t).type_kind() == TypeKind::TemplateParam
            && il.child_eix(t, F::TYPE_BASE_TYPE).is_some()
    }

    /// Whether `t` is a dependent template-id (see the module documentation).
    pub(super) fn is_template_id(il: &Il, t: Eix) -> bool {
        il.ty(t).type_kind() == TypeKind::Typeref
            && il.child_eix(t, F::TYPE_TEMPLATE_INFO).is_some()
    }

    /// The type the dependent type `t` names after substitution, if found.
    pub(super) fn resolve_dependent(
        &mut self,
        il: &mut Il,
        t: Eix,
    ) -> Result<Option<Eix>, IlError> {
        if self.dep_nest >= MAX_NEST {
            return Ok(None);
        }
        self.dep_nest += 1;
        let r = if Self::is_dependent_member(il, t) {
            self.resolve_member(il, t)
        } else {
            self.resolve_template_id(il, t)
        };
        self.dep_nest -= 1;
        r
    }

    fn resolve_member(&mut self, il: &mut Il, t: Eix) -> Result<Option<Eix>, IlError> {
        let q = self.subst_type(il, il.child_eix(t, F::TYPE_BASE_TYPE))?;
        let Some(q) = q else { return Ok(None) };
        let class = Self::strip(il, q);
        let name = il.name(t).to_vec();
        // The class's own member types, then its bases' (depth-first, bounded).
        let mut stack = vec![(class, 0u32)];
        while let Some((c, d)) = stack.pop() {
            if il.kind(c) != EntryKind::Type || !il.ty(c).type_kind().is_class() || d > 16 {
                continue;
            }
            if let Some(s) = il.child_eix(c, F::TYPE_SCOPE) {
                if let Some(&m) = il
                    .list_eix(s, F::SCOPE_TYPES)
                    .iter()
                    .find(|&&m| il.name(m) == name.as_slice())
                {
                    return Ok(Some(m));
                }
            }
            for &b in il.list_eix(c, F::TYPE_BASES).iter().rev() {
                if let Some(bt) = il.child_eix(b, F::BASE_CLASS_TYPE) {
                    stack.push((Self::strip(il, bt), d + 1));
                }
            }
        }
        Ok(None)
    }

    fn resolve_template_id(&mut self, il: &mut Il, t: Eix) -> Result<Option<Eix>, IlError> {
        let (Some(pattern), Some(info), Some(specs)) = (
            il.child_eix(t, F::TYPE_BASE_TYPE),
            il.child_eix(t, F::TYPE_TEMPLATE_INFO),
            self.specializations,
        ) else {
            return Ok(None);
        };
        let written: Vec<Eix> = il.list_eix(info, F::TEMPLATE_INFO_ARGS).to_vec();
        let mut args = Vec::with_capacity(written.len());
        for a in written {
            let arg = match il.kind(a) {
                EntryKind::Type => match self.subst_type(il, Some(a))? {
                    Some(x) => Arg::Type(x),
                    None => Arg::Other,
                },
                EntryKind::Constant => {
                    let c = if il.constant(a).constant_kind() == ConstantKind::TemplateParam {
                        match self.subst_bound(il, a) {
                            Ok(c) => c,
                            // A parameter of an enclosing template this substitution
                            // does not bind: the template-id stays dependent.
                            Err(IlError::Assert(m)) if m == super::constants::NO_VALUE => {
                                return Ok(None)
                            }
                            Err(e) => return Err(e),
                        }
                    } else {
                        a
                    };
                    Self::arg_value(il, c)
                }
                _ => Arg::Other,
            };
            args.push(arg);
        }
        let cands = specs.candidates(il, pattern);
        // The specialization whose arguments are the substituted ones; else the only one
        // whose leading arguments are (the rest defaulted: `std::vector<T>` names
        // `vector<T, allocator<T>>`).
        let mut prefixed = None;
        for &s in cands {
            let Some(si) = il.child_eix(s, F::TYPE_TEMPLATE_INFO) else {
                continue;
            };
            let n = il.list_eix(si, F::TEMPLATE_INFO_ARGS).len();
            if n < args.len() || !Self::args_match(il, &args, si) {
                continue;
            }
            if n == args.len() {
                return Ok(Some(s));
            }
            prefixed = match prefixed {
                None => Some(Some(s)),
                Some(_) => Some(None),
            };
        }
        Ok(prefixed.flatten())
    }

    /// Whether the leading arguments of template info `si` are `args`.
    fn args_match(il: &Il, args: &[Arg], si: Eix) -> bool {
        let theirs = il.list_eix(si, F::TEMPLATE_INFO_ARGS);
        args.iter()
            .zip(theirs)
            .all(|(ours, &b)| match (ours, il.kind(b)) {
                (Arg::Type(x), EntryKind::Type) => same_type(il, Some(*x), Some(b)),
                (Arg::Value(..), EntryKind::Constant) => ours.same_value(&Self::arg_value(il, b)),
                (Arg::Value(..), EntryKind::ExprNode) => {
                    il.expr(b).expr_kind() == ExprKind::Constant
                        && il
                            .child_eix(b, F::EXPR_NODE_CONSTANT)
                            .is_some_and(|c| ours.same_value(&Self::arg_value(il, c)))
                }
                _ => false,
            })
    }

    fn arg_value(il: &Il, c: Eix) -> Arg {
        let is_bool = il
            .child_eix(c, F::CONSTANT_TYPE)
            .map(|t| crate::il::kinds::strip_typerefs(il, t))
            .and_then(|t| il.as_ty(t))
            .is_some_and(|x| x.type_kind() == TypeKind::Integer && x.int_kind() == IntKind::Bool);
        match Self::value_of_constant(il, c) {
            Some(Val::Int(v)) => Arg::Value(v, is_bool),
            _ => Arg::Other,
        }
    }
}
