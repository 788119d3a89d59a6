//! Constant sharing (seed 002, part 2) and the deep copy engine (part 3, [`copy`]).
//!
//! [`ConstantSharing`] owns the table of canonical constants: every shareable constant
//! allocated through [`ConstantSharing::alloc_shareable_constant`] is looked up by a
//! structural hash ([`constant_hash`], ahash over the fields
//! [`Comparer::compare_constants`] reads); candidates with the same hash are confirmed by
//! `compare_constants` (flags 0), so sharing never merges two constants the comparison
//! calls different. A hit returns the canonical constant; a miss copies the local constant
//! into the file-scope region, stamps `is_shared`, runs [`fixup_constant_references`] and
//! records it.
//!
//! # Table
//! The seed's 2039 prime-sized chained buckets with MRU reordering become open addressing
//! with linear probing over a power-of-two slot array of `u32` indices into a dense
//! `(hash, constant)` vector (load ≤ 1/2). In front of it, leaf constants (integer,
//! float, complex, imaginary) go through an exact-key memo (kind, flags, type entry,
//! value, value2 → canonical) that answers repeats without a comparison; string
//! literals key on their length and a hash of their bytes, and a hit is confirmed by
//! comparing the bytes with the canonical's. The memo only ever returns what the
//! structural lookup chose for an identical key. The full 64-bit
//! hash is compared before
//! `compare_constants`, so comparisons ≈ hits + true collisions; MRU reordering buys
//! nothing there. Lookup is O(1) expected; the table holds 8 + 4·2 bytes per canonical
//! constant at most. The five counters are [`SharingCounters`] (printed by
//! `il::stats::dump_sharing_stats`).
//!
//! # Invariants (checked by [`ConstantSharing::verify`])
//! - every canonical constant is live, a constant, in file scope, `is_shared`, and its
//!   recorded hash is `constant_hash` of its current fields.
//! - no two canonical constants compare equal.

pub mod check;
pub mod copy;

/// Streams this long share on the rayon pool ([`ConstantSharing::share_many`]).
pub const PARALLEL_SHARE_MIN: usize = 1 << 16;
/// Constants a parallel stream shares on one thread first, to fill the memo.
const SHARE_WARM_UP: usize = 1 << 14;
/// The largest parallel round.
const SHARE_ROUND_MAX: usize = 1 << 18;
/// Constants per rayon task in a round.
const SHARE_TASK: usize = 1 << 13;

use crate::compare::{self, type_shape, Comparer};
use crate::il::stats::SharingCounters;
use crate::il::{
    fields as F, AddressKind, ConstantKind, Eix, EntryId, EntryKind, Il, IlError, RegionIdx,
    NO_SHARE_KEY, SHARE_KEY_FILE_SCOPE,
};
use std::hash::{BuildHasher, Hasher};

/// Which constants may be shared (the seed's three sharing-mode bytes, all on by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharingConfig {
    /// Sharing enabled at all (`dword_126EE48`).
    pub enabled: bool,
    /// String literals shared (`dword_126E1C0`).
    pub strings: bool,
}

impl Default for SharingConfig {
    fn default() -> Self {
        SharingConfig {
            enabled: true,
            strings: true,
        }
    }
}

const EMPTY: u32 = u32::MAX;

/// The constant sharing table. See the module docs.
#[derive(Clone, Debug)]
pub struct ConstantSharing {
    /// What may be shared.
    pub config: SharingConfig,
    /// The five counters.
    pub counters: SharingCounters,
    slots: Vec<u32>,
    canon: Vec<(u64, Eix)>,
    cmp: Comparer,
    hasher: ahash::RandomState,
    memo: LeafMemo,
}

/// Exact-key memo in front of the structural table for leaf constants (integer, float,
/// complex, imaginary without children besides the type): key = the constant's share
/// key (kind, flags, type entry, value; `il::derived`) → the canonical constant
/// `compare_constants` chose for that key.
/// Identical keys imply equal constants, so a memo hit needs no comparison; different keys
/// of equal constants (an equivalent type entry) just miss and take the structural path.
/// Open addressing, load ≤ 1/2, keys inline.
#[derive(Clone, Debug)]
struct LeafMemo {
    slots: Vec<MemoSlot>,
    len: usize,
}

/// A memo slot: key and canonical constant on one 32-byte line segment, so a hit reads
/// one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct MemoSlot {
    key: [u64; 2],
    val: Eix,
}

const NO_KEY: [u64; 2] = [u64::MAX; 2];
const EMPTY_SLOT: MemoSlot = MemoSlot {
    key: NO_KEY,
    val: Eix::NONE,
};

/// ahash's folded multiply, the mixing step of the memo's hash.
#[inline]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = (a as u128) * (b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

#[inline]
fn memo_hash(k: &[u64; 2]) -> u64 {
    let h = fold_mul(k[0] ^ 0x243f_6a88_85a3_08d3, k[1] ^ 0x1319_8a2e_0370_7344);
    h ^ (h >> 29)
}

impl LeafMemo {
    fn new() -> LeafMemo {
        LeafMemo {
            slots: vec![EMPTY_SLOT; 1024],
            len: 0,
        }
    }

    #[inline(always)]
    fn get(&self, k: &[u64; 2]) -> Option<Eix> {
        let mask = self.slots.len() - 1;
        let mut i = memo_hash(k) as usize & mask;
        loop {
            let s = &self.slots[i];
            if s.key == *k {
                return Some(s.val);
            }
            if s.key == NO_KEY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Records `k → v` unless `k` is there already (an answer never changes).
    fn insert(&mut self, k: [u64; 2], v: Eix) {
        if (self.len + 1) * 2 > self.slots.len() {
            let n = self.slots.len() * 2;
            let old = std::mem::replace(&mut self.slots, vec![EMPTY_SLOT; n]);
            self.len = 0;
            for s in old {
                if s.key != NO_KEY {
                    self.insert(s.key, s.val);
                }
            }
        }
        let mask = self.slots.len() - 1;
        let mut i = memo_hash(&k) as usize & mask;
        while self.slots[i].key != NO_KEY {
            if self.slots[i].key == k {
                return;
            }
            i = (i + 1) & mask;
        }
        self.slots[i] = MemoSlot { key: k, val: v };
        self.len += 1;
    }
}

/// The memo key of a leaf constant, or `None` when `c` is not a plain shareable leaf:
/// the constant's share key (`il::derived`, kept by the world), string literals only when
/// `strings` are shared. A string's key does not imply equality, so a hit is confirmed
/// against the canonical constant's bytes ([`string_hit`]).
#[inline(always)]
fn leaf_key(il: &Il, c: Eix, strings: bool) -> Option<[u64; 2]> {
    memo_key(il.share_key(c), strings)
}

/// `key` as a memo key (its file-scope bit cleared): none for [`NO_SHARE_KEY`], and none
/// for a string literal unless `strings` are shared.
#[inline(always)]
fn memo_key(key: [u64; 2], strings: bool) -> Option<[u64; 2]> {
    let kind = key[0] & 0xff;
    if key == NO_SHARE_KEY || (!strings && kind == ConstantKind::String as u64) {
        return None;
    }
    Some([key[0] & !SHARE_KEY_FILE_SCOPE, key[1]])
}

/// The `text_len` bytes of a string constant.
#[inline]
fn string_text(il: &Il, c: Eix) -> &[u8] {
    il.string_text(c)
}

/// Whether a memo hit `canon` for the string constant `c` really holds the same bytes.
#[inline]
fn string_hit(il: &Il, c: Eix, canon: Eix) -> bool {
    string_text(il, c) == string_text(il, canon)
}

impl Default for ConstantSharing {
    fn default() -> Self {
        ConstantSharing::new()
    }
}

/// `constant_is_shareable`. ilkit constants carry no parent back-pointer, so the seed's
/// "has parent" case is an already-canonical constant (`is_shared`), which is shareable.
/// Blocking for the rest: sharing off; an associated entry (an `expr` child, outside
/// kind 12); auxiliary data (a `template_info` child); flag bit 0x02 in `ptm_flags`. Then
/// by kind: strings follow [`SharingConfig::strings`]; addresses unless they carry a
/// subobject path or are sub-kind 4 with data (`value2 != 0`); pointer-to-member (the
/// seed's "template argument", 7) without `template_info`; aggregates (10) and template
/// parameter constants (12) never; everything else yes.
pub fn constant_is_shareable(il: &Il, config: &SharingConfig, c: Eix) -> bool {
    if !config.enabled || il.kind(c) != EntryKind::Constant {
        return false;
    }
    let t = il.constant(c);
    if t.is_shared() {
        return true;
    }
    let k = t.constant_kind();
    let ch = il.children(c);
    if (k != ConstantKind::TemplateParam && !ch[F::CONSTANT_EXPR.slot as usize].is_none())
        || !ch[F::CONSTANT_TEMPLATE_INFO.slot as usize].is_none()
        || t.ptm_flags() & 0x02 != 0
    {
        return false;
    }
    match k {
        ConstantKind::String => config.strings,
        ConstantKind::Address => {
            il.child_eix(c, F::CONSTANT_SUBOBJECT_PATH).is_none()
                && !(t.address_kind() == Some(AddressKind::Typeid) && t.value2() != 0)
        }
        ConstantKind::Aggregate | ConstantKind::TemplateParam => false,
        _ => true,
    }
}

/// The structural hash of a constant: ahash over exactly the fields whose inequality
/// makes `compare_constants` (flags 0) return false, so equal constants hash equal. Child
/// entries contribute only their kind (entity equality goes through sharing symbols and
/// type equivalence, which identities cannot hash).
pub fn constant_hash(il: &Il, state: &ahash::RandomState, c: Eix) -> u64 {
    use ConstantKind as C;
    let t = il.constant(c);
    let k = t.constant_kind();
    let mut h = state.build_hasher();
    h.write_u64(k as u64 | (type_shape(il, il.child_eix(c, F::CONSTANT_TYPE)) << 8));
    match k {
        C::Integer => {
            h.write_i64(t.value());
            h.write_u8(t.ptm_flags());
        }
        C::String => {
            let len = t.text_len() as usize;
            let s = t.text();
            h.write_u64(len as u64 | ((t.sub_kind() as u64) << 32));
            h.write(&s[..len.min(s.len())]);
        }
        C::Float | C::Imaginary => {
            let len = t.text_len() as usize;
            h.write_i64(t.value());
            h.write(&t.text()[..len.min(t.text().len())]);
        }
        C::Reflection => h.write_i64(t.value()),
        C::Complex => {
            h.write_i64(t.value());
            h.write_i64(t.value2());
        }
        C::Address | C::InitRepeat => {
            h.write_u8(t.sub_kind());
            h.write_i64(t.value());
        }
        C::PtrToMember => {
            h.write_u8(t.ptm_flags());
            h.write_i64(t.value());
        }
        C::TemplateParam => h.write_u8(t.sub_kind()),
        C::Designator => h.write_u8(t.ptm_flags()),
        C::Error | C::LabelDifference | C::DynamicInit | C::Aggregate | C::Void => {}
    }
    h.finish()
}

impl ConstantSharing {
    /// An empty table with the default configuration (everything shared).
    pub fn new() -> ConstantSharing {
        ConstantSharing {
            config: SharingConfig::default(),
            counters: SharingCounters::default(),
            slots: vec![EMPTY; 1024],
            canon: Vec::new(),
            cmp: Comparer::new(),
            memo: LeafMemo::new(),
            hasher: ahash::RandomState::with_seeds(
                0x243f_6a88_85a3_08d3,
                0x1319_8a2e_0370_7344,
                0xa409_3822_299f_31d0,
                0x082e_fa98_ec4e_6c89,
            ),
        }
    }

    /// Canonical constants recorded.
    pub fn len(&self) -> usize {
        self.canon.len()
    }

    /// No canonical constant yet.
    pub fn is_empty(&self) -> bool {
        self.canon.is_empty()
    }

    /// The canonical constants, in the order they were added.
    pub fn canonical(&self) -> impl Iterator<Item = Eix> + '_ {
        self.canon.iter().map(|&(_, e)| e)
    }

    /// The structural hash this table uses (see [`constant_hash`]).
    pub fn hash_of(&self, il: &Il, c: Eix) -> u64 {
        constant_hash(il, &self.hasher, c)
    }

    /// Looks `c` up with comparison `flags`: `Ok(Ok(canonical))` on a hit,
    /// `Ok(Err(slot))` with the free slot to insert at on a miss.
    fn lookup(
        &mut self,
        il: &Il,
        c: Eix,
        h: u64,
        flags: u32,
    ) -> Result<Result<Eix, usize>, IlError> {
        let mask = self.slots.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return Ok(Err(i));
            }
            let (ch, ce) = self.canon[s as usize];
            if ch == h {
                self.counters.comparisons += 1;
                if self.cmp.compare_constants(il, ce, c, flags)? {
                    return Ok(Ok(ce));
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Makes `c` (in place) or a file-scope copy of it the canonical constant for hash `h`
    /// at `slot`: marked shared, its references fixed up, entered in the table.
    fn add_canonical(
        &mut self,
        il: &mut Il,
        c: Eix,
        in_place: bool,
        slot: usize,
        h: u64,
    ) -> Result<Eix, IlError> {
        let n = if in_place {
            c
        } else {
            let id = il.alloc_in(EntryKind::Constant, RegionIdx::FILE_SCOPE);
            let n = il.eix(id)?;
            il.copy_entry_data(c, n);
            n
        };
        il.constant_mut(n).set_is_shared(true);
        fixup_constant_references(il, n)?;
        self.insert_at(slot, h, n);
        Ok(n)
    }

    fn insert_at(&mut self, slot: usize, h: u64, c: Eix) {
        self.slots[slot] = self.canon.len() as u32;
        self.canon.push((h, c));
        if self.canon.len() * 2 > self.slots.len() {
            let n = self.slots.len() * 2;
            self.slots = vec![EMPTY; n];
            let mask = n - 1;
            for (j, &(h, _)) in self.canon.iter().enumerate() {
                let mut i = (h as usize) & mask;
                while self.slots[i] != EMPTY {
                    i = (i + 1) & mask;
                }
                self.slots[i] = j as u32;
            }
        }
    }

    fn count_hit(&mut self, il: &Il, canonical: Eix, local: Eix) {
        if il.region_of(canonical) == il.region_of(local) {
            self.counters.region_hits += 1;
        } else {
            self.counters.global_hits += 1;
        }
    }

    /// `alloc_shareable_constant`: the canonical constant equal to `local` (a hit), or a
    /// new canonical copy of it in the file-scope region (a miss); unshareable constants
    /// take the non-shared path ([`alloc_constant`]). `local` itself is left to its owner
    /// (free it with `Il::free_local_constant` when it came from `alloc_local_constant`).
    ///
    /// # Errors
    /// A stale or non-constant `local`; a bad constant kind in a compared constant.
    pub fn alloc_shareable_constant(
        &mut self,
        il: &mut Il,
        local: EntryId,
    ) -> Result<EntryId, IlError> {
        let e = il.eix(local)?;
        let out = self.share_eix(il, e, false)?;
        Ok(il.id_of(out))
    }

    /// [`ConstantSharing::alloc_shareable_constant`] by dense index. With `adopt`, a miss
    /// on a constant already in file scope records that constant itself instead of a copy
    /// (the deep copier's path: its copies are fresh, nobody else holds them).
    ///
    /// # Errors
    /// As [`ConstantSharing::alloc_shareable_constant`].
    #[inline]
    pub fn share_eix(&mut self, il: &mut Il, e: Eix, adopt: bool) -> Result<Eix, IlError> {
        self.counters.total_allocs += 1;
        if il.kind(e) != EntryKind::Constant {
            return Err(IlError::WrongTarget {
                expected: EntryKind::Constant,
                found: il.kind(e),
            });
        }
        let key = if self.config.enabled {
            leaf_key(il, e, self.config.strings)
        } else {
            None
        };
        if let Some(k) = &key {
            if let Some(c) = self.memo_hit(il, e, k) {
                // Canonical constants live in file scope.
                if il.region_of(e) == RegionIdx::FILE_SCOPE {
                    self.counters.region_hits += 1;
                } else {
                    self.counters.global_hits += 1;
                }
                return Ok(c);
            }
        }
        self.share_slow(il, e, adopt, key)
    }

    /// [`ConstantSharing::share_eix`] over a stream: appends one canonical constant per
    /// entry of `src` to `out`, in order, with the same answers and counters. Runs of
    /// constants the exact-key memo answers are handled in one loop that keeps the
    /// columns it reads at hand; the first one it cannot answer takes the full path.
    ///
    /// Streams of at least [`PARALLEL_SHARE_MIN`] constants on a pool of two or more
    /// threads are answered in rounds: the memo answers a round's constants on all
    /// threads (it is only read), then the ones it could not answer take the full path in
    /// stream order. The memo never changes an answer it holds, so each constant gets the
    /// canonical constant and counts the sequential pass gives it. Round sizes double, so
    /// constants first seen in a round are in the memo for the next.
    ///
    /// # Errors
    /// As [`ConstantSharing::share_eix`]; `out` then holds the answers before the error,
    /// and the counters count exactly those.
    pub fn share_many(
        &mut self,
        il: &mut Il,
        src: &[Eix],
        adopt: bool,
        out: &mut Vec<Eix>,
    ) -> Result<(), IlError> {
        let base = out.len();
        out.resize(base + src.len(), Eix::NONE);
        let r = self.share_into(il, src, adopt, &mut out[base..]);
        if let Err((done, e)) = r {
            out.truncate(base + done);
            return Err(e);
        }
        Ok(())
    }

    /// [`ConstantSharing::share_many`] into `out` (as long as `src`); an error comes with
    /// the number of answers before it.
    fn share_into(
        &mut self,
        il: &mut Il,
        src: &[Eix],
        adopt: bool,
        out: &mut [Eix],
    ) -> Result<(), (usize, IlError)> {
        let parallel = self.config.enabled
            && src.len() >= PARALLEL_SHARE_MIN
            && rayon::current_num_threads() > 1;
        if !parallel {
            return self.share_seq(il, src, adopt, out);
        }
        let mut i = SHARE_WARM_UP.min(src.len());
        self.share_seq(il, &src[..i], adopt, &mut out[..i])?;
        let mut round = SHARE_WARM_UP;
        while i < src.len() {
            round = (round * 2).min(SHARE_ROUND_MAX);
            let end = (i + round).min(src.len());
            let (n, file_scope) = self.memo_par(il, &src[i..end], &mut out[i..end]);
            self.count_memo_hits(n, file_scope);
            for j in i..end {
                if !out[j].is_none() {
                    continue;
                }
                match self.share_eix(il, src[j], adopt) {
                    Ok(c) => out[j] = c,
                    Err(e) => {
                        // Take back the memo's answers past the error.
                        for k in j + 1..end {
                            if !out[k].is_none() {
                                let fs = il.region_of(src[k]) == RegionIdx::FILE_SCOPE;
                                self.uncount_memo_hit(fs);
                            }
                        }
                        return Err((j, e));
                    }
                }
            }
            i = end;
        }
        Ok(())
    }

    /// One thread: memo runs, each ended by one constant on the full path.
    fn share_seq(
        &mut self,
        il: &mut Il,
        src: &[Eix],
        adopt: bool,
        out: &mut [Eix],
    ) -> Result<(), (usize, IlError)> {
        let mut i = 0;
        while i < src.len() {
            if self.config.enabled {
                let (n, file_scope) = self.memo_run(il, &src[i..], &mut out[i..]);
                self.count_memo_hits(n, file_scope);
                i += n;
                if i == src.len() {
                    break;
                }
            }
            out[i] = self.share_eix(il, src[i], adopt).map_err(|e| (i, e))?;
            i += 1;
        }
        Ok(())
    }

    /// The memo's answers for `src` on the rayon pool, [`Eix::NONE`] where it has none;
    /// returns how many it answered and how many of those were in file scope.
    fn memo_par(&self, il: &Il, src: &[Eix], out: &mut [Eix]) -> (usize, u64) {
        use rayon::prelude::*;
        src.par_chunks(SHARE_TASK)
            .zip(out.par_chunks_mut(SHARE_TASK))
            .map(|(src, out)| {
                let (mut n, mut file_scope, mut i) = (0, 0, 0);
                while i < src.len() {
                    let (a, f) = self.memo_run(il, &src[i..], &mut out[i..]);
                    n += a;
                    file_scope += f;
                    // `out[i + a]` keeps its `NONE`: the full path's.
                    i += a + 1;
                }
                (n, file_scope)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    fn count_memo_hits(&mut self, n: usize, file_scope: u64) {
        self.counters.total_allocs += n as u64;
        self.counters.region_hits += file_scope;
        self.counters.global_hits += n as u64 - file_scope;
    }

    fn uncount_memo_hit(&mut self, file_scope: bool) {
        self.counters.total_allocs -= 1;
        if file_scope {
            self.counters.region_hits -= 1;
        } else {
            self.counters.global_hits -= 1;
        }
    }

    /// The memo's canonical constant for `e` under `key`; a string literal's hit is
    /// confirmed against the canonical constant's bytes (its key does not imply equality).
    #[inline(always)]
    fn memo_hit(&self, il: &Il, e: Eix, key: &[u64; 2]) -> Option<Eix> {
        let c = self.memo.get(key)?;
        if key[0] & 0xff == ConstantKind::String as u64 && !string_hit(il, e, c) {
            return None;
        }
        Some(c)
    }

    /// Answers the leading entries of `src` from the memo into `out`, stopping at the
    /// first it cannot; returns how many it answered and how many of those are in file
    /// scope (the caller counts them). Leaf constants are keyed here exactly as
    /// [`leaf_key`] keys them, but through column slices cut to a common length in this
    /// function, so one bounds check per column group covers every read of an entry;
    /// routing them through `leaf_key` (or a shared struct of slices) measured 15–25 %
    /// slower, the optimizer no longer seeing the columns' lengths agree. The proptest
    /// `share_many_answers_as_share_eix` holds the two to the same answers.
    fn memo_run(&self, il: &Il, src: &[Eix], out: &mut [Eix]) -> (usize, u64) {
        let v = il.columns();
        let keys = il.constant_columns().share_key;
        let strings = self.config.strings;
        let (mut n, mut file_scope) = (0usize, 0u64);
        let out = &mut out[..src.len()];
        for &e in src {
            let i = e.idx();
            if i >= v.kind.len() || v.kind[i] != EntryKind::Constant {
                break;
            }
            // One 16-byte key per constant: kind, flags, region, type, value or string.
            let Some(&stored) = keys.get(v.row[i] as usize) else {
                break;
            };
            let Some(key) = memo_key(stored, strings) else {
                break;
            };
            let Some(c) = self.memo_hit(il, e, &key) else {
                break;
            };
            file_scope += (stored[0] & SHARE_KEY_FILE_SCOPE != 0) as u64;
            out[n] = c;
            n += 1;
        }
        (n, file_scope)
    }

    #[inline(never)]
    fn share_slow(
        &mut self,
        il: &mut Il,
        e: Eix,
        adopt: bool,
        key: Option<[u64; 2]>,
    ) -> Result<Eix, IlError> {
        if !constant_is_shareable(il, &self.config, e) {
            return if adopt {
                Ok(e)
            } else {
                let id = alloc_constant(il, il.id_of(e))?;
                il.eix(id)
            };
        }
        if il.constant(e).is_shared() && il.region_of(e) == RegionIdx::FILE_SCOPE {
            // The seed's parent case: already the canonical copy.
            return Ok(e);
        }
        let h = constant_hash(il, &self.hasher, e);
        self.cmp.sharing_enabled = self.config.enabled;
        match self.lookup(il, e, h, 0)? {
            Ok(c) => {
                self.count_hit(il, c, e);
                if let Some(k) = key {
                    self.memo.insert(k, c);
                }
                Ok(c)
            }
            Err(slot) => {
                self.counters.new_buckets += 1;
                let in_place = adopt && il.region_of(e) == RegionIdx::FILE_SCOPE;
                let n = self.add_canonical(il, e, in_place, slot, h)?;
                if let Some(k) = key {
                    self.memo.insert(k, n);
                }
                Ok(n)
            }
        }
    }

    /// Looks a constant up without allocating (no counters): the canonical constant equal
    /// to `c`, if any.
    ///
    /// # Errors
    /// `c` not a live constant; a bad sub-kind in a compared constant.
    pub fn find(&mut self, il: &Il, c: Eix) -> Result<Option<Eix>, IlError> {
        if !il.is_live(c) || il.kind(c) != EntryKind::Constant {
            return Err(IlError::WrongTarget {
                expected: EntryKind::Constant,
                found: if il.is_live(c) {
                    il.kind(c)
                } else {
                    EntryKind::None
                },
            });
        }
        let h = constant_hash(il, &self.hasher, c);
        let saved = self.counters;
        let r = self.lookup(il, c, h, 0)?.ok();
        self.counters = saved;
        Ok(r)
    }

    /// `intern_string_constant`: the canonical string constant with these bytes and
    /// character kind (`sub_kind`), compared in strict mode; a miss allocates it in file
    /// scope. The scratch local constant is freed before returning.
    ///
    /// # Errors
    /// A stale `ty`.
    pub fn intern_string_constant(
        &mut self,
        il: &mut Il,
        bytes: &[u8],
        char_kind: u8,
        ty: Option<EntryId>,
    ) -> Result<EntryId, IlError> {
        let saved = il.current_region();
        il.switch_region(RegionIdx::FILE_SCOPE)?;
        let local = il.alloc_local_constant(ConstantKind::String)?;
        let le = il.eix(local)?;
        il.constant_mut(le)
            .set_text(bytes)
            .set_text_len(bytes.len() as u32)
            .set_sub_kind(char_kind);
        il.set_child(local, F::CONSTANT_TYPE, ty)?;
        let h = constant_hash(il, &self.hasher, le);
        let out = match self.lookup(il, le, h, compare::flags::STRICT)? {
            Ok(c) => c,
            Err(slot) => self.add_canonical(il, le, false, slot, h)?,
        };
        il.free_local_constant(local)?;
        il.switch_region(saved)?;
        Ok(il.id_of(out))
    }

    /// Checks the table's invariants; one message per problem, never panics.
    pub fn verify(&self, il: &Il) -> Vec<String> {
        let mut errs = Vec::new();
        for (i, &(h, e)) in self.canon.iter().enumerate() {
            if !il.is_live(e) {
                errs.push(format!("canonical #{i} ({e}) is dead"));
                continue;
            }
            if il.kind(e) != EntryKind::Constant {
                errs.push(format!("canonical #{i} ({e}) is a {}", il.kind(e).name()));
                continue;
            }
            if il.region_of(e) != RegionIdx::FILE_SCOPE {
                errs.push(format!("canonical #{i} ({e}) is not in file scope"));
            }
            if !il.constant(e).is_shared() {
                errs.push(format!("canonical #{i} ({e}) is not marked is_shared"));
            }
            if constant_hash(il, &self.hasher, e) != h {
                errs.push(format!("canonical #{i} ({e}) changed after sharing"));
            }
        }
        let occupied = self.slots.iter().filter(|&&s| s != EMPTY).count();
        if occupied != self.canon.len() {
            errs.push(format!(
                "{occupied} occupied slots for {} canonical constants",
                self.canon.len()
            ));
        }
        errs
    }
}

/// Offers every constant of the world to constant sharing (adopting file-scope misses as
/// canonical) in one [`ConstantSharing::share_many`] stream; returns the sharing counters.
/// A constant the table cannot take (a bad kind) stays unshared and the stream goes on
/// after it.
pub fn share_all_constants(il: &mut Il) -> crate::il::stats::SharingCounters {
    share_all_constants_mapped(il).0
}

/// [`share_all_constants`], also returning each constant with the constant it became
/// (itself when it stayed unshared), in entry order.
pub fn share_all_constants_mapped(
    il: &mut Il,
) -> (crate::il::stats::SharingCounters, Vec<(Eix, Eix)>) {
    let constants: Vec<Eix> = il
        .entries()
        .filter(|&e| il.kind(e) == crate::il::EntryKind::Constant)
        .collect();
    let mut sharing = ConstantSharing::new();
    let mut out = Vec::with_capacity(constants.len());
    let mut rest = &constants[..];
    while !rest.is_empty() {
        let before = out.len();
        match sharing.share_many(il, rest, true, &mut out) {
            Ok(()) => break,
            Err(_) => {
                let done = out.len() - before;
                // the constant the table refused stays itself
                out.push(rest[done]);
                rest = &rest[done + 1..];
            }
        }
    }
    let map = constants.into_iter().zip(out).collect();
    (sharing.counters, map)
}

/// `alloc_constant`: the non-shared path. A new constant in the current region with
/// `local`'s data (not `is_shared`), children shared with `local`.
///
/// # Errors
/// A stale or non-constant `local`.
pub fn alloc_constant(il: &mut Il, local: EntryId) -> Result<EntryId, IlError> {
    let e = il.eix(local)?;
    if il.kind(e) != EntryKind::Constant {
        return Err(IlError::WrongTarget {
            expected: EntryKind::Constant,
            found: il.kind(e),
        });
    }
    let id = il.alloc(EntryKind::Constant)?;
    let n = il.eix(id)?;
    il.copy_entry_data(e, n);
    il.constant_mut(n).set_is_shared(false);
    Ok(id)
}

/// `fixup_constant_references`: after a constant moved into file scope, its owned
/// children that still live in a function region (an expression of a template-parameter
/// constant, a sub-constant, a dynamic init) are deep-copied into file scope, so the
/// canonical constant outlives the region it came from. Types and references stay.
///
/// # Errors
/// A bad kind inside a copied subtree.
pub fn fixup_constant_references(il: &mut Il, c: Eix) -> Result<(), IlError> {
    if il.region_of(c) != RegionIdx::FILE_SCOPE {
        return Ok(());
    }
    let n = il.children(c).len();
    for i in 0..n {
        let ch = il.children(c)[i];
        if ch.is_none() || il.region_of(ch) == RegionIdx::FILE_SCOPE {
            continue;
        }
        if matches!(
            il.kind(ch),
            EntryKind::ExprNode | EntryKind::Constant | EntryKind::DynamicInit
        ) {
            let mut cp = copy::DeepCopy::new(0, RegionIdx::FILE_SCOPE);
            let new = cp.copy_eix(il, ch)?;
            il.replace_child_at(c, i, new);
        }
    }
    Ok(())
}
