//! Growable lists pooled in one `Vec`: the call graph's edge lists, SCC node lists and
//! RefSCC SCC lists. A list is a `(start, len)` range of the pool plus its room (free
//! slots after it that it may grow into); building the call
//! graph appends lists (or adopts a whole buffer whose regions are the lists), so a graph
//! of a million nodes and singleton SCCs costs no allocation per node or SCC, and lists
//! built one after the other (edge lists populated in walk order) sit next to each other.
//!
//! A pool made from whole lists (a graph's given edge lists, a Tarjan run's components)
//! starts *packed*: the lists sit in key order with no room, so one CSR offset per list
//! says where each is (half the bytes of a range, and nothing to compute: a Tarjan run's
//! component offsets are adopted as they are). The first change to a list's length
//! unpacks the pool into ranges, once.
//!
//! # Invariants
//! - packed: `starts` is non-decreasing, `starts.len()` is the number of lists plus one,
//!   its last entry is at most `data.len()`; `range` and `room` are empty.
//! - unpacked: `start[k] + len[k] + room[k] <= data.len()`; live ranges with their room
//!   don't overlap.
//! - a list grows in place while it has room, else it moves to the end of the pool with
//!   doubled room (amortised O(1) per element); the old range becomes garbage, and the
//!   pool is compacted when garbage outgrows the live elements.

use crate::idx::{Idx, IndexVec};

/// Where a list lives in the pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Range {
    start: u32,
    len: u32,
}

/// Lists keyed by `K`, elements `T` (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct ListPool<K: Idx, T> {
    /// While packed: where list `k` starts (`starts[k + 1]`: where it ends).
    starts: Option<Vec<u32>>,
    /// Unpacked: `(start, len)` per list, side by side: reading a list touches one entry.
    range: IndexVec<K, Range>,
    /// Free slots right after each list (0 for every list a build creates).
    room: IndexVec<K, u32>,
    data: Vec<T>,
    /// `data.len()` minus the live elements (room and dead ranges).
    garbage: usize,
}

impl<K: Idx, T> Default for ListPool<K, T> {
    fn default() -> Self {
        ListPool {
            starts: None,
            range: IndexVec::new(),
            room: IndexVec::new(),
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

    /// The lists `lists[k]`, packed in order.
    pub(crate) fn from_lists<L: IntoIterator<Item = T>>(
        lists: impl ExactSizeIterator<Item = L>,
    ) -> Self {
        let mut starts = Vec::with_capacity(lists.len() + 1);
        starts.push(0);
        let mut data = Vec::new();
        for l in lists {
            data.extend(l);
            starts.push(data.len() as u32);
        }
        ListPool {
            starts: Some(starts),
            data,
            ..Default::default()
        }
    }

    /// The lists `data[starts[k]..starts[k + 1]]` (a CSR table's rows), in order.
    ///
    /// # Panics
    /// If `starts` decreases or ends beyond `data` (a broken CSR table).
    pub(crate) fn from_regions(data: Vec<T>, mut starts: Vec<u32>) -> Self {
        if starts.is_empty() {
            starts.push(0);
        }
        let (first, last) = (starts[0] as usize, starts[starts.len() - 1] as usize);
        assert!(
            last <= data.len() && starts.windows(2).all(|w| w[0] <= w[1]),
            "from_regions: offsets out of order or beyond the buffer"
        );
        ListPool {
            garbage: data.len() - (last - first),
            starts: Some(starts),
            data,
            ..Default::default()
        }
    }

    /// `n` lists of one element each, list `k` holding `item(k)` (a build's RefSCCs
    /// that are one SCC each).
    pub(crate) fn singletons(n: usize, item: impl Fn(K) -> T) -> Self {
        ListPool {
            starts: Some((0..=n as u32).collect()),
            data: (0..n).map(|k| item(K::new(k))).collect(),
            ..Default::default()
        }
    }

    /// `n` empty lists (no room).
    pub(crate) fn with_empty_lists(n: usize) -> Self {
        ListPool {
            range: IndexVec::from_elem_n(Range::default(), n),
            room: IndexVec::from_elem_n(0, n),
            ..Default::default()
        }
    }

    /// Unpacked from here on: a range per list (no room yet).
    fn unpack(&mut self) {
        if let Some(starts) = self.starts.take() {
            self.range = starts
                .windows(2)
                .map(|w| Range {
                    start: w[0],
                    len: w[1] - w[0],
                })
                .collect();
            self.room = IndexVec::from_elem_n(0, self.range.len());
        }
    }

    /// Where list `k` lives: `data[lo..hi]`.
    #[inline]
    fn bounds(&self, k: K) -> (usize, usize) {
        match &self.starts {
            Some(s) => (s[k.idx()] as usize, s[k.idx() + 1] as usize),
            None => {
                let r = self.range[k];
                (r.start as usize, (r.start + r.len) as usize)
            }
        }
    }

    /// Replaces list `k` with what `fill` appends to the pool (the list moves to the end).
    pub(crate) fn refill(&mut self, k: K, fill: impl FnOnce(&mut Vec<T>)) {
        self.unpack();
        self.garbage += (self.range[k].len + self.room[k]) as usize;
        let at = self.data.len();
        fill(&mut self.data);
        let n = (self.data.len() - at) as u32;
        self.range[k] = Range {
            start: at as u32,
            len: n,
        };
        self.room[k] = 0;
    }

    /// Removes element `i` of list `k`, keeping the order of the rest.
    pub(crate) fn remove_at(&mut self, k: K, i: usize) -> T {
        self.unpack();
        let list = self.get_mut(k);
        let x = list[i];
        list.copy_within(i + 1.., i);
        self.range[k].len -= 1;
        self.room[k] += 1;
        self.garbage += 1;
        x
    }

    /// `(key, list)` pairs in key order.
    pub(crate) fn iter_enumerated(&self) -> impl Iterator<Item = (K, &[T])> + '_ {
        (0..self.num_lists()).map(move |k| (K::new(k), self.get(K::new(k))))
    }

    /// Makes room for `n` more lists.
    pub(crate) fn reserve_lists(&mut self, n: usize) {
        self.unpack();
        self.range.reserve(n);
        self.room.reserve(n);
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

    /// Every element of the pool, dead slots and room included, in no useful order.
    pub(crate) fn raw_elements(&self) -> &[T] {
        &self.data
    }

    /// Number of lists.
    pub(crate) fn num_lists(&self) -> usize {
        match &self.starts {
            Some(s) => s.len() - 1,
            None => self.range.len(),
        }
    }

    /// A new list owning `data[start..start + len]` (a region nothing else owns).
    pub(crate) fn push_region(&mut self, start: usize, len: usize) -> K {
        debug_assert!(start + len <= self.data.len());
        self.unpack();
        self.garbage -= len;
        self.room.push(0);
        self.range.push(Range {
            start: start as u32,
            len: len as u32,
        })
    }

    /// A new list holding `items`, appended to the pool.
    pub(crate) fn push_list(&mut self, items: &[T]) -> K {
        self.unpack();
        let start = self.data.len();
        self.data.extend_from_slice(items);
        self.room.push(0);
        self.range.push(Range {
            start: start as u32,
            len: items.len() as u32,
        })
    }

    /// List `k`.
    #[inline]
    pub(crate) fn get(&self, k: K) -> &[T] {
        let (lo, hi) = self.bounds(k);
        &self.data[lo..hi]
    }

    /// Hints the cache to load list `k`'s range and first elements (see
    /// [`crate::graph::tarjan`]). Reading the range to find the elements is a load the
    /// walk would make anyway when it visits `k`; issued early it overlaps the others
    /// (~4 % off a build of the bench's call-graph shape, PERF.md).
    #[inline]
    pub(crate) fn prefetch(&self, k: K) {
        let start = match &self.starts {
            Some(s) => s.get(k.idx()),
            None => self.range.get(k).map(|r| &r.start),
        };
        if let Some(start) = start {
            crate::graph::tarjan::prefetch(start);
            if let Some(x) = self.data.get(*start as usize) {
                crate::graph::tarjan::prefetch(x);
            }
        }
    }

    /// List `k`, mutably (same length).
    pub(crate) fn get_mut(&mut self, k: K) -> &mut [T] {
        let (lo, hi) = self.bounds(k);
        &mut self.data[lo..hi]
    }

    /// Makes list `k` empty (keeps its room).
    pub(crate) fn clear(&mut self, k: K) {
        self.unpack();
        self.garbage += self.range[k].len as usize;
        self.room[k] += self.range[k].len;
        self.range[k].len = 0;
    }

    /// Ensures room for `extra` more elements in list `k`, moving it if needed.
    fn make_room(&mut self, k: K, extra: usize) {
        self.unpack();
        let (s, l, c) = (
            self.range[k].start as usize,
            self.range[k].len as usize,
            (self.range[k].len + self.room[k]) as usize,
        );
        if l + extra <= c {
            return;
        }
        if s + c == self.data.len() {
            // Last in the pool: grow in place.
            let new_cap = (2 * (l + extra)).max(4);
            self.data.resize(s + new_cap, T::default());
            self.garbage += new_cap - c;
            self.room[k] = (new_cap - l) as u32;
            return;
        }
        if self.garbage > self.data.len() / 2 + 1024 {
            self.compact();
            return self.make_room(k, extra);
        }
        let (s, l) = (self.range[k].start as usize, self.range[k].len as usize);
        let new_cap = (2 * (l + extra)).max(4);
        let at = self.data.len();
        self.data.extend_from_within(s..s + l);
        self.data.resize(at + new_cap, T::default());
        self.garbage += new_cap;
        self.range[k].start = at as u32;
        self.room[k] = (new_cap - l) as u32;
    }

    /// Appends `items` to list `k`.
    pub(crate) fn extend(&mut self, k: K, items: &[T]) {
        self.make_room(k, items.len());
        let end = (self.range[k].start + self.range[k].len) as usize;
        self.data[end..end + items.len()].copy_from_slice(items);
        self.range[k].len += items.len() as u32;
        self.room[k] -= items.len() as u32;
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
        let live: usize = self.range.iter().map(|r| r.len as usize).sum();
        let mut data = Vec::with_capacity(live + live / 2);
        for k in self.range.indices() {
            let s = self.range[k].start as usize;
            let l = self.range[k].len as usize;
            self.range[k].start = data.len() as u32;
            self.room[k] = 0;
            data.extend_from_slice(&self.data[s..s + l]);
        }
        self.data = data;
        self.garbage = 0;
    }
}

impl<K: Idx, T: Copy + Default> std::ops::Index<K> for ListPool<K, T> {
    type Output = [T];
    #[inline]
    fn index(&self, k: K) -> &[T] {
        self.get(k)
    }
}

impl<K: Idx, T: Copy + Default> std::ops::IndexMut<K> for ListPool<K, T> {
    #[inline]
    fn index_mut(&mut self, k: K) -> &mut [T] {
        self.get_mut(k)
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
        q.refill(x, |d| d.extend([5, 6, 7]));
        assert_eq!(q.remove_at(x, 1), 6);
        assert_eq!(&q[x], &[5, 7]);
        let mut s: ListPool<u32, u32> = ListPool::singletons(3, |k| 10 * k);
        assert_eq!((s.get(0), s.get(2)), (&[0][..], &[20][..]));
        s.push(1, 11); // no room: moves to the end
        s.remove_at(0, 0);
        s.push(0, 1); // back into the room the removal left
        assert_eq!(
            (s.get(0), s.get(1), s.get(2)),
            (&[1][..], &[10, 11][..], &[20][..])
        );
        let r: ListPool<u32, u32> = ListPool::from_lists([vec![1], vec![], vec![2, 3]].into_iter());
        assert_eq!(
            r.iter_enumerated()
                .map(|(_, l)| l.len())
                .collect::<Vec<_>>(),
            [1, 0, 2]
        );
    }
}
