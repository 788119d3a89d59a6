//! ilkit: a data-oriented engine for the three core data structures of a CUDA-style
//! compiler toolchain.
//!
//! | stage | modules | reads |
//! |---|---|---|
//! | front end: IL world, walks, keep-in-IL, display, binary IL, copy | [`il`], [`walk`] | generated translation units, binary IL files |
//! | front end: comparison, constant sharing, deep copy, template substitution | [`compare`], [`share`], [`instantiate`] | the IL |
//! | middle: lazy call graph, CGSCC pass manager and inliner | [`callgraph`], [`cgscc`] | LLVM IR text |
//! | back end: control-flow graphs | [`cfg`](mod@cfg) | PTX, LLVM IR |
//!
//! Data flows one way: [`import`] builds worlds, call graphs and CFGs; systems read them
//! and write side tables; [`scan`] runs everything over a corpus in parallel. Shared graph
//! algorithms live in [`graph`].
#![deny(missing_docs)]

pub mod callgraph;
pub mod cfg;
pub mod cgscc;
pub mod compare;
pub mod graph;
pub mod idx;
pub mod il;
pub mod import;
pub mod instantiate;
pub mod llvm;
#[cfg(feature = "petgraph")]
pub mod petgraph_interop;
pub mod scan;
pub mod share;
pub mod walk;

#[cfg(test)]
mod test_support;
