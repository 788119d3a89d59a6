//! The id index of the JSON import: clang node id → IL entry, plus whether the node was
//! seen in full (dumped) or only referenced so far.
//!
//! Open addressing with linear probing over two dense columns (ids, entries), load ≤ 3/4:
//! 12 bytes a slot where a `HashMap<u64, (Eix, bool)>` takes 17. On the largest C++
//! translation units the index is the importer's biggest table after the IL itself, and
//! the import's peak memory is reached with it alive.

use crate::il::Eix;

const EMPTY: u64 = u64::MAX;
const FULL: u32 = 1 << 31;

/// clang node id → (entry, seen in full).
#[derive(Debug, Default)]
pub struct IdIndex {
    keys: Vec<u64>,
    vals: Vec<u32>,
    len: usize,
    /// The one id the columns cannot hold (`u64::MAX`, which marks empty slots).
    max_key: Option<u32>,
}

#[inline]
fn mix(k: u64) -> u64 {
    // The murmur3 finalizer: clang ids are aligned addresses, so the low bits alone
    // would cluster.
    let mut h = k ^ (k >> 33);
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

fn pack((e, full): (Eix, bool)) -> u32 {
    debug_assert!(e.raw() < FULL || e.is_none());
    (e.raw() & !FULL) | if full { FULL } else { 0 }
}

fn unpack(v: u32) -> (Eix, bool) {
    let e = v & !FULL;
    // `Eix::NONE` loses its top bit when packed: give it back.
    let e = if e == !FULL {
        Eix::NONE
    } else {
        Eix::from_raw(e)
    };
    (e, v & FULL != 0)
}

impl IdIndex {
    /// An empty index.
    pub fn new() -> IdIndex {
        IdIndex::default()
    }

    /// Number of ids.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.len + self.max_key.is_some() as usize
    }

    fn slot(&self, k: u64) -> Result<usize, usize> {
        let mask = self.keys.len() - 1;
        let mut i = mix(k) as usize & mask;
        loop {
            match self.keys[i] {
                x if x == k => return Ok(i),
                EMPTY => return Err(i),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The entry of `id` and whether its node was seen in full.
    #[inline]
    pub fn get(&self, id: u64) -> Option<(Eix, bool)> {
        if id == EMPTY {
            return self.max_key.map(unpack);
        }
        if self.keys.is_empty() {
            return None;
        }
        self.slot(id).ok().map(|i| unpack(self.vals[i]))
    }

    /// Sets the entry of `id`.
    pub fn insert(&mut self, id: u64, v: (Eix, bool)) {
        if id == EMPTY {
            self.max_key = Some(pack(v));
            return;
        }
        if (self.len + 1) * 4 > self.keys.len() * 3 {
            self.grow();
        }
        match self.slot(id) {
            Ok(i) => self.vals[i] = pack(v),
            Err(i) => {
                self.keys[i] = id;
                self.vals[i] = pack(v);
                self.len += 1;
            }
        }
    }

    fn grow(&mut self) {
        let n = (self.keys.len() * 2).max(1024);
        let keys = std::mem::replace(&mut self.keys, vec![EMPTY; n]);
        let vals = std::mem::replace(&mut self.vals, vec![0; n]);
        for (k, v) in keys.into_iter().zip(vals) {
            if k != EMPTY {
                let Err(i) = self.slot(k) else {
                    unreachable!("ids are unique in the old table")
                };
                self.keys[i] = k;
                self.vals[i] = v;
            }
        }
    }

    /// Every (entry, seen in full), in no particular order.
    pub fn values(&self) -> impl Iterator<Item = (Eix, bool)> + '_ {
        self.keys
            .iter()
            .zip(&self.vals)
            .filter(|(&k, _)| k != EMPTY)
            .map(|(_, &v)| unpack(v))
            .chain(self.max_key.map(unpack))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_a_hash_map() {
        let mut idx = IdIndex::new();
        let mut map = std::collections::HashMap::new();
        let mut x = 0x5555_1234_0000u64;
        for i in 0..50_000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Aligned, address-like ids, with repeats and the two extreme values.
            let id = match i % 1000 {
                0 => u64::MAX,
                1 => 0,
                _ => (x >> 20) << 4,
            };
            let v = (
                if i % 7 == 0 {
                    Eix::NONE
                } else {
                    Eix::from_raw(i)
                },
                i % 3 == 0,
            );
            idx.insert(id, v);
            map.insert(id, v);
            assert_eq!(idx.get(id), Some(v));
        }
        assert_eq!(idx.len(), map.len());
        for (&k, &v) in &map {
            assert_eq!(idx.get(k), Some(v));
        }
        assert_eq!(idx.get(0x123), map.get(&0x123).copied());
        let mut a: Vec<_> = idx.values().map(|(e, f)| (e.raw(), f)).collect();
        let mut b: Vec<_> = map.values().map(|&(e, f)| (e.raw(), f)).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }
}
