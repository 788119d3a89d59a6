//! Substitution against recorded instantiations: for every function and class template
//! instantiation a front end recorded in the IL (an entry whose `template_info` names a
//! template with a pattern), substitutes the instantiation's arguments into the pattern
//! with [`Subst`] and compares the result with the instantiation the front end made:
//!
//! - (a) every substituted non-type parameter (an operation node of op
//!   [`Op::SubstNttp`] whose `entity` is the parameter and whose operand is the front
//!   end's replacement): the value and type [`Subst::copy_template_param_value_expr`]
//!   gives a reference to the parameter, after folding and conversion to the substituted
//!   parameter type;
//! - (b) the declaration types: return and parameter types of routines, field types and
//!   member typedef definitions of classes, local variable types of bodies
//!   ([`Subst::subst_type`]; a member typedef of the class being instantiated names the
//!   instance's typedef of that name, a member of the current instantiation): array bounds that
//!   are expressions fold after substitution, dependent member types and template-ids
//!   resolve in the world's specializations ([`Specializations`]), and an `auto` local
//!   takes its initializer's type (deduction) before substitution. Every declaration is
//!   compared (a local of an `if constexpr` branch the instance discarded has nothing
//!   to be compared with and is counted apart);
//! - (c) whole bodies: each expression of the pattern's body, substituted, against the
//!   expression at the same place in the instantiation's body, with
//!   [`crate::compare::compare_expressions`] (substituting [`Subst::unfolded`], as clang
//!   records) after both sides drop the conversions a pattern cannot hold (lvalue-to-
//!   rvalue, no-op, decay and arithmetic conversions of dependent operands; an integral
//!   conversion of an integer constant is folded into it, and `&f` equals the address
//!   constant of `f`); the pattern's parameters, locals, routine and class members are
//!   mapped to the instance's ([`Subst::map_entity`]). A pattern body holding a
//!   dependent name lookup, an expression the instance resolved to an overloaded
//!   operator, a constructor or a conversion function, or a builtin call the instance
//!   checked against the builtin's prototype, is out of scope: which function is called
//!   is overload resolution, the front end's business.
//!
//! A class instantiation of a template with partial specializations is checked against
//! the partial specialization it came from, recognised by deduction and partial
//! ordering ([`partial`]; clang's JSON names only the primary template). A parameter
//! pack binds the pack argument's elements (the importer records a pack argument as a
//! template info listing them); an instantiation of a function template with a
//! parameter pack is set aside (its pattern's function parameter pack would have to be
//! expanded to the instance's parameters).
//!
//! Every comparison lands in a [`Tally`]: agreements, differences by named class, and
//! cases out of scope by named class. Nothing is printed; the CLI prints the report.
//!
//! # Invariants and cost
//! The check allocates the substituted copies in the world it is given (constants go
//! through a fresh [`ConstantSharing`]); the world's existing entries are not changed.
//! Time is linear in the instantiations' sizes; all walks use explicit stacks.

use super::same::{designated, same_type, same_type_with, strip};
use super::{partial, Binding, DataModel, Specializations, Subst, TemplateArgs};
use crate::il::kinds::rf;
use crate::il::{
    fields as F, AddressKind, CastKind, ConstantKind, Eix, EntryKind, ExprKind, Il, IlError, Op,
    StmtKind, TemplateKind, TemplateParamKind, TypeKind,
};
use crate::share::ConstantSharing;
use ahash::{AHashMap, AHashSet};
use std::collections::BTreeMap;

/// Agreement counts of one part of the check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Items compared.
    pub checked: u64,
    /// Items where substitution agrees with the recorded instantiation.
    pub agree: u64,
    /// Disagreements, by class.
    pub differences: BTreeMap<&'static str, u64>,
    /// Items not compared, by the reason they are out of scope.
    pub out_of_scope: BTreeMap<&'static str, u64>,
}

impl Tally {
    fn agree(&mut self) {
        self.checked += 1;
        self.agree += 1;
    }

    fn differ(&mut self, class: &'static str) {
        self.checked += 1;
        *self.differences.entry(class).or_default() += 1;
    }

    fn skip(&mut self, class: &'static str) {
        *self.out_of_scope.entry(class).or_default() += 1;
    }

    fn record(&mut self, r: Result<(), Outcome>) {
        match r {
            Ok(()) => self.agree(),
            Err(Outcome::Differ(c)) => self.differ(c),
            Err(Outcome::Skip(c)) => self.skip(c),
        }
    }

    /// Agreements over compared items, in percent (100 when nothing was compared).
    pub fn percent(&self) -> f64 {
        if self.checked == 0 {
            100.0
        } else {
            self.agree as f64 * 100.0 / self.checked as f64
        }
    }

    /// Adds `o`'s counts to these.
    pub fn add(&mut self, o: &Tally) {
        self.checked += o.checked;
        self.agree += o.agree;
        for (k, v) in &o.differences {
            *self.differences.entry(k).or_default() += v;
        }
        for (k, v) in &o.out_of_scope {
            *self.out_of_scope.entry(k).or_default() += v;
        }
    }
}

/// The result of [`check_instantiations`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstantiationReport {
    /// Routine instantiations (function templates and members of class templates)
    /// paired with their pattern.
    pub routines: u64,
    /// Class template instantiations paired with their pattern.
    pub classes: u64,
    /// Instantiations left out whole, by reason (their items are not counted below).
    pub instantiations_out_of_scope: BTreeMap<&'static str, u64>,
    /// (a) substituted non-type template parameters: value and type.
    pub nttp: Tally,
    /// (b) declaration types: returns, parameters, fields, locals.
    pub decl_types: Tally,
    /// (c) whole bodies.
    pub bodies: Tally,
}

enum Outcome {
    Differ(&'static str),
    Skip(&'static str),
}

// Difference and out-of-scope classes (the names the report prints).
const PACK: &str = "parameter pack";
const ARG_COUNT: &str = "argument count differs from parameter count";
const TEMPLATE_TEMPLATE: &str = "template template parameter";
const EXPR_ARG: &str = "non-type argument that is not a constant or a declaration";
const PARTIAL: &str =
    "partial specialization not recognised (no partial specialization's arguments match, yet the fields are not the primary's)";
const DECLARED_ONLY: &str =
    "class specialization declared only (clang instantiated no definition: nothing to compare)";
const AMBIGUOUS: &str =
    "several partial specializations match and none is more specialized than the others";
const DEPENDENT_TYPE: &str =
    "dependent type the importer keeps unresolved (decltype, a builtin template, `auto` without an initializer type)";
const UNBOUND: &str = "template parameter left unbound";
const SPEC_NAMED: &str = "class template specialization named through parameters";
const ARRAY_BOUND: &str = "array bound";
const CONCRETE_PATTERN: &str =
    "pattern type holds no parameter (the importer resolved a dependent spelling to a concrete type)";
const INSTANCE_PARAM: &str =
    "instance type holds a template parameter (the importer left it unresolved)";
const INJECTED: &str =
    "instance spells the injected class name (the importer resolves it to the pattern)";
const DEPENDENT_BOUND: &str =
    "array bound is an expression the importer could not read (a cast, sizeof, a call, a qualified name)";
const UNFOLDED_BOUND: &str = "array bound does not fold to a value after substitution";
const SPEC_RESOLVED: &str =
    "pattern names another specialization of the template (the importer resolved a dependent template-id)";
const TYPE_OTHER: &str = "type differs";
const PARAM_COUNT: &str = "parameter count differs";
const PACKS: &str = "several function parameter packs";
const LOCALS: &str = "local variables differ";
const NO_PARAM: &str = "substituted parameter not recorded";
const VALUE: &str = "value differs";
const NTTP_TYPE: &str = "type of the value differs";
const NOT_CONST: &str = "replacement is not a constant";
const DEPENDENT_LOOKUP: &str = "dependent name lookup (overload resolution)";
const NO_BODY: &str = "no body";
const FOLD: &str = "fold expression (clang's JSON does not record its operator)";
const SHAPE: &str = "statement structure differs";
const EXPR_DIFF: &str = "expression differs";
const LAMBDA: &str = "lambda in body";
const OVERLOADED: &str =
    "instance calls an overloaded operator, constructor or conversion function (overload resolution)";
const BUILTIN: &str = "instance checks a builtin call against the builtin's prototype (clang's own; overload resolution for `__builtin_operator_new`/`delete`)";
const DISCARDED: &str = "local of a discarded branch (if constexpr), not in the instantiation";
const OTHER_TEMPLATE: &str =
    "a parameter of another template (a callee's default argument, a nested template), substituted where clang used it";
const OUTSIDE: &str = "outside the bodies of paired routine instantiations";

/// One instantiation paired with its pattern.
struct Pair {
    pattern: Eix,
    instance: Eix,
    args: TemplateArgs,
    /// The enclosing class instantiation's members: (pattern's, instance's).
    members: Vec<(Eix, Eix)>,
    /// The template parameters the arguments bind: the routine template's and the
    /// enclosing class template's.
    params: Vec<Eix>,
}

/// What the check knows of the world's templates.
struct Index {
    /// Template parameter types by name (the clang importer interns them by name).
    tparam_types: AHashMap<Vec<u8>, Vec<Eix>>,
    /// The class type whose scope lists a routine.
    class_of: AHashMap<Eix, Eix>,
    /// Partial specializations (template kind 6) by name.
    partials: AHashMap<Vec<u8>, Vec<Eix>>,
    /// The patterns of partial specializations (not instantiations themselves).
    partial_patterns: AHashSet<Eix>,
    /// The scope whose types list holds a type (a partial specialization belongs to the
    /// primary template declared in its scope).
    scope_of_type: AHashMap<Eix, Eix>,
    /// Types that are the pattern of a class template.
    class_patterns: AHashSet<Eix>,
    /// The `bool` type, if the world has one (C++).
    bool_type: Option<Eix>,
    /// The `long` type (`ptrdiff_t` on the LP64 data model), if the world has one.
    long_type: Option<Eix>,
    /// Class template specializations (dependent template-ids resolve to them).
    specs: Specializations,
}

impl Index {
    fn new(il: &Il) -> Index {
        let mut tparam_types: AHashMap<Vec<u8>, Vec<Eix>> = AHashMap::new();
        let mut class_of = AHashMap::new();
        for t in il.kind_list(EntryKind::Type) {
            let k = il.ty(t).type_kind();
            if k == TypeKind::TemplateParam && il.child_eix(t, F::TYPE_BASE_TYPE).is_none() {
                // (A parameter; one with a base type is a dependent member type.)
                tparam_types.entry(il.name(t).to_vec()).or_default().push(t);
            } else if k.is_class() {
                if let Some(s) = il.child_eix(t, F::TYPE_SCOPE) {
                    for &r in il.list_eix(s, F::SCOPE_ROUTINES) {
                        class_of.entry(r).or_insert(t);
                    }
                }
            }
        }
        let mut partials: AHashMap<Vec<u8>, Vec<Eix>> = AHashMap::new();
        let mut partial_patterns = AHashSet::new();
        let mut class_patterns = AHashSet::new();
        for t in il.kind_list(EntryKind::Template) {
            if il.template(t).template_kind() == TemplateKind::PartialSpecialization {
                partials.entry(il.name(t).to_vec()).or_default().push(t);
                partial_patterns.extend(il.child_eix(t, F::TEMPLATE_PATTERN));
            }
            if let Some(p) = il.child_eix(t, F::TEMPLATE_PATTERN) {
                if il.kind(p) == EntryKind::Type {
                    class_patterns.insert(p);
                }
            }
        }
        let int_named = |name: &[u8]| {
            il.kind_list(EntryKind::Type)
                .find(|&t| il.ty(t).type_kind() == TypeKind::Integer && il.name(t) == name)
        };
        let mut scope_of_type = AHashMap::new();
        for sc in il.kind_list(EntryKind::Scope) {
            for &t in il.list_eix(sc, F::SCOPE_TYPES) {
                scope_of_type.entry(t).or_insert(sc);
            }
        }
        Index {
            scope_of_type,
            specs: Specializations::new(il),
            bool_type: int_named(b"bool"),
            long_type: int_named(b"long"),
            tparam_types,
            class_of,
            partials,
            partial_patterns,
            class_patterns,
        }
    }
}

/// Checks ilkit's substitution against every instantiation recorded in `il` (see the
/// module documentation): (a) substituted non-type parameters, (b) declaration types,
/// (c) bodies.
///
/// # Errors
/// Stale entries or allocation failures while substituting; a world that passes
/// [`Il::verify`] gives none.
pub fn check_instantiations(il: &mut Il) -> Result<InstantiationReport, IlError> {
    let ix = Index::new(il);
    let mut rep = InstantiationReport::default();
    let mut sharing = ConstantSharing::new();
    let mut routine_pairs: Vec<Pair> = Vec::new();
    let mut class_args: AHashMap<Eix, TemplateArgs> = AHashMap::new();
    let mut class_members: AHashMap<Eix, Vec<(Eix, Eix)>> = AHashMap::new();
    let mut class_params: AHashMap<Eix, Vec<Eix>> = AHashMap::new();
    // Class template instantiations.
    let types: Vec<Eix> = il.kind_list(EntryKind::Type).collect();
    for s in types {
        if !il.ty(s).type_kind().is_class() {
            continue;
        }
        let Some((tmpl, pattern, info)) = instance_of(il, il.child_eix(s, F::TYPE_TEMPLATE_INFO))
        else {
            continue;
        };
        if il.kind(pattern) != EntryKind::Type || pattern == s || ix.partial_patterns.contains(&s) {
            continue;
        }
        if !il.ty(s).is_defined() {
            // Named, never instantiated: clang declared the specialization only.
            *rep.instantiations_out_of_scope
                .entry(DECLARED_ONLY)
                .or_default() += 1;
            continue;
        }
        let (tmpl, pattern, bound) = match which_specialization(il, &ix, tmpl, info) {
            Ok(Some((spec, deduced))) => {
                let params = il.list_eix(spec, F::TEMPLATE_PARAMS).to_vec();
                let pattern = il.child_eix(spec, F::TEMPLATE_PATTERN).unwrap_or(pattern);
                (spec, pattern, bind_list(il, &ix, &params, &deduced, None)?)
            }
            Ok(None) => (tmpl, pattern, bind(il, &ix, tmpl, info, None)?),
            Err(why) => (tmpl, pattern, Err(why)),
        };
        let args = match bound {
            Ok(a) => a,
            Err(why) => {
                *rep.instantiations_out_of_scope.entry(why).or_default() += 1;
                continue;
            }
        };
        let pf: Vec<Eix> = il.list_eix(pattern, F::TYPE_FIELDS).to_vec();
        let sf: Vec<Eix> = il.list_eix(s, F::TYPE_FIELDS).to_vec();
        let names = |v: &[Eix]| v.iter().map(|&f| il.name(f).to_vec()).collect::<Vec<_>>();
        if ix.partials.contains_key(il.name(tmpl)) && names(&pf) != names(&sf) {
            *rep.instantiations_out_of_scope.entry(PARTIAL).or_default() += 1;
            continue;
        }
        rep.classes += 1;
        let mut args = args;
        // The injected class name: the pattern stands for this instance; and so do its
        // member typedefs (a member of the current instantiation names the instance's).
        args.bind_type(il.id_of(pattern), Binding::Type(il.id_of(s)));
        let typedefs = member_typedefs(il, pattern, s);
        for &(a, b) in &typedefs {
            args.bind_type(il.id_of(a), Binding::Type(il.id_of(b)));
        }
        class_args.insert(s, args.clone());
        class_params.insert(s, il.list_eix(tmpl, F::TEMPLATE_PARAMS).to_vec());
        let mut subst = Subst::new(il, &args, DataModel::default(), &mut sharing)?;
        subst.specializations = Some(&ix.specs);
        // Each member typedef's definition, substituted against the instance's.
        for &(a, b) in &typedefs {
            let (ta, tb) = (
                il.child_eix(a, F::TYPE_BASE_TYPE),
                il.child_eix(b, F::TYPE_BASE_TYPE),
            );
            let r = check_type(il, &ix, &mut subst, ta, tb)?;
            rep.decl_types.record(r);
        }
        // Fields by name.
        for &f in &sf {
            let Some(&p) = pf.iter().find(|&&p| il.name(p) == il.name(f)) else {
                rep.decl_types.differ(TYPE_OTHER);
                continue;
            };
            let (pt, it) = (
                il.child_eix(p, F::FIELD_TYPE),
                il.child_eix(f, F::FIELD_TYPE),
            );
            let r = check_type(il, &ix, &mut subst, pt, it)?;
            rep.decl_types.record(r);
        }
        // Member routines without arguments of their own: the pattern's routine of the
        // same name and parameter count.
        let (Some(ps), Some(ss)) = (
            il.child_eix(pattern, F::TYPE_SCOPE),
            il.child_eix(s, F::TYPE_SCOPE),
        ) else {
            continue;
        };
        let mut used = AHashSet::new();
        let mut members: Vec<(Eix, Eix)> = Vec::new();
        for &f in &sf {
            if let Some(&p) = pf.iter().find(|&&p| il.name(p) == il.name(f)) {
                members.push((p, f));
            }
        }
        let first_pair = routine_pairs.len();
        for &r in il.list_eix(ss, F::SCOPE_ROUTINES) {
            if il.child_eix(r, F::ROUTINE_TEMPLATE_INFO).is_some()
                || il.routine(r).decl_flags() & rf::IMPLICIT != 0
            {
                continue;
            }
            let n = il.list_eix(r, F::ROUTINE_PARAMS).len();
            let found = il
                .list_eix(ps, F::SCOPE_ROUTINES)
                .iter()
                .copied()
                .find(|&p| {
                    !used.contains(&p)
                        && il.name(p) == il.name(r)
                        && il.list_eix(p, F::ROUTINE_PARAMS).len() == n
                });
            if let Some(p) = found {
                used.insert(p);
                members.push((p, r));
                routine_pairs.push(Pair {
                    pattern: p,
                    instance: r,
                    args: args.clone(),
                    members: Vec::new(),
                    params: il.list_eix(tmpl, F::TEMPLATE_PARAMS).to_vec(),
                });
            }
        }
        for pair in &mut routine_pairs[first_pair..] {
            pair.members = members.clone();
        }
        class_members.insert(s, members);
    }
    // Function template instantiations (members of class instantiations take the
    // class's arguments too).
    let routines: Vec<Eix> = il.kind_list(EntryKind::Routine).collect();
    for r in routines {
        let Some((tmpl, pattern, info)) =
            instance_of(il, il.child_eix(r, F::ROUTINE_TEMPLATE_INFO))
        else {
            continue;
        };
        if il.kind(pattern) != EntryKind::Routine || pattern == r {
            continue;
        }
        let class = ix.class_of.get(&r);
        let outer = class.and_then(|c| class_args.get(c));
        match bind(il, &ix, tmpl, info, outer)? {
            Ok(args) => {
                let mut params = il.list_eix(tmpl, F::TEMPLATE_PARAMS).to_vec();
                params.extend(
                    class
                        .and_then(|c| class_params.get(c))
                        .into_iter()
                        .flatten(),
                );
                routine_pairs.push(Pair {
                    pattern,
                    instance: r,
                    args,
                    members: class
                        .and_then(|c| class_members.get(c))
                        .cloned()
                        .unwrap_or_default(),
                    params,
                })
            }
            Err(why) => *rep.instantiations_out_of_scope.entry(why).or_default() += 1,
        }
    }
    rep.routines = routine_pairs.len() as u64;
    let all = il
        .kind_list(EntryKind::ExprNode)
        .filter(|&e| is_subst_nttp(il, e))
        .count() as u64;
    for pair in &routine_pairs {
        check_routine(il, &ix, pair, &mut sharing, &mut rep)?;
    }
    // Substituted parameters outside every paired routine body.
    let seen = rep.nttp.checked + rep.nttp.out_of_scope.values().sum::<u64>();
    if all > seen {
        *rep.nttp.out_of_scope.entry(OUTSIDE).or_default() += all - seen;
    }
    Ok(rep)
}

/// The template, its pattern and the info of an instantiation's `template_info`.
fn instance_of(il: &Il, info: Option<Eix>) -> Option<(Eix, Eix, Eix)> {
    let info = info?;
    let tmpl = il.ref_eix(info, F::TEMPLATE_INFO_TEMPLATE)?;
    if il.kind(tmpl) != EntryKind::Template {
        return None;
    }
    let pattern = il.child_eix(tmpl, F::TEMPLATE_PATTERN)?;
    Some((tmpl, pattern, info))
}

/// The arguments of `info` bound to `tmpl`'s parameters (by depth and position, and
/// type parameters by their type entries), on top of `outer`; or why not.
fn bind(
    il: &mut Il,
    ix: &Index,
    tmpl: Eix,
    info: Eix,
    outer: Option<&TemplateArgs>,
) -> Result<Result<TemplateArgs, &'static str>, IlError> {
    let params: Vec<Eix> = il.list_eix(tmpl, F::TEMPLATE_PARAMS).to_vec();
    let args: Vec<Eix> = il.list_eix(info, F::TEMPLATE_INFO_ARGS).to_vec();
    bind_list(il, ix, &params, &args, outer)
}

/// The partial specialization of `tmpl` the instantiation with template info `info`
/// comes from, with the arguments deduced for its parameters ([`partial::deduce`]);
/// `None` when `tmpl` has none that matches (the primary template's pattern stands);
/// why not when several match.
fn which_specialization(
    il: &Il,
    ix: &Index,
    tmpl: Eix,
    info: Eix,
) -> Result<Option<(Eix, Vec<Eix>)>, &'static str> {
    let Some(specs) = ix.partials.get(il.name(tmpl)) else {
        return Ok(None);
    };
    let args = il.list_eix(info, F::TEMPLATE_INFO_ARGS);
    // The partial specializations declared where the primary template is (another
    // template of the same name elsewhere is not this one's): in the same scope when
    // the world says, and at the same template depth.
    let scope = |t: Eix| {
        il.child_eix(t, F::TEMPLATE_PATTERN)
            .and_then(|p| ix.scope_of_type.get(&p).copied())
    };
    let depth = |t: Eix| {
        il.list_eix(t, F::TEMPLATE_PARAMS)
            .first()
            .map(|&p| il.template_param(p).depth())
    };
    let (home, home_depth) = (scope(tmpl), depth(tmpl));
    let found: Vec<(Eix, Vec<Eix>)> = specs
        .iter()
        .filter(|&&spec| home.is_none() || scope(spec).is_none() || scope(spec) == home)
        .filter(|&&spec| home_depth.is_none() || depth(spec).is_none() || depth(spec) == home_depth)
        .filter_map(|&spec| match partial::deduce(il, spec, args) {
            partial::Match::Deduced(v) => Some((spec, v)),
            partial::Match::No => None,
        })
        .collect();
    if found.len() < 2 {
        return Ok(found.into_iter().next());
    }
    // Partial ordering: the one at least as specialized as every other.
    let mut best = found.iter().filter(|(a, _)| {
        found
            .iter()
            .all(|(b, _)| a == b || partial::at_least_as_specialized(il, *a, *b))
    });
    match (best.next(), best.next()) {
        (Some(m), None) => Ok(Some(m.clone())),
        _ => Err(AMBIGUOUS),
    }
}

/// The arguments `args` bound to the parameters `params` (by depth and position, and
/// type parameters by their type entries), on top of `outer`; or why not.
fn bind_list(
    il: &mut Il,
    ix: &Index,
    params: &[Eix],
    args: &[Eix],
    outer: Option<&TemplateArgs>,
) -> Result<Result<TemplateArgs, &'static str>, IlError> {
    let mut out = outer.cloned().unwrap_or_default();
    if params.len() != args.len() {
        return Ok(Err(ARG_COUNT));
    }
    for (&p, &a) in params.iter().zip(args) {
        let tp = il.template_param(p);
        let (d, pos, pk, is_pack) = (tp.depth(), tp.position(), tp.param_kind(), tp.is_pack());
        let b = if is_pack {
            // A pack: the importer records its elements in a template info of their own.
            if il.kind(a) != EntryKind::TemplateInfo {
                return Ok(Err(PACK));
            }
            let elems = il.list_eix(a, F::TEMPLATE_INFO_ARGS).to_vec();
            let mut v = Vec::with_capacity(elems.len());
            for x in elems {
                match arg_binding(il, pk, x)? {
                    Ok(b) => v.push(b),
                    Err(why) => return Ok(Err(why)),
                }
            }
            Binding::Pack(v)
        } else {
            match arg_binding(il, pk, a)? {
                Ok(b) => b,
                Err(why) => return Ok(Err(why)),
            }
        };
        if pk == TemplateParamKind::Type {
            let canonical = format!("type-parameter-{d}-{pos}").into_bytes();
            for name in [il.name(p).to_vec(), canonical] {
                for &t in ix.tparam_types.get(&name).into_iter().flatten() {
                    out.bind_type(il.id_of(t), b.clone());
                }
            }
        }
        out.bind(d, pos, b);
    }
    Ok(Ok(out))
}

/// The binding of one argument `a` of a parameter of kind `pk`, or why not.
fn arg_binding(
    il: &mut Il,
    pk: TemplateParamKind,
    a: Eix,
) -> Result<Result<Binding, &'static str>, IlError> {
    Ok(Ok(match (pk, il.kind(a)) {
        (TemplateParamKind::Type, EntryKind::Type) => Binding::Type(il.id_of(a)),
        (TemplateParamKind::NonType, EntryKind::Constant) => Binding::Value(il.id_of(a)),
        (TemplateParamKind::NonType, EntryKind::ExprNode) => match value_arg(il, a)? {
            Some(c) => Binding::Value(il.id_of(c)),
            None => return Ok(Err(EXPR_ARG)),
        },
        (TemplateParamKind::Template, _) => return Ok(Err(TEMPLATE_TEMPLATE)),
        _ => return Ok(Err(EXPR_ARG)),
    }))
}

/// The constant a non-type argument given as an expression stands for: its constant, or
/// the address of the routine or variable it names (an address constant of
/// [`AddressKind::Routine`](crate::il::AddressKind::Routine)).
fn value_arg(il: &mut Il, a: Eix) -> Result<Option<Eix>, IlError> {
    let x = il.expr(a);
    match x.expr_kind() {
        ExprKind::Constant => Ok(il.child_eix(a, F::EXPR_NODE_CONSTANT)),
        ExprKind::Routine | ExprKind::Variable => {
            let Some(target) = il.ref_eix(a, F::EXPR_NODE_ENTITY) else {
                return Ok(None);
            };
            let c = il.alloc_local_constant(ConstantKind::Address)?;
            il.set_child(c, F::CONSTANT_OPERAND, Some(il.id_of(target)))?;
            Ok(Some(il.eix(c)?))
        }
        _ => Ok(None),
    }
}

/// The member typedefs of class template `pattern` with their counterparts of the same
/// name in its instance `inst` (typerefs declared in each class's scope).
fn member_typedefs(il: &Il, pattern: Eix, inst: Eix) -> Vec<(Eix, Eix)> {
    let (Some(ps), Some(ss)) = (
        il.child_eix(pattern, F::TYPE_SCOPE),
        il.child_eix(inst, F::TYPE_SCOPE),
    ) else {
        return Vec::new();
    };
    let typedefs = |scope: Eix| -> Vec<Eix> {
        il.list_eix(scope, F::SCOPE_TYPES)
            .iter()
            .copied()
            .filter(|&t| {
                il.ty(t).type_kind() == TypeKind::Typeref
                    && !il.name(t).is_empty()
                    && il.child_eix(t, F::TYPE_BASE_TYPE).is_some()
            })
            .collect()
    };
    let theirs = typedefs(ss);
    typedefs(ps)
        .into_iter()
        .filter_map(|a| {
            theirs
                .iter()
                .find(|&&b| il.name(b) == il.name(a))
                .map(|&b| (a, b))
        })
        .filter(|&(a, b)| a != b)
        .collect()
}

/// (a), (b) and (c) for one routine pair.
fn check_routine(
    il: &mut Il,
    ix: &Index,
    pair: &Pair,
    sharing: &mut ConstantSharing,
    rep: &mut InstantiationReport,
) -> Result<(), IlError> {
    let (p, r) = (pair.pattern, pair.instance);
    let mut subst = Subst::new(il, &pair.args, DataModel::default(), sharing)?;
    // C++: comparisons give bool.
    subst.bool_type = ix.bool_type;
    if let Some(l) = ix.long_type {
        subst.ptrdiff_type = l;
    }
    subst.specializations = Some(&ix.specs);
    // The instance's declarations stand for the pattern's: the routine itself, the
    // class's members, parameters and locals (below).
    subst.map_entity(p, r);
    for &(a, b) in &pair.members {
        subst.map_entity(a, b);
    }
    // (b) return and parameter types.
    let (pr, rr) = (
        il.child_eix(p, F::ROUTINE_RETURN_TYPE),
        il.child_eix(r, F::ROUTINE_RETURN_TYPE),
    );
    let res = check_type(il, ix, &mut subst, pr, rr)?;
    rep.decl_types.record(res);
    let pp: Vec<Eix> = il.list_eix(p, F::ROUTINE_PARAMS).to_vec();
    let rp: Vec<Eix> = il.list_eix(r, F::ROUTINE_PARAMS).to_vec();
    match param_pairs(il, &pp, &rp) {
        Err(PACKS) => rep.decl_types.skip(PACKS),
        Err(why) => rep.decl_types.differ(why),
        Ok(pairs) => {
            for (a, expanded) in pairs {
                match expanded {
                    Expanded::One(b) => {
                        subst.map_entity(a, b);
                        let res = check_param_type(il, ix, &mut subst, a, b)?;
                        rep.decl_types.record(res);
                    }
                    Expanded::Pack(bs) => {
                        // A function parameter pack: its type once per element.
                        subst.map_entity_pack(a, bs.clone());
                        for (i, b) in bs.into_iter().enumerate() {
                            subst.set_pack_index(Some(i));
                            let res = check_param_type(il, ix, &mut subst, a, b);
                            subst.set_pack_index(None);
                            rep.decl_types.record(res?);
                        }
                    }
                }
            }
        }
    }
    let pscope = il.child_eix(p, F::ROUTINE_BODY_SCOPE);
    let rscope = il.child_eix(r, F::ROUTINE_BODY_SCOPE);
    let (Some(ps), Some(rs)) = (pscope, rscope) else {
        if rscope.is_some() {
            rep.bodies.skip(NO_BODY);
        }
        return Ok(());
    };
    // (b) local variables: each of the instance's, in declaration order, with the next
    // pattern local of its name (locals of an `if constexpr` branch the instantiation
    // discarded have no counterpart).
    let pv: Vec<Eix> = il.list_eix(ps, F::SCOPE_VARIABLES).to_vec();
    let rv: Vec<Eix> = il.list_eix(rs, F::SCOPE_VARIABLES).to_vec();
    let mut next = 0;
    let mut pairs = Vec::with_capacity(rv.len());
    for &b in &rv {
        match pv[next..].iter().position(|&a| il.name(a) == il.name(b)) {
            Some(k) => {
                pairs.push((pv[next + k], b));
                next += k + 1;
            }
            None => {
                pairs.clear();
                break;
            }
        }
    }
    if pairs.len() != rv.len() {
        rep.decl_types.differ(LOCALS);
    } else {
        for _ in 0..pv.len() - pairs.len() {
            rep.decl_types.skip(DISCARDED);
        }
        for (a, b) in pairs {
            subst.map_entity(a, b);
            let tb = il.child_eix(b, F::VARIABLE_TYPE);
            let res = match bound_from_initializer(il, &mut subst, a)? {
                Some(ours) if same_type(il, Some(ours), tb) => Ok(()),
                Some(_) => Err(Outcome::Differ(UNFOLDED_BOUND)),
                None => {
                    let ta = deduced_type(il, a);
                    check_type(il, ix, &mut subst, ta, tb)?
                }
            };
            rep.decl_types.record(res);
        }
    }
    // (a) substituted non-type parameters of the instantiation's body.
    for x in body_exprs(il, rs) {
        if is_subst_nttp(il, x) {
            let res = check_nttp(il, &mut subst, &pair.params, x)?;
            rep.nttp.record(res);
        }
    }
    // (c) the whole body.
    let (Some(pb), Some(rb)) = (
        il.child_eix(ps, F::SCOPE_BLOCK),
        il.child_eix(rs, F::SCOPE_BLOCK),
    ) else {
        rep.bodies.skip(NO_BODY);
        return Ok(());
    };
    // clang records bodies unfolded.
    subst.unfolded = true;
    let res = check_body(il, &mut subst, ps, pb, rb)?;
    rep.bodies.record(res);
    Ok(())
}

/// What a pattern's function parameter became in the instance.
enum Expanded {
    /// One parameter.
    One(Eix),
    /// A function parameter pack: the parameters it expanded to.
    Pack(Vec<Eix>),
}

/// The pattern's parameters `pp` with the instance's `rp` they became: in order, a
/// function parameter pack taking as many as the instance has beyond the pattern's
/// other parameters ([temp.deduct.call]: the pack is the last; one pack at most is
/// paired); or why not.
fn param_pairs(il: &Il, pp: &[Eix], rp: &[Eix]) -> Result<Vec<(Eix, Expanded)>, &'static str> {
    let packs: Vec<usize> = (0..pp.len())
        .filter(|&k| il.param_type(pp[k]).is_pack())
        .collect();
    match packs[..] {
        [] if pp.len() == rp.len() => Ok(pp
            .iter()
            .zip(rp)
            .map(|(&a, &b)| (a, Expanded::One(b)))
            .collect()),
        [k] if rp.len() + 1 >= pp.len() => {
            let n = rp.len() + 1 - pp.len();
            let mut out: Vec<(Eix, Expanded)> = Vec::with_capacity(pp.len());
            out.extend(pp[..k].iter().zip(rp).map(|(&a, &b)| (a, Expanded::One(b))));
            out.push((pp[k], Expanded::Pack(rp[k..k + n].to_vec())));
            out.extend(
                pp[k + 1..]
                    .iter()
                    .zip(&rp[k + n..])
                    .map(|(&a, &b)| (a, Expanded::One(b))),
            );
            Ok(out)
        }
        [_, _, ..] => Err(PACKS),
        _ => Err(PARAM_COUNT),
    }
}

/// (b) for one parameter: the pattern parameter `a`'s type substituted against the
/// instance parameter `b`'s.
fn check_param_type(
    il: &mut Il,
    ix: &Index,
    subst: &mut Subst<'_>,
    a: Eix,
    b: Eix,
) -> Result<Result<(), Outcome>, IlError> {
    let (ta, tb) = (
        il.child_eix(a, F::PARAM_TYPE_TYPE),
        il.child_eix(b, F::PARAM_TYPE_TYPE),
    );
    check_type(il, ix, subst, ta, tb)
}

/// How many expression nodes of the tree at `e` satisfy `pred` (a bounded walk).
fn count_nodes(il: &Il, e: Eix, pred: impl Fn(Eix) -> usize) -> usize {
    let mut stack = vec![e];
    let (mut n, mut found) = (0, 0);
    while let Some(x) = stack.pop() {
        n += 1;
        if n > 1 << 20 || il.kind(x) != EntryKind::ExprNode {
            continue;
        }
        found += pred(x);
        stack.extend(il.list_eix(x, F::EXPR_NODE_OPERANDS));
    }
    found
}

/// How many choices of overload resolution the tree at `e` holds: routines called
/// `operator...` it names (an overloaded operator the front end chose), objects it
/// constructs, conversions through a constructor or a conversion function (clang's cast
/// codes 12 and 13).
fn overload_choices(il: &Il, e: Eix) -> usize {
    count_nodes(il, e, |x| {
        let operator = il.ref_eix(x, F::EXPR_NODE_ENTITY).is_some_and(|r| {
            il.kind(r) == EntryKind::Routine && il.name(r).starts_with(b"operator")
        });
        let ex = il.expr(x);
        let conversion = ex.expr_kind() == ExprKind::Operation
            && (ex.op() == Op::Construct || ex.cast_kind().is_some_and(|c| c.calls_conversion()));
        operator as usize + conversion as usize
    })
}

/// How many builtin calls of the tree at `e` were checked against the builtin's
/// prototype: clang's `BuiltinFnToFnPtr` conversions of the callee, which the
/// instantiation of a call with dependent arguments adds (and its arguments' conversions
/// to the prototype's parameter types).
fn builtin_checks(il: &Il, e: Eix) -> usize {
    count_nodes(il, e, |x| {
        (il.expr(x).cast_kind() == Some(CastKind::BuiltinFnToFnPtr)) as usize
    })
}

fn is_subst_nttp(il: &Il, x: Eix) -> bool {
    let e = il.expr(x);
    e.expr_kind() == ExprKind::Operation && e.op() == Op::SubstNttp
}

/// The expression nodes under a body scope (statements, nested scopes, variables and
/// their initializers; not types, not nested routines).
fn body_exprs(il: &Il, scope: Eix) -> Vec<Eix> {
    let mut out = Vec::new();
    let mut seen = AHashSet::new();
    let mut stack = vec![scope];
    while let Some(e) = stack.pop() {
        if e.is_none() || !seen.insert(e) {
            continue;
        }
        match il.kind(e) {
            EntryKind::Type | EntryKind::Routine | EntryKind::Template => continue,
            EntryKind::ExprNode => out.push(e),
            _ => {}
        }
        stack.extend(il.children(e).iter().rev().copied());
    }
    out
}

/// (b) for one declaration: the pattern's type substituted against the instance's.
fn check_type(
    il: &mut Il,
    ix: &Index,
    subst: &mut Subst<'_>,
    pattern: Option<Eix>,
    instance: Option<Eix>,
) -> Result<Result<(), Outcome>, IlError> {
    if let Some(why) = pattern.and_then(|t| dependent_class(il, t)) {
        return Ok(Err(Outcome::Differ(why)));
    }
    let ours = subst.subst_type(il, pattern)?;
    if same_type(il, ours, instance) {
        return Ok(Ok(()));
    }
    let bounds = (unbounded_array(il, pattern), unbounded_array(il, ours));
    if bounds != (false, false) && same_type_with(il, ours, instance, true) {
        // The element types agree; the bound did not become a value.
        let d = if bounds.0 {
            DEPENDENT_BOUND
        } else {
            UNFOLDED_BOUND
        };
        return Ok(Err(Outcome::Differ(d)));
    }
    let d = if ours == pattern {
        // Substitution is the identity here: the import made the pattern's type concrete.
        CONCRETE_PATTERN
    } else if has_param(il, instance) {
        INSTANCE_PARAM
    } else {
        type_difference(il, ix, ours, instance)
    };
    Ok(Err(Outcome::Differ(d)))
}

/// For the pattern's variable `v` declared as an array of unknown bound with an
/// initializer list, its type substituted and completed by the substituted
/// initializer's element count (a pack expansion gives one element per pack element);
/// `None` for any other variable.
fn bound_from_initializer(
    il: &mut Il,
    subst: &mut Subst<'_>,
    v: Eix,
) -> Result<Option<Eix>, IlError> {
    let t = il.child_eix(v, F::VARIABLE_TYPE);
    let init = il.child_eix(v, F::VARIABLE_INITIALIZER);
    let (Some(t), Some(init)) = (t, init) else {
        return Ok(None);
    };
    let is_list = |il: &Il, x: Eix| {
        il.kind(x) == EntryKind::ExprNode
            && il.expr(x).expr_kind() == ExprKind::Operation
            && il.expr(x).op() == Op::InitList
    };
    let unbounded = il
        .as_ty(t)
        .is_some_and(|x| x.type_kind() == TypeKind::Array)
        && il.child_eix(t, F::TYPE_ARRAY_BOUND).is_none();
    if !unbounded || !is_list(il, init) {
        return Ok(None);
    }
    let Some(ours) = subst.subst_type(il, Some(t))? else {
        return Ok(None);
    };
    let list = subst.copy_template_param_expr(il, init)?;
    if !is_list(il, list) {
        return Ok(None);
    }
    let n = il.list_eix(list, F::EXPR_NODE_OPERANDS).len() as u64;
    subst.with_bound(il, ours, n).map(Some)
}

/// The declared type of the pattern's variable `v`, or for `auto` (a template
/// parameter type named `auto`) the type deduced from its initializer: the
/// initializer's type without top-level cv-qualifiers, an array or function decayed to
/// a pointer (expression types are never references). Substitution then applies to it
/// as to a declared type.
fn deduced_type(il: &mut Il, v: Eix) -> Option<Eix> {
    let t = il.child_eix(v, F::VARIABLE_TYPE);
    let is_auto = t.is_some_and(|t| {
        il.as_ty(t)
            .is_some_and(|x| x.type_kind() == TypeKind::TemplateParam && il.name(t) == b"auto")
    });
    if !is_auto {
        return t;
    }
    let Some(it) = il
        .child_eix(v, F::VARIABLE_INITIALIZER)
        .and_then(|x| il.child_eix(x, F::EXPR_NODE_TYPE))
    else {
        return t;
    };
    let mut it = it;
    for _ in 0..64 {
        let Some(x) = il.as_ty(it) else { break };
        if x.type_kind() != TypeKind::Typeref || !il.name(it).is_empty() {
            break;
        }
        match il.child_eix(it, F::TYPE_BASE_TYPE) {
            Some(b) => it = b,
            None => break,
        }
    }
    let k = il.as_ty(strip(il, it).0).map(|x| x.type_kind());
    if matches!(k, Some(TypeKind::Array | TypeKind::Routine)) {
        let s = strip(il, it).0;
        let target = if k == Some(TypeKind::Array) {
            il.child_eix(s, F::TYPE_BASE_TYPE).unwrap_or(s)
        } else {
            s
        };
        let p = il.alloc_in(EntryKind::Type, crate::il::RegionIdx::FILE_SCOPE);
        let pe = il.eix(p).ok()?;
        crate::il::kinds::set_type_kind(il, p, TypeKind::Pointer).ok()?;
        il.set_child_eix(pe, F::TYPE_BASE_TYPE, target).ok()?;
        il.ty_mut(pe).set_size(8).set_alignment(8);
        return Some(pe);
    }
    Some(it)
}

/// Why a pattern type cannot be substituted here: a dependent type the importer keeps
/// as the one `<dependent type>` parameter type (decltype, ...), or `auto` left
/// undeduced.
fn dependent_class(il: &Il, t: Eix) -> Option<&'static str> {
    let mut stack = vec![t];
    let mut n = 0;
    while let Some(t) = stack.pop() {
        n += 1;
        if n > 4096 || il.kind(t) != EntryKind::Type {
            continue;
        }
        let ty = il.ty(t);
        if ty.type_kind() == TypeKind::TemplateParam
            && matches!(il.name(t), b"<dependent type>" | b"auto")
            && il.child_eix(t, F::TYPE_BASE_TYPE).is_none()
        {
            return Some(DEPENDENT_TYPE);
        }
        stack.extend(il.child_eix(t, F::TYPE_BASE_TYPE));
        if let Some(s) = il.child_eix(t, F::TYPE_ROUTINE_SUPPLEMENT) {
            for &p in il.list_eix(s, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS) {
                stack.extend(il.child_eix(p, F::PARAM_TYPE_TYPE));
            }
        }
    }
    None
}

/// Whether a type's chain holds a template parameter type.
fn has_param(il: &Il, t: Option<Eix>) -> bool {
    let mut cur = t;
    for _ in 0..4096 {
        let Some(t) = cur else { return false };
        let Some(ty) = il.as_ty(t) else { return false };
        if ty.type_kind() == TypeKind::TemplateParam {
            return true;
        }
        cur = il.child_eix(t, F::TYPE_BASE_TYPE);
    }
    false
}

/// Whether a type holds an array whose bound is not an integer constant: none (the
/// importer could not read the bound's expression) or an expression.
fn unbounded_array(il: &Il, t: Option<Eix>) -> bool {
    let mut cur = t;
    for _ in 0..4096 {
        let Some(t) = cur else { return false };
        if il.kind(t) != EntryKind::Type {
            return false;
        }
        if il.ty(t).type_kind() == TypeKind::Array
            && il
                .child_eix(t, F::TYPE_ARRAY_BOUND)
                .is_none_or(|b| il.constant(b).constant_kind() != ConstantKind::Integer)
        {
            return true;
        }
        cur = il.child_eix(t, F::TYPE_BASE_TYPE);
    }
    false
}

/// The class of a type disagreement.
fn type_difference(il: &Il, ix: &Index, ours: Option<Eix>, theirs: Option<Eix>) -> &'static str {
    let mut cur = ours;
    let mut theirs = theirs;
    for _ in 0..4096 {
        let Some(t) = cur else { break };
        if il.kind(t) != EntryKind::Type {
            break;
        }
        let t = strip(il, t).0;
        let k = il.ty(t).type_kind();
        if k == TypeKind::TemplateParam {
            return UNBOUND;
        }
        if ix.class_patterns.contains(&t) {
            return SPEC_NAMED;
        }
        if theirs.is_some_and(|x| ix.class_patterns.contains(&strip(il, x).0)) {
            return INJECTED;
        }
        if let Some(o) = theirs.map(|x| strip(il, x).0) {
            let (a, b) = (
                il.child_eix(t, F::TYPE_TEMPLATE_INFO),
                il.child_eix(o, F::TYPE_TEMPLATE_INFO),
            );
            if let (Some(a), Some(b)) = (a, b) {
                let same = il.ref_eix(a, F::TEMPLATE_INFO_TEMPLATE)
                    == il.ref_eix(b, F::TEMPLATE_INFO_TEMPLATE);
                if o != t && same {
                    return SPEC_RESOLVED;
                }
            }
        }
        if k == TypeKind::Array {
            let other = theirs.map(|x| strip(il, x).0);
            if other.is_some_and(|o| il.as_ty(o).is_some_and(|o| o.type_kind() == k)) {
                let (a, b) = (il.ty(t).size(), other.map_or(0, |o| il.ty(o).size()));
                let ea = il.child_eix(t, F::TYPE_BASE_TYPE);
                let eb = other.and_then(|o| il.child_eix(o, F::TYPE_BASE_TYPE));
                if a != b && same_type(il, ea, eb) {
                    return ARRAY_BOUND;
                }
            }
        }
        cur = il.child_eix(t, F::TYPE_BASE_TYPE);
        theirs = theirs.and_then(|x| il.child_eix(strip(il, x).0, F::TYPE_BASE_TYPE));
    }
    TYPE_OTHER
}

/// (a) for one substituted parameter `x`: a reference to its parameter, substituted,
/// against clang's replacement (value) and the substitution node (type).
fn check_nttp(
    il: &mut Il,
    subst: &mut Subst<'_>,
    params: &[Eix],
    x: Eix,
) -> Result<Result<(), Outcome>, IlError> {
    let Some(p) = il.ref_eix(x, F::EXPR_NODE_ENTITY) else {
        return Ok(Err(Outcome::Differ(NO_PARAM)));
    };
    if il.kind(p) != EntryKind::TemplateParam {
        return Ok(Err(Outcome::Differ(NO_PARAM)));
    }
    if !params.contains(&p) {
        return Ok(Err(Outcome::Skip(OTHER_TEMPLATE)));
    }
    let tp = il.template_param(p);
    let pack = match subst.args.get(tp.depth(), tp.position()) {
        None => return Ok(Err(Outcome::Differ(UNBOUND))),
        Some(Binding::Pack(v)) => Some(v.len()),
        Some(_) => None,
    };
    if let Some(n) = pack {
        // An element of a pack: clang's dump does not say which, so the replacement
        // must be one of the elements, with its type (the body's comparison checks
        // each expansion element by element).
        for i in 0..n {
            subst.set_pack_index(Some(i));
            let r = check_nttp_value(il, subst, p, x);
            subst.set_pack_index(None);
            if r?.is_ok() {
                return Ok(Ok(()));
            }
        }
        return Ok(Err(Outcome::Differ(VALUE)));
    }
    check_nttp_value(il, subst, p, x)
}

/// (a) for the substituted parameter `x` of template parameter `p`: `p` substituted
/// (as the element the substitution's pack index says, for a pack) against `x`'s
/// replacement, value and type.
fn check_nttp_value(
    il: &mut Il,
    subst: &mut Subst<'_>,
    p: Eix,
    x: Eix,
) -> Result<Result<(), Outcome>, IlError> {
    // The pattern's reference to the parameter.
    let r = il.alloc_expr_node(ExprKind::Variable)?;
    il.set_ref(r, F::EXPR_NODE_ENTITY, Some(il.id_of(p)))?;
    let pt = il.child_eix(p, F::TEMPLATE_PARAM_TYPE);
    il.set_child(r, F::EXPR_NODE_TYPE, pt.map(|t| il.id_of(t)))?;
    let r = il.eix(r)?;
    let ours = subst.copy_template_param_value_expr(il, r)?;
    let Some(repl) = il.list_eix(x, F::EXPR_NODE_OPERANDS).first().copied() else {
        return Ok(Err(Outcome::Differ(NOT_CONST)));
    };
    let theirs = designated(il, repl);
    if theirs.is_none() {
        return Ok(Err(Outcome::Differ(NOT_CONST)));
    }
    if designated(il, ours) != theirs {
        return Ok(Err(Outcome::Differ(VALUE)));
    }
    let (a, b) = (
        il.child_eix(ours, F::EXPR_NODE_TYPE),
        il.child_eix(x, F::EXPR_NODE_TYPE),
    );
    if !same_type(il, a, b) {
        return Ok(Err(Outcome::Differ(NTTP_TYPE)));
    }
    Ok(Ok(()))
}

/// (c) for one body: statement structure in step, each pattern expression substituted
/// and compared with the instance's.
fn check_body(
    il: &mut Il,
    subst: &mut Subst<'_>,
    pscope: Eix,
    pb: Eix,
    rb: Eix,
) -> Result<Result<(), Outcome>, IlError> {
    let pexprs = body_exprs(il, pscope);
    for &e in &pexprs {
        let x = il.expr(e);
        if x.expr_kind() == ExprKind::Lambda {
            return Ok(Err(Outcome::Skip(LAMBDA)));
        }
        if x.expr_kind() == ExprKind::FoldExpression && x.op() == Op::Dependent {
            return Ok(Err(Outcome::Skip(FOLD)));
        }
        let dependent =
            x.expr_kind() == ExprKind::Operation && matches!(x.op(), Op::Dependent | Op::Other);
        let unresolved = il
            .ref_eix(e, F::EXPR_NODE_ENTITY)
            .is_some_and(|t| il.kind(t) == EntryKind::NameReference);
        if dependent || unresolved {
            return Ok(Err(Outcome::Skip(DEPENDENT_LOOKUP)));
        }
    }
    let mut cmp = crate::compare::Comparer::new();
    let mut stack = vec![(pb, rb)];
    while let Some((a, b)) = stack.pop() {
        let (ka, kb) = (il.kind(a), il.kind(b));
        if ka != kb {
            return Ok(Err(Outcome::Differ(SHAPE)));
        }
        match ka {
            EntryKind::Statement => {
                if il.statement(a).stmt_kind() != il.statement(b).stmt_kind() {
                    return Ok(Err(Outcome::Differ(SHAPE)));
                }
                let discarded = discarded_arm(il, subst, a)?;
                let ca: Vec<Eix> = il.children(a).to_vec();
                let cb: Vec<Eix> = il.children(b).to_vec();
                if ca.len() != cb.len() {
                    return Ok(Err(Outcome::Differ(SHAPE)));
                }
                for (&x, &y) in ca.iter().zip(&cb).rev() {
                    if Some(x) == discarded && is_empty_block(il, y) {
                        // The arm `if constexpr` discarded: clang leaves an empty block.
                        continue;
                    }
                    match (x.is_none(), y.is_none()) {
                        (true, true) => {}
                        (false, false) => stack.push((x, y)),
                        _ => return Ok(Err(Outcome::Differ(SHAPE))),
                    }
                }
            }
            EntryKind::ExprNode => {
                let ours = subst.copy_template_param_expr(il, a)?;
                let ours = drop_implicit(il, subst, ours)?;
                let theirs = drop_implicit(il, subst, b)?;
                if !cmp.compare_expressions(il, ours, theirs, 0)? {
                    if overload_choices(il, theirs) > overload_choices(il, ours) {
                        return Ok(Err(Outcome::Skip(OVERLOADED)));
                    }
                    if builtin_checks(il, theirs) > builtin_checks(il, ours) {
                        return Ok(Err(Outcome::Skip(BUILTIN)));
                    }
                    return Ok(Err(Outcome::Differ(EXPR_DIFF)));
                }
            }
            _ => {}
        }
    }
    Ok(Ok(()))
}

/// Whether comparison looks through node `e`: a conversion that keeps the value (clang's
/// lvalue-to-rvalue, no-op, decay and arithmetic casts, implicit or written; a pattern's
/// dependent cast), ilkit's implicit conversion, a substituted parameter (its replacement
/// stands) or parentheses.
fn is_transparent(il: &Il, e: Eix) -> bool {
    let x = il.expr(e);
    x.expr_kind() == ExprKind::Operation
        && il.list_eix(e, F::EXPR_NODE_OPERANDS).len() == 1
        && (x.cast_kind().is_some_and(|c| c.is_transparent())
            || x.op() == Op::ImplicitConv
            || x.op() == Op::SubstNttp
            || x.op() == Op::Paren)
}

/// A conversion `e` of an integer constant to another integral type (an enumeration's
/// value written as an integer converted to it, as clang spells an enumerator argument,
/// or an enumerator converted to `int`), through other transparent nodes, folded to a
/// constant node of the target type; `None` for any other node.
fn folded_integral_conversion(
    il: &mut Il,
    subst: &mut Subst<'_>,
    e: Eix,
) -> Result<Option<Eix>, IlError> {
    let mut o = e;
    for _ in 0..64 {
        match il.list_eix(o, F::EXPR_NODE_OPERANDS) {
            &[x] if il.kind(x) == EntryKind::ExprNode && is_transparent(il, o) => o = x,
            _ => break,
        }
    }
    if o == e {
        return Ok(None);
    }
    let (Some(t), Some(c)) = (
        il.child_eix(e, F::EXPR_NODE_TYPE),
        il.child_eix(o, F::EXPR_NODE_CONSTANT),
    ) else {
        return Ok(None);
    };
    let integral = |t: Option<Eix>| {
        t.map(|t| crate::il::kinds::strip_typerefs(il, t))
            .and_then(|t| il.as_ty(t))
            .is_some_and(|t| t.type_kind() == TypeKind::Integer)
    };
    if il.kind(o) != EntryKind::ExprNode
        || il.constant(c).constant_kind() != ConstantKind::Integer
        || !integral(Some(t))
        || !integral(il.child_eix(c, F::CONSTANT_TYPE))
        || same_type(il, Some(t), il.child_eix(c, F::CONSTANT_TYPE))
    {
        return Ok(None);
    }
    let v = il.constant(c).value();
    subst
        .const_node(il, super::Val::Int(v as i128), t)
        .map(Some)
}

/// The routine whose address expression node `e` is: `&f` (an address-of over a
/// reference to routine `f`) or a constant node holding an address constant of `f`
/// without a subobject path.
fn routine_address(il: &Il, e: Eix) -> Option<Eix> {
    let x = il.expr(e);
    match x.expr_kind() {
        ExprKind::Operation if x.op() == Op::AddrOf => {
            let &[o] = il.list_eix(e, F::EXPR_NODE_OPERANDS) else {
                return None;
            };
            let r = il.ref_eix(o, F::EXPR_NODE_ENTITY)?;
            (il.kind(o) == EntryKind::ExprNode
                && il.expr(o).expr_kind() == ExprKind::Routine
                && il.kind(r) == EntryKind::Routine)
                .then_some(r)
        }
        ExprKind::Constant => {
            let c = il.child_eix(e, F::EXPR_NODE_CONSTANT)?;
            let k = il.constant(c);
            if k.address_kind() != Some(AddressKind::Routine)
                || il.child_eix(c, F::CONSTANT_SUBOBJECT_PATH).is_some()
                || k.value() != 0
            {
                return None;
            }
            let r = il.child_eix(c, F::CONSTANT_OPERAND)?;
            (il.kind(r) == EntryKind::Routine).then_some(r)
        }
        _ => None,
    }
}

/// The arm of pattern statement `a` an `if` whose condition folds discards (the then arm
/// when the condition is false, the else arm when it is true): [stmt.if] does not
/// instantiate it, and clang leaves an empty compound statement in its place. `None`
/// for any other statement, or when the condition does not fold.
fn discarded_arm(il: &mut Il, subst: &mut Subst<'_>, a: Eix) -> Result<Option<Eix>, IlError> {
    if il.statement(a).stmt_kind() != StmtKind::If {
        return Ok(None);
    }
    let Some(cond) = il.child_eix(a, F::STATEMENT_EXPR) else {
        return Ok(None);
    };
    let arms = il.list_eix(a, F::STATEMENT_STMTS).to_vec();
    Ok(match subst.fold_condition(il, cond)? {
        Some(true) => arms.get(1).copied(),
        Some(false) => arms.first().copied(),
        None => None,
    })
}

/// A compound statement with no statements and no locals.
fn is_empty_block(il: &Il, s: Eix) -> bool {
    il.kind(s) == EntryKind::Statement
        && il.statement(s).stmt_kind() == StmtKind::Block
        && il.list_eix(s, F::STATEMENT_STMTS).is_empty()
        && il
            .child_eix(s, F::STATEMENT_SCOPE)
            .is_none_or(|sc| il.list_eix(sc, F::SCOPE_VARIABLES).is_empty())
}

/// A copy of the tree at `e` without the conversions a pattern cannot hold: clang's
/// lvalue-to-rvalue, no-op, decay and arithmetic casts (cast codes 1..=8, implicit or
/// written), a pattern's dependent casts (code 21: the instance gives them a kind) and
/// ilkit's implicit conversion nodes (the types of the nodes around them
/// still say what was converted to what), and substituted
/// parameters (their replacement stands): the form both sides are compared in.
fn drop_implicit(il: &mut Il, subst: &mut Subst<'_>, root: Eix) -> Result<Eix, IlError> {
    enum Fr {
        Enter(Eix),
        Exit(Eix, usize),
    }
    let mut stack = vec![Fr::Enter(root)];
    let mut res: Vec<Eix> = Vec::new();
    while let Some(f) = stack.pop() {
        match f {
            Fr::Enter(e) => {
                if il.kind(e) != EntryKind::ExprNode {
                    res.push(e);
                    continue;
                }
                if let Some(r) = routine_address(il, e) {
                    // `&f` and an address constant of `f` (how a routine argument of a
                    // non-type parameter is substituted) are one value: both sides
                    // compare as a reference to `f`.
                    let id = il.alloc_expr_node(ExprKind::Routine)?;
                    il.set_ref(id, F::EXPR_NODE_ENTITY, Some(il.id_of(r)))?;
                    res.push(il.eix(id)?);
                    continue;
                }
                let ops = il.list_eix(e, F::EXPR_NODE_OPERANDS);
                if is_transparent(il, e) {
                    let inner = ops[0];
                    if let Some(c) = folded_integral_conversion(il, subst, e)? {
                        res.push(c);
                        continue;
                    }
                    stack.push(Fr::Enter(inner));
                    continue;
                }
                stack.push(Fr::Exit(e, res.len()));
                for &o in ops.iter().rev() {
                    stack.push(Fr::Enter(o));
                }
            }
            Fr::Exit(e, base) => {
                let kids = res.split_off(base);
                if kids.as_slice() == il.list_eix(e, F::EXPR_NODE_OPERANDS) {
                    res.push(e);
                    continue;
                }
                let id = il.alloc_in(EntryKind::ExprNode, il.current_region());
                let c = il.eix(id)?;
                il.copy_entry_data(e, c);
                il.retain_list(c, F::EXPR_NODE_OPERANDS, |_| false);
                for k in kids {
                    il.push_list(id, F::EXPR_NODE_OPERANDS, il.id_of(k))?;
                }
                res.push(c);
            }
        }
    }
    Ok(res.pop().unwrap_or(root))
}
