//! ID newtypes.
//!
//! [`EntryId`] is the stable generational handle callers hold: a slotmap key whose bits
//! are (generation, dense index), checked against the world's generation column (the
//! `generation` module). Once its entry is freed (its function region ended, or it went back to
//! a free list) it no longer resolves, and it never aliases the entry that reuses the
//! index. [`Eix`] is the dense entry index
//! used inside the world and by every hot loop; analysis indices are `u32` newtypes made by
//! [`define_idx!`](crate::define_idx), with `u32::MAX` reserved as "none".
//!
//! An index of one table cannot index another:
//!
//! ```compile_fail
//! use ilkit::il::{Eix, RegionIdx};
//! fn takes_region(_: RegionIdx) {}
//! takes_region(Eix::new(3));
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

/// The generational side of an [`EntryId`]: its bits are (generation, dense index), and
/// the world keeps one generation per dense index, odd while the entry lives and even
/// while the index is free. Minting an ID reads the generation; resolving one is a load
/// and a compare; freeing an entry bumps its generation, so every ID of its past life
/// stops resolving, and reusing the index bumps it again, so the new entry's IDs never
/// equal an old one's (until the 32-bit generation wraps, as a `SlotMap`'s version does).
pub(crate) mod generation {
    use super::{Eix, EntryId};

    /// The ID of dense index `e` in generation `g` (odd: a live entry).
    #[inline(always)]
    pub(crate) fn mint(e: Eix, g: u32) -> EntryId {
        debug_assert!(g & 1 == 1, "{e} is not live");
        slotmap::KeyData::from_ffi(u64::from(g) << 32 | u64::from(e.0)).into()
    }

    /// `(dense index, generation)` of an ID (the null ID has index `u32::MAX`).
    #[inline(always)]
    pub(crate) fn split(id: EntryId) -> (usize, u32) {
        let v = slotmap::Key::data(&id).as_ffi();
        ((v & 0xffff_ffff) as usize, (v >> 32) as u32)
    }

    /// The entry behind `id` in a world whose generation column is `gens`.
    #[inline(always)]
    pub(crate) fn resolve(gens: &[u32], id: EntryId) -> Option<Eix> {
        let (i, g) = split(id);
        match gens.get(i) {
            Some(&h) if h == g => Some(Eix(i as u32)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::il::{EntryKind, Il};
    use proptest::prelude::*;

    proptest! {
        /// IDs minted from the generation column behave as a `SlotMap`'s keys do: an ID
        /// resolves while its entry lives and never after (its region freed, the entry freed,
        /// its dense index reused), the live count agrees, and no ID is handed out twice.
        #[test]
        fn generation_ids_resolve_as_slotmap_keys_do(
            ops in prop::collection::vec((0u8..4, 0usize..64), 0..400)
        ) {
            let mut il = Il::new();
            let mut m: slotmap::SlotMap<slotmap::DefaultKey, ()> = slotmap::SlotMap::new();
            // (world id, model key) of every ID handed out.
            let mut handed: Vec<(EntryId, slotmap::DefaultKey)> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            for (op, pick) in ops {
                match op {
                    0 | 1 => {
                        let id = il.alloc(EntryKind::ExprNode).unwrap();
                        prop_assert!(seen.insert(id), "{:?} handed out twice", id);
                        handed.push((id, m.insert(())));
                    }
                    2 if !handed.is_empty() => {
                        let (id, k) = handed[pick % handed.len()];
                        if let Ok(e) = il.eix(id) {
                            il.free_entries(&[e]);
                        }
                        m.remove(k);
                    }
                    _ if !handed.is_empty() => {
                        let (id, k) = handed[pick % handed.len()];
                        prop_assert_eq!(il.eix(id).is_ok(), m.contains_key(k));
                    }
                    _ => {}
                }
                prop_assert_eq!(il.len(), m.len());
                prop_assert_eq!(il.is_empty(), m.is_empty());
            }
            for &(id, k) in &handed {
                prop_assert_eq!(il.eix(id).is_ok(), m.contains_key(k));
                if let Ok(e) = il.eix(id) {
                    prop_assert_eq!(il.id_of(e), id);
                }
            }
            prop_assert!(il.eix(EntryId::default()).is_err());
            prop_assert_eq!(il.verify(), vec![]);
        }
    }
}
