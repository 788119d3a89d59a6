//! The IL world: per-entry columns, the edge pool, regions, flags and free lists.

mod clone;
mod kept;

pub(crate) use clone::BlockLeaf;
use kept::KeptBlocks;
pub(crate) use kept::{KeptBlock, TakenBlock};

use super::cols::{EntryCols, EntryColumns, EntryRow};
use super::derived::rescope_share_key;
use super::edges::{block_shape, nchild_at};
use super::id::generation;
use super::{
    BitSet, ConstantKind, Eix, EixRuns, EntryId, EntryKind, ExprKind, IlError, RegionIdx,
    RegionRule, StorageClass, Str, StrFields, StringArena, Tables,
};

/// A source position: `file` is the ordinal of a source file entry (`u16::MAX` = none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SourcePos {
    /// Line, 1-based (0 = unknown).
    pub line: u32,
    /// Column, 1-based (0 = unknown), saturating at `u16::MAX`.
    pub col: u16,
    /// Source-file ordinal.
    pub file: u16,
}

/// The prefix flags of the seed, one bitset column each.
///
/// Two of them are set on nearly every entry, so their columns hold the exceptions
/// (see [`Flag::stored_inverted`]): a new entry in the usual world stamps no bit for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// bit 0: always set on fresh allocation (cleared only on a local constant returned
    /// to its free list).
    Allocated,
    /// bit 1: allocated in file scope outside TU-copy mode.
    FileScope,
    /// bit 2: the entry comes from a secondary translation unit.
    SecondaryIl,
    /// bit 3: C++ mode at allocation.
    Language,
    /// bit 7: set by device-code marking.
    KeepInIl,
    /// The stronger keep flag for class types and routines (definition needed).
    KeepDefinition,
}

impl Flag {
    /// The flags whose column holds the entries where the flag is *clear* (bit `Flag as
    /// u8`): allocated (clear only on a freed local constant) and language (clear only
    /// outside C++ mode).
    const INVERTED: u8 = 1 << Flag::Allocated as u8 | 1 << Flag::Language as u8;

    /// Whether this flag's column holds the live entries where it is clear, not set:
    /// [`Il::flag_column`] does not hand such a column out.
    pub const fn stored_inverted(self) -> bool {
        Flag::INVERTED & 1 << self as u8 != 0
    }
}

/// The six free-listed kinds of the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeListKind {
    /// template_arg cells (64 bytes in EDG).
    TemplateArg = 0,
    /// constant_list_entry cells (16 bytes in EDG).
    ConstantListEntry = 1,
    /// expression nodes (freed nodes are kind 36 until reused).
    ExprNode = 2,
    /// local constants (keep keep_in_il across recycling).
    Constant = 3,
    /// param_type entries.
    ParamType = 4,
    /// source_sequence_entry entries.
    SourceSeqEntry = 5,
}

/// One memory region.
#[derive(Clone, Debug, Default)]
pub struct Region {
    /// Whether the region is open.
    pub live: bool,
    /// Its entries in allocation order (function regions; file-scope entries are in the
    /// per-kind lists), as runs of consecutive dense indices.
    pub entries: EixRuns,
    /// Its string bytes.
    pub strings: StringArena,
    /// The function scope it belongs to (none for file scope).
    pub scope: Option<EntryId>,
    /// Entries of other regions given an edge into this one while freed indices are held
    /// ([`Il::hold_freed_indices`]): closing the region clears those edges.
    incoming: Vec<Eix>,
}

/// An entry for [`Il::push_built_entry`].
pub(crate) struct BuiltEntry {
    pub kind: EntryKind,
    pub region: RegionIdx,
    pub pos: SourcePos,
    /// Its row, already in `kind`'s table.
    pub row: u32,
    /// Where its children (single slots, then list items) begin in the edge pool
    /// [`Il::finish_build`] installs: its edge block is the kind's references and list
    /// lengths just before, these children from here.
    pub start: u32,
    /// Flags set besides `allocated`: bit `Flag as u8` for each.
    pub flags: u8,
}

/// One batch clone's rows grouped by kind (kept in the world for its buffers): the
/// kinds in first-seen order, per kind its count and next slot, and per slot the source
/// row, the clone's row and the clone.
#[derive(Clone, Default)]
struct RowBatch {
    kinds: Vec<EntryKind>,
    count: Vec<u32>,
    at: Vec<u32>,
    from: Vec<u32>,
    to: Vec<u32>,
    eix: Vec<Eix>,
}

/// Scratch buffers, not world state: left out of the world's `Debug` (which tests
/// compare to tell two worlds apart).
impl std::fmt::Debug for RowBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowBatch").finish_non_exhaustive()
    }
}

impl RowBatch {
    /// Counts `run` more rows of `k` (nothing for an empty run).
    #[inline]
    fn add_run(&mut self, k: EntryKind, run: u32) {
        if run == 0 {
            return;
        }
        if self.count[k as usize] == 0 {
            self.kinds.push(k);
        }
        self.count[k as usize] += run;
    }

    fn reset(&mut self) {
        if self.count.is_empty() {
            self.count = vec![0; EntryKind::COUNT];
            self.at = vec![0; EntryKind::COUNT];
        }
        for &k in &self.kinds {
            self.count[k as usize] = 0;
        }
        self.kinds.clear();
        self.from.clear();
        self.to.clear();
        self.eix.clear();
    }
}

/// Counters of the seed's stats dump that are not per-kind entry counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocCounters {
    /// Type supplements allocated: integer, routine, class, typeref, template-param.
    pub type_supplements: [u64; 5],
    /// Expression supplements: new/delete, throw, condition.
    pub expr_supplements: [u64; 3],
    /// Statement supplements: constexpr_if, block, for, try, switch, coroutine.
    pub stmt_supplements: [u64; 6],
    /// GNU routine supplements.
    pub gnu_supplements: u64,
    /// template_arg cells allocated.
    pub template_args: u64,
    /// constant_list_entry cells allocated.
    pub constant_list_entries: u64,
    /// Bytes of string_text (kind 25) stored.
    pub string_literal_bytes: u64,
    /// Entries allocated by reusing a free-list entry.
    pub recycled: u64,
    /// File-scope allocations: each writes a next-in-list slot (seed 001's
    /// `fs_orphan_pointers`) and a prefix flags word (`IL_entry_prefix`).
    pub fs_prefixes: u64,
    /// File-scope allocations outside TU-copy mode, which also write a TU-copy address
    /// slot (`trans_unit_copy_addr`).
    pub tu_copy_addrs: u64,
    /// Function regions opened ([`Il::open_function_region`]).
    pub function_regions: u64,
    /// Function regions closed ([`Il::close_function_region`]).
    pub closed_regions: u64,
    /// Entries freed by closing their function region.
    pub region_entries_freed: u64,
    /// Edges into closed regions cleared (when the region closed, or by
    /// [`Il::release_held_indices`]).
    pub region_edges_cleared: u64,
}

/// The IL world. See the module docs of [`crate::il`].
///
/// # Invariants
/// - `gen[e]` is odd exactly for live `e`; an [`EntryId`] resolves to `e` iff its
///   generation equals `gen[e]`; `live` counts the live entries.
/// - for every live `e`: `tables.<kind[e]>.eix[row[e]] == e`.
/// - every edge in the pool is `Eix::NONE` or a live entry (checked by `verify`).
/// - `kind[e] == EntryKind::None` exactly for free dense indices (in `free_eix`, or held
///   back from reuse by [`Il::hold_freed_indices`]).
#[derive(Clone, Debug)]
pub struct Il {
    /// The per-entry columns (kind, row, region, generation, block start, position).
    pub(super) cols: EntryCols,
    /// Source positions, interned: entries hold an index; a run of entries allocated at
    /// one cursor position shares one element.
    positions: Vec<SourcePos>,
    /// Index of the cursor in `positions`, or `u32::MAX` until an entry takes it.
    cursor_pos: u32,
    /// The dense flag columns, indexed by [`Flag`]: a live entry's bit is the flag's value,
    /// inverted for the flags [`Flag::stored_inverted`]; a free index has no bit set.
    /// is_in_secondary_il lives in `secondary` instead.
    flags: [BitSet; 6],
    /// is_in_secondary_il, stored sparse: most worlds have no secondary IL at all, and a
    /// secondary translation unit's entries come in long runs (see PERF.md).
    secondary: roaring::RoaringBitmap,
    live: usize,
    /// The per-kind SoA tables.
    pub(crate) tables: Tables,
    pub(super) free_rows: [Vec<u32>; EntryKind::COUNT],
    free_eix: Vec<Eix>,
    /// Dense indices freed while [`Il::hold_freed_indices`] is on: not reused until
    /// [`Il::release_held_indices`] has cleared the edges still pointing at them.
    held_eix: Option<Vec<Eix>>,
    /// The edge pool (see the `edges` module).
    pub(super) edges: Vec<Eix>,
    pub(super) edge_garbage: usize,
    kind_lists: Vec<Vec<Eix>>,
    external_types: Vec<Eix>,
    regions: Vec<Region>,
    free_regions: Vec<u32>,
    pub(super) current: RegionIdx,
    /// TU-copy mode: file-scope entries get the short prefix and no file_scope flag.
    pub tu_copy_mode: bool,
    /// Secondary-IL mode: new entries are stamped is_in_secondary_il.
    pub secondary_mode: bool,
    /// C++ mode: new entries get the language flag.
    pub cpp_mode: bool,
    cursor: SourcePos,
    pub(super) free_lists: [Vec<u32>; 6],
    template_arg_cells: Vec<(u8, Eix)>,
    constant_list_cells: Vec<Eix>,
    borrowed_local_constants: i64,
    counts: [u64; EntryKind::COUNT],
    batch: RowBatch,
    /// Counters of supplements and bookkeeping.
    pub counters: AllocCounters,
    /// The IL header: the primary (file) scope.
    pub primary_scope: Option<EntryId>,
    /// The IL header: the main routine, if any.
    pub main_routine: Option<EntryId>,
    /// The IL header: compiler version (other_text).
    pub compiler_version: Option<Vec<u8>>,
    /// The IL header: time of compilation (other_text).
    pub time_of_compilation: Option<Vec<u8>>,
    epoch: u64,
    /// Trees a deep copy proved to be blocks, kept for the next copy (`kept` module).
    kept: KeptBlocks,
}

impl Default for Il {
    fn default() -> Self {
        Il::new()
    }
}

const NONE_U16: u16 = u16::MAX;

impl Il {
    /// An empty world with its file-scope region open.
    pub fn new() -> Il {
        Il {
            cols: EntryCols::default(),
            positions: Vec::new(),
            cursor_pos: u32::MAX,
            flags: Default::default(),
            secondary: roaring::RoaringBitmap::new(),
            live: 0,
            tables: Tables::default(),
            free_rows: std::array::from_fn(|_| Vec::new()),
            free_eix: Vec::new(),
            held_eix: None,
            edges: Vec::new(),
            edge_garbage: 0,
            kind_lists: vec![Vec::new(); EntryKind::COUNT],
            external_types: Vec::new(),
            regions: vec![Region {
                live: true,
                ..Region::default()
            }],
            free_regions: Vec::new(),
            current: RegionIdx::FILE_SCOPE,
            tu_copy_mode: false,
            secondary_mode: false,
            cpp_mode: true,
            cursor: SourcePos {
                line: 0,
                col: 0,
                file: NONE_U16,
            },
            free_lists: Default::default(),
            template_arg_cells: Vec::new(),
            constant_list_cells: Vec::new(),
            borrowed_local_constants: 0,
            counts: [0; EntryKind::COUNT],
            batch: RowBatch::default(),
            counters: AllocCounters::default(),
            primary_scope: None,
            main_routine: None,
            compiler_version: None,
            time_of_compilation: None,
            epoch: 0,
            kept: KeptBlocks::default(),
        }
    }

    /// Reserves room for `entries` more entries and `edges` more edge slots (bulk builders
    /// such as the binary IL reader call this once instead of growing as they go).
    pub fn reserve(&mut self, entries: usize, edges: usize) {
        self.cols.reserve(entries);
        self.edges.reserve(edges);
        let n = self.cols.len() + entries;
        for f in &mut self.flags {
            f.grow(n);
        }
    }

    /// Reserves room for `n` more entries of `kind` (its table's columns and its
    /// file-scope list): bulk builders that know their per-kind counts call this once.
    pub fn reserve_kind(&mut self, kind: EntryKind, n: usize) {
        if kind.has_table() {
            self.tables.reserve(kind, n);
            self.kind_lists[kind as usize].reserve(n);
        }
    }

    // ---- ids ---------------------------------------------------------------------------

    /// Resolves a handle to its dense index.
    ///
    /// # Errors
    /// [`IlError::StaleId`] when the entry was freed.
    #[inline]
    pub fn eix(&self, id: EntryId) -> Result<Eix, IlError> {
        generation::resolve(&self.cols.gen, id).ok_or(IlError::StaleId(id))
    }

    /// The handle of a live dense index.
    #[inline]
    pub fn id_of(&self, e: Eix) -> EntryId {
        generation::mint(e, self.cols.gen[e.idx()])
    }

    /// Whether `e` is a live entry.
    #[inline]
    pub fn is_live(&self, e: Eix) -> bool {
        e.idx() < self.cols.len() && self.cols.kind[e.idx()] != EntryKind::None
    }

    /// Kind of a live entry.
    #[inline]
    pub fn kind(&self, e: Eix) -> EntryKind {
        self.cols.kind[e.idx()]
    }

    /// Kind of the entry behind a handle.
    pub fn kind_of(&self, id: EntryId) -> Result<EntryKind, IlError> {
        Ok(self.kind(self.eix(id)?))
    }

    /// Row of a live entry in its kind's table.
    #[inline]
    pub fn row(&self, e: Eix) -> u32 {
        self.cols.row[e.idx()]
    }

    /// The per-entry columns for a hot loop.
    pub(crate) fn columns(&self) -> EntryColumns<'_> {
        let n = self.cols.len();
        EntryColumns {
            kind: &self.cols.kind[..n],
            row: &self.cols.row[..n],
            start: &self.cols.start[..n],
            edges: &self.edges,
        }
    }

    /// Region of a live entry.
    #[inline]
    pub fn region_of(&self, e: Eix) -> RegionIdx {
        RegionIdx::from_raw(self.cols.region.get(e.idx()))
    }

    /// Source position of a live entry.
    #[inline]
    pub fn pos(&self, e: Eix) -> SourcePos {
        self.positions[self.cols.pos[e.idx()] as usize]
    }

    /// Number of dense indices (live and free): the length every `Eix` side table needs.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.cols.len()
    }

    /// Number of live entries.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether the world has no entries.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Live entries in dense order.
    pub fn entries(&self) -> impl Iterator<Item = Eix> + '_ {
        (0..self.cols.len() as u32)
            .map(Eix::from_raw)
            .filter(|&e| self.is_live(e))
    }

    /// The file-scope entries of `kind` in allocation order (the seed's next-in-list list,
    /// which fixes phase 5 of the file-scope walk). Freed entries are skipped.
    pub fn kind_list(&self, kind: EntryKind) -> impl Iterator<Item = Eix> + '_ {
        self.kind_lists[kind as usize]
            .iter()
            .copied()
            .filter(move |&e| self.is_live(e) && self.kind(e) == kind)
    }

    /// The external-declarations list (types, linked through the type's own link in EDG).
    pub fn external_types(&self) -> impl Iterator<Item = Eix> + '_ {
        self.external_types
            .iter()
            .copied()
            .filter(move |&e| self.is_live(e))
    }

    /// Adds a type to the external-declarations list.
    pub fn add_external_type(&mut self, ty: EntryId) -> Result<(), IlError> {
        let e = self.expect(ty, EntryKind::Type)?;
        self.external_types.push(e);
        Ok(())
    }

    /// Number of entries of `kind` allocated so far (the stats counter; includes recycled
    /// and freed ones, as EDG counts allocations).
    pub fn alloc_count(&self, kind: EntryKind) -> u64 {
        self.counts[kind as usize]
    }

    // ---- flags -------------------------------------------------------------------------

    /// Reads a flag of a live entry.
    #[inline]
    pub fn flag(&self, e: Eix, f: Flag) -> bool {
        if f == Flag::SecondaryIl {
            return self.secondary.contains(e.raw());
        }
        let bit = self.flags[f as usize].get(e.idx());
        if f.stored_inverted() {
            self.is_live(e) && !bit
        } else {
            bit
        }
    }

    /// All flags of a live entry at once: bit `Flag as u8` for each flag set.
    #[inline]
    pub fn flag_bits(&self, e: Eix) -> u8 {
        let i = e.idx();
        let mut m = 0u8;
        for (f, col) in self.flags.iter().enumerate() {
            m |= (col.get(i) as u8) << f;
        }
        if self.is_live(e) {
            m ^= Flag::INVERTED;
        }
        // The sparse column is usually empty: no search then.
        if !self.secondary.is_empty() && self.secondary.contains(e.raw()) {
            m |= 1 << Flag::SecondaryIl as u8;
        }
        m
    }

    /// Sets a flag of a live entry.
    #[inline]
    pub fn set_flag(&mut self, e: Eix, f: Flag, v: bool) {
        if f == Flag::SecondaryIl {
            if v {
                self.secondary.insert(e.raw());
            } else {
                self.secondary.remove(e.raw());
            }
            return;
        }
        self.flags[f as usize].set(e.idx(), v != f.stored_inverted())
    }

    /// A whole dense flag column.
    ///
    /// # Panics
    /// For [`Flag::SecondaryIl`], which is stored sparse: use [`Il::secondary_il_entries`];
    /// and for a flag [`Flag::stored_inverted`] (read it with [`Il::flag`]).
    pub fn flag_column(&self, f: Flag) -> &BitSet {
        assert!(
            f != Flag::SecondaryIl,
            "is_in_secondary_il is a sparse column"
        );
        assert!(!f.stored_inverted(), "{f:?} is stored as its exceptions");
        &self.flags[f as usize]
    }

    /// A whole dense flag column, mutable (marking kernels write it directly).
    ///
    /// # Panics
    /// As [`Il::flag_column`].
    pub fn flag_column_mut(&mut self, f: Flag) -> &mut BitSet {
        assert!(
            f != Flag::SecondaryIl,
            "is_in_secondary_il is a sparse column"
        );
        assert!(!f.stored_inverted(), "{f:?} is stored as its exceptions");
        &mut self.flags[f as usize]
    }

    /// The entries stamped is_in_secondary_il (a compressed bitmap of dense indices).
    pub fn secondary_il_entries(&self) -> &roaring::RoaringBitmap {
        &self.secondary
    }

    // ---- position cursor ------------------------------------------------------------------

    /// Moves the current-position cursor; new entries take their position from it (the
    /// seed's common header template).
    pub fn set_position(&mut self, file: u16, line: u32, col: u32) {
        self.cursor = SourcePos {
            line,
            col: col.min(u16::MAX as u32) as u16,
            file,
        };
        self.cursor_pos = u32::MAX;
    }

    /// The current-position cursor.
    pub fn position(&self) -> SourcePos {
        self.cursor
    }

    /// The interned index of the cursor position (interned on first use).
    #[inline(always)]
    pub(super) fn cursor_index(&mut self) -> u32 {
        if self.cursor_pos == u32::MAX {
            self.cursor_pos = self.intern_position(self.cursor);
        }
        self.cursor_pos
    }

    /// The index of `p` in the position table: the last element when equal (positions
    /// come in runs), else a new one.
    #[inline]
    pub(super) fn intern_position(&mut self, p: SourcePos) -> u32 {
        if self.positions.last() != Some(&p) {
            self.positions.push(p);
        }
        (self.positions.len() - 1) as u32
    }

    // ---- regions -----------------------------------------------------------------------

    /// The current allocation region.
    pub fn current_region(&self) -> RegionIdx {
        self.current
    }

    /// Whether allocation currently goes to the file-scope region.
    pub fn in_file_scope(&self) -> bool {
        self.current == RegionIdx::FILE_SCOPE
    }

    /// A region by index.
    pub fn region(&self, r: RegionIdx) -> Option<&Region> {
        self.regions.get(r.idx()).filter(|r| r.live)
    }

    /// Opens a function region for the body of the routine whose scope is `scope`, and
    /// makes it current.
    pub fn open_function_region(&mut self, scope: Option<EntryId>) -> RegionIdx {
        self.counters.function_regions += 1;
        let r = match self.free_regions.pop() {
            Some(r) => {
                let reg = &mut self.regions[r as usize];
                reg.live = true;
                reg.scope = scope;
                r
            }
            None => {
                self.regions.push(Region {
                    live: true,
                    scope,
                    ..Region::default()
                });
                (self.regions.len() - 1) as u32
            }
        };
        self.current = RegionIdx::from_raw(r);
        self.current
    }

    /// Makes `r` the current region (file scope or an open function region).
    pub fn switch_region(&mut self, r: RegionIdx) -> Result<(), IlError> {
        if self.region(r).is_none() {
            return Err(IlError::BadRegion(r.raw()));
        }
        self.current = r;
        Ok(())
    }

    /// Ends a function region: frees every entry in it (their IDs stop resolving) and its
    /// strings, clears the edges into it that entries of other regions were given while
    /// freed indices were held ([`Il::hold_freed_indices`]), clears the free lists
    /// (`clear_free_lists`), checks the borrowed
    /// local-constant balance, and makes file scope current. O(entries in the region),
    /// amortized over pool compaction.
    ///
    /// # Errors
    /// [`IlError::BadRegion`] for file scope or a closed region; [`IlError::Assert`]
    /// ("check_local_constant_use") when local constants are still borrowed — the region
    /// is freed all the same.
    pub fn close_function_region(&mut self, r: RegionIdx) -> Result<(), IlError> {
        if r == RegionIdx::FILE_SCOPE || self.region(r).is_none() {
            return Err(IlError::BadRegion(r.raw()));
        }
        self.clear_edges_into(r);
        let entries = std::mem::take(&mut self.regions[r.idx()].entries);
        // Last first: the free list then hands the indices out in ascending order again,
        // so the next region's entries form runs too.
        let order: Vec<Eix> = entries.iter().collect();
        for &e in order.iter().rev() {
            if self.is_live(e) && self.cols.region.get(e.idx()) == r.raw() {
                self.release(e);
                self.counters.region_entries_freed += 1;
            }
        }
        let reg = &mut self.regions[r.idx()];
        reg.live = false;
        reg.strings = StringArena::default();
        reg.scope = None;
        let mut recycled = entries;
        recycled.clear();
        reg.entries = recycled;
        self.free_regions.push(r.raw());
        self.counters.closed_regions += 1;
        if self.current == r {
            self.current = RegionIdx::FILE_SCOPE;
        }
        self.clear_free_lists();
        self.maybe_compact();
        let balance = std::mem::take(&mut self.borrowed_local_constants);
        if balance != 0 {
            return Err(IlError::Assert(
                "check_local_constant_use: local constants still in use",
            ));
        }
        Ok(())
    }

    /// Frees one dense index: drops its ID, row and edges.
    fn release(&mut self, e: Eix) {
        self.touch(e);
        let k = self.cols.kind[e.idx()];
        let row = self.cols.row[e.idx()];
        // Even: IDs of this life stop resolving.
        self.cols.gen[e.idx()] = self.cols.gen[e.idx()].wrapping_add(1);
        self.live -= 1;
        self.tables.reset_row(k, row, Eix::NONE);
        self.free_rows[k as usize].push(row);
        let (begin, _, end) = self.block(e);
        self.edge_garbage += end - begin;
        self.cols.kind[e.idx()] = EntryKind::None;
        for f in &mut self.flags {
            f.set(e.idx(), false);
        }
        self.secondary.remove(e.raw());
        match &mut self.held_eix {
            Some(held) => held.push(e),
            None => self.free_eix.push(e),
        }
    }

    /// From now on, dense indices freed (by [`Il::close_function_region`],
    /// [`Il::free_entries`]) are held back instead of reused, so an edge or a caller's
    /// table that still holds one keeps naming a dead entry ([`Il::is_live`] is false)
    /// rather than whatever a later allocation puts there. A reader that closes regions
    /// while references into them may still be pending (an importer resolving ids at the
    /// end) turns this on first and calls [`Il::release_held_indices`] when done.
    pub fn hold_freed_indices(&mut self) {
        if self.held_eix.is_none() {
            self.held_eix = Some(Vec::new());
        }
    }

    /// Records that `p` was given an edge to `c` (while indices are held): when `c` lives
    /// in another function region, closing that region clears the edge.
    #[inline(always)]
    pub(super) fn note_edge(&mut self, p: Eix, c: Eix) {
        if self.held_eix.is_some() && !c.is_none() {
            self.note_cross_region(p, c);
        }
    }

    fn note_cross_region(&mut self, p: Eix, c: Eix) {
        let rc = self.cols.region.get(c.idx());
        if rc != RegionIdx::FILE_SCOPE.raw() && rc != self.cols.region.get(p.idx()) {
            self.regions[rc as usize].incoming.push(p);
        }
    }

    /// Clears the edges of the entries recorded in `r`'s incoming list that point into `r`.
    fn clear_edges_into(&mut self, r: RegionIdx) {
        let mut incoming = std::mem::take(&mut self.regions[r.idx()].incoming);
        for &p in &incoming {
            if !self.is_live(p) || self.cols.region.get(p.idx()) == r.raw() {
                continue;
            }
            let n = self.clear_edges_of(p, |il, c| {
                il.is_live(c) && il.cols.region.get(c.idx()) == r.raw()
            });
            self.counters.region_edges_cleared += n as u64;
        }
        incoming.clear();
        self.regions[r.idx()].incoming = incoming;
    }

    /// Ends [`Il::hold_freed_indices`]: clears every edge of a live entry that points at a
    /// dead one (single and reference slots become none, list items are removed), then
    /// makes the held indices reusable. Returns the number of edges cleared. O(entries +
    /// edges) when indices were held, O(1) otherwise.
    pub fn release_held_indices(&mut self) -> usize {
        let Some(held) = self.held_eix.take() else {
            return 0;
        };
        let cleared = if held.is_empty() {
            0
        } else {
            self.clear_dangling_edges()
        };
        self.counters.region_edges_cleared += cleared as u64;
        self.free_eix.extend(held);
        for slot in [&mut self.primary_scope, &mut self.main_routine] {
            if slot.is_some_and(|id| generation::resolve(&self.cols.gen, id).is_none()) {
                *slot = None;
            }
        }
        cleared
    }

    /// Clears the edges of live entries that point at dead entries; returns how many.
    fn clear_dangling_edges(&mut self) -> usize {
        let mut cleared = 0;
        for i in 0..self.capacity() {
            if self.cols.kind[i] != EntryKind::None {
                cleared += self.clear_edges_of(Eix::new(i), |il, c| !il.is_live(c));
            }
        }
        cleared
    }

    /// Clears the edges of `p` whose target `cut` picks (single and reference slots
    /// become none, list items are removed); returns how many.
    fn clear_edges_of(&mut self, p: Eix, cut: impl Fn(&Il, Eix) -> bool) -> usize {
        let k = self.cols.kind[p.idx()];
        let (nr, nl, ns) = block_shape(k);
        let start = self.cols.start[p.idx()] as usize;
        let mut cleared = 0;
        for slot in (start - nl - nr..start - nl).chain(start..start + ns) {
            let c = self.edges[slot];
            if !c.is_none() && cut(self, c) {
                self.edges[slot] = Eix::NONE;
                cleared += 1;
            }
        }
        for list in 0..nl as u32 {
            let (a, b) = self.list_bounds(p, list);
            let keep: Vec<bool> = self.edges[a..b].iter().map(|&c| !cut(self, c)).collect();
            let dead = keep.iter().filter(|&&k| !k).count();
            if dead > 0 {
                let mut i = 0;
                self.retain_list_at(p, list, |_| {
                    i += 1;
                    keep[i - 1]
                });
                cleared += dead;
            }
        }
        if cleared > 0 {
            self.edge_changed(p);
        }
        cleared
    }

    /// Frees individual entries (the elimination pass): their IDs stop resolving, their
    /// rows and dense indices are recycled, and they leave the per-kind and external
    /// lists. Edges that still point at them must have been cleared by the caller.
    pub fn free_entries(&mut self, entries: &[Eix]) {
        let mut dead = BitSet::with_len(self.capacity());
        for &e in entries {
            if self.is_live(e) {
                dead.set(e.idx(), true);
                self.release(e);
            }
        }
        for list in &mut self.kind_lists {
            list.retain(|e| !dead.get(e.idx()));
        }
        self.external_types.retain(|e| !dead.get(e.idx()));
        for r in &mut self.regions {
            r.entries.retain(|e| !dead.get(e.idx()));
        }
        for slot in [&mut self.primary_scope, &mut self.main_routine] {
            if slot.is_some_and(|id| generation::resolve(&self.cols.gen, id).is_none()) {
                *slot = None;
            }
        }
        self.maybe_compact();
    }

    /// Zeroes the free lists (called at function-scope exit).
    pub fn clear_free_lists(&mut self) {
        for l in &mut self.free_lists {
            l.clear();
        }
    }

    // ---- allocation --------------------------------------------------------------------

    pub(super) fn target_region(&self, kind: EntryKind) -> Result<RegionIdx, IlError> {
        match kind.region_rule() {
            RegionRule::FileScope | RegionRule::SameRegionAs => Ok(RegionIdx::FILE_SCOPE),
            RegionRule::Dual => Ok(self.current),
            RegionRule::FunctionOnly => {
                if self.in_file_scope() {
                    Err(IlError::NotInFunctionScope("alloc_label"))
                } else {
                    Ok(self.current)
                }
            }
        }
    }

    /// Allocates an entry of `kind` in the region its rule picks (file scope, the current
    /// region, or a function region only), stamps the prefix flags and the position cursor.
    ///
    /// # Errors
    /// [`IlError::NotAllocatable`] for reserved/text/none/last kinds;
    /// [`IlError::NotInFunctionScope`] for a label at file scope.
    pub fn alloc(&mut self, kind: EntryKind) -> Result<EntryId, IlError> {
        if !kind.has_table() {
            return Err(IlError::NotAllocatable(kind as u8));
        }
        let r = self.target_region(kind)?;
        Ok(self.alloc_in(kind, r))
    }

    /// Allocates an entry of `kind` (by number), as [`Il::alloc`].
    pub fn alloc_kind_number(&mut self, kind: u8) -> Result<EntryId, IlError> {
        let k = EntryKind::from_u8(kind).ok_or(IlError::NotAllocatable(kind))?;
        self.alloc(k)
    }

    /// Allocates in the region `other` lives in (`alloc_class_list_entry`,
    /// `alloc_based_type_list_member`, pragmas).
    pub fn alloc_same_region_as(
        &mut self,
        kind: EntryKind,
        other: EntryId,
    ) -> Result<EntryId, IlError> {
        if !kind.has_table() {
            return Err(IlError::NotAllocatable(kind as u8));
        }
        let o = self.eix(other)?;
        let r = self.region_of(o);
        Ok(self.alloc_in(kind, r))
    }

    /// Allocates a variable: locals ([`StorageClass::is_local`]: auto, register,
    /// parameter) go to the current region, globals/statics/externs to file scope.
    pub fn alloc_variable(&mut self, storage_class: StorageClass) -> Result<EntryId, IlError> {
        let r = if storage_class.is_local() {
            self.current
        } else {
            RegionIdx::FILE_SCOPE
        };
        let id = self.alloc_in(EntryKind::Variable, r);
        let e = self.eix(id)?;
        self.variable_mut(e).set_storage_class(storage_class);
        Ok(id)
    }

    /// Allocates in file scope with TU-copy mode on for the call (`alloc_in_scratch_region`).
    pub fn alloc_in_scratch_region(&mut self, kind: EntryKind) -> Result<EntryId, IlError> {
        if !kind.has_table() {
            return Err(IlError::NotAllocatable(kind as u8));
        }
        let saved = std::mem::replace(&mut self.tu_copy_mode, true);
        let id = self.alloc_in(kind, RegionIdx::FILE_SCOPE);
        self.tu_copy_mode = saved;
        Ok(id)
    }

    pub(crate) fn alloc_in(&mut self, kind: EntryKind, r: RegionIdx) -> EntryId {
        let e = self.next_dense_slot();
        let row = match self.free_rows[kind as usize].pop() {
            Some(row) => {
                self.tables.reset_row(kind, row, e);
                row
            }
            None => self.tables.push_default(kind, e),
        };
        let start = self.new_block(kind);
        let pos = self.cursor_index();
        self.set_dense(e, kind, row, r, start, pos);
        self.stamp_and_enlist(kind, e, r);
        self.id_of(e)
    }

    /// Appends an entry built elsewhere (the bulk builder's primitive, used by the binary
    /// IL reader): a fresh dense index at the end (never a free one), its row already in
    /// place, flags `allocated` plus `b.flags`. Its edge block comes with the whole pool
    /// in [`Il::finish_build`], which also computes the derived columns; until then the
    /// world is not to be read. The caller keeps the block consistent with the kind's
    /// layout and its edges pointing at live entries.
    pub(crate) fn push_built_entry(&mut self, b: BuiltEntry) -> Eix {
        let kind = b.kind;
        let pos = self.intern_position(b.pos);
        // A fresh index one past the end: the per-entry columns are pushed with their
        // values.
        let e = self.push_dense(kind, b.row, b.region, b.start, pos);
        let i = e.idx();
        // Every built entry is allocated; the inverted columns take the flags' complement.
        let flags = b.flags | 1 << Flag::Allocated as u8;
        let mut dense = (flags ^ Flag::INVERTED) & !(1 << Flag::SecondaryIl as u8);
        while dense != 0 {
            self.flags[dense.trailing_zeros() as usize].set(i, true);
            dense &= dense - 1;
        }
        if b.flags & (1 << Flag::SecondaryIl as u8) != 0 {
            // Secondary IL lives in its sparse column.
            self.secondary.insert(e.raw());
        }
        self.enlist(kind, e, b.region);
        e
    }

    /// Sets string field `index` of an entry of a world being built (as
    /// [`Il::set_string`], its derived columns left to [`Il::finish_build`]).
    pub(crate) fn set_built_string(&mut self, e: Eix, index: usize, bytes: &[u8]) {
        self.store_string(e, index, bytes);
    }

    /// Ends a bulk build: `edges` becomes the edge pool (every built entry's block, in
    /// order, as each [`BuiltEntry::start`] says) and the derived columns are computed.
    /// The world held no edges before (a fresh world built with [`Il::push_built_entry`]
    /// only).
    pub(crate) fn finish_build(&mut self, edges: Vec<Eix>) {
        debug_assert!(
            self.edges.is_empty(),
            "a bulk build starts from an empty pool"
        );
        self.edges = edges;
        self.refresh_all_derived();
    }

    /// Computes every live entry's derived columns again (a world built or laid out in
    /// bulk).
    fn refresh_all_derived(&mut self) {
        for i in 0..self.cols.len() {
            let e = Eix::new(i);
            if self.is_live(e) {
                self.refresh_derived(self.cols.kind[i], e);
            }
        }
    }

    /// Sets string field `index` of a live entry by dense index (as [`Il::set_string`]).
    pub(crate) fn set_string_eix(&mut self, e: Eix, index: usize, bytes: &[u8]) {
        let k = self.store_string(e, index, bytes);
        self.refresh_derived(k, e);
    }

    /// [`Il::set_string_eix`] without the derived columns; returns the entry's kind.
    fn store_string(&mut self, e: Eix, index: usize, bytes: &[u8]) -> EntryKind {
        let k = self.kind(e);
        if k.layout().strings[index].string_kind == EntryKind::StringText as u8 {
            self.counters.string_literal_bytes += bytes.len() as u64;
        }
        let s = self.regions[self.cols.region.get(e.idx()) as usize]
            .strings
            .push(bytes);
        let row = self.row(e);
        self.tables.set_string(k, row, index, s);
        k
    }

    /// The dense index the next entry takes: a freed one, else one past the end (which
    /// [`Il::set_dense`] then appends).
    #[inline]
    pub(super) fn next_dense_slot(&mut self) -> Eix {
        self.free_eix.pop().unwrap_or(Eix::new(self.cols.len()))
    }

    /// Whether a new entry takes a fresh dense index (no freed one waits for reuse).
    #[inline(always)]
    pub(super) fn no_free_dense_slot(&self) -> bool {
        self.free_eix.is_empty()
    }

    /// Appends the per-entry columns of a new entry at a fresh dense index (one past the
    /// end) and makes it live: [`Il::set_dense`]'s new-index case, called directly by
    /// builders that know the index is fresh.
    #[inline(always)]
    pub(super) fn push_dense(
        &mut self,
        kind: EntryKind,
        row: u32,
        r: RegionIdx,
        start: u32,
        pos: u32,
    ) -> Eix {
        let e = Eix::new(self.cols.len());
        self.live += 1;
        self.cols.push(EntryRow {
            kind,
            row,
            region: r.raw(),
            gen: 1,
            start,
            pos,
        });
        e
    }

    /// Writes `e`'s per-entry columns and makes it live (its generation odd): in place
    /// for a recycled index, pushed with their values for a new one (no default written
    /// first).
    #[inline(always)]
    pub(super) fn set_dense(
        &mut self,
        e: Eix,
        kind: EntryKind,
        row: u32,
        r: RegionIdx,
        start: u32,
        pos: u32,
    ) {
        let i = e.idx();
        if i == self.cols.len() {
            self.push_dense(kind, row, r, start, pos);
            return;
        }
        self.live += 1;
        let gen = self.cols.gen[i].wrapping_add(1);
        self.cols.set(
            i,
            EntryRow {
                kind,
                row,
                region: r.raw(),
                gen,
                start,
                pos,
            },
        );
    }

    /// Copies the string fields of `from` into `to`'s region (row `tr` of `kind`).
    fn copy_strings(&mut self, kind: EntryKind, from: Eix, to: Eix, tr: u32) {
        let strs = self.tables.strings(kind, self.row(from));
        let (fr, tr_region) = (
            self.cols.region.get(from.idx()) as usize,
            self.cols.region.get(to.idx()) as usize,
        );
        for (i, &s) in strs.as_slice().iter().enumerate() {
            if s.is_some() {
                // Straight from arena to arena (or within one), no buffer per string.
                let ns = if fr == tr_region {
                    self.regions[fr].strings.push_copy(None, s)
                } else {
                    let (src, dst) = if fr < tr_region {
                        let (a, b) = self.regions.split_at_mut(tr_region);
                        (&a[fr], &mut b[0])
                    } else {
                        let (a, b) = self.regions.split_at_mut(fr);
                        (&b[0], &mut a[tr_region])
                    };
                    dst.strings.push_copy(Some(&src.strings), s)
                };
                self.tables.set_string(kind, tr, i, ns);
            }
        }
    }

    /// Counts a new entry and lists it: file-scope entries in their kind's list (the
    /// walk's order), others in their region's.
    #[inline(always)]
    pub(super) fn enlist(&mut self, kind: EntryKind, e: Eix, r: RegionIdx) {
        self.counts[kind as usize] += 1;
        if r == RegionIdx::FILE_SCOPE {
            self.kind_lists[kind as usize].push(e);
        } else {
            self.regions[r.idx()].entries.push(e);
        }
    }

    /// Sets the prefix flags of a new entry, counts it and lists it (as [`Il::enlist`]):
    /// one test of file scope for both. Its flag bits are clear already: a dense index is
    /// either new (past every column's end) or was released, which clears them all.
    #[inline(always)]
    pub(super) fn stamp_and_enlist(&mut self, kind: EntryKind, e: Eix, r: RegionIdx) {
        // Straight-line, the rules of `new_entry_flags` one test each.
        let i = e.idx();
        self.counts[kind as usize] += 1;
        if r == RegionIdx::FILE_SCOPE {
            self.counters.fs_prefixes += 1;
            if !self.tu_copy_mode {
                self.flags[Flag::FileScope as usize].set(i, true);
                self.counters.tu_copy_addrs += 1;
            }
            self.kind_lists[kind as usize].push(e);
        } else {
            self.regions[r.idx()].entries.push(e);
        }
        if !self.cpp_mode {
            // Stored inverted: the exception is an entry made outside C++ mode.
            self.flags[Flag::Language as usize].set(i, true);
        }
        if self.secondary_mode {
            self.secondary.insert(e.raw());
        }
    }

    /// The dense flag columns a new entry in region `r` gets a bit in (bit `Flag as u8`):
    /// file scope outside TU-copy mode; language outside C++ mode (stored inverted, as is
    /// allocated, which a new entry has).
    #[inline(always)]
    fn new_entry_flags(&self, r: RegionIdx) -> u8 {
        let mut m = 0;
        if r == RegionIdx::FILE_SCOPE && !self.tu_copy_mode {
            m |= 1 << Flag::FileScope as u8;
        }
        if !self.cpp_mode {
            m |= 1 << Flag::Language as u8;
        }
        m
    }

    /// Asserts that `e` is a live entry of `kind` (the typed accessors' precondition).
    ///
    /// # Panics
    /// If it is not.
    #[inline]
    pub(crate) fn expect_kind(&self, e: Eix, kind: EntryKind) {
        let k = self
            .cols
            .kind
            .get(e.idx())
            .copied()
            .unwrap_or(EntryKind::None);
        assert!(k == kind, "{e} is a {}, not a {}", k.name(), kind.name());
    }

    /// Called by every typed setter after it wrote a value column of `e` (of `kind`, a
    /// constant at each call site): where derived columns are kept in step.
    #[inline(always)]
    pub(crate) fn row_changed(&mut self, kind: EntryKind, e: Eix) {
        self.touch(e);
        self.refresh_derived(kind, e);
    }

    // ---- strings -----------------------------------------------------------------------

    /// Stores `bytes` in `e`'s region and sets its string field `index` (schema order).
    pub fn set_string(&mut self, id: EntryId, index: usize, bytes: &[u8]) -> Result<(), IlError> {
        let e = self.eix(id)?;
        if index >= self.kind(e).layout().strings.len() {
            return Err(IlError::Assert("no such string field"));
        }
        self.set_string_eix(e, index, bytes);
        Ok(())
    }

    /// Sets the string field called `name`.
    pub fn set_string_named(
        &mut self,
        id: EntryId,
        name: &str,
        bytes: &[u8],
    ) -> Result<(), IlError> {
        let k = self.kind_of(id)?;
        let index = k
            .layout()
            .strings
            .iter()
            .position(|s| s.name == name)
            .ok_or(IlError::Assert("no such string field"))?;
        self.set_string(id, index, bytes)
    }

    /// The string fields of `e` in schema order, as handles into its region's arena
    /// (bytes through [`Il::str_bytes`]).
    #[inline]
    pub fn string_handles(&self, e: Eix) -> StrFields {
        self.tables.strings(self.kind(e), self.row(e))
    }

    /// Scalar `i` of `e` (its kind's scalar and flag columns in schema order, as
    /// `SCALAR_NAMES` lists them), widened to i64: what display prints.
    #[inline]
    pub fn scalar(&self, e: Eix, i: usize) -> i64 {
        self.tables.get_scalar(self.kind(e), self.row(e), i)
    }

    /// Writes `e`'s scalars at their column widths (a binary IL record's scalar part).
    #[inline]
    pub(crate) fn write_scalar_bytes(&self, e: Eix, out: &mut [u8]) {
        self.tables
            .write_scalar_bytes(self.kind(e), self.row(e), out)
    }

    /// Appends a row of `kind` for `e` with its scalars read from `b` (the binary IL
    /// reader's row push; see `Tables::push_row_from_bytes`).
    #[inline]
    pub(crate) fn push_row_from_bytes(
        &mut self,
        kind: EntryKind,
        e: Eix,
        b: &[u8],
    ) -> Result<u32, &'static str> {
        self.tables.push_row_from_bytes(kind, e, b)
    }

    /// The bytes of a string handle held by entry `e`.
    pub fn str_bytes(&self, e: Eix, s: Str) -> &[u8] {
        self.regions[self.cols.region.get(e.idx()) as usize]
            .strings
            .get(s)
    }

    /// The bytes of string field `index` of `e`.
    pub fn string(&self, e: Eix, index: usize) -> &[u8] {
        let s = self.tables.strings(self.kind(e), self.row(e));
        match s.as_slice().get(index) {
            Some(&h) => self.str_bytes(e, h),
            None => &[],
        }
    }

    /// The bytes of the first string field of `e` (usually its name).
    pub fn name(&self, e: Eix) -> &[u8] {
        self.string(e, 0)
    }

    // ---- free lists --------------------------------------------------------------------

    /// Frees an expression node onto the expression free list: its kind becomes 36
    /// (`ek_reclaimed`) until it is reused.
    pub fn free_expr_node(&mut self, id: EntryId) -> Result<(), IlError> {
        let e = self.expect(id, EntryKind::ExprNode)?;
        self.expr_mut(e).set_expr_kind(ExprKind::Reclaimed);
        self.free_lists[FreeListKind::ExprNode as usize].push(e.raw());
        Ok(())
    }

    /// Allocates an expression node, reusing a reclaimed one first (keeping keep_in_il, as
    /// the seed's allocator keeps bit 7), then sets its kind.
    ///
    /// # Errors
    /// [`IlError::BadKind`] for [`ExprKind::Reclaimed`] (only the free list sets it).
    pub fn alloc_expr_node(&mut self, expr_kind: ExprKind) -> Result<EntryId, IlError> {
        if expr_kind == ExprKind::Reclaimed {
            return Err(IlError::BadKind("set_expr_node_kind: bad kind"));
        }
        let id = self.alloc_recycled(FreeListKind::ExprNode, EntryKind::ExprNode, true)?;
        super::kinds::set_expr_node_kind(self, id, expr_kind)?;
        Ok(id)
    }

    /// Allocates a local constant from the constant free list (keep_in_il survives
    /// recycling) and counts it as borrowed until [`Il::free_local_constant`].
    pub fn alloc_local_constant(
        &mut self,
        constant_kind: ConstantKind,
    ) -> Result<EntryId, IlError> {
        let id = self.alloc_recycled(FreeListKind::Constant, EntryKind::Constant, true)?;
        super::kinds::set_constant_kind(self, id, constant_kind)?;
        self.borrowed_local_constants += 1;
        Ok(id)
    }

    /// Returns a local constant to the free list.
    ///
    /// # Errors
    /// [`IlError::Assert`] when the constant is not in use.
    pub fn free_local_constant(&mut self, id: EntryId) -> Result<(), IlError> {
        let e = self.expect(id, EntryKind::Constant)?;
        if !self.flag(e, Flag::Allocated) {
            return Err(IlError::Assert("free_local_constant: constant not in use"));
        }
        self.set_flag(e, Flag::Allocated, false);
        self.free_lists[FreeListKind::Constant as usize].push(e.raw());
        self.borrowed_local_constants -= 1;
        Ok(())
    }

    /// Local constants currently borrowed (must be 0 at function boundaries).
    pub fn borrowed_local_constants(&self) -> i64 {
        self.borrowed_local_constants
    }

    /// Allocates a param_type, reusing a freed one first.
    pub fn alloc_param_type(&mut self) -> Result<EntryId, IlError> {
        self.alloc_recycled(FreeListKind::ParamType, EntryKind::ParamType, false)
    }

    /// Returns a list of param_type entries to their free list.
    pub fn free_param_type_list(&mut self, ids: &[EntryId]) -> Result<(), IlError> {
        for &id in ids {
            let e = self.expect(id, EntryKind::ParamType)?;
            self.free_lists[FreeListKind::ParamType as usize].push(e.raw());
        }
        Ok(())
    }

    /// Allocates a source_sequence_entry, reusing a freed one first.
    pub fn alloc_source_seq_entry(&mut self) -> Result<EntryId, IlError> {
        self.alloc_recycled(
            FreeListKind::SourceSeqEntry,
            EntryKind::SourceSequenceEntry,
            false,
        )
    }

    /// Returns a source_sequence_entry to its free list.
    pub fn free_source_seq_entry(&mut self, id: EntryId) -> Result<(), IlError> {
        let e = self.expect(id, EntryKind::SourceSequenceEntry)?;
        self.free_lists[FreeListKind::SourceSeqEntry as usize].push(e.raw());
        Ok(())
    }

    /// Allocates a template_arg cell `(arg kind, value)`, reusing a freed cell first.
    pub fn alloc_template_arg(
        &mut self,
        arg_kind: u8,
        value: Option<EntryId>,
    ) -> Result<u32, IlError> {
        let v = match value {
            Some(v) => self.eix(v)?,
            None => Eix::NONE,
        };
        self.counters.template_args += 1;
        Ok(
            match self.free_lists[FreeListKind::TemplateArg as usize].pop() {
                Some(c) => {
                    self.template_arg_cells[c as usize] = (arg_kind, v);
                    self.counters.recycled += 1;
                    c
                }
                None => {
                    self.template_arg_cells.push((arg_kind, v));
                    (self.template_arg_cells.len() - 1) as u32
                }
            },
        )
    }

    /// A template_arg cell's `(kind, value)`.
    pub fn template_arg(&self, cell: u32) -> Option<(u8, Eix)> {
        self.template_arg_cells.get(cell as usize).copied()
    }

    /// `free_template_arg_list`: returns cells to the free list.
    pub fn free_template_arg_list(&mut self, cells: &[u32]) {
        self.free_lists[FreeListKind::TemplateArg as usize].extend_from_slice(cells);
    }

    /// Allocates a constant_list_entry cell holding `constant`, reusing a freed cell first.
    pub fn alloc_constant_list_entry(&mut self, constant: EntryId) -> Result<u32, IlError> {
        let c = self.expect(constant, EntryKind::Constant)?;
        self.counters.constant_list_entries += 1;
        Ok(
            match self.free_lists[FreeListKind::ConstantListEntry as usize].pop() {
                Some(cell) => {
                    self.constant_list_cells[cell as usize] = c;
                    self.counters.recycled += 1;
                    cell
                }
                None => {
                    self.constant_list_cells.push(c);
                    (self.constant_list_cells.len() - 1) as u32
                }
            },
        )
    }

    /// `return_constant_list_entries_to_free_list`.
    pub fn free_constant_list_entries(&mut self, cells: &[u32]) {
        self.free_lists[FreeListKind::ConstantListEntry as usize].extend_from_slice(cells);
    }

    /// Number of entries on a free list (the stats dump's "(avail. fs expr node)").
    pub fn free_list_len(&self, l: FreeListKind) -> usize {
        self.free_lists[l as usize].len()
    }

    fn alloc_recycled(
        &mut self,
        l: FreeListKind,
        kind: EntryKind,
        keep_keep: bool,
    ) -> Result<EntryId, IlError> {
        // Entries on a free list may have been freed with their region: skip dead ones.
        while let Some(raw) = self.free_lists[l as usize].pop() {
            let e = Eix::from_raw(raw);
            if !self.is_live(e) || self.kind(e) != kind {
                continue;
            }
            let keep = self.flag(e, Flag::KeepInIl);
            // A recycled entry gets a fresh ID: handles to its previous life go stale.
            let region = self.region_of(e);
            self.release(e);
            let id = self.alloc_in(kind, region);
            let ne = self.eix(id)?;
            // The recycled entry keeps its place in the per-kind list, as the seed's
            // free-listed nodes keep their list link: drop the append alloc_in made.
            if region == RegionIdx::FILE_SCOPE && ne == e {
                self.kind_lists[kind as usize].pop();
            }
            if keep_keep && keep {
                self.set_flag(ne, Flag::KeepInIl, true);
            }
            self.counters.recycled += 1;
            return Ok(id);
        }
        let r = self.target_region(kind)?;
        Ok(self.alloc_in(kind, r))
    }

    /// Copies a constant into another region (`duplicate_constant_to_other_region`): in
    /// place when the regions agree; otherwise a new constant in `to` with the same row
    /// data and children, the original going back to the constant free list.
    pub fn duplicate_constant_to_other_region(
        &mut self,
        id: EntryId,
        to: RegionIdx,
    ) -> Result<EntryId, IlError> {
        let e = self.expect(id, EntryKind::Constant)?;
        if self.region(to).is_none() {
            return Err(IlError::BadRegion(to.raw()));
        }
        if self.region_of(e) == to {
            return Ok(id);
        }
        let nid = self.alloc_in(EntryKind::Constant, to);
        let ne = self.eix(nid)?;
        self.copy_entry_data(e, ne);
        self.free_lists[FreeListKind::Constant as usize].push(e.raw());
        Ok(nid)
    }

    /// Copies row data, strings and edges of `from` into `to` (same kind).
    pub(crate) fn copy_entry_data(&mut self, from: Eix, to: Eix) {
        let k = self.kind(from);
        debug_assert_eq!(k, self.kind(to));
        let (fr, tr) = (self.row(from), self.row(to));
        self.tables.copy_row(k, fr, tr);
        // Strings go into the destination's region.
        self.copy_strings(k, from, to, tr);
        // Edges: copy the whole block as a fresh block at the pool's end.
        let (begin, start, end) = self.block(from);
        let (ob, _, oe) = self.block(to);
        self.edge_garbage += oe - ob;
        let at = self.edges.len();
        self.edges.extend_from_within(begin..end);
        self.cols.start[to.idx()] = (at + (start - begin)) as u32;
        self.cols.pos[to.idx()] = self.cols.pos[from.idx()];
        self.edge_changed(to);
    }

    // ---- bytes ---------------------------------------------------------------------------

    /// Bytes of the per-entry columns for one entry (kind, row, region, generation, block
    /// start, position index, six flag bits rounded up to one byte). The list that holds
    /// the entry ([`Il::list_bytes`]) and the interned position table
    /// ([`Il::position_table_bytes`]) are counted apart.
    pub const fn per_entry_column_bytes() -> usize {
        EntryCols::bytes_per_entry() + 1
    }

    /// Bytes `e` takes in the one list that holds it: a 4-byte slot of its kind's
    /// allocation list at file scope; its share of its function region's runs otherwise.
    pub fn list_bytes(&self, e: Eix) -> f64 {
        let r = self.region_of(e);
        if r == RegionIdx::FILE_SCOPE {
            return 4.0;
        }
        let l = &self.regions[r.idx()].entries;
        l.bytes() as f64 / l.len().max(1) as f64
    }

    /// Bytes of the interned source position table (shared by every entry allocated at
    /// the same position).
    pub fn position_table_bytes(&self) -> usize {
        self.positions.len() * std::mem::size_of::<SourcePos>()
    }

    /// Bytes one live entry of `e`'s kind takes in ilkit's layout: per-entry columns, its
    /// row, and its edge block (its list share apart: [`Il::list_bytes`]).
    pub fn entry_bytes(&self, e: Eix) -> usize {
        let k = self.kind(e);
        let (begin, _, end) = self.block(e);
        self.cols.bytes_per_entry_now() + 1 + Tables::row_bytes(k) + 4 * (end - begin)
    }

    /// Epoch counter for walks that need one (incremented per call).
    pub fn next_epoch(&mut self) -> u64 {
        self.epoch += 1;
        self.epoch
    }
}

impl Il {
    /// A copy of this world with its entries allocated in `order` (every live entry once;
    /// entries missing from `order` are appended in dense order). Returns the new world and
    /// the old-to-new dense index map. Walk order is unchanged (per-kind lists keep their
    /// relative order); memory order follows `order`. Used to restore locality after
    /// churn (pass the walk order) and by benches to age a world (pass a shuffle).
    pub fn relayout(&self, order: &[Eix]) -> (Il, Vec<Eix>) {
        let mut out = Il::new();
        out.tu_copy_mode = self.tu_copy_mode;
        out.compiler_version = self.compiler_version.clone();
        out.time_of_compilation = self.time_of_compilation.clone();
        let mut map = vec![Eix::NONE; self.capacity()];
        let mut region_map: Vec<Option<RegionIdx>> = vec![None; self.regions.len()];
        region_map[0] = Some(RegionIdx::FILE_SCOPE);
        let rest: Vec<Eix> = self.entries().collect();
        for &e in order.iter().chain(rest.iter()) {
            if !self.is_live(e) || !map[e.idx()].is_none() {
                continue;
            }
            let k = self.kind(e);
            let r = self.cols.region.get(e.idx()) as usize;
            let nr = *region_map[r].get_or_insert_with(|| out.open_function_region(None));
            out.cursor = self.pos(e);
            out.cursor_pos = u32::MAX;
            let id = out.alloc_in(k, nr);
            let ne = out.eix(id).expect("a handle just made");
            map[e.idx()] = ne;
            out.tables
                .copy_row_from(&self.tables, k, self.row(e), out.row(ne));
            let strs = self.tables.strings(k, self.row(e));
            for (i, &s) in strs.as_slice().iter().enumerate() {
                if s.is_some() {
                    let ns = out.regions[nr.idx()].strings.push(self.str_bytes(e, s));
                    let row = out.row(ne);
                    out.tables.set_string(k, row, i, ns);
                }
            }
            for (i, f) in self.flags.iter().enumerate() {
                out.flags[i].set(ne.idx(), f.get(e.idx()));
            }
            if self.secondary.contains(e.raw()) {
                out.secondary.insert(ne.raw());
            }
        }
        out.current = RegionIdx::FILE_SCOPE;
        // Edges, remapped; per-kind lists in the old relative order.
        for e in self.entries() {
            let ne = map[e.idx()];
            let l = self.kind(e).layout();
            let kids = self.children(e);
            for (slot, &c) in kids[..l.singles.len()].iter().enumerate() {
                if !c.is_none() {
                    out.replace_child_at(ne, slot, map[c.idx()]);
                }
            }
            for li in 0..l.lists.len() {
                let (off, len) = self.list_pos(e, li as u32);
                for &c in &kids[off..off + len] {
                    out.push_list_eix(ne, li as u32, map[c.idx()]);
                }
            }
            for (i, &r) in self.refs(e).iter().enumerate() {
                if !r.is_none() {
                    out.replace_ref_at(ne, i, map[r.idx()]);
                }
            }
        }
        for (k, list) in self.kind_lists.iter().enumerate() {
            out.kind_lists[k] = list
                .iter()
                .filter(|&&e| self.is_live(e))
                .map(|&e| map[e.idx()])
                .collect();
        }
        out.external_types = self.external_types().map(|e| map[e.idx()]).collect();
        let remap_id = |out: &Il, id: Option<EntryId>| {
            id.and_then(|i| self.eix(i).ok())
                .map(|e| out.id_of(map[e.idx()]))
        };
        out.primary_scope = remap_id(&out, self.primary_scope);
        out.main_routine = remap_id(&out, self.main_routine);
        out.counts = self.counts;
        out.refresh_all_derived();
        out.counters = self.counters;
        out.compact_edges();
        out.debug_verify("relayout");
        (out, map)
    }
}

/// One broken invariant of an [`Il`], found by [`Il::verify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError(pub String);

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Il {
    /// In debug builds, checks [`Il::verify`] after a bulk mutation (region close, entry
    /// frees, relayout, reading a file) on worlds small enough for it to stay cheap.
    ///
    /// # Panics
    /// In debug builds, when an invariant is broken (a bug in ilkit).
    #[inline]
    pub fn debug_verify(&self, after: &str) {
        #[cfg(debug_assertions)]
        if self.capacity() <= 200_000 {
            let errs = self.verify();
            assert!(
                errs.is_empty(),
                "IL invariants broken after {after}: {:?}",
                &errs[..errs.len().min(5)]
            );
        }
        let _ = after;
    }

    /// Checks the world's invariants and reports every violation (never panics):
    /// IDs and dense indices agree, rows point back at their entries, edge blocks are
    /// consistent with their list headers, every edge names a live entry of the field's
    /// kind, per-kind lists hold live file-scope entries once each, region entry lists hold
    /// their region's entries, flag bits only on live entries, the deep copier's kept
    /// block proofs ([`Il::kept_blocks`]) match the entries they name and pin them.
    pub fn verify(&self) -> Vec<VerifyError> {
        let mut errs = Vec::new();
        let n = self.capacity();
        let mut live = 0usize;
        for i in 0..n {
            let e = Eix::new(i);
            let k = self.cols.kind[i];
            if k == EntryKind::None {
                continue;
            }
            live += 1;
            if self.cols.gen[i] & 1 != 1 || self.eix(self.id_of(e)) != Ok(e) {
                errs.push(VerifyError(format!("{e}: its id does not resolve to it")));
            }
            if self.tables.row_eix(k, self.cols.row[i]) != e {
                errs.push(VerifyError(format!(
                    "{e}: row {} of {} belongs to {}",
                    self.cols.row[i],
                    k.name(),
                    self.tables.row_eix(k, self.cols.row[i])
                )));
            }
            let r = self.cols.region.get(i) as usize;
            if !self.regions.get(r).is_some_and(|r| r.live) {
                errs.push(VerifyError(format!("{e}: lives in closed region {r}")));
            }
            let l = k.layout();
            let (nr, nl, ns) = block_shape(k);
            let start = self.cols.start[i] as usize;
            let header = start
                .checked_sub(nl + nr)
                .map(|b| b + nr)
                .filter(|_| start <= self.edges.len());
            let Some(header) = header else {
                errs.push(VerifyError(format!("{e}: edge block out of the pool")));
                continue;
            };
            let list_total: usize = self.edges[header..start].iter().map(|x| x.idx()).sum();
            if start + ns + list_total > self.edges.len() {
                errs.push(VerifyError(format!(
                    "{e}: list headers sum to {list_total}, past the end of the pool"
                )));
                continue;
            }
            let check =
                |c: Eix, target: Option<EntryKind>, field: &str, errs: &mut Vec<VerifyError>| {
                    if c.is_none() {
                        return;
                    }
                    if !self.is_live(c) {
                        errs.push(VerifyError(format!(
                            "{e} ({}).{field}: dangling edge to {c}",
                            k.name()
                        )));
                    } else if let Some(t) = target.filter(|&t| self.kind(c) != t) {
                        errs.push(VerifyError(format!(
                            "{e} ({}).{field}: {c} is a {}, expected {}",
                            k.name(),
                            self.kind(c).name(),
                            t.name()
                        )));
                    }
                };
            let kids = self.children(e);
            for (slot, info) in l.singles.iter().enumerate() {
                check(kids[slot], info.target, info.name, &mut errs);
            }
            for (li, info) in l.lists.iter().enumerate() {
                let (off, len) = self.list_pos(e, li as u32);
                for &c in &kids[off..off + len] {
                    if c.is_none() {
                        errs.push(VerifyError(format!("{e}.{}: none in a list", info.name)));
                    }
                    check(c, info.target, info.name, &mut errs);
                }
            }
            for (slot, info) in l.refs.iter().enumerate() {
                check(self.refs(e)[slot], info.target, info.name, &mut errs);
            }
            if k == EntryKind::Constant && self.share_key(e) != self.compute_share_key(e) {
                errs.push(VerifyError(format!("{e}: its share key is stale")));
            }
        }
        if live != self.live {
            errs.push(VerifyError(format!(
                "{live} live entries but a count of {}",
                self.live
            )));
        }
        if let Some(i) =
            (0..n).find(|&i| (self.cols.gen[i] & 1 == 1) != (self.cols.kind[i] != EntryKind::None))
        {
            errs.push(VerifyError(format!(
                "e{i}: generation {} disagrees with its liveness",
                self.cols.gen[i]
            )));
        }
        let mut seen = BitSet::with_len(n);
        for (k, list) in self.kind_lists.iter().enumerate() {
            for &e in list {
                if !self.is_live(e) {
                    continue; // freed by a region or recycled: skipped by kind_list()
                }
                if self.kind(e) as usize == k
                    && self.region_of(e) == RegionIdx::FILE_SCOPE
                    && !seen.insert(e.idx())
                {
                    errs.push(VerifyError(format!(
                        "{e}: twice in the {} list",
                        EntryKind::ALL[k].name()
                    )));
                }
            }
        }
        for (r, reg) in self.regions.iter().enumerate().filter(|(_, r)| r.live) {
            for e in reg.entries.iter() {
                if self.is_live(e) && self.cols.region.get(e.idx()) as usize != r && r != 0 {
                    errs.push(VerifyError(format!(
                        "{e}: listed in region {r} but lives in {}",
                        self.cols.region.get(e.idx())
                    )));
                }
            }
        }
        for (fi, f) in self.flags.iter().enumerate() {
            if let Some(i) = f
                .iter()
                .find(|&i| i >= n || self.cols.kind[i] == EntryKind::None)
            {
                errs.push(VerifyError(format!(
                    "flag column {fi} has a bit for free index {i}"
                )));
            }
        }
        if let Some(i) = self
            .secondary
            .iter()
            .find(|&i| !self.is_live(Eix::from_raw(i)))
        {
            errs.push(VerifyError(format!(
                "is_in_secondary_il set for free index {i}"
            )));
        }
        // The kept blocks' checks read edge blocks, which the checks above proved sound.
        if errs.is_empty() {
            if let Err(e) = self.verify_kept_blocks() {
                errs.push(e);
            }
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-entry columns are the memory budget of every entry (PERF.md).
    #[test]
    fn hot_row_sizes() {
        assert_eq!(std::mem::size_of::<SourcePos>(), 8);
        assert_eq!(std::mem::size_of::<EntryId>(), 8);
        assert_eq!(std::mem::size_of::<EntryKind>(), 1);
        assert_eq!(Il::per_entry_column_bytes(), 20);
        // The expression row: its entry and one packed word (the supplement is rare).
        assert_eq!(std::mem::size_of::<crate::il::ExprNodeRow>(), 8);
    }

    /// Region indices past 16 bits widen the region column and keep every entry's region.
    #[test]
    fn region_column_widens_past_16_bits() {
        let mut il = Il::new();
        let a = il.open_function_region(None);
        let x = il
            .push_expr(ExprKind::Constant, crate::il::Op::Paren, Eix::NONE, &[])
            .unwrap();
        let mut last = a;
        for _ in 0..70_000 {
            last = il.open_function_region(None);
        }
        assert!(last.raw() > u16::MAX as u32);
        let y = il
            .push_expr(ExprKind::Constant, crate::il::Op::Paren, Eix::NONE, &[])
            .unwrap();
        assert_eq!((il.region_of(x), il.region_of(y)), (a, last));
        assert_eq!(il.entry_bytes(y), il.entry_bytes(x));
        assert_eq!(
            il.cols.bytes_per_entry_now(),
            EntryCols::bytes_per_entry() + 2
        );
        il.close_function_region(last).unwrap();
        assert!(il.eix(il.id_of(x)).is_ok());
        assert_eq!(il.verify(), vec![]);
    }

    /// In-place compaction keeps every block whole whatever the pool order: random worlds
    /// whose list pushes relocate blocks out of dense order (so compaction sorts), with
    /// kinds with and without list headers side by side (a block without lists may begin
    /// where another's header ends).
    #[test]
    fn compaction_keeps_blocks_out_of_order() {
        let kinds = [
            EntryKind::ClassInfo,       // one list, nothing else
            EntryKind::ConstructorInit, // no lists: a single slot and a reference
            EntryKind::Scope,           // lists, singles and references
            EntryKind::Statement,
        ];
        let mut seed = 0x2545F4914F6CDD1Du64;
        let mut rnd = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..200 {
            let mut il = Il::new();
            let mut all = Vec::new();
            for _ in 0..(30 + rnd(60)) {
                let id = il.alloc(kinds[rnd(kinds.len())]).unwrap();
                all.push(il.eix(id).unwrap());
            }
            let lists: Vec<Eix> = all
                .iter()
                .copied()
                .filter(|&e| !il.kind(e).layout().lists.is_empty())
                .collect();
            let inits: Vec<Eix> = all
                .iter()
                .copied()
                .filter(|&e| il.kind(e) == EntryKind::ConstructorInit)
                .collect();
            let mut want: Vec<(Eix, u32, Vec<Eix>)> = Vec::new();
            for _ in 0..40 {
                if lists.is_empty() || inits.is_empty() {
                    break;
                }
                let p = lists[rnd(lists.len())];
                let l = rnd(il.kind(p).layout().lists.len()) as u32;
                let target = il.kind(p).layout().lists[l as usize].target;
                let c = match target {
                    Some(EntryKind::ConstructorInit) | None => inits[rnd(inits.len())],
                    Some(k) => match all.iter().copied().find(|&e| il.kind(e) == k) {
                        Some(e) => e,
                        None => continue,
                    },
                };
                il.push_list_eix(p, l, c);
            }
            for &p in &lists {
                for l in 0..il.kind(p).layout().lists.len() as u32 {
                    let (a, b) = il.list_bounds(p, l);
                    want.push((p, l, il.edges[a..b].to_vec()));
                }
            }
            il.compact_edges_in_place();
            assert_eq!(il.verify(), vec![]);
            for (p, l, items) in want {
                let (a, b) = il.list_bounds(p, l);
                assert_eq!(il.edges[a..b], items[..], "{p} list {l}");
            }
        }
    }

    /// A batch clone of entries of two kinds with strings, interleaved, copies their
    /// strings in `srcs` order (the arena offsets single clones give), and the world
    /// verifies.
    #[test]
    fn batch_clone_copies_strings_in_order() {
        let kinds: Vec<EntryKind> = (0..85u8)
            .filter_map(EntryKind::from_u8)
            .filter(|k| k.has_table() && !k.layout().strings.is_empty())
            .take(2)
            .collect();
        let mut il = Il::new();
        let mut srcs = Vec::new();
        for (i, &k) in [kinds[0], kinds[1], kinds[0]].iter().enumerate() {
            let id = il.alloc(k).unwrap();
            il.set_string(id, 0, format!("s{i}").as_bytes()).unwrap();
            srcs.push(il.eix(id).unwrap());
        }
        let r = il.open_function_region(None);
        let mut out = Vec::new();
        il.clone_many_in(&srcs, r, false, &mut out);
        let mut last = None;
        for (&s, &c) in srcs.iter().zip(&out) {
            assert_eq!(il.string(c, 0), il.string(s, 0));
            let h = il.tables.strings(il.kind(c), il.row(c)).as_slice()[0];
            assert!(last.is_none_or(|l| h.start > l), "arena order follows srcs");
            last = Some(h.start);
        }
        assert_eq!(il.verify(), vec![]);
    }
}
