//! ilkit: a data-oriented engine for the three core data structures of a CUDA-style
//! compiler toolchain.
//!
//! | stage | module | reads |
//! |---|---|---|
//! | front end: IL allocation, walks, keep-in-IL | [`il`] | generated translation units |
//! | middle: lazy call graph | `callgraph` | LLVM IR text |
//! | back end: control-flow graphs | `cfg` | PTX, LLVM IR |
//!
//! Shared graph algorithms live in [`graph`]; readers of real formats in [`import`].
#![deny(missing_docs)]

pub mod callgraph;
pub mod cfg;
pub mod compare;
pub mod graph;
pub mod il;
pub mod import;
pub mod instantiate;
pub mod scan;
pub mod share;
pub mod walk;
