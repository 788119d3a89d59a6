//! ilkit: a data-oriented engine for the three core data structures of a CUDA-style
//! compiler toolchain.
#![deny(missing_docs)]

pub mod callgraph;
pub mod cfg;
pub mod graph;
pub mod import;
