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
    /// The bytes of `s` (empty for [`Str::NONE`]).
    pub fn get(&self, s: Str) -> &[u8] {
        if !s.is_some() {
            return &[];
        }
        self.bytes
            .get(s.start as usize..(s.start + s.len) as usize)
            .unwrap_or(&[])
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
