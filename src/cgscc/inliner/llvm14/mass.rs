//! The mass propagation of LLVM 14's `BlockFrequencyInfoImpl`, in its own arithmetic:
//! block frequencies from branch probabilities, loops innermost first, and the
//! irreducible cycles found on the way modelled as loops with several headers.
//!
//! Nodes are blocks numbered in reverse post-order. Each natural loop (the crate's
//! [`crate::cfg::loops::LoopForest`], LLVM's `LoopInfo`) is solved from a full mass at
//! its header, its scale taken from the mass that comes back, and then packaged: one
//! node, with its exits, to the loop around it. When a level (a loop, or the function)
//! has a retreating edge to a block that is not its header, its irreducible part is
//! found: the strongly connected components of the level's graph (packaged loops as
//! nodes, edges to the level's header left out), each with two nodes or more becoming
//! a loop whose headers are its entry blocks and the targets of its other retreating
//! edges. Such a loop starts with the full mass split evenly over its headers, and ends
//! with its headers' masses redistributed by the mass their back edges carried
//! (`adjustLoopHeaderMass`). Last, each loop's scale multiplies its members', outer
//! loops first (`unwrapLoops`).
//!
//! Its inputs are one body's [`Flow`] (the block graph with its reverse post-order, its
//! natural loops and its irreducible cycles outside loops, from the crate's graph layer)
//! and the [`Probs`] that `BranchProbabilityInfo` gives its edges ([`super::freq`]).

use super::scaled::{prob, scale_by_prob, Scaled, FULL_MASS};
use crate::cfg::loops::{LoopForest, LoopIdx};
use crate::graph::rpo::Rpo;
use crate::graph::tarjan::Tarjan;
use crate::graph::{Csr, CsrGraph, DirectedGraph, DomTree, Successors};
use crate::idx::BlockIdx;
use crate::llvm::ir::body::Body;

/// A loop of the propagation (`LoopData`): a natural loop, or an irreducible cycle.
#[derive(Clone, Debug)]
struct LoopData {
    parent: Option<u32>,
    packaged: bool,
    /// Its first `num_headers` nodes are its headers (sorted); more than one makes it
    /// irreducible.
    num_headers: usize,
    /// Headers, then the other members, in reverse post-order.
    nodes: Vec<u32>,
    /// Where its mass leaves it, and how much (filled while it is solved).
    exits: Vec<(u32, u64)>,
    /// Per header, the mass its back edges carried.
    backedge: Vec<u64>,
    /// Its mass as one node of the level around it.
    mass: u64,
    scale: Scaled,
}

/// One successor weight of a node being distributed (`Weight`): where it goes (a node,
/// which is what LLVM sorts by), how much, and as what.
#[derive(Clone, Copy, Debug)]
struct Weight {
    target: u32,
    amount: u64,
    kind: WeightKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WeightKind {
    Local,
    Backedge,
    Exit,
}

/// Where a node's mass is kept: its own, or that of the outermost packaged loop it
/// heads (`WorkingData::getMass`).
#[derive(Clone, Copy)]
enum Slot {
    Node(u32),
    Loop(u32),
}

struct MassFlow<'a> {
    c: &'a Flow,
    probs: &'a Probs,
    /// Node of each block (`u32::MAX`: unreachable).
    node_of: Vec<u32>,
    /// Per node: the innermost loop it belongs to (`WorkingData::Loop`).
    loop_of: Vec<Option<u32>>,
    mass: Vec<u64>,
    loops: Vec<LoopData>,
    /// The loops in LLVM's list order: parents before their children.
    order: Vec<u32>,
    dist: Vec<Weight>,
    shares: Vec<(Weight, u64)>,
}

/// Block frequencies (indexed by block row; `None` for unreachable blocks) as LLVM's
/// scaled numbers before their conversion to integers, from the branch probabilities
/// `probs` of the control flow `c`.
pub(super) fn block_freqs(c: &Flow, probs: &Probs) -> Vec<Option<Scaled>> {
    let mut mf = MassFlow::new(c, probs);
    mf.compute_mass_in_loops();
    mf.compute_mass_in_function();
    mf.unwrap_loops()
}

impl<'a> MassFlow<'a> {
    /// `initializeRPOT` and `initializeLoops`: the nodes, and the natural loops with
    /// their headers and immediate members.
    fn new(c: &'a Flow, probs: &'a Probs) -> MassFlow<'a> {
        let order_blocks = c.rpo.order();
        let n = order_blocks.len();
        let mut node_of = vec![u32::MAX; c.num_blocks()];
        for (k, b) in order_blocks.iter().enumerate() {
            node_of[b.idx()] = k as u32;
        }
        let forest = &c.loops;
        let mut loops: Vec<LoopData> = Vec::with_capacity(forest.len());
        let mut loop_of = vec![None; n];
        // the forest numbers loops outer first, so a parent is made before its children
        let mut of_forest = vec![u32::MAX; forest.len()];
        for l in forest.loops() {
            let header = node_of[forest.headers()[l].idx()];
            of_forest[l.idx()] = loops.len() as u32;
            loops.push(LoopData {
                parent: forest.parent_of(l).map(|p| of_forest[p.idx()]),
                packaged: false,
                num_headers: 1,
                nodes: vec![header],
                exits: Vec::new(),
                backedge: vec![0],
                mass: 0,
                scale: Scaled::ZERO,
            });
            loop_of[header as usize] = Some(loops.len() as u32 - 1);
        }
        let mut mf = MassFlow {
            c,
            probs,
            node_of,
            loop_of,
            mass: vec![0; n],
            loops,
            order: Vec::new(),
            dist: Vec::new(),
            shares: Vec::new(),
        };
        mf.order = (0..mf.loops.len() as u32).collect();
        for x in 0..n as u32 {
            if mf.is_loop_header(x) {
                if let Some(l) = mf.containing_loop(x) {
                    mf.loops[l as usize].nodes.push(x);
                }
                continue;
            }
            if let Some(l) = forest.innermost(order_blocks[x as usize]) {
                let l = of_forest[l.idx()];
                mf.loop_of[x as usize] = Some(l);
                mf.loops[l as usize].nodes.push(x);
            }
        }
        mf
    }

    fn is_header(&self, l: u32, x: u32) -> bool {
        let d = &self.loops[l as usize];
        if d.num_headers > 1 {
            d.nodes[..d.num_headers].binary_search(&x).is_ok()
        } else {
            d.nodes[0] == x
        }
    }

    fn header_index(&self, l: u32, x: u32) -> usize {
        let d = &self.loops[l as usize];
        if d.num_headers > 1 {
            d.nodes[..d.num_headers].partition_point(|&h| h < x)
        } else {
            0
        }
    }

    fn is_loop_header(&self, x: u32) -> bool {
        self.loop_of[x as usize].is_some_and(|l| self.is_header(l, x))
    }

    /// The innermost loop containing `x` that `x` does not head.
    fn containing_loop(&self, x: u32) -> Option<u32> {
        let mut l = self.loop_of[x as usize];
        while let Some(k) = l.filter(|&k| self.is_header(k, x)) {
            l = self.loops[k as usize].parent;
        }
        l
    }

    /// The outermost packaged loop containing `x`, if its own loop is packaged.
    fn packaged_loop(&self, x: u32) -> Option<u32> {
        let mut l = self.loop_of[x as usize].filter(|&l| self.loops[l as usize].packaged)?;
        while let Some(p) = self.loops[l as usize]
            .parent
            .filter(|&p| self.loops[p as usize].packaged)
        {
            l = p;
        }
        Some(l)
    }

    /// The node that stands for `x` now: the first header of its packaged loop, or `x`.
    fn resolved(&self, x: u32) -> u32 {
        self.packaged_loop(x)
            .map_or(x, |l| self.loops[l as usize].nodes[0])
    }

    fn is_packaged(&self, x: u32) -> bool {
        self.resolved(x) != x
    }

    fn is_a_package(&self, x: u32) -> bool {
        self.loop_of[x as usize]
            .is_some_and(|l| self.is_header(l, x) && self.loops[l as usize].packaged)
    }

    fn slot(&self, x: u32) -> Slot {
        let mut s = Slot::Node(x);
        let mut l = self.loop_of[x as usize];
        while let Some(k) = l.filter(|&k| self.loops[k as usize].packaged && self.is_header(k, x)) {
            s = Slot::Loop(k);
            l = self.loops[k as usize].parent;
        }
        s
    }

    fn mass_of(&mut self, x: u32) -> &mut u64 {
        match self.slot(x) {
            Slot::Node(n) => &mut self.mass[n as usize],
            Slot::Loop(l) => &mut self.loops[l as usize].mass,
        }
    }

    /// `addToDist`: a weight from `pred` to `succ` (zero counts as 1), as a back edge to
    /// a header of `outer`, an exit from it, or an edge inside it; false for a
    /// retreating edge to a node that is not a header (irreducible control flow).
    fn add_to_dist(&mut self, outer: Option<u32>, pred: u32, succ: u32, w: u64) -> bool {
        let amount = w.max(1);
        let r = self.resolved(succ);
        let is_outer_header = |mf: &Self, x: u32| outer.is_some_and(|o| mf.is_header(o, x));
        let kind = if is_outer_header(self, r) {
            WeightKind::Backedge
        } else if self.containing_loop(r) != outer {
            WeightKind::Exit
        } else {
            if r < pred && !is_outer_header(self, pred) {
                return false;
            }
            WeightKind::Local
        };
        self.dist.push(Weight {
            target: r,
            amount,
            kind,
        });
        true
    }

    /// `propagateMassToSuccessors`: node `x`'s mass sent on (through its block's
    /// successors, or a packaged loop's exits); false at an irreducible back edge.
    fn propagate(&mut self, outer: Option<u32>, x: u32) -> bool {
        self.dist.clear();
        if let Some(l) = self.packaged_loop(x) {
            let head = self.loops[l as usize].nodes[0];
            for k in 0..self.loops[l as usize].exits.len() {
                let (t, m) = self.loops[l as usize].exits[k];
                if !self.add_to_dist(outer, head, t, m) {
                    return false;
                }
            }
        } else {
            let b = self.c.rpo.order()[x as usize];
            for k in self.probs.range(b.raw()) {
                let (t, p) = self.probs.list[k];
                let t = self.node_of[t as usize];
                if !self.add_to_dist(outer, x, t, u64::from(p)) {
                    return false;
                }
            }
        }
        self.distribute_mass(x, outer);
        true
    }

    /// `distributeMass`: node `x`'s mass handed out as the distribution says.
    fn distribute_mass(&mut self, x: u32, outer: Option<u32>) {
        let m = *self.mass_of(x);
        let mut dist = std::mem::take(&mut self.dist);
        let mut shares = std::mem::take(&mut self.shares);
        distribute(&mut dist, m, &mut shares);
        for &(w, taken) in &shares {
            match w.kind {
                WeightKind::Local => {
                    let s = self.mass_of(w.target);
                    *s = s.saturating_add(taken);
                }
                WeightKind::Backedge => {
                    let o = outer.expect("a back edge is inside a loop");
                    let h = self.header_index(o, w.target);
                    let b = &mut self.loops[o as usize].backedge[h];
                    *b = b.saturating_add(taken);
                }
                WeightKind::Exit => {
                    let o = outer.expect("an exit leaves a loop");
                    self.loops[o as usize].exits.push((w.target, taken));
                }
            }
        }
        self.dist = dist;
        self.shares = shares;
    }

    /// `computeMassInLoops`: loops innermost first; a loop with an irreducible part
    /// has it packaged into new loops right after it, then is solved again.
    fn compute_mass_in_loops(&mut self) {
        let mut i = self.order.len();
        while i > 0 {
            i -= 1;
            let l = self.order[i];
            if self.compute_mass_in_loop(l) {
                continue;
            }
            self.compute_irreducible_mass(Some(l), i + 1);
            self.compute_mass_in_loop(l);
        }
    }

    /// `computeMassInLoop`: the full mass at the header (split evenly over the headers
    /// of an irreducible loop) sent through the members; the loop's scale, and the loop
    /// packaged. False at an irreducible back edge inside it.
    fn compute_mass_in_loop(&mut self, l: u32) -> bool {
        let d = &self.loops[l as usize];
        if d.num_headers > 1 {
            self.dist.clear();
            for &h in &d.nodes[..d.num_headers] {
                self.dist.push(Weight {
                    target: h,
                    amount: 1,
                    kind: WeightKind::Local,
                });
            }
            self.assign_header_mass();
            for k in 0..self.loops[l as usize].nodes.len() {
                let x = self.loops[l as usize].nodes[k];
                // an irreducible loop's headers take every retreating edge inside it
                self.propagate(Some(l), x);
            }
            self.adjust_loop_header_mass(l);
        } else {
            let head = d.nodes[0];
            *self.mass_of(head) = FULL_MASS;
            self.propagate(Some(l), head);
            for k in 1..self.loops[l as usize].nodes.len() {
                let x = self.loops[l as usize].nodes[k];
                if !self.propagate(Some(l), x) {
                    return false;
                }
            }
        }
        self.compute_loop_scale(l);
        self.package_loop(l);
        true
    }

    /// The full mass handed to the targets of the distribution being built, each
    /// target's mass set to its share (`distributeIrrLoopHeaderMass`).
    fn assign_header_mass(&mut self) {
        let mut dist = std::mem::take(&mut self.dist);
        let mut shares = std::mem::take(&mut self.shares);
        distribute(&mut dist, FULL_MASS, &mut shares);
        for &(w, taken) in &shares {
            *self.mass_of(w.target) = taken;
        }
        self.dist = dist;
        self.shares = shares;
    }

    /// `adjustLoopHeaderMass`: an irreducible loop's full mass split over its headers by
    /// the mass their back edges carried (headers no back edge reached keep theirs).
    fn adjust_loop_header_mass(&mut self, l: u32) {
        self.dist.clear();
        let d = &self.loops[l as usize];
        for (k, &h) in d.nodes[..d.num_headers].iter().enumerate() {
            let m = d.backedge[k];
            if m > 0 {
                self.dist.push(Weight {
                    target: h,
                    amount: m,
                    kind: WeightKind::Local,
                });
            }
        }
        self.assign_header_mass();
    }

    /// `computeLoopScale`: one over the mass that leaves (4096 for a loop nothing
    /// leaves).
    fn compute_loop_scale(&mut self, l: u32) {
        let d = &mut self.loops[l as usize];
        let back = d.backedge.iter().fold(0u64, |a, &b| a.saturating_add(b));
        let exit = FULL_MASS.saturating_sub(back);
        d.scale = if exit == 0 {
            Scaled::new(1, 12)
        } else {
            Scaled::of_mass(exit).inverse()
        };
    }

    /// `packageLoop`: the loop becomes one node of the level around it (the exits of
    /// the loops packaged inside it are no longer needed).
    fn package_loop(&mut self, l: u32) {
        for k in 0..self.loops[l as usize].nodes.len() {
            let x = self.loops[l as usize].nodes[k];
            if let Some(p) = self.packaged_loop(x) {
                self.loops[p as usize].exits.clear();
            }
        }
        self.loops[l as usize].packaged = true;
    }

    /// `tryToComputeMassInFunction`: the full mass at the entry sent through every node
    /// not packaged, in reverse post-order; false at an irreducible back edge.
    fn try_compute_mass_in_function(&mut self) -> bool {
        if self.mass.is_empty() {
            return true;
        }
        *self.mass_of(0) = FULL_MASS;
        for x in 0..self.mass.len() as u32 {
            if self.is_packaged(x) {
                continue;
            }
            if !self.propagate(None, x) {
                return false;
            }
        }
        true
    }

    fn compute_mass_in_function(&mut self) {
        if !self.try_compute_mass_in_function() {
            self.compute_irreducible_mass(None, 0);
            self.try_compute_mass_in_function();
        }
    }

    /// `computeIrreducibleMass`: the irreducible cycles of level `outer` (the function
    /// when `None`) made loops, placed at `insert` in the loop order, and solved; then
    /// `outer` keeps only the nodes still standing for themselves
    /// (`updateLoopWithIrreducible`).
    fn compute_irreducible_mass(&mut self, outer: Option<u32>, insert: usize) {
        // the level's nodes (their masses emptied) and its graph
        let nodes: Vec<u32> = match outer {
            Some(o) => self.loops[o as usize].nodes.clone(),
            None => (0..self.mass.len() as u32)
                .filter(|&x| !self.is_packaged(x))
                .collect(),
        };
        let mut local = vec![u32::MAX; self.mass.len()];
        for (k, &x) in nodes.iter().enumerate() {
            local[x as usize] = k as u32;
            *self.mass_of(x) = 0;
        }
        let mut starts = Vec::with_capacity(nodes.len() + 1);
        let mut targets: Vec<u32> = Vec::new();
        let mut has_pred_from: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
        starts.push(0u32);
        for (k, &x) in nodes.iter().enumerate() {
            let mut add = |s: u32, mf: &Self, targets: &mut Vec<u32>| {
                if outer.is_some_and(|o| mf.is_header(o, s)) || local[s as usize] == u32::MAX {
                    return;
                }
                let t = local[s as usize];
                targets.push(t);
                has_pred_from[t as usize].push(k as u32);
            };
            if self.is_a_package(x) {
                let l = self.loop_of[x as usize].expect("a package is a loop");
                for &(t, _) in &self.loops[l as usize].exits {
                    add(t, self, &mut targets);
                }
            } else {
                let b = self.c.rpo.order()[x as usize];
                for s in self.c.succs(b.raw()) {
                    add(self.node_of[s.idx()], self, &mut targets);
                }
            }
            starts.push(targets.len() as u32);
        }
        let g: Csr<u32> = Csr::from_raw(starts, targets);
        let mut sccs: Tarjan<u32> = Tarjan::new();
        sccs.compute_from(&g, [0]);
        let mut made = Vec::new();
        for (at, scc) in (insert..).zip(sccs.sccs().filter(|s| s.len() >= 2)) {
            let (headers, others) = irreducible_headers(scc, &nodes, &has_pred_from);
            let new = self.loops.len() as u32;
            self.loops.push(LoopData {
                parent: outer,
                packaged: false,
                num_headers: headers.len(),
                backedge: vec![0; headers.len()],
                nodes: headers.into_iter().chain(others).collect(),
                exits: Vec::new(),
                mass: 0,
                scale: Scaled::ZERO,
            });
            self.order.insert(at, new);
            for k in 0..self.loops[new as usize].nodes.len() {
                let x = self.loops[new as usize].nodes[k];
                if self.is_loop_header(x) {
                    let l = self.loop_of[x as usize].expect("a header has its loop");
                    self.loops[l as usize].parent = Some(new);
                } else {
                    self.loop_of[x as usize] = Some(new);
                }
            }
            made.push(new);
        }
        for l in made {
            self.compute_mass_in_loop(l);
        }
        if let Some(o) = outer {
            let mut keep = vec![self.loops[o as usize].nodes[0]];
            for k in 1..self.loops[o as usize].nodes.len() {
                let x = self.loops[o as usize].nodes[k];
                if !self.is_packaged(x) {
                    keep.push(x);
                }
            }
            let d = &mut self.loops[o as usize];
            d.nodes = keep;
            d.exits.clear();
            d.backedge.fill(0);
        }
    }

    /// `unwrapLoops`: each node's frequency from its mass, then each loop's scale
    /// (times its mass as a package) multiplied into its members, outer loops first.
    fn unwrap_loops(mut self) -> Vec<Option<Scaled>> {
        let mut freqs: Vec<Scaled> = self.mass.iter().map(|&m| Scaled::of_mass(m)).collect();
        for i in 0..self.order.len() {
            let l = self.order[i] as usize;
            let d = &mut self.loops[l];
            d.scale = d.scale.mul(Scaled::of_mass(d.mass));
            d.packaged = false;
            let ls = d.scale;
            for k in 0..self.loops[l].nodes.len() {
                let x = self.loops[l].nodes[k];
                if self.is_a_package(x) {
                    let p = self.packaged_loop(x).expect("a package is packaged");
                    let s = &mut self.loops[p as usize].scale;
                    *s = ls.mul(*s);
                } else {
                    freqs[x as usize] = ls.mul(freqs[x as usize]);
                }
            }
        }
        let mut out = vec![None; self.c.num_blocks()];
        for (x, b) in self.c.rpo.order().iter().enumerate() {
            out[b.idx()] = Some(freqs[x]);
        }
        out
    }
}

/// `findIrreducibleHeaders` for strongly connected component `scc` (local indices of
/// the level's `nodes`; `preds`: per local node, its predecessors in the level): its
/// entries (a predecessor outside it), and, unless every node is one, the nodes a
/// retreating edge from a non-entry reaches; both sorted, as nodes.
fn irreducible_headers(scc: &[u32], nodes: &[u32], preds: &[Vec<u32>]) -> (Vec<u32>, Vec<u32>) {
    let mut in_scc = vec![false; nodes.len()];
    for &k in scc {
        in_scc[k as usize] = true;
    }
    let mut entry = vec![false; nodes.len()];
    let mut headers = Vec::new();
    for &k in scc {
        if preds[k as usize].iter().any(|&p| !in_scc[p as usize]) {
            entry[k as usize] = true;
            headers.push(nodes[k as usize]);
        }
    }
    let mut others = Vec::new();
    if headers.len() < scc.len() {
        for &k in scc.iter().filter(|&&k| !entry[k as usize]) {
            let x = nodes[k as usize];
            let extra = preds[k as usize]
                .iter()
                .any(|&p| nodes[p as usize] >= x && !entry[p as usize]);
            if extra {
                headers.push(x);
            } else {
                others.push(x);
            }
        }
    }
    headers.sort_unstable();
    others.sort_unstable();
    (headers, others)
}

/// `Distribution::normalize` and the `DitheringDistributer`: the weights combined per
/// target (sorted by node, or, past 128, in the order LLVM's hash table gives them),
/// scaled into 32 bits, and mass `m` handed out in that order, each share taken from
/// what is left; the shares in `out` (both buffers reused from node to node).
fn distribute(ws: &mut Vec<Weight>, m: u64, out: &mut Vec<(Weight, u64)>) {
    out.clear();
    if ws.is_empty() {
        return;
    }
    let mut total = 0u64;
    let mut overflow = false;
    for w in ws.iter() {
        let (t, o) = total.overflowing_add(w.amount);
        total = t;
        overflow |= o;
    }
    if ws.len() > 128 {
        *ws = combine_by_hashing(std::mem::take(ws));
    } else if ws.len() > 1 {
        ws.sort_unstable_by_key(|w| w.target);
        ws.dedup_by(|later, kept| {
            let same = later.target == kept.target;
            if same {
                kept.amount = kept.amount.saturating_add(later.amount);
            }
            same
        });
    }
    if ws.len() == 1 {
        ws[0].amount = 1;
        total = 1;
    } else {
        let shift = if overflow {
            33
        } else if total > u64::from(u32::MAX) {
            33 - total.leading_zeros()
        } else {
            0
        };
        if shift != 0 {
            total = 0;
            for w in ws.iter_mut() {
                let a = (w.amount >> shift) + (1 & (w.amount >> (shift - 1)));
                w.amount = a.max(1);
                total += w.amount;
            }
        }
    }
    let (mut rem_w, mut rem_m) = (total as u32, m);
    for &w in ws.iter() {
        let p = prob(w.amount as u32, rem_w);
        let taken = scale_by_prob(rem_m, p);
        rem_w -= w.amount as u32;
        rem_m = rem_m.saturating_sub(taken);
        out.push((w, taken));
    }
}

/// `combineWeightsByHashing`, for more than 128 weights: combined per target in a
/// `DenseMap<unsigned, Weight>` sized for twice as many, so the order they come out in
/// (the order mass is dithered in) is that table's bucket order: hash `target * 37`,
/// quadratic probing. Without duplicates the list stays as it was.
fn combine_by_hashing(ws: Vec<Weight>) -> Vec<Weight> {
    let reserve = (2 * ws.len() as u64 + 1).next_power_of_two();
    let nbuckets = (reserve * 4 / 3 + 2).next_power_of_two() as usize;
    let mut table: Vec<Option<Weight>> = vec![None; nbuckets];
    let mut distinct = 0;
    for w in &ws {
        let mut at = (w.target.wrapping_mul(37) as usize) & (nbuckets - 1);
        let mut probe = 1;
        loop {
            match &mut table[at] {
                Some(x) if x.target == w.target => {
                    x.amount = x.amount.saturating_add(w.amount);
                    break;
                }
                Some(_) => {
                    at = (at + probe) & (nbuckets - 1);
                    probe += 1;
                }
                slot @ None => {
                    *slot = Some(*w);
                    distinct += 1;
                    break;
                }
            }
        }
    }
    if distinct == ws.len() {
        return ws;
    }
    table.into_iter().flatten().collect()
}

/// One body's control flow, analysed by the crate's graph layer: the graph of its
/// blocks (the successors of the blocks in the layout, in LLVM's order, duplicates
/// kept), its reverse post-order (the DFS from the entry that takes successors in
/// order), and its natural loops (`LoopInfo`: one loop per header, with the blocks of
/// the loops nested in it; numbered by their headers' reverse post-order, outer first).
pub(super) struct Flow {
    pub(super) g: CsrGraph<BlockIdx>,
    pub(super) rpo: Rpo<BlockIdx>,
    pub(super) loops: LoopForest,
    /// Per block in no loop: the strongly connected component of the CFG it is in, when
    /// that has several blocks (an irreducible cycle; `u32::MAX`: none). LLVM's
    /// `BranchProbabilityInfo` takes such a component for the block's loop (`SccInfo`).
    pub(super) scc: Vec<u32>,
}

impl Flow {
    pub(super) fn new(b: &Body) -> Flow {
        let n = b.blocks.len();
        let mut live = vec![false; n];
        for &bb in &b.layout {
            live[bb.idx()] = true;
        }
        let mut starts = Vec::with_capacity(n + 1);
        let mut targets = Vec::new();
        starts.push(0u32);
        for bb in (0..n).map(BlockIdx::new) {
            if live[bb.idx()] {
                targets.extend(b.succ_iter(bb));
            }
            starts.push(targets.len() as u32);
        }
        let g = CsrGraph::from_csr(Csr::from_raw(starts, targets), b.layout[0])
            .expect("a body's branches target its blocks");
        let mut rpo = Rpo::new();
        rpo.compute(&g);
        let mut dom = DomTree::new();
        dom.compute_auto(&g, &rpo);
        let mut loops = LoopForest::new();
        loops.compute(&g, &rpo, &dom);
        let mut scc = vec![u32::MAX; n];
        if !loops.irreducible_edges().is_empty() {
            let mut t: Tarjan<BlockIdx> = Tarjan::new();
            t.compute_from(&g, [b.layout[0]]);
            for (k, c) in t.sccs().enumerate().filter(|(_, c)| c.len() > 1) {
                for &x in c.iter().filter(|&&x| loops.innermost(x).is_none()) {
                    scc[x.idx()] = k as u32;
                }
            }
        }
        Flow { g, rpo, loops, scc }
    }

    /// LLVM's `LoopBlock` of block `x`: its innermost loop, or, in no loop, its
    /// irreducible cycle.
    pub(super) fn loop_key(&self, x: u32) -> (Option<LoopIdx>, u32) {
        match self.inner(x) {
            Some(l) => (Some(l), u32::MAX),
            None => (None, self.scc[x as usize]),
        }
    }

    /// The number of blocks (reachable or not).
    pub(super) fn num_blocks(&self) -> usize {
        self.g.num_nodes()
    }

    /// The successors of block `x`.
    pub(super) fn succs(&self, x: u32) -> &[BlockIdx] {
        self.g.successors(BlockIdx::from_raw(x))
    }

    /// `LoopInfo::getLoopFor`: the innermost loop of block `x`.
    pub(super) fn inner(&self, x: u32) -> Option<LoopIdx> {
        self.loops.innermost(BlockIdx::from_raw(x))
    }
}

/// Branch probabilities: per block, one entry per successor edge (in successor order,
/// a successor listed twice twice) with its probability as a numerator over 2^31, as
/// LLVM's `BranchProbabilityInfo` gives them.
pub(super) struct Probs {
    /// Block `x`'s entries are `list[at[x].0..at[x].1]`.
    pub(super) at: Vec<(u32, u32)>,
    /// (target block, probability) per edge.
    pub(super) list: Vec<(u32, u32)>,
}

impl Probs {
    pub(super) fn range(&self, x: u32) -> std::ops::Range<usize> {
        let (a, e) = self.at[x as usize];
        a as usize..e as usize
    }

    /// Sets block `x`'s probabilities: `ps` pairs with `succs`.
    pub(super) fn set(&mut self, x: u32, succs: &[BlockIdx], ps: impl Iterator<Item = u32>) {
        let begin = self.list.len();
        self.list.extend(succs.iter().map(|b| b.raw()).zip(ps));
        self.at[x as usize] = (begin as u32, self.list.len() as u32);
    }
}
