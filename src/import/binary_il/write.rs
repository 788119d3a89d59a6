//! The writer: the numbering walk, records, the trailing writer and the parallel stretches.

use super::{checksum, WriteError, MAGIC, RECORD_HEAD, VERSION};
use crate::il::{Eix, EntryId, Flag, Il, RegionIdx, SCALAR_BYTES};
use crate::walk::preorder::{file_scope_preorder, subtree_preorder};
use crate::walk::WalkError;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{channel, Receiver};

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

    /// The numbering walk over the file-scope IL, handing `publish` each `chunk` entries
    /// it numbers, with their region ordinals, for the trailing writer.
    fn number_in_chunks(
        &mut self,
        ords: &Ordinals,
        il: &Il,
        chunk: usize,
        mut publish: impl FnMut(Vec<(Eix, u32)>),
    ) -> Result<(), WalkError> {
        let mut sent = 0;
        file_scope_preorder(il, &mut |e| {
            let entered = self.enter(ords, il, e);
            if entered && self.order.len() - sent == chunk {
                publish(
                    self.order[sent..]
                        .iter()
                        .copied()
                        .zip(self.ros[sent..].iter().copied())
                        .collect(),
                );
                sent = self.order.len();
            }
            entered
        })
    }
}

/// Appends record `i` of `num`'s order to `out`, its references translated through `num`.
fn emit(out: &mut Vec<u8>, il: &Il, num: &Numbering, i: usize) -> Refs {
    let e = num.seq.order[i];
    let size = record_size(il, e);
    let base = out.len();
    // Zeroed room by copy (`resize` stores the zeros a byte at a time).
    const ZEROS: [u8; 256] = [0; 256];
    match ZEROS.get(..size) {
        Some(z) => out.extend_from_slice(z),
        None => out.resize(base + size, 0),
    }
    let (end, refs) = write_record(il, &num.ords, num.seq.ros[i], e, &mut out[base..]);
    out.truncate(base + end);
    refs
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
        let (members, tail) = rest.split_at(len.idx());
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
        d.copy_from_slice(&l.raw().to_le_bytes());
    }
    // Single slots may be none; a list member never may (it would leave its list).
    let singles = kids.len() - lens.iter().map(|l| l.idx()).sum::<usize>();
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

/// Bytes per live entry of the zeroed room the trailing writer writes into (the file's
/// records average ~45 B in a generated TU): the room is allocated untouched (fresh
/// pages), so what the records do not use costs address space only. A record that does
/// not fit stops the trailing writer; the parallel pass grows the file.
const ROOM_PER_ENTRY: usize = 64;

/// Records written on a second thread while the numbering walk runs, a chunk behind it,
/// straight into their place in the file: a record whose references name an entry not
/// numbered yet when it is written (or a none list member) is written with 0 there and
/// listed, to be written again in place once the walk is done. Each record gets its
/// whole [`record_size`] (the whole IL: no list member is left out), so later records'
/// places do not depend on what was listed.
struct Trailing<'b> {
    /// The file after its header (zeroed).
    room: &'b mut [u8],
    /// Bytes written.
    at: usize,
    /// Sizes of the records written, in order.
    sizes: Vec<u32>,
    /// The ones to write again (indices into the order), in order.
    deferred: Vec<usize>,
    /// A record did not fit: nothing more is written.
    full: bool,
}

impl<'b> Trailing<'b> {
    fn new(room: &'b mut [u8]) -> Self {
        Trailing {
            room,
            at: 0,
            sizes: Vec::new(),
            deferred: Vec::new(),
            full: false,
        }
    }

    /// Writes the next records, `chunk` (entries with their region ordinals), while
    /// they fit.
    fn write(&mut self, il: &Il, ords: &Ordinals, chunk: &[(Eix, u32)]) {
        if self.full {
            return;
        }
        for &(e, ro) in chunk {
            let size = record_size(il, e);
            let Some(buf) = self.room.get_mut(self.at..self.at + size) else {
                self.full = true;
                return;
            };
            let (_, refs) = write_record(il, ords, ro, e, buf);
            if refs != Refs::Numbered {
                self.deferred.push(self.sizes.len());
            }
            self.sizes.push(size as u32);
            self.at += size;
        }
    }

    /// Receives chunks until the walk is done, each written once the next has come (so
    /// most of its references are numbered); what is left when the walk is done (or the
    /// room is full) is the parallel pass's.
    fn follow(
        mut self,
        il: &Il,
        ords: &Ordinals,
        rx: Receiver<Vec<(Eix, u32)>>,
        done: &AtomicBool,
    ) -> Self {
        let mut held: Option<Vec<(Eix, u32)>> = None;
        while let Ok(chunk) = rx.recv() {
            if done.load(Ordering::Acquire) || self.full {
                break;
            }
            if let Some(h) = held.replace(chunk) {
                self.write(il, ords, &h);
            }
        }
        self
    }
}

/// Where records lie in the file, asked for in increasing order: record `i` starts after
/// the header (`head` bytes) and the records before it (`sizes`).
struct Places<'s> {
    sizes: &'s [u32],
    at: usize,
    next: usize,
}

impl<'s> Places<'s> {
    fn new(head: usize, sizes: &'s [u32]) -> Self {
        Places {
            sizes,
            at: head,
            next: 0,
        }
    }

    /// The bytes of record `i` (at or after the one asked for last).
    fn of(&mut self, i: usize) -> std::ops::Range<usize> {
        self.at += self.sizes[self.next..i]
            .iter()
            .map(|&s| s as usize)
            .sum::<usize>();
        self.next = i;
        self.at..self.at + self.sizes[i] as usize
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
    Interleaved { chunk: usize, room: usize },
}

impl Threads {
    /// Bytes per live entry of the trailing writer's room.
    fn room_per_entry(self) -> usize {
        match self {
            #[cfg(test)]
            Threads::Interleaved { room, .. } => room,
            _ => ROOM_PER_ENTRY,
        }
    }
}

/// Numbers `il`'s file-scope IL into `num` (whole IL) while a trailing writer writes
/// records behind the walk into `room`; returns what it wrote.
fn number_with_trailing_writer<'b>(
    il: &Il,
    num: &mut Numbering,
    threads: Threads,
    room: &'b mut [u8],
) -> Result<Trailing<'b>, WalkError> {
    let Numbering { ords, seq } = num;
    let ords: &Ordinals = ords;
    #[cfg(test)]
    if let Threads::Interleaved { chunk, .. } = threads {
        let mut trailing = Trailing::new(room);
        let mut held = None;
        seq.number_in_chunks(ords, il, chunk, |c| {
            if let Some(h) = held.replace(c) {
                trailing.write(il, ords, &h);
            }
        })?;
        return Ok(trailing);
    }
    let _ = threads;
    let (tx, rx) = channel();
    let done = &AtomicBool::new(false);
    let (walked, trailing) = rayon::join(
        || {
            // A send fails only when the writer has stopped: nothing to do.
            let walked = seq.number_in_chunks(ords, il, CHUNK, |c| {
                let _ = tx.send(c);
            });
            done.store(true, Ordering::Release);
            drop(tx);
            walked
        },
        move || Trailing::new(room).follow(il, ords, rx, done),
    );
    walked.map(|()| trailing)
}

/// The records of `num`'s order from `first` on (the whole IL: no list member is left
/// out, so every record's size is known before it is written) written in parallel
/// stretches straight into their place in `file` after its first `before` bytes (the
/// header and the records before `first`). The file is grown (zeroed) if its room is
/// short and cut after the records, keeping room for `tail` more bytes. Returns the
/// sizes of the records written and the records (indices into the order) that name an
/// entry no walk numbered or have a list member that is none, in order.
fn write_records_parallel(
    il: &Il,
    num: &Numbering,
    file: &mut Vec<u8>,
    before: usize,
    first: usize,
    tail: usize,
) -> (Vec<u32>, Vec<usize>) {
    let order = &num.seq.order[first..];
    let sizes: Vec<u32> = order
        .par_iter()
        .map(|&e| record_size(il, e) as u32)
        .collect();
    let total: usize = sizes.iter().map(|&s| s as usize).sum();
    if file.len() < before + total + tail {
        file.resize(before + total + tail, 0);
    }
    // The room for the tail (kind table, checksum) stays allocated, so appending it does
    // not move the file.
    file.truncate(before + total);
    let stretch = (order.len() / (4 * rayon::current_num_threads().max(1))).max(1 << 12);
    let mut jobs = Vec::new();
    let mut rest = &mut file[before..];
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
    let missing: Vec<Vec<usize>> = jobs
        .into_par_iter()
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
        .collect();
    (sizes, missing.concat())
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
        // Zeroed by the allocator (fresh pages): each writer faults its own pages in.
        let head = out.len();
        let mut file = vec![0u8; head + threads.room_per_entry() * il.len()];
        file[..head].copy_from_slice(&out);
        let Trailing {
            at: room_used,
            mut sizes,
            deferred,
            ..
        } = number_with_trailing_writer(il, &mut num, threads, &mut file[head..])?;
        let first = sizes.len();
        // The tail: external types (a varint count and refs), kind table, checksum.
        let tail = 5 * (il.external_types().count() + 1) + num.seq.order.len() + 8;
        let (rest, late) =
            write_records_parallel(il, &num, &mut file, head + room_used, first, tail);
        out = file;
        sizes.extend_from_slice(&rest);
        // The trailing writer's listed records, written again now that the walk is done;
        // those that still name an unnumbered entry join the parallel pass's.
        let mut missing = Vec::new();
        let mut places = Places::new(head, &sizes);
        for &d in &deferred {
            let (e, ro) = (num.seq.order[d], num.seq.ros[d]);
            let (_, refs) = write_record(il, &num.ords, ro, e, &mut out[places.of(d)]);
            if refs != Refs::Numbered {
                missing.push(d);
            }
        }
        missing.extend(late);
        // Records that name an entry no walk reached: in order, as the sequential pass
        // below does, the entry is numbered and the record written again in its place
        // (its size does not depend on ordinals).
        let mut places = Places::new(head, &sizes);
        for &m in &missing {
            let e = num.seq.order[m];
            number_unreached_targets(il, &mut num, e)?;
            let (_, refs) = write_record(il, &num.ords, num.seq.ros[m], e, &mut out[places.of(m)]);
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
    // The parallel path's room past the file (address space only: never touched).
    if out.capacity() > out.len() + out.len() / 4 {
        out.shrink_to_fit();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::read_il;
    use super::*;
    use crate::il::{fields as F, synth::generate, EntryKind};

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

    /// The clang fixtures, imported.
    fn imported_worlds() -> Vec<Il> {
        ["kernels", "nttp", "subst", "templates"]
            .iter()
            .map(|name| {
                let path = format!(
                    "{}/tests/fixtures/clang/{name}.json.gz",
                    env!("CARGO_MANIFEST_DIR")
                );
                let mut il = Il::new();
                crate::import::clang_json::import_file(&mut il, path.as_ref()).unwrap();
                il
            })
            .collect()
    }

    /// The read-only numbering walk enters the entries the generic walker enters, in the
    /// same order, for whole and device IL, and so do the walks from unreached targets.
    #[test]
    fn preorder_numbers_as_the_walker_does() {
        use crate::walk::keep::mark_to_keep_in_il;
        let mut worlds: Vec<Il> = (1..6).map(|seed| generate(seed, 0.05)).collect();
        worlds.extend(imported_worlds());
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
                    let l = lens.iter().position(|l| l.raw() > 1)?;
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
            for (chunk, room) in [(16, ROOM_PER_ENTRY), (1000, ROOM_PER_ENTRY), (16, 8)] {
                let threads = Threads::Interleaved { chunk, room };
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
                let threads = Threads::Interleaved {
                    chunk,
                    room: ROOM_PER_ENTRY,
                };
                let mut num = Numbering::new(&il, false);
                let mut room = vec![0u8; ROOM_PER_ENTRY * il.len()];
                let trailing =
                    number_with_trailing_writer(&il, &mut num, threads, &mut room).unwrap();
                assert!(!trailing.full);
                assert!(trailing.sizes.len() + 2 * chunk > num.seq.order.len());
                assert!(!trailing.deferred.is_empty(), "seed {seed} chunk {chunk}");
                let trailed = write_il_on(&il, false, threads).unwrap();
                assert!(one == trailed, "seed {seed} chunk {chunk}");
            }
            // A room too small for every record: the trailing writer stops at the first
            // that does not fit, the parallel pass grows the file.
            for room in [0, 8, 30] {
                let threads = Threads::Interleaved { chunk: 16, room };
                let mut num = Numbering::new(&il, false);
                let mut space = vec![0u8; room * il.len()];
                let trailing =
                    number_with_trailing_writer(&il, &mut num, threads, &mut space).unwrap();
                assert!(trailing.full, "room {room}");
                let trailed = write_il_on(&il, false, threads).unwrap();
                assert!(one == trailed, "seed {seed} room {room}");
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

    /// Imported worlds (a real front end's shapes) written behind the walk at several
    /// chunk sizes: the single-threaded bytes, and a world that reads back.
    #[test]
    fn trailing_writer_writes_imported_worlds_as_one_thread() {
        for (w, il) in imported_worlds().iter().enumerate() {
            let one = write_il_on(il, false, Threads::One).unwrap();
            for chunk in [1, 7, 64] {
                let threads = Threads::Interleaved {
                    chunk,
                    room: ROOM_PER_ENTRY,
                };
                let trailed = write_il_on(il, false, threads).unwrap();
                assert!(one == trailed, "world {w} chunk {chunk}");
            }
            assert!(read_il(&one).unwrap().verify().is_empty());
        }
    }
}
