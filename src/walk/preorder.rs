//! A read-only walk in the walker's order, for visitors that only look: the binary IL
//! writer's numbering.
//!
//! [`Walker`](super::Walker) serves every callback protocol, so it takes `&mut Il`, looks
//! each child up again after every callback (a callback may have changed the block) and
//! keeps a resumable frame per entry. A visitor that only decides whether to enter an
//! entry (a pre-walk check that also records it), with no entry replace, no string
//! visitor and an entry filter that rejects no more than its pre-walk check, changes
//! nothing; [`file_scope_preorder`] and [`subtree_preorder`] are that walk over `&Il`,
//! each open entry held as the slice of its children not looked at yet.
//!
//! # Order
//! The same as [`Walker::walk_file_scope_il`](super::Walker::walk_file_scope_il) with
//! `mode_flags` 0 and [`Walker::walk_entry_and_subtree`](super::Walker::walk_entry_and_subtree)
//! for such a visitor: the roots phase by phase, each entered entry's children (single
//! slots, then list members, skipping none) depth first, a constant's `operand` only when
//! the constant sub-switch descends into it, references never. O(entries + edges).

use super::walker::{constant_operand, Operand, WalkError};
use crate::il::schema::{PHASE5_WALK_ORDER, PHASE6_WALK_ORDER};
use crate::il::{fields, Eix, EntryKind, Il};

/// An entered entry: the children not looked at yet (the walk's stack holds one per
/// entry on the path to the current one).
pub(crate) struct Open<'a> {
    rest: &'a [Eix],
    /// `rest.len()` when the child not descended into (a constant's `operand` that the
    /// sub-switch skips or only remaps) is next; `usize::MAX` for none.
    skip: usize,
}

/// The children of entered entry `e`, checking a constant's sub-kind as the walker does
/// before its first child.
#[inline(always)]
fn open(il: &Il, e: Eix) -> Result<Open<'_>, WalkError> {
    let kids = il.children(e);
    let mut skip = usize::MAX;
    if il.kind(e) == EntryKind::Constant && !constant_descends(il, e)? {
        skip = kids
            .len()
            .wrapping_sub(fields::CONSTANT_OPERAND.slot as usize);
    }
    Ok(Open { rest: kids, skip })
}

/// Whether the walk descends into constant `e`'s `operand`.
#[inline(never)]
fn constant_descends(il: &Il, e: Eix) -> Result<bool, WalkError> {
    Ok(constant_operand(il, e)? == Operand::Descend)
}

/// Walks `root` and its subtree: `enter(e)` is asked for every entry met (`root` first,
/// then each child that is not none) and returns whether to enter it, that is, to walk
/// its children before the next sibling. `stack` is scratch (cleared first).
///
/// # Errors
/// A constant with a bad sub-kind (the walker's message), met as it is entered.
pub(crate) fn subtree_preorder<'a>(
    il: &'a Il,
    root: Eix,
    stack: &mut Vec<Open<'a>>,
    enter: &mut impl FnMut(Eix) -> bool,
) -> Result<(), WalkError> {
    stack.clear();
    if !enter(root) {
        return Ok(());
    }
    stack.push(open(il, root)?);
    'open: while let Some(top) = stack.last_mut() {
        let (mut rest, skip) = (top.rest, top.skip);
        while let Some((&c, tail)) = rest.split_first() {
            let here = rest.len();
            rest = tail;
            if !c.is_none() && here != skip && enter(c) {
                top.rest = rest;
                let o = open(il, c)?;
                // An entry without children is done once entered.
                if !o.rest.is_empty() {
                    stack.push(o);
                }
                continue 'open;
            }
        }
        stack.pop();
    }
    Ok(())
}

/// The file-scope walk of [`Walker::walk_file_scope_il`](super::Walker::walk_file_scope_il)
/// (`mode_flags` 0) for a visitor that only decides whether to enter each entry met (see
/// [`subtree_preorder`]): the primary scope, the top-level source files, the orphaned
/// entities, the per-kind lists in the seed's order and the trailing lists with the
/// external types, each walked as a root.
///
/// # Errors
/// A stale primary scope, or a constant with a bad sub-kind.
pub(crate) fn file_scope_preorder<'a, F: FnMut(Eix) -> bool>(
    il: &'a Il,
    enter: &mut F,
) -> Result<(), WalkError> {
    let mut stack = Vec::new();
    if let Some(ps) = il.primary_scope {
        let e = il.eix(ps).map_err(|_| WalkError {
            message: "walk_file_scope_il: stale primary scope",
            entry: Some(ps),
        })?;
        subtree_preorder(il, e, &mut stack, enter)?;
    }
    let mut nested = vec![false; il.capacity()];
    for f in il.kind_list(EntryKind::SourceFileEntry) {
        for &c in il.list_eix(f, fields::SOURCE_FILE_ENTRY_CHILD_FILES) {
            // A none member (a world that fails `verify`) is past the end.
            if let Some(n) = nested.get_mut(c.idx()) {
                *n = true;
            }
        }
    }
    for f in il.kind_list(EntryKind::SourceFileEntry) {
        if !nested[f.idx()] {
            subtree_preorder(il, f, &mut stack, enter)?;
        }
    }
    drop(nested);
    let kind_list = |k: u8, stack: &mut Vec<Open<'a>>, enter: &mut F| {
        let kind = EntryKind::ALL[k as usize];
        if kind.has_table() {
            for e in il.kind_list(kind) {
                subtree_preorder(il, e, stack, enter)?;
            }
        }
        Ok(())
    };
    kind_list(EntryKind::OrphanedEntities as u8, &mut stack, enter)?;
    for k in PHASE5_WALK_ORDER {
        kind_list(k, &mut stack, enter)?;
    }
    for k in PHASE6_WALK_ORDER {
        if k == EntryKind::Type as u8 {
            for e in il.external_types() {
                subtree_preorder(il, e, &mut stack, enter)?;
            }
        } else {
            kind_list(k, &mut stack, enter)?;
        }
    }
    Ok(())
}
