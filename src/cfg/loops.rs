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
//!   loops, in RPO order; `loop_of[b]` is the innermost loop containing `b` or `NONE`.
//! - `header[l]` dominates every block of `l`; every latch is a predecessor of the header.
//!
//! Complexity: O((N + E) · d) for loop depth d (the outermost-ancestor walks and the
//! per-ancestor block lists), near linear on real CFGs.

use crate::graph::dom::DomTree;
use crate::graph::rpo::Rpo;
use crate::graph::{Csr, DirectedGraph, Predecessors, Successors, Tarjan, WithStart, NONE};

/// The loop forest of one CFG, as side tables keyed by loop index (`header`, `parent`,
/// `depth`, ...) or by block (`loop_of`).
#[derive(Clone, Debug, Default)]
pub struct LoopForest {
    /// Header block of each loop.
    pub header: Vec<u32>,
    /// Enclosing loop, or `NONE` for a top-level loop.
    pub parent: Vec<u32>,
    /// Nesting depth, 1 = outermost.
    pub depth: Vec<u32>,
    /// Blocks of each loop (header first, then RPO order; nested loops' blocks included).
    pub blocks: Csr,
    /// Latches of each loop (predecessors of the header inside the loop), in block order.
    pub latches: Csr,
    /// Exit blocks: successors outside the loop of blocks inside it (sorted, unique).
    pub exits: Csr,
    /// Preheader: the unique outside predecessor of the header whose only successor is
    /// the header, or `NONE`.
    pub preheader: Vec<u32>,
    /// The seed's RPO-range view: `(rpo of header, largest rpo in the loop)`. Every block
    /// of the loop has an RPO number in this range (the converse need not hold).
    pub rpo_range: Vec<(u32, u32)>,
    /// Innermost loop of each block, `NONE` if none.
    pub loop_of: Vec<u32>,
    /// Retreating edges whose target does not dominate their source (irreducible entries).
    pub irreducible_edges: Vec<(u32, u32)>,
    /// Irreducible cycles: for each irreducible edge, the smallest strongly connected
    /// region around it that has two or more entries (SCCs by [`crate::graph::Tarjan`],
    /// peeling single-entry headers), each a sorted block list, deduplicated; computed
    /// only when `irreducible_edges` is non-empty.
    pub irreducible_sccs: Csr,
    valid: bool,
    stack: Vec<u32>,
}

/// The multi-entry region of each irreducible edge `u -> v`: start from the SCC of `u`
/// (reachable part of `g`); while the region has a single entry `h` (a natural loop that
/// merely contains the irreducible part), drop `h` and take the SCC of `u` inside the
/// rest. This ends with a region of two or more entries that holds both `u` and `v`: the
/// DFS reaches the region through an entry, which is a DFS ancestor of `v`, so the cycle
/// `v ->* u -> v` of DFS-tree edges never passes a dropped header. Regions are sorted
/// block lists, deduplicated, in order of their first irreducible edge.
fn irreducible_regions<G: Successors + Predecessors + WithStart>(
    g: &G,
    rpo: &Rpo,
    edges: &[(u32, u32)],
) -> Vec<Vec<u32>> {
    let n = g.num_nodes();
    let reach = |b: u32| rpo.rpo_number[b as usize] != NONE;
    let mut t = Tarjan::new();
    t.compute_from(g, [g.start_node()]);
    let mut out: Vec<Vec<u32>> = Vec::new();
    let mut local = vec![NONE; n];
    let mut inner = Tarjan::new();
    for &(u, v) in edges {
        if out
            .iter()
            .any(|r| r.binary_search(&u).is_ok() && r.binary_search(&v).is_ok())
        {
            continue;
        }
        let mut region: Vec<u32> = t.scc(t.scc_of()[u as usize]).to_vec();
        region.sort_unstable();
        loop {
            for (i, &b) in region.iter().enumerate() {
                local[b as usize] = i as u32;
            }
            let entries: Vec<u32> = region
                .iter()
                .copied()
                .filter(|&b| {
                    b == g.start_node()
                        || g.predecessors(b)
                            .iter()
                            .any(|&p| reach(p) && local[p as usize] == NONE)
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
                    if s != h && local[s as usize] != NONE {
                        sub.push((local[b as usize], local[s as usize]));
                    }
                }
            }
            let csr = Csr::from_edges(region.len(), &sub);
            inner.compute_from(&csr, [local[u as usize]]);
            let next: Vec<u32> = inner
                .scc(inner.scc_of()[local[u as usize] as usize])
                .iter()
                .map(|&i| region[i as usize])
                .collect();
            for &b in &region {
                local[b as usize] = NONE;
            }
            region = next;
            region.sort_unstable();
            if region.len() < 2 {
                break; // cannot happen for a real irreducible edge; stay safe
            }
        }
        for &b in &region {
            local[b as usize] = NONE;
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

    /// Blocks of loop `l` (header first).
    pub fn loop_blocks(&self, l: u32) -> &[u32] {
        self.blocks.successors(l)
    }

    /// Largest loop depth (0 when there are no loops).
    pub fn max_depth(&self) -> u32 {
        self.depth.iter().copied().max().unwrap_or(0)
    }

    /// Number of irreducible cycles (strongly connected regions with more than one entry).
    pub fn irreducible_count(&self) -> usize {
        self.irreducible_sccs.num_nodes()
    }

    /// Computes the forest from a valid RPO and dominator tree of `g`.
    pub fn compute<G: Successors + Predecessors + WithStart>(
        &mut self,
        g: &G,
        rpo: &Rpo,
        dom: &DomTree,
    ) {
        let n = g.num_nodes();
        self.loop_of.clear();
        self.loop_of.resize(n, NONE);
        let mut header = Vec::new();
        let mut parent: Vec<u32> = Vec::new();
        self.irreducible_edges.clear();
        for &h in rpo.rpo_array.iter().rev() {
            let rh = rpo.rpo_number[h as usize];
            let l = header.len() as u32;
            let mut is_header = false;
            self.stack.clear();
            for &p in g.predecessors(h) {
                let rp = rpo.rpo_number[p as usize];
                if rp == NONE || rp < rh {
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
            parent.push(NONE);
            self.loop_of[h as usize] = l;
            while let Some(x) = self.stack.pop() {
                if rpo.rpo_number[x as usize] == NONE {
                    continue;
                }
                let mut top = self.loop_of[x as usize];
                if top == NONE {
                    self.loop_of[x as usize] = l;
                    self.stack.extend_from_slice(g.predecessors(x));
                    continue;
                }
                while parent[top as usize] != NONE {
                    top = parent[top as usize];
                }
                if top == l {
                    continue;
                }
                parent[top as usize] = l;
                let hh = header[top as usize];
                for &p in g.predecessors(hh) {
                    // skip the inner loop's own backedges
                    if !dom.dominates(hh, p) {
                        self.stack.push(p);
                    }
                }
            }
        }
        self.irreducible_edges.sort_unstable();
        self.irreducible_sccs = Csr {
            starts: vec![0],
            targets: Vec::new(),
        };
        if !self.irreducible_edges.is_empty() {
            let regions = irreducible_regions(g, rpo, &self.irreducible_edges);
            for r in regions {
                self.irreducible_sccs.targets.extend(r);
                self.irreducible_sccs
                    .starts
                    .push(self.irreducible_sccs.targets.len() as u32);
            }
        }
        // Renumber outer-first: by header RPO ascending (a parent's header dominates, so
        // precedes, its children's headers).
        let m = header.len();
        let mut order: Vec<u32> = (0..m as u32).collect();
        order.sort_by_key(|&l| rpo.rpo_number[header[l as usize] as usize]);
        let mut newid = vec![0u32; m];
        for (i, &l) in order.iter().enumerate() {
            newid[l as usize] = i as u32;
        }
        self.header = order.iter().map(|&l| header[l as usize]).collect();
        self.parent = order
            .iter()
            .map(|&l| {
                let p = parent[l as usize];
                if p == NONE {
                    NONE
                } else {
                    newid[p as usize]
                }
            })
            .collect();
        for x in self.loop_of.iter_mut() {
            if *x != NONE {
                *x = newid[*x as usize];
            }
        }
        self.depth = vec![0; m];
        for l in 0..m {
            let p = self.parent[l];
            self.depth[l] = if p == NONE {
                1
            } else {
                self.depth[p as usize] + 1
            };
        }
        // Block lists, in RPO order, each block added to its loop and all ancestors.
        let mut edges = Vec::new();
        let mut max_rpo = vec![0u32; m];
        for &b in &rpo.rpo_array {
            let mut l = self.loop_of[b as usize];
            while l != NONE {
                edges.push((l, b));
                max_rpo[l as usize] = max_rpo[l as usize].max(rpo.rpo_number[b as usize]);
                l = self.parent[l as usize];
            }
        }
        self.blocks = Csr::group(m, &edges);
        self.rpo_range = (0..m)
            .map(|l| (rpo.rpo_number[self.header[l] as usize], max_rpo[l]))
            .collect();
        // Latches, exits, preheaders.
        let mut lat = Vec::new();
        let mut ex = Vec::new();
        self.preheader = vec![NONE; m];
        for l in 0..m as u32 {
            let h = self.header[l as usize];
            let mut outside = NONE;
            let mut n_outside = 0;
            let mut preds: Vec<u32> = g.predecessors(h).to_vec();
            preds.sort_unstable();
            preds.dedup();
            for &p in &preds {
                if rpo.rpo_number[p as usize] == NONE {
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
                self.preheader[l as usize] = outside;
            }
            let mut exits = Vec::new();
            for &b in self.blocks.successors(l) {
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
        self.latches = Csr::group(m, &lat);
        self.exits = Csr::group(m, &ex);
        self.valid = true;
    }

    /// True if block `b` belongs to loop `l` (directly or through a nested loop).
    pub fn contains(&self, l: u32, b: u32) -> bool {
        let mut x = self.loop_of[b as usize];
        while x != NONE {
            if x == l {
                return true;
            }
            x = self.parent[x as usize];
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
    pub fn is_valid<G: Successors>(&self, g: &G) -> bool {
        self.valid && self.loop_of.len() == g.num_nodes()
    }

    /// Checks the invariants; returns every problem found, never panics.
    pub fn verify<G: Successors + Predecessors>(&self, g: &G, dom: &DomTree) -> Vec<String> {
        let mut errs = Vec::new();
        if !self.valid {
            return vec!["loops: not computed".into()];
        }
        let m = self.header.len();
        if self.parent.len() != m
            || self.depth.len() != m
            || self.blocks.num_nodes() != m
            || self.loop_of.len() != g.num_nodes()
        {
            return vec!["loops: side tables out of sync".into()];
        }
        for l in 0..m {
            let h = self.header[l];
            let p = self.parent[l];
            if p != NONE && (p as usize >= l || self.depth[l] != self.depth[p as usize] + 1) {
                errs.push(format!("loops: loop {l} has bad parent {p}"));
            }
            let bs = self.blocks.successors(l as u32);
            if bs.first() != Some(&h) {
                errs.push(format!(
                    "loops: loop {l} does not list its header bix{h} first"
                ));
            }
            for &b in bs {
                if (b as usize) >= g.num_nodes() || !dom.dominates(h, b) {
                    errs.push(format!(
                        "loops: header bix{h} does not dominate bix{b} of loop {l}"
                    ));
                }
            }
            for &x in self.latches.successors(l as u32) {
                if !g.successors(x).contains(&h) {
                    errs.push(format!(
                        "loops: latch bix{x} of loop {l} has no edge to bix{h}"
                    ));
                }
            }
        }
        errs
    }
}
