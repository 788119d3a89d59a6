//! The deep copy engine (seed 002, part 3): `copy_expr_tree`, `copy_list_of_expr_trees`,
//! `copy_constant_full`, `copy_dynamic_init`, `copy_lambda_capture`, `copy_constant`.
//!
//! One iterative engine, [`DeepCopy`], copies any owned subtree of expressions,
//! constants, dynamic inits, lambda captures and subobject paths into a target region,
//! in three steps: a walk of the original (explicit stack) plans the copy, listing every
//! entry to clone in pre-order with the slot its clone goes to (the per-kind rules below
//! decide here, so a bad kind fails before anything is allocated); one world call clones
//! them all, and each clone is written into its parent's clone; last, copied constants
//! go to constant sharing in post-order, children first (when a [`ConstantSharing`] is
//! attached), so they are deduplicated as in the seed (`i_copy_constant_full` ends in
//! `alloc_shareable_constant`). O(nodes + edges) time, O(nodes) heap (and the block
//! scans' marks below: one bit per dense index a block spans, for the fast scan one per
//! dense index below the root, kept between copies), no Rust recursion.
//!
//! An expression tree laid out as a block (its entries in a stretch of dense indices
//! that starts or ends at its root, as front ends lay trees out) is planned by one scan
//! of that stretch instead of the walk, in dense order, and its clones' operand slots
//! are relocated afterwards (`plan_block`); the copy is the same. Tests compare the two
//! plans ([`DeepCopy::walk_only`]).
//!
//! The block fast path: a tree laid out bottom-up as a block with no holes whose edge
//! blocks lie back to back in the pool (what a post-order or level-by-level builder
//! leaves), needing no rule beyond operands and leaf constants, is checked by one scan
//! (`scan_fast`) and cloned whole by `Il::clone_block_in` (one pool append with the
//! operand slots relocated, the per-entry columns as slices when the new slots are one
//! run); its leaf constants follow in one pass that clones them and writes each into
//! its parent's clone (`Il::clone_leaf_constants`). Anything else (sharing,
//! resolve/instantiate/entity flags, other layouts) declines to the general path; the
//! worlds either leaves are equal, entry by entry ([`DeepCopy::without_fast_path`];
//! tests compare them). PERF.md ("Deep copy: block fast path") has the numbers.
//!
//! Per-kind rules (expressions): kinds 0, 3, 4, 16, 19, 20, 22, 30 are shallow (their
//! operands, if any, stay shared, as the seed's "nothing beyond the shallow clone"); kind
//! 18 (substitution slot) becomes the replacement registered for its index (`supplement`)
//! in [`DeepCopy::slots`], when there is one; kind 17 with `COPY_ENTITIES` copies its
//! entity; kinds 5 and 18 copy the dynamic init their `entity` reference names; every
//! other kind copies its operands and its constant. Types are shared, except the
//! `declared_type` of an address constant (the seed's type definition), which is copied
//! once per copy through the substitution list: a type referenced twice in one tree is
//! copied once and both references point at the copy.
//!
//! When sharing finds a canonical constant for a copied one, the copy is left
//! unreferenced in the target region (it goes when the region does).
//!
//! Flags: [`flags::RESOLVE_REFS`] remaps entity references of kinds 2, 3, 7, 19 to
//! entities copied in the same copy; [`flags::MARK_INSTANTIATED`] stamps
//! `is_instantiated` on copied constants and lists the other copies in
//! [`DeepCopy::instantiated`]; [`flags::PRESERVE_SOURCE_POS`]
//! carries source positions over (otherwise copies take the current position).
//!
//! The clones come from one [`Il`] primitive (`clone_many_in`): per clone the row,
//! strings and the whole edge block; the copier then overwrites only the slots of
//! children it copies.

use super::ConstantSharing;
use crate::il::{
    fields as F, BlockLeaf, ConstantKind, Eix, EntryId, EntryKind, ExprKind, ExprNodeRowSlice, Il,
    IlError, KeptBlock, RegionIdx, TakenBlock, NREFS, NSINGLES,
};
use ahash::AHashMap;

/// Copy flags (the seed's bit values).
pub mod flags {
    /// Resolve entity references after copying.
    pub const RESOLVE_REFS: u32 = 0x10;
    /// Copy referenced entities of kind-17 expressions.
    pub const COPY_ENTITIES: u32 = 0x80;
    /// Stamp copies with the instantiation flag.
    pub const MARK_INSTANTIATED: u32 = 0x1000;
    /// Carry source positions over.
    pub const PRESERVE_SOURCE_POS: u32 = 0x5000;
}

const BAD_EXPR: &str = "i_copy_expr_tree: bad expr kind";

/// The plan's parent of the root.
const ROOT: u32 = u32::MAX;
/// Entries not of the tree a block may hold beyond one per tree entry met so far (the
/// clang importer makes types between a tree's expressions); more, and the tree is
/// walked.
const MAX_EXTRA_HOLES: usize = 32;
/// Marks a slot as a reference slot (otherwise a child slot).
const REF: u32 = 1 << 31;

/// [`FAST_CLASS`]: the block fast path declines the kind.
const FAST_DECLINE: u8 = 1;
/// [`FAST_CLASS`]: the kind is shallow ([`ExprKind::is_shallow`]).
const FAST_SHALLOW: u8 = 2;

/// What the block fast path does with each expression kind (by `ExprKind as usize`,
/// padded to 64 so a masked index needs no bounds check, and read with the stored bits,
/// so a pattern naming no kind declines): decline (reclaimed, a kind that copies its
/// entity, no kind), shallow, or copy the operands (0).
static FAST_CLASS: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut n = 0;
    while n < 64 {
        t[n] = FAST_DECLINE;
        if let Some(ek) = ExprKind::from_raw(n as u8) {
            t[n] = if matches!(ek, ExprKind::Reclaimed) || ek.copies_entity() {
                FAST_DECLINE
            } else if ek.is_shallow() {
                FAST_SHALLOW
            } else {
                0
            };
        }
        n += 1;
    }
    t
};

/// An entry to clone and where its clone goes: slot `slot` of the clone of plan entry
/// `parent` ([`ROOT`]: the answer). On the planning walk's stack, `src == Eix::NONE`
/// marks the end of constant `parent`'s subtree.
#[derive(Clone, Copy, Debug)]
struct Visit {
    src: Eix,
    parent: u32,
    slot: u32,
}

/// One slot of `Plan::leaf_memo`.
#[derive(Clone, Copy, Debug, Default)]
struct LeafMemo {
    e: u32,
    scan: u32,
    leaf: bool,
}

/// Slots of `Plan::leaf_memo`.
const LEAF_MEMO: usize = 64;

/// One copy's plan (kept between copies for its buffers). Plan entries are numbered in
/// clone order: when [`DeepCopy::plan_block`] planned a block, `0..block` are its
/// entries in ascending dense order and `block..head` the leaf constants it copies from
/// outside it; then `head + j` is `visits[j]` (the walked entries).
#[derive(Debug, Default)]
struct Plan {
    /// Entries to clone by walk, in pre-order.
    visits: Vec<Visit>,
    /// Each visit's depth below the walk's start (a block entry or the root).
    depth: Vec<u32>,
    /// Entries to clone, in plan order: the block's (by the scan, which lists them
    /// there) and its outside leaf constants first, then the walked ones.
    srcs: Vec<Eix>,
    /// Their clones.
    dst: Vec<Eix>,
    /// Constants (plan entries), in post-order: children before parents, as sharing
    /// needs them.
    constants: Vec<u32>,
    /// Address constants whose declared type goes through the substitution list.
    declared: Vec<u32>,
    /// Kind-17 expressions whose entity is copied.
    entities: Vec<u32>,
    /// Kind-18 slots replaced: (parent, slot, replacement).
    replaced: Vec<Visit>,
    stack: Vec<Visit>,
    /// Entries of the block ([`DeepCopy::plan_block`]); 0 when there is none.
    block: usize,
    /// The block's lowest dense index.
    low: u32,
    /// Block entries with an operand in the block, to relocate (dense indices during the
    /// scan, plan entries once it is done).
    reloc: Vec<u32>,
    /// Leaf constants the block copies (constants with nothing of their own to copy),
    /// cloned without a walk: first those in the block, then those outside it, which
    /// follow the block in the plan. During the scan, those not (yet) in the block, by
    /// dense index; once the scan is done, `src` holds each one's plan entry and
    /// `parent` its parent's.
    leaf_consts: Vec<Visit>,
    /// The leaf constants the block fast path copies ([`DeepCopy::scan_fast`]), parents
    /// as offsets from the block's low end.
    fast_leaves: Vec<BlockLeaf>,
    /// The leaf constants in the block (a prefix of `leaf_consts` once the scan is done).
    block_leaves: Vec<Visit>,
    /// Plan entries before the walked ones: the block and its leaf constants outside it.
    head: usize,
    /// Whether a constant is a leaf, for the constants one scan met (trees share their
    /// canonical constants): direct-mapped by dense index, tagged with the scan.
    leaf_memo: Vec<LeafMemo>,
    /// The scan the memo's valid entries belong to.
    scan: u32,
    /// With holes: plan entry by dense index minus `low` (`u32::MAX` for a hole); empty
    /// when the block's entries are all of `low..low + block`.
    rank: Vec<u32>,
    /// The block scans' marks, by distance from the root.
    marks: ScanMarks,
}

/// One bit per distance from a block scan's root, cleared in O(words set): the bits are
/// all clear between scans.
#[derive(Debug, Default)]
struct ScanMarks {
    words: Vec<u64>,
    /// The words a scan set.
    touched: Vec<u32>,
}

impl ScanMarks {
    #[inline]
    fn is_marked(&self, off: usize) -> bool {
        self.words
            .get(off >> 6)
            .is_some_and(|&w| w & (1u64 << (off & 63)) != 0)
    }

    /// Sets bit `off`; false when it was set already (an operand named twice).
    #[inline(always)]
    fn mark(&mut self, off: usize) -> bool {
        let (w, m) = (off >> 6, 1u64 << (off & 63));
        if w >= self.words.len() {
            self.grow(w);
        }
        let word = &mut self.words[w];
        let old = *word;
        *word = old | m;
        if old == 0 {
            self.touched.push(w as u32);
        }
        old & m == 0
    }

    /// Makes room for word `w` (cold: the words are kept between scans).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, w: usize) {
        self.words.resize(w + 1, 0);
    }

    /// The words, grown to cover distances `0..=max_off`, for a scan that sets bits and
    /// clears them itself (the words it set are not listed).
    fn cover(&mut self, max_off: usize) -> &mut [u64] {
        if max_off >> 6 >= self.words.len() {
            self.grow(max_off >> 6);
        }
        &mut self.words
    }

    /// Clears every bit set since the last clear.
    fn clear(&mut self) {
        for &w in &self.touched {
            self.words[w as usize] = 0;
        }
        self.touched.clear();
    }
}

impl Plan {
    fn clear(&mut self) {
        self.visits.clear();
        self.depth.clear();
        self.srcs.clear();
        self.dst.clear();
        self.constants.clear();
        self.declared.clear();
        self.entities.clear();
        self.replaced.clear();
        self.stack.clear();
        self.reloc.clear();
        self.leaf_consts.clear();
        self.fast_leaves.clear();
        self.block_leaves.clear();
        self.head = 0;
        self.block = 0;
    }

    /// The plan entry of block entry `e` (a dense index).
    #[inline]
    fn plan_entry(&self, e: u32) -> u32 {
        if self.rank.is_empty() {
            e - self.low
        } else {
            self.rank[(e - self.low) as usize]
        }
    }

    /// The plan entry of `e` when it is a block entry.
    #[inline]
    fn block_entry(&self, e: u32) -> Option<u32> {
        let d = e.wrapping_sub(self.low);
        if self.rank.is_empty() {
            (d < self.block as u32).then_some(d)
        } else {
            self.rank
                .get(d as usize)
                .copied()
                .filter(|&k| k != u32::MAX)
        }
    }

    /// Whether constant `c` is a leaf ([`leaf_constant`]), through the memo.
    #[inline(always)]
    fn is_leaf_constant(&mut self, il: &Il, c: Eix) -> bool {
        let slot = &mut self.leaf_memo[c.idx() % LEAF_MEMO];
        if slot.scan == self.scan && slot.e == c.raw() {
            return slot.leaf;
        }
        let leaf = leaf_constant(il, c);
        *slot = LeafMemo {
            e: c.raw(),
            scan: self.scan,
            leaf,
        };
        leaf
    }

    /// Plans a walked entry; returns its plan entry, or the cycle error when its depth
    /// below the walk's start passes `limit` (no path without a cycle is that long).
    fn add(&mut self, v: Visit, limit: usize) -> Result<u32, IlError> {
        let d = match v.parent {
            ROOT => 0,
            k if (k as usize) < self.head => 0,
            k => self.depth[k as usize - self.head] + 1,
        };
        if d as usize > limit {
            return Err(IlError::Cycle(v.src));
        }
        self.visits.push(v);
        self.depth.push(d);
        Ok((self.head + self.visits.len() - 1) as u32)
    }

    /// Queues the owned children of `src` for plan entry `i` (first child on top).
    fn push_children(&mut self, il: &Il, src: Eix, i: u32) {
        let ch = il.children(src);
        self.stack.reserve(ch.len());
        for (slot, &c) in ch.iter().enumerate().rev() {
            if !c.is_none() && owned(il.kind(c)) {
                self.stack.push(Visit {
                    src: c,
                    parent: i,
                    slot: slot as u32,
                });
            }
        }
    }
}

/// The kinds a copy copies rather than shares.
#[inline]
const fn owned(k: EntryKind) -> bool {
    matches!(
        k,
        EntryKind::ExprNode
            | EntryKind::Constant
            | EntryKind::DynamicInit
            | EntryKind::LambdaCapture
            | EntryKind::SubobjectPath
            | EntryKind::TemplateInfo
    )
}

/// [`owned`] by kind number, for the fast scan: one load instead of a chain of compares.
static OWNED: [bool; EntryKind::COUNT] = {
    let mut t = [false; EntryKind::COUNT];
    let mut k = 0;
    while k < EntryKind::COUNT {
        t[k] = owned(EntryKind::ALL[k]);
        k += 1;
    }
    t
};

/// Whether constant `c` has nothing of its own a copy copies: no declared type (kind 6)
/// and no owned child.
#[inline(never)]
fn leaf_constant(il: &Il, c: Eix) -> bool {
    if il.constant(c).constant_kind() == ConstantKind::Address
        && il.child_eix(c, F::CONSTANT_DECLARED_TYPE).is_some()
    {
        return false;
    }
    il.children(c)
        .iter()
        .all(|&x| x.is_none() || !owned(il.kind(x)))
}

/// A deep copy in progress: target region, flags, substitution list, the plan.
#[derive(Debug)]
pub struct DeepCopy<'s> {
    /// Copy flags ([`flags`]).
    pub flags: u32,
    /// Region the copies are allocated in.
    pub region: RegionIdx,
    /// Constant sharing for copied constants (`None`: copies are kept as they are).
    pub sharing: Option<&'s mut ConstantSharing>,
    /// The substitution list: original type definition → its copy in this copy.
    pub subst: AHashMap<Eix, Eix>,
    /// Replacements for kind-18 substitution slots, by index.
    pub slots: AHashMap<u32, Eix>,
    /// Every entry copied: original → copy.
    pub copied: AHashMap<Eix, Eix>,
    /// Copies other than constants stamped by [`flags::MARK_INSTANTIATED`] (constants
    /// carry the `is_instantiated` column; expression rows have no room for one).
    pub instantiated: Vec<Eix>,
    /// Copies planned as a block, without a walk ([`DeepCopy::copy_eix`]).
    pub blocks: u64,
    /// Of those, copies the block fast path made ([`DeepCopy::copy_eix`]).
    pub fast_blocks: u64,
    plan: Plan,
    track: bool,
    walk_only: bool,
    fast: bool,
}

/// A tree the fast path copies whole ([`DeepCopy::scan_fast`]): dense indices
/// `low..low + n`, their edge blocks back to back over `edges[span.0..span.1]`;
/// `heads_inside`: some entry's reference or list length may be a number in `low..low + n`
/// (the block clone's relocation pass would change it, so it is put back).
#[derive(Clone, Copy, Debug)]
struct FastBlock {
    low: Eix,
    n: usize,
    span: (usize, usize),
    heads_inside: bool,
}

impl<'s> DeepCopy<'s> {
    /// A copier into `region` with `flags`, without sharing.
    pub fn new(flags: u32, region: RegionIdx) -> DeepCopy<'s> {
        DeepCopy {
            flags,
            region,
            sharing: None,
            subst: AHashMap::new(),
            slots: AHashMap::new(),
            copied: AHashMap::new(),
            instantiated: Vec::new(),
            blocks: 0,
            fast_blocks: 0,
            plan: Plan::default(),
            track: true,
            walk_only: false,
            fast: true,
        }
    }

    /// Attaches constant sharing: copied constants go through it.
    pub fn with_sharing(mut self, s: &'s mut ConstantSharing) -> DeepCopy<'s> {
        self.sharing = Some(s);
        self
    }

    /// Skips the original→copy map (faster; [`flags::RESOLVE_REFS`] then only sees the
    /// substitution list).
    pub fn without_tracking(mut self) -> DeepCopy<'s> {
        self.track = false;
        self
    }

    /// Plans every copy by a walk of the original, never as a block: the reference the
    /// block plan is tested and benchmarked against (the copies are equal).
    pub fn walk_only(mut self) -> DeepCopy<'s> {
        self.walk_only = true;
        self
    }

    /// Never takes the block fast path (see [`DeepCopy::copy_eix`]): copies planned as a
    /// block go through the general plan and batch clone. The reference the fast path
    /// is tested and benchmarked against (the worlds after either are equal).
    pub fn without_fast_path(mut self) -> DeepCopy<'s> {
        self.fast = false;
        self
    }

    /// Copies the subtree at `src` (an expression, constant, dynamic init, lambda capture,
    /// subobject path or template info); returns the copy of `src`. Any other kind is
    /// shared: the answer is `src` itself.
    ///
    /// In three steps: a walk of the original plans the copy (every entry to clone, in
    /// pre-order, with the slot its clone goes to; the per-kind rules decide here); the
    /// clones are made in that order in one [`Il`] call and each is written into its
    /// parent's slot; then type definitions go through the substitution list, kind-17
    /// entities are copied and constants are shared, children before parents. An
    /// expression tree laid out as a block of dense indices (see `plan_block`) is planned
    /// by one scan of the block instead of a walk, and its clones' operand slots are
    /// relocated; the leaf constants it copies are cloned with it, and what else it owns
    /// outside the block is walked as above.
    ///
    /// The fast path: a tree laid out bottom-up as one block without holes (operands
    /// below their operation, the root last, the edge blocks back to back in the pool,
    /// as a post-order builder leaves them), whose copy needs no rule beyond its
    /// operands and its leaf constants, with no sharing attached and none of the flags
    /// [`flags::RESOLVE_REFS`], [`flags::COPY_ENTITIES`], [`flags::MARK_INSTANTIATED`],
    /// is cloned as a block (`DeepCopy::scan_fast`, `Il::clone_block_in`): the
    /// same world as the general path, which everything else takes. The scan's proof
    /// that a tree is such a block is kept by the world for large trees copied more than
    /// once ([`Il::kept_blocks`]), so their later copies skip it, until an edit of an
    /// entry the proof read.
    ///
    /// # Errors
    /// An expression kind outside 0..=35 (`i_copy_expr_tree: bad expr kind`), a cycle of
    /// child edges under `src` ([`IlError::Cycle`]; a copy would never end), both found
    /// before anything is allocated, or an error from sharing.
    pub fn copy_eix(&mut self, il: &mut Il, src: Eix) -> Result<Eix, IlError> {
        if self.fast_path_applies() && il.kind(src) == EntryKind::ExprNode {
            if let Some(t) = il.take_kept_block(src) {
                return Ok(self.copy_kept(il, t));
            }
            if let Some(b) = self.scan_fast(il, src) {
                if il.should_keep_block(src, b.n) {
                    il.keep_block(KeptBlock {
                        root: src,
                        low: b.low,
                        heads_inside: b.heads_inside,
                        leaves: self.plan.fast_leaves.clone(),
                    });
                }
                return Ok(self.copy_fast(il, b));
            }
        }
        let mut root = src;
        if !self.walk_only && il.kind(src) == EntryKind::ExprNode && self.plan_block(il, src) {
            self.walk(il, &mut root)?;
            self.blocks += 1;
        } else {
            self.plan_copy(il, src, &mut root)?;
        }
        self.clone_planned(il);
        self.relocate_block(il);
        let p = &self.plan;
        for v in &p.leaf_consts {
            place(il, p.dst[v.parent as usize], v.slot, p.dst[v.src.idx()]);
        }
        let p = &self.plan;
        // Each clone into its parent's clone (block entries are relocated instead);
        // replaced kind-18 slots take their replacement (kept in `src`).
        for (v, &c) in p.visits.iter().zip(&p.dst[p.head..]) {
            if v.parent != ROOT {
                place(il, p.dst[v.parent as usize], v.slot, c);
            }
        }
        if p.block > 0 {
            root = p.dst[p.plan_entry(src.raw()) as usize];
        } else if p.visits.first().is_some_and(|v| v.parent == ROOT) {
            root = p.dst[0];
        }
        for v in &p.replaced {
            put(il, &p.dst, v, v.src, &mut root);
        }
        self.finish_specials(il)?;
        if let Some(sh) = self.sharing.as_deref_mut() {
            let p = &self.plan;
            // Leaf constants: shared first, in any order.
            for v in &p.leaf_consts {
                let c = p.dst[v.src.idx()];
                let canon = sh.share_eix(il, c, true)?;
                if canon != c {
                    place(il, p.dst[v.parent as usize], v.slot, canon);
                }
            }
            for &i in &p.constants {
                let c = p.dst[i as usize];
                let canon = sh.share_eix(il, c, true)?;
                if canon != c {
                    put(il, &p.dst, &p.visits[i as usize - p.head], canon, &mut root);
                }
            }
        }
        if self.flags & flags::RESOLVE_REFS != 0 {
            self.resolve_refs(il);
        }
        Ok(root)
    }

    /// Whether the options allow the block fast path (see [`DeepCopy::copy_eix`]).
    fn fast_path_applies(&self) -> bool {
        let rules = flags::RESOLVE_REFS | flags::COPY_ENTITIES | flags::MARK_INSTANTIATED;
        self.fast && !self.walk_only && self.sharing.is_none() && self.flags & rules == 0
    }

    /// Starts a scan: the plan cleared, a new leaf-memo generation (the world may change
    /// between copies).
    fn begin_scan(&mut self) {
        let p = &mut self.plan;
        p.clear();
        if p.leaf_memo.is_empty() {
            p.leaf_memo = vec![LeafMemo::default(); LEAF_MEMO];
        }
        p.scan = p.scan.wrapping_add(1);
        if p.scan == 0 {
            p.leaf_memo.fill(LeafMemo::default());
            p.scan = 1;
        }
    }

    /// The fast path's test: whether the tree at `src` is a block the general path would
    /// plan by `scan_block` downwards with no hole, no walked entry and nothing but leaf
    /// constants outside it, and whose entries' edge blocks lie back to back in the pool
    /// in dense order. One scan down from `src`, as `scan_block`'s (the same marks): every
    /// entry met must be an expression an entry met before named as an operand, of a
    /// kind with no rule beyond its operands, its block ending where the previous one
    /// began; the scan ends when no operand is pending. An operand above its operation,
    /// a shared operand, an entry not named, a non-leaf constant or another owned kind,
    /// or a shallow entry's child inside the block make it decline (the general path then
    /// decides, errors included). Fills `plan.fast_leaves` (parents as offsets from
    /// `low`), in the order `scan_block` lists them. O(block) time.
    fn scan_fast(&mut self, il: &Il, src: Eix) -> Option<FastBlock> {
        // `plan_block` scans upwards when the root's first expression child is above it.
        if operands_above(il, src) {
            return None;
        }
        self.begin_scan();
        let p = &mut self.plan;
        // The marks and the leaf list as locals for the loop: pushes to one do not make
        // the compiler reload the other's buffer (the loop runs once per tree entry).
        let mut marks = std::mem::take(&mut p.marks);
        let mut leaves = std::mem::take(&mut p.fast_leaves);
        let words = marks.cover(src.idx());
        let found = scan_fast_block(il, src.idx(), words, &mut leaves, p);
        p.marks = marks;
        p.fast_leaves = leaves;
        if found.is_none() {
            p.clear();
        }
        found
    }

    /// Copies the block `scan_fast` found: the block cloned whole and its leaf constants
    /// after it, each written into its parent's clone (`Il::clone_block_in`, which
    /// relocates the block's operands and unshares the constants' clones, as the general
    /// path does).
    fn copy_fast(&mut self, il: &mut Il, b: FastBlock) -> Eix {
        // The clones take the current position: `PRESERVE_SOURCE_POS` holds
        // `MARK_INSTANTIATED`'s bit, and the fast path does not apply with it.
        debug_assert_eq!(self.flags & flags::MARK_INSTANTIATED, 0);
        let p = &mut self.plan;
        p.dst.clear();
        il.clone_block_in(
            EntryKind::ExprNode,
            b.low,
            b.n,
            b.span,
            self.region,
            b.heads_inside,
            &p.fast_leaves,
            &mut p.dst,
        );
        if self.track {
            let block = (b.low.raw()..b.low.raw() + b.n as u32).map(Eix::from_raw);
            let srcs = block.chain(p.fast_leaves.iter().map(|l| l.src));
            self.copied.extend(srcs.zip(p.dst.iter().copied()));
        }
        self.blocks += 1;
        self.fast_blocks += 1;
        p.dst[b.n - 1]
    }

    /// Copies a tree the world kept as a block (an earlier `scan_fast` of the world as it
    /// is: `Il::keep_block`), without the scan; the answer goes back to the world.
    fn copy_kept(&mut self, il: &mut Il, mut t: TakenBlock) -> Eix {
        let k = &mut t.block;
        let b = FastBlock {
            low: k.low,
            n: k.len(),
            span: il.kept_block_span(k),
            heads_inside: k.heads_inside,
        };
        #[cfg(debug_assertions)]
        {
            let scanned = self.scan_fast(il, k.root);
            let now = scanned.map(|s| (s.low, s.n, s.span, s.heads_inside));
            assert_eq!(
                now,
                Some((b.low, b.n, b.span, b.heads_inside)),
                "a stale kept block"
            );
            assert_eq!(
                self.plan.fast_leaves, k.leaves,
                "a kept block's stale leaves"
            );
        }
        std::mem::swap(&mut self.plan.fast_leaves, &mut k.leaves);
        let root = self.copy_fast(il, b);
        std::mem::swap(&mut self.plan.fast_leaves, &mut k.leaves);
        il.put_back_kept_block(t);
        root
    }

    /// Walks the original at `src` and fills the plan. `root` becomes the answer when
    /// `src` itself is not cloned (a shared kind).
    fn plan_copy(&mut self, il: &Il, src: Eix, root: &mut Eix) -> Result<(), IlError> {
        let p = &mut self.plan;
        p.clear();
        p.stack.push(Visit {
            src,
            parent: ROOT,
            slot: 0,
        });
        self.walk(il, root)
    }

    /// Plans every visit on the planning stack and what it owns (pre-order).
    fn walk(&mut self, il: &Il, root: &mut Eix) -> Result<(), IlError> {
        let copy_entities = self.flags & flags::COPY_ENTITIES != 0;
        let limit = il.len();
        let p = &mut self.plan;
        while let Some(v) = p.stack.pop() {
            let s = v.src;
            if s.is_none() {
                p.constants.push(v.parent);
                continue;
            }
            match il.kind(s) {
                EntryKind::ExprNode => {
                    let x = il.expr(s);
                    let ek = x.expr_kind();
                    if ek == ExprKind::Reclaimed {
                        return Err(IlError::BadKind(BAD_EXPR));
                    }
                    if ek == ExprKind::DynamicInit2 {
                        let idx = x.supplement();
                        if let Some(&rep) = self.slots.get(&idx) {
                            p.replaced.push(Visit { src: rep, ..v });
                            continue;
                        }
                    }
                    let i = p.add(v, limit)?;
                    if !ek.is_shallow() {
                        p.push_children(il, s, i);
                    }
                    // Only these kinds copy what their entity reference names; a dynamic
                    // init is cloned before the operands (it is queued last).
                    if ek.copies_entity() {
                        match (ek, il.ref_eix(s, F::EXPR_NODE_ENTITY)) {
                            (ExprKind::DynamicInit | ExprKind::DynamicInit2, Some(init))
                                if il.kind(init) == EntryKind::DynamicInit =>
                            {
                                p.stack.push(Visit {
                                    src: init,
                                    parent: i,
                                    slot: REF | F::EXPR_NODE_ENTITY.slot,
                                });
                            }
                            (ExprKind::OpaqueOperand, Some(_)) if copy_entities => {
                                p.entities.push(i)
                            }
                            _ => {}
                        }
                    }
                }
                EntryKind::Constant => {
                    let i = p.add(v, limit)?;
                    // Shared after its subtree: this marker pops once the subtree is done.
                    p.stack.push(Visit {
                        src: Eix::NONE,
                        parent: i,
                        slot: 0,
                    });
                    let c = il.constant(s);
                    if c.constant_kind() == ConstantKind::Address
                        && il.child_eix(s, F::CONSTANT_DECLARED_TYPE).is_some()
                    {
                        p.declared.push(i);
                    }
                    if !c
                        .template_param_constant_kind()
                        .is_some_and(|k| k.copies_nothing())
                    {
                        p.push_children(il, s, i);
                    }
                }
                EntryKind::DynamicInit
                | EntryKind::LambdaCapture
                | EntryKind::SubobjectPath
                | EntryKind::TemplateInfo => {
                    let i = p.add(v, limit)?;
                    p.push_children(il, s, i);
                }
                // Anything else is shared, not copied (only a root gets here: children
                // are queued only when owned).
                _ => *root = s,
            }
        }
        Ok(())
    }

    /// Plans the copy of an expression tree stored as a block, without a walk: a stretch
    /// of dense indices that starts or ends at `src`, with every operand on the far side
    /// of its operation: above it (a front end that allocates an operation before its
    /// operands, as the clang importer and the generator do: `src` first) or below it (a
    /// parser that allocates operands first: `src` last). The block's entries are `src`
    /// and the expression operands block entries copy, each of exactly one block entry,
    /// all of kinds whose copy needs no rule beyond their operands (not 5, 17, 18), plus
    /// leaf constants a block entry copies that the scan meets while they are the last
    /// leaf constant queued (a leaf's constant allocated right next to it, on the far
    /// side). Other entries in the stretch (types the importer made in between,
    /// ...) are holes: at any point of the scan, at most one per block entry met so far and
    /// [`MAX_EXTRA_HOLES`] more.
    ///
    /// One scan away from `src` proves that shape: an entry it reaches is a block entry
    /// if an entry planned before marked it as an operand (no entry is marked twice), and
    /// else a leaf constant or a hole, since every entry that could name it as an operand
    /// is planned already. The block is planned in ascending order; the clones' operand
    /// slots are then relocated into the block's clones ([`DeepCopy::relocate_block`]).
    /// Owned children outside the block (constants, ...) go on the planning stack for
    /// [`DeepCopy::walk`].
    ///
    /// Returns false, with the plan empty, when the tree at `src` is not such a block; the
    /// scan then stopped at the first entry that broke the shape or the hole budget, so it
    /// reads O(tree) entries. Its marks take one bit per dense index between `src` and
    /// the farthest operand it met.
    fn plan_block(&mut self, il: &Il, src: Eix) -> bool {
        // The side the root's first expression operand lies on decides the scan's way.
        if operands_above(il, src) {
            self.scan_block::<true>(il, src)
        } else {
            self.scan_block::<false>(il, src)
        }
    }

    /// [`DeepCopy::plan_block`]'s scan, upwards (`UP`: operands above their operation)
    /// or downwards from `src`.
    fn scan_block<const UP: bool>(&mut self, il: &Il, src: Eix) -> bool {
        self.begin_scan();
        let p = &mut self.plan;
        let cols = il.columns();
        let ek_col = il.expr_columns();
        let root = src.idx();
        let n = cols.kind.len();
        // Distance from the root.
        let dist = |e: usize| if UP { e - root } else { root - e };
        // Block entries marked as an operand and not yet planned (the root counts).
        let mut pending = 1usize;
        let mut holes = 0usize;
        let mut i = root;
        let ok = loop {
            let off = dist(i);
            let marked = i == root || p.marks.is_marked(off);
            if !marked {
                // A constant the block entry just planned copies (its last child queued
                // for the walk), with nothing of its own to copy, is a block entry too;
                // anything else is not the tree's (every entry that could name it as an
                // operand is planned already): a hole, a few of which are allowed.
                if p.leaf_consts.last().is_some_and(|v| v.src.idx() == i) {
                    p.block_leaves.extend(p.leaf_consts.pop());
                    p.srcs.push(Eix::new(i));
                } else {
                    holes += 1;
                    if holes > p.srcs.len() + MAX_EXTRA_HOLES {
                        break false;
                    }
                }
            } else {
                if cols.kind[i] != EntryKind::ExprNode {
                    break false;
                }
                let ek = ek_col.expr_kind(cols.row[i] as usize);
                if ek == ExprKind::Reclaimed || ek.copies_entity() {
                    break false;
                }
                p.srcs.push(Eix::new(i));
                pending -= 1;
                if !ek.is_shallow() {
                    let before = pending;
                    let Some(ch) = cols.children(i) else {
                        break false;
                    };
                    for (slot, &c) in ch.iter().enumerate() {
                        if c.is_none() {
                            continue;
                        }
                        let ck = cols.kind[c.idx()];
                        if ck == EntryKind::ExprNode {
                            if (UP && c.idx() <= i) || (!UP && c.idx() >= i) {
                                // On the wrong side of its parent: not a block (nor, if
                                // equal, a tree).
                                pending = usize::MAX;
                                break;
                            }
                            if !p.marks.mark(dist(c.idx())) {
                                // Shared operand: a DAG, not a tree.
                                pending = usize::MAX;
                                break;
                            }
                            pending += 1;
                        } else if owned(ck) {
                            // Parent by dense index until the plan's order is known.
                            let v = Visit {
                                src: c,
                                parent: i as u32,
                                slot: slot as u32,
                            };
                            if ck == EntryKind::Constant && p.is_leaf_constant(il, c) {
                                p.leaf_consts.push(v);
                            } else {
                                p.stack.push(v);
                            }
                        }
                    }
                    if pending == usize::MAX {
                        break false;
                    }
                    if pending != before {
                        p.reloc.push(i as u32);
                    }
                }
                if pending == 0 {
                    break true;
                }
            }
            if UP {
                if i + 1 == n {
                    break false;
                }
                i += 1;
            } else {
                if i == 0 {
                    break false;
                }
                i -= 1;
            }
        };
        // Only the words marked are cleared: O(marks), however far an operand was.
        p.marks.clear();
        if !ok {
            p.clear();
            return false;
        }
        // Plan entries in ascending dense order: the clones' edge blocks are then copied
        // in pool order. From here on, parents and relocated entries are plan entries.
        if !UP {
            p.srcs.reverse();
        }
        let low = p.srcs[0].raw();
        p.block = p.srcs.len();
        p.low = low;
        p.rank.clear();
        if holes > 0 {
            p.rank.resize(dist(i) + 1, u32::MAX);
            for (k, &m) in p.srcs.iter().enumerate() {
                p.rank[(m.raw() - low) as usize] = k as u32;
            }
        }
        for k in 0..p.stack.len() {
            p.stack[k].parent = p.plan_entry(p.stack[k].parent);
        }
        // Leaf constants: the block's first (their plan entries are block entries),
        // then the others, after the block.
        let outside = std::mem::take(&mut p.leaf_consts);
        let mut leaves = std::mem::take(&mut p.block_leaves);
        for v in &mut leaves {
            v.src = Eix::from_raw(p.plan_entry(v.src.raw()));
        }
        p.head = p.block;
        for v in outside {
            p.srcs.push(v.src);
            leaves.push(Visit {
                src: Eix::new(p.head),
                ..v
            });
            p.head += 1;
        }
        for v in &mut leaves {
            v.parent = p.plan_entry(v.parent);
        }
        p.leaf_consts = leaves;
        for k in 0..p.reloc.len() {
            p.reloc[k] = p.plan_entry(p.reloc[k]);
        }
        true
    }

    /// Points the operand slots of the block's clones at the clones of those operands:
    /// an operand slot of a copying block entry naming a block entry takes that entry's
    /// clone.
    fn relocate_block(&self, il: &mut Il) {
        let p = &self.plan;
        for &k in &p.reloc {
            for c in il.children_mut(p.dst[k as usize]) {
                if let Some(j) = p.block_entry(c.raw()) {
                    *c = p.dst[j as usize];
                }
            }
        }
    }

    /// Clones every planned entry, in plan order, with the flags' per-copy stamps.
    fn clone_planned(&mut self, il: &mut Il) {
        let preserve = self.flags & flags::PRESERVE_SOURCE_POS == flags::PRESERVE_SOURCE_POS;
        let mark = self.flags & flags::MARK_INSTANTIATED != 0;
        let p = &mut self.plan;
        // The block and its outside leaf constants are in `srcs` already.
        p.srcs.extend(p.visits.iter().map(|v| v.src));
        il.clone_many_in(&p.srcs, self.region, preserve, &mut p.dst);
        if self.track {
            self.copied
                .extend(p.srcs.iter().copied().zip(p.dst.iter().copied()));
        }
        // Copies are not canonical constants (until sharing says so).
        let leaves = p.leaf_consts.iter().map(|v| v.src.raw());
        for i in p.constants.iter().copied().chain(leaves) {
            let mut c = il.constant_mut(p.dst[i as usize]);
            // Through the setters only when a value changes (each recomputes the key).
            if c.view().is_shared() {
                c.set_is_shared(false);
            }
            if mark && !c.view().is_instantiated() {
                c.set_is_instantiated(true);
            }
        }
        if mark {
            // Expression rows stay 12 bytes: instantiated expressions are listed instead.
            self.instantiated.extend(
                p.dst
                    .iter()
                    .copied()
                    .filter(|&d| il.kind(d) != EntryKind::Constant),
            );
        }
    }

    /// Type definitions of address constants through the substitution list (a type
    /// referenced twice in one copy is copied once), and the entities of kind-17
    /// expressions under [`flags::COPY_ENTITIES`].
    fn finish_specials(&mut self, il: &mut Il) -> Result<(), IlError> {
        let p = &self.plan;
        for &i in &p.declared {
            let dst = p.dst[i as usize];
            let Some(td) = il.child_eix(dst, F::CONSTANT_DECLARED_TYPE) else {
                continue;
            };
            let copy = match self.subst.get(&td) {
                Some(&c) => c,
                None => {
                    let id = il.alloc_in(EntryKind::Type, RegionIdx::FILE_SCOPE);
                    let c = il.eix(id)?;
                    il.copy_entry_data(td, c);
                    self.subst.insert(td, c);
                    c
                }
            };
            il.replace_child_at(dst, F::CONSTANT_DECLARED_TYPE.slot as usize, copy);
        }
        for &i in &p.entities {
            let dst = p.dst[i as usize];
            let Some(e) = il.ref_eix(dst, F::EXPR_NODE_ENTITY) else {
                continue;
            };
            let id = il.alloc_same_region_as(il.kind(e), il.id_of(e))?;
            let ne = il.eix(id)?;
            il.copy_entry_data(e, ne);
            self.copied.insert(e, ne);
            il.replace_ref_at(dst, F::EXPR_NODE_ENTITY.slot as usize, ne);
        }
        Ok(())
    }

    fn resolve_refs(&mut self, il: &mut Il) {
        if self.copied.is_empty() {
            return;
        }
        let copies: Vec<Eix> = self.copied.values().copied().collect();
        for c in copies {
            if il.kind(c) != EntryKind::ExprNode {
                continue;
            }
            use ExprKind as X;
            if !matches!(
                il.expr(c).expr_kind(),
                X::Constant | X::Variable | X::NewDelete | X::Routine
            ) {
                continue;
            }
            if let Some(e) = il.ref_eix(c, F::EXPR_NODE_ENTITY) {
                if let Some(&n) = self.copied.get(&e) {
                    il.replace_ref_at(c, F::EXPR_NODE_ENTITY.slot as usize, n);
                }
            }
        }
    }
}

/// [`DeepCopy::scan_fast`]'s scan down from dense index `root`: `marks` (a bit per
/// distance from the root, covering `0..=root`) clear on entry and on return, leaf
/// constants pushed to `leaves` (parents as offsets from the block's low end). `None`
/// when the tree is not such a block.
///
/// The expression node's block shape is the schema's (`fast_scan_knows_the_expr_shape`
/// checks it): single slots (type, constant), then the operand list. A single slot is
/// classified by its target's kind (shared: skipped; a leaf constant: listed; anything
/// else owned: decline). An operand is only marked: whether it is an expression is
/// checked when the scan reaches it (it lies below its operation, and every operand must
/// lie in the block), so operands cost no kind load.
#[inline(never)]
fn scan_fast_block(
    il: &Il,
    root: usize,
    marks: &mut [u64],
    leaves: &mut Vec<BlockLeaf>,
    memo: &mut Plan,
) -> Option<FastBlock> {
    let cols = il.columns();
    let (kind_all, edges) = (cols.kind, cols.edges);
    // Cut to `root + 1`: every entry the scan visits lies at or below the root.
    let kind = kind_all.get(..=root)?;
    let row = cols.row.get(..=root)?;
    let word = il.expr_columns().word;
    let ns = NSINGLES[EntryKind::ExprNode as usize] as usize;
    let nr = NREFS[EntryKind::ExprNode as usize] as usize;
    // Marks are by distance from the root, a bit each; the word last marked in is kept
    // here (`cw`, `cv`) and stored when another is marked in: an operation's operands
    // usually share a word, and marking them through memory made each mark wait for the
    // previous one's store. The root's own mark (0) completes the first word.
    let (mut cw, mut cv) = (0usize, *marks.first()? | 1);
    // Entries named as operands and not yet met (the root counts).
    let mut pending = 1usize;
    // The lowest operand named (every one must lie in the block).
    let mut lowest = root;
    // Where the root's edge block ends (the kind is checked again in the loop).
    let root_end = match kind[root] {
        EntryKind::ExprNode => cols.block_span_as(EntryKind::ExprNode, root).map(|b| b.2),
        _ => None,
    };
    // One past the highest child at or below the root of a shallow entry (its slot is
    // not relocated by the general path: inside the block it would be); 0 for none.
    let mut shallow_hi = 0usize;
    // One past the highest reference or list length at or below the root (read as
    // dense indices); 0 for none.
    let mut heads_hi = 0usize;
    let mut i = root;
    // Every mark set is at a distance of at most `root - lowest` (an operand is marked,
    // then taken into `lowest`), so those are cleared at the end, whichever way the scan
    // ends.
    let found = 'scan: {
        let Some(root_end) = root_end else {
            break 'scan None;
        };
        // Where the block of the entry above began (its predecessor must end there); for
        // the root, where its own block ends.
        let mut next_begin = root_end;
        loop {
            if kind[i] != EntryKind::ExprNode {
                break 'scan None;
            }
            let Some(&w) = word.get(row[i] as usize) else {
                break 'scan None;
            };
            let class = FAST_CLASS[ExprNodeRowSlice::expr_kind_bits(w) as usize & 63];
            if class == FAST_DECLINE {
                break 'scan None;
            }
            let Some((b, s, e)) = cols.block_span_as(EntryKind::ExprNode, i) else {
                break 'scan None;
            };
            let ch = &edges[s..e];
            if e != next_begin {
                break 'scan None;
            }
            next_begin = b;
            // References by value; list lengths (small) only by their largest, which
            // puts them back whenever one could lie in the block.
            let (refs, lens) = edges[b..s].split_at(nr);
            for &h in refs {
                let h = h.idx();
                heads_hi = heads_hi.max(if h <= root { h + 1 } else { 0 });
            }
            for &h in lens {
                heads_hi = heads_hi.max(h.idx() + 1);
            }
            if class == FAST_SHALLOW {
                // `Eix::NONE` lies past every root.
                for &c in ch {
                    if c.idx() <= root {
                        shallow_hi = shallow_hi.max(c.idx() + 1);
                    }
                }
            } else {
                let (singles, ops) = ch.split_at(ns);
                for (slot, &c) in singles.iter().enumerate() {
                    if c.is_none() {
                        continue;
                    }
                    let Some(&ck) = kind_all.get(c.idx()) else {
                        break 'scan None;
                    };
                    if !OWNED[ck as usize] {
                        continue;
                    }
                    if ck != EntryKind::Constant || !memo.is_leaf_constant(il, c) {
                        break 'scan None;
                    }
                    leaves.push(BlockLeaf {
                        src: c,
                        parent: i as u32,
                        slot: slot as u32,
                    });
                }
                // `Eix::NONE` is not below any entry.
                for &c in ops {
                    let c = c.idx();
                    if c >= i {
                        break 'scan None;
                    }
                    let off = root - c;
                    let (w, m) = (off >> 6, 1u64 << (off & 63));
                    if w != cw {
                        marks[cw] = cv;
                        cw = w;
                        cv = marks[w];
                    }
                    if cv & m != 0 {
                        break 'scan None;
                    }
                    cv |= m;
                    lowest = lowest.min(c);
                }
                pending += ops.len();
            }
            pending -= 1;
            if pending == 0 {
                break;
            }
            let Some(next) = i.checked_sub(1) else {
                break 'scan None;
            };
            i = next;
            // An entry must be named by one above it. Checked a word of marks at a time
            // (the entries of the word just left all marked), and for the last word by
            // counting at the end: no operand is named twice, all lie in the block, and
            // there are as many as entries below the root, so every one is named.
            let d = root - i;
            if d & 63 == 0 {
                let k = (d >> 6) - 1;
                if (if k == cw { cv } else { marks[k] }) != u64::MAX {
                    break 'scan None;
                }
            }
        }
        if lowest < i || shallow_hi > i {
            break 'scan None;
        }
        for v in leaves.iter_mut() {
            v.parent -= i as u32;
        }
        Some(FastBlock {
            low: Eix::new(i),
            n: root - i + 1,
            span: (next_begin, root_end),
            heads_inside: heads_hi > i,
        })
    };
    // Every word stored holds the root's mark or an operand's taken into `lowest`, so the
    // range covers it; the kept word is not stored (its memory is cleared with the rest).
    marks[..=(root - lowest) >> 6].fill(0);
    found
}

/// Whether `src`'s first expression child lies above it (a tree laid out top-down).
fn operands_above(il: &Il, src: Eix) -> bool {
    il.children(src)
        .iter()
        .find(|c| !c.is_none() && il.kind(**c) == EntryKind::ExprNode)
        .is_some_and(|c| c.raw() > src.raw())
}

/// Writes `c` into `slot` of `parent` (a reference slot when `REF` is set).
#[inline]
fn place(il: &mut Il, parent: Eix, slot: u32, c: Eix) {
    if slot & REF != 0 {
        il.replace_ref_at(parent, (slot & !REF) as usize, c);
    } else {
        il.replace_child_at(parent, slot as usize, c);
    }
}

/// Puts `c` where `v` says: the answer (`root`) for the root, else its slot in the clone
/// of its parent (`dst`: the clones by plan entry).
fn put(il: &mut Il, dst: &[Eix], v: &Visit, c: Eix, root: &mut Eix) {
    if v.parent == ROOT {
        *root = c;
    } else {
        place(il, dst[v.parent as usize], v.slot, c);
    }
}

fn copy_checked(
    il: &mut Il,
    src: EntryId,
    kind: EntryKind,
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    let e = il.eix(src)?;
    if il.kind(e) != kind {
        return Err(IlError::WrongTarget {
            expected: kind,
            found: il.kind(e),
        });
    }
    let region = il.current_region();
    let mut cp = DeepCopy::new(flags, region);
    cp.sharing = sharing;
    let out = cp.copy_eix(il, e)?;
    Ok(il.id_of(out))
}

/// `copy_expr_tree`: a deep copy of an expression tree into the current region.
///
/// # Errors
/// A stale or non-expression `expr`; a bad expression kind in the tree.
pub fn copy_expr_tree(
    il: &mut Il,
    expr: EntryId,
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    copy_checked(il, expr, EntryKind::ExprNode, flags, sharing)
}

/// `copy_list_of_expr_trees`: copies each expression of a list, in order, with one
/// substitution list for the whole list.
///
/// # Errors
/// As [`copy_expr_tree`].
pub fn copy_list_of_expr_trees(
    il: &mut Il,
    list: &[EntryId],
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<Vec<EntryId>, IlError> {
    let region = il.current_region();
    let mut cp = DeepCopy::new(flags, region);
    cp.sharing = sharing;
    let mut out = Vec::with_capacity(list.len());
    for &x in list {
        let e = il.eix(x)?;
        let c = cp.copy_eix(il, e)?;
        out.push(il.id_of(c));
    }
    Ok(out)
}

/// `copy_constant_full`: a deep copy of a constant (aggregate elements, sub-constants,
/// dynamic inits, embedded expressions, type definitions through the substitution list),
/// passed through `sharing` when given.
///
/// # Errors
/// A stale or non-constant `c`; a bad kind inside.
pub fn copy_constant_full(
    il: &mut Il,
    c: EntryId,
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    copy_checked(il, c, EntryKind::Constant, flags, sharing)
}

/// `copy_constant`: [`copy_constant_full`] with flags 0.
///
/// # Errors
/// As [`copy_constant_full`].
pub fn copy_constant(
    il: &mut Il,
    c: EntryId,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    copy_constant_full(il, c, 0, sharing)
}

/// `copy_dynamic_init`: a deep copy of a dynamic initializer (its expression and
/// constant); the variable and routine references are shared.
///
/// # Errors
/// A stale or non-dynamic-init `init`.
pub fn copy_dynamic_init(
    il: &mut Il,
    init: EntryId,
    flags: u32,
    sharing: Option<&mut ConstantSharing>,
) -> Result<EntryId, IlError> {
    copy_checked(il, init, EntryKind::DynamicInit, flags, sharing)
}

/// `copy_lambda_capture`: copies a lambda capture (its init expression deep-copied, the
/// captured variable shared).
///
/// # Errors
/// A stale or non-capture `capture`.
pub fn copy_lambda_capture(il: &mut Il, capture: EntryId, flags: u32) -> Result<EntryId, IlError> {
    copy_checked(il, capture, EntryKind::LambdaCapture, flags, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path's kind table says what `shallow` and `copies_entity` say, for every
    /// expression kind.
    #[test]
    fn fast_class_matches_the_kind_rules() {
        for n in 0..64u8 {
            let Some(ek) = ExprKind::from_raw(n) else {
                assert_eq!(FAST_CLASS[n as usize], FAST_DECLINE);
                continue;
            };
            let want = if ek == ExprKind::Reclaimed || ek.copies_entity() {
                FAST_DECLINE
            } else if ek.is_shallow() {
                FAST_SHALLOW
            } else {
                0
            };
            assert_eq!(FAST_CLASS[ek as usize & 63], want, "{ek:?}");
        }
    }

    /// What `scan_fast_block` assumes of the expression node's block: its children are
    /// its single slots (type and constant), then one list, the operands, of expressions.
    #[test]
    fn fast_scan_knows_the_expr_shape() {
        let x = EntryKind::ExprNode as usize;
        assert_eq!(NSINGLES[x], 2);
        assert_eq!(crate::il::NLISTS[x], 1);
        const { assert!(F::EXPR_NODE_TYPE.slot < 2 && F::EXPR_NODE_CONSTANT.slot < 2) };
        assert_eq!(F::EXPR_NODE_OPERANDS.list, 0);
        assert_eq!(F::EXPR_NODE_OPERANDS.target, Some(EntryKind::ExprNode));
    }

    /// Marks: set bits read back, a second mark of a bit says so, and a clear leaves
    /// every word zero; the fast scan's words cover the distances asked for.
    #[test]
    fn scan_marks_mark_and_clear() {
        let mut m = ScanMarks::default();
        for off in 0..64 {
            assert!(m.words.first().is_none_or(|&w| w != u64::MAX));
            assert!(m.mark(off));
        }
        assert_eq!(m.words[0], u64::MAX);
        assert!(!m.mark(5));
        assert!(m.mark(1000));
        assert!(m.is_marked(1000) && !m.is_marked(999));
        m.clear();
        assert!(m.words.iter().all(|&w| w == 0));
        assert!(m.touched.is_empty());
        let words = m.cover(200);
        assert!(words.len() > 200 / 64 && words.iter().all(|&w| w == 0));
    }
}
