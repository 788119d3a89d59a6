//! Types from clang's type-printer strings.
//!
//! clang's JSON gives every type as a string (`qualType`, and `desugaredQualType` when
//! sugar was printed). [`Types::intern`] parses that syntax — cv-qualifiers, builtin
//! keyword sequences, (qualified, template-id) names, pointers, references, arrays,
//! function types and parenthesized declarators such as `void (*)(int)` — into type
//! entries, interned by spelling so each distinct spelling is parsed once (a spelling whose
//! meaning depends on the enclosing scopes is interned once per scope).
//!
//! Names resolve as clang's printer wrote them, relative to the scope of the declaration:
//! 1. from the innermost enclosing scope outwards (namespaces, classes; for an out-of-line
//!    member definition, the class its `parentDeclContextId` names), including member types
//!    a class inherits from its bases (`difference_type` in `_Bit_iterator`);
//! 2. by normalized qualified name;
//! 3. a template parameter in scope or clang's canonical `type-parameter-D-I`: a
//!    tk_template_param entry;
//! 4. `A::b`: `A` resolved (through typedefs) to a class, then its member `b` (own or
//!    inherited); a member of a template parameter, or one a class template pattern lacks,
//!    is a dependent member type: a tk_template_param named `b` whose base type is `A`
//!    (for a template-id with arguments, `Traits<T>`, a dependent template-id: a typeref
//!    over the pattern whose template_info holds the arguments as written), which
//!    substitution resolves in the instantiated class (`instantiate`);
//! 5. a template-id of a class or alias template without that specialization: inside a
//!    template pattern, a dependent template-id over the class template's pattern (its
//!    arguments may depend on the parameters through member typedefs or the injected
//!    class name: `iter<pointer, vec>`); elsewhere the pattern (of clang's builtin
//!    `__make_integer_seq` / `__type_pack_element`: the dependent type);
//! 6. a unique unqualified last component.
//!
//! `typename A::b` whose qualifier names nothing known is the dependent type
//! (`<dependent type>`, tk_template_param, as are `decltype(...)` and clang's own
//! `<dependent type>`); `auto` is one tk_template_param named `auto` (deduction from an
//! initializer replaces it). An array bound that is an expression over non-type
//! template parameters and constexpr variables is kept as that expression (`bound`);
//! such a spelling is not interned (its names mean other things elsewhere). Local types
//! of a routine body are named inside that body (a `(body ID)` scope component), so a
//! template's pattern and each instantiation have their own. Anything else becomes a named placeholder
//! (`tk_error`) that a later definition of that name fills in. Placeholders still unfilled
//! at the end are the unresolved type names. An expression's type is printed in the scope
//! of the entity it names (`traits_type::copy` has type `char_type *(char_type *, …)`):
//! where that spelling does not resolve in the current scope the importer passes the
//! entity's declared type ([`Alt`]): a reference's referent, a call's callee return type,
//! a pointer to the function type for a function-to-pointer decay.
//!
//! Type entries built here (type_kind per `kinds::TYPE_KIND_NAMES`): builtins are
//! tk_void/tk_integer/tk_float with `size`; pointers are tk_pointer (`qualifiers` bit 8 =
//! lvalue reference, bit 16 = rvalue reference); cv-qualified types are an unnamed
//! tk_typeref with `qualifiers` (1 const, 2 volatile, 4 restrict) over the base type;
//! arrays are tk_array with the bound as an integer constant (or a template-parameter
//! constant of sub-kind 1 over the bound's expression); function types are tk_routine
//! with param_type entries in the routine-type supplement; template parameters are
//! tk_template_param. Parsing recursion is bounded (depth 24); deeper input becomes a
//! placeholder.
//!
//! Layout: this module owns the interned spellings (`Types`, `intern`/`intern_or`, the
//! per-scope cache and the unresolved-reference counts); `parse` reads the type-printer
//! syntax into type entries (lexer, declarators, builtins); `bound` reads a dependent
//! array bound's expression; `names` indexes named types
//! and resolves names in the enclosing scopes (steps 1–6 above, placeholders, the late
//! pass after the import).

mod bound;
mod names;
mod parse;

pub use names::last_component;

use crate::il::kinds;
use crate::il::{fields as F, Eix, EntryId, EntryKind, Il, IlError, RegionIdx, TypeKind};
use ahash::{AHashMap, AHashSet};
use std::rc::Rc;

const MAX_DEPTH: u32 = 24;

/// Prefixes the cache key of a spelling read as a dependent type inside a pattern.
const PATTERN_MARK: &str = "\u{1}";

pub use crate::il::kinds::qual;

/// Normalizes a type or name spelling: drops spaces that are not between two identifier
/// characters (`A<B<int> >` and `A<B<int>>` agree).
pub fn normalize(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b' ' {
            let prev = out.as_bytes().last().copied();
            let mut j = i;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            let next = b.get(j).copied();
            if let (Some(p), Some(n)) = (prev, next) {
                if ident(p) && ident(n) {
                    out.push(' ');
                }
            }
            i = j;
            continue;
        }
        out.push(c as char);
        i += 1;
    }
    out
}

/// What an expression's type spelling stands for where it does not resolve in the
/// current scope ([`Types::intern_or`]).
#[derive(Clone, Copy, Debug)]
pub enum Alt {
    /// Nothing: the spelling's own (unresolved) type.
    None,
    /// This type.
    Type(Eix),
    /// A pointer to this (function) type.
    PointerTo(Eix),
}

/// A non-type template parameter in scope.
#[derive(Clone, Debug)]
pub struct ValueParam {
    /// Its name.
    pub name: String,
    /// clang's depth and index.
    pub depth: u16,
    /// Its position (clang's index).
    pub position: u16,
    /// Its type (none when unknown).
    pub ty: Eix,
    /// `tparam_scopes.len()` when it was declared (it leaves scope with that scope).
    pub level: usize,
}

/// One interned spelling: its type, its references outside and inside template
/// patterns, and the placeholder its parse met (if any).
#[derive(Clone, Copy, Debug)]
struct Spelling {
    t: Eix,
    hits: u32,
    pattern_hits: u32,
    ph: Eix,
}

/// Interned types and the name index.
#[derive(Debug, Default)]
pub struct Types {
    by_spelling: AHashMap<Box<str>, Spelling>,
    /// Spellings whose meaning depends on the enclosing scopes, by scopes + spelling.
    by_scope: AHashMap<Box<str>, Spelling>,
    /// The placeholder each interned type's spelling met (types of unresolved spellings).
    ph_of: AHashMap<Eix, Eix>,
    /// Base types of each class type.
    bases: AHashMap<Eix, Vec<Eix>>,
    /// Pointer types made for function-to-pointer decays, by target type.
    pointers: AHashMap<Eix, Eix>,
    /// Qualified name → type; the names are shared with `qname_of`.
    by_name: AHashMap<Rc<str>, Eix>,
    by_last: AHashMap<Box<str>, Eix>,
    by_template: AHashMap<String, Eix>,
    builtins: AHashMap<String, Eix>,
    tparams: AHashMap<String, Eix>,
    /// Active template parameter names (innermost last).
    pub tparam_scopes: Vec<Vec<String>>,
    /// Non-type template parameters in scope, innermost last: what a dependent array
    /// bound's names refer to (`bound`).
    pub value_params: Vec<ValueParam>,
    /// constexpr variables by name, the latest declaration of each (a dependent array
    /// bound may name one: `int r[n_per_thread]`).
    pub const_vars: AHashMap<String, Eix>,
    /// Set while a parse made a type that depends on the declarations in scope beyond
    /// the enclosing scopes' names (a dependent array bound): that spelling is not
    /// interned.
    uncacheable: bool,
    placeholders: Vec<Eix>,
    dependent: Option<Eix>,
    auto: Option<Eix>,
    /// Type references interned (one per type string met).
    pub refs: u64,
    /// Type references that named a dependent type (`<dependent type>`, `typename T::x`,
    /// `decltype(...)`) inside templates.
    pub dependent_refs: u64,
    /// Names that became placeholders, first spelling each.
    pub placeholder_names: AHashMap<Eix, Rc<str>>,
    last_placeholder: Eix,
    /// Set by the importer while inside a template pattern (references there are counted
    /// apart: their unresolved names are mostly dependent).
    pub in_pattern: bool,
    by_template_last: AHashMap<String, Eix>,
    /// Specializations (qualified name with arguments) by their template's last name
    /// component: what a template-id spelled with its defaulted arguments left out or
    /// its arguments unqualified is matched against ([`Types::match_specialization`]).
    specs_by_last: AHashMap<String, Vec<(names::Spelled, Eix)>>,
    /// The enclosing scopes' name components (namespaces, classes), innermost last,
    /// maintained by the importer: unqualified names are looked up from the innermost
    /// scope outwards.
    pub qual: Vec<String>,
    scoped_hit: bool,
    /// The qualified name each named type was first indexed under (member lookup).
    qname_of: AHashMap<Eix, Rc<str>>,
    /// Closure types by file name, line and column (`names::lambda_key`).
    lambdas: AHashMap<String, Eix>,
    /// Placeholders of closure-type spellings met before their closure type, by key.
    lambda_placeholders: AHashMap<String, Vec<Eix>>,
    /// Patterns of class and alias templates.
    patterns: AHashSet<Eix>,
}

fn new_type(il: &mut Il, k: TypeKind, name: Option<&str>) -> Result<Eix, IlError> {
    let id = il.alloc(EntryKind::Type)?;
    kinds::set_type_kind(il, id, k)?;
    if let Some(n) = name {
        il.set_string(id, 0, n.as_bytes())?;
    }
    let e = il.eix(id)?;
    if k == TypeKind::TemplateParam {
        // A placeholder stands for no parameter: never bound by position. clang's
        // canonical `type-parameter-D-I` gives its position. A parameter known by name is
        // one entry for every template that uses the name, so it has no position of its
        // own: it keeps depth 0, position 0 (substitution binds it by entry where the
        // arguments name it; the positional fallback reads the first argument, what a
        // single-parameter template means).
        let (depth, position) = match name {
            Some("auto" | "<dependent type>") => (kinds::UNPOSITIONED, 0),
            n => n.and_then(canonical_position).unwrap_or((0, 0)),
        };
        il.ty_mut(e)
            .set_tparam_depth(depth)
            .set_tparam_position(position);
    }
    Ok(e)
}

/// The depth and index clang's canonical spelling of a template type parameter
/// (`type-parameter-1-0`) gives.
fn canonical_position(name: &str) -> Option<(u16, u16)> {
    let (d, i) = name.strip_prefix("type-parameter-")?.split_once('-')?;
    Some((d.parse().ok()?, i.parse().ok()?))
}

fn set_base(il: &mut Il, t: Eix, base: Eix) -> Result<(), IlError> {
    let (ti, bi) = (il.id_of(t), il.id_of(base));
    il.set_child(ti, F::TYPE_BASE_TYPE, Some(bi))
}

impl Types {
    /// Type references whose spelling involves a name still unresolved: `(outside
    /// patterns, inside patterns, names with counts outside patterns)`.
    pub fn unresolved_refs(&self, il: &Il) -> (u64, u64, Vec<(String, u32)>) {
        let (mut n, mut np) = (0u64, 0u64);
        let mut names: AHashMap<&str, u32> = AHashMap::new();
        for sp in self.by_spelling.values().chain(self.by_scope.values()) {
            if !sp.ph.is_none() && self.is_placeholder(il, sp.ph) {
                n += sp.hits as u64;
                np += sp.pattern_hits as u64;
                if sp.hits > 0 {
                    if let Some(s) = self.placeholder_names.get(&sp.ph) {
                        *names.entry(&s[..]).or_default() += sp.hits;
                    }
                }
            }
        }
        let mut v: Vec<(String, u32)> =
            names.into_iter().map(|(k, c)| (k.to_string(), c)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        (n, np, v)
    }

    fn is_placeholder(&self, il: &Il, t: Eix) -> bool {
        il.is_live(t) && il.kind(t) == EntryKind::Type && il.ty(t).type_kind() == TypeKind::Error
    }

    /// The type for a spelling, parsed once and interned. Counts one type reference.
    pub fn intern(&mut self, il: &mut Il, s: &str) -> Result<Eix, IlError> {
        self.intern_or(il, s, Alt::None)
    }

    /// [`Types::intern`], except that a spelling left unresolved here stands for the type
    /// `alt` gives when that resolved: clang prints an expression's type relative to the
    /// scope of the entity it refers to (`char_type *(char_type *, const char_type *,
    /// size_t)` for `traits_type::copy`), so the entity's declared type, its return type
    /// for a call, or a pointer to its function type for a decay is the same type.
    pub fn intern_or(&mut self, il: &mut Il, s: &str, alt: Alt) -> Result<Eix, IlError> {
        self.refs += 1;
        let inp = self.in_pattern;
        // Types are file-scope entries; their param_type/constant parts must be too.
        let saved = il.current_region();
        if saved != RegionIdx::FILE_SCOPE {
            il.switch_region(RegionIdx::FILE_SCOPE)?;
        }
        self.uncacheable = false;
        let r = self.spelling(il, s, 0);
        if saved != RegionIdx::FILE_SCOPE {
            il.switch_region(saved)?;
        }
        let (key, v) = r?;
        if self.unresolved(il, &v) {
            match alt {
                Alt::Type(t) if self.is_resolved_type(il, t) => return Ok(t),
                Alt::PointerTo(t) if self.is_resolved_type(il, t) => return self.pointer_to(il, t),
                _ => {}
            }
        }
        let slot = match &key {
            None => self.by_spelling.get_mut(s),
            Some(k) => self.by_scope.get_mut(k.as_str()),
        };
        if let Some(v) = slot {
            if inp {
                v.pattern_hits += 1;
            } else {
                v.hits += 1;
            }
        }
        Ok(v.t)
    }

    fn unresolved(&self, il: &Il, v: &Spelling) -> bool {
        !v.ph.is_none() && self.is_placeholder(il, v.ph)
    }

    /// The pointer type to `t` (one per target type).
    fn pointer_to(&mut self, il: &mut Il, t: Eix) -> Result<Eix, IlError> {
        if let Some(&p) = self.pointers.get(&t) {
            return Ok(p);
        }
        let saved = il.current_region();
        if saved != RegionIdx::FILE_SCOPE {
            il.switch_region(RegionIdx::FILE_SCOPE)?;
        }
        let r = self.derived(il, TypeKind::Pointer, t, 0);
        if saved != RegionIdx::FILE_SCOPE {
            il.switch_region(saved)?;
        }
        let p = r?;
        self.pointers.insert(t, p);
        Ok(p)
    }

    /// Whether `t` is a type entry whose spelling resolved.
    pub fn is_resolved_type(&self, il: &Il, t: Eix) -> bool {
        !t.is_none()
            && il.is_live(t)
            && il.kind(t) == EntryKind::Type
            && !self.is_placeholder(il, t)
            && self
                .ph_of
                .get(&t)
                .is_none_or(|&ph| !self.is_placeholder(il, ph))
    }

    /// The interned entry of spelling `s` and where it is cached (`None`: for every scope;
    /// `Some(key)`: for the enclosing scopes only). A new spelling is parsed; one that
    /// was unresolved where first met is parsed again once per enclosing scope. Sets
    /// `scoped_hit` when the result depends on the scope.
    fn spelling(
        &mut self,
        il: &mut Il,
        s: &str,
        depth: u32,
    ) -> Result<(Option<String>, Spelling), IlError> {
        // Inside a pattern, a spelling read as a dependent type first (its own cache
        // entries: a dependent template-id must not stand for the same spelling outside
        // a pattern), else as anywhere.
        let pattern_key = self.in_pattern.then(|| format!("{PATTERN_MARK}{s}"));
        let global = pattern_key
            .as_deref()
            .and_then(|k| self.by_spelling.get(k))
            .or_else(|| self.by_spelling.get(s))
            .copied();
        if let Some(v) = global {
            if self.qual.is_empty() || !self.unresolved(il, &v) {
                return Ok((None, v));
            }
        }
        let key = (!self.qual.is_empty()).then(|| self.scope_key(s));
        if let Some(k) = &key {
            let dependent = pattern_key.is_some().then(|| format!("{PATTERN_MARK}{k}"));
            let found = dependent
                .as_deref()
                .and_then(|d| self.by_scope.get(d))
                .or_else(|| self.by_scope.get(k.as_str()))
                .copied();
            if let Some(v) = found {
                self.scoped_hit = true;
                return Ok((key, v));
            }
        }
        let dependent_before = self.dependent_refs;
        let (lp, sh, un) = (self.last_placeholder, self.scoped_hit, self.uncacheable);
        self.last_placeholder = Eix::NONE;
        self.scoped_hit = false;
        self.uncacheable = false;
        let r = self.parse(il, s, depth);
        let (ph, scoped, uncacheable) = (self.last_placeholder, self.scoped_hit, self.uncacheable);
        self.last_placeholder = lp;
        self.scoped_hit = sh;
        self.uncacheable = un || uncacheable;
        let t = r?;
        let mut v = Spelling {
            t,
            hits: 0,
            pattern_hits: 0,
            ph,
        };
        if uncacheable {
            // Its meaning depends on the declarations in scope: parsed each time.
            return Ok((None, v));
        }
        if let Some(g) = global {
            if !ph.is_none() {
                // Parsed again from this scope without resolving: the first parse stands.
                v = Spelling {
                    hits: 0,
                    pattern_hits: 0,
                    ..g
                };
            }
        }
        if !v.ph.is_none() {
            self.ph_of.insert(v.t, v.ph);
        }
        // A spelling that made a dependent form inside a pattern is cached for patterns.
        let mark = if pattern_key.is_some() && self.dependent_refs > dependent_before {
            PATTERN_MARK
        } else {
            ""
        };
        match key {
            Some(k) if scoped || global.is_some() => {
                self.by_scope.insert(format!("{mark}{k}").into(), v);
                self.scoped_hit = true;
                Ok((Some(k), v))
            }
            _ => {
                self.by_spelling.insert(format!("{mark}{s}").into(), v);
                Ok((None, v))
            }
        }
    }

    /// The cache key of `s` inside the enclosing scopes.
    fn scope_key(&self, s: &str) -> String {
        let mut k = String::with_capacity(s.len() + 64);
        for q in &self.qual {
            k.push_str(q);
            k.push_str("::");
        }
        k.push('\0');
        k.push_str(s);
        k
    }

    /// Follows typerefs and cv wrappers to the underlying type.
    pub fn strip(il: &Il, t: Eix) -> Eix {
        crate::il::kinds::strip_typerefs(il, t)
    }

    /// Handle of a type entry.
    pub fn id(il: &Il, t: Eix) -> EntryId {
        il.id_of(t)
    }
}

#[cfg(test)]
mod tests {
    use super::names::split_last;
    use super::*;

    fn kind(il: &Il, t: Eix) -> TypeKind {
        il.ty(t).type_kind()
    }

    #[test]
    fn parses_declarators() {
        let mut il = Il::new();
        let mut ty = Types::default();
        let p = ty.intern(&mut il, "const float *").unwrap();
        assert_eq!(kind(&il, p), TypeKind::Pointer);
        let fp = ty.intern(&mut il, "void (*)(int, float)").unwrap();
        assert_eq!(kind(&il, fp), TypeKind::Pointer);
        let f = il.child_eix(fp, F::TYPE_BASE_TYPE).unwrap();
        assert_eq!(kind(&il, f), TypeKind::Routine);
        let a = ty.intern(&mut il, "int[2][3]").unwrap();
        assert_eq!(kind(&il, a), TypeKind::Array);
        assert_eq!(il.ty(a).size(), 24);
        let r = ty.intern(&mut il, "int (&)[4]").unwrap();
        assert_eq!(kind(&il, r), TypeKind::Pointer);
        let u = ty.intern(&mut il, "unsigned long long").unwrap();
        assert_eq!(il.ty(u).size(), 8);
        let (rec, _) = ty
            .named_entry(&mut il, "ns::Arr<float, 4>", TypeKind::Struct)
            .unwrap();
        assert_eq!(
            ty.intern(&mut il, "ns::Arr<float,4> &")
                .map(|t| il.child_eix(t, F::TYPE_BASE_TYPE))
                .unwrap(),
            Some(rec)
        );
        let x = ty.intern(&mut il, "Unknown<int>").unwrap();
        assert_eq!(kind(&il, x), TypeKind::Error);
        assert_eq!(ty.unresolved_refs(&il).0, 1);
        ty.in_pattern = true;
        ty.intern(&mut il, "Unknown<int>").unwrap();
        assert_eq!(ty.unresolved_refs(&il).1, 1);
        ty.in_pattern = false;
        let (later, existed) = ty
            .named_entry(&mut il, "Unknown<int>", TypeKind::Struct)
            .unwrap();
        assert!(existed);
        assert_eq!(later, x);
        assert_eq!(ty.unresolved_refs(&il).0, 0);
        assert_eq!(normalize("A<B<int> > *"), "A<B<int>>*");
        assert_eq!(split_last("a::b<c::d>::e"), Some(("a::b<c::d>", "e")));
        assert_eq!(last_component("a::b<c::d>::e"), "e");
    }

    #[test]
    fn resolves_members_parameters_and_dependent_names() {
        let mut il = Il::new();
        let mut ty = Types::default();
        // clang's canonical template parameters are one name each.
        let p = ty.intern(&mut il, "type-parameter-0-1 *").unwrap();
        let tp = il.child_eix(p, F::TYPE_BASE_TYPE).unwrap();
        assert_eq!(kind(&il, tp), TypeKind::TemplateParam);
        assert_eq!(il.name(tp), b"type-parameter-0-1");
        // `A::b` through a typedef of a class; an inherited member.
        let (base, _) = ty
            .named_entry(&mut il, "ns::Base", TypeKind::Struct)
            .unwrap();
        let (st, _) = ty
            .named_entry(&mut il, "ns::Base::size_type", TypeKind::Typeref)
            .unwrap();
        let (rec, _) = ty
            .named_entry(&mut il, "ns::Rec<int>", TypeKind::Struct)
            .unwrap();
        ty.set_bases(rec, &[base]);
        let (td, _) = ty
            .named_entry(&mut il, "ns::Alias", TypeKind::Typeref)
            .unwrap();
        set_base(&mut il, td, rec).unwrap();
        assert_eq!(ty.intern(&mut il, "ns::Alias::size_type").unwrap(), st);
        // Inside the class's scope, the unqualified member name is the inherited one.
        ty.qual = vec!["ns".into(), "Rec<int>".into()];
        assert_eq!(ty.intern(&mut il, "size_type").unwrap(), st);
        ty.qual.clear();
        // An alias template names its pattern; `typename` of an unknown qualifier is
        // dependent, not a placeholder.
        let (pat, _) = ty
            .named_entry(&mut il, "ns::Rec::_If<T>", TypeKind::Typeref)
            .unwrap();
        ty.template_name(&mut il, "ns::Rec::_If", pat).unwrap();
        assert_eq!(ty.intern(&mut il, "_If<int>").unwrap(), pat);
        let d = ty.intern(&mut il, "const typename Unknown::type").unwrap();
        let d = il.child_eix(d, F::TYPE_BASE_TYPE).unwrap();
        assert_eq!(il.name(d), b"<dependent type>");
        assert_eq!(ty.unresolved_refs(&il).0, 0);
        // An unresolved spelling stands for the referenced entity's resolved type.
        let int = ty.intern(&mut il, "int").unwrap();
        assert_eq!(
            ty.intern_or(&mut il, "Nowhere", Alt::Type(int)).unwrap(),
            int
        );
        assert_eq!(ty.unresolved_refs(&il).0, 0);
    }
}
