//! ID newtypes.
//!
//! [`EntryId`] is the stable generational handle callers hold (a slotmap key, resolved by
//! the world's own handle table, `IdTable`): once its entry is freed (its function region ended, or it went back to a free list) it no longer resolves,
//! and it never aliases the entry that reuses the slot. [`Eix`] is the dense entry index
//! used inside the world and by every hot loop; analysis indices are `u32` newtypes made by
//! [`define_idx!`](crate::define_idx), with `u32::MAX` reserved as "none".
//!
//! An index of one table cannot index another:
//!
//! ```compile_fail
//! use ilkit::il::{Eix, RegionIdx};
//! fn takes_region(_: RegionIdx) {}
//! takes_region(Eix(3));
//! ```

slotmap::new_key_type! {
    /// Stable generational handle of an IL entry.
    pub struct EntryId;
}

crate::define_idx!(
    /// Dense index of an entry in the world's columns (allocation order; reused after free).
    Eix,
    "e"
);
crate::define_idx!(
    /// Index of a memory region: 0 is the file-scope region, others are function regions.
    RegionIdx,
    "r"
);

impl RegionIdx {
    /// The persistent file-scope region.
    pub const FILE_SCOPE: RegionIdx = RegionIdx(0);
}

/// The handle table: generational slots from [`EntryId`] to [`Eix`], with the free slots
/// on a stack. Handles are the ones a `slotmap::SlotMap` would hand out (slot 0 unused,
/// versions odd while occupied, the last freed slot reused first), but a reuse pops the
/// stack instead of following a free list threaded through the slots, so a batch of
/// allocations is not a chain of dependent loads.
#[derive(Clone, Debug)]
pub(crate) struct IdTable {
    /// Per slot: version (odd while occupied) and entry.
    slots: Vec<(u32, Eix)>,
    free: Vec<u32>,
    live: usize,
}

impl Default for IdTable {
    fn default() -> Self {
        IdTable {
            slots: vec![(0, Eix::NONE)],
            free: Vec::new(),
            live: 0,
        }
    }
}

impl IdTable {
    #[inline]
    fn key(idx: u32, version: u32) -> EntryId {
        slotmap::KeyData::from_ffi(u64::from(version) << 32 | u64::from(idx)).into()
    }

    #[inline]
    fn split(id: EntryId) -> (usize, u32) {
        let v = slotmap::Key::data(&id).as_ffi();
        ((v & 0xffff_ffff) as usize, (v >> 32) as u32)
    }

    /// Room for `n` more handles without growing.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.slots.reserve(n.saturating_sub(self.free.len()));
    }

    /// The entry behind a live handle.
    #[inline]
    pub(crate) fn get(&self, id: EntryId) -> Option<Eix> {
        let (i, v) = Self::split(id);
        match self.slots.get(i) {
            Some(&(sv, e)) if sv == v => Some(e),
            _ => None,
        }
    }

    /// A new handle for `e`.
    #[inline]
    pub(crate) fn insert(&mut self, e: Eix) -> EntryId {
        self.live += 1;
        match self.free.pop() {
            Some(i) => {
                let s = &mut self.slots[i as usize];
                s.0 |= 1;
                s.1 = e;
                Self::key(i, s.0)
            }
            None => {
                let i = self.slots.len() as u32;
                self.slots.push((1, e));
                Self::key(i, 1)
            }
        }
    }

    /// Frees a handle; it never resolves again. Returns its entry, if it was live.
    pub(crate) fn remove(&mut self, id: EntryId) -> Option<Eix> {
        let (i, v) = Self::split(id);
        match self.slots.get_mut(i) {
            Some(s) if s.0 == v && v & 1 == 1 => {
                s.0 = s.0.wrapping_add(1);
                self.free.push(i as u32);
                self.live -= 1;
                Some(s.1)
            }
            _ => None,
        }
    }

    /// Number of live handles.
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// Whether no handle is live.
    pub(crate) fn is_empty(&self) -> bool {
        self.live == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The table hands out exactly the handles a `SlotMap` does, and resolves and
        /// frees them the same way (stale handles included).
        #[test]
        fn id_table_agrees_with_slotmap(ops in prop::collection::vec((0u8..3, 0usize..64), 0..400)) {
            let mut t = IdTable::default();
            let mut m: slotmap::SlotMap<EntryId, Eix> = slotmap::SlotMap::with_key();
            let mut handed: Vec<EntryId> = Vec::new();
            for (n, (op, pick)) in ops.into_iter().enumerate() {
                match op {
                    0 => {
                        let e = Eix(n as u32);
                        let a = t.insert(e);
                        prop_assert_eq!(a, m.insert(e));
                        handed.push(a);
                    }
                    1 if !handed.is_empty() => {
                        let id = handed[pick % handed.len()];
                        prop_assert_eq!(t.remove(id), m.remove(id));
                    }
                    _ if !handed.is_empty() => {
                        let id = handed[pick % handed.len()];
                        prop_assert_eq!(t.get(id), m.get(id).copied());
                    }
                    _ => {}
                }
                prop_assert_eq!(t.len(), m.len());
                prop_assert_eq!(t.is_empty(), m.is_empty());
            }
            prop_assert_eq!(t.get(EntryId::default()), None);
        }
    }
}
