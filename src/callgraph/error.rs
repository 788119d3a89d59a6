//! Typed errors of the call graph's constructors and mutations: each variant names
//! the precondition the call broke. Nothing changes in the graph when an
//! operation returns an error (every check runs before the first edit).

use super::{EdgeKind, NodeIdx, RefSccIdx, SccIdx};

/// A broken precondition of a [`LazyCallGraph`](super::LazyCallGraph) operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LcgError {
    /// The operation needs [`build_ref_sccs`](super::LazyCallGraph::build_ref_sccs) first.
    NotBuilt,
    /// The operation is only allowed before the SCCs are built (LLVM's `insertEdge`,
    /// `removeEdge`).
    AlreadyBuilt,
    /// The node index is out of range.
    UnknownNode(NodeIdx),
    /// The SCC index is out of range or the SCC is dead (merged away, emptied).
    DeadScc(SccIdx),
    /// The RefSCC index is out of range or the RefSCC is dead (not in the post-order).
    DeadRefScc(RefSccIdx),
    /// [`LazyCallGraph::new`](super::LazyCallGraph::new): a per-node column whose
    /// length differs from the number of names.
    ColumnLength {
        /// Which column.
        column: &'static str,
        /// Its length.
        len: usize,
        /// Number of names (nodes).
        num_nodes: usize,
    },
    /// More nodes than a graph holds (node indices are below 2^31).
    TooManyNodes(usize),
    /// The node was removed as dead.
    RemovedNode(NodeIdx),
    /// The node is in no SCC (not reached from a root, or a new node not placed yet).
    NotInGraph(NodeIdx),
    /// The node is already placed in an SCC (a "new" function must not be).
    AlreadyPlaced(NodeIdx),
    /// The node is populated: it already has edges (a new node gets its edges from the
    /// operation that places it).
    HasEdges(NodeIdx),
    /// The node's edges are not computed yet, so it may have some (a new node made by
    /// [`add_function`](super::LazyCallGraph::add_function) is populated, without edges).
    NotPopulated(NodeIdx),
    /// No edge `src -> tgt`.
    NoEdge {
        /// Source.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
    },
    /// The edge `src -> tgt` already exists.
    EdgeExists {
        /// Source.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
    },
    /// The edge `src -> tgt` is not of the kind the operation starts from.
    WrongEdgeKind {
        /// Source.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
        /// The kind the operation needs.
        expected: EdgeKind,
    },
    /// The same edge (or target) is listed twice.
    RepeatedEdge {
        /// Source.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
    },
    /// The endpoints must share a RefSCC (an *internal* edge) but do not.
    NotInternal {
        /// Source.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
    },
    /// The endpoints must be in different RefSCCs (an *outgoing* edge) but share one.
    NotOutgoing {
        /// Source.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
    },
    /// The endpoints must be in different SCCs (LLVM's `switchTrivialInternalEdgeToRef`;
    /// use `switch_internal_edge_to_ref` inside one SCC).
    SameScc {
        /// Source.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
    },
    /// The edge would go from a RefSCC (or SCC) to a later one in post-order, which the
    /// operation does not allow (use the operation that merges).
    NotDescendant {
        /// Source.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
    },
    /// `insert_incoming_ref_edge`: `src`'s RefSCC must come before `tgt`'s.
    NotIncoming {
        /// Source.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
    },
    /// Edges passed to one RefSCC operation lie in more than one RefSCC.
    SpansRefSccs {
        /// Source of the offending edge.
        src: NodeIdx,
        /// Target of the offending edge.
        tgt: NodeIdx,
    },
    /// A library function cannot be marked or removed as dead.
    LibraryFunction(NodeIdx),
    /// A dead function still has an outgoing call edge (call
    /// [`mark_dead_function`](super::LazyCallGraph::mark_dead_function) first).
    DeadFunctionCalls {
        /// The dead function.
        dead: NodeIdx,
        /// A function it still calls.
        callee: NodeIdx,
    },
    /// A function to be marked dead is still called from inside its own SCC (so it has
    /// IR uses).
    DeadFunctionCalled {
        /// The dead function.
        dead: NodeIdx,
        /// A caller in the same SCC.
        caller: NodeIdx,
    },
    /// LLVM 14's `removeDeadFunction`: the function must be alone in its SCC and RefSCC.
    NotAlone(NodeIdx),
    /// The list of new functions is empty.
    NoFunctions,
    /// `add_split_ref_recursive_functions`: every new function must reference every
    /// other one with a ref edge (LLVM asserts the clique).
    NotRefClique {
        /// Source of the missing (or call) edge.
        src: NodeIdx,
        /// Target.
        tgt: NodeIdx,
    },
    /// A builder names a function twice.
    DuplicateName(String),
    /// A builder edge names a function the builder does not define.
    UnknownName(String),
    /// An edge targets a declaration (LLVM has edges to defined functions only).
    EdgeToDeclaration {
        /// Source.
        src: NodeIdx,
        /// The declaration.
        tgt: NodeIdx,
    },
}

impl std::fmt::Display for LcgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use LcgError::*;
        match self {
            NotBuilt => write!(f, "the SCCs are not built (call build_ref_sccs first)"),
            AlreadyBuilt => write!(f, "only allowed before the SCCs are built"),
            UnknownNode(n) => write!(f, "{n} is out of range"),
            DeadScc(s) => write!(f, "{s} is not a live SCC"),
            DeadRefScc(r) => write!(f, "{r} is not a live RefSCC"),
            ColumnLength {
                column,
                len,
                num_nodes,
            } => write!(f, "column {column} has {len} rows for {num_nodes} nodes"),
            TooManyNodes(n) => write!(f, "{n} nodes is more than a call graph holds"),
            RemovedNode(n) => write!(f, "{n} was removed as dead"),
            NotInGraph(n) => write!(f, "{n} is in no SCC"),
            AlreadyPlaced(n) => write!(f, "{n} is already in an SCC"),
            HasEdges(n) => write!(f, "{n} already has edges"),
            NotPopulated(n) => write!(f, "{n} is not populated (it may have edges)"),
            NoEdge { src, tgt } => write!(f, "no edge {src} -> {tgt}"),
            EdgeExists { src, tgt } => write!(f, "edge {src} -> {tgt} already present"),
            WrongEdgeKind { src, tgt, expected } => {
                write!(f, "edge {src} -> {tgt} must be a {expected:?} edge")
            }
            RepeatedEdge { src, tgt } => write!(f, "edge {src} -> {tgt} listed twice"),
            NotInternal { src, tgt } => write!(f, "{src} and {tgt} are in different RefSCCs"),
            NotOutgoing { src, tgt } => write!(f, "{src} and {tgt} share a RefSCC"),
            SameScc { src, tgt } => write!(f, "{src} and {tgt} share an SCC"),
            NotDescendant { src, tgt } => {
                write!(f, "edge {src} -> {tgt} goes to a later SCC or RefSCC")
            }
            NotIncoming { src, tgt } => {
                write!(f, "edge {src} -> {tgt} does not go to a later RefSCC")
            }
            SpansRefSccs { src, tgt } => {
                write!(f, "edge {src} -> {tgt} is outside the RefSCC of the others")
            }
            LibraryFunction(n) => write!(f, "{n} is a library function"),
            DeadFunctionCalls { dead, callee } => {
                write!(f, "dead {dead} still calls {callee} (mark it dead first)")
            }
            DeadFunctionCalled { dead, caller } => {
                write!(f, "dead {dead} is still called by {caller} in its SCC")
            }
            NotAlone(n) => write!(f, "{n} is not alone in its SCC and RefSCC"),
            NoFunctions => write!(f, "no new functions given"),
            NotRefClique { src, tgt } => {
                write!(f, "new functions need a ref edge {src} -> {tgt}")
            }
            DuplicateName(s) => write!(f, "function {s} defined twice"),
            UnknownName(s) => write!(f, "no function named {s}"),
            EdgeToDeclaration { src, tgt } => {
                write!(f, "edge {src} -> {tgt} targets a declaration")
            }
        }
    }
}

impl std::error::Error for LcgError {}
