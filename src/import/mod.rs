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
    std::fs::read(path).map_err(ReadError::Io)
}

/// Reads a whole file (`-` is standard input) as UTF-8 text, decompressing it when it is
/// gzip (`.ll.gz`, `.ptx.gz`; by its magic bytes, not its name). A `NotUtf8` offset counts
/// decompressed bytes.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    text_of(format::gunzip_if_gzip(read_bytes(path)?)?)
}

/// Bytes as UTF-8 text, or where they stop being UTF-8.
pub fn text_of(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        offset: e.utf8_error().valid_up_to(),
    })
}
