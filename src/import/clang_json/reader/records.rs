//! Records (structs, classes, unions) and class template specializations, from opening
//! to closing. A record's type entry is found or made under its qualified name (an
//! unnamed one under clang's `(unnamed struct at F:L:C)` spelling and its aliases; a
//! specialization under `Name<args>` once its template arguments are read, and under each
//! argument prefix); its scope's qualifier is pushed while it is open and its base types
//! are interned when it opens, so names in its body may be inherited. When it closes:
//! base classes, fields, members into its scope, its parent scope, and a partial
//! specialization becomes a template over it.

use super::entries::text;
use super::finalize::Closed;
use super::{ie, Builder, Fail, Kid, FL_COMPLETE, FL_IMPLICIT};
use crate::il::kinds as K;
use crate::il::{fields as F, Eix, EntryKind, IlError, ScopeKind, TemplateKind, TypeKind};
use crate::import::clang_json::kinds::{Class, ExprClass, RecordKind};
use crate::import::clang_json::types::last_component;

impl Builder<'_> {
    /// A record: the injected class name stands for its class; a specialization waits
    /// for its template arguments (`register_spec`); others are defined now.
    pub(super) fn materialize_record(
        &mut self,
        t: usize,
        rk: RecordKind,
        pclass: Option<Class>,
    ) -> Result<(), IlError> {
        // The injected class name: the record itself.
        if rk == RecordKind::Plain
            && matches!(pclass, Some(Class::Record(_)))
            && self.frames[t].flags & FL_IMPLICIT != 0
            && self.frames[t].name == self.frames[t - 1].name
        {
            let pe = self.frames[t - 1].entry;
            self.frames[t].entry = pe;
            self.frames[t].reused = true;
            self.register(t, pe);
            return Ok(());
        }
        if rk == RecordKind::Spec {
            self.frames[t].reg_pending = true;
            self.enter_pattern(t, pclass);
            return Ok(());
        }
        if rk == RecordKind::Partial {
            self.frames[t].pattern = true;
            self.pattern_depth += 1;
            // Its own template parameters are children of the record.
            self.types.tparam_scopes.push(Vec::new());
            self.frames[t].tparams_pushed = true;
        }
        let name = self.record_name(t, pclass);
        self.define_record(t, &name)?;
        if matches!(pclass, Some(Class::Template(TemplateKind::Class)))
            && !self.frames[t - 1].pattern_seen
        {
            let q = self.qname(&self.frames[t].name.clone());
            self.types
                .template_name(self.il, &q, self.frames[t].entry)?;
        }
        self.enter_pattern(t, pclass);
        Ok(())
    }

    fn record_name(&self, t: usize, pclass: Option<Class>) -> String {
        let f = &self.frames[t];
        if !f.name.is_empty() {
            return f.name.clone();
        }
        let (file, l, c) = f.pos;
        let fname = self.file_name(file);
        if pclass == Some(Class::Expr(ExprClass::Lambda)) {
            format!("(lambda at {fname}:{l}:{c})")
        } else {
            let tag = if f.tag.is_empty() {
                "struct"
            } else {
                f.tag.as_str()
            };
            format!("(unnamed {tag} at {fname}:{l}:{c})")
        }
    }

    /// Allocates (or finds) the record type for frame `t` under `name`.
    fn define_record(&mut self, t: usize, name: &str) -> Result<(), IlError> {
        let tk = match self.frames[t].tag.as_str() {
            "class" => TypeKind::Class,
            "union" => TypeKind::Union,
            _ => TypeKind::Struct,
        };
        let q = if name.starts_with("(lambda") {
            name.to_string()
        } else {
            self.qname(name)
        };
        let (e, existed) = if self.pattern_depth > 0
            && self.frames[t].class == Some(Class::Record(RecordKind::Partial))
        {
            // Partial specializations: their own entry, indexed by their spelling.
            let (e, x) = self.types.named_entry(
                self.il,
                &format!("{q}<partial#{}>", self.frames[t].id),
                tk,
            )?;
            (e, x)
        } else {
            self.types.named_entry(self.il, &q, tk)?
        };
        if let Some(rest) = name.strip_prefix("(unnamed ") {
            // C prints "(unnamed at F:L:C)" without the tag.
            if let Some(p) = rest.find(" at ") {
                let alias = self.qname(&format!("(unnamed{}", &rest[p..]));
                self.types.alias_name(self.il, &alias, e)?;
            }
        }
        if name.starts_with("(lambda") {
            self.types.index_lambda(self.il, name, e)?;
        }
        if name.starts_with("(unnamed ") {
            // clang also prints "(anonymous struct at ...)".
            let alias = self.qname(&name.replacen("(unnamed", "(anonymous", 1));
            self.types.alias_name(self.il, &alias, e)?;
        }
        let cur = self.il.ty(e).type_kind();
        if !cur.is_class() {
            // A typedef or placeholder of the same name: keep its entry kind if typedef.
            if cur == TypeKind::Error {
                K::set_type_kind(self.il, self.il.id_of(e), tk)?;
            }
        }
        if self.frames[t].flags & FL_COMPLETE != 0 {
            self.il.ty_mut(e).set_is_defined(true);
        }
        if self.il.child_eix(e, F::TYPE_SCOPE).is_none() {
            let s = K::alloc_scope(self.il, ScopeKind::Class, None)?;
            let se = self.il.eix(s)?;
            self.set_child(e, F::TYPE_SCOPE, se)?;
        }
        self.frames[t].entry = e;
        self.frames[t].reused = existed;
        self.types.qual.push(last_comp_owned(&q));
        self.frames[t].qual_pushed = true;
        self.register(t, e);
        // Base types now, from the class's scope: names in its body may be inherited.
        let bases = std::mem::take(&mut self.frames[t].bases);
        let mut types = std::mem::take(&mut self.frames[t].base_types);
        types.clear();
        let mut r = Ok(());
        for (ty, _, _) in &bases {
            self.types.in_pattern = self.pattern_depth > 0;
            match self.types.intern(self.il, ty) {
                Ok(bt) => types.push(bt),
                Err(x) => {
                    r = Err(x);
                    break;
                }
            }
        }
        self.frames[t].bases = bases;
        r?;
        self.types.set_bases(e, &types);
        self.frames[t].base_types = types;
        Ok(())
    }

    /// Registers a class template specialization once its arguments are known.
    pub(super) fn register_spec(&mut self, off: u64, t: usize) -> Result<(), Fail> {
        self.frames[t].reg_pending = false;
        let name = format!("{}<{}>", self.frames[t].name, self.frames[t].targs);
        self.set_pos(t);
        let r = self.define_record(t, &name);
        r.map_err(|e| ie(off, e))?;
        // clang prints specializations without trailing default arguments
        // (`std::vector<float>`): index the argument prefixes too (the first wins).
        let e = self.frames[t].entry;
        let targs = self.frames[t].targs.clone();
        let parts = split_args(&targs);
        if !parts.is_empty() && !e.is_none() {
            let base = self.frames[t].name.clone();
            // The record's own component is on the qual stack now: drop it.
            let comp = self.types.qual.pop();
            for k in 0..parts.len() {
                let n = format!("{}<{}>", base, parts[..k].join(", "));
                let q = self.qname(&n);
                self.types
                    .alias_name(self.il, &q, e)
                    .map_err(|x| ie(off, x))?;
            }
            if let Some(c) = comp {
                self.types.qual.push(c);
            }
        }
        Ok(())
    }

    /// A closing record; a partial specialization is delivered as the template that
    /// has it as pattern.
    pub(super) fn finish_record_node(
        &mut self,
        t: usize,
        rk: RecordKind,
        e: Eix,
        kids: &[Kid],
        out: &mut Closed,
    ) -> Result<(), IlError> {
        self.finish_record(t, e, kids)?;
        if rk == RecordKind::Partial && !e.is_none() {
            // A partial specialization: a template with its own parameters and the
            // specialized record as its pattern.
            let tm = self.alloc(EntryKind::Template)?;
            let name = self.frames[t].name.clone();
            if let Some(b) = text(tm, &name) {
                self.il.template_mut(tm).set_name(b);
            }
            self.il
                .template_mut(tm)
                .set_template_kind(TemplateKind::PartialSpecialization);
            for k in kids {
                if !k.e.is_none() && self.il.kind(k.e) == EntryKind::TemplateParam {
                    self.push(tm, F::TEMPLATE_PARAMS, k.e)?;
                }
            }
            self.set_child(tm, F::TEMPLATE_PATTERN, e)?;
            out.e = tm;
        }
        Ok(())
    }

    fn finish_record(&mut self, t: usize, e: Eix, kids: &[Kid]) -> Result<(), IlError> {
        if e.is_none() {
            return Ok(());
        }
        let mut info = Eix::NONE;
        if !self.frames[t].targ_entries.is_empty() {
            info = self.template_info(t)?;
        }
        // Bases.
        let bases = std::mem::take(&mut self.frames[t].bases);
        let mut base_entries = Vec::with_capacity(bases.len());
        let types = std::mem::take(&mut self.frames[t].base_types);
        for (i, (ty, access, virt)) in bases.iter().enumerate() {
            let bt = match types.get(i) {
                Some(&bt) => bt,
                None => self.types.intern(self.il, ty)?,
            };
            let b = self.alloc(EntryKind::BaseClass)?;
            self.il
                .base_class_mut(b)
                .set_access(*access)
                .set_is_virtual(*virt);
            self.set_child(b, F::BASE_CLASS_TYPE, bt)?;
            self.set_ref(b, F::BASE_CLASS_DERIVED_CLASS, e)?;
            base_entries.push(b);
        }
        self.frames[t].bases = bases;
        self.frames[t].base_types = types;
        let reused = self.frames[t].reused && !self.il.list_eix(e, F::TYPE_FIELDS).is_empty();
        if !info.is_none() && self.il.child_eix(e, F::TYPE_TEMPLATE_INFO).is_none() {
            self.set_child(e, F::TYPE_TEMPLATE_INFO, info)?;
        }
        if !reused {
            for b in base_entries {
                self.push(e, F::TYPE_BASES, b)?;
            }
            for k in kids {
                if !k.e.is_none() && !k.reused && self.il.kind(k.e) == EntryKind::Field {
                    self.push(e, F::TYPE_FIELDS, k.e)?;
                }
            }
        }
        let scope = self.il.child_eix(e, F::TYPE_SCOPE).unwrap_or(Eix::NONE);
        let members: Vec<Kid> = kids
            .iter()
            .copied()
            .filter(|k| !k.e.is_none() && k.e != e && !k.reused)
            .collect();
        self.attach_to_scope(scope, &members)?;
        if !scope.is_none() && self.il.ref_eix(scope, F::SCOPE_PARENT).is_none() {
            // The enclosing scope is known only through the frame stack.
            for p in (0..t).rev() {
                let pe = self.frames[p].entry;
                if pe.is_none() {
                    continue;
                }
                let ps = match self.il.kind(pe) {
                    EntryKind::Scope => Some(pe),
                    EntryKind::Namespace => self.il.child_eix(pe, F::NAMESPACE_SCOPE),
                    EntryKind::Type => self.il.child_eix(pe, F::TYPE_SCOPE),
                    _ => None,
                };
                if let Some(ps) = ps {
                    self.set_ref(scope, F::SCOPE_PARENT, ps)?;
                    break;
                }
            }
        }
        // A local class inside a function body.
        if let Some(&f) = self.fn_stack.last() {
            if f + 1 < t && matches!(self.parent_class(t), Some(Class::Stmt(_))) {
                self.frames[f].locals.push(e);
            }
        }
        Ok(())
    }
}

/// Splits template arguments at top-level commas.
fn split_args(s: &str) -> Vec<&str> {
    let mut v = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                v.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        v.push(s[start..].trim());
    }
    v
}

fn last_comp_owned(q: &str) -> String {
    last_component(q).to_string()
}
