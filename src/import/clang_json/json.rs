//! A pull tokenizer over JSON bytes: no document tree, one refillable buffer, one scratch
//! buffer for the current string. Commas and colons are treated as separators and not
//! checked (the importer validates structure by what it expects next), so malformed input
//! gives an error with a byte offset or is read leniently — never a panic, never recursion.

use std::io::Read;

/// One JSON token. String and number contents are in [`Lexer::text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// `{`
    ObjStart,
    /// `}`
    ObjEnd,
    /// `[`
    ArrStart,
    /// `]`
    ArrEnd,
    /// A string (unescaped bytes in `text`).
    Str,
    /// A number (its spelling in `text`).
    Num,
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
    /// End of input.
    Eof,
}

/// A malformed-input error: what was expected and the byte offset where it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// Byte offset in the (decompressed) input.
    pub offset: u64,
    /// What went wrong.
    pub msg: String,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.msg)
    }
}

const BUF: usize = 1 << 16;
/// Longest string or number accepted (bounds memory on garbage input).
const MAX_TEXT: usize = 1 << 28;

/// The tokenizer.
#[derive(Debug)]
pub struct Lexer<R: Read> {
    src: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    base: u64,
    eof: bool,
    /// Contents of the last string or number token.
    pub text: Vec<u8>,
    peeked: Option<Tok>,
    io_error: Option<String>,
}

impl<R: Read> Lexer<R> {
    /// A tokenizer reading `src`.
    pub fn new(src: R) -> Self {
        Lexer {
            src,
            buf: vec![0u8; BUF].into_boxed_slice(),
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
            text: Vec::with_capacity(256),
            peeked: None,
            io_error: None,
        }
    }

    /// Byte offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// An error at the current offset.
    pub fn err(&self, msg: impl Into<String>) -> JsonError {
        JsonError {
            offset: self.offset(),
            msg: msg.into(),
        }
    }

    #[cold]
    fn refill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        self.base += self.end as u64;
        self.pos = 0;
        self.end = 0;
        loop {
            match self.src.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return false;
                }
                Ok(n) => {
                    self.end = n;
                    return true;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.io_error = Some(e.to_string());
                    self.eof = true;
                    return false;
                }
            }
        }
    }

    #[inline]
    fn peek_byte(&mut self) -> Option<u8> {
        if self.pos >= self.end && !self.refill() {
            return None;
        }
        Some(self.buf[self.pos])
    }

    /// Returns the next token without consuming it.
    pub fn peek(&mut self) -> Result<Tok, JsonError> {
        if let Some(t) = self.peeked {
            return Ok(t);
        }
        let t = self.tok()?;
        self.peeked = Some(t);
        Ok(t)
    }

    /// The next token.
    #[inline]
    pub fn tok(&mut self) -> Result<Tok, JsonError> {
        if let Some(t) = self.peeked.take() {
            return Ok(t);
        }
        loop {
            let b = match self.peek_byte() {
                Some(b) => b,
                None => {
                    if let Some(e) = self.io_error.take() {
                        return Err(self.err(format!("read error: {e}")));
                    }
                    return Ok(Tok::Eof);
                }
            };
            self.pos += 1;
            return Ok(match b {
                b' ' => {
                    self.skip_spaces();
                    continue;
                }
                b'\n' | b'\r' | b'\t' | b',' | b':' => continue,
                b'{' => Tok::ObjStart,
                b'}' => Tok::ObjEnd,
                b'[' => Tok::ArrStart,
                b']' => Tok::ArrEnd,
                b'"' => {
                    self.string()?;
                    Tok::Str
                }
                b'-' | b'0'..=b'9' => {
                    self.number(b)?;
                    Tok::Num
                }
                b't' => {
                    self.word(b"rue")?;
                    Tok::True
                }
                b'f' => {
                    self.word(b"alse")?;
                    Tok::False
                }
                b'n' => {
                    self.word(b"ull")?;
                    Tok::Null
                }
                other => {
                    self.pos -= 1;
                    return Err(self.err(format!(
                        "unexpected byte 0x{other:02x} ({:?})",
                        other as char
                    )));
                }
            });
        }
    }

    /// Skips the spaces that follow a space, eight bytes at a time, up to the buffer's
    /// last eight (the token loop takes the rest a byte at a time, refilling as it goes).
    /// Pretty-printed dumps are mostly indentation: 63 % of a clang `-ast-dump=json`
    /// file's bytes are spaces.
    #[inline]
    fn skip_spaces(&mut self) {
        const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
        let valid = &self.buf[..self.end];
        let mut pos = self.pos;
        while let Some(w) = valid.get(pos..pos + 8) {
            let Ok(w) = <[u8; 8]>::try_from(w) else {
                break;
            };
            let other = u64::from_le_bytes(w) ^ SPACES;
            if other != 0 {
                // The first byte that is not a space (little-endian: the lowest).
                pos += (other.trailing_zeros() / 8) as usize;
                break;
            }
            pos += 8;
        }
        self.pos = pos;
    }

    fn word(&mut self, rest: &[u8]) -> Result<(), JsonError> {
        for &c in rest {
            match self.peek_byte() {
                Some(b) if b == c => self.pos += 1,
                Some(_) => return Err(self.err("malformed literal (true/false/null)")),
                None => return Err(self.err("truncated literal")),
            }
        }
        Ok(())
    }

    fn number(&mut self, first: u8) -> Result<(), JsonError> {
        self.text.clear();
        self.text.push(first);
        while let Some(b) = self.peek_byte() {
            match b {
                b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-' => {
                    self.text.push(b);
                    self.pos += 1;
                    if self.text.len() > 4096 {
                        return Err(self.err("number too long"));
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    fn string(&mut self) -> Result<(), JsonError> {
        self.text.clear();
        let start = self.offset();
        loop {
            if self.pos >= self.end && !self.refill() {
                return Err(self.err("truncated string"));
            }
            let chunk = &self.buf[self.pos..self.end];
            match memchr::memchr2(b'"', b'\\', chunk) {
                Some(i) => {
                    self.text.extend_from_slice(&chunk[..i]);
                    let c = chunk[i];
                    self.pos += i + 1;
                    if c == b'"' {
                        return self.check_utf8(start);
                    }
                    self.escape()?;
                }
                None => {
                    self.text.extend_from_slice(chunk);
                    self.pos = self.end;
                }
            }
            if self.text.len() > MAX_TEXT {
                return Err(self.err("string too long"));
            }
        }
    }

    /// The string just read (which began at offset `start`) as UTF-8, or an error at its
    /// first bad byte.
    fn check_utf8(&self, start: u64) -> Result<(), JsonError> {
        // Nearly every string of a dump is ASCII (keys, kinds, ids).
        if self.text.is_ascii() {
            return Ok(());
        }
        match std::str::from_utf8(&self.text) {
            Ok(_) => Ok(()),
            Err(e) => Err(JsonError {
                offset: start + e.valid_up_to() as u64,
                msg: "invalid UTF-8 in a string".into(),
            }),
        }
    }

    fn escape(&mut self) -> Result<(), JsonError> {
        let b = self
            .peek_byte()
            .ok_or_else(|| self.err("truncated escape"))?;
        self.pos += 1;
        let c = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let mut cp = self.hex4()?;
                if (0xD800..0xDC00).contains(&cp) {
                    // A surrogate pair: \uD8xx\uDCxx.
                    if self.peek_byte() == Some(b'\\') {
                        self.pos += 1;
                        if self.peek_byte() == Some(b'u') {
                            self.pos += 1;
                            let lo = self.hex4()?;
                            if (0xDC00..0xE000).contains(&lo) {
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            }
                        }
                    }
                }
                let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                let mut tmp = [0u8; 4];
                self.text
                    .extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                return Ok(());
            }
            _ => return Err(self.err(format!("bad escape \\{}", b as char))),
        };
        self.text.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let b = self
                .peek_byte()
                .ok_or_else(|| self.err("truncated \\u escape"))?;
            self.pos += 1;
            let d = (b as char)
                .to_digit(16)
                .ok_or_else(|| self.err("bad \\u escape"))?;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// Skips one value whose first token `first` was already read (iteratively).
    /// `on_key` sees every object key met inside, with the token that follows it peeked
    /// into `text` when that token is a string (for small captures while skipping).
    pub fn skip_from(
        &mut self,
        first: Tok,
        mut on_str: impl FnMut(&[u8]),
    ) -> Result<(), JsonError> {
        let mut depth: usize = match first {
            Tok::ObjStart | Tok::ArrStart => 1,
            Tok::ObjEnd | Tok::ArrEnd => return Err(self.err("unexpected close bracket")),
            Tok::Eof => return Err(self.err("truncated input: expected a value")),
            _ => return Ok(()),
        };
        while depth > 0 {
            match self.tok()? {
                Tok::ObjStart | Tok::ArrStart => depth += 1,
                Tok::ObjEnd | Tok::ArrEnd => depth -= 1,
                Tok::Eof => return Err(self.err("truncated input inside a skipped value")),
                Tok::Str => on_str(&self.text),
                _ => {}
            }
        }
        Ok(())
    }

    /// Skips the next value.
    pub fn skip_value(&mut self) -> Result<(), JsonError> {
        let t = self.tok()?;
        self.skip_from(t, |_| {})
    }

    /// Skips the rest of an object whose `{` was read.
    pub fn skip_rest_of_object(&mut self, on_str: impl FnMut(&[u8])) -> Result<(), JsonError> {
        self.skip_from(Tok::ObjStart, on_str)
    }
}

/// Parses `0x…` hex ids (`0x0` and malformed ids give 0).
pub fn parse_id(s: &[u8]) -> u64 {
    let h = s
        .strip_prefix(b"0x")
        .or_else(|| s.strip_prefix(b"0X"))
        .unwrap_or(s);
    let mut v: u64 = 0;
    for &b in h {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return 0,
        };
        v = v.wrapping_shl(4) | d as u64;
    }
    v
}

/// Parses a decimal integer spelling (saturating; 0 for garbage).
pub fn parse_int(s: &[u8]) -> i64 {
    std::str::from_utf8(s)
        .ok()
        .and_then(|t| t.trim().parse::<i64>().ok())
        .or_else(|| {
            std::str::from_utf8(s)
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok())
                .map(|u| u as i64)
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let mut l = Lexer::new(s.as_bytes());
        let mut v = vec![];
        loop {
            let t = l.tok().unwrap();
            v.push(t);
            if t == Tok::Eof {
                return v;
            }
        }
    }

    #[test]
    fn tokens_and_escapes() {
        use Tok::*;
        assert_eq!(
            toks(r#"{"a": [1, -2.5e3, true, false, null]}"#),
            vec![ObjStart, Str, ArrStart, Num, Num, True, False, Null, ArrEnd, ObjEnd, Eof]
        );
        let mut l = Lexer::new(r#""a\"b\\c\u00e9\ud83d\ude00\n""#.as_bytes());
        assert_eq!(l.tok().unwrap(), Str);
        assert_eq!(l.text, "a\"b\\cé😀\n".as_bytes());
    }

    /// A reader that hands out its bytes a few at a time (1 to 13, cycling), so token
    /// and space runs cross every position of a refill.
    struct Dribble<'a> {
        bytes: &'a [u8],
        n: usize,
    }

    impl Read for Dribble<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.n = self.n % 13 + 1;
            let k = self.n.min(out.len()).min(self.bytes.len());
            out[..k].copy_from_slice(&self.bytes[..k]);
            self.bytes = &self.bytes[k..];
            Ok(k)
        }
    }

    /// Every token with its text and the offset after it.
    fn trace(mut l: Lexer<impl Read>) -> Vec<(Tok, Vec<u8>, u64)> {
        let mut v = vec![];
        loop {
            let t = l.tok().unwrap();
            v.push((t, l.text.clone(), l.offset()));
            if t == Tok::Eof {
                return v;
            }
        }
    }

    /// Runs of 0 to 40 spaces (indentation, and spaces inside strings, which are kept)
    /// between tokens read as the same tokens, texts and offsets whether the input comes
    /// at once or a few bytes per read, and as the same tokens and texts as the compact
    /// document; an unexpected byte after a run is reported at its own offset.
    #[test]
    fn space_runs_read_as_any_separator() {
        let mut doc = String::new();
        let mut compact = String::new();
        for i in 0..200 {
            let item = match i % 5 {
                0 => "{".to_string(),
                1 => format!("\"k {i}  x\""),
                2 => format!("{}", i * 37),
                3 => "true".to_string(),
                _ => "[]".to_string(),
            };
            doc.push_str(&" ".repeat(i % 41));
            doc.push_str(&item);
            doc.push_str(if i % 3 == 0 { ",\n" } else { " : " });
            compact.push_str(&item);
            compact.push(',');
        }
        let whole = trace(Lexer::new(doc.as_bytes()));
        let dribbled = trace(Lexer::new(Dribble {
            bytes: doc.as_bytes(),
            n: 0,
        }));
        assert_eq!(whole, dribbled);
        let strip = |v: &[(Tok, Vec<u8>, u64)]| -> Vec<(Tok, Vec<u8>)> {
            v.iter().map(|(t, s, _)| (*t, s.clone())).collect()
        };
        assert_eq!(strip(&whole), strip(&trace(Lexer::new(compact.as_bytes()))));
        for run in [1, 7, 8, 9, 16, 23] {
            let bad = format!("[1,{}#]", " ".repeat(run));
            for dribble in [false, true] {
                let err = if dribble {
                    let mut l = Lexer::new(Dribble {
                        bytes: bad.as_bytes(),
                        n: 0,
                    });
                    (0..3).find_map(|_| l.tok().err())
                } else {
                    let mut l = Lexer::new(bad.as_bytes());
                    (0..3).find_map(|_| l.tok().err())
                };
                assert_eq!(err.map(|e| e.offset), Some(3 + run as u64), "run {run}");
            }
        }
    }

    #[test]
    fn invalid_utf8_in_a_string_is_an_error_at_its_byte() {
        let mut lx = Lexer::new(&b"{\"ab\xffc\": 1}"[..]);
        assert_eq!(lx.tok().unwrap(), Tok::ObjStart);
        let e = lx.tok().unwrap_err();
        assert_eq!(e.offset, 4, "{e}");
        assert!(e.msg.contains("UTF-8"), "{e}");
    }

    #[test]
    fn errors_have_offsets() {
        let mut l = Lexer::new(r#"{"abc"#.as_bytes());
        l.tok().unwrap();
        let e = l.tok().unwrap_err();
        assert!(e.msg.contains("truncated"), "{e}");
        let mut l = Lexer::new("  @".as_bytes());
        assert_eq!(l.tok().unwrap_err().offset, 2);
    }

    #[test]
    fn ids() {
        assert_eq!(parse_id(b"0x55cc6b4550b0"), 0x55cc6b4550b0);
        assert_eq!(parse_id(b"0x0"), 0);
        assert_eq!(parse_int(b"-42"), -42);
    }
}
