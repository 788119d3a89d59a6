//! Keep-in-IL marking (`mark_to_keep_in_il`): from the device roots, set keep_in_il on
//! every entry reachable through child edges; the targets of reference edges are marked
//! too (kept as declarations) but not descended into.
//!
//! Roots are routines carrying a `__global__` / `__device__` attribute and variables in
//! device memory (`__device__`, `__shared__`, `__constant__`, `__managed__`), plus any roots
//! the caller names.
//!
//! The kernel is a FIFO over dense entry indices reading the pooled child slices and one
//! dense bitset: no per-edge indirect call, allocation or hash lookup. O(entries + edges).

use crate::il::kinds::attr;
use crate::il::{fields as F, Eix, EntryId, EntryKind, Flag, Il, NREFS};

/// What a marking pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeepReport {
    /// Roots the pass started from.
    pub roots: usize,
    /// Entries marked keep_in_il (roots included).
    pub kept: usize,
    /// Live entries in the world.
    pub live: usize,
    /// Kept entries per kind number.
    pub kept_per_kind: Vec<(EntryKind, usize)>,
}

/// The device roots of a world: routines with `__global__` / `__device__`, variables in
/// device memory.
pub fn device_roots(il: &Il) -> Vec<Eix> {
    let mut roots = Vec::new();
    let is_device_attr = |a: Eix| {
        let k = il.tables.attribute.attr_kind[il.row(a) as usize];
        matches!(
            k,
            attr::GLOBAL | attr::DEVICE | attr::SHARED | attr::CONSTANT | attr::MANAGED
        )
    };
    for (row, &e) in il.tables.routine.eix.iter().enumerate() {
        let _ = row;
        if !e.is_none()
            && il
                .list_eix(e, F::ROUTINE_ATTRIBUTES)
                .iter()
                .any(|&a| is_device_attr(a))
        {
            roots.push(e);
        }
    }
    for (row, &e) in il.tables.variable.eix.iter().enumerate() {
        if !e.is_none()
            && (il.tables.variable.cuda_space[row] != 0
                || il
                    .list_eix(e, F::VARIABLE_ATTRIBUTES)
                    .iter()
                    .any(|&a| is_device_attr(a)))
        {
            roots.push(e);
        }
    }
    roots
}

/// Marks everything the device roots (and `extra_roots`) reach; returns the report.
pub fn mark_to_keep_in_il(il: &mut Il, extra_roots: &[EntryId]) -> KeepReport {
    let mut roots = device_roots(il);
    roots.extend(extra_roots.iter().filter_map(|&id| il.eix(id).ok()));
    let nroots = roots.len();
    let kept = mark_from(il, roots);
    let mut per_kind = vec![0usize; 85];
    for e in il.flag_column(Flag::KeepInIl).iter() {
        let e = Eix(e as u32);
        if il.is_live(e) {
            per_kind[il.kind(e) as usize] += 1;
        }
    }
    KeepReport {
        roots: nroots,
        kept,
        live: il.len(),
        kept_per_kind: per_kind
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(k, &n)| (EntryKind::ALL[k], n))
            .collect(),
    }
}

/// The marking kernel: FIFO from `queue`, never revisiting a marked entry. Returns the
/// number of entries newly marked.
pub fn mark_from(il: &mut Il, mut queue: Vec<Eix>) -> usize {
    let cap = il.capacity();
    let mut keep = std::mem::take(il.flag_column_mut(Flag::KeepInIl));
    keep.grow(cap);
    queue.reserve(cap.saturating_sub(queue.len()));
    let mut marked = 0usize;
    queue.retain(|&e| {
        let fresh = keep.insert(e.idx());
        marked += fresh as usize;
        fresh
    });
    let pool = il.edge_pool();
    let mut head = 0;
    while head < queue.len() {
        // Software prefetch of the edge block a few entries ahead in the FIFO: the queue
        // order is known, so the block's cache line can be on its way.
        if let Some(&ahead) = queue.get(head + 8) {
            prefetch(pool, il.child_span(ahead).0 as usize);
        }
        let e = queue[head];
        head += 1;
        let (start, nchild) = il.child_span(e);
        let nref = NREFS[il.kind(e) as usize] as usize;
        let end = (start + nchild) as usize;
        for &c in &pool[start as usize..end] {
            if !c.is_none() && keep.insert(c.idx()) {
                marked += 1;
                queue.push(c);
            }
        }
        for &r in &pool[end..end + nref] {
            if !r.is_none() && keep.insert(r.idx()) {
                marked += 1;
            }
        }
    }
    *il.flag_column_mut(Flag::KeepInIl) = keep;
    marked
}

/// Hints the cache to load `pool[i]` (no effect off x86_64 or out of range).
#[inline(always)]
fn prefetch(pool: &[Eix], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(p) = pool.get(i) {
        // SAFETY: `_mm_prefetch` only hints the cache and never faults; SSE is part of the
        // x86_64 baseline; the pointer comes from a live reference.
        unsafe {
            std::arch::x86_64::_mm_prefetch(p as *const Eix as *const i8, std::arch::x86_64::_MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (pool, i);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::il::synth::generate_into;

    #[test]
    fn marks_exactly_what_roots_reach() {
        let mut il = Il::new();
        let s = generate_into(&mut il, 3, 0.05).unwrap();
        let r = mark_to_keep_in_il(&mut il, &[]);
        assert!(r.roots >= s.device_routines.len());
        assert!(r.kept > r.roots && r.kept < r.live, "{r:?}");
        // Oracle: a plain reachability with a HashSet.
        let mut seen = std::collections::HashSet::new();
        let mut stack = device_roots(&il);
        let mut decl_only = std::collections::HashSet::new();
        while let Some(e) = stack.pop() {
            if !seen.insert(e) {
                continue;
            }
            stack.extend(il.children(e).iter().copied().filter(|c| !c.is_none()));
            decl_only.extend(il.refs(e).iter().copied().filter(|c| !c.is_none()));
        }
        let expected: std::collections::HashSet<_> = seen.union(&decl_only).copied().collect();
        let got: std::collections::HashSet<_> = il
            .flag_column(Flag::KeepInIl)
            .iter()
            .map(|i| Eix(i as u32))
            .collect();
        assert_eq!(got, expected);
        // Every device routine is kept.
        for d in s.device_routines {
            assert!(il.flag(il.eix(d).unwrap(), Flag::KeepInIl));
        }
    }
}
