//! Front doors: readers for the real formats ilkit consumes.

pub mod clang_json;
pub mod llvm_cfg;
pub mod llvm_ir;
pub mod ptx;
