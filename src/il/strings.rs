//! String storage: one byte arena per region, for the three string kinds
//! (24 id_name, 25 string_text with an explicit length, 26 other_text).
//!
//! A [`Str`] is `(start, len)` into the arena of the region its entry lives in, so freeing a
//! function region frees its strings with it. string_text may contain NUL bytes: lengths
//! are explicit, never `strlen`.

/// A string handle: bytes `start..start + len` of the owning region's arena.
/// `len == u32::MAX` means "no string".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Str {
    /// Offset into the region's arena.
    pub start: u32,
    /// Length in bytes (without any terminator).
    pub len: u32,
}

impl Str {
    /// The absent string.
    pub const NONE: Str = Str {
        start: 0,
        len: u32::MAX,
    };
    /// Whether a string is present.
    #[inline]
    pub fn is_some(self) -> bool {
        self.len != u32::MAX
    }
}

impl Default for Str {
    fn default() -> Self {
        Str::NONE
    }
}

/// The string fields of one row (at most four per kind).
#[derive(Clone, Copy, Debug, Default)]
pub struct StrFields {
    len: u8,
    items: [Str; 4],
}

impl StrFields {
    /// Appends a handle.
    pub fn push(&mut self, s: Str) {
        self.items[self.len as usize] = s;
        self.len += 1;
    }
    /// The handles in schema order.
    pub fn as_slice(&self) -> &[Str] {
        &self.items[..self.len as usize]
    }
}

/// The byte arena of one region.
#[derive(Clone, Debug, Default)]
pub struct StringArena {
    bytes: Vec<u8>,
}

impl StringArena {
    /// Copies `s` into the arena.
    pub fn push(&mut self, s: &[u8]) -> Str {
        let start = self.bytes.len() as u32;
        self.bytes.extend_from_slice(s);
        Str {
            start,
            len: s.len() as u32,
        }
    }
    /// Copies the bytes of `s` from `from` (this arena itself when `None`) into this
    /// arena, without an intermediate buffer.
    pub fn push_copy(&mut self, from: Option<&StringArena>, s: Str) -> Str {
        let start = self.bytes.len() as u32;
        let len = match from {
            Some(other) => {
                let b = other.get(s);
                self.bytes.extend_from_slice(b);
                b.len()
            }
            None => {
                let r = self.get_range(s);
                self.bytes.extend_from_within(r.clone());
                r.len()
            }
        };
        Str {
            start,
            len: len as u32,
        }
    }
    /// The byte range of `s` in the arena (empty when absent or out of range).
    fn get_range(&self, s: Str) -> std::ops::Range<usize> {
        let r = s.start as usize..(s.start as usize).saturating_add(s.len as usize);
        if s.is_some() && r.end <= self.bytes.len() {
            r
        } else {
            0..0
        }
    }
    /// The bytes of `s` (empty for [`Str::NONE`]).
    pub fn get(&self, s: Str) -> &[u8] {
        &self.bytes[self.get_range(s)]
    }
    /// Bytes held.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
    /// Whether the arena is empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}
