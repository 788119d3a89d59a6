//! The edge pool: every entry's edges in one `Vec<Eix>`, one block per entry.
//!
//! # Block layout
//! `[references][list lengths][single slots][list 0 members]...[list n-1 members]`, and the
//! entry's `start` column points at its first single slot. So the entry's children (single
//! slots, then list members) are one slice `start..start + nchild`, where
//! `nchild = singles + Σ list lengths`; its references and list lengths sit just before
//! `start` (usually the same cache line); and the block ends with the last list's members:
//! appending to an entry's last list while its block ends the pool (a builder filling the
//! entry it just made) is a plain push. A block that does not end the pool moves there
//! first, leaving garbage that compaction reclaims (amortized O(1) per slot).
//!
//! # Invariants (checked by `Il::verify`)
//! - a live entry's block lies inside the pool and its list lengths sum to its members.
//! - `edge_garbage` counts pool slots no live block covers.

use super::{
    ChildField, Eix, EntryId, EntryKind, Il, IlError, ListField, RefField, NLISTS, NREFS, NSINGLES,
};

/// (references, lists, single slots) of a kind's block.
#[inline(always)]
pub(super) const fn block_shape(k: EntryKind) -> (usize, usize, usize) {
    let i = k as usize;
    (NREFS[i] as usize, NLISTS[i] as usize, NSINGLES[i] as usize)
}

/// Number of children of the block whose single slots start at `start` in `pool`: the
/// kind's single slots plus its list lengths (the `nl` words before `start`).
#[inline(always)]
pub(super) fn nchild_at(pool: &[Eix], k: EntryKind, start: usize) -> usize {
    let (_, nl, ns) = block_shape(k);
    let mut n = ns;
    for w in &pool[start - nl..start] {
        n += w.idx();
    }
    n
}

impl Il {
    /// `(begin, start, end)` of `e`'s block: it covers `begin..end`, children from `start`.
    #[inline(always)]
    pub(super) fn block(&self, e: Eix) -> (usize, usize, usize) {
        let k = self.cols.kind[e.idx()];
        let start = self.cols.start[e.idx()] as usize;
        let (nr, nl, _) = block_shape(k);
        (
            start - nl - nr,
            start,
            start + nchild_at(&self.edges, k, start),
        )
    }

    /// Appends an empty block for `kind` (references and single slots none, lists empty)
    /// and returns its `start`.
    #[inline(always)]
    pub(super) fn new_block(&mut self, kind: EntryKind) -> u32 {
        let (nr, nl, ns) = block_shape(kind);
        let pool = &mut self.edges;
        pool.reserve(nr + nl + ns);
        pool.extend(std::iter::repeat_n(Eix::NONE, nr));
        pool.extend(std::iter::repeat_n(Eix::new(0), nl));
        let start = pool.len() as u32;
        pool.extend(std::iter::repeat_n(Eix::NONE, ns));
        start
    }

    /// The children of `e` (single slots, `Eix::NONE` when unset, then list items): the one
    /// slice walks and marking iterate.
    #[inline]
    pub fn children(&self, e: Eix) -> &[Eix] {
        let (_, start, end) = self.block(e);
        &self.edges[start..end]
    }

    /// `(references, list lengths, children)` of `e`'s block from one block lookup (a
    /// writer that copies whole blocks reads all three).
    #[inline]
    pub(crate) fn block_parts(&self, e: Eix) -> (&[Eix], &[Eix], &[Eix]) {
        let (begin, start, end) = self.block(e);
        let nl = NLISTS[self.cols.kind[e.idx()] as usize] as usize;
        let (head, kids) = self.edges[begin..end].split_at(start - begin);
        let (refs, lens) = head.split_at(head.len() - nl);
        (refs, lens, kids)
    }

    /// The reference slots of `e` (`Eix::NONE` when unset).
    #[inline]
    pub fn refs(&self, e: Eix) -> &[Eix] {
        let (begin, start, _) = self.block(e);
        let nl = NLISTS[self.cols.kind[e.idx()] as usize] as usize;
        &self.edges[begin..start - nl]
    }

    /// Hints the cache to load `e`'s start and kind (stage one of a two-stage prefetch in
    /// marking kernels whose visit order is known ahead).
    #[inline(always)]
    pub fn prefetch_entry(&self, e: Eix) {
        if let (Some(s), Some(k)) = (self.cols.start.get(e.idx()), self.cols.kind.get(e.idx())) {
            prefetch(s);
            prefetch(k);
        }
    }

    /// Hints the cache to load `e`'s edge block (stage two: `e`'s start should be cached).
    #[inline(always)]
    pub fn prefetch_edges(&self, e: Eix) {
        if let Some(&s) = self.cols.start.get(e.idx()) {
            // The list lengths and references just before `start` share its line mostly.
            if let Some(p) = self.edges.get(s as usize) {
                prefetch(p);
            }
        }
    }

    /// Raw access for marking kernels: the pool (see the module docs for the block layout).
    #[inline]
    pub fn edge_pool(&self) -> &[Eix] {
        &self.edges
    }

    /// `(start, nchild)` of `e` in [`Il::edge_pool`]: its children are
    /// `pool[start..start + nchild]`, its references the `NREFS[kind]` slots before the
    /// kind's `NLISTS[kind]` list lengths, which end at `start`.
    #[inline]
    pub fn child_span(&self, e: Eix) -> (u32, u32) {
        let k = self.cols.kind[e.idx()];
        let start = self.cols.start[e.idx()] as usize;
        (start as u32, nchild_at(&self.edges, k, start) as u32)
    }

    pub(super) fn expect(&self, id: EntryId, kind: EntryKind) -> Result<Eix, IlError> {
        let e = self.eix(id)?;
        let k = self.kind(e);
        if k != kind {
            return Err(IlError::WrongOwner {
                field_owner: kind,
                entry: k,
            });
        }
        Ok(e)
    }

    #[inline]
    fn check_owner(&self, e: Eix, owner: EntryKind) -> Result<(), IlError> {
        let k = self.kind(e);
        if k != owner {
            return Err(IlError::WrongOwner {
                field_owner: owner,
                entry: k,
            });
        }
        Ok(())
    }

    #[inline]
    pub(super) fn check_target(
        &self,
        target: Option<EntryKind>,
        child: Eix,
    ) -> Result<(), IlError> {
        if let Some(t) = target {
            let found = self.kind(child);
            if found != t {
                return Err(IlError::WrongTarget { expected: t, found });
            }
        }
        Ok(())
    }

    /// Sets a single-child field.
    ///
    /// # Errors
    /// Stale IDs, a field of another kind, or a child of the wrong kind.
    pub fn set_child(
        &mut self,
        parent: EntryId,
        f: ChildField,
        child: Option<EntryId>,
    ) -> Result<(), IlError> {
        let p = self.eix(parent)?;
        let c = match child {
            Some(c) => self.eix(c)?,
            None => Eix::NONE,
        };
        self.set_child_eix(p, f, c)
    }

    /// [`Il::set_child`] by dense index (`Eix::NONE` clears the slot).
    ///
    /// # Errors
    /// A field of another kind, or a child of the wrong kind.
    pub fn set_child_eix(&mut self, p: Eix, f: ChildField, c: Eix) -> Result<(), IlError> {
        self.check_owner(p, f.owner)?;
        if !c.is_none() {
            self.check_target(f.target, c)?;
        }
        let s = self.cols.start[p.idx()];
        self.edges[(s + f.slot) as usize] = c;
        self.note_edge(p, c);
        self.edge_changed(p);
        Ok(())
    }

    /// Reads a single-child field.
    ///
    /// # Errors
    /// A stale ID, or a field of another kind.
    pub fn child(&self, parent: EntryId, f: ChildField) -> Result<Option<EntryId>, IlError> {
        let p = self.expect(parent, f.owner)?;
        Ok(self.child_eix(p, f).map(|c| self.id_of(c)))
    }

    /// Reads a single-child field by dense index (`None` when unset).
    #[inline]
    pub fn child_eix(&self, p: Eix, f: ChildField) -> Option<Eix> {
        let c = self.edges[(self.cols.start[p.idx()] + f.slot) as usize];
        (!c.is_none()).then_some(c)
    }

    /// Sets a reference field.
    ///
    /// # Errors
    /// Stale IDs, a field of another kind, or a target of the wrong kind.
    pub fn set_ref(
        &mut self,
        parent: EntryId,
        f: RefField,
        target: Option<EntryId>,
    ) -> Result<(), IlError> {
        let p = self.eix(parent)?;
        let c = match target {
            Some(c) => self.eix(c)?,
            None => Eix::NONE,
        };
        self.set_ref_eix(p, f, c)
    }

    /// Pool index of reference slot `slot` of `p`.
    #[inline(always)]
    fn ref_slot(&self, p: Eix, slot: usize) -> usize {
        let k = self.cols.kind[p.idx()];
        let (nr, nl, _) = block_shape(k);
        self.cols.start[p.idx()] as usize - nl - nr + slot
    }

    /// [`Il::set_ref`] by dense index (`Eix::NONE` clears the slot).
    ///
    /// # Errors
    /// A field of another kind, or a target of the wrong kind.
    pub fn set_ref_eix(&mut self, p: Eix, f: RefField, c: Eix) -> Result<(), IlError> {
        self.check_owner(p, f.owner)?;
        if !c.is_none() {
            self.check_target(f.target, c)?;
        }
        let i = self.ref_slot(p, f.slot as usize);
        self.touch(p);
        self.edges[i] = c;
        self.note_edge(p, c);
        Ok(())
    }

    /// Reads a reference field by dense index.
    #[inline]
    pub fn ref_eix(&self, p: Eix, f: RefField) -> Option<Eix> {
        let c = self.edges[self.ref_slot(p, f.slot as usize)];
        (!c.is_none()).then_some(c)
    }

    /// Reads a reference field.
    ///
    /// # Errors
    /// A stale ID, or a field of another kind.
    pub fn get_ref(&self, parent: EntryId, f: RefField) -> Result<Option<EntryId>, IlError> {
        let p = self.expect(parent, f.owner)?;
        Ok(self.ref_eix(p, f).map(|c| self.id_of(c)))
    }

    /// Pool range of list `list` of `p`.
    pub(super) fn list_bounds(&self, p: Eix, list: u32) -> (usize, usize) {
        let k = self.cols.kind[p.idx()];
        let (_, nl, ns) = block_shape(k);
        let start = self.cols.start[p.idx()] as usize;
        let header = start - nl;
        let mut off = start + ns;
        for i in 0..list as usize {
            off += self.edges[header + i].idx();
        }
        (off, off + self.edges[header + list as usize].idx())
    }

    /// The items of a list field by dense index.
    pub fn list_eix(&self, p: Eix, f: ListField) -> &[Eix] {
        let (a, b) = self.list_bounds(p, f.list);
        &self.edges[a..b]
    }

    /// The items of a list field.
    ///
    /// # Errors
    /// A stale ID, or a field of another kind.
    pub fn list(&self, parent: EntryId, f: ListField) -> Result<Vec<EntryId>, IlError> {
        let p = self.expect(parent, f.owner)?;
        Ok(self.list_eix(p, f).iter().map(|&c| self.id_of(c)).collect())
    }

    /// Appends to a list field. The entry's edge block moves to the end of the pool when it
    /// is not already last (its old block becomes garbage, compacted later).
    ///
    /// # Errors
    /// Stale IDs, a field of another kind, or a child of the wrong kind.
    pub fn push_list(
        &mut self,
        parent: EntryId,
        f: ListField,
        child: EntryId,
    ) -> Result<(), IlError> {
        let (p, c) = (self.eix(parent)?, self.eix(child)?);
        self.push_list_field_eix(p, f, c)
    }

    /// [`Il::push_list`] by dense index.
    ///
    /// # Errors
    /// A field of another kind, or a child of the wrong kind.
    pub fn push_list_field_eix(&mut self, p: Eix, f: ListField, c: Eix) -> Result<(), IlError> {
        self.check_owner(p, f.owner)?;
        self.check_target(f.target, c)?;
        self.push_list_eix(p, f.list, c);
        Ok(())
    }

    /// Moves `p`'s block to the end of the pool unless it is there already; returns its
    /// `(begin, start, end)` there.
    fn block_to_end(&mut self, p: Eix) -> (usize, usize, usize) {
        let (begin, start, end) = self.block(p);
        if end == self.edges.len() {
            return (begin, start, end);
        }
        self.edge_garbage += end - begin;
        let at = self.edges.len();
        self.edges.extend_from_within(begin..end);
        let start_new = at + (start - begin);
        self.cols.start[p.idx()] = start_new as u32;
        (at, start_new, at + (end - begin))
    }

    pub(crate) fn push_list_eix(&mut self, p: Eix, list: u32, c: Eix) {
        let k = self.cols.kind[p.idx()];
        let nl = NLISTS[k as usize] as usize;
        let (_, start, end) = self.block_to_end(p);
        if list as usize + 1 == nl {
            // The last list ends the block, which ends the pool.
            self.edges.push(c);
        } else {
            let (_, at) = self.list_bounds(p, list);
            debug_assert!(at <= end);
            self.edges.insert(at, c);
        }
        let len = &mut self.edges[start - nl + list as usize];
        *len = Eix::from_raw(len.raw() + 1);
        self.note_edge(p, c);
        self.edge_changed(p);
    }

    /// Removes list items for which `keep` returns false (an entry filter on a list).
    pub fn retain_list(&mut self, p: Eix, f: ListField, keep: impl FnMut(Eix) -> bool) {
        self.retain_list_at(p, f.list, keep)
    }

    /// [`Il::retain_list`] by list number.
    pub(super) fn retain_list_at(&mut self, p: Eix, list: u32, mut keep: impl FnMut(Eix) -> bool) {
        let (a, b) = self.list_bounds(p, list);
        let (_, start, end) = self.block(p);
        let mut w = a;
        for i in a..b {
            let c = self.edges[i];
            if keep(c) {
                self.edges[w] = c;
                w += 1;
            }
        }
        let removed = b - w;
        if removed == 0 {
            return;
        }
        // Shift the rest of the block left over the hole; the tail becomes garbage.
        self.edges.copy_within(b..end, w);
        self.forget_tail(end - removed, end);
        let nl = NLISTS[self.cols.kind[p.idx()] as usize] as usize;
        let len = &mut self.edges[start - nl + list as usize];
        *len = Eix::from_raw(len.raw() - removed as u32);
        self.edge_changed(p);
    }

    /// Slots `from..end` were a block's tail and no longer are: dropped when the block
    /// ends the pool, garbage otherwise.
    fn forget_tail(&mut self, from: usize, end: usize) {
        if end == self.edges.len() {
            self.edges.truncate(from);
        } else {
            self.edges[from..end].fill(Eix::NONE);
            self.edge_garbage += end - from;
        }
    }

    /// The list lengths of `p`, one per list field (lists follow the single slots in
    /// `children(p)`, in this order).
    #[inline]
    pub(crate) fn list_lengths(&self, p: Eix) -> &[Eix] {
        let s = self.cols.start[p.idx()] as usize;
        let nl = NLISTS[self.cols.kind[p.idx()] as usize] as usize;
        &self.edges[s - nl..s]
    }

    /// `(offset in children(p), length)` of list `list` of `p`.
    pub fn list_pos(&self, p: Eix, list: u32) -> (usize, usize) {
        let (a, b) = self.list_bounds(p, list);
        (a - self.cols.start[p.idx()] as usize, b - a)
    }

    /// Removes item `item` of list `list` of `p` (an entry filter returning none).
    pub fn remove_list_item(&mut self, p: Eix, list: u32, item: usize) {
        let (a, b) = self.list_bounds(p, list);
        debug_assert!(a + item < b);
        let (_, start, end) = self.block(p);
        self.edges.copy_within(a + item + 1..end, a + item);
        self.forget_tail(end - 1, end);
        let nl = NLISTS[self.cols.kind[p.idx()] as usize] as usize;
        let len = &mut self.edges[start - nl + list as usize];
        *len = Eix::from_raw(len.raw() - 1);
        self.edge_changed(p);
    }

    /// Replaces the child at position `i` of `children(p)` (an entry-replace remap).
    pub fn replace_child_at(&mut self, p: Eix, i: usize, c: Eix) {
        let start = self.cols.start[p.idx()] as usize;
        debug_assert!(i < nchild_at(&self.edges, self.cols.kind[p.idx()], start));
        self.edges[start + i] = c;
        self.edge_changed(p);
    }

    /// The children of `e`, writable in place (the copier relocates a cloned block's
    /// children through this; it changes no derived column).
    #[inline]
    pub(crate) fn children_mut(&mut self, e: Eix) -> &mut [Eix] {
        debug_assert!(
            self.cols.kind[e.idx()] != EntryKind::Constant,
            "a constant's children feed its share key: set them through replace_child_at"
        );
        self.touch(e);
        let (_, start, end) = self.block(e);
        &mut self.edges[start..end]
    }

    /// Replaces reference slot `i` of `p`.
    pub fn replace_ref_at(&mut self, p: Eix, i: usize, c: Eix) {
        let at = self.ref_slot(p, i);
        self.touch(p);
        self.edges[at] = c;
    }

    /// Called after a child edge of `p` changed: where derived columns that read children
    /// (the constant sharing key) are kept in step.
    #[inline(always)]
    pub(super) fn edge_changed(&mut self, p: Eix) {
        self.touch(p);
        let k = self.cols.kind[p.idx()];
        self.refresh_derived(k, p);
    }

    pub(super) fn maybe_compact(&mut self) {
        if self.edge_garbage > 1024 && self.edge_garbage * 2 > self.edges.len() {
            self.compact_edges_in_place();
        }
    }

    /// Rebuilds the edge pool without garbage, in dense order.
    pub fn compact_edges(&mut self) {
        let mut pool =
            Vec::with_capacity(self.edges.len() - self.edge_garbage.min(self.edges.len()));
        for i in 0..self.cols.len() {
            let k = self.cols.kind[i];
            if k == EntryKind::None {
                continue;
            }
            let (begin, start, end) = self.block(Eix::new(i));
            let new_start = pool.len() + (start - begin);
            pool.extend_from_slice(&self.edges[begin..end]);
            self.cols.start[i] = new_start as u32;
        }
        self.edges = pool;
        self.edge_garbage = 0;
    }

    /// Compacts the edge pool in place (what freeing regions triggers): live blocks slide
    /// down in pool order, garbage goes, and the pool keeps its capacity, so the next
    /// appends reuse pages already touched instead of growing a fresh allocation. Unlike
    /// [`Il::compact_edges`] it never holds two pools at once (builders that end with a
    /// compaction use it to keep their peak memory down, then may shrink the pool).
    pub fn compact_edges_in_place(&mut self) {
        let live = (0..self.cols.len()).filter(|&i| self.cols.kind[i] != EntryKind::None);
        // Blocks usually lie in dense order; sort by position only when they do not.
        let mut prev = 0;
        let mut in_order = true;
        for i in live.clone() {
            let (b, _, _) = self.block(Eix::new(i));
            if b < prev {
                in_order = false;
                break;
            }
            prev = b;
        }
        let mut order: Vec<u32> = Vec::new();
        if !in_order {
            // By where each block begins, so a block never slides over one not yet copied.
            order = live.clone().map(|i| i as u32).collect();
            order.sort_unstable_by_key(|&i| self.block(Eix::from_raw(i)).0);
        }
        let mut w = 0usize;
        let mut slide = |il: &mut Il, i: usize| {
            let (begin, start, end) = il.block(Eix::new(i));
            il.edges.copy_within(begin..end, w);
            il.cols.start[i] = (w + (start - begin)) as u32;
            w += end - begin;
        };
        if in_order {
            for i in 0..self.cols.len() {
                if self.cols.kind[i] != EntryKind::None {
                    slide(self, i);
                }
            }
        } else {
            for &i in &order {
                slide(self, i as usize);
            }
        }
        self.edges.truncate(w);
        self.edge_garbage = 0;
    }

    /// Compacts the edge pool in place once garbage is a quarter of it (and at least 64 Ki
    /// slots): builders whose list pushes relocate blocks call this between steps, so
    /// the pool's touched memory stays near its live size. Amortized O(1) per relocated
    /// slot; dense indices are untouched.
    pub fn compact_edges_if_wasteful(&mut self) {
        if self.edge_garbage > 1 << 16 && self.edge_garbage * 4 > self.edges.len() {
            self.compact_edges_in_place();
        }
    }

    /// Returns the edge pool's unused capacity to the allocator (after a compaction).
    pub fn shrink_edge_pool(&mut self) {
        self.edges.shrink_to_fit();
    }
}

/// Hints the cache to load the line holding `p`; a no-op off x86_64.
#[inline(always)]
pub(super) fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only hints the cache and never faults; SSE is part of the
    // x86_64 baseline; the pointer comes from a live reference. The walk bench
    // (`ilkit_mark_*`) shows the gain.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
