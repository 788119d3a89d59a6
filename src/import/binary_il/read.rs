//! The reader: the builder, and the checksum and reference checks beside it.

use super::{checksum, BinError, FLAG_MASKS, KINDS, MAGIC, RECORD_HEAD, VERSION};
use crate::il::{BuiltEntry, Eix, EntryKind, Il, RegionIdx, SourcePos, SCALAR_BYTES};

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
            _ => Ok(Eix::from_raw(o - 1)),
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
/// allowed, the field's target kind; and makes the world's edge pool from them (each
/// record's block as the world stores it: references, list lengths, single slots, list
/// members; ordinal `o` is dense index `o - 1`, 0 wrapping to none), with room for `cap`
/// slots. Runs beside the builder (which builds everything else) and parses the records
/// the same way, so a structural error is found by both at the same offset.
fn check_references(
    records: &[u8],
    from: usize,
    kinds: &[u8],
    cap: usize,
) -> Result<Vec<Eix>, BinError> {
    let mut r = Reader {
        b: records,
        at: from,
    };
    let mut edges = Vec::with_capacity(cap);
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
        let (kids, refs) = rec.words.split_at(rec.words.len() - 4 * layout.refs.len());
        edges.extend(words(refs).map(|o| Eix::from_raw(o.wrapping_sub(1))));
        edges.extend(words(rec.lens).map(Eix::from_raw));
        edges.extend(words(kids).map(|o| Eix::from_raw(o.wrapping_sub(1))));
    }
    Ok(edges)
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

/// Files at least this large are checked (checksum and references, which also make the
/// edge pool) on a second thread while the rest of the world is built.
const PARALLEL_CHECK_BYTES: usize = 1 << 20;

/// Reads a binary IL file into a new world. A file of 1 MiB or more has its checksum
/// and references checked, and the world's edge pool made from them, on a second
/// (scoped) thread while this one builds the rest of the world;
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
    // builder builds everything but the edge pool; `check_references` checks the
    // references and makes the pool from them. On a large file the checksum and the
    // references run on a second thread while the rest of the world is built, and the
    // world is dropped if either fails.
    let (checked, built) = if parallel {
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::channel();
            // The outer result is the checksum's, the inner one the references'.
            let checker = s.spawn(move || {
                verify_sum()?;
                // No records when the builder failed on the header: it reports that.
                Ok(rx
                    .recv()
                    .map_or(Ok(Vec::new()), |(records, from, kinds, cap)| {
                        check_references(records, from, kinds, cap)
                    }))
            });
            let built = build(body, |records, from, kinds, cap| {
                let _ = tx.send((records, from, kinds, cap));
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
        let built = build(body, |records, from, kinds, cap| {
            layout = Some((records, from, kinds, cap))
        });
        let checked = layout.map_or(Ok(Vec::new()), |(records, from, kinds, cap)| {
            check_references(records, from, kinds, cap)
        });
        (Ok(checked), built)
    };
    match (checked?, built) {
        (Ok(edges), Ok((mut il, pool))) => {
            // Both passes parse every record the same way, so the pool is the blocks the
            // builder placed.
            if edges.len() != pool {
                return Err(BinError {
                    offset: body_len,
                    message: format!("edge pool of {} slots, {pool} expected", edges.len()),
                });
            }
            il.finish_build(edges);
            il.debug_verify("read_il");
            Ok(il)
        }
        (Err(c), Ok(_)) => Err(c),
        (Ok(_), Err(b)) => Err(b),
        (Err(c), Err(b)) => Err(first_error(b, c)),
    }
}

/// Builds the world from the body (the file without its checksum) but for its edge pool
/// (which [`check_references`] makes); `records` is told where the records and the kind
/// table are once the header is read, and how many edge slots to reserve. Returns the
/// world and the length its edge pool must have.
fn build<'a>(
    body: &'a [u8],
    records: impl FnOnce(&'a [u8], usize, &'a [u8], usize),
) -> Result<(Il, usize), BinError> {
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
    // Entries are allocated in record order into a fresh world, so record `i` becomes
    // dense index `i`: edges are written as final indices while reading (no pending
    // list, no relocation).
    // A record's bytes past its head, scalars and string length words are string bytes
    // or edge words, so a quarter of what is left bounds the edge pool (over by the string
    // bytes): the pool's maker reserves it once, never regrown and copied.
    let fixed: usize = per_kind
        .iter()
        .zip(EntryKind::ALL)
        .map(|(&c, k)| {
            c * (RECORD_HEAD + SCALAR_BYTES[k as usize] as usize + 4 * k.layout().strings.len())
        })
        .sum();
    records(
        r.b,
        r.at,
        kinds,
        (r.b.len() - r.at).saturating_sub(fixed) / 4,
    );
    il.reserve(n, 0);
    for (k, &c) in per_kind.iter().enumerate() {
        if let Some(kind) = EntryKind::from_u8(k as u8) {
            il.reserve_kind(kind, c);
        }
    }
    let mut regions: Vec<RegionIdx> = vec![RegionIdx::FILE_SCOPE];
    // Edge slots of the records so far.
    let mut pool = 0usize;
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
        // list members), which `check_references` writes into the pool: the children
        // start after the references and list lengths.
        let nchild = rec.words.len() / 4 - layout.refs.len();
        let start = pool + layout.refs.len() + layout.lists.len();
        pool = start + nchild;
        let e = Eix::new(i);
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
            start: start as u32,
            flags: FLAG_MASKS[bits as usize & 31],
        });
        debug_assert_eq!(pushed, e);
        for (s, bytes) in rec.strings.iter().enumerate() {
            if let Some(bytes) = bytes {
                il.set_built_string(e, s, bytes);
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
        Ok(Eix::from_raw(o - 1))
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
    Ok((il, pool))
}
