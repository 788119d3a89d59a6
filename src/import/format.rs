//! What a file holds, decided from its first bytes: the one place ilkit tells its input
//! formats apart (the scan, every CLI subcommand and the library's file readers ask here).
//!
//! ```
//! use ilkit::import::format::Format;
//! assert_eq!(Format::detect("x", b"; ModuleID = 'a.c'\ndefine void @f() {\n"), Some(Format::LlvmIr));
//! assert_eq!(Format::detect("x", b"//\n.version 7.0\n.target sm_70\n"), Some(Format::Ptx));
//! assert_eq!(Format::detect("x", br#"{"id":"0x1","kind":"TranslationUnitDecl"}"#), Some(Format::ClangJson));
//! assert_eq!(Format::detect("compile_commands.json", b"[{\"file\": \"a.c\"}]"), None);
//! ```
//!
//! The rules, in order:
//! - **binary IL**: the magic `ILKIT-IL`;
//! - **clang JSON AST**: a JSON object whose top-level `"kind"` is `"TranslationUnitDecl"`
//!   within the head (clang writes `id` and `kind` first; the corpus filter puts its own
//!   `x-` keys before them). Any other JSON (an array, an object without that key in the
//!   head) is no input;
//! - **PTX / LLVM IR**: the first line that is not blank and not a comment (`//` or `/* */`
//!   in PTX, `;` in LLVM IR): a directive (`.version`, `.target`, `.visible`, ...) is PTX;
//!   a top-level LLVM entity (`source_filename`, `target`, `define`, `declare`, a global
//!   `@x`, a type `%x`, metadata `!x`, `attributes`, a comdat `$x`, `module asm`) is IR;
//! - otherwise the file name's extension (`.ll`, `.ptx`, with or without `.gz`) breaks
//!   the tie: a comment-only or empty file is what its name says, and a damaged `.ll` is
//!   read as LLVM IR so that its parse error says where it goes wrong.
//!
//! Detection reads bytes, never slices text at a byte offset, and looks at a bounded head
//! ([`HEAD_BYTES`]); gzipped files are detected on their decompressed head
//! ([`Detected::of_file`]).

use super::ReadError;
use std::io::Read;
use std::path::Path;

/// How many leading bytes (after decompression) detection looks at.
pub const HEAD_BYTES: usize = 256 << 10;

/// The most a gzipped input may decompress to (a gzip bomb is an error, not an
/// allocation).
pub const MAX_GUNZIPPED: u64 = 4 << 30;

/// The formats ilkit reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// LLVM IR text (`.ll`).
    LlvmIr,
    /// PTX text (`.ptx`).
    Ptx,
    /// ilkit's binary IL.
    BinaryIl,
    /// A clang JSON AST (`-Xclang -ast-dump=json`).
    ClangJson,
}

impl Format {
    /// The short name scan records use (`ll`, `ptx`, `il`, `json`).
    pub fn name(self) -> &'static str {
        match self {
            Format::LlvmIr => "ll",
            Format::Ptx => "ptx",
            Format::BinaryIl => "il",
            Format::ClangJson => "json",
        }
    }

    /// Whether the format is text that is read whole (LLVM IR, PTX).
    pub fn is_text(self) -> bool {
        matches!(self, Format::LlvmIr | Format::Ptx)
    }

    /// The format of a file whose (decompressed) first bytes are `head`; `name` breaks a
    /// tie only (see the module docs). `None`: not an input ilkit reads.
    pub fn detect(name: &str, head: &[u8]) -> Option<Format> {
        if head.starts_with(super::binary_il::MAGIC) {
            return Some(Format::BinaryIl);
        }
        let body = skip_space(head);
        if body.first() == Some(&b'{') || body.first() == Some(&b'[') {
            if is_clang_ast(body) {
                return Some(Format::ClangJson);
            }
            return by_extension(name);
        }
        match first_statement(head) {
            Some(Statement::Ptx) => Some(Format::Ptx),
            Some(Statement::Ir) => Some(Format::LlvmIr),
            Some(Statement::Other) | None => by_extension(name),
        }
    }
}

/// The format a file name's extension names (`.ll`, `.ptx`, either with `.gz`).
fn by_extension(name: &str) -> Option<Format> {
    let n = name.strip_suffix(".gz").unwrap_or(name);
    if n.ends_with(".ll") {
        Some(Format::LlvmIr)
    } else if n.ends_with(".ptx") {
        Some(Format::Ptx)
    } else {
        None
    }
}

/// A file's format and whether it is gzipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    /// The format, `None` when the file is no input ilkit reads.
    pub format: Option<Format>,
    /// Whether the bytes on disk are gzip (the format is that of the decompressed bytes).
    pub gzip: bool,
}

impl Detected {
    /// Detects a file's format from its first bytes, decompressing a gzipped file's head.
    /// `-` is not a file here (standard input can be read once only: use
    /// [`Detected::of_bytes`] on what was read).
    ///
    /// # Errors
    /// The OS error when the file cannot be opened or read.
    pub fn of_file(path: &Path) -> Result<Detected, ReadError> {
        let name = path.to_string_lossy();
        let mut f = std::fs::File::open(path).map_err(ReadError::Io)?;
        // Most files tell in their first block; only an undecided one is read further.
        let mut head = Vec::with_capacity(4096);
        (&mut f)
            .take(4096)
            .read_to_end(&mut head)
            .map_err(ReadError::Io)?;
        let d = Detected::of_bytes(&name, &head);
        if d.format.is_some() || head.len() < 4096 {
            return Ok(d);
        }
        f.take(HEAD_BYTES as u64 - 4096)
            .read_to_end(&mut head)
            .map_err(ReadError::Io)?;
        Ok(Detected::of_bytes(&name, &head))
    }

    /// Detects the format of bytes in hand (a file's head or the whole of it).
    pub fn of_bytes(name: &str, bytes: &[u8]) -> Detected {
        if is_gzip(bytes) {
            let mut head = Vec::with_capacity(4096);
            // A truncated or corrupt stream still gives what it decoded before the fault.
            let _ = flate2::read::MultiGzDecoder::new(bytes)
                .take(HEAD_BYTES as u64)
                .read_to_end(&mut head);
            let inner = name.strip_suffix(".gz").unwrap_or(name);
            return Detected {
                format: Format::detect(inner, &head),
                gzip: true,
            };
        }
        Detected {
            format: Format::detect(name, bytes),
            gzip: false,
        }
    }
}

/// Whether `bytes` start with gzip's magic.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// `bytes`, decompressed when they are gzip (at most [`MAX_GUNZIPPED`] bytes).
///
/// # Errors
/// A corrupt gzip stream (`offset` is the compressed bytes' length: the stream as a whole
/// is bad) or a stream over the limit.
pub fn gunzip_if_gzip(bytes: Vec<u8>) -> Result<Vec<u8>, ReadError> {
    if !is_gzip(&bytes) {
        return Ok(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len().saturating_mul(4));
    flate2::read::MultiGzDecoder::new(&bytes[..])
        .take(MAX_GUNZIPPED + 1)
        .read_to_end(&mut out)
        .map_err(ReadError::Io)?;
    if out.len() as u64 > MAX_GUNZIPPED {
        return Err(ReadError::TooLarge {
            limit: MAX_GUNZIPPED,
        });
    }
    Ok(out)
}

fn skip_space(b: &[u8]) -> &[u8] {
    let n = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    &b[n..]
}

/// What the first meaningful line of a text file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Statement {
    Ptx,
    Ir,
    Other,
}

/// Classifies the first line of `head` that is not blank and not a comment; `None` when
/// the head has none.
fn first_statement(head: &[u8]) -> Option<Statement> {
    let mut rest = head;
    let mut in_block_comment = false;
    loop {
        rest = skip_space(rest);
        if rest.is_empty() {
            return None;
        }
        if in_block_comment {
            let end = rest.windows(2).position(|w| w == b"*/")?;
            rest = &rest[end + 2..];
            in_block_comment = false;
            continue;
        }
        if rest.starts_with(b";") || rest.starts_with(b"//") || rest.starts_with(b"#") {
            // `;` LLVM IR, `//` PTX, `#` a preprocessor line or a `#!` script
            let nl = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            rest = &rest[nl..];
            continue;
        }
        if rest.starts_with(b"/*") {
            rest = &rest[2..];
            in_block_comment = true;
            continue;
        }
        return Some(classify(rest));
    }
}

/// PTX directives that open a module or a top-level entity.
const PTX_DIRECTIVES: [&[u8]; 14] = [
    b".version",
    b".target",
    b".address_size",
    b".visible",
    b".entry",
    b".func",
    b".extern",
    b".global",
    b".const",
    b".shared",
    b".file",
    b".weak",
    b".common",
    b".pragma",
];

/// Words that open a top-level LLVM IR entity.
const IR_WORDS: [&[u8]; 9] = [
    b"source_filename",
    b"target",
    b"define",
    b"declare",
    b"attributes",
    b"module",
    b"uselistorder",
    b"uselistorder_bb",
    b"deplibs",
];

fn classify(line: &[u8]) -> Statement {
    let word_end = line
        .iter()
        .position(|c| c.is_ascii_whitespace())
        .unwrap_or(line.len());
    let word = &line[..word_end];
    if PTX_DIRECTIVES.contains(&word) {
        return Statement::Ptx;
    }
    if IR_WORDS.contains(&word) {
        return Statement::Ir;
    }
    // `@g = ...`, `%T = type ...`, `!0 = ...`, `$c = comdat ...`
    match (line.first(), line.get(1)) {
        (Some(b'@' | b'%' | b'!' | b'$'), Some(c))
            if c.is_ascii_alphanumeric() || b"._-\"".contains(c) =>
        {
            Statement::Ir
        }
        _ => Statement::Other,
    }
}

/// Whether `json` (starting at its first non-space byte) is an object whose top-level
/// `"kind"` is `"TranslationUnitDecl"` within these bytes.
fn is_clang_ast(json: &[u8]) -> bool {
    let mut s = Scanner { b: json, i: 0 };
    if !s.eat(b'{') {
        return false;
    }
    loop {
        s.space();
        let Some(key) = s.string() else {
            return false;
        };
        s.space();
        if !s.eat(b':') {
            return false;
        }
        s.space();
        if key == b"kind" {
            return s.string() == Some(&b"TranslationUnitDecl"[..]);
        }
        if key == b"inner" || !s.skip_value() {
            // clang writes `kind` before `inner`; a value cut by the head's end decides
            // nothing, so the file is no AST
            return false;
        }
        s.space();
        if !s.eat(b',') {
            return false;
        }
    }
}

/// A forward-only JSON scanner over a byte slice that may end anywhere: every method
/// fails (returns `None` / `false`) at the end of the bytes instead of reading past them.
struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn space(&mut self) {
        while self.b.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// A string's raw bytes (escapes left as they are).
    fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.i;
        loop {
            match *self.b.get(self.i)? {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return self.b.get(start..self.i - 1);
                }
                _ => self.i += 1,
            }
        }
    }

    /// Skips one value; nesting is counted, not recursed into.
    fn skip_value(&mut self) -> bool {
        let mut depth = 0usize;
        loop {
            let Some(&c) = self.b.get(self.i) else {
                return false;
            };
            match c {
                b'"' => {
                    if self.string().is_none() {
                        return false;
                    }
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.i += 1;
                }
                b'}' | b']' => {
                    if depth == 0 {
                        return true; // the enclosing object ends: a value was empty
                    }
                    depth -= 1;
                    self.i += 1;
                }
                b',' if depth == 0 => return true,
                _ => self.i += 1,
            }
            if depth == 0 && matches!(c, b'"' | b'}' | b']') {
                return true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_formats_by_first_statement() {
        let ir = b"; ModuleID = 'x'\nsource_filename = \"x.c\"\n";
        assert_eq!(Format::detect("a.txt", ir), Some(Format::LlvmIr));
        assert_eq!(
            Format::detect("a", b"\n\n@g = global i32 0\n"),
            Some(Format::LlvmIr)
        );
        assert_eq!(
            Format::detect("a", b"%struct.S = type { i32 }\n"),
            Some(Format::LlvmIr)
        );
        let ptx = b"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 7.0\n";
        assert_eq!(Format::detect("a.ll", ptx), Some(Format::Ptx));
        assert_eq!(
            Format::detect("a", b"/* c */ .target sm_70"),
            Some(Format::Ptx)
        );
        assert_eq!(Format::detect("a", b"hello world"), None);
        assert_eq!(Format::detect("a.ll", b"hello world"), Some(Format::LlvmIr));
        assert_eq!(Format::detect("a.ptx", b"{}"), Some(Format::Ptx));
    }

    #[test]
    fn comment_only_files_go_by_extension() {
        assert_eq!(Format::detect("x.ll", b"; nothing\n"), Some(Format::LlvmIr));
        assert_eq!(Format::detect("x.ptx.gz", b""), Some(Format::Ptx));
        assert_eq!(Format::detect("x", b"; nothing\n"), None);
        assert_eq!(Format::detect("x.ll", b"/* open"), Some(Format::LlvmIr));
    }

    #[test]
    fn json_is_an_input_only_when_it_is_a_clang_ast() {
        let filtered = br#"{"x-filter":{"a":[1,{"b":"}"}]},"x-files":[],"id":"0x1","kind":"TranslationUnitDecl","inner":[]}"#;
        assert_eq!(Format::detect("a", filtered), Some(Format::ClangJson));
        assert_eq!(
            Format::detect("a.json", br#"{"kind":"FunctionDecl"}"#),
            None
        );
        assert_eq!(
            Format::detect("a.json", br#"{"inner":[],"kind":"TranslationUnitDecl"}"#),
            None
        );
        assert_eq!(Format::detect("a.json", b"[]"), None);
        assert_eq!(Format::detect("a.json", br#"{"id":"0x1","#), None);
        assert_eq!(
            Format::detect("a.json", br#"{"s":"\"","kind":"TranslationUnitDecl"}"#),
            Some(Format::ClangJson)
        );
    }

    #[test]
    fn binary_il_and_gzip() {
        assert_eq!(Format::detect("a", b"ILKIT-IL\0\0"), Some(Format::BinaryIl));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, b"define void @f() {\n").unwrap();
        let gz = gz.finish().unwrap();
        let d = Detected::of_bytes("a.ll.gz", &gz);
        assert_eq!((d.format, d.gzip), (Some(Format::LlvmIr), true));
        // a stream cut anywhere decodes what it can and never panics
        for n in 0..gz.len() {
            let _ = Detected::of_bytes("a.gz", &gz[..n]);
        }
        assert_eq!(
            gunzip_if_gzip(gz).unwrap(),
            b"define void @f() {\n".to_vec()
        );
    }

    #[test]
    fn multibyte_text_at_any_head_boundary() {
        let mut s = "; é\n".repeat(2000).into_bytes();
        s.extend_from_slice("define void @f() {\n".as_bytes());
        for cut in [4095, 4096, 4097, s.len()] {
            let cut = cut.min(s.len());
            let _ = Format::detect("x", &s[..cut]);
        }
        assert_eq!(Format::detect("x", &s), Some(Format::LlvmIr));
    }
}
