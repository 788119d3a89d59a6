//! The per-entry columns: one row per dense index ([`Eix`]), kept at one length (a
//! multi-array: one capacity check per appended entry, growing every column at once).
//!
//! # Invariants
//! - every column has `len()` elements; `kind[e] == EntryKind::None` exactly for free
//!   indices, and then `gen[e]` is even.

use super::{Eix, EntryKind};

/// The per-entry columns. See the module docs.
#[derive(Debug, Default)]
pub(super) struct EntryCols {
    /// Entry kind (`None` for a free index).
    pub(super) kind: Vec<EntryKind>,
    /// Row in the kind's table.
    pub(super) row: Vec<u32>,
    /// Region index.
    pub(super) region: Vec<u32>,
    /// Generation: odd while the entry lives (see `id::generation`).
    pub(super) gen: Vec<u32>,
    /// Pool index of the entry's first single slot (see the `edges` module).
    pub(super) start: Vec<u32>,
    /// Index of the entry's source position in `Il::positions`.
    pub(super) pos: Vec<u32>,
    /// Room every column has (the least of their capacities).
    cap: usize,
}

impl Clone for EntryCols {
    fn clone(&self) -> Self {
        let mut c = EntryCols {
            kind: self.kind.clone(),
            row: self.row.clone(),
            region: self.region.clone(),
            gen: self.gen.clone(),
            start: self.start.clone(),
            pos: self.pos.clone(),
            cap: 0,
        };
        // The clones' capacities are their own: `cap` must not promise more.
        c.reserve_total(c.len());
        c
    }
}

/// One entry's per-entry column values.
#[derive(Clone, Copy, Debug)]
pub(super) struct EntryRow {
    pub(super) kind: EntryKind,
    pub(super) row: u32,
    pub(super) region: u32,
    pub(super) gen: u32,
    pub(super) start: u32,
    pub(super) pos: u32,
}

impl EntryCols {
    /// Number of dense indices (live and free).
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.kind.len()
    }

    /// Appends one entry's values: one capacity check for all columns.
    #[inline(always)]
    pub(super) fn push(&mut self, r: EntryRow) {
        let i = self.kind.len();
        if i == self.cap {
            self.grow(1);
        }
        debug_assert!(
            [
                self.row.len(),
                self.region.len(),
                self.gen.len(),
                self.start.len(),
                self.pos.len()
            ]
            .iter()
            .all(|&n| n == i),
            "per-entry columns of unequal lengths"
        );
        /// Writes `x` at index `i` of `v` and lengthens it by one.
        ///
        /// # Safety
        /// `v.len() == i < v.capacity()`.
        #[inline(always)]
        unsafe fn put<T>(v: &mut Vec<T>, i: usize, x: T) {
            // SAFETY: the caller's contract: `i` is the first index of the spare capacity.
            unsafe {
                v.as_mut_ptr().add(i).write(x);
                v.set_len(i + 1);
            }
        }
        // SAFETY: every column holds `i` elements (all mutations keep their lengths
        // equal) and has capacity at least `cap > i` (`reserve_total` keeps `cap` the least
        // of their capacities, and `Clone` recomputes it), so each write lands in its
        // column's spare capacity and each new length covers written elements only.
        unsafe {
            put(&mut self.kind, i, r.kind);
            put(&mut self.row, i, r.row);
            put(&mut self.region, i, r.region);
            put(&mut self.gen, i, r.gen);
            put(&mut self.start, i, r.start);
            put(&mut self.pos, i, r.pos);
        }
    }

    /// Writes index `i`'s values (an index that exists).
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize, r: EntryRow) {
        self.kind[i] = r.kind;
        self.row[i] = r.row;
        self.region[i] = r.region;
        self.gen[i] = r.gen;
        self.start[i] = r.start;
        self.pos[i] = r.pos;
    }

    /// Room for `n` more entries in every column, grown at least geometrically.
    #[cold]
    pub(super) fn grow(&mut self, n: usize) {
        let want = (self.len() + n).max(2 * self.cap).max(64);
        self.reserve_total(want);
    }

    /// Room for `n` more entries in every column, exactly (a builder that knows its count).
    pub(super) fn reserve(&mut self, n: usize) {
        if self.len() + n > self.cap {
            self.reserve_total(self.len() + n);
        }
    }

    fn reserve_total(&mut self, total: usize) {
        let extra = total - self.len();
        self.kind.reserve_exact(extra);
        self.row.reserve_exact(extra);
        self.region.reserve_exact(extra);
        self.gen.reserve_exact(extra);
        self.start.reserve_exact(extra);
        self.pos.reserve_exact(extra);
        self.cap = [
            self.kind.capacity(),
            self.row.capacity(),
            self.region.capacity(),
            self.gen.capacity(),
            self.start.capacity(),
            self.pos.capacity(),
        ]
        .into_iter()
        .min()
        .unwrap_or(0);
    }

    /// Grows to `len` indices, the new ones free (kind `None`, generation 0).
    pub(super) fn grow_to(&mut self, len: usize) {
        if len <= self.len() {
            return;
        }
        if len > self.cap {
            // Geometric: batch after batch must not reallocate every column each time.
            self.grow(len - self.len());
        }
        self.kind.resize(len, EntryKind::None);
        self.row.resize(len, 0);
        self.region.resize(len, 0);
        self.gen.resize(len, 0);
        self.start.resize(len, 0);
        self.pos.resize(len, 0);
    }

    /// Bytes one entry takes across the columns.
    pub(super) const fn bytes_per_entry() -> usize {
        1 + 4 + 4 + 4 + 4 + 4
    }
}

/// The per-entry columns, each sliced to the number of dense indices, for loops that
/// read several of them per entry: one bounds check on the index covers them all.
pub(crate) struct EntryColumns<'a> {
    pub(crate) kind: &'a [EntryKind],
    pub(crate) row: &'a [u32],
    pub(crate) start: &'a [u32],
    /// The edge pool.
    pub(crate) edges: &'a [Eix],
}

impl EntryColumns<'_> {
    /// The children of dense index `i` (a live entry).
    #[inline(always)]
    pub(crate) fn children(&self, i: usize) -> Option<&[Eix]> {
        let k = self.kind[i];
        let s = self.start[i] as usize;
        let (_, nl, ns) = super::edges::block_shape(k);
        let header = self.edges.get(s.checked_sub(nl)?..s)?;
        let n = ns + header.iter().map(|w| w.0 as usize).sum::<usize>();
        self.edges.get(s..s + n)
    }
}
