//! The shared graph layer: small traits, CSR adjacency and the algorithms that run on
//! both the call graph and every CFG (iterative Tarjan, RPO, dominators, dominance
//! frontiers, post-dominators).
//!
//! Algorithms are written once against [`DirectedGraph`] / [`Successors`] /
//! [`Predecessors`] / [`WithStart`] and never recurse: real call chains and CFGs are deep.
//! A graph names its node type ([`DirectedGraph::Node`], an [`Idx`]: a block, a call-graph
//! node, or plain `u32` for hosts and tests without a type of their own); nodes are the
//! dense indices `0..num_nodes()`, and `Node::NONE` (`u32::MAX`) is never a node. The
//! algorithms' results are typed by the same node type ([`Rpo<N>`](rpo::Rpo),
//! [`DomTree<N>`], [`DomFrontiers<N>`], [`PostDomTree<N>`], [`Tarjan<N>`]); inside, their
//! hot loops index `u32` tables (the index types are `#[repr(transparent)]` `u32`s, so
//! this costs nothing).
//!
//! A host with an edge list needs no trait impl: [`CsrGraph`] (successors, predecessors,
//! a start node; built from edges or a [`Csr`]) implements all four traits, and its
//! checked constructors return a [`GraphError`] instead of panicking. Queries on the
//! results take any index: one that is not a node answers "unreachable" / empty, on a
//! default (never computed) result too.
//!
//! # No panics
//! No public function panics on a typed argument: an index out of range (or `NONE`)
//! answers empty / `None` / `false`, a [`Tarjan`] run treats nodes beyond its table as
//! out of scope, and an analysis handed another graph's RPO or dominator tree computes
//! an empty result (another size) or some result that `verify` rejects (same size). Two
//! things are outside that promise: a graph whose trait impl breaks its contract (a
//! successor `>= num_nodes()`), and a table given inconsistent raw parts
//! ([`Csr::from_raw`]); `verify` reports the latter. [`Tarjan::reset`] and its
//! siblings panic past 2^31 - 3 nodes, a capacity limit. `tests/graph_api_props.rs`
//! drives random call sequences to check it.
//!
//! - [`rpo`]: reverse post-order (ptxas' traversal); [`dom`]: immediate dominators
//!   (Semi-NCA, CHK), O(1) dominance, [`Idom`] (root / node / unreachable);
//! - [`frontier`]: dominance frontiers and iterated frontiers (SSA φ placement);
//! - [`postdom`]: LLVM's post-dominator tree (virtual exit, roots for infinite loops);
//! - [`tarjan`]: SCCs (the call graph's build and splits, CFG loops).
//!
//! `graph` depends on nothing in the crate but [`crate::idx`].

pub mod csr;
pub mod dom;
pub mod frontier;
pub mod postdom;
pub mod rpo;
pub mod tarjan;

use crate::idx::Idx;

pub use csr::{Csr, CsrGraph};
pub use dom::{DomTree, Idom};
pub use frontier::DomFrontiers;
pub use postdom::PostDomTree;
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

/// A graph given by a host was malformed (what the checked constructors return).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphError {
    /// An edge endpoint is not a node.
    EdgeOutOfRange {
        /// The edge's source.
        source: usize,
        /// The edge's target.
        target: usize,
        /// Number of nodes of the graph.
        num_nodes: usize,
    },
    /// The start (entry) node is not a node.
    StartOutOfRange {
        /// The start node given.
        start: usize,
        /// Number of nodes of the graph.
        num_nodes: usize,
    },
    /// A CSR table's offsets do not describe its targets.
    MalformedCsr,
    /// Analyses used with a graph they were not computed for (or computed before the
    /// graph changed).
    StaleAnalyses,
    /// Per-node columns of different lengths.
    ColumnLengths {
        /// Which column.
        column: &'static str,
        /// Its length.
        len: usize,
        /// Number of nodes.
        num_nodes: usize,
    },
}

impl std::fmt::Display for GraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GraphError::EdgeOutOfRange {
                source,
                target,
                num_nodes,
            } => write!(
                f,
                "edge {source} -> {target} has an endpoint that is not one of the {num_nodes} nodes"
            ),
            GraphError::StartOutOfRange { start, num_nodes } => {
                write!(f, "start node {start} is not one of the {num_nodes} nodes")
            }
            GraphError::MalformedCsr => f.write_str("CSR offsets do not describe the targets"),
            GraphError::StaleAnalyses => f.write_str("analyses are stale or for another graph"),
            GraphError::ColumnLengths {
                column,
                len,
                num_nodes,
            } => write!(f, "column {column} has {len} rows for {num_nodes} nodes"),
        }
    }
}

impl std::error::Error for GraphError {}

/// Every node of `g`, in index order.
pub fn nodes<G: DirectedGraph + ?Sized>(
    g: &G,
) -> impl DoubleEndedIterator<Item = G::Node> + ExactSizeIterator {
    (0..g.num_nodes()).map(G::Node::new)
}
