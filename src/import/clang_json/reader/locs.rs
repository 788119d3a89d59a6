//! Source files and locations. clang prints a location's `file` and `line` only when they
//! change from the last printed location, so `cur_file`/`cur_line` follow every location
//! in document order, inside skipped nodes and unhandled keys too; a frame's position is
//! its `loc` (the expansion side of a macro location) or else its range's begin. Each file
//! becomes one `source_file_entry`; `includedFrom` gives the include tree.

use super::keys::open_object;
use super::{Builder, Fail, Kid};
use crate::il::{Eix, EntryKind, IlError};
use crate::import::clang_json::json::{parse_int, Lexer, Tok};
use std::io::Read;

impl Builder<'_> {
    pub(super) fn skip_node<R: Read>(
        &mut self,
        lx: &mut Lexer<R>,
        t: usize,
        deliver: Option<Kid>,
    ) -> Result<(), Fail> {
        // Locations inside skipped nodes still move clang's "last printed" file/line.
        self.skip_tracking_locs(lx)?;
        self.top -= 1;
        if let (Some(k), true) = (deliver, t > 0) {
            self.frames[t - 1].kids.push(k);
        }
        Ok(())
    }

    /// Skips the rest of an object, following "file"/"line" keys so the location state
    /// stays right for the nodes after it (clang prints a file or line only when it
    /// changes, skipped nodes included).
    fn skip_tracking_locs<R: Read>(&mut self, lx: &mut Lexer<R>) -> Result<(), Fail> {
        self.skip_tracking(lx, true)
    }

    /// Skips the value of an unhandled key, following locations inside it.
    pub(super) fn skip_value_tracking<R: Read>(&mut self, lx: &mut Lexer<R>) -> Result<(), Fail> {
        match lx.tok()? {
            Tok::ObjStart => self.skip_tracking(lx, true),
            Tok::ArrStart => self.skip_tracking(lx, false),
            Tok::Eof => Err(lx.err("truncated input: expected a value").into()),
            Tok::ObjEnd | Tok::ArrEnd => {
                Err(lx.err("expected a value, found a close bracket").into())
            }
            _ => Ok(()),
        }
    }

    fn skip_tracking<R: Read>(&mut self, lx: &mut Lexer<R>, object: bool) -> Result<(), Fail> {
        // (is_object, expect_key, track): `track` is off inside "includedFrom".
        let mut st: Vec<(bool, bool, bool)> = vec![(object, object, true)];
        let mut pending = 0u8;
        fn after_value(st: &mut [(bool, bool, bool)]) {
            if let Some(top) = st.last_mut() {
                if top.0 {
                    top.1 = true;
                }
            }
        }
        while let Some(&(is_obj, expect_key, track)) = st.last() {
            let tok = lx.tok()?;
            if is_obj && expect_key {
                match tok {
                    Tok::Str => {
                        pending = match (track, lx.text.as_slice()) {
                            (true, b"file") => 1,
                            (true, b"line") => 2,
                            (_, b"includedFrom") => 3,
                            _ => 0,
                        };
                        if let Some(top) = st.last_mut() {
                            top.1 = false;
                        }
                    }
                    Tok::ObjEnd => {
                        st.pop();
                        after_value(&mut st);
                    }
                    Tok::Eof => return Err(lx.err("truncated input inside a node").into()),
                    _ => return Err(lx.err("expected a key").into()),
                }
                continue;
            }
            match tok {
                Tok::ObjStart => st.push((true, true, track && pending != 3)),
                Tok::ArrStart => st.push((false, false, track)),
                Tok::ArrEnd if !is_obj => {
                    st.pop();
                    after_value(&mut st);
                }
                Tok::ObjEnd | Tok::ArrEnd => return Err(lx.err("mismatched bracket").into()),
                Tok::Eof => return Err(lx.err("truncated input inside a node").into()),
                Tok::Str => {
                    if pending == 1 {
                        let text = std::mem::take(&mut lx.text);
                        self.cur_file = self.file(&text);
                        lx.text = text;
                    }
                    after_value(&mut st);
                }
                Tok::Num => {
                    if pending == 2 {
                        self.cur_line = parse_int(&lx.text) as u32;
                    }
                    after_value(&mut st);
                }
                _ => after_value(&mut st),
            }
            pending = 0;
        }
        Ok(())
    }

    pub(super) fn file(&mut self, path: &[u8]) -> u16 {
        if let Some(&f) = self.file_ix.get(path) {
            return f;
        }
        if self.files.len() >= (u16::MAX - 1) as usize {
            return u16::MAX;
        }
        let i = self.files.len() as u16;
        let p = String::from_utf8_lossy(path).into_owned();
        let e = (|| -> Result<Eix, IlError> {
            let id = self.il.alloc(EntryKind::SourceFileEntry)?;
            let base = p.rsplit('/').next().unwrap_or(&p);
            self.il.set_string(id, 0, base.as_bytes())?;
            self.il.set_string(id, 1, p.as_bytes())?;
            self.il.eix(id)
        })()
        .unwrap_or(Eix::NONE);
        self.files.push(p);
        self.file_eix.push(e);
        self.file_ix.insert(path.to_vec(), i);
        i
    }

    pub(super) fn parse_loc<R: Read>(
        &mut self,
        lx: &mut Lexer<R>,
        depth: u32,
    ) -> Result<Option<(u16, u32, u32)>, Fail> {
        if !open_object(lx)? {
            return Ok(None);
        }
        let mut col = 0u32;
        let mut got = false;
        let mut exp: Option<(u16, u32, u32)> = None;
        loop {
            match lx.tok()? {
                Tok::Str => match lx.text.as_slice() {
                    b"file" => {
                        if let Tok::Str = lx.tok()? {
                            let text = std::mem::take(&mut lx.text);
                            self.cur_file = self.file(&text);
                            lx.text = text;
                        }
                        got = true;
                    }
                    b"line" => {
                        if let Tok::Num = lx.tok()? {
                            self.cur_line = parse_int(&lx.text) as u32;
                        }
                    }
                    b"col" => {
                        if let Tok::Num = lx.tok()? {
                            col = parse_int(&lx.text) as u32;
                        }
                        got = true;
                    }
                    b"includedFrom" => {
                        let cur = self.cur_file;
                        match lx.tok()? {
                            Tok::ObjStart => loop {
                                match lx.tok()? {
                                    Tok::Str if lx.text == b"file" => {
                                        if let Tok::Str = lx.tok()? {
                                            let text = std::mem::take(&mut lx.text);
                                            let p = self.file(&text);
                                            lx.text = text;
                                            self.includes.push((cur, p));
                                        }
                                    }
                                    Tok::Str => lx.skip_value()?,
                                    Tok::ObjEnd => break,
                                    Tok::Eof => return Err(lx.err("truncated input").into()),
                                    _ => return Err(lx.err("expected a key").into()),
                                }
                            },
                            Tok::Eof => return Err(lx.err("truncated input").into()),
                            other => lx.skip_from(other, |_| {})?,
                        }
                    }
                    b"spellingLoc" if depth == 0 => {
                        self.parse_loc(lx, depth + 1)?;
                    }
                    b"expansionLoc" if depth == 0 => {
                        exp = self.parse_loc(lx, depth + 1)?;
                    }
                    _ => lx.skip_value()?,
                },
                Tok::ObjEnd => break,
                Tok::Eof => return Err(lx.err("truncated input in a location").into()),
                _ => return Err(lx.err("expected a key in a location").into()),
            }
        }
        if exp.is_some() {
            return Ok(exp);
        }
        Ok(got.then_some((self.cur_file, self.cur_line, col)))
    }

    pub(super) fn parse_range<R: Read>(&mut self, lx: &mut Lexer<R>, t: usize) -> Result<(), Fail> {
        if !open_object(lx)? {
            return Ok(());
        }
        loop {
            match lx.tok()? {
                Tok::Str => match lx.text.as_slice() {
                    b"begin" => {
                        let p = self.parse_loc(lx, 0)?;
                        let f = &mut self.frames[t];
                        if let (Some(p), false) = (p, f.has_pos) {
                            f.pos = p;
                            f.has_pos = true;
                        }
                    }
                    b"end" => {
                        self.parse_loc(lx, 0)?;
                    }
                    _ => lx.skip_value()?,
                },
                Tok::ObjEnd => return Ok(()),
                Tok::Eof => return Err(lx.err("truncated input in a range").into()),
                _ => return Err(lx.err("expected a key in a range").into()),
            }
        }
    }

    pub(super) fn file_name(&self, f: u16) -> &str {
        self.files.get(f as usize).map(|s| s.as_str()).unwrap_or("")
    }
}
