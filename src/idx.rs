//! Dense index newtypes and the vectors they index.
//!
//! Every dense index of the crate (IL entries, call-graph nodes, SCCs, RefSCCs, blocks,
//! loops, functions of an LLVM module, ...) is a `u32` newtype made by
//! [`define_idx!`](crate::define_idx), with `u32::MAX` reserved as "none". Two index types
//! never mix without a compile error, and an [`IndexVec<I, T>`] can only be indexed by its
//! own `I`:
//!
//! ```compile_fail
//! use ilkit::idx::{BlockIdx, IndexVec};
//! ilkit::define_idx!(
//!     /// Some other table's index.
//!     SccIdx, "scc"
//! );
//! let v: IndexVec<BlockIdx, u8> = IndexVec::from_elem_n(0, 3);
//! let _ = v[SccIdx::new(1)]; // a BlockIdx table cannot be indexed by an SccIdx
//! ```
//!
//! Graph algorithms are generic over [`Idx`]; plain `u32` implements it too, for hosts and
//! tests that have no index type of their own.

use std::fmt::Debug;
use std::hash::Hash;
use std::marker::PhantomData;

/// A dense index: a `u32` newtype (or `u32` itself) with `u32::MAX` as "none".
pub trait Idx: Copy + Eq + Ord + Hash + Debug + Send + Sync + 'static {
    /// The reserved "none" value.
    const NONE: Self;
    /// The index `i`.
    ///
    /// # Panics
    /// In debug builds, if `i` does not fit below `u32::MAX`.
    fn new(i: usize) -> Self;
    /// The index as `usize`, for indexing slices.
    fn idx(self) -> usize;
    /// Whether this is the "none" value.
    #[inline]
    fn is_none(self) -> bool {
        self == Self::NONE
    }
}

impl Idx for u32 {
    const NONE: u32 = u32::MAX;
    #[inline]
    fn new(i: usize) -> u32 {
        debug_assert!(i < u32::MAX as usize, "index {i} does not fit in u32");
        i as u32
    }
    #[inline]
    fn idx(self) -> usize {
        self as usize
    }
}

/// Defines a dense `u32` index newtype with a display prefix; `NONE == u32::MAX`.
///
/// The field is private: other modules convert through `new`/`idx`, or through
/// `from_raw`/`raw` where the raw `u32` is meant.
///
/// ```
/// ilkit::define_idx!(
///     /// A row of some table.
///     RowIdx, "row"
/// );
/// assert_eq!(RowIdx::new(3).to_string(), "row3");
/// assert_eq!(RowIdx::NONE.to_string(), "row-");
/// ```
#[macro_export]
macro_rules! define_idx {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub struct $name(u32);

        impl $name {
            /// The reserved "none" value.
            pub const NONE: $name = $name(u32::MAX);
            /// The index `i`.
            #[inline]
            pub fn new(i: usize) -> $name {
                debug_assert!(i < u32::MAX as usize, "index {i} does not fit in u32");
                $name(i as u32)
            }
            /// The index whose raw `u32` is `i` (`u32::MAX` is the "none" value).
            #[inline]
            pub const fn from_raw(i: u32) -> $name {
                $name(i)
            }
            /// The raw `u32` of this index (`u32::MAX` for the "none" value).
            #[inline]
            pub const fn raw(self) -> u32 {
                self.0
            }
            /// Whether this is the "none" value.
            #[inline]
            pub fn is_none(self) -> bool {
                self.0 == u32::MAX
            }
            /// The index as `usize`, for indexing side tables.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
            /// `Some(self)` unless this is the "none" value.
            #[inline]
            pub fn some(self) -> Option<$name> {
                (!self.is_none()).then_some(self)
            }
        }

        impl $crate::idx::Idx for $name {
            const NONE: $name = $name(u32::MAX);
            #[inline]
            fn new(i: usize) -> $name {
                $name::new(i)
            }
            #[inline]
            fn idx(self) -> usize {
                self.0 as usize
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::NONE
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                if self.is_none() {
                    write!(f, concat!($prefix, "-"))
                } else {
                    write!(f, concat!($prefix, "{}"), self.0)
                }
            }
        }
    };
}

define_idx!(
    /// A basic block of one function: its position in the function's block list (block 0
    /// is the entry of an imported function). Shared by the LLVM module model and the CFG.
    BlockIdx,
    "bb"
);

/// A `Vec<T>` indexed by `I` only.
///
/// # Invariants
/// - `len() < u32::MAX`, so every position is a valid `I`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct IndexVec<I: Idx, T> {
    raw: Vec<T>,
    _marker: PhantomData<fn(&I)>,
}

impl<I: Idx, T> Default for IndexVec<I, T> {
    fn default() -> Self {
        IndexVec::new()
    }
}

impl<I: Idx, T: Debug> Debug for IndexVec<I, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.raw.fmt(f)
    }
}

impl<I: Idx, T> IndexVec<I, T> {
    /// An empty vector.
    #[inline]
    pub const fn new() -> Self {
        IndexVec {
            raw: Vec::new(),
            _marker: PhantomData,
        }
    }

    /// An empty vector with room for `n` elements.
    #[inline]
    pub fn with_capacity(n: usize) -> Self {
        IndexVec::from_raw(Vec::with_capacity(n))
    }

    /// Wraps a plain vector: element `i` gets index `I::new(i)`.
    #[inline]
    pub fn from_raw(raw: Vec<T>) -> Self {
        IndexVec {
            raw,
            _marker: PhantomData,
        }
    }

    /// `n` copies of `elem`.
    #[inline]
    pub fn from_elem_n(elem: T, n: usize) -> Self
    where
        T: Clone,
    {
        IndexVec::from_raw(vec![elem; n])
    }

    /// Appends `t`; returns its index.
    #[inline]
    pub fn push(&mut self, t: T) -> I {
        let i = I::new(self.raw.len());
        self.raw.push(t);
        i
    }

    /// The index the next `push` returns.
    #[inline]
    pub fn next_index(&self) -> I {
        I::new(self.raw.len())
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// Elements the vector holds room for.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.raw.capacity()
    }

    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The element at `i`, if in range.
    #[inline]
    pub fn get(&self, i: I) -> Option<&T> {
        self.raw.get(i.idx())
    }

    /// The element at `i`, mutably, if in range.
    #[inline]
    pub fn get_mut(&mut self, i: I) -> Option<&mut T> {
        self.raw.get_mut(i.idx())
    }

    /// The elements as a plain slice (position `k` is index `I::new(k)`).
    #[inline]
    pub fn raw(&self) -> &[T] {
        &self.raw
    }

    /// The elements as a plain mutable slice.
    #[inline]
    pub fn raw_mut(&mut self) -> &mut [T] {
        &mut self.raw
    }

    /// The plain vector.
    #[inline]
    pub fn into_raw(self) -> Vec<T> {
        self.raw
    }

    /// The elements in index order.
    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.raw.iter()
    }

    /// The elements in index order, mutably.
    #[inline]
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.raw.iter_mut()
    }

    /// `(index, element)` pairs in index order.
    #[inline]
    pub fn iter_enumerated(
        &self,
    ) -> impl DoubleEndedIterator<Item = (I, &T)> + ExactSizeIterator + Clone + '_ {
        self.raw.iter().enumerate().map(|(i, t)| (I::new(i), t))
    }

    /// Every index, in order.
    #[inline]
    pub fn indices(
        &self,
    ) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator + Clone + 'static {
        (0..self.raw.len()).map(I::new)
    }

    /// Resizes to `n` elements, filling with `value`.
    #[inline]
    pub fn resize(&mut self, n: usize, value: T)
    where
        T: Clone,
    {
        self.raw.resize(n, value);
    }

    /// Removes every element (keeps the capacity).
    #[inline]
    pub fn clear(&mut self) {
        self.raw.clear();
    }

    /// Keeps the first `n` elements.
    #[inline]
    pub fn truncate(&mut self, n: usize) {
        self.raw.truncate(n);
    }

    /// Reserves room for `n` more elements.
    #[inline]
    pub fn reserve(&mut self, n: usize) {
        self.raw.reserve(n);
    }

    /// The last element.
    #[inline]
    pub fn last(&self) -> Option<&T> {
        self.raw.last()
    }

    /// Removes and returns the last element.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        self.raw.pop()
    }
}

impl<I: Idx, T> std::ops::Index<I> for IndexVec<I, T> {
    type Output = T;
    #[inline]
    fn index(&self, i: I) -> &T {
        &self.raw[i.idx()]
    }
}

impl<I: Idx, T> std::ops::IndexMut<I> for IndexVec<I, T> {
    #[inline]
    fn index_mut(&mut self, i: I) -> &mut T {
        &mut self.raw[i.idx()]
    }
}

impl<I: Idx, T> FromIterator<T> for IndexVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        IndexVec::from_raw(iter.into_iter().collect())
    }
}

impl<I: Idx, T> Extend<T> for IndexVec<I, T> {
    fn extend<It: IntoIterator<Item = T>>(&mut self, iter: It) {
        self.raw.extend(iter)
    }
}

impl<'a, I: Idx, T> IntoIterator for &'a IndexVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter()
    }
}

impl<I: Idx, T> IntoIterator for IndexVec<I, T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.into_iter()
    }
}

/// Entries per chunk of a [`SharedVec`].
const SHARED_CHUNK: usize = 256;

/// A column whose copies share it by chunks of 256 entries until one of them writes
/// (copy on write): a copy costs a pointer per chunk, a write to a chunk another copy
/// holds copies that chunk first. What a worker reading a snapshot of a table the
/// owner goes on writing needs, without copying the whole table per snapshot.
///
/// ```
/// use ilkit::idx::SharedVec;
/// let mut a = SharedVec::from_elem(0u8, 1000);
/// let b = a.clone();
/// a[700] = 7;
/// assert_eq!((a[700], b[700]), (7, 0));
/// assert_eq!(a.iter().map(|&x| x as usize).sum::<usize>(), 7);
/// ```
#[derive(Clone, Default)]
pub struct SharedVec<T> {
    chunks: Vec<std::sync::Arc<Vec<T>>>,
    len: usize,
}

impl<T: Debug> Debug for SharedVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T> SharedVec<T> {
    /// The column of `items`, in order.
    pub fn from_iter_chunked(items: impl IntoIterator<Item = T>) -> SharedVec<T> {
        let mut chunks = Vec::new();
        let mut cur = Vec::with_capacity(SHARED_CHUNK);
        let mut len = 0;
        for x in items {
            cur.push(x);
            len += 1;
            if cur.len() == SHARED_CHUNK {
                let full = std::mem::replace(&mut cur, Vec::with_capacity(SHARED_CHUNK));
                chunks.push(std::sync::Arc::new(full));
            }
        }
        if !cur.is_empty() {
            chunks.push(std::sync::Arc::new(cur));
        }
        SharedVec { chunks, len }
    }

    /// `n` copies of `x`.
    pub fn from_elem(x: T, n: usize) -> SharedVec<T>
    where
        T: Clone,
    {
        SharedVec::from_iter_chunked(std::iter::repeat_n(x, n))
    }

    /// How many entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// No entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entry `i`, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks
            .get(i / SHARED_CHUNK)
            .and_then(|c| c.get(i % SHARED_CHUNK))
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Whether entry `i`'s chunk is the same one `other` holds (no copy wrote it since).
    pub fn shares_chunk_of(&self, other: &SharedVec<T>, i: usize) -> bool {
        match (
            self.chunks.get(i / SHARED_CHUNK),
            other.chunks.get(i / SHARED_CHUNK),
        ) {
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl<T> std::ops::Index<usize> for SharedVec<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / SHARED_CHUNK][i % SHARED_CHUNK]
    }
}

impl<T: Clone> std::ops::IndexMut<usize> for SharedVec<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut std::sync::Arc::make_mut(&mut self.chunks[i / SHARED_CHUNK])[i % SHARED_CHUNK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::define_idx!(
        /// Test index.
        TIdx,
        "t"
    );

    #[test]
    fn push_index_and_enumerate() {
        let mut v: IndexVec<TIdx, &str> = IndexVec::new();
        let a = v.push("a");
        let b = v.push("b");
        assert_eq!((a, b), (TIdx(0), TIdx(1)));
        assert_eq!(v[b], "b");
        v[a] = "z";
        let pairs: Vec<_> = v.iter_enumerated().map(|(i, s)| (i.0, *s)).collect();
        assert_eq!(pairs, vec![(0, "z"), (1, "b")]);
        assert_eq!(v.indices().collect::<Vec<_>>(), vec![TIdx(0), TIdx(1)]);
        assert_eq!(v.get(TIdx(2)), None);
        assert_eq!(TIdx::NONE.some(), None);
        assert_eq!(<TIdx as Idx>::new(4).idx(), 4);
    }

    #[test]
    fn raw_round_trip() {
        const T3: TIdx = TIdx::from_raw(3);
        const R3: u32 = T3.raw();
        assert_eq!((T3, R3), (TIdx::new(3), 3));
        assert_eq!(TIdx::NONE.raw(), u32::MAX);
    }

    #[test]
    fn a_shared_copy_writes_its_own_chunk_only() {
        let mut a = SharedVec::from_iter_chunked(0..(3 * SHARED_CHUNK + 5));
        assert_eq!((a.len(), a.chunks.len()), (3 * SHARED_CHUNK + 5, 4));
        let b = a.clone();
        a[SHARED_CHUNK + 1] = 0;
        assert_eq!(
            (a[SHARED_CHUNK + 1], b[SHARED_CHUNK + 1]),
            (0, SHARED_CHUNK + 1)
        );
        // the chunks it did not write are still shared
        assert!(a.shares_chunk_of(&b, 0));
        assert!(!a.shares_chunk_of(&b, SHARED_CHUNK));
        assert!(a.shares_chunk_of(&b, 3 * SHARED_CHUNK + 4));
        assert_eq!(a.get(3 * SHARED_CHUNK + 5), None);
        assert!(b.iter().copied().eq(0..(3 * SHARED_CHUNK + 5)));
    }

    proptest::proptest! {
        /// Copies of a column taken and written in any order each read as a plain
        /// vector would: a write reaches its own copy only.
        #[test]
        fn shared_copies_read_as_plain_vectors(
            len in 0usize..(4 * SHARED_CHUNK),
            ops in proptest::collection::vec((0usize..4, 0usize..4, 0usize..4096, 0u32..1000), 0..64),
        ) {
            let mut shared = vec![SharedVec::from_iter_chunked((0..len).map(|i| i as u32))];
            let mut plain: Vec<Vec<u32>> = vec![(0..len).map(|i| i as u32).collect()];
            for (op, k, i, v) in ops {
                let k = k % shared.len();
                if op == 0 && shared.len() < 6 {
                    shared.push(shared[k].clone());
                    plain.push(plain[k].clone());
                } else if len > 0 {
                    let i = i % len;
                    shared[k][i] = v;
                    plain[k][i] = v;
                }
            }
            for (s, p) in shared.iter().zip(&plain) {
                proptest::prop_assert_eq!(s.len(), p.len());
                proptest::prop_assert!(s.iter().eq(p.iter()));
                proptest::prop_assert_eq!(s.get(len), None);
                for (i, x) in p.iter().enumerate() {
                    proptest::prop_assert_eq!(&s[i], x);
                }
            }
        }
    }
}
