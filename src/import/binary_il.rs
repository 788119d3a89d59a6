//! Binary IL files: a writer in the walker's order and a reader that rebuilds an equal world.
//!
//! The writer walks the file-scope IL once in the order of the seed's walk with a
//! pre-walk check that refuses entries already numbered (no entry is serialized twice)
//! and, for device IL, entries without keep_in_il, and numbers each entry it enters: its
//! position in the stream (its ordinal). The walk only reads, so it is the walker's
//! read-only form (`walk::preorder`, the same order as [`Walker`](crate::walk::Walker)
//! with these callbacks). It then writes the records in walk order, translating every
//! reference through the ordinal side table (the dense-table form of the seed's
//! entry-replace translation) and every string with a length prefix. In a whole-IL file
//! of 2^16 entries or more the records are written on the thread pool: a trailing writer
//! follows the numbering walk a chunk behind (a record whose references name an entry
//! not numbered yet is written again in place once the walk is done), and the records
//! it has not reached when the walk ends are written in parallel stretches straight into
//! their place (a record's size does not depend on ordinals there); the bytes are the
//! same as [`write_il_single_threaded`]'s. The reader checks the checksum and every reference on
//! a second thread while it builds (see [`read_il`]).
//!
//! # Format (version 5, little-endian)
//! ```text
//! magic "ILKIT-IL"  u32 version  u32 flags(bit 0: device only)
//! opt-string compiler_version, opt-string time_of_compilation   (varint length + 1, bytes)
//! u32 ref main_routine, u32 ref primary_scope, u32 entry count
//! per entry, fixed widths (its kind is in the kind table at the end):
//!   u8 flag bits, u16 col, u16 file, u32 region ordinal (0 = file scope), u32 line,
//!   scalars at their column widths (SCALAR_BYTES[kind] bytes; flags one byte),
//!   strings (u32 len+1 or 0, bytes),
//!   the edge block as the world stores it: u32 length per list, then one run of u32
//!   refs: single slots, the lists' members, references
//! varint count, varint refs: the external-type list
//! u8 kind per entry, in record order: the kind table
//! u64 checksum of everything before it (FNV-1a style, over 64-bit words)
//! ```
//! Records keep every field at its in-memory width, as the seed's IL files keep records
//! with references turned into stream offsets: a record is read with one dispatch on its
//! kind and no per-field decoding (version 1 wrote LEB128 varints throughout: 2.2x
//! smaller, slower to read and write; see PERF.md). A record's edge block is the world's
//! own (lengths first, then one run of references), so the reader builds it in order.
//! The kind table comes last because the writer numbers (and appends) entries no walk
//! reached while it writes records; the reader takes it first (it sits just before the
//! checksum), so each reference's target kind is checked as the reference is read and
//! per-kind tables are reserved once (version 2 kept the kind in each record and checked
//! target kinds in a second pass over the edges).
//! A `ref` is ordinal + 1, 0 for none. Every length read is checked against the bytes that
//! remain before anything is allocated; every error names its byte offset. A sub-kind
//! column (type kind, expression kind, operator, ...) must hold a number of its vocabulary
//! (`components/vocab.rs`); version 5 gave the clang importer's operators the vocabulary's
//! one numbering (version 4 files numbered them apart), so it reads only version 5.

use crate::il::{
    BuiltEntry, Eix, EntryId, EntryKind, Flag, Il, RegionIdx, SourcePos, SCALAR_BYTES,
};
use crate::walk::preorder::{file_scope_preorder, subtree_preorder};
use crate::walk::WalkError;
use rayon::prelude::*;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{channel, Receiver};

const MAGIC: &[u8; 8] = b"ILKIT-IL";
/// The format version this build writes and reads.
pub const VERSION: u32 = 5;
/// Bytes of a record's fixed head: flag bits, column, file, region, line.
const RECORD_HEAD: usize = 13;
/// Entry kinds.
const KINDS: usize = EntryKind::COUNT;

/// A reader error: what was expected, at which byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinError {
    /// Byte offset in the file.
    pub offset: usize,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for BinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "offset {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for BinError {}

/// A writer error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteError {
    /// The numbering walk failed: a stale primary scope or a constant with a bad sub-kind
    /// (the walker's messages), or the file would hold 2^32 entries or more.
    Walk(WalkError),
    /// A list member is none, which only a world that fails [`Il::verify`] holds: the
    /// record would come out shorter than its size, so nothing is written.
    NoneListMember {
        /// The entry whose list it is.
        entry: EntryId,
        /// Its kind.
        kind: EntryKind,
        /// The list field's name.
        list: &'static str,
        /// The member's position in the list.
        member: usize,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Walk(w) => w.fmt(f),
            WriteError::NoneListMember {
                entry,
                kind,
                list,
                member,
            } => write!(
                f,
                "write_il: member {member} of list {list} of {} entry {entry:?} is none \
                 (the world does not verify)",
                kind.name()
            ),
        }
    }
}

impl std::error::Error for WriteError {}

impl From<WalkError> for WriteError {
    fn from(w: WalkError) -> WriteError {
        WriteError::Walk(w)
    }
}

/// The file checksum: an FNV-1a-style hash over 64-bit little-endian words in four
/// interleaved lanes (word `i` goes to lane `i % 4`; the lanes are independent multiply
/// chains, so they run in parallel), the lanes then folded together with the tail bytes.
/// Any flipped byte changes its lane's hash.
pub fn checksum(bytes: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    const BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    let step = |h: u64, w: u64| {
        let h = (h ^ w).wrapping_mul(PRIME);
        h ^ (h >> 29)
    };
    let mut lanes = [BASIS, BASIS ^ 1, BASIS ^ 2, BASIS ^ 3];
    let mut blocks = bytes.chunks_exact(32);
    for b in &mut blocks {
        for (l, w) in lanes.iter_mut().zip(b.chunks_exact(8)) {
            *l = step(*l, u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
        }
    }
    let mut h = BASIS;
    for l in lanes {
        h = step(h, l);
    }
    for &b in blocks.remainder() {
        h = (h ^ b as u64).wrapping_mul(PRIME);
    }
    h
}

/// The ordinal column: `e`'s position in the stream + 1 (0: not numbered), which is
/// also how a reference to `e` is written. Atomic so that records can be written from it
/// on another thread while the numbering walk still fills it (an entry's ordinal is
/// written once; a reader sees 0 or the final number). Relaxed loads and stores are
/// plain moves on the targets ilkit builds for.
struct Ordinals {
    ordinal: Vec<AtomicU32>,
    /// Device IL only: entries without keep_in_il are left out.
    device: bool,
}

impl Ordinals {
    /// The reference written for `e`: ordinal + 1, 0 for none or an unnumbered entry
    /// (`Eix::NONE` is past the table's end).
    #[inline(always)]
    fn get(&self, e: Eix) -> u32 {
        self.ordinal
            .get(e.idx())
            .map_or(0, |o| o.load(Ordering::Relaxed))
    }
}

/// The record order the numbering walk makes, with what is taken as entries are numbered
/// (in record order), so no later pass looks it up again.
struct Sequence {
    order: Vec<Eix>,
    /// Kind of each numbered entry, in record order: the kind table.
    kinds: Vec<u8>,
    /// The file's region ordinal of each numbered entry, in record order.
    ros: Vec<u32>,
    /// The file's ordinal of each world region (0: file scope or not met yet), numbered
    /// as first met in record order.
    region_ord: Vec<u32>,
    next_region: u32,
}

/// The writer's numbering walk: ordinals and the record order.
struct Numbering {
    ords: Ordinals,
    seq: Sequence,
}

impl Numbering {
    /// Nothing numbered yet, for `il` (whole, or device IL only).
    fn new(il: &Il, device: bool) -> Numbering {
        Numbering {
            ords: Ordinals {
                ordinal: (0..il.capacity()).map(|_| AtomicU32::new(0)).collect(),
                device,
            },
            seq: Sequence {
                order: Vec::new(),
                kinds: Vec::new(),
                ros: Vec::new(),
                region_ord: Vec::new(),
                next_region: 1,
            },
        }
    }

    #[inline(always)]
    fn ord(&self, e: Eix) -> u32 {
        self.ords.get(e)
    }

    #[inline(always)]
    fn enter(&mut self, il: &Il, e: Eix) -> bool {
        self.seq.enter(&self.ords, il, e)
    }
}

impl Sequence {
    /// The numbering walk's visitor: numbers `e` and enters it unless it is numbered
    /// already or (for device IL) has no keep_in_il.
    #[inline(always)]
    fn enter(&mut self, ords: &Ordinals, il: &Il, e: Eix) -> bool {
        // Most entries met are numbered already (types, say, are met once per use).
        ords.ordinal
            .get(e.idx())
            .is_some_and(|o| o.load(Ordering::Relaxed) == 0)
            && self.number(ords, il, e)
    }

    /// [`Sequence::enter`] for an entry not numbered yet.
    #[inline(never)]
    fn number(&mut self, ords: &Ordinals, il: &Il, e: Eix) -> bool {
        if ords.device && !il.flag(e, Flag::KeepInIl) {
            return false;
        }
        self.order.push(e);
        ords.ordinal[e.idx()].store(self.order.len() as u32, Ordering::Relaxed);
        self.kinds.push(il.kind(e) as u8);
        let ro = self.region_ordinal(il.region_of(e));
        self.ros.push(ro);
        true
    }

    /// The file's ordinal of region `r` (0 = file scope), numbered as first met.
    #[inline]
    fn region_ordinal(&mut self, r: RegionIdx) -> u32 {
        if r == RegionIdx::FILE_SCOPE {
            return 0;
        }
        if self.region_ord.len() <= r.idx() {
            self.region_ord.resize(r.idx() + 1, 0);
        }
        if self.region_ord[r.idx()] == 0 {
            self.region_ord[r.idx()] = self.next_region;
            self.next_region += 1;
        }
        self.region_ord[r.idx()]
    }

    /// Records `from..` of the order with their region ordinals, for the trailing writer.
    fn chunk(&self, from: usize) -> Vec<(Eix, u32)> {
        self.order[from..]
            .iter()
            .copied()
            .zip(self.ros[from..].iter().copied())
            .collect()
    }
}

/// Appends record `i` of `num`'s order to `out`, its references translated through `num`.
fn emit(out: &mut Vec<u8>, il: &Il, num: &Numbering, i: usize) -> Refs {
    let e = num.seq.order[i];
    let base = zeroed_room(out, record_size(il, e));
    let (end, refs) = write_record(il, &num.ords, num.seq.ros[i], e, &mut out[base..]);
    out.truncate(base + end);
    refs
}

/// Appends `size` zero bytes to `out` and returns where they start.
#[inline]
fn zeroed_room(out: &mut Vec<u8>, size: usize) -> usize {
    let base = out.len();
    // Zeroed room by copy (`resize` stores the zeros a byte at a time).
    const ZEROS: [u8; 256] = [0; 256];
    match ZEROS.get(..size) {
        Some(z) => out.extend_from_slice(z),
        None => out.resize(base + size, 0),
    }
    base
}

/// What a record's references name, besides the bytes [`write_record`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refs {
    /// Every reference is to a numbered entry or none.
    Numbered,
    /// A single slot, list member or reference names an entry that belongs in the file
    /// but has no ordinal yet (written as 0: the caller numbers it and writes the record
    /// again).
    Unnumbered,
    /// Member `member` of list `list` is none (a world that fails `verify`): the record
    /// is shorter than [`record_size`] and must not be used.
    NoneMember { list: u32, member: u32 },
}

impl Refs {
    /// The error for a record of `e` with a none list member, if it has one.
    #[cold]
    fn none_member(self, il: &Il, e: Eix) -> Result<(), WriteError> {
        match self {
            Refs::NoneMember { list, member } => {
                let kind = il.kind(e);
                Err(WriteError::NoneListMember {
                    entry: il.id_of(e),
                    kind,
                    list: kind.layout().lists[list as usize].name,
                    member: member as usize,
                })
            }
            _ => Ok(()),
        }
    }
}

/// Bytes of `e`'s record with every list member present (device IL may leave some out).
#[inline]
fn record_size(il: &Il, e: Eix) -> usize {
    let k = il.kind(e);
    let layout = k.layout();
    let mut size = RECORD_HEAD + SCALAR_BYTES[k as usize] as usize;
    if !layout.strings.is_empty() {
        for s in il.string_handles(e).as_slice() {
            size += 4 + if s.is_some() { s.len as usize } else { 0 };
        }
    }
    size + 4 * (layout.lists.len() + il.children(e).len() + layout.refs.len())
}

/// Writes `e`'s record (region ordinal `ro`, references translated through `num`) at
/// the start of `buf`, which holds at least [`record_size`] bytes. Returns the bytes
/// written and what the references name.
fn write_record(il: &Il, ords: &Ordinals, ro: u32, e: Eix, buf: &mut [u8]) -> (usize, Refs) {
    let k = il.kind(e);
    // The file's bits are the world's above `allocated` (FLAG_BITS is in flag order).
    let bits = (il.flag_bits(e) >> 1) & 31;
    let layout = k.layout();
    let sb = SCALAR_BYTES[k as usize] as usize;
    let p = il.pos(e);
    let (head, rest) = buf.split_at_mut(RECORD_HEAD);
    head[0] = bits;
    head[1..3].copy_from_slice(&p.col.to_le_bytes());
    head[3..5].copy_from_slice(&p.file.to_le_bytes());
    head[5..9].copy_from_slice(&ro.to_le_bytes());
    head[9..13].copy_from_slice(&p.line.to_le_bytes());
    il.write_scalar_bytes(e, &mut rest[..sb]);
    let mut w = Cursor {
        b: buf,
        at: RECORD_HEAD + sb,
    };
    if !layout.strings.is_empty() {
        for &s in il.string_handles(e).as_slice() {
            if s.is_some() {
                let b = il.str_bytes(e, s);
                w.u32(b.len() as u32 + 1);
                w.bytes(b);
            } else {
                w.u32(0);
            }
        }
    }
    let (refs, lens, kids) = il.block_parts(e);
    if !ords.device {
        if let Some(missing) = write_whole_block(ords, refs, lens, kids, &mut w.b[w.at..]) {
            let r = if missing {
                Refs::Unnumbered
            } else {
                Refs::Numbered
            };
            return (w.at + 4 * (refs.len() + lens.len() + kids.len()), r);
        }
    }
    let mut missing = false;
    let mut ord = |c: Eix| {
        let o = ords.get(c);
        if o == 0 && !c.is_none() && (!ords.device || il.flag(c, Flag::KeepInIl)) {
            missing = true;
        }
        o
    };
    let (singles, items) = kids.split_at(layout.singles.len());
    let lens_at = w.at;
    w.at += 4 * layout.lists.len();
    for &c in singles {
        w.u32(ord(c));
    }
    // Members no walk numbered (device IL leaves out those without keep_in_il) are left
    // out of their list; a member that is none is reported.
    let mut none_member = None;
    let mut rest = items;
    for (l, &len) in lens.iter().enumerate() {
        let (members, tail) = rest.split_at(len.0 as usize);
        rest = tail;
        let mut n = 0u32;
        for (m, &c) in members.iter().enumerate() {
            let o = ord(c);
            if o != 0 {
                w.u32(o);
                n += 1;
            } else if c.is_none() && none_member.is_none() {
                none_member = Some(Refs::NoneMember {
                    list: l as u32,
                    member: m as u32,
                });
            }
        }
        let at = lens_at + 4 * l;
        w.b[at..at + 4].copy_from_slice(&n.to_le_bytes());
    }
    for &r in refs {
        w.u32(ord(r));
    }
    let r = match none_member {
        Some(r) => r,
        None if missing => Refs::Unnumbered,
        None => Refs::Numbered,
    };
    (w.at, r)
}

/// A whole-IL record's edge block (list lengths, children, references) at the start of
/// `buf` with every list member in its list: the block's three runs translated in tight
/// loops. Returns whether a single slot or reference names an entry not numbered yet, or
/// `None` when a list member has no ordinal (it is left out of its list, which only
/// [`write_record`]'s general loop does).
#[inline]
fn write_whole_block(
    ords: &Ordinals,
    refs: &[Eix],
    lens: &[Eix],
    kids: &[Eix],
    buf: &mut [u8],
) -> Option<bool> {
    let (wl, rest) = buf.split_at_mut(4 * lens.len());
    let (wk, rest) = rest.split_at_mut(4 * kids.len());
    let wr = &mut rest[..4 * refs.len()];
    for (d, l) in wl.chunks_exact_mut(4).zip(lens) {
        d.copy_from_slice(&l.0.to_le_bytes());
    }
    // Single slots may be none; a list member never may (it would leave its list).
    let singles = kids.len() - lens.iter().map(|l| l.0 as usize).sum::<usize>();
    let (mut missing, mut member_none) = (false, false);
    for (n, (d, &c)) in wk.chunks_exact_mut(4).zip(kids).enumerate() {
        let o = ords.get(c);
        missing |= o == 0 && !c.is_none();
        member_none |= o == 0 && n >= singles;
        d.copy_from_slice(&o.to_le_bytes());
    }
    if member_none {
        return None;
    }
    for (d, &c) in wr.chunks_exact_mut(4).zip(refs) {
        let o = ords.get(c);
        missing |= o == 0 && !c.is_none();
        d.copy_from_slice(&o.to_le_bytes());
    }
    Some(missing)
}

/// Numbers the entries `e` points to that no walk reached (a kept template only named by
/// a reference, say; for device IL only kept ones), so no reference in its record
/// dangles; they are written after the walk's entries.
fn number_unreached_targets(il: &Il, num: &mut Numbering, e: Eix) -> Result<(), WalkError> {
    let unnumbered = |c: &Eix| !c.is_none() && num.ord(*c) == 0;
    if !(il.children(e).iter().any(unnumbered) || il.refs(e).iter().any(unnumbered)) {
        return Ok(());
    }
    let targets: Vec<Eix> = il
        .children(e)
        .iter()
        .chain(il.refs(e))
        .copied()
        .filter(unnumbered)
        .collect();
    let mut stack = Vec::new();
    for c in targets {
        subtree_preorder(il, c, &mut stack, &mut |e| num.enter(il, e))?;
    }
    Ok(())
}

/// Whole-IL files of at least this many entries write their records on all threads.
const PARALLEL_RECORDS: usize = 1 << 16;

/// Entries the numbering walk hands the trailing writer at a time.
const CHUNK: usize = 1 << 12;

/// Records written on a second thread while the numbering walk runs, a chunk behind it:
/// a record whose references name an entry not numbered yet when it is written (or a
/// none list member) is written with 0 there and listed, to be written again in place
/// once the walk is done. Each record gets its whole [`record_size`] (the whole IL: no
/// list member is left out), so later records' places do not depend on what was listed.
#[derive(Default)]
struct Trailing {
    /// The records written, in order.
    out: Vec<u8>,
    /// Their sizes.
    sizes: Vec<u32>,
    /// The ones to write again (indices into the order), in order.
    deferred: Vec<usize>,
}

impl Trailing {
    /// Writes the next records, `chunk` (entries with their region ordinals).
    fn write(&mut self, il: &Il, ords: &Ordinals, chunk: &[(Eix, u32)]) {
        for &(e, ro) in chunk {
            let size = record_size(il, e);
            let base = zeroed_room(&mut self.out, size);
            let (_, refs) = write_record(il, ords, ro, e, &mut self.out[base..]);
            if refs != Refs::Numbered {
                self.deferred.push(self.sizes.len());
            }
            self.sizes.push(size as u32);
        }
    }

    /// Receives chunks until the walk is done, each written once the next has come (so
    /// most of its references are numbered); what is left when the walk is done is the
    /// parallel pass's.
    fn follow(
        mut self,
        il: &Il,
        ords: &Ordinals,
        rx: Receiver<Vec<(Eix, u32)>>,
        done: &AtomicBool,
    ) -> Trailing {
        let mut held: Option<Vec<(Eix, u32)>> = None;
        while let Ok(chunk) = rx.recv() {
            if done.load(Ordering::Acquire) {
                break;
            }
            if let Some(h) = held.replace(chunk) {
                self.write(il, ords, &h);
            }
        }
        self
    }
}

/// How the whole-IL writer uses threads.
#[derive(Clone, Copy, Debug)]
enum Threads {
    /// Everything on the calling thread.
    One,
    /// Files of at least `min_entries` live entries: the numbering walk with a trailing
    /// writer on the pool, then the rest of the records in parallel stretches.
    Pool { min_entries: usize },
    /// The trailing writer's work done inside the walk, a chunk (of `chunk` entries)
    /// behind it, then the parallel stretches: the pool's path with its interleaving
    /// fixed, for tests.
    #[cfg(test)]
    Interleaved { chunk: usize },
}

/// Numbers `il`'s file-scope IL into `num` (whole IL) while a trailing writer writes
/// records behind the walk; returns what it wrote.
fn number_with_trailing_writer(
    il: &Il,
    num: &mut Numbering,
    threads: Threads,
) -> Result<Trailing, WalkError> {
    let Numbering { ords, seq } = num;
    let ords: &Ordinals = ords;
    #[cfg(test)]
    if let Threads::Interleaved { chunk } = threads {
        let mut trailing = Trailing::default();
        let (mut sent, mut held) = (0, None);
        file_scope_preorder(il, &mut |e| {
            let entered = seq.enter(ords, il, e);
            if entered && seq.order.len() - sent == chunk {
                if let Some(h) = held.replace(seq.chunk(sent)) {
                    trailing.write(il, ords, &h);
                }
                sent = seq.order.len();
            }
            entered
        })?;
        return Ok(trailing);
    }
    let _ = threads;
    let (tx, rx) = channel();
    let done = &AtomicBool::new(false);
    let (walked, trailing) = rayon::join(
        || {
            let mut sent = 0;
            let walked = file_scope_preorder(il, &mut |e| {
                let entered = seq.enter(ords, il, e);
                if entered && seq.order.len() - sent == CHUNK {
                    // A send fails only when the writer has stopped: nothing to do.
                    let _ = tx.send(seq.chunk(sent));
                    sent = seq.order.len();
                }
                entered
            });
            done.store(true, Ordering::Release);
            drop(tx);
            walked
        },
        move || Trailing::default().follow(il, ords, rx, done),
    );
    walked.map(|()| trailing)
}

/// The records of `num`'s order from `first` on (the whole IL: no list member is left
/// out, so every record's size is known before it is written) written in parallel
/// stretches straight into their place after `head` and `early` (the records before
/// `first`), which are copied in beside them. Returns the file so far (with room for
/// `tail` more bytes), the sizes of the records written and the records (indices into
/// the order) that name an entry no walk numbered or have a list member that is none, in
/// order.
fn write_records_parallel(
    il: &Il,
    num: &Numbering,
    (head, early): (&[u8], &[u8]),
    first: usize,
    tail: usize,
) -> (Vec<u8>, Vec<u32>, Vec<usize>) {
    let order = &num.seq.order[first..];
    let sizes: Vec<u32> = order
        .par_iter()
        .map(|&e| record_size(il, e) as u32)
        .collect();
    let total: usize = sizes.iter().map(|&s| s as usize).sum();
    let before = head.len() + early.len();
    // Zeroed by the allocator (fresh pages), so the stretches fault their own pages in;
    // the room for the tail (kind table, checksum) is allocated with them, so appending
    // it does not move the file.
    let mut file = vec![0u8; before + total + tail];
    file.truncate(before + total);
    let (copied, mut rest) = file.split_at_mut(before);
    let stretch = (order.len() / (4 * rayon::current_num_threads().max(1))).max(1 << 12);
    let mut jobs = Vec::new();
    for (j, entries) in order.chunks(stretch).enumerate() {
        let at = j * stretch;
        let bytes: usize = sizes[at..at + entries.len()]
            .iter()
            .map(|&s| s as usize)
            .sum();
        let (buf, tail) = rest.split_at_mut(bytes);
        rest = tail;
        jobs.push((first + at, entries, buf));
    }
    let ((), missing) = rayon::join(
        || {
            let (h, e) = copied.split_at_mut(head.len());
            h.copy_from_slice(head);
            e.copy_from_slice(early);
        },
        || {
            jobs.into_par_iter()
                .map(|(first, entries, buf)| {
                    let mut at = 0;
                    let mut missing = Vec::new();
                    let ros = &num.seq.ros[first..first + entries.len()];
                    for (i, (&e, &ro)) in entries.iter().zip(ros).enumerate() {
                        let (n, refs) = write_record(il, &num.ords, ro, e, &mut buf[at..]);
                        at += n;
                        if refs != Refs::Numbered {
                            missing.push(first + i);
                        }
                    }
                    missing
                })
                .collect::<Vec<Vec<usize>>>()
        },
    );
    (file, sizes, missing.concat())
}

#[inline(always)]
fn put_var(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_opt_bytes(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        Some(b) => {
            put_var(out, b.len() as u64 + 1);
            out.extend_from_slice(b);
        }
        None => put_var(out, 0),
    }
}

/// Writes a record into its reserved bytes.
struct Cursor<'a> {
    b: &'a mut [u8],
    at: usize,
}

impl Cursor<'_> {
    #[inline(always)]
    fn bytes(&mut self, v: &[u8]) {
        self.b[self.at..self.at + v.len()].copy_from_slice(v);
        self.at += v.len();
    }
    #[inline(always)]
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
}

/// The world's flag mask (bit `Flag as u8`) for each combination of the file's five flag
/// bits.
const FLAG_MASKS: [u8; 32] = {
    let mut t = [0u8; 32];
    let mut bits = 0;
    while bits < 32 {
        let mut i = 0;
        while i < FLAG_BITS.len() {
            if bits & (1 << i) != 0 {
                t[bits] |= 1 << FLAG_BITS[i] as u8;
            }
            i += 1;
        }
        bits += 1;
    }
    t
};

/// The file's five flag bits, in order; the same order as [`Flag`] after `allocated`.
const FLAG_BITS: [Flag; 5] = [
    Flag::FileScope,
    Flag::SecondaryIl,
    Flag::Language,
    Flag::KeepInIl,
    Flag::KeepDefinition,
];

// File bit `i` is world flag `i + 1`: the writer shifts the world's mask down by one.
const _: () = {
    let mut i = 0;
    while i < FLAG_BITS.len() {
        assert!(FLAG_BITS[i] as usize == i + 1);
        i += 1;
    }
};

/// Writes the file-scope IL (all of it, or with `device_only` only the keep_in_il
/// entries) as a binary IL file.
///
/// # Errors
/// [`WriteError::Walk`] for a stale primary scope or a constant with a bad sub-kind,
/// [`WriteError::NoneListMember`] for a list member that is none; both only in a world
/// that fails [`Il::verify`].
pub fn write_il(il: &mut Il, device_only: bool) -> Result<Vec<u8>, WriteError> {
    write_il_on(
        il,
        device_only,
        Threads::Pool {
            min_entries: PARALLEL_RECORDS,
        },
    )
}

/// [`write_il`] on the calling thread alone (for hosts that must not use the thread
/// pool): the same bytes.
///
/// # Errors
/// As [`write_il`].
pub fn write_il_single_threaded(il: &mut Il, device_only: bool) -> Result<Vec<u8>, WriteError> {
    write_il_on(il, device_only, Threads::One)
}

/// The writer; whole-IL files write their records on other threads as `threads` says.
fn write_il_on(il: &Il, device_only: bool, threads: Threads) -> Result<Vec<u8>, WriteError> {
    let mut out = Vec::with_capacity(1 << 16);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(device_only as u32).to_le_bytes());
    put_opt_bytes(&mut out, il.compiler_version.as_deref());
    put_opt_bytes(&mut out, il.time_of_compilation.as_deref());
    // Main routine, primary scope and the entry count are patched in after the walk.
    let patch_at = out.len();
    out.extend_from_slice(&[0u8; 12]);
    let mut num = Numbering::new(il, device_only);
    let parallel = match threads {
        Threads::One => false,
        Threads::Pool { min_entries } => !device_only && il.len() >= min_entries,
        #[cfg(test)]
        Threads::Interleaved { .. } => !device_only,
    };
    let mut i = 0;
    if parallel {
        let trailing = number_with_trailing_writer(il, &mut num, threads)?;
        let first = trailing.sizes.len();
        // The tail: external types (a varint count and refs), kind table, checksum.
        let tail = 5 * (il.external_types().count() + 1) + num.seq.order.len() + 8;
        let (file, rest, late) =
            write_records_parallel(il, &num, (&out, &trailing.out), first, tail);
        let head = out.len();
        out = file;
        let mut sizes = trailing.sizes;
        sizes.extend_from_slice(&rest);
        // The trailing writer's listed records, written again now that the walk is done;
        // those that still name an unnumbered entry join the parallel pass's.
        let mut missing = Vec::new();
        let (mut at, mut next) = (head, 0);
        for &d in &trailing.deferred {
            at += sizes[next..d].iter().map(|&s| s as usize).sum::<usize>();
            next = d;
            let (e, ro) = (num.seq.order[d], num.seq.ros[d]);
            let size = sizes[d] as usize;
            let (_, refs) = write_record(il, &num.ords, ro, e, &mut out[at..at + size]);
            if refs != Refs::Numbered {
                missing.push(d);
            }
        }
        missing.extend(late);
        // Records that name an entry no walk reached: in order, as the sequential pass
        // below does, the entry is numbered and the record written again in its place
        // (its size does not depend on ordinals).
        let (mut at, mut next) = (head, 0);
        for &m in &missing {
            at += sizes[next..m].iter().map(|&s| s as usize).sum::<usize>();
            next = m;
            let e = num.seq.order[m];
            number_unreached_targets(il, &mut num, e)?;
            let size = sizes[m] as usize;
            let (_, refs) = write_record(il, &num.ords, num.seq.ros[m], e, &mut out[at..at + size]);
            refs.none_member(il, e)?;
        }
        i = sizes.len();
    } else {
        file_scope_preorder(il, &mut |e| num.enter(il, e))?;
        out.reserve(num.seq.order.len() * 40);
    }
    while i < num.seq.order.len() {
        let e = num.seq.order[i];
        number_unreached_targets(il, &mut num, e)?;
        emit(&mut out, il, &num, i).none_member(il, e)?;
        i += 1;
    }
    let n = u32::try_from(num.seq.order.len()).map_err(|_| WalkError {
        message: "write_il: more than 2^32 entries",
        entry: None,
    })?;
    let header_ref = |m: Option<EntryId>| m.and_then(|m| il.eix(m).ok()).map_or(0, |e| num.ord(e));
    let (main, scope) = (header_ref(il.main_routine), header_ref(il.primary_scope));
    let ext: Vec<u32> = il
        .external_types()
        .map(|e| num.ord(e))
        .filter(|&o| o != 0)
        .collect();
    out[patch_at..patch_at + 4].copy_from_slice(&main.to_le_bytes());
    out[patch_at + 4..patch_at + 8].copy_from_slice(&scope.to_le_bytes());
    out[patch_at + 8..patch_at + 12].copy_from_slice(&n.to_le_bytes());
    put_var(&mut out, ext.len() as u64);
    for o in ext {
        put_var(&mut out, o as u64);
    }
    out.extend_from_slice(&num.seq.kinds);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, BinError> {
        Err(BinError {
            offset: self.at,
            message: message.into(),
        })
    }
    fn byte(&mut self) -> Result<u8, BinError> {
        match self.b.get(self.at) {
            Some(&v) => {
                self.at += 1;
                Ok(v)
            }
            None => self.err("unexpected end of file"),
        }
    }
    #[inline(always)]
    fn u32le(&mut self) -> Result<u32, BinError> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// The next `n` bytes.
    #[inline(always)]
    fn take(&mut self, n: usize) -> Result<&'a [u8], BinError> {
        let b: &'a [u8] = self.b;
        match b.get(self.at..self.at + n) {
            Some(s) => {
                self.at += n;
                Ok(s)
            }
            None => Err(Self::truncated(self.at)),
        }
    }

    #[cold]
    fn truncated(offset: usize) -> BinError {
        BinError {
            offset,
            message: "unexpected end of file".into(),
        }
    }

    /// A `u32` count of items each taking at least `min_bytes`: checked against what
    /// remains.
    #[inline(always)]
    fn count32(&mut self, what: &str, min_bytes: usize) -> Result<usize, BinError> {
        let at = self.at;
        let n = self.u32le()? as usize;
        let remaining = self.b.len() - self.at;
        if n.saturating_mul(min_bytes) > remaining {
            return Err(Self::too_many(what, n as u64, remaining, at));
        }
        Ok(n)
    }

    #[cold]
    fn too_many(what: &str, n: u64, remaining: usize, offset: usize) -> BinError {
        BinError {
            offset,
            message: format!("{what} count {n} exceeds the {remaining} bytes left"),
        }
    }

    /// A string as records store it: `u32` length + 1 (0 for none), then the bytes.
    #[inline(always)]
    fn str32(&mut self) -> Result<Option<&'a [u8]>, BinError> {
        let at = self.at;
        let n = self.u32le()?;
        self.string_bytes(at, n as u64)
    }

    /// The bytes of a string whose length + 1 (`n`; 0 for none) was read at `at`.
    #[inline(always)]
    fn string_bytes(&mut self, at: usize, n: u64) -> Result<Option<&'a [u8]>, BinError> {
        if n == 0 {
            return Ok(None);
        }
        let len = n - 1;
        if len > self.b.len().saturating_sub(self.at) as u64 {
            return Err(BinError {
                offset: at,
                message: format!("string length {len} runs past the end"),
            });
        }
        self.take(len as usize).map(Some)
    }
    /// A LEB128 varint. Inlined: the reader's hot loop is mostly these, and an
    /// out-of-line call returning a `Result` through memory cost more than the decoding.
    #[inline(always)]
    fn var(&mut self) -> Result<u64, BinError> {
        let (b, start) = (self.b, self.at);
        if start + 10 <= b.len() {
            // Ten bytes are there: decode without per-byte end checks.
            let mut v = 0u64;
            for (i, &x) in b[start..start + 10].iter().enumerate() {
                v |= ((x & 0x7f) as u64) << (7 * i);
                if x & 0x80 == 0 {
                    self.at = start + i + 1;
                    return Ok(v);
                }
            }
            return Err(Self::long_varint(start));
        }
        self.var_tail()
    }

    /// [`Reader::var`] near the end of the input, byte by byte.
    #[inline(never)]
    fn var_tail(&mut self) -> Result<u64, BinError> {
        let start = self.at;
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Self::long_varint(start))
    }

    #[cold]
    fn long_varint(offset: usize) -> BinError {
        BinError {
            offset,
            message: "varint longer than 10 bytes".into(),
        }
    }

    #[inline(always)]
    fn var_u32(&mut self, what: &str) -> Result<u32, BinError> {
        let at = self.at;
        let v = self.var()?;
        match u32::try_from(v) {
            Ok(v) => Ok(v),
            Err(_) => Err(Self::out_of_range(what, v, at)),
        }
    }

    #[cold]
    fn out_of_range(what: &str, v: u64, offset: usize) -> BinError {
        BinError {
            offset,
            message: format!("{what} {v} out of range"),
        }
    }
    /// A count of items each taking at least `min_bytes`: checked against what remains.
    fn count(&mut self, what: &str, min_bytes: usize) -> Result<usize, BinError> {
        let at = self.at;
        let n = self.var()?;
        let remaining = self.b.len().saturating_sub(self.at);
        if n as u128 * min_bytes as u128 > remaining as u128 {
            return Err(Self::too_many(what, n, remaining, at));
        }
        Ok(n as usize)
    }
    /// A string of the header: varint length + 1 (0 for none), then the bytes.
    fn opt_bytes(&mut self) -> Result<Option<&'a [u8]>, BinError> {
        let at = self.at;
        let n = self.var()?;
        self.string_bytes(at, n)
    }
}

/// One reference word as read at `at`: ordinal `o` is dense index `o - 1` of an entry of
/// kind `kinds[o - 1]`, which must be `target` when the field names one; 0 is none.
#[inline(always)]
fn check_ref(
    o: u32,
    kinds: &[u8],
    target: Option<EntryKind>,
    none_ok: bool,
    at: usize,
) -> Result<Eix, BinError> {
    if o == 0 {
        return if none_ok {
            Ok(Eix::NONE)
        } else {
            Err(bad_ref("list member 0 (none)".into(), at))
        };
    }
    match kinds.get(o as usize - 1) {
        None => Err(bad_ref(
            format!("reference to entry {o} of {}", kinds.len()),
            at,
        )),
        Some(&kb) => match target {
            Some(t) if kb != t as u8 => Err(bad_ref(
                format!(
                    "expected a {} entry, found a {}",
                    t.name(),
                    EntryKind::ALL[kb as usize].name()
                ),
                at,
            )),
            _ => Ok(Eix(o - 1)),
        },
    }
}

#[cold]
fn bad_ref(message: String, offset: usize) -> BinError {
    BinError { offset, message }
}

/// One record as it sits in the file, split into its parts (no reference checked yet).
struct RecordView<'a> {
    scalars: &'a [u8],
    strings: [Option<&'a [u8]>; 4],
    /// `u32` length per list.
    lens: &'a [u8],
    /// Byte offset of `words`.
    words_at: usize,
    /// `u32` refs: single slots, the lists' members, references.
    words: &'a [u8],
}

impl<'a> Reader<'a> {
    /// The next record, of kind `kind`: every length checked against what remains.
    #[inline(always)]
    fn record(&mut self, kind: EntryKind) -> Result<RecordView<'a>, BinError> {
        self.take(RECORD_HEAD)?;
        self.record_after_head(kind)
    }

    /// The rest of a record whose head has been taken.
    #[inline(always)]
    fn record_after_head(&mut self, kind: EntryKind) -> Result<RecordView<'a>, BinError> {
        let scalars = self.take(SCALAR_BYTES[kind as usize] as usize)?;
        let layout = kind.layout();
        let mut strings = [None; 4];
        for s in strings.iter_mut().take(layout.strings.len()) {
            *s = self.str32()?;
        }
        let lens_at = self.at;
        let mut members = 0usize;
        for _ in layout.lists {
            members += self.count32("list member", 4)?;
        }
        let lens = &self.b[lens_at..self.at];
        let words_at = self.at;
        let words = self.take(4 * (layout.singles.len() + members + layout.refs.len()))?;
        Ok(RecordView {
            scalars,
            strings,
            lens,
            words_at,
            words,
        })
    }
}

/// The `u32`s of `b`.
#[inline(always)]
fn words(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// Checks every record's references against the kind table: in range, none only where
/// allowed, the field's target kind. Runs beside the builder (which copies references
/// unchecked) and parses the records the same way, so a structural error is found by
/// both at the same offset.
fn check_references(records: &[u8], from: usize, kinds: &[u8]) -> Result<(), BinError> {
    let mut r = Reader {
        b: records,
        at: from,
    };
    for &kb in kinds {
        let kind = EntryKind::ALL[kb as usize];
        let layout = kind.layout();
        let rec = r.record(kind)?;
        let mut at = rec.words_at;
        let mut w = words(rec.words);
        for f in layout.singles {
            check_ref(w.next().unwrap_or(0), kinds, f.target, true, at)?;
            at += 4;
        }
        for (list, len) in layout.lists.iter().zip(words(rec.lens)) {
            for _ in 0..len {
                check_ref(w.next().unwrap_or(0), kinds, list.target, false, at)?;
                at += 4;
            }
        }
        for f in layout.refs {
            check_ref(w.next().unwrap_or(0), kinds, f.target, true, at)?;
            at += 4;
        }
    }
    Ok(())
}

/// Of two errors, the one a single front-to-back read meets first (the builder's on a
/// tie).
fn first_error(built: BinError, checked: BinError) -> BinError {
    if checked.offset < built.offset {
        checked
    } else {
        built
    }
}

/// Files at least this large are checked (checksum and references) on a second thread
/// while the world is built.
const PARALLEL_CHECK_BYTES: usize = 1 << 20;

/// Reads a binary IL file into a new world. A file of 1 MiB or more has its checksum
/// and references checked on a second (scoped) thread while this one builds the world;
/// the result is the same as [`read_il_single_threaded`]'s: the error met first in file
/// order, the checksum's before any other.
///
/// # Errors
/// A [`BinError`] naming the byte offset for a wrong magic, version or checksum, a
/// truncated file, a count larger than the file, an unknown kind, a dangling reference or
/// a reference to an entry of the wrong kind. Never panics.
pub fn read_il(bytes: &[u8]) -> Result<Il, BinError> {
    read_il_on(bytes, bytes.len() >= PARALLEL_CHECK_BYTES)
}

/// [`read_il`] on the calling thread alone (for hosts that must not start threads):
/// the same world or the same error, checked after the world is built.
pub fn read_il_single_threaded(bytes: &[u8]) -> Result<Il, BinError> {
    read_il_on(bytes, false)
}

fn read_il_on(bytes: &[u8], parallel: bool) -> Result<Il, BinError> {
    let r = Reader { b: bytes, at: 0 };
    if bytes.len() < 16 + 8 || &bytes[..8] != MAGIC {
        return r.err("not an ilkit binary IL file (bad magic)");
    }
    let body_len = bytes.len() - 8;
    let stored = u64::from_le_bytes(bytes[body_len..].try_into().unwrap_or([0; 8]));
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != VERSION {
        return Err(BinError {
            offset: 8,
            message: format!("unsupported version {version} (this build reads {VERSION})"),
        });
    }
    let body = &bytes[..body_len];
    let verify_sum = || {
        if checksum(body) != stored {
            return Err(BinError {
                offset: body_len,
                message: "checksum mismatch: the file is corrupted".into(),
            });
        }
        Ok(())
    };
    // The checksum comes first: nothing in a corrupted file is reported but that. The
    // builder copies references unchecked; `check_references` checks them. On a large
    // file both checks run on a second thread while the world is built, and the world is
    // dropped if either fails.
    let (checked, built) = if parallel {
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::channel();
            // The outer result is the checksum's, the inner one the references'.
            let checker = s.spawn(move || {
                verify_sum()?;
                // No records when the builder failed on the header: it reports that.
                Ok(rx.recv().map_or(Ok(()), |(records, from, kinds)| {
                    check_references(records, from, kinds)
                }))
            });
            let built = build(body, |records, from, kinds| {
                let _ = tx.send((records, from, kinds));
            });
            drop(tx);
            let checked = checker.join().unwrap_or_else(|_| {
                Ok(Err(BinError {
                    offset: 0,
                    message: "reference checker panicked".into(),
                }))
            });
            (checked, built)
        })
    } else {
        verify_sum()?;
        let mut layout = None;
        let built = build(body, |records, from, kinds| {
            layout = Some((records, from, kinds))
        });
        let checked = layout.map_or(Ok(()), |(records, from, kinds)| {
            check_references(records, from, kinds)
        });
        (Ok(checked), built)
    };
    match (checked?, built) {
        (Ok(()), Ok(il)) => {
            il.debug_verify("read_il");
            Ok(il)
        }
        (Err(c), Ok(_)) => Err(c),
        (Ok(()), Err(b)) => Err(b),
        (Err(c), Err(b)) => Err(first_error(b, c)),
    }
}

/// Builds the world from the body (the file without its checksum), references copied
/// unchecked; `records` is told where the records and the kind table are once the header
/// is read.
fn build<'a>(
    body: &'a [u8],
    records: impl FnOnce(&'a [u8], usize, &'a [u8]),
) -> Result<Il, BinError> {
    let mut r = Reader { b: body, at: 12 };
    let _flags = r.u32le()?;
    let mut il = Il::new();
    il.compiler_version = r.opt_bytes()?.map(<[u8]>::to_vec);
    il.time_of_compilation = r.opt_bytes()?.map(<[u8]>::to_vec);
    let main_at = r.at;
    let main = r.u32le()?;
    let scope_at = r.at;
    let scope = r.u32le()?;
    // Each entry takes its record head and its byte in the kind table.
    let n = r.count32("entry", RECORD_HEAD + 1)?;
    // The kind table: the last `n` bytes before the checksum.
    let kinds_at = r.b.len() - n;
    let kinds = &r.b[kinds_at..];
    r.b = &r.b[..kinds_at];
    let mut per_kind = [0usize; KINDS];
    for (i, &kb) in kinds.iter().enumerate() {
        match EntryKind::from_u8(kb) {
            Some(k) if k.has_table() => per_kind[kb as usize] += 1,
            _ => {
                return Err(BinError {
                    offset: kinds_at + i,
                    message: format!("entry kind {kb} cannot be allocated"),
                })
            }
        }
    }
    records(r.b, r.at, kinds);
    // Entries are allocated in record order into a fresh world, so record `i` becomes
    // dense index `i`: edges are written as final indices while reading (no pending
    // list, no relocation).
    // A record's bytes past its head, scalars and string length words are string bytes
    // or edge words, so a quarter of what is left bounds the edge pool (over by the string
    // bytes): it is reserved once, never regrown and copied while building.
    let fixed: usize = per_kind
        .iter()
        .zip(EntryKind::ALL)
        .map(|(&c, k)| {
            c * (RECORD_HEAD + SCALAR_BYTES[k as usize] as usize + 4 * k.layout().strings.len())
        })
        .sum();
    il.reserve(n, (r.b.len() - r.at).saturating_sub(fixed) / 4);
    for (k, &c) in per_kind.iter().enumerate() {
        if let Some(kind) = EntryKind::from_u8(k as u8) {
            il.reserve_kind(kind, c);
        }
    }
    let mut regions: Vec<RegionIdx> = vec![RegionIdx::FILE_SCOPE];
    for (i, &kb) in kinds.iter().enumerate() {
        let kind = EntryKind::ALL[kb as usize];
        let at = r.at;
        let head = r.take(RECORD_HEAD)?;
        let bits = head[0];
        let pos = SourcePos {
            col: u16::from_le_bytes([head[1], head[2]]),
            file: u16::from_le_bytes([head[3], head[4]]),
            line: u32::from_le_bytes([head[9], head[10], head[11], head[12]]),
        };
        let ro = u32::from_le_bytes([head[5], head[6], head[7], head[8]]) as usize;
        if ro > regions.len() {
            return Err(BinError {
                offset: at + 5,
                message: format!("region {ro} out of order"),
            });
        }
        if ro == regions.len() {
            let fr = il.open_function_region(None);
            regions.push(fr);
        }
        let rec = r.record_after_head(kind)?;
        let layout = kind.layout();
        // The edge block as the world stores it (references, list lengths, single slots,
        // list members; the file has the references last), appended to the world's edge
        // pool in place (reserved above); ordinal `o` is dense index `o - 1` (0 wraps to
        // none).
        let (kids, refs) = rec.words.split_at(rec.words.len() - 4 * layout.refs.len());
        let edges = il.edges_for_build();
        edges.extend(words(refs).map(|o| Eix(o.wrapping_sub(1))));
        edges.extend(words(rec.lens).map(Eix));
        edges.extend(words(kids).map(|o| Eix(o.wrapping_sub(1))));
        let nchild = (kids.len() / 4) as u32;
        let e = Eix(i as u32);
        let row = il
            .push_row_from_bytes(kind, e, rec.scalars)
            .map_err(|m| BinError {
                offset: at,
                message: format!("record {}: {m}", i + 1),
            })?;
        let pushed = il.push_built_entry(BuiltEntry {
            kind,
            region: regions[ro],
            pos,
            row,
            nchild,
            flags: FLAG_MASKS[bits as usize & 31],
        });
        debug_assert_eq!(pushed, e);
        for (s, bytes) in rec.strings.iter().enumerate() {
            if let Some(bytes) = bytes {
                il.set_string_eix(e, s, bytes);
            }
        }
    }
    il.switch_region(RegionIdx::FILE_SCOPE)
        .map_err(|e| BinError {
            offset: r.at,
            message: e.to_string(),
        })?;
    let resolve = |o: u32, at: usize| -> Result<Eix, BinError> {
        if o == 0 || o as usize > n {
            return Err(BinError {
                offset: at,
                message: format!("reference to entry {o} of {n}"),
            });
        }
        Ok(Eix(o - 1))
    };
    let check = |il: &Il, target: Option<EntryKind>, c: Eix, at: usize| -> Result<(), BinError> {
        match target {
            Some(t) if il.kind(c) != t => Err(BinError {
                offset: at,
                message: format!(
                    "expected a {} entry, found a {}",
                    t.name(),
                    il.kind(c).name()
                ),
            }),
            _ => Ok(()),
        }
    };
    let ext = r.count("external type", 1)?;
    for _ in 0..ext {
        let at = r.at;
        let o = r.var_u32("reference")?;
        if o == 0 {
            return Err(BinError {
                offset: at,
                message: "external type 0 (none)".into(),
            });
        }
        let t = resolve(o, at)?;
        let id = il.id_of(t);
        il.add_external_type(id).map_err(|e| BinError {
            offset: at,
            message: e.to_string(),
        })?;
    }
    if r.at != r.b.len() {
        return r.err(format!("{} trailing bytes", r.b.len() - r.at));
    }
    let header = |o: u32,
                  at: usize,
                  kind: EntryKind,
                  il: &Il|
     -> Result<Option<crate::il::EntryId>, BinError> {
        if o == 0 {
            return Ok(None);
        }
        let e = resolve(o, at)?;
        check(il, Some(kind), e, at)?;
        Ok(Some(il.id_of(e)))
    };
    il.main_routine = header(main, main_at, EntryKind::Routine, &il)?;
    il.primary_scope = header(scope, scope_at, EntryKind::Scope, &il)?;
    // Blocks were appended in record order: the pool has no garbage to compact.
    debug_assert_eq!(il.edge_garbage(), 0);
    Ok(il)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::il::{fields as F, synth::generate};

    /// The numbering as the generic walker makes it: the seed's pre-walk check, entry
    /// filter and entry visitor, the form the writer had before `walk::preorder`.
    struct WalkerNumbering(Numbering);

    impl crate::walk::Callbacks for WalkerNumbering {
        const HAS_ENTRY: bool = true;
        const HAS_PRE_WALK: bool = true;
        const HAS_FILTER: bool = true;
        const FILTER_REMOVES: bool = false;

        fn pre_walk_check(&mut self, il: &mut Il, e: Eix, _k: EntryKind) -> bool {
            self.0.ord(e) != 0 || (self.0.ords.device && !il.flag(e, Flag::KeepInIl))
        }
        fn entry(&mut self, il: &mut Il, e: Eix, _k: EntryKind) -> Option<Eix> {
            assert!(self.0.enter(il, e));
            None
        }
        fn entry_filter(&mut self, il: &mut Il, e: Eix, _k: EntryKind) -> Option<Eix> {
            (!self.0.ords.device || il.flag(e, Flag::KeepInIl)).then_some(e)
        }
    }

    /// The read-only numbering walk enters the entries the generic walker enters, in the
    /// same order, for whole and device IL, and so do the walks from unreached targets.
    #[test]
    fn preorder_numbers_as_the_walker_does() {
        use crate::walk::keep::mark_to_keep_in_il;
        let mut worlds: Vec<Il> = (1..6).map(|seed| generate(seed, 0.05)).collect();
        for name in ["kernels", "nttp", "subst", "templates"] {
            let path = format!(
                "{}/tests/fixtures/clang/{name}.json.gz",
                env!("CARGO_MANIFEST_DIR")
            );
            let mut il = Il::new();
            crate::import::clang_json::import_file(&mut il, path.as_ref()).unwrap();
            worlds.push(il);
        }
        for (w, il) in worlds.iter_mut().enumerate() {
            mark_to_keep_in_il(il, &[]);
            for device in [false, true] {
                let mut walked = WalkerNumbering(Numbering::new(il, device));
                crate::walk::Walker::new()
                    .walk_file_scope_il(il, &mut walked, 0)
                    .unwrap();
                let mut fast = Numbering::new(il, device);
                file_scope_preorder(il, &mut |e| fast.enter(il, e)).unwrap();
                assert!(
                    fast.seq.order == walked.0.seq.order,
                    "world {w} device {device}"
                );
                assert!(fast.seq.ros == walked.0.seq.ros && fast.seq.kinds == walked.0.seq.kinds);
                // Subtrees from entries no walk reached (each its own walk).
                let rest: Vec<Eix> = il.entries().filter(|e| fast.ord(*e) == 0).collect();
                let mut walker = crate::walk::Walker::new();
                for &e in rest.iter().take(200) {
                    walker.walk_entry_and_subtree(il, &mut walked, e).unwrap();
                    let mut stack = Vec::new();
                    subtree_preorder(il, e, &mut stack, &mut |e| fast.enter(il, e)).unwrap();
                }
                assert!(
                    fast.seq.order == walked.0.seq.order,
                    "world {w} device {device}"
                );
            }
        }
    }

    /// A list member that is none (a world that fails `verify`) is an error naming the
    /// entry and the list, on every path of the writer; no record is dropped short.
    #[test]
    fn a_none_list_member_is_an_error() {
        // A source file's child files (also read for the walk's roots) and a list of
        // another kind.
        for source_file in [true, false] {
            let mut il = generate(3, 0.05);
            let (e, list) = il
                .entries()
                .filter(|&e| (il.kind(e) == EntryKind::SourceFileEntry) == source_file)
                .find_map(|e| {
                    let lens = il.list_lengths(e);
                    let l = lens.iter().position(|l| l.0 > 1)?;
                    Some((e, l))
                })
                .unwrap();
            let kind = il.kind(e);
            let (at, _) = il.list_pos(e, list as u32);
            il.replace_child_at(e, at + 1, Eix::NONE);
            assert!(!il.verify().is_empty());
            let want = WriteError::NoneListMember {
                entry: il.id_of(e),
                kind,
                list: kind.layout().lists[list].name,
                member: 1,
            };
            assert_eq!(write_il_on(&il, false, Threads::One), Err(want.clone()));
            assert_eq!(
                write_il_on(&il, false, Threads::Pool { min_entries: 0 }),
                Err(want.clone())
            );
            for chunk in [16, 1000] {
                let threads = Threads::Interleaved { chunk };
                assert_eq!(write_il_on(&il, false, threads), Err(want.clone()));
            }
            assert_eq!(write_il(&mut il, false), Err(want.clone()));
            crate::walk::keep::mark_to_keep_in_il(&mut il, &[]);
            if il.flag(e, Flag::KeepInIl) {
                assert_eq!(write_il(&mut il, true), Err(want.clone()));
            }
            let message = want.to_string();
            assert!(
                message.contains(kind.name()) && message.contains(kind.layout().lists[list].name),
                "{message}"
            );
        }
    }

    /// The parallel records pass writes the single-threaded bytes, including records
    /// that name an entry no walk reached (written again in place once it is numbered).
    #[test]
    fn parallel_records_write_the_single_threaded_bytes() {
        for seed in 1..4 {
            let mut il = generate(seed, 0.05);
            // Statements only a label's reference reaches: numbered while writing.
            let labels: Vec<Eix> = il.kind_list(EntryKind::Label).take(8).collect();
            il.open_function_region(None);
            let stmts: Vec<Eix> = labels
                .iter()
                .map(|_| {
                    let id = il.alloc(EntryKind::Statement).unwrap();
                    il.eix(id).unwrap()
                })
                .collect();
            il.switch_region(RegionIdx::FILE_SCOPE).unwrap();
            for (&l, &s) in labels.iter().zip(&stmts) {
                il.set_ref_eix(l, F::LABEL_TARGET_STMT, s).unwrap();
            }
            let one = write_il_on(&il, false, Threads::One).unwrap();
            let all = write_il_on(&il, false, Threads::Pool { min_entries: 0 }).unwrap();
            assert!(
                one == all,
                "seed {seed}: {} vs {} bytes",
                one.len(),
                all.len()
            );
            // Records written behind the walk, some of them before an entry they name
            // was numbered (written again once it is); the labels' statements are
            // numbered only after the walk.
            for chunk in [16, 64, 1000] {
                let threads = Threads::Interleaved { chunk };
                let mut num = Numbering::new(&il, false);
                let trailing = number_with_trailing_writer(&il, &mut num, threads).unwrap();
                assert!(trailing.sizes.len() + 2 * chunk > num.seq.order.len());
                assert!(!trailing.deferred.is_empty(), "seed {seed} chunk {chunk}");
                let trailed = write_il_on(&il, false, threads).unwrap();
                assert!(one == trailed, "seed {seed} chunk {chunk}");
            }
            let back = read_il(&all).unwrap();
            assert!(back.verify().is_empty());
            let plain = {
                let mut fresh = generate(seed, 0.05);
                read_il(&write_il(&mut fresh, false).unwrap())
                    .unwrap()
                    .len()
            };
            assert_eq!(
                back.len(),
                plain + stmts.len(),
                "seed {seed}: the statements are written"
            );
        }
    }
}
