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
//!    is the dependent type;
//! 5. a template-id of a class or alias template without that specialization: the pattern
//!    (of clang's builtin `__make_integer_seq` / `__type_pack_element`: the dependent type);
//! 6. a unique unqualified last component.
//!
//! `typename A::b` that does not resolve is a dependent name: the dependent type
//! (`<dependent type>`, tk_template_param). Anything else becomes a named placeholder
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
//! arrays are tk_array with the bound as an integer constant; function types are tk_routine
//! with param_type entries in the routine-type supplement; template parameters are
//! tk_template_param. Parsing recursion is bounded (depth 24); deeper input becomes a
//! placeholder.

use crate::il::kinds::{self, ck};
use crate::il::{fields as F, Eix, EntryId, EntryKind, Il, IlError, RegionIdx};
use ahash::{AHashMap, AHashSet};
use std::rc::Rc;

const MAX_DEPTH: u32 = 24;

/// Qualifier bits of `type.qualifiers`.
pub mod qual {
    /// `const`.
    pub const CONST: u8 = 1;
    /// `volatile`.
    pub const VOLATILE: u8 = 2;
    /// `restrict`.
    pub const RESTRICT: u8 = 4;
    /// An lvalue reference (on a tk_pointer).
    pub const LREF: u8 = 8;
    /// An rvalue reference (on a tk_pointer).
    pub const RREF: u8 = 16;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum T {
    Name,
    Star,
    Amp,
    AmpAmp,
    LParen,
    RParen,
    LBrack,
    RBrack,
    Comma,
    Ellipsis,
    Num,
    Other,
}

#[derive(Clone, Copy, Debug)]
struct Tk {
    t: T,
    a: usize,
    b: usize,
}

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

fn lex(s: &str) -> Vec<Tk> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let t = match c {
            b' ' | b'\t' => {
                i += 1;
                continue;
            }
            b'*' => T::Star,
            b'&' if b.get(i + 1) == Some(&b'&') => {
                i += 1;
                T::AmpAmp
            }
            b'&' => T::Amp,
            b'(' => {
                // Special names in parentheses: "(anonymous namespace)", "(lambda at ...)",
                // "(unnamed struct at ...)": one name, possibly followed by "::".
                let rest = &s[i..];
                if rest.starts_with("(anonymous")
                    || rest.starts_with("(lambda at")
                    || rest.starts_with("(unnamed")
                {
                    i = closing_paren(b, i) + 1;
                    i = name_tail(b, i);
                    v.push(Tk {
                        t: T::Name,
                        a: start,
                        b: i.min(b.len()),
                    });
                    continue;
                }
                T::LParen
            }
            b')' => T::RParen,
            b'[' => T::LBrack,
            b']' => T::RBrack,
            b',' => T::Comma,
            b'.' if s[i..].starts_with("...") => {
                i += 2;
                T::Ellipsis
            }
            b'0'..=b'9' => {
                while i + 1 < b.len() && (b[i + 1].is_ascii_alphanumeric()) {
                    i += 1;
                }
                T::Num
            }
            b':' if s[i..].starts_with("::") => {
                // A leading "::" (global qualifier) starts a name; `::*` is the
                // member-pointer declarator.
                i = name_tail(b, i);
                if i == start {
                    i += 2;
                    v.push(Tk {
                        t: T::Other,
                        a: start,
                        b: i,
                    });
                    continue;
                }
                v.push(Tk {
                    t: T::Name,
                    a: start,
                    b: i,
                });
                continue;
            }
            c if ident(c) => {
                while i < b.len() && ident(b[i]) {
                    i += 1;
                }
                // clang's canonical template parameter `type-parameter-D-I` is one name.
                if s[start..i] == *"type" && s[i..].starts_with("-parameter-") {
                    i = tparam_end(b, i + "-parameter-".len());
                }
                i = name_tail(b, i);
                v.push(Tk {
                    t: T::Name,
                    a: start,
                    b: i,
                });
                continue;
            }
            _ => T::Other,
        };
        i += 1;
        v.push(Tk { t, a: start, b: i });
    }
    v
}

#[cfg(test)]
#[test]
fn lexer_always_advances() {
    for s in [
        "int Foo::*",
        "::*",
        "int (Foo::*)(int) const",
        "A<",
        "(lambda",
        "::",
    ] {
        assert!(lex(s).len() <= s.len() + 1, "{s}");
    }
}

/// The end of the `D-I` digits of `type-parameter-D-I` from `i` (just after the prefix).
fn tparam_end(b: &[u8], mut i: usize) -> usize {
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    i = digits(i);
    if i + 1 < b.len() && b[i] == b'-' && b[i + 1].is_ascii_digit() {
        i = digits(i + 1);
    }
    i
}

/// The index of the `)` that closes the `(` at `i` (or `b.len()` when it is not closed).
fn closing_paren(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Extends a name over `<...>` template arguments and `::` qualifiers.
fn name_tail(b: &[u8], mut i: usize) -> usize {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    loop {
        if i < b.len() && b[i] == b'<' {
            let mut depth = 0i32;
            let mut paren = 0i32;
            while i < b.len() {
                match b[i] {
                    b'(' => paren += 1,
                    b')' => paren -= 1,
                    b'<' if paren == 0 => depth += 1,
                    b'>' if paren == 0 => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i = (i + 1).min(b.len());
        }
        if i + 1 < b.len() && b[i] == b':' && b[i + 1] == b':' {
            i += 2;
            if i < b.len() && b[i] == b'*' {
                // `Class::*`: the member-pointer declarator, not part of the name.
                return i - 2;
            }
            if i < b.len() && b[i] == b'(' {
                let rest = std::str::from_utf8(&b[i..]).unwrap_or("");
                if rest.starts_with("(anonymous")
                    || rest.starts_with("(lambda")
                    || rest.starts_with("(unnamed")
                {
                    i = (closing_paren(b, i) + 1).min(b.len());
                    continue;
                }
            }
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            continue;
        }
        return i;
    }
}

const BUILTIN_WORDS: &[&str] = &[
    "void",
    "bool",
    "_Bool",
    "char",
    "signed",
    "unsigned",
    "short",
    "int",
    "long",
    "float",
    "double",
    "__int128",
    "__fp16",
    "_Float16",
    "__bf16",
    "wchar_t",
    "char8_t",
    "char16_t",
    "char32_t",
    "__float128",
    "_Complex",
];

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

/// clang's builtin templates (`BuiltinTemplateDecl`s, never dumped).
const BUILTIN_TEMPLATES: &[&str] = &["__make_integer_seq", "__type_pack_element"];

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
#[derive(Default)]
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
    placeholders: Vec<Eix>,
    dependent: Option<Eix>,
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
    /// The enclosing scopes' name components (namespaces, classes), innermost last,
    /// maintained by the importer: unqualified names are looked up from the innermost
    /// scope outwards.
    pub qual: Vec<String>,
    scoped_hit: bool,
    /// The qualified name each named type was first indexed under (member lookup).
    qname_of: AHashMap<Eix, Rc<str>>,
    /// Patterns of class and alias templates.
    patterns: AHashSet<Eix>,
}

fn new_type(il: &mut Il, k: u8, name: Option<&str>) -> Result<Eix, IlError> {
    let id = il.alloc(EntryKind::Type)?;
    kinds::set_type_kind(il, id, k)?;
    if let Some(n) = name {
        il.set_string(id, 0, n.as_bytes())?;
    }
    il.eix(id)
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
        il.is_live(t)
            && il.kind(t) == EntryKind::Type
            && il.tables.r#type.type_kind[il.row(t) as usize] == 0
    }

    /// The type entry for a named entity (record, enum, typedef) with qualified name
    /// `qname`: an existing entry of that name (a placeholder or an earlier declaration) or
    /// a new one of type kind `k`. Returns `(entry, existed)`.
    pub fn named_entry(&mut self, il: &mut Il, qname: &str, k: u8) -> Result<(Eix, bool), IlError> {
        let key = normalize(qname);
        if let Some(&e) = self.by_name.get(key.as_str()) {
            if il.is_live(e) {
                let row = il.row(e) as usize;
                let cur = il.tables.r#type.type_kind[row];
                if cur == 0 && k != 0 {
                    // A placeholder gets its definition: index it like a new name.
                    kinds::set_type_kind(il, il.id_of(e), k)?;
                    self.index_name(key, e);
                }
                return Ok((e, true));
            }
        }
        let last = last_component(&key);
        let e = new_type(il, k, Some(last))?;
        self.index_name(key, e);
        Ok((e, false))
    }

    /// The scope components of the class type `e` (its qualified name split at `::`):
    /// the lookup scopes of its out-of-line members.
    pub fn scopes_of(&self, e: Eix) -> Option<Vec<String>> {
        let q = self.qname_of.get(&e)?;
        // A partial specialization's members are indexed under its template's name.
        let q = match q.rfind("<partial#") {
            Some(p) if q.ends_with('>') && !q[p..].contains("::") => &q[..p],
            _ => &q[..],
        };
        let mut v = Vec::new();
        let mut rest = q;
        while let Some((head, last)) = split_last(rest) {
            v.push(last.to_string());
            rest = head;
        }
        v.push(rest.to_string());
        v.reverse();
        Some(v)
    }

    /// Indexes an existing type under another qualified name.
    pub fn alias_name(&mut self, il: &mut Il, qname: &str, e: Eix) -> Result<(), IlError> {
        let key = normalize(qname);
        match self.by_name.get(key.as_str()) {
            Some(&old) if old != e && self.is_placeholder(il, old) => {
                // A placeholder made before this name was known: it becomes an alias.
                kinds::set_type_kind(il, il.id_of(old), 12)?;
                set_base(il, old, e)?;
            }
            Some(_) => {}
            None => {
                self.by_name.insert(key.as_str().into(), e);
            }
        }
        let last: Box<str> = last_component(&key).into();
        self.by_last
            .entry(last)
            .and_modify(|x| {
                if *x != e {
                    *x = Eix::NONE
                }
            })
            .or_insert(e);
        Ok(())
    }

    fn index_name(&mut self, key: String, e: Eix) {
        let key: Rc<str> = key.into();
        self.qname_of.entry(e).or_insert_with(|| key.clone());
        let last: Box<str> = last_component(&key).into();
        if let Some(p) = key.find('<') {
            self.by_template.entry(key[..p].to_string()).or_insert(e);
            let last = last_component(&key[..p]).to_string();
            self.by_template_last.entry(last).or_insert(e);
        }
        self.by_last
            .entry(last)
            .and_modify(|x| {
                if *x != e {
                    *x = Eix::NONE
                }
            })
            .or_insert(e);
        self.by_name.insert(key, e);
    }

    /// Marks `qname` as a class template name whose pattern type is `e`.
    pub fn template_name(&mut self, il: &mut Il, qname: &str, e: Eix) -> Result<(), IlError> {
        let key = normalize(qname);
        self.patterns.insert(e);
        self.by_template_last
            .insert(last_component(&key).to_string(), e);
        self.by_template.insert(key, e);
        self.alias_name(il, qname, e)
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
        let r = self.derived(il, 6, t, 0);
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
        let global = self.by_spelling.get(s).copied();
        if let Some(v) = global {
            if self.qual.is_empty() || !self.unresolved(il, &v) {
                return Ok((None, v));
            }
        }
        let key = (!self.qual.is_empty()).then(|| self.scope_key(s));
        if let Some(k) = &key {
            if let Some(v) = self.by_scope.get(k.as_str()).copied() {
                self.scoped_hit = true;
                return Ok((key, v));
            }
        }
        let (lp, sh) = (self.last_placeholder, self.scoped_hit);
        self.last_placeholder = Eix::NONE;
        self.scoped_hit = false;
        let r = self.parse(il, s, depth);
        let (ph, scoped) = (self.last_placeholder, self.scoped_hit);
        self.last_placeholder = lp;
        self.scoped_hit = sh;
        let t = r?;
        let mut v = Spelling {
            t,
            hits: 0,
            pattern_hits: 0,
            ph,
        };
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
        match key {
            Some(k) if scoped || global.is_some() => {
                self.by_scope.insert(k.clone().into(), v);
                self.scoped_hit = true;
                Ok((Some(k), v))
            }
            _ => {
                self.by_spelling.insert(s.into(), v);
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

    fn parse(&mut self, il: &mut Il, s: &str, depth: u32) -> Result<Eix, IlError> {
        if depth > MAX_DEPTH {
            return self.placeholder(il, s);
        }
        if s.contains("<dependent type>")
            || s.starts_with("decltype(")
            || s == "auto"
            || s.starts_with("auto ")
            || s.starts_with("const auto")
            || s.contains("type-parameter-") && !s.starts_with("type-parameter-")
        {
            self.dependent_refs += 1;
            return self.dependent(il);
        }
        if s.starts_with('<') && s.ends_with('>')
            || s == "std::nullptr_t"
            || s == "nullptr_t"
            || s == "NULL TYPE"
            || s == "__va_list_tag"
            || s == "struct __va_list_tag"
        {
            // clang's special types: `<pseudo-object type>`, `<builtin fn type>`,
            // `<bound member function type>`, `<overloaded function type>`, nullptr_t.
            return self.builtin(il, &[s]);
        }
        if s.contains("__attribute__((") {
            // `float __attribute__((ext_vector_type(4)))`, `void (int) __attribute__((noreturn))`:
            // attributes are dropped; vector attributes make a tk_vector of the rest.
            let vector = s.contains("ext_vector_type") || s.contains("vector_size");
            let plain = strip_attributes(s);
            let t = self.intern_nested(il, plain.trim(), depth + 1)?;
            if vector {
                return self.derived(il, 15, t, 0);
            }
            return Ok(t);
        }
        let toks = lex(s);
        let mut i = 0;
        let mut cv = 0u8;
        let mut words: Vec<&str> = Vec::new();
        let mut name: Option<&str> = None;
        let mut typename_kw = false;
        while i < toks.len() {
            let t = toks[i];
            if t.t != T::Name {
                break;
            }
            let w = &s[t.a..t.b];
            match w {
                "const" => cv |= qual::CONST,
                "volatile" => cv |= qual::VOLATILE,
                "restrict" | "__restrict" => cv |= qual::RESTRICT,
                "typename" => typename_kw = true,
                "struct" | "class" | "union" | "enum" | "__unaligned" => {}
                w if BUILTIN_WORDS.contains(&w) && name.is_none() => words.push(w),
                _ if name.is_none() && words.is_empty() => name = Some(w),
                _ => break,
            }
            i += 1;
        }
        let base = if !words.is_empty() {
            self.builtin(il, &words)?
        } else if let Some(n) = name {
            if typename_kw {
                self.typename_type(il, n)?
            } else {
                self.resolve_name(il, n)?
            }
        } else {
            return self.placeholder(il, s);
        };
        let base = self.qualify(il, base, cv)?;
        self.declarator(il, s, base, &toks[i..], depth)
    }

    fn declarator(
        &mut self,
        il: &mut Il,
        s: &str,
        mut t: Eix,
        toks: &[Tk],
        depth: u32,
    ) -> Result<Eix, IlError> {
        let mut i = 0;
        while i < toks.len() {
            match toks[i].t {
                T::Star => t = self.derived(il, 6, t, 0)?,
                T::Amp => t = self.derived(il, 6, t, qual::LREF)?,
                T::AmpAmp => t = self.derived(il, 6, t, qual::RREF)?,
                T::Name => match &s[toks[i].a..toks[i].b] {
                    "const" => t = self.qualify(il, t, qual::CONST)?,
                    "volatile" => t = self.qualify(il, t, qual::VOLATILE)?,
                    "restrict" | "__restrict" => t = self.qualify(il, t, qual::RESTRICT)?,
                    _ => {
                        // `Class::*`: pointer to member.
                        if toks.get(i + 1).map(|x| x.t) == Some(T::Other)
                            && toks.get(i + 2).map(|x| x.t) == Some(T::Star)
                        {
                            t = self.derived(il, 13, t, 0)?;
                            i += 3;
                            continue;
                        }
                        break;
                    }
                },
                _ => break,
            }
            i += 1;
        }
        // Direct abstract declarator: an optional parenthesized inner declarator, then
        // suffixes, applied right to left; the inner declarator applies last.
        let mut inner: Option<&[Tk]> = None;
        if i < toks.len() && toks[i].t == T::LParen {
            let nested = matches!(
                toks.get(i + 1).map(|x| x.t),
                Some(T::Star) | Some(T::Amp) | Some(T::AmpAmp) | Some(T::LParen)
            ) || (toks.get(i + 1).map(|x| x.t) == Some(T::Name)
                && s[toks[i + 1].b..].starts_with("::*"));
            if nested {
                let j = matching(toks, i);
                inner = Some(&toks[i + 1..j.min(toks.len())]);
                i = j + 1;
            }
        }
        // Suffixes.
        enum Suf {
            Arr(Option<u64>),
            Fun(usize, usize),
        }
        let mut sufs = Vec::new();
        while i < toks.len() {
            match toks[i].t {
                T::LBrack => {
                    let n = if toks.get(i + 1).map(|x| x.t) == Some(T::Num) {
                        s[toks[i + 1].a..toks[i + 1].b]
                            .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                            .parse::<u64>()
                            .ok()
                    } else {
                        None
                    };
                    let mut j = i;
                    while j < toks.len() && toks[j].t != T::RBrack {
                        j += 1;
                    }
                    sufs.push(Suf::Arr(n));
                    i = j + 1;
                }
                T::LParen => {
                    let j = matching(toks, i);
                    sufs.push(Suf::Fun(i, j.min(toks.len())));
                    i = j + 1;
                    // Trailing qualifiers, ref-qualifiers, noexcept(...), attributes.
                    while i < toks.len() && toks[i].t != T::LBrack && toks[i].t != T::LParen {
                        if toks[i].t == T::Name
                            && matches!(&s[toks[i].a..toks[i].b], "noexcept" | "throw")
                            && toks.get(i + 1).map(|x| x.t) == Some(T::LParen)
                        {
                            i = matching(toks, i + 1) + 1;
                            continue;
                        }
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        for suf in sufs.iter().rev() {
            t = match *suf {
                Suf::Arr(n) => self.array(il, t, n)?,
                Suf::Fun(a, b) => self.function(il, s, t, &toks[a + 1..b], depth)?,
            };
        }
        if let Some(inner) = inner {
            t = self.declarator(il, s, t, inner, depth + 1)?;
        }
        Ok(t)
    }

    fn function(
        &mut self,
        il: &mut Il,
        s: &str,
        ret: Eix,
        toks: &[Tk],
        depth: u32,
    ) -> Result<Eix, IlError> {
        let f = new_type(il, 7, None)?;
        set_base(il, f, ret)?;
        let fid = il.id_of(f);
        let supp = il
            .child(fid, F::TYPE_ROUTINE_SUPPLEMENT)?
            .ok_or(IlError::Assert("routine type without supplement"))?;
        // Split parameters at top-level commas.
        let mut params: Vec<(usize, usize)> = Vec::new();
        let mut d = 0i32;
        let mut start: Option<usize> = None;
        let mut end = 0usize;
        for t in toks {
            match t.t {
                T::LParen | T::LBrack => d += 1,
                T::RParen | T::RBrack => d -= 1,
                T::Comma if d == 0 => {
                    if let Some(a) = start.take() {
                        params.push((a, end));
                    }
                    continue;
                }
                _ => {}
            }
            if start.is_none() {
                start = Some(t.a);
            }
            end = t.b;
        }
        if let Some(a) = start {
            params.push((a, end));
        }
        for (a, b) in params {
            let p = s[a..b].trim();
            if p == "void" || p.is_empty() {
                continue;
            }
            let pt = il.alloc_param_type()?;
            if p == "..." {
                let r = il.row(il.eix(pt)?) as usize;
                il.tables.param_type.is_pack[r] = true;
            } else {
                let ty = if depth < MAX_DEPTH {
                    self.intern_nested(il, p, depth + 1)?
                } else {
                    self.placeholder(il, p)?
                };
                il.set_child(pt, F::PARAM_TYPE_TYPE, Some(il.id_of(ty)))?;
            }
            il.push_list(supp, F::ROUTINE_TYPE_SUPPLEMENT_PARAMS, pt)?;
        }
        Ok(f)
    }

    fn intern_nested(&mut self, il: &mut Il, s: &str, depth: u32) -> Result<Eix, IlError> {
        let (_, v) = self.spelling(il, s, depth)?;
        if !v.ph.is_none() {
            self.last_placeholder = v.ph;
        }
        Ok(v.t)
    }

    fn array(&mut self, il: &mut Il, elem: Eix, n: Option<u64>) -> Result<Eix, IlError> {
        let a = new_type(il, 8, None)?;
        set_base(il, a, elem)?;
        if let Some(n) = n {
            let c = il.alloc(EntryKind::Constant)?;
            kinds::set_constant_kind(il, c, ck::INTEGER)?;
            let r = il.row(il.eix(c)?) as usize;
            il.tables.constant.value[r] = n as i64;
            il.set_child(il.id_of(a), F::TYPE_ARRAY_BOUND, Some(c))?;
            let er = il.row(elem) as usize;
            let esz = il.tables.r#type.size[er];
            let ar = il.row(a) as usize;
            il.tables.r#type.size[ar] = esz.saturating_mul(n);
        }
        Ok(a)
    }

    fn derived(&mut self, il: &mut Il, k: u8, base: Eix, q: u8) -> Result<Eix, IlError> {
        let t = new_type(il, k, None)?;
        set_base(il, t, base)?;
        let r = il.row(t) as usize;
        il.tables.r#type.qualifiers[r] = q;
        il.tables.r#type.size[r] = 8;
        Ok(t)
    }

    fn qualify(&mut self, il: &mut Il, base: Eix, cv: u8) -> Result<Eix, IlError> {
        if cv == 0 {
            return Ok(base);
        }
        let t = new_type(il, 12, None)?;
        set_base(il, t, base)?;
        let r = il.row(t) as usize;
        let br = il.row(base) as usize;
        il.tables.r#type.qualifiers[r] = cv;
        il.tables.r#type.size[r] = il.tables.r#type.size[br];
        Ok(t)
    }

    fn builtin(&mut self, il: &mut Il, words: &[&str]) -> Result<Eix, IlError> {
        let key = words.join(" ");
        if let Some(&e) = self.builtins.get(&key) {
            return Ok(e);
        }
        let has = |w: &str| words.contains(&w);
        let longs = words.iter().filter(|&&w| w == "long").count();
        let (k, size) = if words.len() == 1
            && (words[0].starts_with('<')
                || words[0].contains("nullptr_t")
                || words[0] == "NULL TYPE"
                || words[0].contains("__va_list_tag"))
        {
            (if words[0].contains("nullptr_t") { 6 } else { 1 }, 8)
        } else if has("void") {
            (1, 0)
        } else if has("float") || has("_Float16") || has("__fp16") || has("__bf16") {
            (
                3,
                if has("_Float16") || has("__fp16") || has("__bf16") {
                    2
                } else {
                    4
                },
            )
        } else if has("double") {
            (3, if longs > 0 { 16 } else { 8 })
        } else if has("__float128") {
            (3, 16)
        } else if has("bool") || has("_Bool") || has("char") || has("char8_t") {
            (2, 1)
        } else if has("short") || has("char16_t") {
            (2, 2)
        } else if has("__int128") {
            (2, 16)
        } else if longs > 0 {
            (2, 8)
        } else {
            (2, 4)
        };
        let t = new_type(il, k, Some(&key))?;
        let r = il.row(t) as usize;
        il.tables.r#type.size[r] = size;
        il.tables.r#type.int_kind[r] = if has("unsigned") { 1 } else { 0 };
        self.builtins.insert(key, t);
        Ok(t)
    }

    fn dependent(&mut self, il: &mut Il) -> Result<Eix, IlError> {
        if let Some(d) = self.dependent {
            return Ok(d);
        }
        let t = new_type(il, 14, Some("<dependent type>"))?;
        self.dependent = Some(t);
        Ok(t)
    }

    /// A placeholder for an unresolved name (filled if the name is defined later).
    fn placeholder(&mut self, il: &mut Il, name: &str) -> Result<Eix, IlError> {
        let key = normalize(name);
        if let Some(&e) = self.by_name.get(key.as_str()) {
            self.last_placeholder = e;
            return Ok(e);
        }
        let t = new_type(il, 0, Some(last_component(&key)))?;
        self.placeholders.push(t);
        let key: Rc<str> = key.into();
        self.placeholder_names.insert(t, key.clone());
        self.by_name.insert(key, t);
        self.last_placeholder = t;
        Ok(t)
    }

    fn resolve_name(&mut self, il: &mut Il, n: &str) -> Result<Eix, IlError> {
        match self.lookup(il, n, 0)? {
            Some(e) => Ok(e),
            None => self.placeholder(il, &normalize(n.trim_start_matches("::"))),
        }
    }

    /// The type a (possibly qualified) name denotes, or `None` (no placeholder is made,
    /// and an existing placeholder of that name counts as `None`).
    fn lookup(&mut self, il: &mut Il, n: &str, depth: u32) -> Result<Option<Eix>, IlError> {
        let key = normalize(n.trim_start_matches("::"));
        if key == "__va_list_tag" {
            return self.builtin(il, &["__va_list_tag"]).map(Some);
        }
        // Innermost enclosing scope first (`value_type` inside `std::vector<int, ...>`).
        if !self.qual.is_empty() && !n.starts_with("::") {
            let mut prefix = String::new();
            let mut prefixes = Vec::with_capacity(self.qual.len());
            for q in &self.qual {
                if !q.is_empty() {
                    prefix.push_str(&normalize(q));
                    prefix.push_str("::");
                }
                prefixes.push(prefix.clone());
            }
            for p in prefixes.iter().rev() {
                let k = format!("{p}{key}");
                if let Some(&e) = self.by_name.get(k.as_str()) {
                    if !self.is_placeholder(il, e) {
                        self.scoped_hit = true;
                        return Ok(Some(e));
                    }
                }
                // A member inherited by an enclosing class.
                let inherited = p
                    .strip_suffix("::")
                    .and_then(|c| self.by_name.get(c))
                    .and_then(|&c| self.inherited_member(il, c, &key, 0));
                if let Some(e) = inherited {
                    self.scoped_hit = true;
                    return Ok(Some(e));
                }
            }
        }
        if let Some(&e) = self.by_name.get(key.as_str()) {
            if !self.is_placeholder(il, e) {
                return Ok(Some(e));
            }
        }
        // A template parameter of an enclosing template (clang's canonical
        // `type-parameter-D-I`, or a parameter name in scope).
        if !key.contains("::")
            && (key.starts_with("type-parameter-")
                || self.tparam_scopes.iter().any(|s| s.contains(&key)))
        {
            if let Some(&e) = self.tparams.get(&key) {
                return Ok(Some(e));
            }
            let t = new_type(il, 14, Some(&key))?;
            self.tparams.insert(key, t);
            return Ok(Some(t));
        }
        if let Some((head, member)) = split_last(&key) {
            // Dependent member of a template parameter: `T::value_type`.
            let head_base = head.split('<').next().unwrap_or(head);
            if head.starts_with("type-parameter-")
                || self
                    .tparam_scopes
                    .iter()
                    .any(|s| s.iter().any(|x| x == head_base))
            {
                self.dependent_refs += 1;
                return self.dependent(il).map(Some);
            }
            // A member of the class (or typedef of a class) the qualifier names.
            if depth < MAX_DEPTH {
                if let Some(t) = self.member_type(il, head, member, depth)? {
                    return Ok(Some(t));
                }
            }
        }
        // A template-id (`name<args>`, arguments possibly qualified) of a class or alias
        // template without that specialization: the pattern.
        let last = last_component(&key);
        if let (Some(lp), true) = (last.find('<'), key.ends_with('>')) {
            let name = &key[..key.len() - last.len() + lp];
            let short = &last[..lp];
            if BUILTIN_TEMPLATES.contains(&short) {
                // clang's builtin templates: printed only with dependent arguments (with
                // others they are desugared to the type they make).
                self.dependent_refs += 1;
                return self.dependent(il).map(Some);
            }
            if let Some(&e) = self.by_template.get(name) {
                return Ok(Some(e));
            }
            if let Some(&e) = self.by_template_last.get(short) {
                return Ok(Some(e));
            }
        }
        // A unique type with that unqualified name.
        if !key.contains('<') {
            if let Some(&e) = self.by_last.get(last_component(&key)) {
                if !e.is_none() && !self.is_placeholder(il, e) {
                    return Ok(Some(e));
                }
            }
        }
        Ok(None)
    }

    /// The member type `member` declared in the class `class`.
    fn own_member(&self, il: &Il, class: Eix, member: &str) -> Option<Eix> {
        let q = self.qname_of.get(&class)?;
        let e = *self.by_name.get(format!("{q}::{member}").as_str())?;
        (!self.is_placeholder(il, e)).then_some(e)
    }

    /// The member type `member` a class inherits from its bases (depth-first, in base
    /// order, bounded depth).
    fn inherited_member(&self, il: &Il, class: Eix, member: &str, depth: u32) -> Option<Eix> {
        if depth >= 16 {
            return None;
        }
        let class = Self::strip(il, class);
        for &b in self.bases.get(&class)? {
            let b = Self::strip(il, b);
            if let Some(e) = self.own_member(il, b, member) {
                return Some(e);
            }
            if let Some(e) = self.inherited_member(il, b, member, depth + 1) {
                return Some(e);
            }
        }
        None
    }

    /// Records the base types of class `class` (member lookup searches them).
    pub fn set_bases(&mut self, class: Eix, bases: &[Eix]) {
        if !bases.is_empty() {
            self.bases.insert(class, bases.to_vec());
        }
    }

    /// `typename A::b`: the type it names where the qualifier resolves, else (a dependent
    /// name before instantiation) the dependent type. Outside patterns such a result
    /// depends on the enclosing scope and is not cached.
    fn typename_type(&mut self, il: &mut Il, n: &str) -> Result<Eix, IlError> {
        if let Some(e) = self.lookup(il, n, 0)? {
            return Ok(e);
        }
        if !self.in_pattern && !self.qual.is_empty() {
            self.scoped_hit = true;
        }
        self.dependent_refs += 1;
        self.dependent(il)
    }

    /// `head::member`: the member type of the class `head` names (through typedefs), a
    /// dependent type when `head` is a template parameter or a class template pattern
    /// without that member, `None` when `head` is unknown.
    fn member_type(
        &mut self,
        il: &mut Il,
        head: &str,
        member: &str,
        depth: u32,
    ) -> Result<Option<Eix>, IlError> {
        let Some(h) = self.lookup(il, head, depth + 1)? else {
            return Ok(None);
        };
        let base = Self::strip(il, h);
        if !il.is_live(base) || il.kind(base) != EntryKind::Type {
            return Ok(None);
        }
        if il.tables.r#type.type_kind[il.row(base) as usize] == 14 {
            self.dependent_refs += 1;
            return self.dependent(il).map(Some);
        }
        for owner in [base, h] {
            if let Some(e) = self.own_member(il, owner, member) {
                return Ok(Some(e));
            }
        }
        if let Some(e) = self.inherited_member(il, base, member, 0) {
            return Ok(Some(e));
        }
        if self.patterns.contains(&base) {
            self.dependent_refs += 1;
            return self.dependent(il).map(Some);
        }
        Ok(None)
    }

    /// After the pass: placeholders whose name was defined later in the document under a
    /// qualified name (instantiations are dumped under their template, before some of the
    /// declarations they use) become aliases of the unique type with that last component,
    /// or of the class template pattern for a template-id. Returns how many resolved.
    pub fn late_resolve(&mut self, il: &mut Il) -> Result<usize, IlError> {
        let mut n = 0;
        let phs = std::mem::take(&mut self.placeholders);
        for &ph in &phs {
            if !self.is_placeholder(il, ph) {
                continue;
            }
            let Some(key) = self.placeholder_names.get(&ph).cloned() else {
                continue;
            };
            let last = last_component(&key);
            let target = match self.by_last.get(last) {
                Some(&e) if !e.is_none() && e != ph && !self.is_placeholder(il, e) => Some(e),
                _ => match last.find('<') {
                    Some(p) => self
                        .by_template_last
                        .get(&last[..p])
                        .copied()
                        .filter(|&e| e != ph && !self.is_placeholder(il, e)),
                    None => None,
                },
            };
            if let Some(t) = target {
                kinds::set_type_kind(il, il.id_of(ph), 12)?;
                set_base(il, ph, t)?;
                n += 1;
            }
        }
        self.placeholders = phs;
        Ok(n)
    }

    /// Placeholders still unresolved: entries of type kind 0.
    pub fn placeholders<'a>(&'a self, il: &'a Il) -> impl Iterator<Item = Eix> + 'a {
        self.placeholders
            .iter()
            .copied()
            .filter(move |&e| self.is_placeholder(il, e))
    }

    /// Follows typerefs and cv wrappers to the underlying type.
    pub fn strip(il: &Il, mut t: Eix) -> Eix {
        for _ in 0..64 {
            if !il.is_live(t) || il.kind(t) != EntryKind::Type {
                return t;
            }
            let r = il.row(t) as usize;
            let k = il.tables.r#type.type_kind[r];
            let q = il.tables.r#type.qualifiers[r];
            let is_ref = k == 6 && q & (qual::LREF | qual::RREF) != 0;
            if k != 12 && !is_ref {
                return t;
            }
            match il.child_eix(t, F::TYPE_BASE_TYPE) {
                Some(b) => t = b,
                None => return t,
            }
        }
        t
    }

    /// Handle of a type entry.
    pub fn id(il: &Il, t: Eix) -> EntryId {
        il.id_of(t)
    }
}

/// Removes every `__attribute__((...))` group.
fn strip_attributes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find("__attribute__((") {
        out.push_str(&rest[..p]);
        let b = &rest.as_bytes()[p..];
        let j = (closing_paren(b, "__attribute__".len()) + 1).min(b.len());
        rest = &rest[p + j..];
    }
    out.push_str(rest);
    out
}

fn matching(toks: &[Tk], i: usize) -> usize {
    let mut d = 0i32;
    let mut j = i;
    while j < toks.len() {
        match toks[j].t {
            T::LParen => d += 1,
            T::RParen => {
                d -= 1;
                if d == 0 {
                    return j;
                }
            }
            _ => {}
        }
        j += 1;
    }
    toks.len()
}

/// A qualified name split at its last top-level `::`: `(qualifier, last component)`.
fn split_last(q: &str) -> Option<(&str, &str)> {
    let last = last_component(q);
    let cut = q.len() - last.len();
    (cut >= 2).then(|| (&q[..cut - 2], last))
}

/// The last `::` component of a qualified name (template arguments kept).
pub fn last_component(q: &str) -> &str {
    let b = q.as_bytes();
    let mut depth = 0i32;
    let mut cut = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth -= 1,
            b':' if depth == 0 && i + 1 < b.len() && b[i + 1] == b':' => {
                cut = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    &q[cut..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(il: &Il, t: Eix) -> u8 {
        il.tables.r#type.type_kind[il.row(t) as usize]
    }

    #[test]
    fn parses_declarators() {
        let mut il = Il::new();
        let mut ty = Types::default();
        let p = ty.intern(&mut il, "const float *").unwrap();
        assert_eq!(kind(&il, p), 6);
        let fp = ty.intern(&mut il, "void (*)(int, float)").unwrap();
        assert_eq!(kind(&il, fp), 6);
        let f = il.child_eix(fp, F::TYPE_BASE_TYPE).unwrap();
        assert_eq!(kind(&il, f), 7);
        let a = ty.intern(&mut il, "int[2][3]").unwrap();
        assert_eq!(kind(&il, a), 8);
        assert_eq!(il.tables.r#type.size[il.row(a) as usize], 24);
        let r = ty.intern(&mut il, "int (&)[4]").unwrap();
        assert_eq!(kind(&il, r), 6);
        let u = ty.intern(&mut il, "unsigned long long").unwrap();
        assert_eq!(il.tables.r#type.size[il.row(u) as usize], 8);
        let (rec, _) = ty.named_entry(&mut il, "ns::Arr<float, 4>", 10).unwrap();
        assert_eq!(
            ty.intern(&mut il, "ns::Arr<float,4> &")
                .map(|t| il.child_eix(t, F::TYPE_BASE_TYPE))
                .unwrap(),
            Some(rec)
        );
        let x = ty.intern(&mut il, "Unknown<int>").unwrap();
        assert_eq!(kind(&il, x), 0);
        assert_eq!(ty.unresolved_refs(&il).0, 1);
        ty.in_pattern = true;
        ty.intern(&mut il, "Unknown<int>").unwrap();
        assert_eq!(ty.unresolved_refs(&il).1, 1);
        ty.in_pattern = false;
        let (later, existed) = ty.named_entry(&mut il, "Unknown<int>", 10).unwrap();
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
        assert_eq!(kind(&il, tp), 14);
        assert_eq!(il.name(tp), b"type-parameter-0-1");
        // `A::b` through a typedef of a class; an inherited member.
        let (base, _) = ty.named_entry(&mut il, "ns::Base", 10).unwrap();
        let (st, _) = ty.named_entry(&mut il, "ns::Base::size_type", 12).unwrap();
        let (rec, _) = ty.named_entry(&mut il, "ns::Rec<int>", 10).unwrap();
        ty.set_bases(rec, &[base]);
        let (td, _) = ty.named_entry(&mut il, "ns::Alias", 12).unwrap();
        set_base(&mut il, td, rec).unwrap();
        assert_eq!(ty.intern(&mut il, "ns::Alias::size_type").unwrap(), st);
        // Inside the class's scope, the unqualified member name is the inherited one.
        ty.qual = vec!["ns".into(), "Rec<int>".into()];
        assert_eq!(ty.intern(&mut il, "size_type").unwrap(), st);
        ty.qual.clear();
        // An alias template names its pattern; `typename` of an unknown qualifier is
        // dependent, not a placeholder.
        let (pat, _) = ty.named_entry(&mut il, "ns::Rec::_If<T>", 12).unwrap();
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
