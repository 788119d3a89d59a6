//! Hash maps and sets whose hasher has fixed keys.
//!
//! `ahash`'s `AHashMap::new` draws a fresh key from a counter the whole process
//! shares, so workers that each build many small maps (a cost analysis per call site,
//! a run made ahead per unit) contend for one cache line. These maps build their
//! hasher from keys fixed once per process, reading nothing another thread writes;
//! nothing here depends on the order a map iterates in.

use std::hash::BuildHasherDefault;

/// The hasher of [`FixedMap`] and [`FixedSet`]: `ahash` with the process's fixed keys.
pub type FixedState = BuildHasherDefault<ahash::AHasher>;

/// A hash map with [`FixedState`] (`FixedMap::default()`,
/// `FixedMap::with_capacity_and_hasher(n, Default::default())`).
pub type FixedMap<K, V> = std::collections::HashMap<K, V, FixedState>;

/// A hash set with [`FixedState`].
pub type FixedSet<K> = std::collections::HashSet<K, FixedState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_hash_alike_within_the_process() {
        use std::hash::BuildHasher;
        let (a, b) = (FixedState::default(), FixedState::default());
        assert_eq!(a.hash_one(42u32), b.hash_one(42u32));
        let m: FixedMap<u32, u32> = (0..100).map(|k| (k, k * 2)).collect();
        assert_eq!(m[&7], 14);
    }
}
