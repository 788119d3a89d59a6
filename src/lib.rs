//! ilkit: a data-oriented engine for the three core data structures of a CUDA-style
//! compiler toolchain — the front end's IL, the middle end's lazy call graph and the back
//! end's control-flow graph.
//!
//! # Quickstart
//!
//! **LLVM IR → call graph → SCCs and RefSCCs** in post-order (what `opt
//! -passes=print-lcg` prints; RefSCCs are built when first asked for):
//! ```
//! use ilkit::{callgraph, llvm::Module};
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/default/recursion.ll");
//! let module = Module::from_ll_file(path)?;
//! let mut graph = callgraph::from_module(&module, path);
//! for refscc in graph.postorder_refsccs() {           // callees first
//!     for &scc in graph.refscc_sccs(refscc) {
//!         let nodes = graph.scc_nodes(scc).iter();
//!         let names: Vec<&str> = nodes.filter_map(|&n| graph.name(n)).collect();
//!         assert!(!names.is_empty());
//!     }
//! }
//! assert!(graph.verify().is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **PTX (or LLVM IR) → CFG → dominators and loops**, one [`Cfg`](cfg::Cfg) per function:
//! ```
//! use ilkit::cfg::Cfg;
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/default/adler32.ptx");
//! for cfg in Cfg::from_ptx_file(path)? {   // or Cfg::from_llvm_module(&Module::from_ll_file(..)?)
//!     let info = cfg.analyze();             // RPO, backedges, dominator tree, loop forest
//!     for b in cfg.blocks() {
//!         if let Some(idom) = info.idom(b) {
//!             assert!(info.dom().dominates(idom, b));
//!         }
//!     }
//!     let loops = info.loops();
//!     for l in loops.loops() {
//!         let header = loops.header_of(l);
//!         assert_eq!(loops.loop_blocks(l).first().copied(), header);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **clang JSON AST → IL → keep-in-IL → device IL file**, as clang's device compilation
//! keeps code:
//! ```
//! use ilkit::il::Il;
//! use ilkit::import::{binary_il, clang_json};
//! use ilkit::walk::device::{kept_routine_names, mark_device, DeviceOptions};
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/clang/kernels.json.gz");
//! let mut il = Il::new();
//! clang_json::import_file(&mut il, path.as_ref())?;   // streams .json or .json.gz
//! assert!(il.verify().is_empty());
//! let keep = mark_device(&mut il, DeviceOptions::default());
//! let kept: Vec<String> = kept_routine_names(&il, &keep);
//! assert!(!kept.is_empty());
//! let bytes: Vec<u8> = binary_il::write_il(&mut il, true)?;   // device-only IL
//! let back = binary_il::read_il(&bytes)?;
//! assert!(back.verify().is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//! The same three programs are in `examples/` (`cargo run --example llvm_callgraph`,
//! `cfg_dominators`, `clang_device_il`).
//!
//! # Map
//!
//! | stage | modules | reads |
//! |---|---|---|
//! | front end: IL world, walks, keep-in-IL, display, copy | [`il`], [`walk`] | clang JSON ASTs, generated translation units, binary IL files |
//! | front end: comparison, constant sharing, deep copy, template substitution | [`compare`], [`share`], [`instantiate`] | the IL |
//! | middle: LLVM module model, lazy call graph, CGSCC pass manager, inliner, function-attrs | [`llvm`], [`callgraph`], [`cgscc`] | LLVM IR text |
//! | back end: control-flow graphs, dominators, loops, layout | [`cfg`](mod@cfg) | PTX, LLVM IR |
//!
//! Data flows one way (`ARCHITECTURE.md`, "Layers"): [`import`] reads real formats into
//! engine values (an IL world, an [`llvm::Module`], CFGs); the engine modules never import
//! their readers; [`scan`] runs everything over a corpus in parallel. Shared graph
//! algorithms (typed indices in [`idx`], CSR, one Tarjan, RPO, dominators, frontiers,
//! post-dominators) live in [`graph`]. The library prints nothing; the `ilkit` binary
//! (`src/bin/ilkit/`) is its command-line front end.
#![deny(missing_docs)]
#![deny(missing_debug_implementations)]

pub mod callgraph;
pub mod cfg;
pub mod cgscc;
pub mod compare;
pub mod graph;
pub mod hash;
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
