//! Front doors: readers for the real formats ilkit consumes.
//!
//! - [`llvm_ir`]: LLVM IR text (`.ll`, clang 14–19 / opt output) → functions, blocks,
//!   successors, call sites and constant operands (for the call graph and CFGs).
//! - [`llvm_cfg`]: the CFG of every defined function of an [`llvm_ir::Module`].
//! - [`ptx`]: PTX text (`llc -march=nvptx64`, NVIDIA tools) → functions and their CFGs.

pub mod clang_json;
pub mod llvm_cfg;
pub mod llvm_ir;
pub mod ptx;
