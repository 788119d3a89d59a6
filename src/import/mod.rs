//! Front doors: readers for the real formats ilkit consumes.
//!
//! - [`llvm_ir`]: LLVM IR text (`.ll`, clang 14–19 / opt output) → functions, blocks,
//!   successors, call sites and constant operands (for the call graph and CFGs).

pub mod llvm_ir;
