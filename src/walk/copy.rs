//! IL copy: a subtree (say a template routine and everything it owns) copied with the
//! walker. The pre-walk check consults a visited map (ahash) from original to copy, so
//! an entry reachable twice is copied once and cycles terminate; each newly visited entry
//! is copied into the matching region (file scope stays file scope, each function region
//! gets a fresh function region); then every edge of every copy is translated through the
//! map (the seed's entry-replace step), so the copy points at copies and at the shared
//! entries the caller chose not to copy. O(entries + edges of the subtree).

use super::walker::{Callbacks, WalkError, Walker};
use crate::il::{Eix, EntryId, EntryKind, Il, RegionIdx, TypeKind};
use ahash::AHashMap;

/// Which entries a copy shares with the original instead of copying.
pub type SharePredicate<'a> = &'a dyn Fn(&Il, Eix) -> bool;

/// Shares file-scope types other than routine types (`int`, classes, ...): the usual
/// choice when copying a routine.
pub fn share_file_scope_types(il: &Il, e: Eix) -> bool {
    il.as_ty(e)
        .is_some_and(|t| t.type_kind() != TypeKind::Routine)
        && il.region_of(e) == RegionIdx::FILE_SCOPE
}

struct Copier<'a> {
    root: Eix,
    share: SharePredicate<'a>,
    map: AHashMap<Eix, Eix>,
    order: Vec<Eix>,
    regions: AHashMap<RegionIdx, RegionIdx>,
}

impl Callbacks for Copier<'_> {
    const HAS_PRE_WALK: bool = true;

    fn pre_walk_check(&mut self, il: &mut Il, e: Eix, kind: EntryKind) -> bool {
        if self.map.contains_key(&e) || (e != self.root && (self.share)(il, e)) {
            return true;
        }
        let from = il.region_of(e);
        let to = *self.regions.entry(from).or_insert_with(|| {
            if from == RegionIdx::FILE_SCOPE {
                from
            } else {
                il.open_function_region(None)
            }
        });
        let id = il.alloc_in(kind, to);
        let ne = il.eix(id).expect("a fresh entry resolves");
        il.copy_entry_data(e, ne);
        self.map.insert(e, ne);
        self.order.push(e);
        false
    }
}

/// What a copy made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CopyReport {
    /// Entries copied.
    pub copied: usize,
    /// Function regions opened for the copy.
    pub regions: usize,
}

/// Copies `root` and everything it owns (per `share`); returns the copy of `root`.
///
/// # Errors
/// A stale `root`, or a walk error (a bad constant sub-kind in the subtree).
pub fn copy_subtree(
    il: &mut Il,
    root: EntryId,
    share: SharePredicate<'_>,
) -> Result<(EntryId, CopyReport), WalkError> {
    let r = il.eix(root).map_err(|_| WalkError {
        message: "copy_subtree: stale root",
        entry: Some(root),
    })?;
    let saved = il.current_region();
    let mut c = Copier {
        root: r,
        share,
        map: AHashMap::new(),
        order: Vec::new(),
        regions: AHashMap::new(),
    };
    Walker::new().walk_entry_and_subtree(il, &mut c, r)?;
    for &orig in &c.order {
        let copy = c.map[&orig];
        let nchild = il.children(copy).len();
        for i in 0..nchild {
            let t = il.children(copy)[i];
            if let Some(&n) = c.map.get(&t) {
                il.replace_child_at(copy, i, n);
            }
        }
        for i in 0..il.refs(copy).len() {
            let t = il.refs(copy)[i];
            if let Some(&n) = c.map.get(&t) {
                il.replace_ref_at(copy, i, n);
            }
        }
    }
    let _ = il.switch_region(saved);
    let report = CopyReport {
        copied: c.order.len(),
        regions: c
            .regions
            .len()
            .saturating_sub(usize::from(c.regions.contains_key(&RegionIdx::FILE_SCOPE))),
    };
    Ok((il.id_of(c.map[&r]), report))
}
