//! Small IL helpers shared by opening and closing nodes: the qualified name in the current
//! scopes, the frame's type, edge setters that drop an edge whose child is absent or of
//! another kind than the field's (an AST edge clang printed elsewhere is no error), ids
//! (registration, reuse of an earlier entry, placeholders for ids not dumped yet, made in
//! the file-scope region) and opaque entries for unmapped kinds.

use super::Builder;
use crate::il::kinds as K;
use crate::il::{fields as F, ConstantKind, Eix, EntryKind, IlError, RegionIdx, StorageClass};
use crate::import::clang_json::kinds::Class;
use crate::import::clang_json::types::Alt;

impl Builder<'_> {
    pub(super) fn qname(&self, name: &str) -> String {
        let mut s = String::new();
        for q in &self.types.qual {
            if !q.is_empty() {
                s.push_str(q);
                s.push_str("::");
            }
        }
        s.push_str(name);
        s
    }

    pub(super) fn parent_class(&self, t: usize) -> Option<Class> {
        if t == 0 {
            None
        } else {
            self.frames[t - 1].class
        }
    }

    pub(super) fn type_of(&mut self, t: usize) -> Result<Eix, IlError> {
        self.type_of_or(t, Alt::None)
    }

    /// The type of frame `t`; `alt` stands in where its spelling does not resolve here.
    pub(super) fn type_of_or(&mut self, t: usize, alt: Alt) -> Result<Eix, IlError> {
        self.types.in_pattern = self.pattern_depth > 0;
        let f = &self.frames[t];
        let s = if !f.desugared.is_empty() {
            f.desugared.clone()
        } else {
            f.qual_type.clone()
        };
        if s.is_empty() {
            return Ok(Eix::NONE);
        }
        self.types.intern_or(self.il, &s, alt)
    }

    /// Whether an edge `p -> c` can be set: both present and `c` of the field's kind
    /// (an AST edge of another kind is dropped, not an error).
    fn fits(&self, target: Option<crate::il::EntryKind>, p: Eix, c: Eix) -> bool {
        !p.is_none() && !c.is_none() && target.is_none_or(|t| self.il.kind(c) == t)
    }

    pub(super) fn set_child(
        &mut self,
        p: Eix,
        f: crate::il::ChildField,
        c: Eix,
    ) -> Result<(), IlError> {
        if !self.fits(f.target, p, c) {
            return Ok(());
        }
        self.il.set_child_eix(p, f, c)
    }

    pub(super) fn set_ref(
        &mut self,
        p: Eix,
        f: crate::il::RefField,
        c: Eix,
    ) -> Result<(), IlError> {
        if !self.fits(f.target, p, c) {
            return Ok(());
        }
        self.il.set_ref_eix(p, f, c)
    }

    pub(super) fn push(&mut self, p: Eix, f: crate::il::ListField, c: Eix) -> Result<(), IlError> {
        if !self.fits(f.target, p, c) {
            return Ok(());
        }
        self.il.push_list_field_eix(p, f, c)
    }

    pub(super) fn alloc(&mut self, k: EntryKind) -> Result<Eix, IlError> {
        let id = self.il.alloc(k)?;
        self.il.eix(id)
    }

    pub(super) fn rflag(&mut self, e: Eix, bits: u16) {
        if e.is_none() || self.il.kind(e) != EntryKind::Routine {
            return;
        }
        let f = self.il.routine(e).decl_flags() | bits;
        self.il.routine_mut(e).set_decl_flags(f);
    }

    /// Resolves the reference frame `t` read (`referencedDecl` and its kin).
    pub(super) fn frame_ref(&mut self, t: usize) -> Result<Eix, IlError> {
        let (id, rk) = (self.frames[t].ref_id, self.frames[t].ref_kind);
        let name = std::mem::take(&mut self.frames[t].ref_name);
        let r = self.resolve_ref(id, rk, &name);
        self.frames[t].ref_name = name;
        r
    }

    /// The entry of clang id `id` and whether its node was seen in full; `None` for an
    /// unknown id, or one whose entry was freed with a closed body.
    pub(super) fn lookup(&self, id: u64) -> Option<(Eix, bool)> {
        self.ids
            .get(id)
            .filter(|&(e, _)| e.is_none() || self.il.is_live(e))
    }

    /// Resolves a referenced declaration, making a placeholder from the inline payload when
    /// the id was not dumped (yet).
    pub(super) fn resolve_ref(&mut self, id: u64, kind: u16, name: &str) -> Result<Eix, IlError> {
        if id == 0 {
            return Ok(Eix::NONE);
        }
        if let Some((e, _)) = self.lookup(id) {
            return Ok(e);
        }
        let class = if kind == u16::MAX {
            Class::Other
        } else {
            self.class_of(kind)
        };
        let saved = self.il.current_region();
        self.il.switch_region(RegionIdx::FILE_SCOPE)?;
        let e = match class {
            Class::Function(_) => self.alloc(EntryKind::Routine)?,
            Class::Var => {
                let v = self.il.alloc_variable(StorageClass::Extern)?;
                self.il.eix(v)?
            }
            Class::Parm => self.alloc(EntryKind::ParamType)?,
            Class::Field => self.alloc(EntryKind::Field)?,
            Class::EnumConst => {
                let c = self.alloc(EntryKind::Constant)?;
                K::set_constant_kind(self.il, self.il.id_of(c), ConstantKind::Integer)?;
                c
            }
            Class::Template(_) => self.alloc(EntryKind::Template)?,
            Class::TemplateParm(_) => self.alloc(EntryKind::TemplateParam)?,
            Class::Namespace => self.alloc(EntryKind::Namespace)?,
            Class::Record(_) | Class::Typedef | Class::Enum => self.alloc(EntryKind::Type)?,
            _ => {
                let e = self.alloc(EntryKind::NameReference)?;
                if let Some(n) = self.kind_names.get(kind as usize) {
                    let n = n.clone();
                    if let Some(b) = text(e, &n) {
                        self.il.name_reference_mut(e).set_clang_kind(b);
                    }
                }
                e
            }
        };
        if let Some(b) = text(e, name) {
            // Every kind a placeholder takes has a `name` string.
            self.il.set_string_named(self.il.id_of(e), "name", b)?;
        }
        self.il.switch_region(saved)?;
        self.placeholders_made += 1;
        self.ids.insert(id, (e, false));
        Ok(e)
    }

    /// The existing entry for this node's id (a placeholder) if it has kind `k`.
    pub(super) fn reuse(&mut self, t: usize, k: EntryKind) -> Option<Eix> {
        let f = &self.frames[t];
        for id in [f.id, f.previous] {
            if id == 0 {
                continue;
            }
            if let Some((e, _)) = self.lookup(id) {
                if self.il.is_live(e) && self.il.kind(e) == k {
                    return Some(e);
                }
            }
        }
        None
    }

    pub(super) fn register(&mut self, t: usize, e: Eix) {
        let id = self.frames[t].id;
        if id != 0 && !e.is_none() {
            self.ids.insert(id, (e, true));
        }
    }

    pub(super) fn set_pos(&mut self, t: usize) {
        let (f, l, c) = self.frames[t].pos;
        self.il.set_position(f, l, c);
    }

    pub(super) fn opaque(&mut self, t: usize) -> Result<Eix, IlError> {
        let e = self.alloc(EntryKind::NameReference)?;
        let k = self.frames[t].kind as usize;
        self.opaque_counts[k] += 1;
        let kn = self.kind_names[k].clone();
        let name = self.frames[t].name.clone();
        if let Some(b) = text(e, &name) {
            self.il.name_reference_mut(e).set_name(b);
        }
        if let Some(b) = text(e, &kn) {
            self.il.name_reference_mut(e).set_clang_kind(b);
        }
        if self.frames[t].ref_id != 0 {
            let r = self.frame_ref(t)?;
            self.set_ref(e, F::NAME_REFERENCE_ENTITY, r)?;
        }
        Ok(e)
    }
}

/// The bytes to store as a string field of `e`: `None` for no entry or an empty string
/// (an unset string stays unset).
pub(super) fn text(e: Eix, s: &str) -> Option<&[u8]> {
    (!e.is_none() && !s.is_empty()).then_some(s.as_bytes())
}
