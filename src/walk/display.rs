//! IL display (`dump_il`): a file-scope walk whose entry visitor prints every entry in walk
//! order with its kind name, region, position, scalars, strings and edges.
//!
//! Entries are named `#N` by first mention in walk order, never by dense index, so two
//! worlds with the same IL (say one read back from a binary IL file) print the same text.

use super::walker::{Callbacks, WalkError, Walker};
use crate::il::{Eix, EntryKind, Flag, Il, RegionIdx, SCALAR_NAMES};
use std::fmt::Write;

/// The display visitor.
#[derive(Debug)]
pub struct Display {
    /// The text so far.
    pub out: String,
    ordinal: Vec<u32>,
    seen: Vec<bool>,
    next: u32,
    keep_only: bool,
    /// A routine-scope walk: file-scope entries are not entered (the walker leaves that
    /// test to a visitor with a pre-walk check, as seed 000's entry protocol does).
    skip_file_scope: bool,
}

impl Display {
    /// A display visitor; with `keep_only`, entries without keep_in_il are filtered out of
    /// lists and not printed (what a device-IL file holds).
    pub fn new(keep_only: bool) -> Display {
        Display {
            out: String::new(),
            ordinal: Vec::new(),
            seen: Vec::new(),
            next: 1,
            keep_only,
            skip_file_scope: false,
        }
    }

    fn name_of(&mut self, il: &Il, e: Eix) -> String {
        if e.is_none() || (self.keep_only && !il.flag(e, Flag::KeepInIl)) {
            return "-".into();
        }
        if self.ordinal.len() <= e.idx() {
            self.ordinal.resize(il.capacity().max(e.idx() + 1), 0);
        }
        if self.ordinal[e.idx()] == 0 {
            self.ordinal[e.idx()] = self.next;
            self.next += 1;
        }
        format!("#{}", self.ordinal[e.idx()])
    }
}

/// Escapes bytes for display (`\0`, `\n`, `\"`, `\\`, `\xNN`).
pub fn escape(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            0 => s.push_str("\\0"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\x{b:02x}");
            }
        }
    }
    s
}

impl Callbacks for Display {
    const HAS_ENTRY: bool = true;
    const HAS_FILTER: bool = true;
    const FILTER_REMOVES: bool = false;
    const HAS_PRE_WALK: bool = true;

    fn pre_walk_check(&mut self, il: &mut Il, e: Eix, _kind: EntryKind) -> bool {
        if self.seen.len() <= e.idx() {
            self.seen.resize(il.capacity().max(e.idx() + 1), false);
        }
        if self.seen[e.idx()]
            || (self.keep_only && !il.flag(e, Flag::KeepInIl))
            || (self.skip_file_scope && il.flag(e, Flag::FileScope))
        {
            return true;
        }
        self.seen[e.idx()] = true;
        false
    }

    fn entry_filter(&mut self, il: &mut Il, e: Eix, _kind: EntryKind) -> Option<Eix> {
        (!self.keep_only || il.flag(e, Flag::KeepInIl)).then_some(e)
    }

    fn entry(&mut self, il: &mut Il, e: Eix, kind: EntryKind) -> Option<Eix> {
        if self.keep_only && !il.flag(e, Flag::KeepInIl) {
            return None;
        }
        let il: &Il = il;
        let me = self.name_of(il, e);
        let region = if il.region_of(e) == RegionIdx::FILE_SCOPE {
            "file scope"
        } else {
            "function region"
        };
        let p = il.pos(e);
        let _ = writeln!(
            self.out,
            "[{me}] {} ({region}) at {}:{}:{}",
            kind.name(),
            p.file,
            p.line,
            p.col
        );
        for (i, name) in SCALAR_NAMES[kind as usize].iter().enumerate() {
            let _ = writeln!(self.out, "  {name} = {}", il.scalar(e, i));
        }
        let layout = kind.layout();
        let strs = il.string_handles(e);
        for (i, info) in layout.strings.iter().enumerate() {
            let s = strs.as_slice()[i];
            if s.is_some() {
                let _ = writeln!(
                    self.out,
                    "  {} = \"{}\"",
                    info.name,
                    escape(il.str_bytes(e, s))
                );
            }
        }
        let kids = il.children(e).to_vec();
        let keep_only = self.keep_only;
        for (i, info) in layout.singles.iter().enumerate() {
            let n = self.name_of(il, kids[i]);
            let _ = writeln!(self.out, "  {} = {n}", info.name);
        }
        for (l, info) in layout.lists.iter().enumerate() {
            let (off, len) = il.list_pos(e, l as u32);
            let items: Vec<String> = kids[off..off + len]
                .iter()
                .filter(|&&c| !keep_only || il.flag(c, Flag::KeepInIl))
                .map(|&c| self.name_of(il, c))
                .collect();
            let _ = writeln!(self.out, "  {} = [{}]", info.name, items.join(" "));
        }
        let refs = il.refs(e).to_vec();
        for (i, info) in layout.refs.iter().enumerate() {
            let n = self.name_of(il, refs[i]);
            let _ = writeln!(self.out, "  {} -> {n}", info.name);
        }
        None
    }
}

/// `dump_il`: the whole file-scope IL as text, in walk order. With `keep_only`, only the
/// entries marked keep_in_il (the device IL).
pub fn dump_il(il: &mut Il, keep_only: bool) -> Result<String, WalkError> {
    let mut d = Display::new(keep_only);
    let _ = writeln!(
        d.out,
        "IL header: compiler_version = \"{}\"",
        escape(il.compiler_version.as_deref().unwrap_or_default())
    );
    let _ = writeln!(
        d.out,
        "IL header: time_of_compilation = \"{}\"",
        escape(il.time_of_compilation.as_deref().unwrap_or_default())
    );
    Walker::new().walk_file_scope_il(il, &mut d, 0)?;
    Ok(d.out)
}

/// The display of routine `routine`'s body as `walk_routine_scope_il` walks it: its body
/// scope and what the body owns, file-scope entries left out (numbering starts at #1).
///
/// # Errors
/// A stale entry or one that is not a routine.
pub fn dump_routine(il: &mut Il, routine: crate::il::EntryId) -> Result<String, WalkError> {
    let mut d = Display::new(false);
    d.skip_file_scope = true;
    Walker::new().walk_routine_scope_il(il, &mut d, routine)?;
    Ok(d.out)
}

/// The display of one entry's subtree, in walk order (numbering starts at #1).
pub fn dump_subtree(il: &mut Il, root: Eix) -> Result<String, WalkError> {
    let mut d = Display::new(false);
    Walker::new().walk_entry_and_subtree(il, &mut d, root)?;
    Ok(d.out)
}
