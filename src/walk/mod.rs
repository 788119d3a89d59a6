//! Systems over the IL: the walker and its callbacks, keep-in-IL device marking, display.

pub mod copy;
pub mod device;
pub mod display;
pub mod keep;
pub(crate) mod preorder;
pub mod walker;

pub use walker::{walk_file_scope_il, Callbacks, WalkError, Walker};
