//! The token stream of LLVM IR text: words, labels, `%`/`@`/`!`/`#`/`$` names, strings,
//! numbers and punctuation, each with its line, column and whether a newline came before
//! it (LLVM IR is line-oriented: an instruction never continues past its line at bracket
//! depth 0). Comments (`;` to end of line) and whitespace are skipped here.
//!
//! The token methods are an `impl` of the parser, which owns the position; one token of
//! lookahead (`peek`).

use super::{ParseError, Parser};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tk {
    Word,
    Label,
    Local,
    Global,
    Meta,
    Attr,
    Comdat,
    Str,
    CStr,
    Num,
    Punct,
    Eof,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Tok {
    pub(super) kind: Tk,
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) line: u32,
    pub(super) col: u32,
    pub(super) nl_before: bool,
}

#[derive(Clone, Copy)]
pub(super) struct LexState {
    pub(super) pos: usize,
    pub(super) line: u32,
    pub(super) line_start: usize,
    pub(super) peeked: Option<Tok>,
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-')
}

/// Decodes LLVM's `\XX` and `\\` escapes of a quoted name.
pub(super) fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    if !b.contains(&b'\\') {
        return s.to_string();
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] == b'\\' {
            out.push(b'\\');
            i += 2;
        } else if b[i] == b'\\'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            let h = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            out.push(h(b[i + 1]) * 16 + h(b[i + 2]));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl<'a> Parser<'a> {
    pub(super) fn lex(&mut self) -> Tok {
        let b = self.src.as_bytes();
        let mut nl = false;
        let mut i = self.st.pos;
        loop {
            if i >= b.len() {
                break;
            }
            match b[i] {
                b'\n' => {
                    nl = true;
                    i += 1;
                    self.st.line += 1;
                    self.st.line_start = i;
                }
                b' ' | b'\t' | b'\r' => i += 1,
                b';' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        let start = i;
        let line = self.st.line;
        let col = (start - self.st.line_start) as u32 + 1;
        let mk = |kind, end: usize| Tok {
            kind,
            start: start as u32,
            end: end as u32,
            line,
            col,
            nl_before: nl,
        };
        if i >= b.len() {
            self.st.pos = i;
            return mk(Tk::Eof, i);
        }
        let c = b[i];
        let (kind, end) = match c {
            b'"' => {
                let e = self.scan_string(i);
                if e < b.len() && b[e] == b':' {
                    (Tk::Label, e + 1)
                } else {
                    (Tk::Str, e)
                }
            }
            b'%' | b'@' | b'!' | b'#' | b'$' => {
                let kind = match c {
                    b'%' => Tk::Local,
                    b'@' => Tk::Global,
                    b'!' => Tk::Meta,
                    b'#' => Tk::Attr,
                    _ => Tk::Comdat,
                };
                let mut e = i + 1;
                if e < b.len() && b[e] == b'"' && c != b'!' {
                    e = self.scan_string(e);
                } else {
                    while e < b.len() && (is_name_char(b[e]) || (c == b'!' && b[e] == b'\\')) {
                        e += 1;
                    }
                }
                (kind, e)
            }
            b'.' if b[i..].starts_with(b"...") => (Tk::Punct, i + 3),
            _ if is_name_char(c) || c == b'+' => {
                let mut e = i + 1;
                while e < b.len()
                    && (is_name_char(b[e]) || (b[e] == b'+' && matches!(b[e - 1], b'e' | b'E')))
                {
                    e += 1;
                }
                if e < b.len() && b[e] == b':' {
                    (Tk::Label, e + 1)
                } else if c == b'c' && e == i + 1 && e < b.len() && b[e] == b'"' {
                    (Tk::CStr, self.scan_string(e))
                } else if c.is_ascii_digit() || c == b'-' || c == b'+' {
                    (Tk::Num, e)
                } else {
                    (Tk::Word, e)
                }
            }
            _ => {
                // one character (a whole UTF-8 sequence, so slices stay on boundaries)
                let mut e = i + 1;
                while e < b.len() && (b[e] & 0xC0) == 0x80 {
                    e += 1;
                }
                (Tk::Punct, e)
            }
        };
        self.st.pos = end;
        mk(kind, end)
    }

    /// Returns the index just past the closing quote of a string starting at `i`.
    pub(super) fn scan_string(&self, i: usize) -> usize {
        let b = self.src.as_bytes();
        let mut e = i + 1;
        while e < b.len() && b[e] != b'"' {
            e += 1;
        }
        (e + 1).min(b.len())
    }

    pub(super) fn peek(&mut self) -> Tok {
        if let Some(t) = self.st.peeked {
            return t;
        }
        let t = self.lex();
        self.st.peeked = Some(t);
        t
    }

    pub(super) fn next(&mut self) -> Tok {
        if let Some(t) = self.st.peeked.take() {
            return t;
        }
        self.lex()
    }

    pub(super) fn text(&self, t: Tok) -> &'a str {
        &self.src[t.start as usize..t.end as usize]
    }

    pub(super) fn err_at<T>(&self, t: Tok, msg: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            file: self.file.to_string(),
            line: t.line,
            column: t.col,
            message: msg.into(),
        })
    }

    pub(super) fn is_punct(&mut self, p: &str) -> bool {
        let t = self.peek();
        t.kind == Tk::Punct && self.text(t) == p
    }

    pub(super) fn is_word(&mut self, w: &str) -> bool {
        let t = self.peek();
        t.kind == Tk::Word && self.text(t) == w
    }

    pub(super) fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.next();
            true
        } else {
            false
        }
    }

    pub(super) fn expect_punct(&mut self, p: &str) -> Result<Tok, ParseError> {
        let t = self.peek();
        if t.kind == Tk::Punct && self.text(t) == p {
            Ok(self.next())
        } else {
            self.err_at(t, format!("expected '{p}', found {}", self.describe(t)))
        }
    }

    pub(super) fn describe(&self, t: Tok) -> String {
        if t.kind == Tk::Eof {
            "end of file".to_string()
        } else {
            let s = self.text(t);
            let s: String = s.chars().take(40).collect();
            format!("'{s}'")
        }
    }

    /// End of the current line-oriented statement (next token starts a new line).
    pub(super) fn at_eol(&mut self) -> bool {
        let t = self.peek();
        t.nl_before || t.kind == Tk::Eof
    }

    /// Skips a balanced group starting at an opening bracket.
    pub(super) fn skip_group(&mut self) -> Result<(), ParseError> {
        let mut depth = 0u32;
        loop {
            let t = self.next();
            if t.kind == Tk::Eof {
                return self.err_at(t, "unbalanced brackets: unexpected end of file");
            }
            if t.kind == Tk::Punct {
                match self.text(t) {
                    "(" | "[" | "{" | "<" => depth += 1,
                    ")" | "]" | "}" | ">" => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Ok(());
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// Skips the rest of a statement: tokens up to the next one starting a line at
    /// bracket depth 0.
    pub(super) fn skip_statement(&mut self) -> Result<(), ParseError> {
        let mut depth = 0i64;
        let mut first = true;
        loop {
            let t = self.peek();
            if t.kind == Tk::Eof {
                return Ok(());
            }
            if !first && depth <= 0 && t.nl_before {
                return Ok(());
            }
            first = false;
            self.next();
            if t.kind == Tk::Punct {
                match self.text(t) {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" => depth -= 1,
                    _ => {}
                }
            }
        }
    }

    /// Skips to the next `,` at depth 0 within the current line, not consuming it.
    pub(super) fn skip_to_comma(&mut self) -> Result<(), ParseError> {
        loop {
            let t = self.peek();
            if t.kind == Tk::Eof || t.nl_before {
                return Ok(());
            }
            if t.kind == Tk::Punct {
                match self.text(t) {
                    "," | ")" | "]" | "}" | ">" => return Ok(()),
                    "(" | "[" | "{" | "<" => {
                        self.skip_group()?;
                        continue;
                    }
                    _ => {}
                }
            }
            self.next();
        }
    }
}
