//! Growable lists pooled in one `Vec`: the call graph's SCC node lists and RefSCC SCC
//! lists. A list is a `(start, len, cap)` range of the pool; building the call graph
//! appends lists (or adopts a whole buffer whose regions are the lists), so a graph of a
//! million singleton SCCs costs no allocation per SCC.
//!
//! # Invariants
//! - `len[k] <= cap[k]` and `start[k] + cap[k] <= data.len()`; live ranges don't overlap.
//! - a list grows in place while it has room, else it moves to the end of the pool with
//!   doubled room (amortised O(1) per element); the old range becomes garbage, and the
//!   pool is compacted when garbage outgrows the live elements.

use crate::idx::{Idx, IndexVec};

/// Lists keyed by `K`, elements `T` (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct ListPool<K: Idx, T> {
    start: IndexVec<K, u32>,
    len: IndexVec<K, u32>,
    cap: IndexVec<K, u32>,
    data: Vec<T>,
    /// `data.len()` minus the live elements (room and dead ranges).
    garbage: usize,
}

impl<K: Idx, T> Default for ListPool<K, T> {
    fn default() -> Self {
        ListPool {
            start: IndexVec::new(),
            len: IndexVec::new(),
            cap: IndexVec::new(),
            data: Vec::new(),
            garbage: 0,
        }
    }
}

impl<K: Idx, T: Copy + Default> ListPool<K, T> {
    /// A pool whose element buffer is `data` (its regions become lists with
    /// [`ListPool::push_region`]).
    pub(crate) fn with_data(data: Vec<T>) -> Self {
        let garbage = data.len();
        ListPool {
            data,
            garbage,
            ..Default::default()
        }
    }

    /// Makes room for `n` more lists.
    pub(crate) fn reserve_lists(&mut self, n: usize) {
        self.start.reserve(n);
        self.len.reserve(n);
        self.cap.reserve(n);
    }

    /// Makes room for `n` more elements.
    pub(crate) fn reserve_data(&mut self, n: usize) {
        self.data.reserve(n);
    }

    /// Raw elements `data[lo..hi]` (a region of a buffer given to [`ListPool::with_data`]).
    pub(crate) fn region(&self, lo: usize, hi: usize) -> &[T] {
        &self.data[lo..hi]
    }

    /// Raw elements `data[lo..hi]`, mutably.
    pub(crate) fn region_mut(&mut self, lo: usize, hi: usize) -> &mut [T] {
        &mut self.data[lo..hi]
    }

    /// Number of lists.
    pub(crate) fn num_lists(&self) -> usize {
        self.start.len()
    }

    /// A new list owning `data[start..start + len]` (a region nothing else owns).
    pub(crate) fn push_region(&mut self, start: usize, len: usize) -> K {
        debug_assert!(start + len <= self.data.len());
        self.garbage -= len;
        self.start.push(start as u32);
        self.len.push(len as u32);
        self.cap.push(len as u32)
    }

    /// A new list holding `items`, appended to the pool.
    pub(crate) fn push_list(&mut self, items: &[T]) -> K {
        let start = self.data.len();
        self.data.extend_from_slice(items);
        self.start.push(start as u32);
        self.len.push(items.len() as u32);
        self.cap.push(items.len() as u32)
    }

    /// List `k`.
    #[inline]
    pub(crate) fn get(&self, k: K) -> &[T] {
        let s = self.start[k] as usize;
        &self.data[s..s + self.len[k] as usize]
    }

    /// List `k`, mutably (same length).
    pub(crate) fn get_mut(&mut self, k: K) -> &mut [T] {
        let s = self.start[k] as usize;
        &mut self.data[s..s + self.len[k] as usize]
    }

    /// Makes list `k` empty (keeps its room).
    pub(crate) fn clear(&mut self, k: K) {
        self.garbage += self.len[k] as usize;
        self.len[k] = 0;
    }

    /// Ensures room for `extra` more elements in list `k`, moving it if needed.
    fn make_room(&mut self, k: K, extra: usize) {
        let (s, l, c) = (
            self.start[k] as usize,
            self.len[k] as usize,
            self.cap[k] as usize,
        );
        if l + extra <= c {
            return;
        }
        if s + c == self.data.len() {
            // Last in the pool: grow in place.
            let new_cap = (2 * (l + extra)).max(4);
            self.data.resize(s + new_cap, T::default());
            self.garbage += new_cap - c;
            self.cap[k] = new_cap as u32;
            return;
        }
        if self.garbage > self.data.len() / 2 + 1024 {
            self.compact();
            return self.make_room(k, extra);
        }
        let (s, l) = (self.start[k] as usize, self.len[k] as usize);
        let new_cap = (2 * (l + extra)).max(4);
        let at = self.data.len();
        self.data.extend_from_within(s..s + l);
        self.data.resize(at + new_cap, T::default());
        self.garbage += new_cap;
        self.start[k] = at as u32;
        self.cap[k] = new_cap as u32;
    }

    /// Appends `items` to list `k`.
    pub(crate) fn extend(&mut self, k: K, items: &[T]) {
        self.make_room(k, items.len());
        let end = (self.start[k] + self.len[k]) as usize;
        self.data[end..end + items.len()].copy_from_slice(items);
        self.len[k] += items.len() as u32;
        self.garbage -= items.len();
    }

    /// Appends `x` to list `k`.
    pub(crate) fn push(&mut self, k: K, x: T) {
        self.extend(k, &[x]);
    }

    /// Replaces list `k` with `items`.
    pub(crate) fn set(&mut self, k: K, items: &[T]) {
        self.clear(k);
        self.extend(k, items);
    }

    /// Rewrites list `k` through a plain `Vec` (splices, inserts, drains): O(len).
    pub(crate) fn edit<R>(&mut self, k: K, f: impl FnOnce(&mut Vec<T>) -> R) -> R {
        let mut v = self.get(k).to_vec();
        let r = f(&mut v);
        self.set(k, &v);
        r
    }

    /// Moves every list to the front of a fresh buffer, in key order; drops the garbage.
    fn compact(&mut self) {
        let live: usize = self.len.iter().map(|&l| l as usize).sum();
        let mut data = Vec::with_capacity(live + live / 2);
        for k in self.start.indices() {
            let s = self.start[k] as usize;
            let l = self.len[k] as usize;
            self.start[k] = data.len() as u32;
            self.cap[k] = l as u32;
            data.extend_from_slice(&self.data[s..s + l]);
        }
        self.data = data;
        self.garbage = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_grow_move_and_compact() {
        let mut p: ListPool<u32, u32> = ListPool::default();
        let a = p.push_list(&[1, 2]);
        let b = p.push_list(&[3]);
        p.push(a, 9); // moves a to the end
        p.push(b, 4); // moves b
        p.push(b, 5); // in place
        assert_eq!((p.get(a), p.get(b)), (&[1, 2, 9][..], &[3, 4, 5][..]));
        p.edit(a, |v| v.insert(0, 0));
        assert_eq!(p.get(a), &[0, 1, 2, 9]);
        for i in 0..5000 {
            p.push(if i % 2 == 0 { a } else { b }, i);
        }
        assert_eq!(p.get(a).len(), 2504);
        assert_eq!(p.get(b)[..3], [3, 4, 5]);
        assert!(p.data.len() < 4 * 5010);
        let mut q: ListPool<u32, u32> = ListPool::with_data(vec![7, 8, 9]);
        let x = q.push_region(1, 2);
        let y = q.push_region(0, 1);
        q.push(y, 1);
        assert_eq!((q.get(x), q.get(y)), (&[8, 9][..], &[7, 1][..]));
    }
}
