//! The IL world: entries as rows of per-kind SoA tables, generational IDs, flag bitset
//! columns, regions, string arenas, free lists and statistics.
//!
//! # Shape
//! - Every entry has a dense index [`Eix`] into the world's per-entry columns (kind, row,
//!   region, id, edge span, source position) and a stable generational [`EntryId`] for callers.
//! - Kind-specific data lives in the generated per-kind SoA [`Tables`], one row per entry.
//! - Child edges live in one pooled `Vec<Eix>`: per entry a header of list lengths, then
//!   the kind's single-child slots, then its list items, then its reference slots, laid out
//!   by the generated [`LAYOUT`]. Walks and keep-in-IL marking read `children(e)` as one
//!   contiguous slice.
//! - The prefix flag byte of EDG (allocated, file_scope, is_in_secondary_il, language_flag,
//!   keep_in_il) becomes one column per flag: dense [`BitSet`]s, tested and set in hot
//!   loops, except is_in_secondary_il, which is almost always empty and is a roaring
//!   bitmap (PERF.md has the measurements behind the choice).
//! - Regions: region 0 is the persistent file-scope region; a function region is opened
//!   when a body starts and freed when it ends, with its entries and strings, in time
//!   proportional to the region (amortized: the edge pool is compacted when half garbage).
//!
//! Entry kinds, tables and layout come from `components/` through `build.rs`.

mod bits;
mod build;
mod cols;
mod derived;
mod edges;
mod error;
mod id;
pub mod kinds;
mod runs;
pub mod schema;
pub mod stats;
mod strings;
pub mod synth;
mod world;

pub use bits::BitSet;
pub(crate) use derived::{NO_SHARE_KEY, SHARE_KEY_FILE_SCOPE};
pub use error::IlError;
pub use id::{Eix, EntryId, RegionIdx};
pub use runs::EixRuns;
pub use schema::{Cat, RegionRule};
pub use strings::{Str, StrFields, StringArena};
pub(crate) use world::{BlockLeaf, BuiltEntry, KeptBlock, TakenBlock};
pub use world::{Flag, FreeListKind, Il, Region, SourcePos, VerifyError};

#[allow(missing_docs, unused_parens, clippy::all)]
mod generated {
    use super::{
        Cat, ChildField, Eix, FieldInfo, Il, IlError, KindLayout, ListField, RefField, RegionRule,
        Str, StrFieldInfo, StrFields,
    };
    use soa_derive::StructOfArray;
    include!(concat!(env!("OUT_DIR"), "/il_schema.rs"));
}
pub use generated::*;

/// A single-child field handle (generated in [`fields`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChildField {
    /// The kind that has this field.
    pub owner: EntryKind,
    /// Slot among the owner's single children.
    pub slot: u32,
    /// The kind of entry it holds (`None` = any kind).
    pub target: Option<EntryKind>,
}

/// A list field handle (generated in [`fields`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListField {
    /// The kind that has this field.
    pub owner: EntryKind,
    /// Index among the owner's lists.
    pub list: u32,
    /// The kind of entry it holds (`None` = any kind).
    pub target: Option<EntryKind>,
}

/// A reference field handle (generated in [`fields`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefField {
    /// The kind that has this field.
    pub owner: EntryKind,
    /// Slot among the owner's references.
    pub slot: u32,
    /// The kind of entry it refers to (`None` = any kind).
    pub target: Option<EntryKind>,
}

/// Name and target of one edge field, for generic walks and display.
#[derive(Clone, Copy, Debug)]
pub struct FieldInfo {
    /// Field name.
    pub name: &'static str,
    /// Target kind (`None` = any).
    pub target: Option<EntryKind>,
}

/// Name and string kind of one string field.
#[derive(Clone, Copy, Debug)]
pub struct StrFieldInfo {
    /// Field name.
    pub name: &'static str,
    /// 24 id_name, 25 string_text, 26 other_text.
    pub string_kind: u8,
}

/// The edge layout of one kind (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct KindLayout {
    /// Single-child fields, in slot order.
    pub singles: &'static [FieldInfo],
    /// List fields, in list order.
    pub lists: &'static [FieldInfo],
    /// Reference fields, in slot order.
    pub refs: &'static [FieldInfo],
    /// String fields, in schema order.
    pub strings: &'static [StrFieldInfo],
}

impl EntryKind {
    /// EDG's name of the kind (`source_file_entry`, `expr_node`, ...).
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
    /// The kind's label in the seed's walk table.
    pub fn walk_label(self) -> &'static str {
        Self::WALK_LABELS[self as usize]
    }
    /// The kind with number `n`, if `n <= 84`.
    pub fn from_u8(n: u8) -> Option<EntryKind> {
        Self::ALL.get(n as usize).copied()
    }
    /// The kind's category.
    pub fn cat(self) -> Cat {
        Self::CATS[self as usize]
    }
    /// Where entries of this kind are allocated.
    pub fn region_rule(self) -> RegionRule {
        Self::REGIONS[self as usize]
    }
    /// EDG's allocation size (0 = unknown).
    pub fn seed_size(self) -> u32 {
        Self::SEED_SIZES[self as usize]
    }
    /// Whether entries of this kind can be allocated.
    pub fn has_table(self) -> bool {
        Self::HAS_TABLE[self as usize]
    }
    /// The kind's edge layout.
    pub fn layout(self) -> &'static KindLayout {
        &LAYOUT[self as usize]
    }
}
