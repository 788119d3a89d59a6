//! The shared graph layer: small traits, CSR adjacency and the algorithms that run on
//! both the call graph and every CFG (iterative Tarjan, RPO, dominators).
//!
//! Algorithms are written once against [`DirectedGraph`] / [`Successors`] /
//! [`Predecessors`] / [`WithStart`] and never recurse: real call chains and CFGs are deep.
//! A graph names its node type ([`DirectedGraph::Node`], an [`Idx`]: a block, a call-graph
//! node, or plain `u32` for hosts and tests without a type of their own); nodes are the
//! dense indices `0..num_nodes()`, and `Node::NONE` (`u32::MAX`) is never a node. The
//! algorithms' results are typed by the same node type ([`Rpo<N>`](rpo::Rpo),
//! [`DomTree<N>`](dom::DomTree), [`Tarjan<N>`]); inside, their hot loops index `u32`
//! tables (the index types are `#[repr(transparent)]` `u32`s, so this costs nothing).
//!
//! `graph` depends on nothing in the crate but [`crate::idx`].

pub mod csr;
pub mod dom;
pub mod rpo;
pub mod tarjan;

use crate::idx::Idx;

pub use csr::Csr;
pub use tarjan::{CompIdx, Plain, SccGraph, Tarjan};

/// A graph over dense node indices `0..num_nodes()`.
pub trait DirectedGraph {
    /// The node index type.
    type Node: Idx;
    /// Number of nodes; valid node indices are `0..num_nodes()`.
    fn num_nodes(&self) -> usize;
}

/// Forward adjacency.
pub trait Successors: DirectedGraph {
    /// Successors of `node`, in stored order (order matters: it fixes DFS order).
    fn successors(&self, node: Self::Node) -> &[Self::Node];
    /// A hint that `successors(node)` will be read soon (a walk prefetches the next
    /// step's adjacency); does nothing unless the graph overrides it.
    #[inline]
    fn prefetch_successors(&self, _node: Self::Node) {}
}

/// Backward adjacency.
pub trait Predecessors: DirectedGraph {
    /// Predecessors of `node`, in stored order.
    fn predecessors(&self, node: Self::Node) -> &[Self::Node];
}

/// A graph with a distinguished start node (a CFG's entry block).
pub trait WithStart: DirectedGraph {
    /// The start node.
    fn start_node(&self) -> Self::Node;
}

/// Every node of `g`, in index order.
pub fn nodes<G: DirectedGraph + ?Sized>(
    g: &G,
) -> impl DoubleEndedIterator<Item = G::Node> + ExactSizeIterator {
    (0..g.num_nodes()).map(G::Node::new)
}
