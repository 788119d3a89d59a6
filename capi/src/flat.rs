//! The flat-array layer shared by the C ABI and the Python module: ilkit's analyses run
//! on a graph given as CSR arrays (or read from a file), with every answer as plain
//! `Vec<u32>` columns keyed by node, loop or component.
//!
//! Encoding of the columns:
//! - node and block numbers are the input's dense indices `0..num_nodes`;
//! - [`NONE`] (`u32::MAX`) means "no node" (unreachable, no loop, no component);
//! - [`VIRTUAL_EXIT`] (`u32::MAX - 1`) is the post-dominator tree's virtual exit;
//! - a table of lists is CSR: `starts` (one entry per row plus one) and `values`, row `r`
//!   being `values[starts[r]..starts[r + 1]]`.
//!
//! Everything here is safe Rust, never panics on malformed input (a malformed graph is a
//! [`GraphError`]) and prints nothing.

use ilkit::callgraph;
use ilkit::cfg::loops::LoopForest;
use ilkit::cfg::{BlockIdx, Cfg};
use ilkit::graph::rpo::{Rpo, RpoVariant};
use ilkit::graph::{
    Csr, CsrGraph, DirectedGraph, DomFrontiers, DomTree, GraphError, Idom, PostDomTree,
    Predecessors, Successors, Tarjan, WithStart,
};
use ilkit::idx::Idx;
use ilkit::llvm::Module;

/// "No node" in every column (`u32::MAX`).
pub const NONE: u32 = u32::MAX;
/// The post-dominator tree's virtual exit in [`PostDominators::ipdom`] (`u32::MAX - 1`).
pub const VIRTUAL_EXIT: u32 = u32::MAX - 1;
/// The most nodes a graph may have (the SCC walk's index space, 2^31 - 3).
pub const MAX_NODES: usize = (1 << 31) - 3;

/// A CSR graph borrowed from the caller's arrays, checked once: `indptr` has
/// `num_nodes + 1` non-decreasing offsets from 0 to `indices.len()`, every index is a
/// node. Node `v`'s successors are `indices[indptr[v]..indptr[v + 1]]`, in that order
/// (the order fixes the DFS order, and so the post-order of the SCCs).
#[derive(Clone, Copy, Debug)]
pub struct CsrRef<'a> {
    indptr: &'a [u32],
    indices: &'a [u32],
}

impl<'a> CsrRef<'a> {
    /// Checks the arrays (one pass over each).
    ///
    /// # Errors
    /// [`GraphError::MalformedCsr`] for offsets that do not describe `indices` (an empty
    /// `indptr` included), [`GraphError::EdgeOutOfRange`] for an index that is not a
    /// node, [`GraphError::ColumnLengths`] for more than [`MAX_NODES`] nodes.
    pub fn new(indptr: &'a [u32], indices: &'a [u32]) -> Result<Self, GraphError> {
        let Some((&first, _)) = indptr.split_first() else {
            return Err(GraphError::MalformedCsr);
        };
        let n = indptr.len() - 1;
        if n > MAX_NODES {
            return Err(GraphError::ColumnLengths {
                column: "indptr",
                len: indptr.len(),
                num_nodes: MAX_NODES,
            });
        }
        let last = indptr[n];
        if first != 0 || last as usize != indices.len() || indptr.windows(2).any(|w| w[0] > w[1]) {
            return Err(GraphError::MalformedCsr);
        }
        // Branch-free maximum first (vectorizes); find the culprit only on failure.
        let max = indices.iter().copied().max().unwrap_or(0);
        if !indices.is_empty() && max as usize >= n {
            let k = indices.iter().position(|&t| t as usize >= n).unwrap_or(0);
            let source = indptr
                .partition_point(|&s| s as usize <= k)
                .saturating_sub(1);
            return Err(GraphError::EdgeOutOfRange {
                source,
                target: indices[k] as usize,
                num_nodes: n,
            });
        }
        Ok(CsrRef { indptr, indices })
    }

    /// The offsets.
    pub fn indptr(&self) -> &'a [u32] {
        self.indptr
    }

    /// The successor lists, concatenated.
    pub fn indices(&self) -> &'a [u32] {
        self.indices
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.indices.len()
    }

    /// The reverse adjacency: predecessors of each node, sources increasing (a stable
    /// counting sort, O(N + E)).
    pub fn transpose(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.num_nodes();
        let mut starts = vec![0u32; n + 1];
        for &t in self.indices {
            starts[t as usize + 1] += 1;
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        let mut fill: Vec<u32> = starts[..n].to_vec();
        let mut preds = vec![0u32; self.indices.len()];
        for s in 0..n {
            let (a, b) = (self.indptr[s] as usize, self.indptr[s + 1] as usize);
            for &t in &self.indices[a..b] {
                let slot = &mut fill[t as usize];
                preds[*slot as usize] = s as u32;
                *slot += 1;
            }
        }
        (starts, preds)
    }

    /// An owned [`CsrGraph`] of these arrays with start node `root` (what the analyses
    /// that need predecessors and a start node run on), nodes typed `N`.
    ///
    /// # Errors
    /// [`GraphError::StartOutOfRange`] when the graph has nodes and `root` is not one.
    pub fn to_graph<N: Idx>(&self, root: u32) -> Result<CsrGraph<N>, GraphError> {
        let targets = self.indices.iter().map(|&t| N::new(t as usize)).collect();
        CsrGraph::from_csr(
            Csr::from_raw(self.indptr.to_vec(), targets),
            N::new(root as usize),
        )
    }
}

impl DirectedGraph for CsrRef<'_> {
    type Node = u32;
    #[inline]
    fn num_nodes(&self) -> usize {
        self.indptr.len() - 1
    }
}

impl Successors for CsrRef<'_> {
    #[inline]
    fn successors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.indptr.get(v), self.indptr.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.indices[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// A [`CsrRef`] with its reverse adjacency and a start node: what dominators,
/// frontiers and post-dominators run on, borrowing the successor arrays.
#[derive(Clone, Debug)]
pub struct BiGraph<'a> {
    succ: CsrRef<'a>,
    pred_starts: Vec<u32>,
    preds: Vec<u32>,
    start: u32,
}

impl<'a> BiGraph<'a> {
    /// Builds the reverse adjacency of `succ`, with start node `root`.
    ///
    /// # Errors
    /// [`GraphError::StartOutOfRange`] when the graph has nodes and `root` is not one.
    pub fn new(succ: CsrRef<'a>, root: u32) -> Result<Self, GraphError> {
        let n = succ.num_nodes();
        if n > 0 && root as usize >= n {
            return Err(GraphError::StartOutOfRange {
                start: root as usize,
                num_nodes: n,
            });
        }
        let (pred_starts, preds) = succ.transpose();
        let start = if n == 0 { NONE } else { root };
        Ok(BiGraph {
            succ,
            pred_starts,
            preds,
            start,
        })
    }
}

impl DirectedGraph for BiGraph<'_> {
    type Node = u32;
    #[inline]
    fn num_nodes(&self) -> usize {
        self.succ.num_nodes()
    }
}

impl Successors for BiGraph<'_> {
    #[inline]
    fn successors(&self, v: u32) -> &[u32] {
        self.succ.successors(v)
    }
}

impl Predecessors for BiGraph<'_> {
    #[inline]
    fn predecessors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        match (self.pred_starts.get(v), self.pred_starts.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.preds[a as usize..b as usize],
            _ => &[],
        }
    }
}

impl WithStart for BiGraph<'_> {
    #[inline]
    fn start_node(&self) -> u32 {
        self.start
    }
}

/// Strongly connected components.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sccs {
    /// Per node: its component's position in the post-order (sinks first: for every edge
    /// `u -> v`, `label[v] <= label[u]`).
    pub label: Vec<u32>,
    /// Offsets into `nodes`, one per component plus one.
    pub starts: Vec<u32>,
    /// Nodes grouped by component, components in post-order.
    pub nodes: Vec<u32>,
}

impl Sccs {
    /// Number of components.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// True when there are no components (a graph without nodes).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The SCCs of `g` by ilkit's iterative Tarjan ([`Tarjan::compute`]: roots `0..n` in
/// order, successors in stored order), components in post-order.
pub fn sccs(g: &CsrRef<'_>) -> Sccs {
    let mut t: Tarjan<u32> = Tarjan::new();
    t.compute(g);
    let mut label = vec![NONE; g.num_nodes()];
    for (k, comp) in t.sccs().enumerate() {
        for &v in comp {
            label[v as usize] = k as u32;
        }
    }
    let csr = t.take_components();
    let (starts, nodes) = csr.into_raw();
    Sccs {
        label,
        starts,
        nodes,
    }
}

/// Immediate dominators and dominator-tree levels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dominators {
    /// Per node: its immediate dominator; the root is its own, an unreachable node
    /// [`NONE`].
    pub idom: Vec<u32>,
    /// Per node: depth in the dominator tree (root 0), [`NONE`] when unreachable.
    pub level: Vec<u32>,
}

fn dom_columns(dom: &DomTree<u32>, n: usize) -> Dominators {
    let idom = if dom.idoms().len() == n {
        dom.idoms().raw().to_vec()
    } else {
        vec![NONE; n]
    };
    let level = (0..n as u32)
        .map(|b| dom.level_of(b).unwrap_or(NONE))
        .collect();
    Dominators { idom, level }
}

/// The dominator tree of `g` from its start node (Semi-NCA, [`DomTree::compute_semi_nca`]).
pub fn dominator_tree(g: &BiGraph<'_>) -> DomTree<u32> {
    let mut dom = DomTree::new();
    dom.compute_semi_nca(g);
    dom
}

/// Immediate dominators and levels of `g` from its start node.
pub fn dominators(g: &BiGraph<'_>) -> Dominators {
    dom_columns(&dominator_tree(g), g.num_nodes())
}

/// A CSR table of lists keyed by node (dominance frontiers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lists {
    /// Offsets into `values`, one per row plus one.
    pub starts: Vec<u32>,
    /// The lists, concatenated.
    pub values: Vec<u32>,
}

fn frontier_lists<N: Idx>(df: &DomFrontiers<N>, n: usize) -> Lists {
    let csr = df.as_csr();
    if csr.num_rows() != n {
        return Lists {
            starts: vec![0; n + 1],
            values: Vec::new(),
        };
    }
    Lists {
        starts: csr.starts().to_vec(),
        values: csr.targets().iter().map(|t| t.idx() as u32).collect(),
    }
}

/// Dominance frontiers of every node of `g` (empty for unreachable nodes).
pub fn dominance_frontiers(g: &BiGraph<'_>) -> Lists {
    let dom = dominator_tree(g);
    let mut df = DomFrontiers::new();
    df.compute(g, &dom);
    frontier_lists(&df, g.num_nodes())
}

/// The post-dominator tree (LLVM's: a virtual exit above every exit and infinite loop).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PostDominators {
    /// Per node: its immediate post-dominator, or [`VIRTUAL_EXIT`] (a root of the tree,
    /// or a node whose paths lead to different roots).
    pub ipdom: Vec<u32>,
    /// Per node: depth in the tree (the virtual exit's children are at 1).
    pub level: Vec<u32>,
    /// The virtual exit's children, in LLVM's order.
    pub roots: Vec<u32>,
}

fn postdom_columns<N: Idx>(t: &PostDomTree<N>, n: usize) -> PostDominators {
    let ipdom = (0..n)
        .map(|b| match t.ipdom(N::new(b)) {
            Idom::Node(d) => d.idx() as u32,
            Idom::VirtualExit => VIRTUAL_EXIT,
            Idom::Root | Idom::Unreachable => NONE,
        })
        .collect();
    let level = (0..n)
        .map(|b| t.level_of(N::new(b)).unwrap_or(NONE))
        .collect();
    let roots = t.roots().iter().map(|r| r.idx() as u32).collect();
    PostDominators {
        ipdom,
        level,
        roots,
    }
}

/// The post-dominator tree of `g` (every node is in it; the start node plays no part).
pub fn post_dominators(g: &BiGraph<'_>) -> PostDominators {
    let mut t: PostDomTree<u32> = PostDomTree::new();
    t.compute(g);
    postdom_columns(&t, g.num_nodes())
}

/// The natural-loop forest (LLVM's `LoopInfo`), by loop and by block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loops {
    /// Per loop (outer before inner): its header block.
    pub header: Vec<u32>,
    /// Per loop: the enclosing loop, [`NONE`] for a top-level loop.
    pub parent: Vec<u32>,
    /// Per loop: nesting depth (1 = top level).
    pub depth: Vec<u32>,
    /// Per loop: its blocks (header first, nested loops' blocks included), as CSR.
    pub blocks: Lists,
    /// Per block: its innermost loop, [`NONE`] outside every loop.
    pub block_loop: Vec<u32>,
    /// Per block: the depth of its innermost loop, 0 outside every loop.
    pub block_depth: Vec<u32>,
    /// Per block: the header of its innermost loop, [`NONE`] outside every loop.
    pub block_header: Vec<u32>,
}

fn loop_columns(f: &LoopForest, n: usize) -> Loops {
    let mut out = Loops {
        blocks: Lists {
            starts: vec![0],
            values: Vec::new(),
        },
        ..Loops::default()
    };
    for l in f.loops() {
        out.header.push(f.header_of(l).map_or(NONE, |h| h.raw()));
        out.parent
            .push(f.parent_of(l).map_or(NONE, |p| p.idx() as u32));
        out.depth.push(f.depth_of(l).unwrap_or(0));
        out.blocks
            .values
            .extend(f.loop_blocks(l).iter().map(|b| b.raw()));
        out.blocks.starts.push(out.blocks.values.len() as u32);
    }
    out.block_loop = (0..n)
        .map(|b| {
            f.innermost(BlockIdx::new(b))
                .map_or(NONE, |l| l.idx() as u32)
        })
        .collect();
    out.block_depth = out
        .block_loop
        .iter()
        .map(|&l| out.depth.get(l as usize).copied().unwrap_or(0))
        .collect();
    out.block_header = out
        .block_loop
        .iter()
        .map(|&l| out.header.get(l as usize).copied().unwrap_or(NONE))
        .collect();
    out
}

/// The natural loops of `g` entered at `root`, as a CFG's analysis finds them (the same
/// RPO, dominator tree and loop forest as [`Cfg::analyze`]).
///
/// # Errors
/// [`GraphError::StartOutOfRange`] when the graph has nodes and `root` is not one.
pub fn loops(g: &CsrRef<'_>, root: u32) -> Result<Loops, GraphError> {
    let graph: CsrGraph<BlockIdx> = g.to_graph(root)?;
    let mut rpo = Rpo::new();
    rpo.compute_with(&graph, RpoVariant::Ptxas);
    let mut dom = DomTree::new();
    dom.compute_auto(&graph, &rpo);
    let mut forest = LoopForest::new();
    forest.compute(&graph, &rpo, &dom);
    Ok(loop_columns(&forest, g.num_nodes()))
}

/// Names as one pool of NUL-terminated UTF-8 strings (what a C caller reads in place).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    starts: Vec<usize>,
    pool: Vec<u8>,
}

impl Names {
    /// Appends a name (an interior NUL stays: the length is what counts).
    pub fn push(&mut self, s: &str) {
        self.starts.push(self.pool.len());
        self.pool.extend_from_slice(s.as_bytes());
        self.pool.push(0);
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True when there are no names.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Name `i` with its terminating NUL, or `None` when out of range.
    pub fn get_with_nul(&self, i: usize) -> Option<&[u8]> {
        let a = *self.starts.get(i)?;
        let b = self.starts.get(i + 1).copied().unwrap_or(self.pool.len());
        Some(&self.pool[a..b])
    }

    /// Name `i`, or `None` when out of range.
    pub fn get(&self, i: usize) -> Option<&str> {
        let b = self.get_with_nul(i)?;
        std::str::from_utf8(&b[..b.len() - 1]).ok()
    }

    /// Every name, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

impl<'a> FromIterator<&'a str> for Names {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let mut n = Names::default();
        for s in iter {
            n.push(s);
        }
        n
    }
}

/// A module's lazy call graph, flattened: SCCs and RefSCCs in post-order (callees first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallGraph {
    /// Per node (one per function, module order): its name.
    pub names: Names,
    /// Per node: 1 for a definition, 0 for a declaration.
    pub defined: Vec<u32>,
    /// The call SCCs of every RefSCC, RefSCCs in post-order and the SCCs of each in
    /// post-order: `scc.nodes[scc.starts[k]..scc.starts[k + 1]]` are SCC `k`'s nodes, and
    /// `scc.label[n]` is `n`'s SCC ([`NONE`] for a node in no RefSCC: a declaration, or a
    /// function no root reaches).
    pub scc: Sccs,
    /// Offsets into the SCC list, one per RefSCC plus one: RefSCC `r` holds SCCs
    /// `refscc_starts[r]..refscc_starts[r + 1]`.
    pub refscc_starts: Vec<u32>,
    /// Each node's edges (CSR, the graph's edge order): call and ref edges' targets.
    pub edges: Lists,
    /// Per edge: 1 for a call edge, 0 for a ref edge.
    pub edge_is_call: Vec<u32>,
}

impl CallGraph {
    /// Number of RefSCCs.
    pub fn num_refsccs(&self) -> usize {
        self.refscc_starts.len().saturating_sub(1)
    }
}

/// The call graph of `module` (LLVM's lazy call graph, RefSCCs built), flattened.
pub fn call_graph(module: &Module, module_id: &str) -> CallGraph {
    let mut g = callgraph::from_module(module, module_id);
    let order = g.postorder_refsccs();
    let n = g.num_nodes();
    let mut out = CallGraph {
        names: g.nodes().map(|v| g.name(v).unwrap_or("")).collect(),
        defined: g.nodes().map(|v| g.is_defined(v) as u32).collect(),
        scc: Sccs {
            label: vec![NONE; n],
            starts: vec![0],
            nodes: Vec::new(),
        },
        refscc_starts: vec![0],
        edges: Lists {
            starts: vec![0],
            values: Vec::new(),
        },
        edge_is_call: Vec::new(),
    };
    for v in g.nodes() {
        for e in g.edges(v) {
            out.edges.values.push(e.target.idx() as u32);
            out.edge_is_call.push(e.is_call() as u32);
        }
        out.edges.starts.push(out.edges.values.len() as u32);
    }
    for rc in order {
        for &s in g.refscc_sccs(rc) {
            let k = out.scc.len() as u32;
            for &v in g.scc_nodes(s) {
                out.scc.label[v.idx()] = k;
                out.scc.nodes.push(v.idx() as u32);
            }
            out.scc.starts.push(out.scc.nodes.len() as u32);
        }
        out.refscc_starts.push(out.scc.len() as u32);
    }
    out
}

/// One function's CFG with its analyses, flattened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CfgAnalysis {
    /// The function's name.
    pub name: String,
    /// Per block: its name as printed (source label or LLVM name, `bixN` when unnamed).
    pub block_names: Names,
    /// The entry block.
    pub entry: u32,
    /// Successors of each block (CSR, LLVM's edge order).
    pub succ: Lists,
    /// Reverse post-order (ptxas' traversal) of the reachable blocks.
    pub rpo: Vec<u32>,
    /// Immediate dominators and levels.
    pub dom: Dominators,
    /// Dominance frontiers.
    pub frontiers: Lists,
    /// The post-dominator tree.
    pub postdom: PostDominators,
    /// The natural loops.
    pub loops: Loops,
}

/// Every analysis of `cfg`, as [`Cfg::analyze`], [`Cfg::dominance_frontiers`] and
/// [`Cfg::post_dominators`] compute them.
pub fn analyze_cfg(cfg: &Cfg) -> CfgAnalysis {
    let n = cfg.num_blocks();
    let info = cfg.analyze();
    let mut succ = Lists {
        starts: Vec::with_capacity(n + 1),
        values: Vec::new(),
    };
    succ.starts.push(0);
    for b in cfg.blocks() {
        succ.values
            .extend(cfg.successors(b).iter().map(|s| s.raw()));
        succ.starts.push(succ.values.len() as u32);
    }
    let idom = cfg
        .blocks()
        .map(|b| {
            if b == cfg.entry() && info.is_reachable(b) {
                b.raw()
            } else {
                info.idom(b).map_or(NONE, |d| d.raw())
            }
        })
        .collect();
    let level = cfg
        .blocks()
        .map(|b| info.dom().level_of(b).unwrap_or(NONE))
        .collect();
    let mut block_names = Names::default();
    for b in cfg.blocks() {
        block_names.push(&cfg.display_name(b));
    }
    CfgAnalysis {
        name: cfg.name().to_string(),
        block_names,
        entry: if n == 0 { NONE } else { cfg.entry().raw() },
        succ,
        rpo: info.rpo().order().iter().map(|b| b.raw()).collect(),
        dom: Dominators { idom, level },
        frontiers: frontier_lists(&cfg.dominance_frontiers(&info), n),
        postdom: postdom_columns(&cfg.post_dominators(), n),
        loops: loop_columns(info.loops(), n),
    }
}
