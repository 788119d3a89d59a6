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
//! same as [`write_il_single_threaded`]'s. The reader checks the checksum and every
//! reference on a second thread, which also makes the world's edge pool from them, while
//! it builds the rest of the world (see [`read_il`]).
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

use crate::il::{EntryId, EntryKind, Flag};
use crate::walk::WalkError;
use std::fmt;

mod read;
mod write;

pub use read::{read_il, read_il_single_threaded};
pub use write::{write_il, write_il_single_threaded};

pub(crate) const MAGIC: &[u8; 8] = b"ILKIT-IL";
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
    /// A list member is none, which only a world that fails [`Il::verify`](crate::il::Il::verify) holds: the
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
