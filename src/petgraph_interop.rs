//! petgraph interop (cargo feature `petgraph`, off by default).
//!
//! - [`Cfg`] implements petgraph's visit traits (`GraphBase`, `GraphProp`, `Data`,
//!   `NodeCount`, `NodeIndexable`, `NodeCompactIndexable`, `Visitable`, and for `&Cfg`
//!   `IntoNeighbors`, `IntoNeighborsDirected`, `IntoNodeIdentifiers`), so
//!   `petgraph::algo::tarjan_scc`, `kosaraju_scc`, `dominators::simple_fast`, `Dfs`,
//!   `Bfs`, `DfsPostOrder` and the rest run on a CFG directly. Nodes are
//!   [`BlockIdx`]; edges are `(from, to)` pairs; neighbors come in ilkit's edge order.
//! - [`CallGraphView`] is a populated, read-only view of a [`LazyCallGraph`] (every
//!   edge, or call edges only) with the same traits, over [`NodeIdx`]. Removed
//!   functions stay as isolated nodes, so indices stay dense.
//! - Conversions from petgraph graphs: [`Cfg::from_petgraph`] (and `TryFrom<&Graph>`,
//!   entry block 0), [`LazyCallGraph::from_petgraph`] (and `TryFrom<&Graph<N,
//!   EdgeKind>>` for displayable node weights).
//!
//! Visited sets are [`DenseVisitMap`]s: one flag per node, keyed by the dense index.
//!
//! ```
//! use ilkit::cfg::{BlockIdx as B, Cfg};
//! let cfg = Cfg::from_edges(4, &[(B::new(0), B::new(1)), (B::new(1), B::new(2)), (B::new(2), B::new(1)), (B::new(1), B::new(3))], B::new(0)).unwrap();
//! let doms = petgraph::algo::dominators::simple_fast(&cfg, cfg.entry());
//! assert_eq!(doms.immediate_dominator(B::new(3)), Some(B::new(1)));
//! assert_eq!(petgraph::algo::tarjan_scc(&cfg).len(), 3);
//! ```

use crate::callgraph::{EdgeKind, LazyCallGraph, LcgError, NodeIdx};
use crate::cfg::{BlockIdx, Cfg};
use crate::graph::GraphError;
use crate::graph::{Predecessors, Successors};
use crate::idx::Idx;
use petgraph::graph::{Graph, IndexType, NodeIndex};
use petgraph::visit::{
    Data, GraphBase, GraphProp, IntoNeighbors, IntoNeighborsDirected, IntoNodeIdentifiers,
    NodeCompactIndexable, NodeCount, NodeIndexable, VisitMap, Visitable,
};
use petgraph::{Directed, Direction};

/// A visited set over a dense index type: one flag per node.
#[derive(Clone, Debug, Default)]
pub struct DenseVisitMap(Vec<bool>);

impl DenseVisitMap {
    fn reset(&mut self, n: usize) {
        self.0.clear();
        self.0.resize(n, false);
    }
}

impl<I: Idx> VisitMap<I> for DenseVisitMap {
    fn visit(&mut self, a: I) -> bool {
        let i = a.idx();
        if i >= self.0.len() {
            self.0.resize(i + 1, false);
        }
        !std::mem::replace(&mut self.0[i], true)
    }
    fn is_visited(&self, a: &I) -> bool {
        self.0.get(a.idx()).copied().unwrap_or(false)
    }
}

/// Node identifiers `0..n` of a dense index type.
#[derive(Clone, Debug)]
pub struct DenseNodes<I> {
    range: std::ops::Range<usize>,
    _idx: std::marker::PhantomData<I>,
}

impl<I> DenseNodes<I> {
    fn new(n: usize) -> Self {
        DenseNodes {
            range: 0..n,
            _idx: std::marker::PhantomData,
        }
    }
}

impl<I: Idx> Iterator for DenseNodes<I> {
    type Item = I;
    fn next(&mut self) -> Option<I> {
        self.range.next().map(I::new)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl<I: Idx> ExactSizeIterator for DenseNodes<I> {}

// ---------------------------------------------------------------------------- Cfg

impl GraphBase for Cfg {
    type NodeId = BlockIdx;
    type EdgeId = (BlockIdx, BlockIdx);
}

impl GraphProp for Cfg {
    type EdgeType = Directed;
}

impl Data for Cfg {
    type NodeWeight = ();
    type EdgeWeight = ();
}

impl NodeCount for Cfg {
    fn node_count(&self) -> usize {
        self.num_blocks()
    }
}

impl NodeIndexable for Cfg {
    fn node_bound(&self) -> usize {
        self.num_blocks()
    }
    fn to_index(&self, a: BlockIdx) -> usize {
        a.idx()
    }
    fn from_index(&self, i: usize) -> BlockIdx {
        BlockIdx::new(i)
    }
}

impl NodeCompactIndexable for Cfg {}

impl Visitable for Cfg {
    type Map = DenseVisitMap;
    fn visit_map(&self) -> DenseVisitMap {
        DenseVisitMap(vec![false; self.num_blocks()])
    }
    fn reset_map(&self, map: &mut DenseVisitMap) {
        map.reset(self.num_blocks());
    }
}

impl<'a> IntoNeighbors for &'a Cfg {
    type Neighbors = std::iter::Copied<std::slice::Iter<'a, BlockIdx>>;
    fn neighbors(self, a: BlockIdx) -> Self::Neighbors {
        let s: &'a [BlockIdx] = if a.idx() < self.num_blocks() {
            self.successors(a)
        } else {
            &[]
        };
        s.iter().copied()
    }
}

impl<'a> IntoNeighborsDirected for &'a Cfg {
    type NeighborsDirected = std::iter::Copied<std::slice::Iter<'a, BlockIdx>>;
    fn neighbors_directed(self, a: BlockIdx, d: Direction) -> Self::NeighborsDirected {
        if a.idx() >= self.num_blocks() {
            return [].iter().copied();
        }
        match d {
            Direction::Outgoing => self.successors(a).iter().copied(),
            Direction::Incoming => self.predecessors(a).iter().copied(),
        }
    }
}

impl IntoNodeIdentifiers for &Cfg {
    type NodeIdentifiers = DenseNodes<BlockIdx>;
    fn node_identifiers(self) -> DenseNodes<BlockIdx> {
        DenseNodes::new(self.num_blocks())
    }
}

impl Cfg {
    /// A CFG with one unnamed block per node of `g` (node `i` is block `i`) and its
    /// edges in petgraph's edge order, entered at `entry`.
    ///
    /// # Errors
    /// [`GraphError`] if `entry` is out of range (for a non-empty graph).
    pub fn from_petgraph<N, E, Ix: IndexType>(
        g: &Graph<N, E, Directed, Ix>,
        entry: NodeIndex<Ix>,
    ) -> Result<Cfg, GraphError> {
        let edges: Vec<(BlockIdx, BlockIdx)> = g
            .raw_edges()
            .iter()
            .map(|e| {
                (
                    BlockIdx::new(e.source().index()),
                    BlockIdx::new(e.target().index()),
                )
            })
            .collect();
        Cfg::from_edges(g.node_count(), &edges, BlockIdx::new(entry.index()))
    }
}

impl<N, E, Ix: IndexType> TryFrom<&Graph<N, E, Directed, Ix>> for Cfg {
    type Error = GraphError;
    /// [`Cfg::from_petgraph`] entered at node 0.
    fn try_from(g: &Graph<N, E, Directed, Ix>) -> Result<Cfg, GraphError> {
        Cfg::from_petgraph(g, NodeIndex::new(0))
    }
}

// ---------------------------------------------------------------------------- call graph

/// Which call-graph edges a [`CallGraphView`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeFilter {
    /// Call and ref edges (the graph RefSCCs are SCCs of).
    All,
    /// Call edges only (the graph SCCs are SCCs of).
    Calls,
}

/// A read-only view of a [`LazyCallGraph`] for petgraph: its *populated* edges (call
/// [`LazyCallGraph::populate_all`] first to see every edge), both directions as CSR
/// arrays built once. Node `n` is [`NodeIdx`] `n`.
#[derive(Clone, Debug)]
pub struct CallGraphView<'a> {
    graph: &'a LazyCallGraph,
    succ_start: Vec<u32>,
    succ: Vec<NodeIdx>,
    pred_start: Vec<u32>,
    pred: Vec<NodeIdx>,
}

impl<'a> CallGraphView<'a> {
    /// The view of `graph`'s populated edges that pass `filter`. O(N + E).
    pub fn new(graph: &'a LazyCallGraph, filter: EdgeFilter) -> Self {
        let n = graph.num_nodes();
        let keep = |k: EdgeKind| filter == EdgeFilter::All || k == EdgeKind::Call;
        let mut succ_start = Vec::with_capacity(n + 1);
        let mut succ = Vec::new();
        let mut indeg = vec![0u32; n + 1];
        succ_start.push(0);
        for x in graph.nodes() {
            for e in graph.cached_edges(x).filter(|e| keep(e.kind)) {
                succ.push(e.target);
                indeg[e.target.idx() + 1] += 1;
            }
            succ_start.push(succ.len() as u32);
        }
        for i in 0..n {
            indeg[i + 1] += indeg[i];
        }
        let pred_start = indeg.clone();
        let mut fill = indeg;
        let mut pred = vec![NodeIdx::new(0); succ.len()];
        for x in 0..n {
            for &t in &succ[succ_start[x] as usize..succ_start[x + 1] as usize] {
                pred[fill[t.idx()] as usize] = NodeIdx::new(x);
                fill[t.idx()] += 1;
            }
        }
        CallGraphView {
            graph,
            succ_start,
            succ,
            pred_start,
            pred,
        }
    }

    /// The graph viewed.
    pub fn graph(&self) -> &'a LazyCallGraph {
        self.graph
    }

    fn row<'b>(starts: &[u32], data: &'b [NodeIdx], n: NodeIdx) -> &'b [NodeIdx] {
        match (starts.get(n.idx()), starts.get(n.idx() + 1)) {
            (Some(&a), Some(&b)) => &data[a as usize..b as usize],
            _ => &[],
        }
    }
}

impl GraphBase for CallGraphView<'_> {
    type NodeId = NodeIdx;
    type EdgeId = (NodeIdx, NodeIdx);
}

impl GraphProp for CallGraphView<'_> {
    type EdgeType = Directed;
}

impl Data for CallGraphView<'_> {
    type NodeWeight = ();
    type EdgeWeight = ();
}

impl NodeCount for CallGraphView<'_> {
    fn node_count(&self) -> usize {
        self.graph.num_nodes()
    }
}

impl NodeIndexable for CallGraphView<'_> {
    fn node_bound(&self) -> usize {
        self.graph.num_nodes()
    }
    fn to_index(&self, a: NodeIdx) -> usize {
        a.idx()
    }
    fn from_index(&self, i: usize) -> NodeIdx {
        NodeIdx::new(i)
    }
}

impl NodeCompactIndexable for CallGraphView<'_> {}

impl Visitable for CallGraphView<'_> {
    type Map = DenseVisitMap;
    fn visit_map(&self) -> DenseVisitMap {
        DenseVisitMap(vec![false; self.graph.num_nodes()])
    }
    fn reset_map(&self, map: &mut DenseVisitMap) {
        map.reset(self.graph.num_nodes());
    }
}

impl<'b> IntoNeighbors for &'b CallGraphView<'_> {
    type Neighbors = std::iter::Copied<std::slice::Iter<'b, NodeIdx>>;
    fn neighbors(self, a: NodeIdx) -> Self::Neighbors {
        CallGraphView::row(&self.succ_start, &self.succ, a)
            .iter()
            .copied()
    }
}

impl<'b> IntoNeighborsDirected for &'b CallGraphView<'_> {
    type NeighborsDirected = std::iter::Copied<std::slice::Iter<'b, NodeIdx>>;
    fn neighbors_directed(self, a: NodeIdx, d: Direction) -> Self::NeighborsDirected {
        match d {
            Direction::Outgoing => CallGraphView::row(&self.succ_start, &self.succ, a),
            Direction::Incoming => CallGraphView::row(&self.pred_start, &self.pred, a),
        }
        .iter()
        .copied()
    }
}

impl IntoNodeIdentifiers for &CallGraphView<'_> {
    type NodeIdentifiers = DenseNodes<NodeIdx>;
    fn node_identifiers(self) -> DenseNodes<NodeIdx> {
        DenseNodes::new(self.graph.num_nodes())
    }
}

impl LazyCallGraph {
    /// A populated view of this graph for petgraph's algorithms
    /// ([`CallGraphView::new`]).
    pub fn petgraph_view(&self, filter: EdgeFilter) -> CallGraphView<'_> {
        CallGraphView::new(self, filter)
    }

    /// A call graph from a petgraph graph: node `i` becomes function `name(i, weight)`
    /// (defined, a root, in index order), each edge `a -> b` an edge of kind
    /// `kind(weight)`, in petgraph's edge order. The SCCs are built.
    ///
    /// # Errors
    /// `DuplicateName` for two nodes with one name, `RepeatedEdge` for parallel edges,
    /// `TooManyNodes`.
    pub fn from_petgraph<N, E, Ix: IndexType>(
        g: &Graph<N, E, Directed, Ix>,
        mut name: impl FnMut(NodeIndex<Ix>, &N) -> String,
        mut kind: impl FnMut(&E) -> EdgeKind,
    ) -> Result<LazyCallGraph, LcgError> {
        let names: Vec<String> = g.node_indices().map(|i| name(i, &g[i])).collect();
        let n = names.len();
        let mut index = ahash::AHashMap::with_capacity(n);
        for nm in &names {
            if index.insert(nm.as_str(), ()).is_some() {
                return Err(LcgError::DuplicateName(nm.clone()));
            }
        }
        let mut lists: Vec<Vec<crate::callgraph::Edge>> = vec![Vec::new(); n];
        for e in g.raw_edges() {
            let (src, target) = (
                NodeIdx::new(e.source().index()),
                NodeIdx::new(e.target().index()),
            );
            lists[src.idx()].push(crate::callgraph::Edge {
                target,
                kind: kind(&e.weight),
            });
        }
        // parallel edges: one stamp per target, one pass per list (O(N + E))
        let mut stamp = vec![u32::MAX; n];
        for (s, list) in lists.iter().enumerate() {
            for e in list {
                if std::mem::replace(&mut stamp[e.target.idx()], s as u32) == s as u32 {
                    return Err(LcgError::RepeatedEdge {
                        src: NodeIdx::new(s),
                        tgt: e.target,
                    });
                }
            }
        }
        let mut out = LazyCallGraph::with_lists(
            "petgraph",
            names,
            vec![true; n],
            (0..n).map(NodeIdx::new).collect(),
            Vec::new(),
            lists,
        )?;
        out.build_ref_sccs();
        Ok(out)
    }
}

impl<N: std::fmt::Display, Ix: IndexType> TryFrom<&Graph<N, EdgeKind, Directed, Ix>>
    for LazyCallGraph
{
    type Error = LcgError;
    /// [`LazyCallGraph::from_petgraph`] with node weights as names and edge weights as
    /// kinds.
    fn try_from(g: &Graph<N, EdgeKind, Directed, Ix>) -> Result<LazyCallGraph, LcgError> {
        LazyCallGraph::from_petgraph(g, |_, w| w.to_string(), |&k| k)
    }
}
