//! The name index and resolver: named types are indexed by normalized qualified name, by
//! last component (unique ones only), by template name and by class (its bases, its
//! qualified name for member lookup). A name resolves in the order of the module doc of
//! `types`; one that does not becomes a placeholder under its name, filled when that
//! name is defined, and after the import `late_resolve` aliases what remains to a unique
//! type of the same last component or a class template pattern.

use super::{new_type, normalize, set_base, Types, MAX_DEPTH};
use crate::il::kinds;
use crate::il::{fields as F, Eix, EntryKind, Il, IlError, TypeKind};
use std::rc::Rc;

/// clang's builtin templates (`BuiltinTemplateDecl`s, never dumped).
const BUILTIN_TEMPLATES: &[&str] = &["__make_integer_seq", "__type_pack_element"];

impl Types {
    /// The type entry for a named entity (record, enum, typedef) with qualified name
    /// `qname`: an existing entry of that name (a placeholder or an earlier declaration) or
    /// a new one of type kind `k`. Returns `(entry, existed)`.
    pub fn named_entry(
        &mut self,
        il: &mut Il,
        qname: &str,
        k: TypeKind,
    ) -> Result<(Eix, bool), IlError> {
        let key = normalize(qname);
        if let Some(&e) = self.by_name.get(key.as_str()) {
            if il.is_live(e) {
                let cur = il.ty(e).type_kind();
                if cur == TypeKind::Error && k != TypeKind::Error {
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
                kinds::set_type_kind(il, il.id_of(old), TypeKind::Typeref)?;
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
            self.by_template_last.entry(last.clone()).or_insert(e);
            if key.ends_with('>') && !key.contains("<partial#") {
                if let Some(sp) = Spelled::parse(&key, 0) {
                    self.specs_by_last.entry(last).or_default().push((sp, e));
                }
            }
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

    /// A placeholder for an unresolved name (filled if the name is defined later).
    pub(super) fn placeholder(&mut self, il: &mut Il, name: &str) -> Result<Eix, IlError> {
        let key = normalize(name);
        if let Some(&e) = self.by_name.get(key.as_str()) {
            self.last_placeholder = e;
            return Ok(e);
        }
        let t = new_type(il, TypeKind::Error, Some(last_component(&key)))?;
        self.placeholders.push(t);
        if let Some(k) = lambda_key(&key) {
            self.lambda_placeholders.entry(k).or_default().push(t);
        }
        let key: Rc<str> = key.into();
        self.placeholder_names.insert(t, key.clone());
        self.by_name.insert(key, t);
        self.last_placeholder = t;
        Ok(t)
    }

    pub(super) fn resolve_name(&mut self, il: &mut Il, n: &str) -> Result<Eix, IlError> {
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
            let t = new_type(il, TypeKind::TemplateParam, Some(&key))?;
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
                if head == head_base {
                    // `T::value_type`: a member of the parameter, found when substituted.
                    if let Some(h) = self.lookup(il, head, depth + 1)? {
                        if il.ty(h).type_kind() == TypeKind::TemplateParam {
                            return self.dependent_member(il, h, member).map(Some);
                        }
                    }
                }
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
            if let Some(e) = self.match_specialization(il, &key) {
                return Ok(Some(e));
            }
            let named = self.by_template.get(name).copied();
            let by_last = self.by_template_last.get(short).copied();
            if self.in_pattern && depth < MAX_DEPTH {
                // Inside a template pattern the arguments may depend on its parameters:
                // a dependent template-id over the class template's pattern, which
                // substitution resolves to the specialization its substituted arguments
                // name.
                let pattern = [named, by_last]
                    .into_iter()
                    .flatten()
                    .find(|p| self.patterns.contains(p));
                if let Some(p) = pattern {
                    self.dependent_refs += 1;
                    if let Some(t) = self.template_id(il, &key, p, depth)? {
                        return Ok(Some(t));
                    }
                }
            }
            if let Some(e) = named.or(by_last) {
                if self.in_pattern
                    && depth < MAX_DEPTH
                    && !self.patterns.contains(&e)
                    && self.mentions_tparam(&last[lp..])
                {
                    // No pattern of the template in the dump (a filtered one leaves out
                    // external headers' templates), only specializations: arguments
                    // naming the pattern's parameters still make a dependent template-id,
                    // over the first specialization met; substitution resolves it among
                    // that template's specializations.
                    self.dependent_refs += 1;
                    if let Some(t) = self.template_id(il, &key, e, depth)? {
                        return Ok(Some(t));
                    }
                }
                if self.patterns.contains(&e) {
                    return Ok(Some(e));
                }
                // Only specializations of the template are known (its pattern is not in
                // the dump) and none has these arguments: not one of them.
            }
        }
        // A closure type spelled with the path clang was given where the record's name
        // has the file's label (`<project>/…`): by file name, line and column.
        if let Some(k) = lambda_key(&key) {
            if let Some(&e) = self.lambdas.get(&k) {
                if !self.is_placeholder(il, e) {
                    return Ok(Some(e));
                }
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

    /// Whether the spelling `s` names a template parameter in scope (by name, or as
    /// clang's canonical `type-parameter-D-I`).
    fn mentions_tparam(&self, s: &str) -> bool {
        s.contains("type-parameter-")
            || s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .any(|w| {
                    self.tparam_scopes
                        .iter()
                        .any(|sc| sc.iter().any(|x| x == w))
                })
    }

    /// The one indexed specialization a template-id spelling names when clang printed it
    /// without its defaulted trailing arguments or with unqualified names (as it prints
    /// a class's own specialization inside its members: `__normal_iterator<char *,
    /// basic_string<char>>`): the specializations of the template whose arguments the
    /// spelled ones match, position by position and recursively, as a prefix and with
    /// qualifiers dropped. `None` when none or several match.
    pub(super) fn match_specialization(&self, il: &Il, key: &str) -> Option<Eix> {
        let spelled = Spelled::parse(key, 0)?;
        spelled.args.as_ref()?;
        let cands = self.specs_by_last.get(spelled.head.as_str())?;
        let mut found: Option<Eix> = None;
        for (reg, e) in cands {
            if self.is_placeholder(il, *e) {
                continue;
            }
            if spelled.matches(reg) {
                match found {
                    Some(f) if f != *e => return None,
                    _ => found = Some(*e),
                }
            }
        }
        found
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

    /// Indexes the closure type `e` named `(lambda at FILE:L:C)` by file name, line and
    /// column (clang spells the same closure type with the path it was given).
    /// Placeholders made for that spelling before become aliases of it.
    pub fn index_lambda(&mut self, il: &mut Il, name: &str, e: Eix) -> Result<(), IlError> {
        let Some(k) = lambda_key(name) else {
            return Ok(());
        };
        for ph in self.lambda_placeholders.remove(&k).unwrap_or_default() {
            if ph != e && self.is_placeholder(il, ph) {
                kinds::set_type_kind(il, il.id_of(ph), TypeKind::Typeref)?;
                set_base(il, ph, e)?;
            }
        }
        self.lambdas.entry(k).or_insert(e);
        Ok(())
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
    pub(super) fn typename_type(&mut self, il: &mut Il, n: &str) -> Result<Eix, IlError> {
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
        if il.ty(base).type_kind() == TypeKind::TemplateParam {
            self.dependent_refs += 1;
            return self.dependent_member(il, h, member).map(Some);
        }
        if self.in_pattern && self.patterns.contains(&base) && Self::names_template_id(il, h) {
            // A member of a dependent template-id (`typename _Alloc_traits::size_type`,
            // `_Alloc_traits` naming `__alloc_traits<_Alloc>`): the class template's
            // pattern declares it in terms of its own parameters, so it is found in the
            // specialization substitution names.
            self.dependent_refs += 1;
            return self.dependent_member(il, h, member).map(Some);
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
            // A member of a specialization named through parameters (or of the injected
            // class name): found in the specialization substitution names.
            let q = match self.template_id(il, head, base, depth)? {
                Some(q) => q,
                None => base,
            };
            return self.dependent_member(il, q, member).map(Some);
        }
        Ok(None)
    }

    /// Whether `t` is a dependent template-id or a typedef of one (through typedefs).
    fn names_template_id(il: &Il, mut t: Eix) -> bool {
        for _ in 0..64 {
            if !il.is_live(t) || il.kind(t) != EntryKind::Type {
                return false;
            }
            if il.child_eix(t, F::TYPE_TEMPLATE_INFO).is_some() {
                return il.ty(t).type_kind() == TypeKind::Typeref;
            }
            if il.ty(t).type_kind() != TypeKind::Typeref {
                return false;
            }
            match il.child_eix(t, F::TYPE_BASE_TYPE) {
                Some(b) => t = b,
                None => return false,
            }
        }
        false
    }

    /// The dependent member type `member` of the type `q` (a template parameter, a
    /// dependent template-id, a class template pattern): a tk_template_param named
    /// `member` whose base type is `q`.
    fn dependent_member(&mut self, il: &mut Il, q: Eix, member: &str) -> Result<Eix, IlError> {
        let t = new_type(il, TypeKind::TemplateParam, Some(member))?;
        set_base(il, t, q)?;
        Ok(t)
    }

    /// The template-id `head` (`ScalarType<scalar_t>`) of the class template whose
    /// pattern is `pattern`, as a dependent template-id: a typeref named `head`'s last
    /// component over the pattern, with a template_info holding the
    /// arguments (types, integer constants, non-type parameters as template-parameter
    /// constants). `None` when `head` has no arguments or one does not parse.
    fn template_id(
        &mut self,
        il: &mut Il,
        head: &str,
        pattern: Eix,
        depth: u32,
    ) -> Result<Option<Eix>, IlError> {
        let last = last_component(head);
        let (Some(lp), true) = (last.find('<'), last.ends_with('>')) else {
            return Ok(None);
        };
        if depth >= MAX_DEPTH {
            return Ok(None);
        }
        let inner = &last[lp + 1..last.len() - 1];
        let mut parts = Vec::new();
        let (mut d, mut start) = (0i32, 0usize);
        for (i, c) in inner.char_indices() {
            match c {
                '<' | '(' => d += 1,
                '>' | ')' => d -= 1,
                ',' if d == 0 => {
                    parts.push(inner[start..i].trim());
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(inner[start..].trim());
        let mut args = Vec::with_capacity(parts.len());
        for a in parts {
            if a.is_empty() || a.ends_with("...") {
                return Ok(None);
            }
            let arg = match self.value_arg(il, a)? {
                Some(c) => c,
                None => self.intern_nested(il, a, depth + 1)?,
            };
            args.push(arg);
        }
        let t = new_type(il, TypeKind::Typeref, Some(last))?;
        set_base(il, t, pattern)?;
        let info = il.alloc(EntryKind::TemplateInfo)?;
        for a in args {
            let ai = il.id_of(a);
            il.push_list(info, F::TEMPLATE_INFO_ARGS, ai)?;
        }
        il.set_child(il.id_of(t), F::TYPE_TEMPLATE_INFO, Some(info))?;
        Ok(Some(t))
    }

    /// After the pass: placeholders whose name was defined later in the document under a
    /// qualified name (instantiations are dumped under their template, before some of the
    /// declarations they use) become aliases of the specialization a template-id names,
    /// else of the unique type with that last component, or of the class template
    /// pattern for a template-id. Returns how many resolved.
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
            let unique = || match self.by_last.get(last) {
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
            // A template-id names the specialization dumped later, if one matches.
            let target = self
                .match_specialization(il, &key)
                .filter(|&e| e != ph)
                .or_else(unique);
            if let Some(t) = target {
                kinds::set_type_kind(il, il.id_of(ph), TypeKind::Typeref)?;
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
}

/// A qualified name split at its last top-level `::`: `(qualifier, last component)`.
pub(super) fn split_last(q: &str) -> Option<(&str, &str)> {
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

/// `FILE:L:C` of a closure type's name `(lambda at DIR/FILE:L:C)`, without directories.
fn lambda_key(name: &str) -> Option<String> {
    let rest = name.strip_prefix("(lambda at")?.strip_suffix(')')?.trim();
    let file = rest.rsplit('/').next().unwrap_or(rest);
    Some(file.to_string())
}

/// A type spelling as a tree of template-ids, qualifiers dropped: what
/// [`Types::match_specialization`] compares.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Spelled {
    head: String,
    args: Option<Vec<Spelled>>,
    tail: String,
}

impl Spelled {
    fn parse(s: &str, depth: u32) -> Option<Spelled> {
        if depth > 32 {
            return None;
        }
        let s = s.trim();
        let b = s.as_bytes();
        let Some(lt) = s.find('<') else {
            return Some(Spelled {
                head: unqualified(s),
                args: None,
                tail: String::new(),
            });
        };
        // the matching '>' and the top-level commas inside
        let (mut d, mut gt, mut cuts) = (0i32, None, vec![lt]);
        for (i, &c) in b.iter().enumerate().skip(lt) {
            match c {
                b'<' | b'(' | b'[' => d += 1,
                b'>' | b')' | b']' => {
                    d -= 1;
                    if d == 0 {
                        gt = Some(i);
                        break;
                    }
                }
                b',' if d == 1 => cuts.push(i),
                _ => {}
            }
        }
        let gt = gt?;
        cuts.push(gt);
        let mut args = Vec::new();
        if gt > lt + 1 {
            for w in cuts.windows(2) {
                args.push(Spelled::parse(&s[w[0] + 1..w[1]], depth + 1)?);
            }
        }
        Some(Spelled {
            head: last_component(&unqualified(&s[..lt])).to_string(),
            args: Some(args),
            tail: unqualified(&s[gt + 1..]),
        })
    }

    /// `self` (as spelled) names `reg` (as indexed): same heads and tails, and every
    /// spelled argument matches the indexed one at its position (trailing ones may be
    /// left out).
    fn matches(&self, reg: &Spelled) -> bool {
        // clang prints a `bool` argument as `true` / `false` in a type's spelling and as
        // the 1-bit value -1 / 0 in the specialization's arguments.
        let same_head = self.head == reg.head
            || matches!(
                (self.head.as_str(), reg.head.as_str()),
                ("true", "-1" | "1") | ("false", "0")
            );
        if !same_head || self.tail != reg.tail {
            return false;
        }
        match (&self.args, &reg.args) {
            (None, None) => true,
            (Some(a), Some(b)) => a.len() <= b.len() && a.iter().zip(b).all(|(x, y)| x.matches(y)),
            _ => false,
        }
    }
}

/// `s` with every `name::` qualifier (and `(anonymous namespace)::`) removed.
fn unqualified(s: &str) -> String {
    let s = s.trim();
    // An elaborated type specifier names the same type (`struct gguf_kv` is `gguf_kv`).
    let s = ["struct ", "class ", "union ", "enum "]
        .iter()
        .find_map(|k| s.strip_prefix(k))
        .unwrap_or(s);
    let s = s.replace("(anonymous namespace)::", "");
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        // an identifier followed by `::` is a qualifier
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if s[i..].starts_with("::") {
                i += 2;
            } else {
                out.push_str(&s[start..i]);
            }
            continue;
        }
        if s[i..].starts_with("::") {
            i += 2;
            continue;
        }
        let c = s[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}
