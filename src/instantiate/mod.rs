//! Template parameter substitution (seed 002, part 4): `copy_template_param_expr` and its
//! dispatchers rebuild an expression or constant tree of a template definition with the
//! template's parameters replaced by arguments, fold what became constant, apply the
//! usual arithmetic conversions the definition could not know, and pass every folded
//! constant through constant sharing. [`check_instantiations`] runs it against the
//! instantiations a front end recorded (clang's, through the clang JSON importer).
//!
//! # What a parameter looks like in ilkit's IL
//! - a type parameter is a `type` of kind 14 (`tk_template_param`) with `tparam_depth` /
//!   `tparam_position`; types built on it (pointer, array, typeref, ... through
//!   `base_type`) are rebuilt on the argument.
//! - a non-type parameter is an expression of kind 19 or 3 whose `entity` is a
//!   `template_param` entry (`depth`, `position`, `is_pack`), or a constant of kind 12
//!   sub-kind 0 with `value` = position and `value2` = depth.
//! - a pack expansion is an expression of kind 30 whose first operand is the pattern and
//!   whose `entity` is the pack's `template_param`; in an operand list it expands to one
//!   substituted pattern per pack element; a fold expression (kind 28, `op` = the binary
//!   operator) over it folds the elements left to right.
//!
//! # Operators (the `op` of an operation node)
//! From the seed: 5 cast, 39 conditional (three operands), 44/45 imaginary (an error),
//! 53/54 shifts (result: promoted left type), 58..=63 comparisons (`==`, `!=`, `<`, `>`,
//! `<=`, `>=`; result int, or [`Subst::bool_type`] when set, as for `!`, `&&`, `||`), 116 type expression. ilkit's choice for the rest (the
//! [`Op`] vocabulary of `components/vocab.rs`): 40..=43 `+ - * /`, 26 `%`, 27 `&`, 87 `|`, 88 `^`, 25 negate, 28 `~`,
//! 29 `!`, 0 parentheses, 71 sizeof, 72 alignof (operand: a kind-20 type operand), 103 the
//! implicit conversion node that usual arithmetic conversions insert.
//!
//! # Target data model
//! [`DataModel`] (LP64 by default): sizes and alignments of builtin and class types come
//! from the type table (`size`, `alignment`; alignment 0 means `min(size, 8)`); pointers
//! are `pointer_size`. Integer types are signed unless their `int_kind` is unsigned. Folding is exact
//! integer arithmetic wrapped to the result type's width; division by zero is not folded.
//! Conversion to `bool` gives 0 or 1 (clang dumps a `true` argument as -1: its 1-bit value
//! sign-extended).
//!
//! # Dependent types and constant expressions
//! An array type whose bound is a template-parameter constant (an expression over
//! parameters) is rebuilt with the bound folded; inside such a bound (a constant
//! expression) a reference to a constexpr variable folds through its substituted
//! initializer and a call of a constexpr routine folds through its body evaluated with
//! the parameters bound to the arguments (`if`, `switch`, `return`, constant locals;
//! module `consteval`; both at most `MAX_CONST_NEST` deep). Dependent member types and template-ids resolve by lookup in
//! [`Subst::specializations`] (module `dependent`).
//!
//! All traversals use explicit stacks. Errors come back as [`IlError`] with the seed's
//! messages (`imaginary operators not implemented`,
//! `copy_template_param_con: unexpected kind`).

use crate::il::{
    fields as F, BitSet, CastKind, ConstantKind, Eix, EntryId, EntryKind, ExprKind, Il, IlError,
    Op, RegionIdx, TypeKind,
};
use crate::share::ConstantSharing;
use ahash::AHashMap;

/// The target data model folding uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataModel {
    /// Bytes of a pointer.
    pub pointer_size: u64,
}

impl Default for DataModel {
    /// LP64: 8-byte pointers (int 4, long 8 come from the type table).
    fn default() -> Self {
        DataModel { pointer_size: 8 }
    }
}

/// One template argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A type argument.
    Type(EntryId),
    /// A non-type argument: a constant.
    Value(EntryId),
    /// A pack: its elements.
    Pack(Vec<Binding>),
}

/// Template arguments by (depth, position), and by parameter type entry.
///
/// A parameter type is bound by position through its `tparam_depth` /
/// `tparam_position`; an importer that interns parameter types by name (the clang
/// importer: one `T` type for every template whose parameter is spelled `T`) binds the
/// type entry itself with [`TemplateArgs::bind_type`], which takes precedence. Any other
/// type entry may be bound the same way: a class template's pattern to the instance
/// being made (the injected class name `Vec` inside `Vec<T>` means `Vec<float>` there).
#[derive(Clone, Debug, Default)]
pub struct TemplateArgs {
    map: AHashMap<(u16, u16), Binding>,
    by_type: AHashMap<EntryId, Binding>,
}

impl TemplateArgs {
    /// No arguments.
    pub fn new() -> TemplateArgs {
        TemplateArgs::default()
    }

    /// Binds parameter (depth, position).
    pub fn bind(&mut self, depth: u16, position: u16, b: Binding) -> &mut Self {
        self.map.insert((depth, position), b);
        self
    }

    /// The binding of (depth, position).
    pub fn get(&self, depth: u16, position: u16) -> Option<&Binding> {
        self.map.get(&(depth, position))
    }

    /// Binds the type entry `param_type` (a template parameter type, whatever its depth
    /// and position say, or any type to replace, such as a class pattern).
    pub fn bind_type(&mut self, param_type: EntryId, b: Binding) -> &mut Self {
        self.by_type.insert(param_type, b);
        self
    }

    /// The binding of the parameter type entry `param_type`, if bound by entry.
    pub fn get_type(&self, param_type: EntryId) -> Option<&Binding> {
        self.by_type.get(&param_type)
    }
}

/// Deepest chain of constexpr variables a constant expression folds through.
const MAX_CONST_NEST: u32 = 32;

const UNEXPECTED_CON: &str = "copy_template_param_con: unexpected kind";
const IMAGINARY: &str = "imaginary operators not implemented";

/// A substitution in progress.
#[derive(Debug)]
pub struct Subst<'a> {
    /// The arguments.
    pub args: &'a TemplateArgs,
    /// The data model folding uses.
    pub model: DataModel,
    /// Sharing for folded constants.
    pub sharing: &'a mut ConstantSharing,
    /// The `int` type (comparison results, promotions).
    pub int_type: Eix,
    /// The type of sizeof/alignof results (defaults to `int_type`).
    pub size_type: Eix,
    /// The type of a difference of two pointers, `ptrdiff_t` (defaults to `int_type`).
    pub ptrdiff_type: Eix,
    /// The type of comparison and logical results: `None` gives `int_type` (C, the
    /// seed's rule); C++ sets `bool`.
    pub bool_type: Option<Eix>,
    /// Fold nothing, and keep a subtree substitution does not change (no type, operand
    /// or mapped entity under it changes) as written: the form a front end that folds
    /// only on demand (clang) records in its instantiations. Off by default: the seed's
    /// substitution folds every constant operation it rebuilds.
    pub unfolded: bool,
    pack_index: Option<usize>,
    /// The class template specializations dependent template-ids resolve to (none: a
    /// dependent template-id stays as it is).
    pub specializations: Option<&'a Specializations>,
    /// Nesting of dependent-type lookups (bounded by `dependent::MAX_NEST`).
    dep_nest: u32,
    /// Inside a constant expression (an array bound): references to constexpr
    /// variables fold through their initializers.
    constant_context: bool,
    /// Nesting of constexpr variables and calls being folded (bounded by
    /// `MAX_CONST_NEST`).
    const_nest: u32,
    /// A constexpr routine's parameters bound to the values of a call being folded.
    values: AHashMap<Eix, Eix>,
    /// Statements run by the constant expression being evaluated, every call it makes
    /// included (bounded by `consteval::MAX_STEPS`).
    const_steps: u32,
    /// Constant nodes this substitution made that nothing holds yet: folded into another
    /// constant, such a node goes to the expression free list ([`Subst::discard`]).
    fresh: BitSet,
    types: AHashMap<Eix, Eix>,
    entities: AHashMap<Eix, Eix>,
    /// A function parameter pack of the pattern and the instance's parameters it
    /// expanded to: a reference to it inside the expansion of element `i` refers to the
    /// `i`-th.
    entity_packs: AHashMap<Eix, Vec<Eix>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Int(i128),
    Float(f64),
}

enum Frame {
    Enter(Eix),
    Exit(Eix, usize),
    Pack(Option<usize>),
}

/// Finds a file-scope integer type named `name`, or makes one of `size` bytes.
pub fn builtin_int_type(il: &mut Il, name: &str, size: u64) -> Result<Eix, IlError> {
    for e in il.kind_list(EntryKind::Type) {
        if il.ty(e).type_kind() == TypeKind::Integer && il.name(e) == name.as_bytes() {
            return Ok(e);
        }
    }
    let t = il.alloc(EntryKind::Type)?;
    il.set_string(t, 0, name.as_bytes())?;
    crate::il::kinds::set_type_kind(il, t, TypeKind::Integer)?;
    let e = il.eix(t)?;
    il.ty_mut(e).set_size(size).set_alignment(size as u32);
    Ok(e)
}

impl<'a> Subst<'a> {
    /// A substitution with `args`, folding on `model`, sharing folded constants in
    /// `sharing`. Finds (or makes) the `int` type.
    ///
    /// # Errors
    /// Allocation errors while making `int`.
    pub fn new(
        il: &mut Il,
        args: &'a TemplateArgs,
        model: DataModel,
        sharing: &'a mut ConstantSharing,
    ) -> Result<Subst<'a>, IlError> {
        let int_type = builtin_int_type(il, "int", 4)?;
        Ok(Subst {
            args,
            model,
            sharing,
            int_type,
            size_type: int_type,
            ptrdiff_type: int_type,
            bool_type: None,
            unfolded: false,
            pack_index: None,
            specializations: None,
            dep_nest: 0,
            constant_context: false,
            const_nest: 0,
            values: AHashMap::new(),
            const_steps: 0,
            fresh: BitSet::default(),
            types: AHashMap::new(),
            entities: AHashMap::new(),
            entity_packs: AHashMap::new(),
        })
    }

    /// Makes references to the pattern's entity `from` (a parameter, local variable,
    /// member) refer to the instance's `to` in substituted copies, as instantiation
    /// remaps the declarations it copies.
    pub fn map_entity(&mut self, from: Eix, to: Eix) {
        self.entities.insert(from, to);
    }

    /// Makes references to the pattern's function parameter pack `from` refer, inside
    /// the expansion of pack element `i`, to the instance's parameter `to[i]` (the
    /// parameters the pack expanded to).
    pub fn map_entity_pack(&mut self, from: Eix, to: Vec<Eix>) {
        self.entity_packs.insert(from, to);
    }

    /// Substitutes as inside the expansion of pack element `i` (`None`: outside every
    /// expansion), for a declaration whose type expands a pack (a function parameter
    /// pack's type, once per element).
    pub fn set_pack_index(&mut self, i: Option<usize>) {
        self.pack_index = i;
    }

    /// What a reference to the pattern's entity `x` refers to in the instance, if
    /// substitution remaps it (an element of a function parameter pack inside an
    /// expansion).
    fn mapped_entity(&self, x: Eix) -> Option<Eix> {
        match (self.entity_packs.get(&x), self.pack_index) {
            (Some(v), Some(i)) => v.get(i).copied(),
            _ => self.entities.get(&x).copied(),
        }
    }

    /// The type of comparison and logical results.
    fn truth_type(&self) -> Eix {
        self.bool_type.unwrap_or(self.int_type)
    }

    // ---- types ---------------------------------------------------------------------------

    fn tparam_binding(&self, depth: u16, pos: u16) -> Option<&'a Binding> {
        let b = self.args.get(depth, pos)?;
        self.in_pack(b)
    }

    fn in_pack(&self, b: &'a Binding) -> Option<&'a Binding> {
        match (b, self.pack_index) {
            (Binding::Pack(v), Some(i)) => v.get(i),
            _ => Some(b),
        }
    }

    /// `copy_template_param_type`: the type with template parameter types replaced by
    /// their arguments; types built on a parameter, and arrays whose bound is an
    /// expression (a template-parameter constant), are rebuilt (once per substitution).
    /// An array's bound is folded to an integer constant where it can be (a constant
    /// expression: references to constexpr variables fold through their substituted
    /// initializers, [`Subst::unfolded`] or not), and the array takes bound times its
    /// element's size.
    ///
    /// # Errors
    /// A stale argument; errors of the bound's substitution.
    pub fn subst_type(&mut self, il: &mut Il, ty: Option<Eix>) -> Result<Option<Eix>, IlError> {
        let Some(t0) = ty else { return Ok(None) };
        if self.pack_index.is_none() {
            if let Some(&c) = self.types.get(&t0) {
                return Ok(Some(c));
            }
        }
        // Walk the base_type chain down to a parameter (if any), noting the deepest
        // array with a dependent bound.
        let mut chain = vec![];
        let mut cur = Some(t0);
        let mut bound = None;
        let mut deepest_bound = None;
        let mut supplements: Vec<(Eix, Eix)> = Vec::new();
        while let Some(t) = cur {
            if il.kind(t) != EntryKind::Type || chain.len() > 1 << 20 {
                break;
            }
            let ty = il.ty(t);
            let by_entry = self.args.get_type(il.id_of(t));
            if by_entry.is_none()
                && (Self::is_dependent_member(il, t) || Self::is_template_id(il, t))
            {
                bound = self.resolve_dependent(il, t)?;
                break;
            }
            if by_entry.is_some() || ty.type_kind() == TypeKind::TemplateParam {
                let (d, p) = (ty.tparam_depth(), ty.tparam_position());
                let b = match by_entry {
                    Some(b) => self.in_pack(b),
                    None => self.tparam_binding(d, p),
                };
                if let Some(Binding::Type(a)) = b {
                    bound = Some(il.eix(*a)?);
                }
                break;
            }
            if Self::dependent_bound(il, t).is_some() {
                deepest_bound = Some(chain.len());
            }
            if let Some(sup) = self.subst_routine_params(il, t)? {
                // A routine type whose parameter types change: rebuilt from here up,
                // with the substituted supplement.
                deepest_bound = deepest_bound.or(Some(chain.len()));
                supplements.push((t, sup));
            }
            chain.push(t);
            cur = il.child_eix(t, F::TYPE_BASE_TYPE);
        }
        let (rebuild, mut new) = match (bound, deepest_bound) {
            (Some(b), _) => (chain.len(), b),
            (None, Some(i)) => (
                i + 1,
                il.child_eix(chain[i], F::TYPE_BASE_TYPE)
                    .unwrap_or(Eix::NONE),
            ),
            (None, None) => return Ok(Some(t0)),
        };
        for &t in chain[..rebuild].iter().rev() {
            if let Some(c) = Self::collapse_reference(il, t, new)? {
                new = c;
                continue;
            }
            let id = il.alloc_in(EntryKind::Type, RegionIdx::FILE_SCOPE);
            let c = il.eix(id)?;
            il.copy_entry_data(t, c);
            il.replace_child_at(c, F::TYPE_BASE_TYPE.slot as usize, new);
            if let Some(&(_, sup)) = supplements.iter().find(|(r, _)| *r == t) {
                il.replace_child_at(c, F::TYPE_ROUTINE_SUPPLEMENT.slot as usize, sup);
            }
            if il.ty(c).type_kind() == TypeKind::Typeref {
                // A typeref takes the size of what it names.
                let (size, align) = il.as_ty(new).map_or((0, 0), |n| (n.size(), n.alignment()));
                il.ty_mut(c).set_size(size).set_alignment(align);
            } else if il.ty(c).type_kind() == TypeKind::Array {
                if let Some(b) = Self::dependent_bound(il, t) {
                    let nb = self.subst_bound(il, b)?;
                    il.replace_child_at(c, F::TYPE_ARRAY_BOUND.slot as usize, nb);
                }
                // An array of a known bound takes bound times its new element's size.
                let bound = il
                    .child_eix(c, F::TYPE_ARRAY_BOUND)
                    .and_then(|b| Self::value_of_constant(il, b));
                if let Some(Val::Int(n)) = bound {
                    let size = (n.max(0) as u64).saturating_mul(self.size_of(il, new));
                    let align = self.align_of(il, new) as u32;
                    il.ty_mut(c).set_size(size).set_alignment(align);
                }
            }
            new = c;
        }
        if self.pack_index.is_none() {
            self.types.insert(t0, new);
        }
        Ok(Some(new))
    }

    /// Reference collapsing ([dcl.ref]): the reference type `outer` rebuilt over
    /// `inner`, itself a reference (through typedefs), is `inner` when either is an
    /// lvalue reference to begin with or both are rvalue references (`T& &&`, `T&& &&`,
    /// `T& &`), and an lvalue reference to what `inner` refers to for `T&& &`. `None`
    /// when `outer` or `inner` is not a reference.
    fn collapse_reference(il: &mut Il, outer: Eix, inner: Eix) -> Result<Option<Eix>, IlError> {
        use crate::il::kinds::qual::{LREF, RREF};
        let refs = |il: &Il, t: Eix| {
            il.as_ty(t)
                .filter(|x| x.type_kind() == TypeKind::Pointer)
                .map_or(0, |x| x.qualifiers() & (LREF | RREF))
        };
        let r = Self::strip(il, inner);
        let (oq, iq) = (refs(il, outer), refs(il, r));
        if oq == 0 || iq == 0 {
            return Ok(None);
        }
        if oq & RREF != 0 || iq & LREF != 0 {
            return Ok(Some(inner));
        }
        let id = il.alloc_in(EntryKind::Type, RegionIdx::FILE_SCOPE);
        let c = il.eix(id)?;
        il.copy_entry_data(r, c);
        let q = (il.ty(c).qualifiers() & !RREF) | LREF;
        il.ty_mut(c).set_qualifiers(q);
        Ok(Some(c))
    }

    /// For a routine type `t` some of whose parameter types substitution changes, a new
    /// supplement with the substituted parameters (names, defaults and attributes kept);
    /// `None` for any other type, or when no parameter type changes.
    fn subst_routine_params(&mut self, il: &mut Il, t: Eix) -> Result<Option<Eix>, IlError> {
        if il.ty(t).type_kind() != TypeKind::Routine {
            return Ok(None);
        }
        let Some(sup) = il.child_eix(t, F::TYPE_ROUTINE_SUPPLEMENT) else {
            return Ok(None);
        };
        if self.dep_nest >= dependent::MAX_NEST {
            return Ok(None);
        }
        let params: Vec<Eix> = il.list_eix(sup, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS).to_vec();
        let mut types = Vec::with_capacity(params.len());
        self.dep_nest += 1;
        for &p in &params {
            let pt = il.child_eix(p, F::PARAM_TYPE_TYPE);
            let r = self.subst_type(il, pt);
            types.push(match r {
                Ok(nt) => nt,
                Err(e) => {
                    self.dep_nest -= 1;
                    return Err(e);
                }
            });
        }
        self.dep_nest -= 1;
        let changed = params
            .iter()
            .zip(&types)
            .any(|(&p, &nt)| nt != il.child_eix(p, F::PARAM_TYPE_TYPE));
        if !changed {
            return Ok(None);
        }
        let id = il.alloc_in(EntryKind::RoutineTypeSupplement, RegionIdx::FILE_SCOPE);
        let ns = il.eix(id)?;
        il.copy_entry_data(sup, ns);
        il.retain_list(ns, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS, |_| false);
        for (&p, nt) in params.iter().zip(types) {
            let pid = il.alloc_in(EntryKind::ParamType, RegionIdx::FILE_SCOPE);
            let np = il.eix(pid)?;
            il.copy_entry_data(p, np);
            il.replace_child_at(
                np,
                F::PARAM_TYPE_TYPE.slot as usize,
                nt.unwrap_or(Eix::NONE),
            );
            il.push_list(id, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS, pid)?;
        }
        Ok(Some(ns))
    }

    /// The bound of array type `t` when it is an expression to substitute (a
    /// template-parameter constant).
    fn dependent_bound(il: &Il, t: Eix) -> Option<Eix> {
        if il.ty(t).type_kind() != TypeKind::Array {
            return None;
        }
        let b = il.child_eix(t, F::TYPE_ARRAY_BOUND)?;
        (il.kind(b) == EntryKind::Constant
            && il.constant(b).constant_kind() == ConstantKind::TemplateParam)
            .then_some(b)
    }

    /// An array bound substituted and folded as a constant expression (whatever
    /// [`Subst::unfolded`] says): an integer constant, or the substituted expression
    /// constant when it does not fold.
    fn subst_bound(&mut self, il: &mut Il, b: Eix) -> Result<Eix, IlError> {
        self.as_constant(il, b, Self::copy_template_param_con)
    }

    /// Runs `f` on `e` as a constant expression: folding on (whatever
    /// [`Subst::unfolded`] says), references to constexpr variables through their
    /// initializers, and, when a constant expression begins here, a fresh evaluation
    /// budget (module `consteval`).
    pub(super) fn as_constant<T>(
        &mut self,
        il: &mut Il,
        e: Eix,
        f: impl FnOnce(&mut Self, &mut Il, Eix) -> Result<T, IlError>,
    ) -> Result<T, IlError> {
        let saved = (self.unfolded, self.constant_context);
        if !self.constant_context {
            self.const_steps = 0;
        }
        self.unfolded = false;
        self.constant_context = true;
        let r = f(self, il, e);
        (self.unfolded, self.constant_context) = saved;
        r
    }

    /// The array of unknown bound `arr` (its element type already substituted) with
    /// bound `n`, as an initializer of `n` elements completes it ([dcl.array]:
    /// `int a[] = {Ns...}` has one element per pack element), sized as `n` times its
    /// element's size.
    ///
    /// # Errors
    /// Allocation errors.
    pub(super) fn with_bound(&mut self, il: &mut Il, arr: Eix, n: u64) -> Result<Eix, IlError> {
        let id = il.alloc_in(EntryKind::Type, RegionIdx::FILE_SCOPE);
        let c = il.eix(id)?;
        il.copy_entry_data(arr, c);
        let k = il.alloc_in(EntryKind::Constant, RegionIdx::FILE_SCOPE);
        crate::il::kinds::set_constant_kind(il, k, ConstantKind::Integer)?;
        let ke = il.eix(k)?;
        il.constant_mut(ke).set_value(n as i64);
        il.set_child(k, F::CONSTANT_TYPE, Some(il.id_of(self.size_type)))?;
        il.replace_child_at(c, F::TYPE_ARRAY_BOUND.slot as usize, ke);
        let elem = il.child_eix(c, F::TYPE_BASE_TYPE).unwrap_or(Eix::NONE);
        let size = n.saturating_mul(self.size_of(il, elem));
        let align = self.align_of(il, elem) as u32;
        il.ty_mut(c).set_size(size).set_alignment(align);
        Ok(c)
    }

    /// The truth value of condition `e` substituted and folded as a constant expression
    /// (an `if constexpr` condition), `None` when it does not fold.
    pub(super) fn fold_condition(&mut self, il: &mut Il, e: Eix) -> Result<Option<bool>, IlError> {
        let r = self.as_constant(il, e, Self::copy_template_param_expr)?;
        Ok(match Self::const_val(il, r) {
            Some(Val::Int(i)) => Some(i != 0),
            Some(Val::Float(f)) => Some(f != 0.0),
            None => None,
        })
    }

    /// The type kind of `t` ([`TypeKind::Error`] for an entry that is not a type).
    fn tk(il: &Il, t: Eix) -> TypeKind {
        il.as_ty(t).map_or(TypeKind::Error, |t| t.type_kind())
    }

    /// The type a typeref names (typerefs are transparent for arithmetic).
    fn strip(il: &Il, mut t: Eix) -> Eix {
        for _ in 0..64 {
            if il.kind(t) != EntryKind::Type || Self::tk(il, t) != TypeKind::Typeref {
                break;
            }
            match il.child_eix(t, F::TYPE_BASE_TYPE) {
                Some(b) => t = b,
                None => break,
            }
        }
        t
    }

    /// `sizeof` on the data model.
    pub fn size_of(&self, il: &Il, t: Eix) -> u64 {
        let t = Self::strip(il, t);
        match Self::tk(il, t) {
            TypeKind::Pointer | TypeKind::PtrToMember => self.model.pointer_size,
            _ => il.as_ty(t).map_or(0, |t| t.size()),
        }
    }

    /// `alignof` on the data model.
    pub fn align_of(&self, il: &Il, t: Eix) -> u64 {
        let t = Self::strip(il, t);
        match Self::tk(il, t) {
            TypeKind::Pointer | TypeKind::PtrToMember => self.model.pointer_size,
            _ => match il.as_ty(t) {
                Some(ty) if ty.alignment() != 0 => ty.alignment() as u64,
                Some(ty) => ty.size().clamp(1, 8),
                None => 1,
            },
        }
    }

    fn is_float(il: &Il, t: Eix) -> bool {
        matches!(
            Self::tk(il, Self::strip(il, t)),
            TypeKind::Float | TypeKind::Complex | TypeKind::Imaginary
        )
    }

    fn is_unsigned(il: &Il, t: Eix) -> bool {
        let t = Self::strip(il, t);
        il.as_ty(t).is_some_and(|t| t.int_kind().is_unsigned())
    }

    /// Integer promotion: types narrower than int become int.
    fn promote(&self, il: &Il, t: Eix) -> Eix {
        let t = Self::unqualified(il, t);
        if !Self::is_float(il, t) && self.size_of(il, t) < 4 {
            self.int_type
        } else {
            t
        }
    }

    /// `t` without its cv-qualifiers (the unnamed typerefs that carry them): the type of
    /// an arithmetic result ([expr.arith.conv] yields a prvalue of the unqualified type).
    fn unqualified(il: &Il, mut t: Eix) -> Eix {
        for _ in 0..64 {
            if il.kind(t) != EntryKind::Type
                || Self::tk(il, t) != TypeKind::Typeref
                || !il.name(t).is_empty()
            {
                break;
            }
            match il.child_eix(t, F::TYPE_BASE_TYPE) {
                Some(b) => t = b,
                None => break,
            }
        }
        t
    }

    /// The usual arithmetic conversions: the common type of two operand types, without
    /// cv-qualifiers.
    pub fn common_type(&self, il: &Il, a: Eix, b: Eix) -> Eix {
        let (a, b) = (Self::unqualified(il, a), Self::unqualified(il, b));
        match (Self::is_float(il, a), Self::is_float(il, b)) {
            (true, false) => return a,
            (false, true) => return b,
            (true, true) => {
                return if self.size_of(il, b) > self.size_of(il, a) {
                    b
                } else {
                    a
                }
            }
            _ => {}
        }
        let (a, b) = (self.promote(il, a), self.promote(il, b));
        let (sa, sb) = (self.size_of(il, a), self.size_of(il, b));
        if sa != sb {
            return if sb > sa { b } else { a };
        }
        if Self::is_unsigned(il, b) && !Self::is_unsigned(il, a) {
            b
        } else {
            a
        }
    }

    // ---- values ----------------------------------------------------------------------------

    fn expr_type(il: &Il, e: Eix) -> Option<Eix> {
        il.child_eix(e, F::EXPR_NODE_TYPE)
    }

    /// The constant value of `e` where folding may use it (never when
    /// [`Subst::unfolded`]).
    fn folded(&self, il: &Il, e: Eix) -> Option<Val> {
        if self.unfolded {
            None
        } else {
            Self::const_val(il, e)
        }
    }

    fn const_val(il: &Il, e: Eix) -> Option<Val> {
        if il
            .as_expr(e)
            .is_none_or(|x| x.expr_kind() != ExprKind::Constant)
        {
            return None;
        }
        Self::value_of_constant(il, il.child_eix(e, F::EXPR_NODE_CONSTANT)?)
    }

    fn wrap(&self, il: &Il, v: i128, t: Eix) -> i128 {
        let bits = (self.size_of(il, t) * 8).clamp(1, 64) as u32;
        let m = if bits == 64 {
            v as u64 as i128
        } else {
            v & ((1i128 << bits) - 1)
        };
        if Self::is_unsigned(il, t) || bits == 64 && Self::is_unsigned(il, t) {
            m
        } else if bits < 128 && m >= (1i128 << (bits - 1)) {
            m - (1i128 << bits)
        } else {
            m
        }
    }

    /// Whether `t` is `bool` (an integer type of that name, through typerefs).
    fn is_bool(il: &Il, t: Eix) -> bool {
        let t = Self::strip(il, t);
        Self::tk(il, t) == TypeKind::Integer && matches!(il.name(t), b"bool" | b"_Bool")
    }

    fn cast_val(&self, il: &Il, v: Val, t: Eix) -> Val {
        if Self::is_bool(il, t) {
            // Conversion to bool: nonzero is true (1), not the low byte.
            return Val::Int(match v {
                Val::Int(i) => (i != 0) as i128,
                Val::Float(f) => (f != 0.0) as i128,
            });
        }
        match (v, Self::is_float(il, t)) {
            (Val::Int(i), true) => Val::Float(i as f64),
            (Val::Float(f), false) => Val::Int(self.wrap(il, f as i128, t)),
            (Val::Int(i), false) => Val::Int(self.wrap(il, i, t)),
            (f, true) => f,
        }
    }

    /// An `enk_constant` node holding `v` of type `t`; the constant goes through sharing.
    fn const_node(&mut self, il: &mut Il, v: Val, t: Eix) -> Result<Eix, IlError> {
        let (k, bits) = match self.cast_val(il, v, t) {
            Val::Int(i) => (ConstantKind::Integer, i as i64),
            Val::Float(f) => (ConstantKind::Float, f.to_bits() as i64),
        };
        let c = il.alloc_local_constant(k)?;
        let ce = il.eix(c)?;
        il.constant_mut(ce).set_value(bits);
        il.set_child(c, F::CONSTANT_TYPE, Some(il.id_of(t)))?;
        let shared = self.sharing.alloc_shareable_constant(il, c)?;
        il.free_local_constant(c)?;
        let x = il.alloc_expr_node(ExprKind::Constant)?;
        il.set_child(x, F::EXPR_NODE_CONSTANT, Some(shared))?;
        il.set_child(x, F::EXPR_NODE_TYPE, Some(il.id_of(t)))?;
        let xe = il.eix(x)?;
        self.fresh.grow(xe.idx() + 1);
        self.fresh.set(xe.idx(), true);
        Ok(xe)
    }

    /// `e` was folded into another constant: when it is a constant node this
    /// substitution made and nothing holds, it goes to the expression free list (the
    /// folding of seed 000's instantiation frees the operand nodes it replaces).
    fn discard(&mut self, il: &mut Il, e: Eix) -> Result<(), IlError> {
        if !e.is_none() && self.fresh.get(e.idx()) {
            self.fresh.set(e.idx(), false);
            il.free_expr_node(il.id_of(e))?;
        }
        Ok(())
    }

    /// `e` is held somewhere a fold cannot see (a binding reused at every use): never
    /// discarded.
    fn hold(&mut self, e: Eix) {
        if !e.is_none() && self.fresh.get(e.idx()) {
            self.fresh.set(e.idx(), false);
        }
    }

    fn op_node(
        &mut self,
        il: &mut Il,
        op: Op,
        t: Option<Eix>,
        ops: &[Eix],
    ) -> Result<Eix, IlError> {
        let ids: Vec<EntryId> = ops.iter().map(|&o| il.id_of(o)).collect();
        let x = crate::il::kinds::alloc_operation(il, op, t.map(|t| il.id_of(t)), &ids)?;
        il.eix(x)
    }

    /// Converts `e` to `t`: nothing when the types agree, a folded constant when `e` is
    /// one, else an implicit conversion node (op 103).
    fn convert(&mut self, il: &mut Il, e: Eix, t: Eix) -> Result<Eix, IlError> {
        let et = Self::expr_type(il, e);
        if et == Some(t) || crate::compare::equiv_types(il, et, Some(t)) {
            return Ok(e);
        }
        if let Some(v) = self.folded(il, e) {
            let c = self.const_node(il, v, t)?;
            self.discard(il, e)?;
            return Ok(c);
        }
        self.op_node(il, Op::ImplicitConv, Some(t), &[e])
    }

    // ---- expressions -----------------------------------------------------------------------

    /// `copy_template_param_expr`: the substituted copy of an expression tree (the
    /// template's tree is left untouched; untouched leaves are shared with it, and with
    /// [`Subst::unfolded`] so are unchanged subtrees, unfolded). Arithmetic, shift and
    /// comparison operators take the usual arithmetic conversions (with a pointer
    /// operand, pointer arithmetic's types); a call takes its callee's return type and
    /// converts its arguments to the parameter types; a subscript is its element type; a
    /// dependent cast takes the kind its substituted types give; a reference to a routine
    /// is typed as the routine is declared; other nodes keep their operators (a cast its
    /// cast code) over substituted operands.
    ///
    /// # Errors
    /// `imaginary operators not implemented`; `copy_template_param_con: unexpected kind`;
    /// a bad expression kind; stale arguments.
    pub fn copy_template_param_expr(&mut self, il: &mut Il, root: Eix) -> Result<Eix, IlError> {
        let mut out = self.expr_list(il, &[root])?;
        match out.len() {
            1 => Ok(out.pop().unwrap_or(root)),
            _ => Err(IlError::Assert(
                "copy_template_param_expr: a pack expansion outside a list",
            )),
        }
    }

    /// `copy_template_param_expr_list`: substitutes each expression of a list; pack
    /// expansions (kind 30) expand to one element per pack element.
    ///
    /// # Errors
    /// As [`Subst::copy_template_param_expr`].
    pub fn copy_template_param_expr_list(
        &mut self,
        il: &mut Il,
        list: &[Eix],
    ) -> Result<Vec<Eix>, IlError> {
        self.expr_list(il, list)
    }

    /// `copy_template_param_value_expr`: one expression converted to its own (substituted)
    /// type.
    ///
    /// # Errors
    /// As [`Subst::copy_template_param_expr`].
    pub fn copy_template_param_value_expr(&mut self, il: &mut Il, e: Eix) -> Result<Eix, IlError> {
        let t = self.subst_type(il, Self::expr_type(il, e))?;
        let r = self.copy_template_param_expr(il, e)?;
        match t {
            Some(t) => self.convert(il, r, t),
            None => Ok(r),
        }
    }

    /// `copy_template_param_type_expr`: an op-116 type expression with its type
    /// substituted.
    ///
    /// # Errors
    /// Stale arguments.
    pub fn copy_template_param_type_expr(&mut self, il: &mut Il, e: Eix) -> Result<Eix, IlError> {
        let t = self.subst_type(il, Self::expr_type(il, e))?;
        self.op_node(il, Op::TypeExpr, t, &[])
    }

    /// The number of elements the pack expansion `e` expands to: of the pack its
    /// `entity` names (a template parameter), or else of the first pack its pattern
    /// refers to (a function parameter pack, a template parameter pack named as a value,
    /// or an expression typed with a type parameter pack), the nearest first.
    fn pack_len(&self, il: &Il, e: Eix) -> Option<usize> {
        if let Some(n) = il
            .ref_eix(e, F::EXPR_NODE_ENTITY)
            .and_then(|p| self.entity_pack_len(il, p))
        {
            return Some(n);
        }
        let mut queue: std::collections::VecDeque<Eix> = il
            .list_eix(e, F::EXPR_NODE_OPERANDS)
            .iter()
            .copied()
            .collect();
        let mut seen = 0;
        while let Some(x) = queue.pop_front() {
            seen += 1;
            if seen > 1 << 16 || il.kind(x) != EntryKind::ExprNode {
                continue;
            }
            if il.expr(x).expr_kind() == ExprKind::PackExpansion {
                // A nested expansion expands its own packs.
                continue;
            }
            let by_entity = il
                .ref_eix(x, F::EXPR_NODE_ENTITY)
                .and_then(|p| self.entity_pack_len(il, p));
            if let Some(n) = by_entity.or_else(|| self.type_pack_len(il, Self::expr_type(il, x))) {
                return Some(n);
            }
            queue.extend(il.list_eix(x, F::EXPR_NODE_OPERANDS));
        }
        None
    }

    /// The length of the pack entity `p` stands for: a template parameter pack's
    /// argument, or a function parameter pack's instance parameters.
    fn entity_pack_len(&self, il: &Il, p: Eix) -> Option<usize> {
        if let Some(v) = self.entity_packs.get(&p) {
            return Some(v.len());
        }
        let t = il.as_template_param(p)?;
        match self.args.get(t.depth(), t.position()) {
            Some(Binding::Pack(v)) => Some(v.len()),
            _ => None,
        }
    }

    /// The length of the type parameter pack type `t` is built on (through pointers,
    /// references, qualifiers and typerefs), if any.
    fn type_pack_len(&self, il: &Il, t: Option<Eix>) -> Option<usize> {
        let mut cur = t;
        for _ in 0..64 {
            let t = cur?;
            if il.kind(t) != EntryKind::Type {
                return None;
            }
            let ty = il.ty(t);
            let b = match self.args.get_type(il.id_of(t)) {
                Some(b) => Some(b),
                None if ty.type_kind() == TypeKind::TemplateParam => {
                    self.args.get(ty.tparam_depth(), ty.tparam_position())
                }
                None => None,
            };
            if let Some(Binding::Pack(v)) = b {
                return Some(v.len());
            }
            cur = il.child_eix(t, F::TYPE_BASE_TYPE);
        }
        None
    }

    fn expr_list(&mut self, il: &mut Il, roots: &[Eix]) -> Result<Vec<Eix>, IlError> {
        use ExprKind as X;
        let mut stack: Vec<Frame> = roots.iter().rev().map(|&r| Frame::Enter(r)).collect();
        let mut res: Vec<Eix> = Vec::new();
        while let Some(f) = stack.pop() {
            match f {
                Frame::Pack(p) => self.pack_index = p,
                Frame::Enter(e) => {
                    if il.kind(e) != EntryKind::ExprNode {
                        return Err(IlError::WrongTarget {
                            expected: EntryKind::ExprNode,
                            found: il.kind(e),
                        });
                    }
                    let x = il.expr(e);
                    let (k, op) = (x.expr_kind(), x.op());
                    match k {
                        X::PackExpansion => {
                            let pattern = il.list_eix(e, F::EXPR_NODE_OPERANDS).first().copied();
                            let (Some(n), Some(pat)) = (self.pack_len(il, e), pattern) else {
                                res.push(e);
                                continue;
                            };
                            let saved = self.pack_index;
                            for i in (0..n).rev() {
                                stack.push(Frame::Pack(saved));
                                stack.push(Frame::Enter(pat));
                                stack.push(Frame::Pack(Some(i)));
                            }
                        }
                        X::Operation
                        | X::Condition
                        | X::ObjectLifetime
                        | X::AddressOf
                        | X::BuiltinOperation
                        | X::ExprWrapper
                        | X::ComplexOperand
                        | X::ComplexOperand2
                        | X::FoldExpression
                        | X::SimpleOperand
                        | X::AddressOf2
                        | X::SubExpr => {
                            if k == X::Operation && matches!(op, Op::ImagA | Op::ImagB) {
                                return Err(IlError::Assert(IMAGINARY));
                            }
                            if k == X::Operation && op == Op::TypeExpr {
                                let x = self.copy_template_param_type_expr(il, e)?;
                                res.push(x);
                                continue;
                            }
                            stack.push(Frame::Exit(e, res.len()));
                            for &o in il.list_eix(e, F::EXPR_NODE_OPERANDS).iter().rev() {
                                stack.push(Frame::Enter(o));
                            }
                        }
                        _ => {
                            let x = self.leaf(il, e, k)?;
                            res.push(x);
                        }
                    }
                }
                Frame::Exit(e, base) => {
                    let operands: Vec<Eix> = res.split_off(base);
                    let x = self.rebuild(il, e, &operands)?;
                    res.push(x);
                }
            }
        }
        Ok(res)
    }

    fn param_value(&mut self, il: &mut Il, depth: u16, pos: u16) -> Result<Option<Eix>, IlError> {
        match self.tparam_binding(depth, pos) {
            Some(Binding::Value(c)) => {
                let c = il.eix(*c)?;
                let t = il.child_eix(c, F::CONSTANT_TYPE);
                let x = il.alloc_expr_node(ExprKind::Constant)?;
                il.set_child(x, F::EXPR_NODE_CONSTANT, Some(il.id_of(c)))?;
                il.set_child(x, F::EXPR_NODE_TYPE, t.map(|t| il.id_of(t)))?;
                Ok(Some(il.eix(x)?))
            }
            _ => Ok(None),
        }
    }

    fn leaf(&mut self, il: &mut Il, e: Eix, k: ExprKind) -> Result<Eix, IlError> {
        use ConstantKind as C;
        match k {
            ExprKind::Error => Ok(e),
            ExprKind::Constant => {
                let Some(c) = il.child_eix(e, F::EXPR_NODE_CONSTANT) else {
                    return Ok(e);
                };
                let kind = il.constant(c).constant_kind();
                if !matches!(kind, C::Address | C::TemplateParam | C::Reflection) {
                    return Ok(e);
                }
                let n = self.copy_template_param_con(il, c)?;
                let t = il.child_eix(n, F::CONSTANT_TYPE);
                let x = il.alloc_expr_node(ExprKind::Constant)?;
                il.set_child(x, F::EXPR_NODE_CONSTANT, Some(il.id_of(n)))?;
                il.set_child(x, F::EXPR_NODE_TYPE, t.map(|t| il.id_of(t)))?;
                il.eix(x)
            }
            ExprKind::Variable | ExprKind::Routine => {
                if let Some(p) = il.ref_eix(e, F::EXPR_NODE_ENTITY) {
                    if let Some(tp) = il.as_template_param(p) {
                        let (d, pos) = (tp.depth(), tp.position());
                        if let Some(x) = self.param_value(il, d, pos)? {
                            // The argument converted to the parameter's (substituted)
                            // type: a converted constant expression, whether or not
                            // the substitution folds.
                            let t = self.subst_type(il, Self::expr_type(il, e))?;
                            return match (t, Self::const_val(il, x)) {
                                (Some(t), Some(v)) => self.const_node(il, v, t),
                                _ => Ok(x),
                            };
                        }
                    }
                    if let Some(&x) = self.values.get(&p) {
                        return Ok(x);
                    }
                    if let Some(x) = self.constexpr_value(il, e, p)? {
                        return Ok(x);
                    }
                }
                let x = self.retype(il, e)?;
                self.routine_ref_type(il, x)
            }
            _ => self.retype(il, e),
        }
    }

    /// In a constant expression, the value of a reference `e` to the constexpr variable
    /// `v`: its initializer substituted and folded, converted to the variable's
    /// (substituted) type; `None` when that does not fold (or outside constant
    /// expressions, or past `MAX_CONST_NEST` nested variables).
    fn constexpr_value(&mut self, il: &mut Il, e: Eix, v: Eix) -> Result<Option<Eix>, IlError> {
        if !self.constant_context
            || self.const_nest >= MAX_CONST_NEST
            || il.kind(v) != EntryKind::Variable
            || il.variable(v).decl_flags() & crate::il::kinds::vf::CONSTEXPR == 0
        {
            return Ok(None);
        }
        let Some(init) = il.child_eix(v, F::VARIABLE_INITIALIZER) else {
            return Ok(None);
        };
        self.const_nest += 1;
        let r = self.copy_template_param_expr(il, init);
        self.const_nest -= 1;
        let x = r?;
        let t = self.subst_type(il, Self::expr_type(il, e))?;
        match (Self::const_val(il, x), t) {
            (Some(v), Some(t)) => self.const_node(il, v, t).map(Some),
            (Some(_), None) => Ok(Some(x)),
            _ => Ok(None),
        }
    }

    /// In a constant expression, the value of a call (`operands`: the substituted callee
    /// and arguments) of a constexpr routine: its body evaluated with the parameters
    /// bound to the folded arguments ([`Subst::eval_call`], module `consteval`),
    /// converted to the call's type `ty`. `None` when an argument or the result does not
    /// fold, or past `MAX_CONST_NEST` nested calls and variables.
    fn constexpr_call(
        &mut self,
        il: &mut Il,
        operands: &[Eix],
        ty: Option<Eix>,
    ) -> Result<Option<Eix>, IlError> {
        let Some((&callee, args)) = operands.split_first() else {
            return Ok(None);
        };
        if self.const_nest >= MAX_CONST_NEST {
            return Ok(None);
        }
        // The routine the callee names, through decays and casts.
        let mut c = callee;
        let mut routine = None;
        for _ in 0..16 {
            if il.kind(c) != EntryKind::ExprNode {
                break;
            }
            if let Some(r) = il.ref_eix(c, F::EXPR_NODE_ENTITY) {
                routine = Some(r);
                break;
            }
            match il.list_eix(c, F::EXPR_NODE_OPERANDS) {
                [x] => c = *x,
                _ => break,
            }
        }
        let Some(r) = routine.filter(|&r| il.kind(r) == EntryKind::Routine) else {
            return Ok(None);
        };
        if args.iter().any(|&a| Self::const_val(il, a).is_none()) {
            return Ok(None);
        }
        let Some(x) = self.eval_call(il, r, args)? else {
            return Ok(None);
        };
        match (Self::const_val(il, x), ty) {
            (Some(v), Some(t)) => self.const_node(il, v, t).map(Some),
            (Some(_), None) => Ok(Some(x)),
            _ => Ok(None),
        }
    }

    /// A reference `x` to a routine, typed with a routine type, retyped as the routine
    /// is declared (substituted), as a front end types a reference to a declaration: the
    /// pattern's reference may carry another spelling of it. Any other node is returned
    /// as is.
    fn routine_ref_type(&mut self, il: &mut Il, x: Eix) -> Result<Eix, IlError> {
        let Some(r) = il.ref_eix(x, F::EXPR_NODE_ENTITY) else {
            return Ok(x);
        };
        let typed_as_routine = Self::expr_type(il, x)
            .is_some_and(|t| Self::tk(il, Self::strip(il, t)) == TypeKind::Routine);
        if il.expr(x).expr_kind() != ExprKind::Routine
            || il.kind(r) != EntryKind::Routine
            || !typed_as_routine
        {
            // (A builtin is referred to with clang's special builtin type, kept.)
            return Ok(x);
        }
        let declared = il.child_eix(r, F::ROUTINE_TYPE);
        let t = self.subst_type(il, declared)?;
        if t.is_none() || t == Self::expr_type(il, x) {
            return Ok(x);
        }
        let id = il.alloc_in(EntryKind::ExprNode, il.current_region());
        let c = il.eix(id)?;
        il.copy_entry_data(x, c);
        il.replace_child_at(c, F::EXPR_NODE_TYPE.slot as usize, t.unwrap_or(Eix::NONE));
        Ok(c)
    }

    /// A shallow copy of `e` with its type substituted (or `e` itself when unchanged).
    fn retype(&mut self, il: &mut Il, e: Eix) -> Result<Eix, IlError> {
        let t = Self::expr_type(il, e);
        let nt = self.subst_type(il, t)?;
        let ent = il.ref_eix(e, F::EXPR_NODE_ENTITY);
        let nent = ent.and_then(|x| self.mapped_entity(x));
        if nt == t && nent.is_none() {
            return Ok(e);
        }
        let id = il.alloc_in(EntryKind::ExprNode, il.current_region());
        let c = il.eix(id)?;
        il.copy_entry_data(e, c);
        il.replace_child_at(c, F::EXPR_NODE_TYPE.slot as usize, nt.unwrap_or(Eix::NONE));
        if let Some(n) = nent {
            il.set_ref_eix(c, F::EXPR_NODE_ENTITY, n)?;
        }
        Ok(c)
    }

    fn fold_binary(&self, il: &Il, op: Op, a: Val, b: Val, t: Eix) -> Option<Val> {
        use Val::*;
        let cmp = |o: std::cmp::Ordering| -> Option<Val> {
            use std::cmp::Ordering::*;
            let r = match op {
                Op::Eq => o == Equal,
                Op::Ne => o != Equal,
                Op::Lt => o == Less,
                Op::Gt => o == Greater,
                Op::Le => o != Greater,
                Op::Ge => o != Less,
                _ => return None,
            };
            Some(Int(r as i128))
        };
        match (a, b) {
            (Int(x), Int(y)) => {
                if (Op::Eq..=Op::Ge).contains(&op) {
                    return cmp(x.cmp(&y));
                }
                let v = match op {
                    Op::Add => x.checked_add(y)?,
                    Op::Sub => x.checked_sub(y)?,
                    Op::Mul => x.checked_mul(y)?,
                    Op::Div if y != 0 => x.checked_div(y)?,
                    Op::Rem if y != 0 => x.checked_rem(y)?,
                    Op::BitAnd => x & y,
                    Op::BitOr => x | y,
                    Op::BitXor => x ^ y,
                    Op::Shl if (0..64).contains(&y) => x << y,
                    Op::Shr if (0..64).contains(&y) => x >> y,
                    _ => return None,
                };
                Some(Int(self.wrap(il, v, t)))
            }
            (Float(x), Float(y)) => {
                if (Op::Eq..=Op::Ge).contains(&op) {
                    return cmp(x.partial_cmp(&y)?);
                }
                Some(Float(match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                    Op::Div => x / y,
                    _ => return None,
                }))
            }
            _ => None,
        }
    }

    /// `do_conversions_on_operands_of_copied_template_expr` and folding for one rebuilt
    /// node with substituted `operands`.
    fn rebuild(&mut self, il: &mut Il, e: Eix, operands: &[Eix]) -> Result<Eix, IlError> {
        let src = il.expr(e);
        let (k, op) = (src.expr_kind(), src.op());
        let t0 = Self::expr_type(il, e);
        let ty = self.subst_type(il, t0)?;
        let ent = il.ref_eix(e, F::EXPR_NODE_ENTITY);
        if k == ExprKind::Operation && op == Op::SizeofPack {
            // `sizeof...(pack)` names the pack itself, never an element: folded to its
            // length, or kept as written (what a front end that folds on demand records).
            let n = ent.and_then(|p| self.entity_pack_len(il, p));
            return match (n, ty) {
                (Some(n), Some(t)) if !self.unfolded => self.const_node(il, Val::Int(n as i128), t),
                _ => Ok(e),
            };
        }
        let nent = ent.and_then(|x| self.mapped_entity(x));
        if self.unfolded
            && ty == t0
            && nent.is_none()
            && operands == il.list_eix(e, F::EXPR_NODE_OPERANDS)
        {
            // Nothing under it changed: the pattern's node stands (folded as written).
            return Ok(e);
        }
        let int = self.int_type;
        let optype = |il: &Il, x: Eix| Self::expr_type(il, x).unwrap_or(int);
        if k == ExprKind::FoldExpression && op != Op::Dependent {
            // Fold expression: op over the expanded elements, left to right (an importer
            // that does not know the operator records `Dependent`: the node is kept, its
            // operands expanded).
            let Some((&first, rest)) = operands.split_first() else {
                return Ok(e);
            };
            let mut acc = first;
            for &x in rest {
                acc = self.binary(il, op, acc, x)?;
            }
            return Ok(acc);
        }
        if k != ExprKind::Operation {
            // Wrappers and lists: same node kind, substituted operands and type.
            if operands.len() == 1
                && matches!(
                    k,
                    ExprKind::ObjectLifetime | ExprKind::ExprWrapper | ExprKind::SubExpr
                )
                && ty.is_none()
            {
                return Ok(operands[0]);
            }
            return self.same_node(il, e, ty, operands);
        }
        if op == Op::Call && self.constant_context {
            if let Some(x) = self.constexpr_call(il, operands, ty)? {
                return Ok(x);
            }
        }
        match (op, operands) {
            (Op::Sizeof | Op::Alignof, _) if self.unfolded => self.same_node(il, e, ty, operands),
            (Op::Assign, [a, b]) => {
                // Simple assignment: the right operand converted to the left's type.
                let t = optype(il, *a);
                let b = self.convert(il, *b, t)?;
                self.same_node(il, e, Some(t), &[*a, b])
            }
            (Op::Sizeof | Op::Alignof, [t]) => {
                let tt = Self::expr_type(il, *t).unwrap_or(int);
                let v = if op == Op::Sizeof {
                    self.size_of(il, tt)
                } else {
                    self.align_of(il, tt)
                };
                let st = self.size_type;
                self.const_node(il, Val::Int(v as i128), st)
            }
            (Op::Cast | Op::ImplicitConv, [x]) => {
                let t = ty.unwrap_or_else(|| optype(il, *x));
                if let Some(v) = self.folded(il, *x) {
                    let c = self.const_node(il, v, t)?;
                    self.discard(il, *x)?;
                    return Ok(c);
                }
                let n = self.same_node(il, e, Some(t), &[*x])?;
                if il.expr(e).cast_kind() == Some(CastKind::Dependent) {
                    if let Some(k) = casts::explicit_cast_kind(il, optype(il, *x), t) {
                        il.expr_mut(n).set_cast_kind(k);
                    }
                }
                Ok(n)
            }
            (Op::Neg | Op::Compl | Op::Not, [x]) => {
                let t = if op == Op::Not {
                    self.truth_type()
                } else {
                    self.promote(il, optype(il, *x))
                };
                let x = if op == Op::Not {
                    self.contextual_bool(il, *x)?
                } else {
                    self.convert(il, *x, t)?
                };
                match self.folded(il, x) {
                    Some(Val::Int(i)) => {
                        let v = match op {
                            Op::Neg => -i,
                            Op::Compl => !i,
                            _ => (i == 0) as i128,
                        };
                        let v = self.wrap(il, v, t);
                        let c = self.const_node(il, Val::Int(v), t)?;
                        self.discard(il, x)?;
                        Ok(c)
                    }
                    Some(Val::Float(f)) if op != Op::Compl => {
                        let v = if op == Op::Neg {
                            Val::Float(-f)
                        } else {
                            Val::Int((f == 0.0) as i128)
                        };
                        let c = self.const_node(il, v, t)?;
                        self.discard(il, x)?;
                        Ok(c)
                    }
                    _ => self.op_node(il, op, Some(t), &[x]),
                }
            }
            (Op::Cond, [c, a, b]) => {
                // Arms of one type give that type ([expr.cond]); arithmetic arms of two
                // types their common type.
                let (ta, tb) = (optype(il, *a), optype(il, *b));
                let t = if crate::compare::equiv_types(il, Some(ta), Some(tb)) {
                    ta
                } else {
                    self.common_type(il, ta, tb)
                };
                let (a, b) = (self.convert(il, *a, t)?, self.convert(il, *b, t)?);
                match self.folded(il, *c) {
                    Some(Val::Int(i)) => Ok(if i != 0 { a } else { b }),
                    Some(Val::Float(f)) => Ok(if f != 0.0 { a } else { b }),
                    None => self.op_node(il, op, Some(t), &[*c, a, b]),
                }
            }
            (Op::Paren, [x]) => Ok(*x),
            (Op::LogAnd | Op::LogOr, [a, b]) => {
                let t = self.truth_type();
                let (a, b) = (self.contextual_bool(il, *a)?, self.contextual_bool(il, *b)?);
                let (a, b) = (&a, &b);
                match (self.folded(il, *a), self.folded(il, *b)) {
                    (Some(Val::Int(x)), Some(Val::Int(y))) => {
                        let v = if op == Op::LogAnd {
                            x != 0 && y != 0
                        } else {
                            x != 0 || y != 0
                        };
                        let c = self.const_node(il, Val::Int(v as i128), t)?;
                        self.discard(il, *a)?;
                        self.discard(il, *b)?;
                        Ok(c)
                    }
                    _ => self.same_node(il, e, Some(t), &[*a, *b]),
                }
            }
            (
                Op::Add
                | Op::Sub
                | Op::Mul
                | Op::Div
                | Op::Rem
                | Op::BitAnd
                | Op::BitOr
                | Op::BitXor
                | Op::Shl
                | Op::Shr
                | Op::Eq
                | Op::Ne
                | Op::Lt
                | Op::Gt
                | Op::Le
                | Op::Ge,
                [a, b],
            ) => self.binary(il, op, *a, *b),
            (Op::Subscript, [a, b]) => {
                let t = Self::subscript_type(il, *a, *b).or(ty);
                self.same_node(il, e, t, operands)
            }
            (Op::Call, [_, ..]) => self.call(il, e, ty, operands),
            // Assignments, members, ...: the same node on the substituted operands and
            // type.
            _ => self.same_node(il, e, ty, operands),
        }
    }

    /// A node of `e`'s kind, operators (the cast code too) and entity (remapped) on
    /// `operands`, typed `ty`.
    fn same_node(
        &mut self,
        il: &mut Il,
        e: Eix,
        ty: Option<Eix>,
        operands: &[Eix],
    ) -> Result<Eix, IlError> {
        let src = il.expr(e);
        let (k, op, op2) = (src.expr_kind(), src.op(), src.op2());
        let x = il.alloc_expr_node(k)?;
        let xe = il.eix(x)?;
        il.expr_mut(xe).set_op(op).set_op2(op2);
        il.set_child(x, F::EXPR_NODE_TYPE, ty.map(|t| il.id_of(t)))?;
        if let Some(ent) = il.ref_eix(e, F::EXPR_NODE_ENTITY) {
            let n = self.mapped_entity(ent).unwrap_or(ent);
            il.set_ref_eix(xe, F::EXPR_NODE_ENTITY, n)?;
        }
        for &o in operands {
            il.push_list(x, F::EXPR_NODE_OPERANDS, il.id_of(o))?;
        }
        Ok(xe)
    }

    /// A binary operation on substituted operands: shifts take the promoted left type,
    /// comparisons and arithmetic convert both operands to the common type (inserting
    /// implicit conversion nodes), comparisons yield int; constants fold.
    fn binary(&mut self, il: &mut Il, op: Op, a: Eix, b: Eix) -> Result<Eix, IlError> {
        if matches!(op, Op::ImagA | Op::ImagB) {
            return Err(IlError::Assert(IMAGINARY));
        }
        let int = self.int_type;
        let ta = Self::expr_type(il, a).unwrap_or(int);
        let tb = Self::expr_type(il, b).unwrap_or(int);
        if let Some(t) = self.pointer_arithmetic(il, op, ta, tb) {
            // The operands stay as they are (an array or function operand decays,
            // which comparison does not see).
            return self.op_node(il, op, Some(t), &[a, b]);
        }
        let (a, b, t_ops, t_res) = if matches!(op, Op::Shl | Op::Shr) {
            let t = self.promote(il, ta);
            let pb = self.promote(il, tb);
            (self.convert(il, a, t)?, self.convert(il, b, pb)?, t, t)
        } else {
            let t = self.common_type(il, ta, tb);
            let res = if (Op::Eq..=Op::Ge).contains(&op) {
                self.truth_type()
            } else {
                t
            };
            (self.convert(il, a, t)?, self.convert(il, b, t)?, t, res)
        };
        if let (Some(x), Some(y)) = (self.folded(il, a), self.folded(il, b)) {
            if let Some(v) = self.fold_binary(il, op, x, y, t_ops) {
                let c = self.const_node(il, v, t_res)?;
                self.discard(il, a)?;
                self.discard(il, b)?;
                return Ok(c);
            }
        }
        self.op_node(il, op, Some(t_res), &[a, b])
    }

    /// The result type of a binary operator with a pointer operand ([expr.add],
    /// [expr.rel], [expr.eq]): the difference of two pointers is `ptrdiff_t`, a pointer
    /// plus or minus an integer is the pointer's type, a comparison is the truth type.
    /// `None` when neither operand is a pointer, or for an operator pointers do not take.
    fn pointer_arithmetic(&self, il: &Il, op: Op, ta: Eix, tb: Eix) -> Option<Eix> {
        let is_ptr = |t: Eix| {
            matches!(
                Self::tk(il, crate::il::kinds::strip_typerefs(il, t)),
                TypeKind::Pointer | TypeKind::Array
            )
        };
        let (pa, pb) = (is_ptr(ta), is_ptr(tb));
        if !pa && !pb {
            return None;
        }
        let pointer = |t: Eix| {
            // An array operand decays: its element type's pointer is not at hand, so
            // the result names the array's type only when the other operand is the
            // pointer.
            (Self::tk(il, crate::il::kinds::strip_typerefs(il, t)) == TypeKind::Pointer)
                .then_some(t)
        };
        match op {
            Op::Sub if pa && pb => Some(self.ptrdiff_type),
            Op::Add | Op::Sub if pa && !pb => pointer(ta),
            Op::Add if pb && !pa => pointer(tb),
            Op::Eq | Op::Ne | Op::Lt | Op::Gt | Op::Le | Op::Ge => Some(self.truth_type()),
            _ => None,
        }
    }

    /// The type a subscript `a[b]` has: the element type of whichever operand is an
    /// array or a pointer (qualifiers kept), `None` when neither is.
    fn subscript_type(il: &Il, a: Eix, b: Eix) -> Option<Eix> {
        [a, b].into_iter().find_map(|x| {
            let t = crate::il::kinds::strip_typerefs(il, Self::expr_type(il, x)?);
            match Self::tk(il, t) {
                TypeKind::Pointer | TypeKind::Array => il.child_eix(t, F::TYPE_BASE_TYPE),
                _ => None,
            }
        })
    }

    /// The routine type a callee has: its type, through a pointer to it (and for an
    /// address constant of a routine, the routine's declared type). `None` when it has
    /// none (a builtin, a dependent callee).
    fn callee_routine_type(il: &Il, callee: Eix) -> Option<Eix> {
        let declared = || {
            let c = il.child_eix(callee, F::EXPR_NODE_CONSTANT)?;
            (il.constant(c).address_kind() == Some(crate::il::AddressKind::Routine))
                .then(|| il.child_eix(c, F::CONSTANT_OPERAND))
                .flatten()
                .filter(|&r| il.kind(r) == EntryKind::Routine)
                .and_then(|r| il.child_eix(r, F::ROUTINE_TYPE))
        };
        let mut t =
            crate::il::kinds::strip_typerefs(il, Self::expr_type(il, callee).or_else(declared)?);
        if Self::tk(il, t) == TypeKind::Pointer {
            t = crate::il::kinds::strip_typerefs(il, il.child_eix(t, F::TYPE_BASE_TYPE)?);
        }
        (Self::tk(il, t) == TypeKind::Routine).then_some(t)
    }

    /// The type a call of a routine of type `rt` has: its return type, a reference
    /// return giving the referred type.
    fn return_type(il: &Il, rt: Eix) -> Option<Eix> {
        let r = il.child_eix(rt, F::TYPE_BASE_TYPE)?;
        let t = il.as_ty(r)?;
        let is_ref = t.type_kind() == TypeKind::Pointer
            && t.qualifiers() & (crate::il::kinds::qual::LREF | crate::il::kinds::qual::RREF) != 0;
        if is_ref {
            il.child_eix(r, F::TYPE_BASE_TYPE)
        } else {
            Some(r)
        }
    }

    /// A call on substituted `operands` (callee first): when the callee's routine type
    /// is known, its return type, and each argument converted to its parameter's type (a
    /// constant folded to it), as overload resolution's chosen conversion sequence does
    /// for a non-overloaded callee; the variadic tail and a callee with a parameter pack
    /// keep their arguments.
    fn call(
        &mut self,
        il: &mut Il,
        e: Eix,
        ty: Option<Eix>,
        operands: &[Eix],
    ) -> Result<Eix, IlError> {
        let Some((&callee, args)) = operands.split_first() else {
            return self.same_node(il, e, ty, operands);
        };
        let Some(rt) = Self::callee_routine_type(il, callee) else {
            return self.same_node(il, e, ty, operands);
        };
        let t = Self::return_type(il, rt).or(ty);
        let params: Vec<Eix> = il
            .child_eix(rt, F::TYPE_ROUTINE_SUPPLEMENT)
            .map(|s| il.list_eix(s, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS).to_vec())
            .unwrap_or_default();
        if params.iter().any(|&p| il.param_type(p).is_pack()) {
            return self.same_node(il, e, t, operands);
        }
        let mut ops = Vec::with_capacity(operands.len());
        ops.push(callee);
        for (i, &a) in args.iter().enumerate() {
            let pt = params
                .get(i)
                .and_then(|&p| il.child_eix(p, F::PARAM_TYPE_TYPE));
            ops.push(match pt {
                Some(pt) => self.convert_argument(il, a, pt)?,
                None => a,
            });
        }
        self.same_node(il, e, t, &ops)
    }

    /// Argument `a` converted to parameter type `pt`: nothing when their types agree but
    /// for typedefs, qualifiers and references (a reference binds; a parameter's
    /// top-level qualifiers are not its function type's); a cast of the standard
    /// conversion's kind when that kind changes the representation (`BitCast` of a
    /// pointer, `DerivedToBase`, ...), as clang records it; else [`Subst::convert`].
    /// The operand `x` of a logical operator converted to `bool` in C++ ([expr.log.and],
    /// [expr.log.or], [expr.unary.op]: contextually converted, clang's
    /// `IntegralToBoolean` and the like); as it is in C (the seed's `int` truth values).
    fn contextual_bool(&mut self, il: &mut Il, x: Eix) -> Result<Eix, IlError> {
        match self.bool_type {
            Some(b) => self.convert_argument(il, x, b),
            None => Ok(x),
        }
    }

    fn convert_argument(&mut self, il: &mut Il, a: Eix, pt: Eix) -> Result<Eix, IlError> {
        use crate::il::kinds::strip_typerefs;
        let Some(at) = Self::expr_type(il, a) else {
            return Ok(a);
        };
        let (ua, up) = (strip_typerefs(il, at), strip_typerefs(il, pt));
        if ua == up || crate::compare::equiv_types(il, Some(ua), Some(up)) {
            return Ok(a);
        }
        match casts::explicit_cast_kind(il, at, pt) {
            Some(k) if !k.is_transparent() => {
                let x = self.op_node(il, Op::Cast, Some(pt), &[a])?;
                il.expr_mut(x).set_cast_kind(k);
                Ok(x)
            }
            _ => self.convert(il, a, pt),
        }
    }

    // ---- constants -------------------------------------------------------------------------

    fn value_of_constant(il: &Il, c: Eix) -> Option<Val> {
        let t = il.constant(c);
        match t.constant_kind() {
            ConstantKind::Integer => Some(Val::Int(t.value() as i128)),
            ConstantKind::Float => Some(Val::Float(f64::from_bits(t.value() as u64))),
            _ => None,
        }
    }
}

mod casts;
mod check;
mod constants;
mod consteval;
mod dependent;
mod partial;
mod same;
mod synth;
pub use check::{check_instantiations, InstantiationReport, Tally};
pub use dependent::Specializations;
pub use same::same_type;
pub use synth::instantiate_synth_templates;
