//! The ptxas-compatible FNV-1a edge map (seed 004, "CFG Edge Hash Maps").
//!
//! Maps a block index to its successor list (or, for the backedge map, to its backedge
//! targets). Hash: FNV-1a over the four key bytes, low to high, offset basis `0x811C9DC5`,
//! prime `16777619`; bucket = `hash & (num_buckets - 1)`. Buckets start at 8 (a power of
//! two) with head/tail/count headers and chained nodes that cache their hash. The seed
//! states the growth rule as "rehash when total_elements > num_unique_keys (load factor
//! above 1.0), new capacity 4x"; read as a load factor, that is `keys > num_buckets`,
//! which is what is implemented (chains stay O(1) on average).
//!
//! Data-oriented layout: nodes are parallel `Vec`s indexed by node id (insertion order),
//! value lists are ranges into one pooled `Vec<u32>` (appending to a list that is not at
//! the end of the pool moves it to the end).
//!
//! Lookup is O(1) expected, but every query hashes and chases a chain; CSR answers
//! `successors(b)` with two loads. `benches/cfg.rs` measures the difference.

use crate::graph::Successors;
use crate::idx::{BlockIdx, Idx};

/// End of a chain / empty bucket (internal node ids are plain `u32` positions).
const NONE: u32 = u32::MAX;

/// FNV-1a of a 32-bit key, bytes folded low to high.
#[inline]
pub fn fnv1a_u32(key: u32) -> u32 {
    let mut h: u32 = 0x811C_9DC5;
    for i in 0..4 {
        h = (h ^ ((key >> (8 * i)) & 0xFF)).wrapping_mul(16_777_619);
    }
    h
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    head: u32,
    tail: u32,
    count: u32,
}

const EMPTY: Bucket = Bucket {
    head: NONE,
    tail: NONE,
    count: 0,
};

/// A block → block-list map with ptxas' hashing and growth (keys hashed as their `u32`
/// index). Generic over the index type for hosts with other graphs.
///
/// # Invariants
/// - `buckets.len()` is a power of two `>= 8` and `>= unique_keys`;
/// - node `i` is in the chain of bucket `hash[i] & (buckets.len() - 1)`;
/// - `vstart[i] + vlen[i] <= values.len()`.
#[derive(Clone, Debug)]
pub struct FnvEdgeMap<N: Idx = BlockIdx> {
    buckets: Vec<Bucket>,
    next: Vec<u32>,
    key: Vec<N>,
    hash: Vec<u32>,
    vstart: Vec<u32>,
    vlen: Vec<u32>,
    values: Vec<N>,
    total_elements: u32,
}

impl<N: Idx> Default for FnvEdgeMap<N> {
    fn default() -> Self {
        FnvEdgeMap::new()
    }
}

impl<N: Idx> FnvEdgeMap<N> {
    /// An empty map with 8 buckets.
    pub fn new() -> Self {
        FnvEdgeMap {
            buckets: vec![EMPTY; 8],
            next: vec![],
            key: vec![],
            hash: vec![],
            vstart: vec![],
            vlen: vec![],
            values: vec![],
            total_elements: 0,
        }
    }

    /// The successor map of a graph: one key per node (empty lists included, as ptxas
    /// inserts an empty entry for EXIT/RET blocks).
    pub fn from_graph<G: Successors<Node = N>>(g: &G) -> Self {
        let mut m = FnvEdgeMap::new();
        for b in crate::graph::nodes(g) {
            m.insert_list(b, g.successors(b));
        }
        m
    }

    /// A map from edge pairs (e.g. the backedge map), targets appended in order.
    pub fn from_edges(edges: &[(N, N)]) -> Self {
        let mut m = FnvEdgeMap::new();
        for &(a, b) in edges {
            m.insert_edge(a, b);
        }
        m
    }

    /// Number of distinct keys.
    pub fn len(&self) -> usize {
        self.key.len()
    }

    /// True if the map has no keys.
    pub fn is_empty(&self) -> bool {
        self.key.is_empty()
    }

    /// Number of buckets (a power of two).
    pub fn num_buckets(&self) -> usize {
        self.buckets.len()
    }

    /// Total number of values over all keys.
    pub fn total_elements(&self) -> usize {
        self.total_elements as usize
    }

    #[inline]
    fn find(&self, key: N, h: u32) -> u32 {
        let mut i = self.buckets[(h as usize) & (self.buckets.len() - 1)].head;
        while i != NONE {
            if self.hash[i as usize] == h && self.key[i as usize] == key {
                return i;
            }
            i = self.next[i as usize];
        }
        NONE
    }

    /// The list stored for `key`.
    #[inline]
    pub fn get(&self, key: N) -> Option<&[N]> {
        let i = self.find(key, fnv1a_u32(key.idx() as u32));
        (i != NONE).then(|| {
            let s = self.vstart[i as usize] as usize;
            &self.values[s..s + self.vlen[i as usize] as usize]
        })
    }

    /// True if `target` is in `key`'s list.
    pub fn contains(&self, key: N, target: N) -> bool {
        self.get(key).is_some_and(|l| l.contains(&target))
    }

    fn link(&mut self, i: u32) {
        let b = (self.hash[i as usize] as usize) & (self.buckets.len() - 1);
        let bk = &mut self.buckets[b];
        self.next[i as usize] = NONE;
        if bk.tail == NONE {
            bk.head = i;
        } else {
            self.next[bk.tail as usize] = i;
        }
        bk.tail = i;
        bk.count += 1;
    }

    fn node(&mut self, key: N) -> u32 {
        let h = fnv1a_u32(key.idx() as u32);
        let i = self.find(key, h);
        if i != NONE {
            return i;
        }
        let i = self.key.len() as u32;
        self.key.push(key);
        self.hash.push(h);
        self.next.push(NONE);
        self.vstart.push(self.values.len() as u32);
        self.vlen.push(0);
        if self.key.len() > self.buckets.len() {
            // grow x4 and relink every node in insertion order
            let nb = self.buckets.len() * 4;
            self.buckets.clear();
            self.buckets.resize(nb, EMPTY);
            for j in 0..self.key.len() as u32 {
                self.link(j);
            }
        } else {
            self.link(i);
        }
        i
    }

    /// Sets `key`'s list to `targets` (replacing any previous list).
    pub fn insert_list(&mut self, key: N, targets: &[N]) {
        let i = self.node(key) as usize;
        self.total_elements -= self.vlen[i];
        self.vstart[i] = self.values.len() as u32;
        self.vlen[i] = targets.len() as u32;
        self.values.extend_from_slice(targets);
        self.total_elements += targets.len() as u32;
    }

    /// Appends `target` to `key`'s list.
    pub fn insert_edge(&mut self, key: N, target: N) {
        let i = self.node(key) as usize;
        let (s, l) = (self.vstart[i] as usize, self.vlen[i] as usize);
        if s + l != self.values.len() {
            self.values.extend_from_within(s..s + l);
            self.vstart[i] = (self.values.len() - l) as u32;
        }
        self.values.push(target);
        self.vlen[i] += 1;
        self.total_elements += 1;
    }

    /// Longest bucket chain (a quality measure of the hash).
    pub fn max_chain(&self) -> usize {
        self.buckets
            .iter()
            .map(|b| b.count as usize)
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_reference() {
        // FNV-1a of the 4 bytes 00 00 00 00.
        let mut h: u32 = 0x811C9DC5;
        for _ in 0..4 {
            h = h.wrapping_mul(16777619);
        }
        assert_eq!(fnv1a_u32(0), h);
        assert_eq!(fnv1a_u32(1), {
            let mut h: u32 = 0x811C9DC5;
            h = (h ^ 1).wrapping_mul(16777619);
            for _ in 0..3 {
                h = h.wrapping_mul(16777619);
            }
            h
        });
    }

    #[test]
    fn grows_and_finds() {
        let mut m: FnvEdgeMap<u32> = FnvEdgeMap::new();
        assert_eq!(m.num_buckets(), 8);
        for k in 0..1000u32 {
            m.insert_edge(k, k + 1);
            m.insert_edge(k % 7, k);
        }
        assert_eq!(m.num_buckets(), 2048);
        assert_eq!(m.get(500), Some(&[501][..]));
        assert!(m.contains(3, 500));
        assert_eq!(m.get(0).unwrap()[0], 1);
        assert_eq!(m.get(5000), None);
        assert_eq!(m.total_elements(), 2000);
        assert_eq!(m.len(), 1000);
    }
}
