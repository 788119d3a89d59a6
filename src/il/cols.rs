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
    /// Region index: 16 bits while every region fits (see [`RegionCol`]).
    pub(super) region: RegionCol,
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

/// The region column: `u16` while every region index fits (the usual world: function
/// regions are recycled when closed), widened to `u32` once for good when one does not.
#[derive(Clone, Debug)]
pub(super) enum RegionCol {
    /// Every value fits 16 bits.
    Narrow(Vec<u16>),
    /// Some value does not.
    Wide(Vec<u32>),
}

impl Default for RegionCol {
    fn default() -> Self {
        RegionCol::Narrow(Vec::new())
    }
}

impl RegionCol {
    /// The region index of entry `i`.
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> u32 {
        match self {
            RegionCol::Narrow(v) => v[i] as u32,
            RegionCol::Wide(v) => v[i],
        }
    }

    /// Sets entry `i`'s region index (widening the column when `r` needs it).
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize, r: u32) {
        match self {
            RegionCol::Narrow(v) if r <= u16::MAX as u32 => v[i] = r as u16,
            RegionCol::Wide(v) => v[i] = r,
            RegionCol::Narrow(_) => {
                self.widen();
                self.set(i, r);
            }
        }
    }

    /// Sets the region index of every entry of `es` to `r` (one width check for all).
    pub(super) fn set_many(&mut self, es: &[super::Eix], r: u32) {
        if r > u16::MAX as u32 {
            self.widen();
        }
        match self {
            RegionCol::Narrow(v) => {
                let r = r as u16;
                for e in es {
                    v[e.idx()] = r;
                }
            }
            RegionCol::Wide(v) => {
                for e in es {
                    v[e.idx()] = r;
                }
            }
        }
    }

    /// Sets the region index of entries `range` to `r` (one width check for all).
    pub(super) fn fill(&mut self, range: std::ops::Range<usize>, r: u32) {
        if r > u16::MAX as u32 {
            self.widen();
        }
        match self {
            RegionCol::Narrow(v) => v[range].fill(r as u16),
            RegionCol::Wide(v) => v[range].fill(r),
        }
    }

    /// Switches to 32-bit values (keeping the capacity).
    #[cold]
    fn widen(&mut self) {
        if let RegionCol::Narrow(v) = self {
            let mut w = Vec::with_capacity(v.capacity());
            w.extend(v.iter().map(|&x| x as u32));
            *self = RegionCol::Wide(w);
        }
    }

    fn len(&self) -> usize {
        match self {
            RegionCol::Narrow(v) => v.len(),
            RegionCol::Wide(v) => v.len(),
        }
    }

    fn capacity(&self) -> usize {
        match self {
            RegionCol::Narrow(v) => v.capacity(),
            RegionCol::Wide(v) => v.capacity(),
        }
    }

    fn reserve_exact(&mut self, n: usize) {
        match self {
            RegionCol::Narrow(v) => v.reserve_exact(n),
            RegionCol::Wide(v) => v.reserve_exact(n),
        }
    }

    fn resize(&mut self, len: usize) {
        match self {
            RegionCol::Narrow(v) => v.resize(len, 0),
            RegionCol::Wide(v) => v.resize(len, 0),
        }
    }

    /// Bytes per entry.
    pub(super) fn width(&self) -> usize {
        match self {
            RegionCol::Narrow(_) => 2,
            RegionCol::Wide(_) => 4,
        }
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
            match &mut self.region {
                RegionCol::Narrow(v) if r.region <= u16::MAX as u32 => put(v, i, r.region as u16),
                RegionCol::Wide(v) => put(v, i, r.region),
                RegionCol::Narrow(_) => {
                    self.region.widen();
                    let RegionCol::Wide(v) = &mut self.region else {
                        unreachable!("just widened")
                    };
                    put(v, i, r.region)
                }
            }
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
        self.region.set(i, r.region);
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
        self.region.resize(len);
        self.gen.resize(len, 0);
        self.start.resize(len, 0);
        self.pos.resize(len, 0);
    }

    /// Bytes one entry takes across the columns (with 16-bit regions).
    pub(super) const fn bytes_per_entry() -> usize {
        1 + 4 + 2 + 4 + 4 + 4
    }

    /// Bytes one entry takes across the columns as they are (regions 16 or 32 bits).
    pub(super) fn bytes_per_entry_now(&self) -> usize {
        Self::bytes_per_entry() - 2 + self.region.width()
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
        let n = ns + header.iter().map(|w| w.idx()).sum::<usize>();
        self.edges.get(s..s + n)
    }

    /// `(begin, start, end)` of dense index `i`'s edge block (a live entry of kind `k`):
    /// it covers `edges[begin..end]`, its children are `edges[start..end]`; `None` when
    /// the block does not lie inside the pool. With `k` a constant, the kind's block
    /// shape is known where the call is compiled.
    #[inline(always)]
    pub(crate) fn block_span_as(&self, k: EntryKind, i: usize) -> Option<(usize, usize, usize)> {
        debug_assert_eq!(self.kind[i], k);
        let s = self.start[i] as usize;
        let (nr, nl, ns) = super::edges::block_shape(k);
        let begin = s.checked_sub(nl + nr)?;
        let header = self.edges.get(s - nl..s)?;
        let n = ns + header.iter().map(|w| w.idx()).sum::<usize>();
        let end = s + n;
        (end <= self.edges.len()).then_some((begin, s, end))
    }
}
