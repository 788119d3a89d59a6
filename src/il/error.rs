//! Errors of the IL world. Messages that the seeds print are kept verbatim.

use super::{Eix, EntryId, EntryKind};

/// An error from building or querying the IL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IlError {
    /// The ID's entry was freed (its region ended or its slot was recycled).
    StaleId(EntryId),
    /// A kind number outside 0..=84, or a kind that has no table (reserved, text, none, last).
    NotAllocatable(u8),
    /// A kind dispatcher got a value outside its range; the message is the seed's.
    BadKind(&'static str),
    /// A field was used on an entry of another kind.
    WrongOwner {
        /// The field's owner kind.
        field_owner: EntryKind,
        /// The entry's kind.
        entry: EntryKind,
    },
    /// A child of the wrong kind was attached.
    WrongTarget {
        /// The kind the field expects.
        expected: EntryKind,
        /// The kind supplied.
        found: EntryKind,
    },
    /// A seed assertion, with the seed's message (`assoc_routine is non-NULL`, ...).
    Assert(&'static str),
    /// An operation needs a function region but the current region is file scope.
    NotInFunctionScope(&'static str),
    /// A region index that is not open.
    BadRegion(u32),
    /// A walk met this entry at a depth no path without a cycle reaches: the child edges
    /// under its start have a cycle.
    Cycle(Eix),
}

impl std::fmt::Display for IlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IlError::StaleId(id) => write!(f, "stale entry id {id:?}: its entry was freed"),
            IlError::NotAllocatable(k) => write!(f, "entry kind {k} cannot be allocated"),
            IlError::BadKind(m) | IlError::Assert(m) => f.write_str(m),
            IlError::WrongOwner { field_owner, entry } => write!(
                f,
                "field of {} used on an entry of kind {}",
                field_owner.name(),
                entry.name()
            ),
            IlError::WrongTarget { expected, found } => {
                write!(
                    f,
                    "expected a {} entry, found a {}",
                    expected.name(),
                    found.name()
                )
            }
            IlError::NotInFunctionScope(what) => {
                write!(f, "{what}: only allowed inside a function region")
            }
            IlError::BadRegion(r) => write!(f, "region {r} is not open"),
            IlError::Cycle(e) => write!(f, "entry {e} lies on a cycle of child edges"),
        }
    }
}

impl std::error::Error for IlError {}
