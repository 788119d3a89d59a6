//! The deep copy engine (seed 002, part 3): `copy_expr_tree`, `copy_list_of_expr_trees`,
//! `copy_constant_full`, `copy_dynamic_init`, `copy_lambda_capture`, `copy_constant`.
//!
//! One iterative engine, [`DeepCopy`], copies any owned subtree of expressions,
//! constants, dynamic inits, lambda captures and subobject paths into a target region:
//! each source entry is cloned (row, strings and edge block in one `copy_entry_data`),
//! then a work stack visits the clone's owned children and patches each slot with the
//! child's copy. A post-order job per constant hands the finished copy to constant
//! sharing (when a [`ConstantSharing`] is attached), so copied constants are deduplicated
//! as in the seed (`i_copy_constant_full` ends in `alloc_shareable_constant`). O(nodes +
//! edges) time, O(depth) heap, no Rust recursion.
//!
//! Per-kind rules (expressions): kinds 0, 3, 4, 16, 19, 20, 22, 30 are shallow (their
//! operands, if any, stay shared, as the seed's "nothing beyond the shallow clone"); kind
//! 18 (substitution slot) becomes the replacement registered for its index (`supplement`)
//! in [`DeepCopy::slots`], when there is one; kind 17 with `COPY_ENTITIES` copies its
//! entity; kinds 5 and 18 copy the dynamic init their `entity` reference names; every
//! other kind copies its operands and its constant. Types are shared, except the
//! `declared_type` of an address constant (the seed's type definition), which is copied
//! once per copy through the substitution list: a type referenced twice in one tree is
//! copied once and both references point at the copy.
//!
//! When sharing finds a canonical constant for a copied one, the copy is left
//! unreferenced in the target region (it goes when the region does).
//!
//! Flags: [`flags::RESOLVE_REFS`] remaps entity references of kinds 2, 3, 7, 19 to
//! entities copied in the same copy; [`flags::MARK_INSTANTIATED`] stamps
//! `is_instantiated` on copied constants and lists the other copies in
//! [`DeepCopy::instantiated`]; [`flags::PRESERVE_SOURCE_POS`]
//! carries source positions over (otherwise copies take the current position).
//!
//! Each clone is one [`Il`] primitive (`clone_entry_in`): row, strings and the whole edge
//! block in one step; the copier then overwrites only the slots of children it copies.

use super::ConstantSharing;
use crate::il::{fields as F, Eix, EntryId, EntryKind, Il, IlError, RegionIdx};
use ahash::AHashMap;

/// Copy flags (the seed's bit values).
pub mod flags {
    /// Resolve entity references after copying.
    pub const RESOLVE_REFS: u32 = 0x10;
    /// Copy referenced entities of kind-17 expressions.
    pub const COPY_ENTITIES: u32 = 0x80;
    /// Stamp copies with the instantiation flag.
    pub const MARK_INSTANTIATED: u32 = 0x1000;
    /// Carry source positions over.
    pub const PRESERVE_SOURCE_POS: u32 = 0x5000;
}

const BAD_EXPR: &str = "i_copy_expr_tree: bad expr kind";

#[derive(Clone, Copy, Debug)]
enum At {
    Root,
    Child(Eix, u32),
    Ref(Eix, u32),
}

#[derive(Clone, Copy, Debug)]
enum Job {
    Copy(Eix, At),
    Share(Eix, At),
}

/// A deep copy in progress: target region, flags, substitution list, work stack.
pub struct DeepCopy<'s> {
    /// Copy flags ([`flags`]).
    pub flags: u32,
    /// Region the copies are allocated in.
    pub region: RegionIdx,
    /// Constant sharing for copied constants (`None`: copies are kept as they are).
    pub sharing: Option<&'s mut ConstantSharing>,
    /// The substitution list: original type definition → its copy in this copy.
    pub subst: AHashMap<Eix, Eix>,
    /// Replacements for kind-18 substitution slots, by index.
    pub slots: AHashMap<u32, Eix>,
    /// Every entry copied: original → copy.
    pub copied: AHashMap<Eix, Eix>,
    /// Copies other than constants stamped by [`flags::MARK_INSTANTIATED`] (constants
    /// carry the `is_instantiated` column; expression rows have no room for one).
    pub instantiated: Vec<Eix>,
    jobs: Vec<Job>,
    root: Eix,
    track: bool,
}

impl<'s> DeepCopy<'s> {
    /// A copier into `region` with `flags`, without sharing.
    pub fn new(flags: u32, region: RegionIdx) -> DeepCopy<'s> {
        DeepCopy {
            flags,
            region,
            sharing: None,
            subst: AHashMap::new(),
            slots: AHashMap::new(),
            copied: AHashMap::new(),
            instantiated: Vec::new(),
            jobs: Vec::new(),
            root: Eix::NONE,
            track: true,
        }
    }

    /// Attaches constant sharing: copied constants go through it.
    pub fn with_sharing(mut self, s: &'s mut ConstantSharing) -> DeepCopy<'s> {
        self.sharing = Some(s);
        self
    }

    /// Skips the original→copy map (faster; [`flags::RESOLVE_REFS`] then only sees the
    /// substitution list).
    pub fn without_tracking(mut self) -> DeepCopy<'s> {
        self.track = false;
        self
    }

    fn clone_entry(&mut self, il: &mut Il, src: Eix) -> Eix {
        let k = il.kind(src);
        let preserve = self.flags & flags::PRESERVE_SOURCE_POS == flags::PRESERVE_SOURCE_POS;
        let dst = il.clone_entry_in(src, self.region, preserve);
        let r = il.row(dst) as usize;
        let mark = self.flags & flags::MARK_INSTANTIATED != 0;
        match k {
            EntryKind::Constant => {
                il.tables.constant.is_shared[r] = false;
                if mark {
                    il.tables.constant.is_instantiated[r] = true;
                }
            }
            // Expression rows stay 12 bytes: instantiated expressions are listed instead.
            _ if mark => self.instantiated.push(dst),
            _ => {}
        }
        if self.track {
            self.copied.insert(src, dst);
        }
        dst
    }

    fn place(&mut self, il: &mut Il, at: At, v: Eix) {
        match at {
            At::Root => self.root = v,
            At::Child(p, i) => il.replace_child_at(p, i as usize, v),
            At::Ref(p, i) => il.replace_ref_at(p, i as usize, v),
        }
    }

    /// Copies the subtree at `src` (an expression, constant, dynamic init, lambda capture,
    /// subobject path or template info); returns the copy of `src`.
    ///
    /// # Errors
    /// An expression kind outside 0..=35 (`i_copy_expr_tree: bad expr kind`), or an error
    /// from sharing.
    pub fn copy_eix(&mut self, il: &mut Il, src: Eix) -> Result<Eix, IlError> {
        self.jobs.clear();
        self.jobs.push(Job::Copy(src, At::Root));
        while let Some(j) = self.jobs.pop() {
            match j {
                Job::Copy(s, at) => self.copy_one(il, s, at)?,
                Job::Share(c, at) => {
                    if let Some(sh) = self.sharing.as_deref_mut() {
                        let canon = sh.share_eix(il, c, true)?;
                        if canon != c {
                            self.place(il, at, canon);
                        }
                    }
                }
            }
        }
        if self.flags & flags::RESOLVE_REFS != 0 {
            self.resolve_refs(il);
        }
        Ok(self.root)
    }

    fn push_children(&mut self, il: &Il, dst: Eix) {
        let ch = il.children(dst);
        for i in (0..ch.len()).rev() {
            let c = ch[i];
            if c.is_none() {
                continue;
            }
            match il.kind(c) {
                EntryKind::ExprNode
                | EntryKind::Constant
                | EntryKind::DynamicInit
                | EntryKind::LambdaCapture
                | EntryKind::SubobjectPath
                | EntryKind::TemplateInfo => {
                    self.jobs.push(Job::Copy(c, At::Child(dst, i as u32)));
                }
                _ => {}
            }
        }
    }

    fn copy_one(&mut self, il: &mut Il, src: Eix, at: At) -> Result<(), IlError> {
        let k = il.kind(src);
        match k {
            EntryKind::ExprNode => {
                let ek = il.tables.expr_node.expr_kind[il.row(src) as usize];
                if ek > 35 {
                    return Err(IlError::BadKind(BAD_EXPR));
                }
                if ek == 18 {
                    let idx = il.tables.expr_node.supplement[il.row(src) as usize];
                    if let Some(&rep) = self.slots.get(&idx) {
                        self.place(il, at, rep);
                        return Ok(());
                    }
                }
                let dst = self.clone_entry(il, src);
                self.place(il, at, dst);
                match ek {
                    0 | 3 | 4 | 16 | 19 | 20 | 22 | 30 => {}
                    _ => self.push_children(il, dst),
                }
                // Only these kinds copy what their entity reference names.
                let ent = match ek {
                    5 | 17 | 18 => il.ref_eix(dst, F::EXPR_NODE_ENTITY),
                    _ => None,
                };
                match (ek, ent) {
                    (5 | 18, Some(init)) if il.kind(init) == EntryKind::DynamicInit => {
                        self.jobs
                            .push(Job::Copy(init, At::Ref(dst, F::EXPR_NODE_ENTITY.slot)));
                    }
                    (17, Some(e)) if self.flags & flags::COPY_ENTITIES != 0 => {
                        let id = il.alloc_same_region_as(il.kind(e), il.id_of(e))?;
                        let ne = il.eix(id)?;
                        il.copy_entry_data(e, ne);
                        self.copied.insert(e, ne);
                        il.replace_ref_at(dst, F::EXPR_NODE_ENTITY.slot as usize, ne);
                    }
                    _ => {}
                }
            }
            EntryKind::Constant => {
                let dst = self.clone_entry(il, src);
                self.place(il, at, dst);
                self.jobs.push(Job::Share(dst, at));
                let r = il.row(dst) as usize;
                let (ck, sub) = (
                    il.tables.constant.constant_kind[r],
                    il.tables.constant.sub_kind[r],
                );
                if ck == 6 {
                    if let Some(td) = il.child_eix(dst, F::CONSTANT_DECLARED_TYPE) {
                        let copy = match self.subst.get(&td) {
                            Some(&c) => c,
                            None => {
                                let id = il.alloc_in(EntryKind::Type, RegionIdx::FILE_SCOPE);
                                let c = il.eix(id)?;
                                il.copy_entry_data(td, c);
                                self.subst.insert(td, c);
                                c
                            }
                        };
                        il.replace_child_at(dst, F::CONSTANT_DECLARED_TYPE.slot as usize, copy);
                    }
                }
                // Template-parameter sub-kinds 0, 2, 3, 13 carry nothing to copy.
                if !(ck == 12 && matches!(sub, 0 | 2 | 3 | 13)) {
                    self.push_children(il, dst);
                }
            }
            EntryKind::DynamicInit
            | EntryKind::LambdaCapture
            | EntryKind::SubobjectPath
            | EntryKind::TemplateInfo => {
                let dst = self.clone_entry(il, src);
                self.place(il, at, dst);
                self.push_children(il, dst);
            }
            _ => {
                // Anything else is shared, not copied.
                self.place(il, at, src);
            }
        }
        Ok(())
    }

    fn resolve_refs(&mut self, il: &mut Il) {
        if self.copied.is_empty() {
            return;
        }
        let copies: Vec<Eix> = self.copied.values().copied().collect();
        for c in copies {
            if il.kind(c) != EntryKind::ExprNode {
                continue;
            }
            let ek = il.tables.expr_node.expr_kind[il.row(c) as usize];
            if !matches!(ek, 2 | 3 | 7 | 19) {
                continue;
            }
            if let Some(e) = il.ref_eix(c, F::EXPR_NODE_ENTITY) {
                if let Some(&n) = self.copied.get(&e) {
                    il.replace_ref_at(c, F::EXPR_NODE_ENTITY.slot as usize, n);
                }
            }
        }
    }
}

fn copy_checked(
    il: &mut Il,
    src: EntryId,
    kind: EntryKind,
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    let e = il.eix(src)?;
    if il.kind(e) != kind {
        return Err(IlError::WrongTarget {
            expected: kind,
            found: il.kind(e),
        });
    }
    let region = il.current_region();
    let mut cp = DeepCopy::new(flags, region);
    cp.sharing = sharing;
    let out = cp.copy_eix(il, e)?;
    Ok(il.id_of(out))
}

/// `copy_expr_tree`: a deep copy of an expression tree into the current region.
///
/// # Errors
/// A stale or non-expression `expr`; a bad expression kind in the tree.
pub fn copy_expr_tree(
    il: &mut Il,
    expr: EntryId,
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    copy_checked(il, expr, EntryKind::ExprNode, flags, sharing)
}

/// `copy_list_of_expr_trees`: copies each expression of a list, in order, with one
/// substitution list for the whole list.
///
/// # Errors
/// As [`copy_expr_tree`].
pub fn copy_list_of_expr_trees(
    il: &mut Il,
    list: &[EntryId],
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<Vec<EntryId>, IlError> {
    let region = il.current_region();
    let mut cp = DeepCopy::new(flags, region);
    cp.sharing = sharing;
    let mut out = Vec::with_capacity(list.len());
    for &x in list {
        let e = il.eix(x)?;
        let c = cp.copy_eix(il, e)?;
        out.push(il.id_of(c));
    }
    Ok(out)
}

/// `copy_constant_full`: a deep copy of a constant (aggregate elements, sub-constants,
/// dynamic inits, embedded expressions, type definitions through the substitution list),
/// passed through `sharing` when given.
///
/// # Errors
/// A stale or non-constant `c`; a bad kind inside.
pub fn copy_constant_full(
    il: &mut Il,
    c: EntryId,
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    copy_checked(il, c, EntryKind::Constant, flags, sharing)
}

/// `copy_constant`: [`copy_constant_full`] with flags 0.
///
/// # Errors
/// As [`copy_constant_full`].
pub fn copy_constant(
    il: &mut Il,
    c: EntryId,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    copy_constant_full(il, c, 0, sharing)
}

/// `copy_dynamic_init`: a deep copy of a dynamic initializer (its expression and
/// constant); the variable and routine references are shared.
///
/// # Errors
/// A stale or non-dynamic-init `init`.
pub fn copy_dynamic_init(
    il: &mut Il,
    init: EntryId,
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    copy_checked(il, init, EntryKind::DynamicInit, flags, sharing)
}

/// `copy_lambda_capture`: copies a lambda capture (its init expression deep-copied, the
/// captured variable shared).
///
/// # Errors
/// A stale or non-capture `capture`.
pub fn copy_lambda_capture(il: &mut Il, capture: EntryId, flags: u32) -> Result<EntryId, IlError> {
    copy_checked(il, capture, EntryKind::LambdaCapture, flags, None)
}
