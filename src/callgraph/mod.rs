//! LLVM's lazy call graph: nodes, call/ref edges, SCCs and RefSCCs in post-order, and
//! the incremental mutations a CGSCC pass manager needs.
//!
//! One node per function (dense [`NodeIdx`], module order; declarations get a node so
//! they can be printed, but no edge ever targets them). Edges are built lazily: a node's
//! edge list is computed from its [`EdgeSource`] the first time a walk visits it, then
//! cached. [`LazyCallGraph::build_ref_sccs`] runs LLVM's `buildRefSCCs`: an iterative
//! Tarjan over call+ref edges from the entry roots in order gives the RefSCCs in
//! post-order; inside each RefSCC a Tarjan over call edges, from its nodes in order,
//! gives its call SCCs in post-order. SCCs and RefSCCs are callee-first: every SCC comes
//! after the SCCs it calls, every RefSCC after the RefSCCs it references.
//!
//! # Tables (all dense `Vec`s)
//! - per node: name, defined flag, populated flag, edge list, SCC index, Tarjan scratch.
//! - per SCC ([`SccIdx`]): its nodes, its RefSCC, its position in that RefSCC's list.
//! - per RefSCC ([`RefSccIdx`]): its SCCs in post-order, its post-order position.
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
//! g.build_ref_sccs();
//! let order: Vec<_> = g.postorder_refsccs().collect();          // callees first
//! for rc in order {
//!     for &scc in g.refscc_sccs(rc) {
//!         for &n in g.scc_nodes(scc) {
//!             let _calls = g.cached_edges(n).iter().filter(|e| e.kind == EdgeKind::Call).count();
//!         }
//!     }
//! }
//! // after transforming a function, hand its new edges to the graph:
//! let f = g.node_by_name("f").unwrap();
//! let up = g.update_node_edges(f, &[]);        // e.g. the call to g was inlined away
//! assert!(up.new_refsccs.is_empty() && g.verify().is_empty());
//! ```
//! The mutation primitives (`switch_internal_edge_to_call`, `switch_internal_edge_to_ref`,
//! `insert_incoming_ref_edge`, `remove_internal_ref_edges`, ...) are LLVM's, with the same
//! results; SCC and RefSCC indices stay valid (dead ones become empty) so side tables
//! keyed by them survive mutations.

mod module;
mod mutate;
mod order;
pub mod print;
mod update;

pub use module::from_module;
pub use order::PostOrderIter;
pub use update::EdgeUpdate;

use crate::graph::NONE;

/// Dense node index (a function).
pub type NodeIdx = u32;
/// Dense SCC index. Dead SCCs keep their slot with an empty node list.
pub type SccIdx = u32;
/// Dense RefSCC index. Dead RefSCCs keep their slot with `NONE` as position.
pub type RefSccIdx = u32;

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

/// Computes a node's outgoing edges on first visit (LLVM's `Node::populate`).
pub trait EdgeSource {
    /// Appends the edges of `node`, in LLVM order (call edges first), without duplicates.
    fn populate(&self, node: NodeIdx, out: &mut Vec<Edge>);
}

/// An [`EdgeSource`] over explicit per-node edge lists (tests, benches, synthetic graphs).
#[derive(Clone, Debug, Default)]
pub struct EdgeLists(pub Vec<Vec<Edge>>);

impl EdgeSource for EdgeLists {
    fn populate(&self, node: NodeIdx, out: &mut Vec<Edge>) {
        if let Some(e) = self.0.get(node as usize) {
            out.extend_from_slice(e);
        }
    }
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
    names: Vec<String>,
    /// Has a body.
    defined: Vec<bool>,
    /// Edge list computed.
    populated: Vec<bool>,
    /// Removed as dead.
    removed: Vec<bool>,
    /// First node with each name.
    name_index: ahash::AHashMap<String, NodeIdx>,
    /// Outgoing edges per node, in LLVM order.
    edges: Vec<Vec<Edge>>,
    /// SCC per node (`NONE`: not reached from a root / not built yet).
    scc_of: Vec<SccIdx>,
    /// Tarjan scratch, LLVM's encoding: 0 unvisited, -1 done, > 0 on stack.
    dfs: Vec<i32>,
    low: Vec<i32>,
    /// Nodes per SCC.
    scc_nodes: Vec<Vec<NodeIdx>>,
    /// RefSCC per SCC.
    scc_rc: Vec<RefSccIdx>,
    /// Position of the SCC in its RefSCC's list.
    scc_pos: Vec<u32>,
    /// SCCs per RefSCC, post-order.
    rc_sccs: Vec<Vec<SccIdx>>,
    /// Live RefSCCs in post-order, with order keys.
    order: order::PostOrder,
    /// Entry edges (roots) in LLVM order.
    entry: Vec<NodeIdx>,
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

impl LazyCallGraph {
    /// A graph over `names.len()` nodes. `defined[n]` says whether node `n` has a body;
    /// `entry` are the roots in order; `libs` the defined library functions; edges
    /// come from `source` on first visit.
    pub fn new(
        module_id: impl Into<String>,
        names: Vec<String>,
        defined: Vec<bool>,
        entry: Vec<NodeIdx>,
        libs: Vec<NodeIdx>,
        source: Box<dyn EdgeSource + Send + Sync>,
    ) -> Self {
        let n = names.len();
        assert_eq!(defined.len(), n, "defined flags must match names");
        let mut name_index = ahash::AHashMap::with_capacity(n);
        for (i, s) in names.iter().enumerate() {
            name_index.entry(s.clone()).or_insert(i as NodeIdx);
        }
        LazyCallGraph {
            name_index,
            names,
            defined,
            populated: vec![false; n],
            removed: vec![false; n],
            edges: vec![Vec::new(); n],
            scc_of: vec![NONE; n],
            dfs: vec![0; n],
            low: vec![0; n],
            scc_nodes: Vec::new(),
            scc_rc: Vec::new(),
            scc_pos: Vec::new(),
            rc_sccs: Vec::new(),
            order: order::PostOrder::default(),
            entry,
            libs,
            source: std::sync::Arc::from(source),
            built: false,
            module_id: module_id.into(),
        }
    }

    /// A graph from explicit edge lists where every node is defined and is a root
    /// (in index order). Handy for tests and benches.
    pub fn from_edge_lists(edges: Vec<Vec<Edge>>) -> Self {
        let n = edges.len();
        let names = (0..n).map(|i| format!("f{i}")).collect();
        Self::new(
            "edges",
            names,
            vec![true; n],
            (0..n as u32).collect(),
            Vec::new(),
            Box::new(EdgeLists(edges)),
        )
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
        0..self.names.len() as NodeIdx
    }

    /// Name of node `n`.
    pub fn name(&self, n: NodeIdx) -> &str {
        &self.names[n as usize]
    }

    /// Whether node `n` has a body.
    pub fn is_defined(&self, n: NodeIdx) -> bool {
        self.defined[n as usize]
    }

    /// The node named `name` (linear scan).
    pub fn node_by_name(&self, name: &str) -> Option<NodeIdx> {
        self.names
            .iter()
            .position(|x| x == name)
            .map(|i| i as NodeIdx)
    }

    /// Entry edges (roots) in order.
    pub fn entry_nodes(&self) -> &[NodeIdx] {
        &self.entry
    }

    /// Defined library functions.
    pub fn lib_functions(&self) -> &[NodeIdx] {
        &self.libs
    }

    /// Computes node `n`'s edges if not done yet (LLVM's `Node::populate`).
    pub fn populate(&mut self, n: NodeIdx) {
        if self.populated[n as usize] {
            return;
        }
        self.populated[n as usize] = true;
        let mut out = std::mem::take(&mut self.edges[n as usize]);
        out.clear();
        self.source.populate(n, &mut out);
        self.edges[n as usize] = out;
    }

    /// Populates every node.
    pub fn populate_all(&mut self) {
        for n in 0..self.num_nodes() as u32 {
            self.populate(n);
        }
    }

    /// Node `n`'s edges (populating it first).
    pub fn edges(&mut self, n: NodeIdx) -> &[Edge] {
        self.populate(n);
        &self.edges[n as usize]
    }

    /// Node `n`'s edges if already populated (empty otherwise).
    pub fn cached_edges(&self, n: NodeIdx) -> &[Edge] {
        &self.edges[n as usize]
    }

    /// The edge `a -> b`, if any.
    pub fn edge(&self, a: NodeIdx, b: NodeIdx) -> Option<Edge> {
        self.edges[a as usize]
            .iter()
            .copied()
            .find(|e| e.target == b)
    }

    /// Whether node `n` was removed by [`remove_dead_function`](Self::remove_dead_function).
    pub fn is_removed(&self, n: NodeIdx) -> bool {
        self.removed[n as usize]
    }

    /// Whether [`build_ref_sccs`](Self::build_ref_sccs) has run.
    pub fn is_built(&self) -> bool {
        self.built
    }

    // ---------------------------------------------------------------- SCC queries

    /// SCC of node `n` (`None` if the node is in no SCC).
    pub fn scc_of(&self, n: NodeIdx) -> Option<SccIdx> {
        let s = self.scc_of[n as usize];
        (s != NONE).then_some(s)
    }

    /// RefSCC of node `n`.
    pub fn refscc_of(&self, n: NodeIdx) -> Option<RefSccIdx> {
        self.scc_of(n).map(|s| self.scc_rc[s as usize])
    }

    /// Nodes of SCC `s`, in LLVM order.
    pub fn scc_nodes(&self, s: SccIdx) -> &[NodeIdx] {
        &self.scc_nodes[s as usize]
    }

    /// RefSCC containing SCC `s`.
    pub fn scc_refscc(&self, s: SccIdx) -> RefSccIdx {
        self.scc_rc[s as usize]
    }

    /// Position of SCC `s` in its RefSCC's post-order list.
    pub fn scc_position(&self, s: SccIdx) -> u32 {
        self.scc_pos[s as usize]
    }

    /// SCCs of RefSCC `r`, in post-order.
    pub fn refscc_sccs(&self, r: RefSccIdx) -> &[SccIdx] {
        &self.rc_sccs[r as usize]
    }

    /// Post-order key of RefSCC `r` (`None` if dead): keys increase along the
    /// post-order but are not dense (compare them, don't index with them).
    pub fn refscc_order(&self, r: RefSccIdx) -> Option<u64> {
        self.order.is_live(r).then(|| self.order.label(r))
    }

    /// Live RefSCCs in post-order (callees first).
    pub fn postorder_refsccs(&self) -> PostOrderIter<'_> {
        self.order.iter()
    }

    /// Number of live RefSCCs.
    pub fn num_refsccs(&self) -> usize {
        self.order.len()
    }

    /// The RefSCCs as names: RefSCCs in post-order, SCCs in post-order inside, nodes in
    /// LLVM order.
    pub fn postorder_names(&self) -> Vec<Vec<Vec<&str>>> {
        self.order
            .iter()
            .map(|r| {
                self.rc_sccs[r as usize]
                    .iter()
                    .map(|&s| {
                        self.scc_nodes[s as usize]
                            .iter()
                            .map(|&n| self.name(n))
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    /// Nodes of RefSCC `r` (SCC order, then node order).
    pub fn refscc_nodes(&self, r: RefSccIdx) -> impl Iterator<Item = NodeIdx> + '_ {
        self.rc_sccs[r as usize]
            .iter()
            .flat_map(move |&s| self.scc_nodes[s as usize].iter().copied())
    }

    // ---------------------------------------------------------------- building

    /// Builds the RefSCCs and their SCCs (LLVM's `buildRefSCCs`); idempotent.
    pub fn build_ref_sccs(&mut self) {
        if self.built {
            return;
        }
        self.built = true;
        let roots = self.entry.clone();
        let (starts, nodes) = self.tarjan(&roots, false, true);
        for g in 0..starts.len() - 1 {
            let group = &nodes[starts[g] as usize..starts[g + 1] as usize];
            let r = self.new_refscc();
            self.order.push_back(r);
            self.build_call_sccs(r, group);
        }
    }

    fn new_refscc(&mut self) -> RefSccIdx {
        let r = self.rc_sccs.len() as RefSccIdx;
        self.rc_sccs.push(Vec::new());
        self.order.grow(r as usize + 1);
        r
    }

    fn new_scc(&mut self, rc: RefSccIdx, nodes: Vec<NodeIdx>) -> SccIdx {
        let s = self.scc_nodes.len() as SccIdx;
        for &n in &nodes {
            self.scc_of[n as usize] = s;
        }
        self.scc_nodes.push(nodes);
        self.scc_rc.push(rc);
        self.scc_pos.push(NONE);
        s
    }

    /// Call SCCs of RefSCC `r` over `group` (its nodes in LLVM order), appended to
    /// `rc_sccs[r]` in post-order.
    fn build_call_sccs(&mut self, r: RefSccIdx, group: &[NodeIdx]) {
        for &n in group {
            self.dfs[n as usize] = 0;
            self.low[n as usize] = 0;
        }
        let (starts, nodes) = self.tarjan(group, true, false);
        for g in 0..starts.len() - 1 {
            let s = self.new_scc(
                r,
                nodes[starts[g] as usize..starts[g + 1] as usize].to_vec(),
            );
            self.scc_pos[s as usize] = self.rc_sccs[r as usize].len() as u32;
            self.rc_sccs[r as usize].push(s);
        }
    }

    /// LLVM's `buildGenericSCCs`: Tarjan from `roots` in order over call edges only or
    /// all edges, with the `dfs`/`low` encoding (0 unvisited, -1 done). Returns the
    /// components in post-order as (starts, nodes); their nodes end with `dfs == -1`.
    fn tarjan(
        &mut self,
        roots: &[NodeIdx],
        calls_only: bool,
        populate: bool,
    ) -> (Vec<u32>, Vec<NodeIdx>) {
        let mut starts = vec![0u32];
        let mut out = Vec::new();
        let mut dfs_stack: Vec<(NodeIdx, u32)> = Vec::new();
        let mut pending: Vec<NodeIdx> = Vec::new();
        for &root in roots {
            if self.dfs[root as usize] != 0 {
                continue;
            }
            if populate {
                self.populate(root);
            }
            self.dfs[root as usize] = 1;
            self.low[root as usize] = 1;
            let mut next = 2i32;
            dfs_stack.push((root, 0));
            while let Some((mut n, mut i)) = dfs_stack.pop() {
                while let Some(&e) = self.edges[n as usize].get(i as usize) {
                    if calls_only && e.kind != EdgeKind::Call {
                        i += 1;
                        continue;
                    }
                    let c = e.target as usize;
                    if self.dfs[c] == 0 {
                        dfs_stack.push((n, i));
                        if populate {
                            self.populate(e.target);
                        }
                        self.dfs[c] = next;
                        self.low[c] = next;
                        next += 1;
                        n = e.target;
                        i = 0;
                        continue;
                    }
                    if self.dfs[c] != -1 && self.low[c] < self.low[n as usize] {
                        self.low[n as usize] = self.low[c];
                    }
                    i += 1;
                }
                pending.push(n);
                let root_dfs = self.dfs[n as usize];
                if self.low[n as usize] != root_dfs {
                    continue;
                }
                while let Some(&top) = pending.last() {
                    if self.dfs[top as usize] < root_dfs {
                        break;
                    }
                    pending.pop();
                    self.dfs[top as usize] = -1;
                    self.low[top as usize] = -1;
                    out.push(top);
                }
                starts.push(out.len() as u32);
            }
        }
        (starts, out)
    }
}

#[cfg(test)]
mod tests;
