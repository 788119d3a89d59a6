//! Front doors: readers of the real formats ilkit consumes. Each turns a format into
//! engine values and nothing else; the engine never knows which format a value came from.
//!
//! | format | reader | engine value |
//! |---|---|---|
//! | LLVM IR text (`.ll`, clang 14–19 / `opt` output) | [`llvm_ir`] | [`crate::llvm::Module`] (`Module::from_ll_file`) |
//! | PTX text (`llc -march=nvptx64`, NVIDIA tools) | [`ptx`] | one [`crate::cfg::Cfg`] per function (`Cfg::from_ptx_file`) |
//! | clang JSON AST (`-Xclang -ast-dump=json`, `.json` / `.json.gz`) | [`clang_json`] | an [`crate::il::Il`] world |
//! | ilkit binary IL | [`binary_il`] | an [`crate::il::Il`] world, and back |

pub mod binary_il;
pub mod clang_json;
pub mod format;
pub mod llvm_ir;
pub mod ptx;

pub use format::{Detected, Format};

use std::io::Read;
use std::path::Path;

/// A text reader's failure (LLVM IR, PTX): the file, the 1-based line and column, and what
/// was expected. `line` is 0 when the error is not at a position (an I/O error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The file name given to the reader.
    pub file: String,
    /// 1-based line (0 when the error is not at a position, e.g. an I/O error).
    pub line: u32,
    /// 1-based column in bytes (0 when not at a position).
    pub column: u32,
    /// What went wrong / what was expected.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        }
    }
}

impl std::error::Error for ParseError {}

/// Why a file could not be read as text.
#[derive(Debug)]
pub enum ReadError {
    /// The OS refused (missing file, permissions, a directory, ...).
    Io(std::io::Error),
    /// The bytes are not UTF-8; `offset` is the first bad byte.
    NotUtf8 {
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
    /// A gzipped input decompresses to more than `limit` bytes.
    TooLarge {
        /// The limit ([`format::MAX_GUNZIPPED`]).
        limit: u64,
    },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
            ReadError::NotUtf8 { offset } => write!(f, "byte {offset}: not UTF-8 text"),
            ReadError::TooLarge { limit } => {
                write!(f, "decompresses to more than {limit} bytes")
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads a whole file (`-` is standard input) as bytes.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, ReadError> {
    if path.as_os_str() == "-" {
        let mut v = Vec::new();
        std::io::stdin()
            .read_to_end(&mut v)
            .map_err(ReadError::Io)?;
        return Ok(v);
    }
    read_file(path).map_err(ReadError::Io)
}

/// Files at least this large are read in pieces on rayon's pool when it has more than
/// one thread: the copy out of the page cache and the page faults of the buffer it
/// fills are then shared (a 10 MB module: 3.5 ms on one thread, 1.9 ms on two).
pub const PARALLEL_READ_BYTES: u64 = 4 << 20;

/// [`std::fs::read`], by pieces on rayon's pool for a regular file of at least
/// [`PARALLEL_READ_BYTES`] when the pool has more than one thread. The bytes are the
/// same either way: a piece read short (the file shrank) ends them there, and whatever
/// follows where they end (the file grew) is read after.
fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let threads = rayon::current_num_threads();
    let len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
    // the pieces' buffer is the length the file says it has: past a gigabyte the
    // reading grows a buffer as the bytes come instead
    let pieces = cfg!(unix) && meta.is_file() && threads > 1;
    if !pieces || !(PARALLEL_READ_BYTES..=1 << 30).contains(&meta.len()) {
        let mut v = Vec::with_capacity(len.min(1 << 30));
        file.read_to_end(&mut v)?;
        return Ok(v);
    }
    let mut buf = vec![0u8; len];
    let piece = len.div_ceil(threads);
    let got: Vec<std::io::Result<usize>> = {
        use rayon::prelude::*;
        let file = &file;
        buf.par_chunks_mut(piece)
            .enumerate()
            .map(|(k, chunk)| read_full_at(file, chunk, (k * piece) as u64))
            .collect()
    };
    // the bytes up to the first piece read short
    let mut end = 0;
    for (k, n) in got.into_iter().enumerate() {
        let n = n?;
        end = k * piece + n;
        if n < piece.min(len - k * piece) {
            break;
        }
    }
    buf.truncate(end);
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(end as u64))?;
    file.read_to_end(&mut buf)?;
    Ok(buf)
}

/// Reads `buf.len()` bytes of `file` from `offset`, fewer at its end; the count read.
#[cfg(unix)]
fn read_full_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], offset + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Without positioned reads there are no pieces ([`read_file`] reads in one pass).
#[cfg(not(unix))]
fn read_full_at(_: &std::fs::File, _: &mut [u8], _: u64) -> std::io::Result<usize> {
    Ok(0)
}

/// Reads a whole file (`-` is standard input) as UTF-8 text, decompressing it when it is
/// gzip (`.ll.gz`, `.ptx.gz`; by its magic bytes, not its name). A `NotUtf8` offset counts
/// decompressed bytes.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    text_of(format::gunzip_if_gzip(read_bytes(path)?)?)
}

/// Bytes as UTF-8 text, or where they stop being UTF-8. At least
/// [`PARALLEL_READ_BYTES`] of them are checked in pieces on rayon's pool when it has more
/// than one thread (`benches/read.rs`: 10 MB of text with multi-byte characters,
/// 3.2–3.8 ms in one pass, 2.4 ms on two threads).
pub fn text_of(bytes: Vec<u8>) -> Result<String, ReadError> {
    if utf8_in_pieces(&bytes) {
        // SAFETY: `utf8_in_pieces` found every piece of `bytes` valid UTF-8, and the
        // pieces cover the bytes end to end: whole characters followed by whole
        // characters are valid UTF-8.
        return Ok(unsafe { String::from_utf8_unchecked(bytes) });
    }
    // one pass: small texts, one thread, and bad text, whose first bad byte this finds
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Whether `b` is UTF-8, checked in pieces on rayon's pool (one per thread); `false`
/// also when it is smaller than [`PARALLEL_READ_BYTES`] or the pool has one thread.
fn utf8_in_pieces(b: &[u8]) -> bool {
    use rayon::prelude::*;
    let threads = rayon::current_num_threads();
    if threads < 2 || (b.len() as u64) < PARALLEL_READ_BYTES {
        return false;
    }
    utf8_cuts(b, threads)
        .par_windows(2)
        .all(|w| std::str::from_utf8(&b[w[0]..w[1]]).is_ok())
}

/// Where pieces of `b` about `len / pieces` long begin, and its length: each cut moved
/// past up to three continuation bytes, so that in UTF-8 text no cut falls inside a
/// character (in other bytes a cut may, and the piece after it is not UTF-8).
fn utf8_cuts(b: &[u8], pieces: usize) -> Vec<usize> {
    let step = b.len().div_ceil(pieces.max(1)).max(1);
    let mut cuts = vec![0];
    for k in 1..pieces {
        let mut at = (k * step).min(b.len());
        for _ in 0..3 {
            if b.get(at).is_some_and(|&x| x & 0xC0 == 0x80) {
                at += 1;
            }
        }
        if at > cuts[cuts.len() - 1] && at < b.len() {
            cuts.push(at);
        }
    }
    cuts.push(b.len());
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `len` bytes of a pattern no two pieces share, in the temporary
    /// directory; removed on drop.
    struct TempFile(std::path::PathBuf, Vec<u8>);

    impl TempFile {
        fn new(tag: &str, len: usize) -> TempFile {
            let bytes: Vec<u8> = (0..len)
                .map(|i| b'a' + ((i * 7 + i / 4093) % 26) as u8)
                .collect();
            let path =
                std::env::temp_dir().join(format!("ilkit-read-{tag}-{}-{len}", std::process::id()));
            std::fs::write(&path, &bytes).unwrap();
            TempFile(path, bytes)
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn a_large_file_read_in_pieces_is_the_file() {
        let len = PARALLEL_READ_BYTES as usize + 12_345;
        for (tag, len) in [("large", len), ("small", 1_000)] {
            let f = TempFile::new(tag, len);
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let got = pool.install(|| read_bytes(&f.0)).unwrap();
                assert!(got == f.1, "{len} bytes on {threads} threads");
                let text = pool.install(|| read_text(&f.0)).unwrap();
                assert_eq!(text.len(), len);
            }
        }
    }

    /// Text of one- to four-byte characters, `len` bytes or a few more.
    fn mixed_text(len: usize) -> Vec<u8> {
        let chars = ["a", "é", "ℤ", "𝔸", "\n"];
        let mut t = String::new();
        let mut k = 0usize;
        while t.len() < len {
            t.push_str(chars[(k * 7 + k / 3) % chars.len()]);
            k += 1;
        }
        t.into_bytes()
    }

    #[test]
    fn text_checked_in_pieces_is_the_text_and_bad_bytes_are_found_where_they_are() {
        let good = mixed_text(PARALLEL_READ_BYTES as usize + 777);
        for pieces in [2, 3, 4, 7] {
            let cuts = utf8_cuts(&good, pieces);
            assert!(cuts.windows(2).all(|w| w[0] < w[1]), "{cuts:?}");
            assert_eq!(*cuts.last().unwrap(), good.len());
            for &c in &cuts {
                assert!(
                    c == good.len() || good[c] & 0xC0 != 0x80,
                    "a cut inside a character"
                );
            }
        }
        for threads in [1, 2, 3, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let text = pool.install(|| text_of(good.clone())).unwrap();
            assert!(text.as_bytes() == good, "{threads} threads");
            // a bad byte at the start, at each cut, inside a character, at the end
            let mut at = vec![0, 1, good.len() / 2 + 1, good.len() - 1];
            at.extend(
                utf8_cuts(&good, threads)
                    .iter()
                    .filter(|&&c| c < good.len()),
            );
            for a in at {
                for bad in [0xFFu8, 0x80, 0xE2] {
                    let mut b = good.clone();
                    b[a] = bad;
                    let want = String::from_utf8(b.clone())
                        .map(|_| ())
                        .map_err(|e| e.utf8_error().valid_up_to());
                    let got = pool
                        .install(|| text_of(b))
                        .map(|_| ())
                        .map_err(|e| match e {
                            ReadError::NotUtf8 { offset } => offset,
                            other => panic!("{other}"),
                        });
                    assert_eq!(got, want, "byte {a} = {bad:#x}, {threads} threads");
                }
            }
        }
    }

    #[test]
    fn a_missing_file_is_an_io_error() {
        let p = std::env::temp_dir().join("ilkit-read-no-such-file");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert!(matches!(
            pool.install(|| read_bytes(&p)),
            Err(ReadError::Io(_))
        ));
    }
}
