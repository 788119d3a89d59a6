//! ID newtypes.
//!
//! [`EntryId`] is the stable generational handle callers hold (slotmap): once its entry is
//! freed (its function region ended, or it went back to a free list) it no longer resolves,
//! and it never aliases the entry that reuses the slot. [`Eix`] is the dense entry index
//! used inside the world and by every hot loop; analysis indices are `u32` newtypes made by
//! [`define_idx!`](crate::define_idx), with `u32::MAX` reserved as "none".
//!
//! An index of one table cannot index another:
//!
//! ```compile_fail
//! use ilkit::il::{Eix, RegionIdx};
//! fn takes_region(_: RegionIdx) {}
//! takes_region(Eix(3));
//! ```

/// Defines a dense `u32` index newtype with a display prefix; `NONE == u32::MAX`.
#[macro_export]
macro_rules! define_idx {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The reserved "none" value.
            pub const NONE: $name = $name(u32::MAX);
            /// Whether this is the "none" value.
            #[inline]
            pub fn is_none(self) -> bool {
                self.0 == u32::MAX
            }
            /// The index as `usize`, for indexing side tables.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::NONE
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                if self.is_none() {
                    write!(f, concat!($prefix, "-"))
                } else {
                    write!(f, concat!($prefix, "{}"), self.0)
                }
            }
        }
    };
}

slotmap::new_key_type! {
    /// Stable generational handle of an IL entry.
    pub struct EntryId;
}

define_idx!(
    /// Dense index of an entry in the world's columns (allocation order; reused after free).
    Eix,
    "e"
);
define_idx!(
    /// Index of a memory region: 0 is the file-scope region, others are function regions.
    RegionIdx,
    "r"
);

impl RegionIdx {
    /// The persistent file-scope region.
    pub const FILE_SCOPE: RegionIdx = RegionIdx(0);
}
