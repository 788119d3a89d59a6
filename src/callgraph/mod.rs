//! LLVM's lazy call graph: nodes, call/ref edges, SCCs and RefSCCs in post-order, and
//! the incremental mutations a CGSCC pass manager needs.
//!
//! One node per function (dense [`NodeIdx`], module order; declarations get a node so
//! they can be printed, but no edge ever targets them). Edges are built lazily: a node's
//! edge list is computed from its [`EdgeSource`] the first time a walk visits it, then
//! cached. [`LazyCallGraph::build_ref_sccs`] runs LLVM's `buildRefSCCs`: a Tarjan over
//! call+ref edges from the entry roots in order gives the RefSCCs in post-order; inside
//! each RefSCC a Tarjan over call edges, from its nodes in order, gives its call SCCs in
//! post-order. Both are runs of the one [`crate::graph::Tarjan`] (a RefSCC with no ref
//! edge inside it needs no second run: its call SCC is the RefSCC itself, in the same
//! order, because the call-edge walk would retrace the first walk's steps inside it).
//! SCCs and RefSCCs are callee-first: every SCC comes after the SCCs it calls, every
//! RefSCC after the RefSCCs it references.
//!
//! # Tables (dense, keyed by the index types)
//! - per node: name, defined flag, populated flag, edge list, SCC; the Tarjan state
//!   (one word per node, which outlives a walk so splits only walk the nodes involved).
//! - per SCC ([`SccIdx`]): its nodes (a range of one pooled list), its RefSCC, its
//!   position in that RefSCC's list.
//! - per RefSCC ([`RefSccIdx`]): its SCCs in post-order (pooled), its post-order position.
//!
//! # Invariants (checked by [`LazyCallGraph::verify`])
//! - `scc_nodes[scc_of[n]]` contains `n`; `rc_sccs[scc_rc[s]][scc_pos[s]] == s`;
//!   live RefSCCs form the post-order list with strictly increasing order keys.
//! - call edges inside an SCC keep it strongly connected; ref+call edges inside a RefSCC
//!   keep it strongly connected.
//! - for every call edge `a -> b`, `scc_of[b]` is no later than `scc_of[a]` in post-order;
//!   for every edge `a -> b`, `b`'s RefSCC is no later than `a`'s.
//!
//! # Complexity
//! Building is O(N + E) after population (population is linear in the function bodies).
//! Mutations cost time proportional to the SCCs/RefSCCs involved: SCC positions are
//! dense indices inside one RefSCC, and the RefSCC post-order is an order-maintenance
//! list (`order.rs`: linked list + `u64` order keys), so splitting, merging, inserting
//! or removing RefSCCs never shifts the rest of the post-order.
//!
//! # Using it (a CGSCC pass manager)
//! ```
//! use ilkit::callgraph::{from_module, EdgeKind};
//! use ilkit::llvm::Module;
//! let m = Module::from_ll_str("m.ll", "define void @f() {\n  call void @g()\n  ret void\n}\n\
//!                        define void @g() {\n  ret void\n}\n").unwrap();
//! let mut g = from_module(&m, "m.ll");
//! for rc in g.postorder_refsccs() {                // builds the RefSCCs; callees first
//!     for &scc in g.refscc_sccs(rc) {
//!         for &n in g.scc_nodes(scc) {
//!             let _calls = g.cached_edges(n).filter(|e| e.kind == EdgeKind::Call).count();
//!         }
//!     }
//! }
//! // after transforming a function, hand its new edges to the graph:
//! let f = g.node_by_name("f").unwrap();
//! let up = g.update_node_edges(f, &[]).unwrap(); // e.g. the call to g was inlined away
//! assert!(up.new_refsccs.is_empty() && g.verify().is_empty());
//! ```
//! The mutation primitives (`switch_internal_edge_to_call`, `switch_internal_edge_to_ref`,
//! `insert_incoming_ref_edge`, `remove_internal_ref_edges`, ...) are LLVM's, with the same
//! results; SCC and RefSCC indices stay valid (dead ones become empty) so side tables
//! keyed by them survive mutations.
//!
//! # LLVM 14 and LLVM main
//! The API follows LLVM main's `LazyCallGraph` where it differs from LLVM 14 and keeps
//! 14's forms beside it (the method docs say which is which):
//! [`mark_dead_function`](LazyCallGraph::mark_dead_function) +
//! [`remove_dead_functions`](LazyCallGraph::remove_dead_functions) (main) next to
//! [`remove_dead_function`](LazyCallGraph::remove_dead_function) (14);
//! [`remove_internal_ref_edges`](LazyCallGraph::remove_internal_ref_edges) with
//! (source, target) pairs (main) next to
//! [`remove_internal_ref_edge`](LazyCallGraph::remove_internal_ref_edge) (14). Both
//! versions share [`switch_trivial_internal_edge_to_ref`](LazyCallGraph::switch_trivial_internal_edge_to_ref),
//! [`add_split_function`](LazyCallGraph::add_split_function),
//! [`add_split_ref_recursive_functions`](LazyCallGraph::add_split_ref_recursive_functions)
//! and the SCC / RefSCC relation queries (`scc_is_parent_of`, `refscc_is_ancestor_of`,
//! ...).
//!
//! # Errors, building by hand, queries through `&self`
//! Broken preconditions are [`LcgError`]s: the constructors and every mutation return
//! `Result` (the graph is unchanged on error), and no public method panics on any
//! argument: a [`NodeIdx`], [`SccIdx`] or [`RefSccIdx`] that is out of range, dead,
//! or from another graph gets an error, `None`, `false` or an empty list, as each
//! method's docs say, and an [`EdgeSource`] that breaks its contract cannot break the
//! graph (`tests/lcg_props.rs` drives random call sequences to check all this). The one
//! limit is the index space: a graph holds fewer than 2^31 nodes
//! ([`LcgError::TooManyNodes`]; [`LazyCallGraph::add_function`] past it panics, as a
//! `Vec` past its capacity does).
//!
//! [`LazyCallGraph::builder`] builds a graph by function name;
//! [`LazyCallGraph::node_by_name`] is a hash lookup. Only population needs `&mut self`
//! (see [`LazyCallGraph::cached_edges`]).

mod builder;
mod error;
mod lifecycle;
mod module;
mod mutate;
mod order;
mod pool;
pub mod print;
mod relations;
mod update;
mod verify;

pub use builder::CallGraphBuilder;
pub use error::LcgError;
pub use module::{from_module, function_of_node, node_of_function, symbol_function_refs};
pub use mutate::SccMerge;
pub use order::PostOrderIter;
pub use update::EdgeUpdate;

use crate::graph::{CompIdx, Csr, SccGraph, Tarjan};
use crate::idx::IndexVec;
use pool::ListPool;

crate::define_idx!(
    /// A call-graph node: node `n` is function `n` of the module (module order).
    NodeIdx,
    "node"
);

crate::define_idx!(
    /// An SCC of call edges. Dead SCCs keep their slot with an empty node list, so side
    /// tables keyed by SCC survive mutations.
    SccIdx,
    "scc"
);

crate::define_idx!(
    /// A RefSCC (SCC of call and ref edges). Dead RefSCCs keep their slot (not in the
    /// post-order any more, no SCCs).
    RefSccIdx,
    "refscc"
);

/// Kind of an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// A direct call.
    Call,
    /// A reference (address taken, implicit library use).
    Ref,
}

/// An outgoing edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    /// Target node.
    pub target: NodeIdx,
    /// Call or ref.
    pub kind: EdgeKind,
}

impl Edge {
    /// True for a call edge.
    pub fn is_call(self) -> bool {
        self.kind == EdgeKind::Call
    }
}

/// An edge as the graph stores it: the target in the low 31 bits, bit 31 set for a ref
/// edge. Half the bytes of an [`Edge`], so a walk over the graph reads half the memory
/// (a walk on a large graph is bound by its memory reads: PERF.md, callgraph).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Packed(u32);

impl Packed {
    const REF: u32 = 1 << 31;

    #[inline]
    fn new(e: Edge) -> Packed {
        debug_assert!(
            e.target.0 < Packed::REF,
            "node index {} too large",
            e.target.0
        );
        Packed(e.target.0 | if e.is_call() { 0 } else { Packed::REF })
    }
    #[inline]
    fn target(self) -> NodeIdx {
        NodeIdx(self.0 & !Packed::REF)
    }
    #[inline]
    fn is_call(self) -> bool {
        self.0 & Packed::REF == 0
    }
    #[inline]
    fn kind(self) -> EdgeKind {
        if self.is_call() {
            EdgeKind::Call
        } else {
            EdgeKind::Ref
        }
    }
    #[inline]
    fn edge(self) -> Edge {
        Edge {
            target: self.target(),
            kind: self.kind(),
        }
    }
}

/// A node's edges in LLVM order ([`LazyCallGraph::cached_edges`]), by value.
#[derive(Clone, Debug)]
pub struct Edges<'a>(std::slice::Iter<'a, Packed>);

impl Iterator for Edges<'_> {
    type Item = Edge;
    #[inline]
    fn next(&mut self) -> Option<Edge> {
        self.0.next().map(|p| p.edge())
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Edges<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Edge> {
        self.0.next_back().map(|p| p.edge())
    }
}

impl ExactSizeIterator for Edges<'_> {}

/// Computes a node's outgoing edges on first visit (LLVM's `Node::populate`).
pub trait EdgeSource {
    /// Appends the edges of `node`, in LLVM order (call edges first), without duplicates.
    fn populate(&self, node: NodeIdx, out: &mut Vec<Edge>);
}

/// An [`EdgeSource`] over explicit per-node edge lists (`lists[n]` are node `n`'s
/// edges), for hosts that want LLVM's lazy population over lists they already have.
#[derive(Clone, Debug, Default)]
pub struct EdgeLists(pub Vec<Vec<Edge>>);

impl EdgeSource for EdgeLists {
    fn populate(&self, node: NodeIdx, out: &mut Vec<Edge>) {
        if let Some(e) = self.0.get(node.idx()) {
            out.extend_from_slice(e);
        }
    }
}

/// The source of a graph whose edges were all given up front.
struct NoEdges;

impl EdgeSource for NoEdges {
    fn populate(&self, _: NodeIdx, _: &mut Vec<Edge>) {}
}

/// One problem found by [`LazyCallGraph::verify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError(pub String);

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The lazy call graph. Cloning copies every table and shares the edge source.
#[derive(Clone)]
pub struct LazyCallGraph {
    /// Function name per node (no `@`, no quotes).
    names: IndexVec<NodeIdx, String>,
    /// Has a body.
    defined: IndexVec<NodeIdx, bool>,
    /// Edge list computed.
    populated: IndexVec<NodeIdx, bool>,
    /// Removed as dead.
    removed: IndexVec<NodeIdx, bool>,
    /// How many nodes are removed (populating filters edges to them when non-zero).
    num_removed: usize,
    /// First node with each name.
    name_index: crate::hash::FixedMap<String, NodeIdx>,
    /// Outgoing edges per node, in LLVM order (pooled: populated lists are appended in
    /// the order the build's walk reaches them, which is the order it reads them).
    edges: ListPool<NodeIdx, Packed>,
    /// Scratch for [`EdgeSource::populate`] (which speaks [`Edge`]).
    scratch: Scratch,
    /// SCC per node (`NONE`: not reached from a root / not built yet).
    scc_of: IndexVec<NodeIdx, SccIdx>,
    /// The Tarjan state: after a build every reached node is finished (out of scope), so
    /// a split opens just the nodes it re-walks (LLVM's `DFSNumber == -1`).
    tarjan: Tarjan<NodeIdx>,
    /// Nodes per SCC, in LLVM order.
    scc_nodes: ListPool<SccIdx, NodeIdx>,
    /// RefSCC per SCC (`NONE` once dead).
    scc_rc: IndexVec<SccIdx, RefSccIdx>,
    /// Position of the SCC in its RefSCC's list (`u32::MAX` once dead).
    scc_pos: IndexVec<SccIdx, u32>,
    /// SCCs per RefSCC, post-order.
    rc_sccs: ListPool<RefSccIdx, SccIdx>,
    /// Live RefSCCs in post-order, with order keys.
    order: order::PostOrder,
    /// Entry edges (roots) in LLVM order, removed functions' included (LLVM's entry
    /// edge sequence keeps a null in their place): `in_entry` tells the live ones.
    entry: Vec<NodeIdx>,
    /// Per node (of those at construction): it is a live entry.
    in_entry: IndexVec<NodeIdx, bool>,
    /// The live entries in order, made when asked for after a removal.
    entry_live: std::sync::OnceLock<Vec<NodeIdx>>,
    /// Defined library functions (implicit ref targets of every node), module order.
    libs: Vec<NodeIdx>,
    /// Populates nodes (shared by clones).
    source: std::sync::Arc<dyn EdgeSource + Send + Sync>,
    /// RefSCCs have been built.
    built: bool,
    /// Module identifier for printers.
    module_id: String,
}

impl std::fmt::Debug for LazyCallGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyCallGraph")
            .field("nodes", &self.names.len())
            .field("refsccs", &self.order.len())
            .finish()
    }
}

/// "No position" in `scc_pos`.
const NO_POS: u32 = u32::MAX;

/// LLVM's `Node::populate` of `n`, on the tables it touches (so a walk can call it while
/// other tables are borrowed).
///
/// The source's contract (targets are nodes, each once) is not trusted: an edge to a
/// target out of range is dropped, and so is a repeated target (the first edge to it
/// stays), so a wrong [`EdgeSource`] cannot break the graph's invariants.
fn populate_into(
    edges: &mut ListPool<NodeIdx, Packed>,
    populated: &mut IndexVec<NodeIdx, bool>,
    scratch: &mut Scratch,
    source: &(dyn EdgeSource + Send + Sync),
    n: NodeIdx,
) {
    if populated[n] {
        return;
    }
    populated[n] = true;
    scratch.edges.clear();
    source.populate(n, &mut scratch.edges);
    scratch.keep_first_valid(populated.len());
    edges.refill(n, |out| {
        out.extend(scratch.edges.iter().map(|&e| Packed::new(e)))
    });
}

/// Scratch of [`populate_into`]: the edge list a source fills, and one stamp per node
/// to drop repeated targets in one pass (no hashing).
#[derive(Clone, Default)]
struct Scratch {
    edges: Vec<Edge>,
    stamp_of: Vec<u32>,
    stamp: u32,
}

impl Scratch {
    /// Drops the edges whose target is `>= num_nodes` or repeats an earlier target.
    fn keep_first_valid(&mut self, num_nodes: usize) {
        if self.edges.len() <= 1 {
            self.edges.retain(|e| e.target.idx() < num_nodes);
            return;
        }
        if self.stamp_of.len() < num_nodes {
            self.stamp_of.resize(num_nodes, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamp_of.fill(0);
            self.stamp = 1;
        }
        let (stamp_of, stamp) = (&mut self.stamp_of, self.stamp);
        self.edges.retain(|e| {
            let t = e.target.idx();
            t < num_nodes && std::mem::replace(&mut stamp_of[t], stamp) != stamp
        });
    }
}

/// The RefSCC walk of a build: every edge, nodes populated as the walk reaches them.
struct Populating<'a> {
    edges: &'a mut ListPool<NodeIdx, Packed>,
    populated: &'a mut IndexVec<NodeIdx, bool>,
    scratch: &'a mut Scratch,
    source: &'a (dyn EdgeSource + Send + Sync),
    /// Every node is populated already (a graph of given edge lists): `enter` has
    /// nothing to look up.
    all_populated: bool,
}

impl SccGraph for Populating<'_> {
    type Node = NodeIdx;
    type Edge = Packed;
    #[inline]
    fn enter(&mut self, n: NodeIdx) {
        if !self.all_populated && !self.populated[n] {
            populate_into(self.edges, self.populated, self.scratch, self.source, n);
        }
    }
    #[inline]
    fn edges(&self, n: NodeIdx) -> &[Packed] {
        &self.edges[n]
    }
    #[inline]
    fn target(&self, e: Packed) -> Option<NodeIdx> {
        Some(e.target())
    }
    #[inline]
    fn prefetch(&self, n: NodeIdx) {
        self.edges.prefetch(n);
    }
}

/// Every edge of (populated) nodes: RefSCC splits.
struct AllEdges<'a>(&'a ListPool<NodeIdx, Packed>);

impl SccGraph for AllEdges<'_> {
    type Node = NodeIdx;
    type Edge = Packed;
    #[inline]
    fn edges(&self, n: NodeIdx) -> &[Packed] {
        &self.0[n]
    }
    #[inline]
    fn target(&self, e: Packed) -> Option<NodeIdx> {
        Some(e.target())
    }
}

/// Call edges only: call SCCs and their splits.
struct CallEdges<'a>(&'a ListPool<NodeIdx, Packed>);

impl SccGraph for CallEdges<'_> {
    type Node = NodeIdx;
    type Edge = Packed;
    #[inline]
    fn edges(&self, n: NodeIdx) -> &[Packed] {
        &self.0[n]
    }
    #[inline]
    fn target(&self, e: Packed) -> Option<NodeIdx> {
        e.is_call().then_some(e.target())
    }
}

impl LazyCallGraph {
    /// A graph over `names.len()` nodes. `defined[n]` says whether node `n` has a body;
    /// `entry` are the roots in order; `libs` the defined library functions; edges
    /// come from `source` on first visit (an edge the source gives to a target out of
    /// range, or to a target it already gave, is dropped).
    ///
    /// # Errors
    /// `ColumnLength` (`defined` is not one flag per name), `UnknownNode` (an entry or
    /// library node out of range), `TooManyNodes` (2^31 nodes or more).
    pub fn new(
        module_id: impl Into<String>,
        names: Vec<String>,
        defined: Vec<bool>,
        entry: Vec<NodeIdx>,
        libs: Vec<NodeIdx>,
        source: Box<dyn EdgeSource + Send + Sync>,
    ) -> Result<Self, LcgError> {
        let n = names.len();
        if defined.len() != n {
            return Err(LcgError::ColumnLength {
                column: "defined",
                len: defined.len(),
                num_nodes: n,
            });
        }
        if n >= Packed::REF as usize {
            return Err(LcgError::TooManyNodes(n));
        }
        if let Some(&x) = entry.iter().chain(&libs).find(|x| x.idx() >= n) {
            return Err(LcgError::UnknownNode(x));
        }
        let mut name_index = crate::hash::FixedMap::with_capacity_and_hasher(n, Default::default());
        for (i, s) in names.iter().enumerate() {
            name_index.entry(s.clone()).or_insert(NodeIdx::new(i));
        }
        Ok(LazyCallGraph {
            name_index,
            names: IndexVec::from_raw(names),
            defined: IndexVec::from_raw(defined),
            populated: IndexVec::from_elem_n(false, n),
            removed: IndexVec::from_elem_n(false, n),
            num_removed: 0,
            edges: ListPool::with_empty_lists(n),
            scratch: Scratch::default(),
            scc_of: IndexVec::from_elem_n(SccIdx::NONE, n),
            tarjan: Tarjan::new(),
            scc_nodes: ListPool::default(),
            scc_rc: IndexVec::new(),
            scc_pos: IndexVec::new(),
            rc_sccs: ListPool::default(),
            order: order::PostOrder::default(),
            in_entry: {
                let mut v = IndexVec::from_elem_n(false, n);
                for &x in &entry {
                    v[x] = true;
                }
                v
            },
            entry,
            entry_live: std::sync::OnceLock::new(),
            libs,
            source: std::sync::Arc::from(source),
            built: false,
            module_id: module_id.into(),
        })
    }

    /// A graph from explicit edge lists (`lists[n]` are node `n`'s edges) where every
    /// node is defined and is a root (in index order). The edges are given, so every
    /// node starts populated (nothing is left to compute lazily). For tests, benches and
    /// synthetic graphs.
    ///
    /// # Errors
    /// `UnknownNode` (an edge target out of range), `RepeatedEdge` (two edges of one
    /// node to the same target), `TooManyNodes`.
    pub fn from_edge_lists(lists: Vec<Vec<Edge>>) -> Result<Self, LcgError> {
        let n = lists.len();
        if n >= Packed::REF as usize {
            return Err(LcgError::TooManyNodes(n));
        }
        // the last source that listed each target
        let mut listed_by = vec![usize::MAX; n];
        for (i, list) in lists.iter().enumerate() {
            for e in list {
                let Some(by) = listed_by.get_mut(e.target.idx()) else {
                    return Err(LcgError::UnknownNode(e.target));
                };
                if std::mem::replace(by, i) == i {
                    let src = NodeIdx::new(i);
                    return Err(LcgError::RepeatedEdge { src, tgt: e.target });
                }
            }
        }
        let names = (0..n).map(|i| format!("f{i}")).collect();
        Self::with_lists(
            "edges",
            names,
            vec![true; n],
            (0..n).map(NodeIdx::new).collect(),
            Vec::new(),
            lists,
        )
    }

    /// A graph whose nodes are all populated with `lists` (not built); the lists are
    /// checked already (targets in range, each once per list).
    pub(crate) fn with_lists(
        module_id: &str,
        names: Vec<String>,
        defined: Vec<bool>,
        entry: Vec<NodeIdx>,
        libs: Vec<NodeIdx>,
        lists: Vec<Vec<Edge>>,
    ) -> Result<Self, LcgError> {
        let n = lists.len();
        let mut g = Self::new(module_id, names, defined, entry, libs, Box::new(NoEdges))?;
        g.edges = ListPool::from_lists(lists.into_iter().map(|l| l.into_iter().map(Packed::new)));
        g.populated = IndexVec::from_elem_n(true, n);
        Ok(g)
    }

    /// A [`CallGraphBuilder`]: functions by name with their calls and refs, then
    /// [`build`](CallGraphBuilder::build) (checked, SCCs built).
    ///
    /// ```
    /// use ilkit::callgraph::LazyCallGraph;
    /// let mut g = LazyCallGraph::builder()
    ///     .function("main").calls(["parse", "eval"])
    ///     .function("parse").calls(["lex"]).refs(["eval"])
    ///     .function("eval").calls(["eval", "print"])
    ///     .function("lex").function("print")
    ///     .build().unwrap();
    /// let (main, eval) = (g.node_by_name("main").unwrap(), g.node_by_name("eval").unwrap());
    /// assert!(g.edge(main, eval).unwrap().is_call());
    /// assert_eq!(g.postorder_names().len(), 5); // five RefSCCs, callees first
    /// assert!(g.scc_is_ancestor_of(g.scc_of(main).unwrap(), g.scc_of(eval).unwrap()));
    /// ```
    pub fn builder() -> CallGraphBuilder {
        CallGraphBuilder::new()
    }

    /// Module identifier used by the printers.
    pub fn module_id(&self) -> &str {
        &self.module_id
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.names.len()
    }

    /// Every node, in index order.
    pub fn nodes(&self) -> impl DoubleEndedIterator<Item = NodeIdx> + ExactSizeIterator {
        self.names.indices()
    }

    /// Name of node `n` (`None` for an out-of-range `n`). A removed node keeps its
    /// name here, though [`node_by_name`](Self::node_by_name) no longer finds it.
    pub fn name(&self, n: NodeIdx) -> Option<&str> {
        self.names.get(n).map(String::as_str)
    }

    /// Name of node `n`, which the caller knows is in range (printers, the pass
    /// manager).
    pub(crate) fn name_in_range(&self, n: NodeIdx) -> &str {
        &self.names[n]
    }

    /// Whether node `n` has a body (false for an out-of-range `n`).
    pub fn is_defined(&self, n: NodeIdx) -> bool {
        self.defined.get(n).copied().unwrap_or(false)
    }

    /// The node named `name` (the first one, if a name repeats): O(1), through a hash
    /// index built with the graph and kept in sync by `add_function`,
    /// `replace_node_function` and the dead-function removals (a removed function has
    /// no name any more, as in LLVM's node map).
    pub fn node_by_name(&self, name: &str) -> Option<NodeIdx> {
        self.name_index.get(name).copied()
    }

    /// Entry edges (roots) in order.
    pub fn entry_nodes(&self) -> &[NodeIdx] {
        self.entry_live.get_or_init(|| {
            let live = |x: &&NodeIdx| self.in_entry.get(**x) == Some(&true);
            self.entry.iter().filter(live).copied().collect()
        })
    }

    /// Defined library functions.
    pub fn lib_functions(&self) -> &[NodeIdx] {
        &self.libs
    }

    /// Computes node `n`'s edges if not done yet (LLVM's `Node::populate`). Edges to
    /// removed functions are dropped. Does nothing for an out-of-range `n`.
    pub fn populate(&mut self, n: NodeIdx) {
        if n.idx() >= self.num_nodes() || self.populated[n] {
            return;
        }
        populate_into(
            &mut self.edges,
            &mut self.populated,
            &mut self.scratch,
            &*self.source,
            n,
        );
        if self.num_removed > 0 {
            let removed = &self.removed;
            self.edges.edit(n, |l| l.retain(|e| !removed[e.target()]));
        }
    }

    /// Whether node `n`'s edges are computed (LLVM's `Node::isPopulated`); false for
    /// an out-of-range `n`.
    pub fn is_populated(&self, n: NodeIdx) -> bool {
        self.populated.get(n).copied().unwrap_or(false)
    }

    /// Populates every node.
    pub fn populate_all(&mut self) {
        for n in self.nodes() {
            self.populate(n);
        }
    }

    /// Node `n`'s edges (populating it first). The one edge query that needs
    /// `&mut self`; see [`populated_edges`](Self::populated_edges) for `&self`.
    pub fn edges(&mut self, n: NodeIdx) -> Edges<'_> {
        self.populate(n);
        self.cached_edges(n)
    }

    /// Node `n`'s edges if already populated (empty otherwise, and for an out-of-range
    /// `n`).
    ///
    /// # Which edge queries need `&mut`
    /// Only the lazy ones: [`edges`](Self::edges), [`populate`](Self::populate) and
    /// [`populate_all`](Self::populate_all). Every other query (`cached_edges`,
    /// [`populated_edges`](Self::populated_edges), [`edge`](Self::edge), the SCC and
    /// relation queries) takes `&self`. A graph made by [`from_edge_lists`] or the
    /// [`builder`](Self::builder) starts fully populated; `build_ref_sccs` populates
    /// every node reached from a root; `populate_all` populates the rest. After
    /// that, `&self` sees every edge.
    ///
    /// [`from_edge_lists`]: Self::from_edge_lists
    pub fn cached_edges(&self, n: NodeIdx) -> Edges<'_> {
        if n.idx() >= self.num_nodes() {
            return Edges([].iter());
        }
        Edges(self.edges[n].iter())
    }

    /// Node `n`'s edges through `&self`: `None` if `n` is out of range or not populated
    /// yet (call [`populate_all`](Self::populate_all) once, then query freely).
    pub fn populated_edges(&self, n: NodeIdx) -> Option<Edges<'_>> {
        self.is_populated(n).then(|| Edges(self.edges[n].iter()))
    }

    /// The edge `a -> b`, if any (`None` for out-of-range nodes).
    pub fn edge(&self, a: NodeIdx, b: NodeIdx) -> Option<Edge> {
        if a.idx() >= self.num_nodes() {
            return None;
        }
        self.edges[a]
            .iter()
            .find(|e| e.target() == b)
            .map(|e| e.edge())
    }

    /// Appends the edge `e` to `a`'s list.
    fn push_edge(&mut self, a: NodeIdx, e: Edge) {
        self.edges.push(a, Packed::new(e));
    }

    /// Whether node `n` was removed by [`remove_dead_function`](Self::remove_dead_function)
    /// or [`remove_dead_functions`](Self::remove_dead_functions) (LLVM's `isDead`). A
    /// removed node keeps its index (side tables stay valid) but has no edges, no SCC,
    /// no name-index entry, and no edge targets it. False for an out-of-range `n`.
    pub fn is_removed(&self, n: NodeIdx) -> bool {
        self.removed.get(n).copied().unwrap_or(false)
    }

    /// Whether [`build_ref_sccs`](Self::build_ref_sccs) has run.
    pub fn is_built(&self) -> bool {
        self.built
    }

    // ---------------------------------------------------------------- SCC queries

    /// SCC of node `n` (`None` if the node is in no SCC or out of range).
    pub fn scc_of(&self, n: NodeIdx) -> Option<SccIdx> {
        self.scc_of.get(n).and_then(|s| s.some())
    }

    /// RefSCC of node `n`.
    pub fn refscc_of(&self, n: NodeIdx) -> Option<RefSccIdx> {
        self.scc_of(n).and_then(|s| self.scc_rc[s].some())
    }

    /// Nodes of SCC `s`, in LLVM order.
    pub fn scc_nodes(&self, s: SccIdx) -> &[NodeIdx] {
        if s.idx() >= self.scc_nodes.num_lists() {
            return &[];
        }
        self.scc_nodes.get(s)
    }

    /// RefSCC containing SCC `s` (`None` once `s` is dead).
    pub fn scc_refscc(&self, s: SccIdx) -> Option<RefSccIdx> {
        self.scc_rc.get(s).and_then(|r| r.some())
    }

    /// Position of SCC `s` in its RefSCC's post-order list (`None` once `s` is dead).
    pub fn scc_position(&self, s: SccIdx) -> Option<u32> {
        let p = self.scc_pos.get(s).copied().unwrap_or(NO_POS);
        (p != NO_POS).then_some(p)
    }

    /// SCCs of RefSCC `r`, in post-order.
    pub fn refscc_sccs(&self, r: RefSccIdx) -> &[SccIdx] {
        if r.idx() >= self.rc_sccs.num_lists() {
            return &[];
        }
        self.rc_sccs.get(r)
    }

    /// Post-order key of RefSCC `r` (`None` if dead): keys increase along the
    /// post-order but are not dense (compare them, don't index with them).
    pub fn refscc_order(&self, r: RefSccIdx) -> Option<u64> {
        self.order.is_live(r).then(|| self.order.label(r))
    }

    /// Live RefSCCs in post-order (callees first), building them first if they are not
    /// built yet (so a fresh graph never answers with zero RefSCCs). The list is a
    /// snapshot: a mutation may split or merge RefSCCs, as in LLVM's CGSCC walk.
    pub fn postorder_refsccs(&mut self) -> Vec<RefSccIdx> {
        self.build_ref_sccs();
        self.order.iter().collect()
    }

    /// Live RefSCCs in post-order without building them: empty until
    /// [`build_ref_sccs`](Self::build_ref_sccs) (or a method that builds) has run.
    pub fn built_refsccs(&self) -> PostOrderIter<'_> {
        self.order.iter()
    }

    /// Whether the RefSCCs have been built.
    pub fn refsccs_built(&self) -> bool {
        self.built
    }

    /// Number of live RefSCCs (building them first if needed).
    pub fn num_refsccs(&mut self) -> usize {
        self.build_ref_sccs();
        self.order.len()
    }

    /// The RefSCCs as names: RefSCCs in post-order, SCCs in post-order inside, nodes in
    /// LLVM order (building them first if needed).
    pub fn postorder_names(&mut self) -> Vec<Vec<Vec<&str>>> {
        self.build_ref_sccs();
        self.order
            .iter()
            .map(|r| {
                self.refscc_sccs(r)
                    .iter()
                    .map(|&s| {
                        self.scc_nodes(s)
                            .iter()
                            .map(|&n| self.name_in_range(n))
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    /// Nodes of RefSCC `r` (SCC order, then node order).
    pub fn refscc_nodes(&self, r: RefSccIdx) -> impl Iterator<Item = NodeIdx> + '_ {
        self.refscc_sccs(r)
            .iter()
            .flat_map(move |&s| self.scc_nodes(s).iter().copied())
    }

    // ---------------------------------------------------------------- building

    /// Builds the RefSCCs and their SCCs (LLVM's `buildRefSCCs`); idempotent.
    ///
    /// One Tarjan run over every edge from the entry roots, populating nodes as it
    /// reaches them, gives the RefSCCs; a RefSCC with a ref edge between two of its
    /// nodes gets a second, scoped run over its call edges (from its nodes in order)
    /// for its call SCCs. The runs' node lists become the SCC lists in place.
    pub fn build_ref_sccs(&mut self) {
        if self.built {
            return;
        }
        self.built = true;
        let n = self.num_nodes();
        self.tarjan.reset(n);
        let all_populated = self.populated.iter().all(|&p| p);
        let mut walk = Populating {
            edges: &mut self.edges,
            populated: &mut self.populated,
            scratch: &mut self.scratch,
            source: &*self.source,
            all_populated,
        };
        let in_entry = &self.in_entry;
        let live = self.entry.iter().copied().filter(|&x| in_entry[x]);
        self.tarjan.run(&mut walk, live);
        let Some(split) = self.refsccs_to_split() else {
            // The common case (every RefSCC is one call SCC): the first run's output
            // becomes every table at once, SCC k = RefSCC k = component k. The run's
            // per-node table holds exactly that (component k, or `NONE` where the walk
            // did not reach), so it becomes `scc_of` as it is; the Tarjan state is left
            // without a table, every node out of scope, until a split grows it back.
            self.scc_of = self.tarjan.take_table().into_iter().map(SccIdx).collect();
            let comps = self.tarjan.take_components();
            let num = comps.num_rows();
            self.scc_nodes = ListPool::from_regions(comps.targets, comps.starts);
            self.scc_rc = (0..num).map(RefSccIdx::new).collect();
            self.scc_pos = IndexVec::from_elem_n(0, num);
            self.rc_sccs = ListPool::singletons(num, |r: RefSccIdx| SccIdx(r.0));
            self.order.push_back_all(num);
            return;
        };
        let Csr {
            starts,
            targets: pool,
            ..
        } = self.tarjan.take_components();
        let num = split.len();
        self.scc_nodes = ListPool::with_data(pool);
        self.scc_nodes.reserve_lists(num);
        self.scc_rc.reserve(num);
        self.scc_pos.reserve(num);
        self.rc_sccs = ListPool::default();
        self.rc_sccs.reserve_lists(num);
        self.rc_sccs.reserve_data(num);
        self.order.reserve(num);
        let mut sccs: Vec<SccIdx> = Vec::new();
        for (c, &split) in split.iter().enumerate() {
            let (lo, hi) = (starts[c] as usize, starts[c + 1] as usize);
            let r = RefSccIdx::new(self.rc_sccs.num_lists());
            sccs.clear();
            if !split {
                sccs.push(self.region_scc(r, lo, hi - lo, 0));
            } else {
                // A run scoped to this RefSCC over its call edges, from its nodes in
                // order; its SCCs are a permutation of the RefSCC's pool region.
                let group: Vec<NodeIdx> = self.scc_nodes.region(lo, hi).to_vec();
                self.tarjan.open(group.iter().copied());
                self.tarjan
                    .run(&mut CallEdges(&self.edges), group.iter().copied());
                let mut at = lo;
                for k in 0..self.tarjan.num_sccs() {
                    let list = self.tarjan.scc(CompIdx::new(k));
                    let len = list.len();
                    self.scc_nodes
                        .region_mut(at, at + len)
                        .copy_from_slice(list);
                    sccs.push(self.region_scc(r, at, len, k as u32));
                    at += len;
                }
            }
            let r2 = self.rc_sccs.push_list(&sccs);
            debug_assert_eq!(r, r2);
            self.order.push_back(r);
        }
    }

    /// After a build's first run: which of its components (RefSCCs) need a call-edge
    /// run, those with a ref edge between two of their nodes; `None` when none does.
    /// No ref edge anywhere in the pool (its dead slots included) is the common case,
    /// decided by one scan instead of a test per edge during the walk. The Tarjan
    /// table holds every reached node's component until a scoped run changes it.
    fn refsccs_to_split(&self) -> Option<Vec<bool>> {
        if self.edges.raw_elements().iter().all(|e| e.is_call()) {
            return None;
        }
        let t = &self.tarjan;
        let mut split = vec![false; t.num_sccs()];
        let mut any = false;
        for (x, list) in self.edges.iter_enumerated() {
            if list.iter().all(|e| e.is_call()) {
                continue;
            }
            let Some(c) = t.comp_of(x) else {
                continue;
            };
            if !split[c.idx()]
                && t.scc(c).len() > 1
                && list
                    .iter()
                    .any(|e| !e.is_call() && t.comp_of(e.target()) == Some(c))
            {
                split[c.idx()] = true;
                any = true;
            }
        }
        any.then_some(split)
    }

    /// A new, empty, unlinked RefSCC.
    fn new_refscc(&mut self) -> RefSccIdx {
        let r = self.rc_sccs.push_list(&[]);
        self.order.grow(r.idx() + 1);
        r
    }

    /// A new SCC of RefSCC `rc` over `nodes` (position unset).
    fn new_scc(&mut self, rc: RefSccIdx, nodes: &[NodeIdx]) -> SccIdx {
        let s = self.scc_nodes.push_list(nodes);
        for &n in nodes {
            self.scc_of[n] = s;
        }
        self.scc_rc.push(rc);
        self.scc_pos.push(NO_POS);
        s
    }

    /// A new SCC of RefSCC `rc` at position `pos` owning pool region `[at, at + len)`.
    fn region_scc(&mut self, rc: RefSccIdx, at: usize, len: usize, pos: u32) -> SccIdx {
        let s = self.scc_nodes.push_region(at, len);
        for &n in self.scc_nodes.get(s) {
            self.scc_of[n] = s;
        }
        self.scc_rc.push(rc);
        self.scc_pos.push(pos);
        s
    }
}

#[cfg(test)]
mod tests;
