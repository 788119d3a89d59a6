//! Front doors: readers for the real formats ilkit consumes.
pub mod llvm_ir;
