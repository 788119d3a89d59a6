//! Natural loops (the loop forest) and irreducible cycles of one CFG.
//!
//! A block `h` is a loop header when some reachable predecessor `l` (a latch) is dominated
//! by `h` (the backedge `l -> h`, Aho-Sethi-Ullman natural loops; the same definition as
//! LLVM's `LoopInfo`). The body is found by walking predecessors backwards from the
//! latches without passing `h`; headers are processed in decreasing RPO so inner loops are
//! discovered first, and a walk that reaches an already discovered loop jumps to that
//! loop's outermost header and makes the current loop its parent (the scheme of LLVM's
//! `LoopInfoBase::analyze`, Havlak-style nesting without recursion).
//!
//! A retreating edge `u -> v` (`rpo[v] <= rpo[u]`) whose target does not dominate its
//! source is not a loop backedge: it enters a cycle with more than one entry
//! (irreducible). Those edges are reported in `irreducible_edges`, and the cycles are not
//! loops here (as in LLVM).
//!
//! # Invariants (after `compute`)
//! - loops are numbered so that `parent[l] < l` (outer before inner); `depth` is 1 for
//!   top-level loops and `depth[parent] + 1` otherwise.
//! - `blocks(l)` holds the header first, then every other block of `l` and of its nested
//!   loops, in RPO order; `loop_of[b]` is the innermost loop containing `b` or `LoopIdx::NONE`.
//! - `header[l]` dominates every block of `l`; every latch is a predecessor of the header.
//!
//! Complexity: O((N + E) · d) for loop depth d (the outermost-ancestor walks and the
//! per-ancestor block lists), near linear on real CFGs.

use crate::graph::dom::DomTree;
use crate::graph::rpo::{Rpo, UNREACHED};
use crate::graph::{Csr, Predecessors, Successors, Tarjan, WithStart};
use crate::idx::{BlockIdx, IndexVec};

crate::define_idx!(
    /// A natural loop of one CFG, numbered outer before inner (`parent < loop`).
    LoopIdx,
    "loop"
);

crate::define_idx!(
    /// An irreducible cycle (a multi-entry strongly connected region) of one CFG.
    CycleIdx,
    "cycle"
);

/// The loop forest of one CFG, as side tables keyed by loop (`header`, `parent`,
/// `depth`, ...) or by block (`loop_of`).
#[derive(Clone, Debug, Default)]
pub struct LoopForest {
    /// Header block of each loop.
    pub(crate) header: IndexVec<LoopIdx, BlockIdx>,
    /// Enclosing loop, or `LoopIdx::NONE` for a top-level loop (see [`LoopForest::parent_of`]).
    pub(crate) parent: IndexVec<LoopIdx, LoopIdx>,
    /// Nesting depth, 1 = outermost.
    pub(crate) depth: IndexVec<LoopIdx, u32>,
    /// Blocks of each loop (header first, then RPO order; nested loops' blocks included).
    pub(crate) blocks: Csr<LoopIdx, BlockIdx>,
    /// Latches of each loop (predecessors of the header inside the loop), in block order.
    pub(crate) latches: Csr<LoopIdx, BlockIdx>,
    /// Exit blocks: successors outside the loop of blocks inside it (sorted, unique).
    pub(crate) exits: Csr<LoopIdx, BlockIdx>,
    /// Preheader: the unique outside predecessor of the header whose only successor is
    /// the header, or `BlockIdx::NONE` (see [`LoopForest::preheader_of`]).
    pub(crate) preheader: IndexVec<LoopIdx, BlockIdx>,
    /// The seed's RPO-range view: `(rpo of header, largest rpo in the loop)`. Every block
    /// of the loop has an RPO number in this range (the converse need not hold).
    pub(crate) rpo_range: IndexVec<LoopIdx, (u32, u32)>,
    /// Innermost loop of each block, `LoopIdx::NONE` if none (see
    /// [`LoopForest::innermost`]).
    pub(crate) loop_of: IndexVec<BlockIdx, LoopIdx>,
    /// Retreating edges whose target does not dominate their source (irreducible entries).
    pub(crate) irreducible_edges: Vec<(BlockIdx, BlockIdx)>,
    /// Irreducible cycles: for each irreducible edge, the smallest strongly connected
    /// region around it that has two or more entries (SCCs by [`crate::graph::Tarjan`],
    /// peeling single-entry headers), each a sorted block list, deduplicated; computed
    /// only when `irreducible_edges` is non-empty.
    pub(crate) irreducible_sccs: Csr<CycleIdx, BlockIdx>,
    valid: bool,
    stack: Vec<BlockIdx>,
}

/// The multi-entry region of each irreducible edge `u -> v`: start from the SCC of `u`
/// (reachable part of `g`); while the region has a single entry `h` (a natural loop that
/// merely contains the irreducible part), drop `h` and take the SCC of `u` inside the
/// rest. This ends with a region of two or more entries that holds both `u` and `v`: the
/// DFS reaches the region through an entry, which is a DFS ancestor of `v`, so the cycle
/// `v ->* u -> v` of DFS-tree edges never passes a dropped header. Regions are sorted
/// block lists, deduplicated, in order of their first irreducible edge.
fn irreducible_regions<G>(
    g: &G,
    rpo: &Rpo<BlockIdx>,
    edges: &[(BlockIdx, BlockIdx)],
) -> Vec<Vec<BlockIdx>>
where
    G: Successors<Node = BlockIdx> + Predecessors + WithStart,
{
    let n = g.num_nodes();
    let reach = |b: BlockIdx| rpo.is_reachable(b);
    let mut t = Tarjan::new();
    t.compute_from(g, [g.start_node()]);
    let mut out: Vec<Vec<BlockIdx>> = Vec::new();
    // Position of a block in the current region (`u32::MAX`: outside).
    let mut local: IndexVec<BlockIdx, u32> = IndexVec::from_elem_n(u32::MAX, n);
    // The induced subgraph of a region minus its header, over region positions.
    let mut inner: Tarjan<u32> = Tarjan::new();
    for &(u, v) in edges {
        if out
            .iter()
            .any(|r| r.binary_search(&u).is_ok() && r.binary_search(&v).is_ok())
        {
            continue;
        }
        let Some(cu) = t.comp_of(u) else {
            continue;
        };
        let mut region: Vec<BlockIdx> = t.scc(cu).to_vec();
        region.sort_unstable();
        loop {
            for (i, &b) in region.iter().enumerate() {
                local[b] = i as u32;
            }
            let entries: Vec<BlockIdx> = region
                .iter()
                .copied()
                .filter(|&b| {
                    b == g.start_node()
                        || g.predecessors(b)
                            .iter()
                            .any(|&p| reach(p) && local[p] == u32::MAX)
                })
                .collect();
            if entries.len() != 1 {
                break;
            }
            // Drop the single header; SCC of `u` in the induced subgraph of the rest.
            let h = entries[0];
            let mut sub = Vec::new();
            for &b in &region {
                if b == h {
                    continue;
                }
                for &s in g.successors(b) {
                    if s != h && local[s] != u32::MAX {
                        sub.push((local[b], local[s]));
                    }
                }
            }
            let csr: Csr = Csr::from_edges_in_range(region.len(), &sub);
            inner.compute_from(&csr, [local[u]]);
            let next: Vec<BlockIdx> = inner
                .comp_of(local[u])
                .map(|c| inner.scc(c).iter().map(|&i| region[i as usize]).collect())
                .unwrap_or_default();
            for &b in &region {
                local[b] = u32::MAX;
            }
            region = next;
            region.sort_unstable();
            if region.len() < 2 {
                break; // cannot happen for a real irreducible edge; stay safe
            }
        }
        for &b in &region {
            local[b] = u32::MAX;
        }
        out.push(region);
    }
    out
}

impl LoopForest {
    /// An empty, invalid forest.
    pub fn new() -> LoopForest {
        LoopForest::default()
    }

    /// Number of loops.
    pub fn len(&self) -> usize {
        self.header.len()
    }

    /// True if there are no loops.
    pub fn is_empty(&self) -> bool {
        self.header.is_empty()
    }

    /// Every loop, outer before inner.
    pub fn loops(&self) -> impl DoubleEndedIterator<Item = LoopIdx> + ExactSizeIterator {
        self.header.indices()
    }

    /// Blocks of loop `l` (header first).
    pub fn loop_blocks(&self, l: LoopIdx) -> &[BlockIdx] {
        self.blocks.row(l)
    }

    /// Every loop's header, read-only (a scan's view).
    pub fn headers(&self) -> &IndexVec<LoopIdx, BlockIdx> {
        &self.header
    }

    /// The header of loop `l` (`None` for an `l` that is not a loop).
    pub fn header_of(&self, l: LoopIdx) -> Option<BlockIdx> {
        self.header.get(l).copied()
    }

    /// Nesting depth of loop `l` (1 for a top-level loop; `None` for an `l` that is not
    /// a loop).
    pub fn depth_of(&self, l: LoopIdx) -> Option<u32> {
        self.depth.get(l).copied()
    }

    /// Latches of loop `l` (predecessors of the header inside the loop), in block order.
    pub fn latches_of(&self, l: LoopIdx) -> &[BlockIdx] {
        self.latches.row(l)
    }

    /// Exit blocks of loop `l`: successors outside it of blocks inside it (sorted,
    /// unique).
    pub fn exits_of(&self, l: LoopIdx) -> &[BlockIdx] {
        self.exits.row(l)
    }

    /// The seed's RPO-range view of loop `l`: `(rpo of header, largest rpo in the loop)`
    /// (`None` for an `l` that is not a loop).
    pub fn rpo_range_of(&self, l: LoopIdx) -> Option<(u32, u32)> {
        self.rpo_range.get(l).copied()
    }

    /// The edges that enter an irreducible cycle other than through one header.
    pub fn irreducible_edges(&self) -> &[(BlockIdx, BlockIdx)] {
        &self.irreducible_edges
    }

    /// The loop enclosing `l`, `None` for a top-level loop (or an `l` that is not a
    /// loop).
    pub fn parent_of(&self, l: LoopIdx) -> Option<LoopIdx> {
        self.parent.get(l)?.some()
    }

    /// The preheader of `l`, if it has one (`None` for an `l` that is not a loop).
    pub fn preheader_of(&self, l: LoopIdx) -> Option<BlockIdx> {
        self.preheader.get(l)?.some()
    }

    /// The innermost loop containing block `b`, if any (`None` for a `b` that is not a
    /// block).
    pub fn innermost(&self, b: BlockIdx) -> Option<LoopIdx> {
        self.loop_of.get(b)?.some()
    }

    /// Largest loop depth (0 when there are no loops).
    pub fn max_depth(&self) -> u32 {
        self.depth.iter().copied().max().unwrap_or(0)
    }

    /// Number of irreducible cycles (strongly connected regions with more than one entry).
    pub fn irreducible_count(&self) -> usize {
        self.irreducible_sccs.num_rows()
    }

    /// Blocks of irreducible cycle `c` (sorted).
    pub fn cycle_blocks(&self, c: CycleIdx) -> &[BlockIdx] {
        self.irreducible_sccs.row(c)
    }

    /// Computes the forest from a valid RPO and dominator tree of `g`. An `rpo` not
    /// computed for a graph of `g`'s size leaves the forest empty (and not valid); one
    /// (or a `dom`) computed for another graph of the same size gives some forest, not
    /// `g`'s (`verify` says so), without a panic.
    pub fn compute<G>(&mut self, g: &G, rpo: &Rpo<BlockIdx>, dom: &DomTree<BlockIdx>)
    where
        G: Successors<Node = BlockIdx> + Predecessors + WithStart,
    {
        let n = g.num_nodes();
        if !rpo.fits(n) {
            self.clear();
            return;
        }
        self.loop_of.clear();
        self.loop_of.resize(n, LoopIdx::NONE);
        // Loops in discovery order (inner first); renumbered outer-first below.
        let mut header: IndexVec<LoopIdx, BlockIdx> = IndexVec::new();
        let mut parent: IndexVec<LoopIdx, LoopIdx> = IndexVec::new();
        self.irreducible_edges.clear();
        for &h in rpo.rpo_array.iter().rev() {
            let rh = rpo.rpo_number[h];
            let l = header.next_index();
            let mut is_header = false;
            self.stack.clear();
            for &p in g.predecessors(h) {
                let rp = rpo.rpo_number[p];
                if rp == UNREACHED || rp < rh {
                    continue;
                }
                if dom.dominates(h, p) {
                    is_header = true;
                    self.stack.push(p);
                } else {
                    self.irreducible_edges.push((p, h));
                }
            }
            if !is_header {
                continue;
            }
            header.push(h);
            parent.push(LoopIdx::NONE);
            self.loop_of[h] = l;
            while let Some(x) = self.stack.pop() {
                if !rpo.is_reachable(x) {
                    continue;
                }
                let mut top = self.loop_of[x];
                if top.is_none() {
                    self.loop_of[x] = l;
                    self.stack.extend_from_slice(g.predecessors(x));
                    continue;
                }
                while !parent[top].is_none() {
                    top = parent[top];
                }
                if top == l {
                    continue;
                }
                parent[top] = l;
                let hh = header[top];
                for &p in g.predecessors(hh) {
                    // skip the inner loop's own backedges
                    if !dom.dominates(hh, p) {
                        self.stack.push(p);
                    }
                }
            }
        }
        self.irreducible_edges.sort_unstable();
        self.irreducible_sccs = Csr::with_no_rows();
        if !self.irreducible_edges.is_empty() {
            for r in irreducible_regions(g, rpo, &self.irreducible_edges) {
                self.irreducible_sccs.push_row(r);
            }
        }
        // Renumber outer-first: by header RPO ascending (a parent's header dominates, so
        // precedes, its children's headers).
        let m = header.len();
        let mut order: Vec<LoopIdx> = header.indices().collect();
        order.sort_by_key(|&l| rpo.rpo_number[header[l]]);
        let mut newid: IndexVec<LoopIdx, LoopIdx> = IndexVec::from_elem_n(LoopIdx::NONE, m);
        for (i, &l) in order.iter().enumerate() {
            newid[l] = LoopIdx::new(i);
        }
        self.header = order.iter().map(|&l| header[l]).collect();
        self.parent = order
            .iter()
            .map(|&l| parent[l].some().map_or(LoopIdx::NONE, |p| newid[p]))
            .collect();
        for x in self.loop_of.iter_mut() {
            if !x.is_none() {
                *x = newid[*x];
            }
        }
        self.depth = IndexVec::from_elem_n(0, m);
        for l in self.header.indices() {
            self.depth[l] = match self.parent[l].some() {
                None => 1,
                Some(p) => self.depth[p] + 1,
            };
        }
        // Block lists, in RPO order, each block added to its loop and all ancestors.
        let mut edges = Vec::new();
        let mut max_rpo: IndexVec<LoopIdx, u32> = IndexVec::from_elem_n(0, m);
        for &b in &rpo.rpo_array {
            let mut l = self.loop_of[b];
            while !l.is_none() {
                edges.push((l, b));
                max_rpo[l] = max_rpo[l].max(rpo.rpo_number[b]);
                l = self.parent[l];
            }
        }
        self.blocks = Csr::group_in_range(m, &edges);
        self.rpo_range = self
            .header
            .iter_enumerated()
            .map(|(l, &h)| (rpo.rpo_number[h], max_rpo[l]))
            .collect();
        // Latches, exits, preheaders.
        let mut lat = Vec::new();
        let mut ex = Vec::new();
        self.preheader = IndexVec::from_elem_n(BlockIdx::NONE, m);
        for l in self.header.indices() {
            let h = self.header[l];
            let mut outside = BlockIdx::NONE;
            let mut n_outside = 0;
            let mut preds: Vec<BlockIdx> = g.predecessors(h).to_vec();
            preds.sort_unstable();
            preds.dedup();
            for &p in &preds {
                if !rpo.is_reachable(p) {
                    continue;
                }
                if self.contains(l, p) {
                    lat.push((l, p));
                } else {
                    outside = p;
                    n_outside += 1;
                }
            }
            if n_outside == 1 && g.successors(outside).iter().all(|&s| s == h) {
                self.preheader[l] = outside;
            }
            let mut exits = Vec::new();
            for &b in self.blocks.row(l) {
                for &s in g.successors(b) {
                    if !self.contains(l, s) {
                        exits.push(s);
                    }
                }
            }
            exits.sort_unstable();
            exits.dedup();
            ex.extend(exits.into_iter().map(|s| (l, s)));
        }
        self.latches = Csr::group_in_range(m, &lat);
        self.exits = Csr::group_in_range(m, &ex);
        self.valid = true;
    }

    /// True if block `b` belongs to loop `l` (directly or through a nested loop); false
    /// when either is out of range.
    pub fn contains(&self, l: LoopIdx, b: BlockIdx) -> bool {
        let mut x = self.innermost(b);
        while let Some(y) = x {
            if y == l {
                return true;
            }
            x = self.parent_of(y);
        }
        false
    }

    /// Forgets the result.
    pub fn clear(&mut self) {
        *self = LoopForest {
            stack: std::mem::take(&mut self.stack),
            ..LoopForest::default()
        };
    }

    /// True when computed since the last `clear` for a graph of `g`'s size.
    pub fn is_valid<G: Successors<Node = BlockIdx>>(&self, g: &G) -> bool {
        self.valid && self.loop_of.len() == g.num_nodes()
    }

    /// Checks the invariants; returns every problem found, never panics.
    pub fn verify<G>(&self, g: &G, dom: &DomTree<BlockIdx>) -> Vec<String>
    where
        G: Successors<Node = BlockIdx> + Predecessors,
    {
        let mut errs = Vec::new();
        if !self.valid {
            return vec!["loops: not computed".into()];
        }
        let m = self.header.len();
        if self.parent.len() != m
            || self.depth.len() != m
            || self.blocks.num_rows() != m
            || self.loop_of.len() != g.num_nodes()
        {
            return vec!["loops: side tables out of sync".into()];
        }
        for l in self.loops() {
            let h = self.header[l];
            let p = self.parent[l];
            if !p.is_none() && (p >= l || self.depth[l] != self.depth[p] + 1) {
                errs.push(format!("loops: loop {} has bad parent {}", l.0, p.0));
            }
            let bs = self.blocks.row(l);
            if bs.first() != Some(&h) {
                errs.push(format!(
                    "loops: loop {} does not list its header bix{} first",
                    l.raw(),
                    h.raw()
                ));
            }
            for &b in bs {
                if b.idx() >= g.num_nodes() || !dom.dominates(h, b) {
                    errs.push(format!(
                        "loops: header bix{} does not dominate bix{} of loop {}",
                        h.raw(),
                        b.raw(),
                        l.raw()
                    ));
                }
            }
            for &x in self.latches.row(l) {
                if !g.successors(x).contains(&h) {
                    errs.push(format!(
                        "loops: latch bix{} of loop {} has no edge to bix{}",
                        x.raw(),
                        l.raw(),
                        h.raw()
                    ));
                }
            }
        }
        errs
    }
}
