//! The shared graph layer: small traits, CSR adjacency and the algorithms that run on
//! both the call graph and every CFG (iterative Tarjan, RPO, dominators).
//!
//! Algorithms are written once against [`DirectedGraph`] / [`Successors`] /
//! [`Predecessors`] / [`WithStart`] and never recurse: real call chains and CFGs are deep.
//! Nodes are dense `u32` indices `0..num_nodes()`; `u32::MAX` is reserved as "none".

pub mod csr;
pub mod dom;
pub mod rpo;
pub mod tarjan;

pub use csr::Csr;
pub use tarjan::Tarjan;

/// Reserved "none" value for dense `u32` indices.
pub const NONE: u32 = u32::MAX;

/// A graph over dense node indices `0..num_nodes()`.
pub trait DirectedGraph {
    /// Number of nodes; valid node indices are `0..num_nodes()`.
    fn num_nodes(&self) -> usize;
}

/// Forward adjacency.
pub trait Successors: DirectedGraph {
    /// Successors of `node`, in stored order (order matters: it fixes DFS order).
    fn successors(&self, node: u32) -> &[u32];
}

/// Backward adjacency.
pub trait Predecessors: DirectedGraph {
    /// Predecessors of `node`, in stored order.
    fn predecessors(&self, node: u32) -> &[u32];
}

/// A graph with a distinguished start node (a CFG's entry block).
pub trait WithStart: DirectedGraph {
    /// The start node.
    fn start_node(&self) -> u32;
}
