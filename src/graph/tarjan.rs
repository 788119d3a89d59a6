//! Iterative Tarjan strongly connected components: the one implementation behind
//! [`crate::cfg::loops`], the call graph's build ([`crate::callgraph`]: RefSCCs, then call
//! SCCs per RefSCC) and its incremental splits (an SCC after a call edge became a ref
//! edge, a RefSCC after ref edges were removed).
//!
//! R. Tarjan, "Depth-first search and linear graph algorithms" (1972), in the
//! space-saving form of D. J. Pearce, "A space-efficient algorithm for finding strongly
//! connected components" (IPL 2016): one `u32` per node (`rindex`) holds the DFS
//! number, then the low-link, then the finished component, so visiting an edge touches
//! one word of the target and no on-stack bit or separate low-link table. The DFS runs on
//! an explicit stack of frames (no recursion: real call chains and CFGs are deep), and a
//! node that is its own trivial component (most of a call graph) never enters the pending
//! stack. O(N + E) time for a run over N nodes and E edges; the table and stacks live in
//! [`Tarjan`] and are reused across runs.
//!
//! # The graph interface
//! A run walks an [`SccGraph`]: the edges of a node (any edge type), which of them the
//! walk follows and where they lead ([`SccGraph::target`]: the call graph's call-SCC
//! pass follows call edges only), and an [`SccGraph::enter`] hook called once per node
//! before its edges are read (the call graph computes a node's edges there, LLVM's lazy
//! `populate`). Any [`Successors`] graph is one through [`Plain`].
//!
//! # Scope
//! The per-node table outlives a run. [`Tarjan::compute`] and friends reset it (every
//! node unvisited); the incremental form keeps it: [`Tarjan::close_all`] puts every node
//! out of scope, [`Tarjan::open`] brings a group back, and a run from the group's nodes
//! ([`Tarjan::run`]) treats every node outside as finished (its edges are never read),
//! so a run costs time proportional to the group and its edges, not to the graph. Nodes
//! a run finishes stay finished for the next run.
//!
//! # Output order (LLVM's `buildGenericSCCs`)
//! Components come out in *post-order*: every component after all components it has
//! edges into (callee-first on a call graph). Roots are walked in the order given and
//! edges in stored order; inside a component the nodes are listed as LLVM lists them
//! (the component's root first, then the rest of the pending stack from the top down).
//!
//! # Sinks (LLVM's `switchInternalEdgeToRef`)
//! [`Tarjan::run_with_sink`] walks with one finished node marked as a *sink*: when the
//! walk meets an edge into a sink, every node on the DFS path and the pending stack
//! reaches it, so they are *absorbed* (listed in [`Tarjan::absorbed`] in LLVM's order:
//! the current node, the pending stack from the bottom, then the DFS path from the top),
//! become sinks themselves, and the walk from that root ends.
//!
//! # Cost of being generic
//! There is one walk (no specialised copy): the plain-CSR runs of `cfg::loops` and the
//! call graph's runs are monomorphisations of the same code. Two things follow from the
//! interface: the walk fetches a node's edge slice again after visiting a child (`enter`
//! may have grown the graph's edge storage), about 3 % on a CSR; and when it visits a
//! node it prefetches its targets' table words and edge lists
//! ([`SccGraph::prefetch`]), which more than pays that back on large graphs, where the
//! walk is a chain of dependent loads. Numbers: PERF.md, callgraph.
//!
//! # Invariants after a run
//! - `comp_of(n) == Some(c)` iff `n` is in `scc(c)`, for the nodes this run reached.
//! - `comp_starts.len() == num_sccs() + 1`.

use super::{Csr, Successors};
use crate::idx::Idx;

crate::define_idx!(
    /// A strongly connected component found by one [`Tarjan`] run, numbered in
    /// post-order (the first component finished is `comp0`).
    CompIdx,
    "comp"
);

/// What a Tarjan run needs of a graph (see the module docs).
pub trait SccGraph {
    /// Node index type.
    type Node: Idx;
    /// Edge type (a node for plain graphs; the call graph's tagged edge).
    type Edge: Copy;
    /// Called once when the walk first reaches `n`, before `edges(n)` is read (a lazy
    /// graph computes `n`'s edges here).
    #[inline]
    fn enter(&mut self, _n: Self::Node) {}
    /// The edges of `n`, in the order the walk takes them (read again each time the walk
    /// comes back to `n`; must not change during a run).
    fn edges(&self, n: Self::Node) -> &[Self::Edge];
    /// Where `e` leads, or `None` when the walk ignores it.
    fn target(&self, e: Self::Edge) -> Option<Self::Node>;
    /// A hint: the walk may soon read `n`'s edges (start loading where they are).
    #[inline]
    fn prefetch(&self, _n: Self::Node) {}
}

/// Any [`Successors`] graph as an [`SccGraph`] (every edge followed).
#[derive(Clone, Copy, Debug)]
pub struct Plain<'a, G: ?Sized>(pub &'a G);

impl<G: Successors + ?Sized> SccGraph for Plain<'_, G> {
    type Node = G::Node;
    type Edge = G::Node;
    #[inline]
    fn edges(&self, n: G::Node) -> &[G::Node] {
        self.0.successors(n)
    }
    #[inline]
    fn target(&self, e: G::Node) -> Option<G::Node> {
        Some(e)
    }
    #[inline]
    fn prefetch(&self, n: G::Node) {
        self.0.prefetch_successors(n);
    }
}

/// Hints the cache to load the line holding `r`; a no-op off x86_64. The walk's cost on
/// a large graph is a chain of dependent loads (a node's edges, then its targets' table
/// words); issuing the next step's loads early overlaps them (PERF.md, callgraph).
#[inline(always)]
pub(crate) fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only hints the cache and never faults; SSE is part of the
    // x86_64 baseline; the pointer comes from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch(r as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// `rindex` of a node not visited yet (Pearce's 0, complemented).
const UNVISITED: u32 = u32::MAX;
/// `rindex` of a node outside the scope of the next run (finished, never walked).
const CLOSED: u32 = (1 << 31) - 1;
/// `rindex` of a sink during [`Tarjan::run_with_sink`].
const SINK: u32 = (1 << 31) - 2;
/// Runs number at most this many nodes: DFS numbers and low-links stay below `1 << 31`,
/// so every live value (complemented) is above every finished value (`< SINK`).
const MAX_NODES: usize = (1 << 31) - 3;

/// One suspended visit: the node, its next edge, its DFS number and its low-link so far.
#[derive(Clone, Copy, Debug)]
struct Frame<N> {
    node: N,
    edge: u32,
    index: u32,
    low: u32,
}

/// Reusable Tarjan state and the components of the last run.
#[derive(Clone, Debug)]
pub struct Tarjan<N: Idx = u32> {
    /// Pearce's `rindex` per node, complemented: `UNVISITED` (`!0`); `!low` for a visited
    /// node not yet in a component; `k` = in the k-th component of its run; `CLOSED` /
    /// `SINK` (both below every `!low`, so a walk treats them as finished).
    rindex: Vec<u32>,
    /// Offsets into `comp_nodes`, one per component plus one.
    comp_starts: Vec<u32>,
    /// Nodes grouped by component, components in post-order.
    comp_nodes: Vec<N>,
    /// Nodes absorbed by a sink (last [`Tarjan::run_with_sink`]).
    absorbed: Vec<N>,
    frames: Vec<Frame<N>>,
    pending: Vec<N>,
}

impl<N: Idx> Default for Tarjan<N> {
    fn default() -> Self {
        Tarjan {
            rindex: Vec::new(),
            comp_starts: Vec::new(),
            comp_nodes: Vec::new(),
            absorbed: Vec::new(),
            frames: Vec::new(),
            pending: Vec::new(),
        }
    }
}

impl<N: Idx> Tarjan<N> {
    /// An empty state; buffers grow on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// SCCs of the whole graph, roots `0..num_nodes()` in order.
    pub fn compute<G: Successors<Node = N> + ?Sized>(&mut self, g: &G) {
        self.compute_from(g, (0..g.num_nodes()).map(N::new));
    }

    /// SCCs of the whole graph in *a* valid post-order, chosen for memory locality rather
    /// than to match LLVM: the roots are walked against the direction most edges point
    /// (descending ids when most edges go to higher ids, ascending otherwise), so most
    /// edges reach a node that is already finished and the walk streams through the
    /// tables instead of diving through the whole graph. Graphs numbered in (or against)
    /// call order — a generator's callers-first ids, a C file's callees-first definitions
    /// — finish almost every node with one scan of its edges. One extra sequential pass
    /// over (a sample of) the edges decides the direction. The partition is the same as
    /// [`Tarjan::compute`]'s; only the order of the SCCs (and of nodes inside one) may
    /// differ.
    pub fn compute_any_order<G: Successors<Node = N> + ?Sized>(&mut self, g: &G) {
        let n = g.num_nodes();
        let (mut forward, mut backward) = (0usize, 0usize);
        // An evenly spaced sample of at most 2^16 nodes decides.
        let stride = (n >> 16).max(1);
        for v in (0..n).step_by(stride) {
            for &t in g.successors(N::new(v)) {
                forward += (t.idx() > v) as usize;
                backward += (t.idx() < v) as usize;
            }
        }
        if forward > backward {
            self.compute_from(g, (0..n).rev().map(N::new));
        } else {
            self.compute_from(g, (0..n).map(N::new));
        }
    }

    /// SCCs of the part of `g` reachable from `roots` (walked in order).
    pub fn compute_from<G: Successors<Node = N> + ?Sized>(
        &mut self,
        g: &G,
        roots: impl IntoIterator<Item = N>,
    ) {
        self.reset(g.num_nodes());
        self.run(&mut Plain(g), roots);
    }

    /// Every node `0..num_nodes` unvisited (in scope); forgets the last result and
    /// makes room for a run over the whole graph.
    ///
    /// # Panics
    /// If `num_nodes` exceeds the table's index space, 2^31 - 3 (a capacity limit, like
    /// `Vec`'s; the table would take 8 GiB).
    pub fn reset(&mut self, num_nodes: usize) {
        assert!(num_nodes <= MAX_NODES, "Tarjan: too many nodes");
        self.clear();
        self.rindex.clear();
        self.rindex.resize(num_nodes, UNVISITED);
        self.comp_nodes.reserve(num_nodes);
        self.comp_starts.reserve(num_nodes + 1);
    }

    /// Every node `0..num_nodes` out of scope (finished); forgets the last result.
    ///
    /// # Panics
    /// If `num_nodes` exceeds the table's index space, 2^31 - 3 (a capacity limit, like
    /// `Vec`'s; the table would take 8 GiB).
    pub fn close_all(&mut self, num_nodes: usize) {
        assert!(num_nodes <= MAX_NODES, "Tarjan: too many nodes");
        self.clear();
        self.rindex.clear();
        self.rindex.resize(num_nodes, CLOSED);
    }

    /// Makes room for nodes `< num_nodes`; new nodes are out of scope.
    ///
    /// # Panics
    /// If `num_nodes` exceeds the table's index space, 2^31 - 3 (a capacity limit, like
    /// `Vec`'s; the table would take 8 GiB).
    pub fn grow(&mut self, num_nodes: usize) {
        assert!(num_nodes <= MAX_NODES, "Tarjan: too many nodes");
        if self.rindex.len() < num_nodes {
            self.rindex.resize(num_nodes, CLOSED);
        }
    }

    /// Brings `nodes` (back) into scope, unvisited. Nodes beyond the table (see
    /// [`Tarjan::reset`], [`Tarjan::grow`]) are ignored: they stay out of scope.
    pub fn open(&mut self, nodes: impl IntoIterator<Item = N>) {
        for n in nodes {
            if let Some(x) = self.rindex.get_mut(n.idx()) {
                *x = UNVISITED;
            }
        }
    }

    /// Puts `n` out of scope (finished); a node beyond the table is out of scope already.
    pub fn close(&mut self, n: N) {
        if let Some(x) = self.rindex.get_mut(n.idx()) {
            *x = CLOSED;
        }
    }

    /// Whether `n` is in scope and not visited by a run yet (false beyond the table).
    pub fn is_unvisited(&self, n: N) -> bool {
        self.rindex.get(n.idx()) == Some(&UNVISITED)
    }

    /// Components of the part of `g` reachable from `roots` through nodes in scope
    /// (roots walked in order, nodes already visited or out of scope skipped). The table
    /// is kept: nodes this run reaches end finished (out of scope for the next run).
    /// Nodes beyond the table (see [`Tarjan::reset`], [`Tarjan::close_all`],
    /// [`Tarjan::grow`]) count as out of scope, as roots and as edge targets.
    pub fn run<G: SccGraph<Node = N>>(&mut self, g: &mut G, roots: impl IntoIterator<Item = N>) {
        self.walk::<G, false>(g, roots);
    }

    /// [`Tarjan::run`] with `sink` (in scope or not) marked as a sink (see the module
    /// docs): the walk from a root stops when it reaches a sink, and every node on its
    /// path and pending stack is absorbed. Afterwards `sink` and the absorbed nodes are
    /// out of scope.
    pub fn run_with_sink<G: SccGraph<Node = N>>(
        &mut self,
        g: &mut G,
        roots: impl IntoIterator<Item = N>,
        sink: N,
    ) {
        if let Some(x) = self.rindex.get_mut(sink.idx()) {
            *x = SINK;
        }
        self.walk::<G, true>(g, roots);
        if let Some(x) = self.rindex.get_mut(sink.idx()) {
            *x = CLOSED;
        }
        for &n in &self.absorbed {
            self.rindex[n.idx()] = CLOSED;
        }
    }

    /// The walk behind every run. `SINKS` compiles the sink test in (only
    /// [`Tarjan::run_with_sink`] pays for it).
    fn walk<G: SccGraph<Node = N>, const SINKS: bool>(
        &mut self,
        g: &mut G,
        roots: impl IntoIterator<Item = N>,
    ) {
        self.clear();
        self.comp_starts.push(0);
        let rindex = &mut self.rindex[..];
        let (frames, pending) = (&mut self.frames, &mut self.pending);
        let (comp_nodes, comp_starts) = (&mut self.comp_nodes, &mut self.comp_starts);
        // Pearce's value of a node is `!rindex[node]`: 0 = unvisited, `1..next` = the
        // low-link of a live node, `!k` = finished (in component k, or out of scope;
        // above every live value). Stored complemented, the table ends up holding the
        // component of every reached node with no pass over it afterwards. Each finished
        // component of size s gives back s numbers.
        let mut next = 1u32;
        let mut comp = 0u32;
        'roots: for root in roots {
            if rindex.get(root.idx()) != Some(&UNVISITED) {
                continue;
            }
            g.enter(root);
            rindex[root.idx()] = !next;
            let mut f = Frame {
                node: root,
                edge: 0,
                index: next,
                low: next,
            };
            next += 1;
            loop {
                // Advance `f` to its next unvisited target. The edge slice is fetched
                // again after every visit: `enter` may have changed the graph.
                let mut child = None;
                let succ = g.edges(f.node);
                while let Some(&e) = succ.get(f.edge as usize) {
                    f.edge += 1;
                    let Some(c) = g.target(e) else {
                        continue;
                    };
                    let x = rindex.get(c.idx()).copied().unwrap_or(CLOSED);
                    if x == UNVISITED {
                        child = Some(c);
                        break;
                    }
                    if SINKS && x == SINK {
                        Self::absorb(rindex, &mut self.absorbed, pending, frames, f.node, None);
                        next = 1;
                        continue 'roots;
                    }
                    f.low = f.low.min(!x);
                }
                if let Some(c) = child {
                    // Visit c. Scan its edges up to the first unvisited target: if there
                    // is none, c finishes here without a frame (most call-graph nodes).
                    g.enter(c);
                    let index = next;
                    next += 1;
                    rindex[c.idx()] = !index;
                    let cs = g.edges(c);
                    // Start loading what the next steps read: the targets' table words
                    // and their edge lists.
                    for &e in cs {
                        if let Some(d) = g.target(e) {
                            if let Some(x) = rindex.get(d.idx()) {
                                prefetch(x);
                            }
                            g.prefetch(d);
                        }
                    }
                    let mut low = index;
                    let mut k = 0;
                    while let Some(&e) = cs.get(k) {
                        if let Some(d) = g.target(e) {
                            let x = rindex.get(d.idx()).copied().unwrap_or(CLOSED);
                            if x == UNVISITED {
                                break;
                            }
                            if SINKS && x == SINK {
                                Self::absorb(
                                    rindex,
                                    &mut self.absorbed,
                                    pending,
                                    frames,
                                    c,
                                    Some(f.node),
                                );
                                next = 1;
                                continue 'roots;
                            }
                            low = low.min(!x);
                        }
                        k += 1;
                    }
                    if k == cs.len() {
                        if low == index {
                            // A trivial component: nothing was pushed above it.
                            rindex[c.idx()] = comp;
                            comp += 1;
                            next -= 1;
                            comp_nodes.push(c);
                            comp_starts.push(comp_nodes.len() as u32);
                        } else {
                            rindex[c.idx()] = !low;
                            pending.push(c);
                            f.low = f.low.min(low);
                        }
                        continue;
                    }
                    // Descend; ancestors' low-links must be visible to back edges.
                    rindex[f.node.idx()] = !f.low;
                    frames.push(f);
                    f = Frame {
                        node: c,
                        edge: k as u32,
                        index,
                        low,
                    };
                    continue;
                }
                let child_low = if f.low == f.index {
                    // f.node roots a component: it, then the pending nodes numbered after it.
                    rindex[f.node.idx()] = comp;
                    comp_nodes.push(f.node);
                    next -= 1;
                    while let Some(&w) = pending.last() {
                        if !rindex[w.idx()] < f.index {
                            break;
                        }
                        pending.pop();
                        rindex[w.idx()] = comp;
                        comp_nodes.push(w);
                        next -= 1;
                    }
                    comp_starts.push(comp_nodes.len() as u32);
                    comp += 1;
                    u32::MAX
                } else {
                    rindex[f.node.idx()] = !f.low;
                    pending.push(f.node);
                    f.low
                };
                let Some(parent) = frames.pop() else {
                    break;
                };
                f = parent;
                if child_low < f.low {
                    f.low = child_low;
                }
            }
        }
    }

    /// A sink was reached from `current` (whose DFS parent is `parent` when `current` was
    /// being scanned without a frame): `current`, the pending stack from the bottom and the
    /// DFS path from the top are absorbed (LLVM's order) and become sinks.
    #[cold]
    fn absorb(
        rindex: &mut [u32],
        absorbed: &mut Vec<N>,
        pending: &mut Vec<N>,
        frames: &mut Vec<Frame<N>>,
        current: N,
        parent: Option<N>,
    ) {
        let from = absorbed.len();
        absorbed.push(current);
        absorbed.append(pending);
        absorbed.extend(parent);
        absorbed.extend(frames.drain(..).rev().map(|f| f.node));
        for &n in &absorbed[from..] {
            rindex[n.idx()] = SINK;
        }
    }

    /// Forgets the last result (keeps the table and the buffers).
    pub fn clear(&mut self) {
        self.comp_starts.clear();
        self.comp_nodes.clear();
        self.absorbed.clear();
        self.frames.clear();
        self.pending.clear();
    }

    /// True when a result is present.
    pub fn is_valid(&self) -> bool {
        !self.comp_starts.is_empty()
    }

    /// Number of components the last run found.
    pub fn num_sccs(&self) -> usize {
        self.comp_starts.len().saturating_sub(1)
    }

    /// Nodes of component `c` (post-order index), in LLVM's order.
    /// Empty for a component out of range.
    pub fn scc(&self, c: CompIdx) -> &[N] {
        let i = c.idx();
        match (
            self.comp_starts.get(i),
            self.comp_starts.get(i.wrapping_add(1)),
        ) {
            (Some(&s), Some(&e)) => &self.comp_nodes[s as usize..e as usize],
            _ => &[],
        }
    }

    /// The components of the last run in post-order.
    pub fn sccs(&self) -> impl ExactSizeIterator<Item = &[N]> + '_ {
        self.comp_starts
            .windows(2)
            .map(|w| &self.comp_nodes[w[0] as usize..w[1] as usize])
    }

    /// Every node the last run put in a component, component by component.
    pub fn scc_nodes(&self) -> &[N] {
        &self.comp_nodes
    }

    /// Moves the last run's components out as a table (component -> its nodes, in
    /// post-order), leaving no result; the per-node table (the scope) stays.
    pub fn take_components(&mut self) -> Csr<CompIdx, N> {
        let starts = std::mem::take(&mut self.comp_starts);
        let nodes = std::mem::take(&mut self.comp_nodes);
        Csr::from_raw(starts, nodes)
    }

    /// Takes the per-node table, leaving none: every node counts as out of scope until
    /// [`Tarjan::grow`] or a reset makes a table again. After [`Tarjan::reset`] and one
    /// run, entry `n` is `n`'s component number, or `u32::MAX` where the run did not
    /// reach (a caller's dense component table with `u32::MAX` as "none", for free).
    pub(crate) fn take_table(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.rindex)
    }

    /// Component of `n` in the last run: `None` when the last run did not reach `n`
    /// (after an incremental run, a node finished by an *earlier* run may report that
    /// run's number; ask only about nodes of this run's scope).
    pub fn comp_of(&self, n: N) -> Option<CompIdx> {
        let x = *self.rindex.get(n.idx())?;
        ((x as usize) < self.num_sccs()).then_some(CompIdx(x))
    }

    /// Nodes absorbed by the sink in the last [`Tarjan::run_with_sink`], in LLVM's order.
    pub fn absorbed(&self) -> &[N] {
        &self.absorbed
    }

    /// Checks a whole-graph result against `g`: partition consistency and post-order
    /// (every edge goes to the same or an earlier component). Reports every problem;
    /// never panics.
    pub fn verify<G: Successors<Node = N> + ?Sized>(&self, g: &G) -> Vec<String> {
        let mut errs = Vec::new();
        if self.rindex.len() != g.num_nodes() {
            errs.push(format!(
                "table has {} entries for {} nodes",
                self.rindex.len(),
                g.num_nodes()
            ));
            return errs;
        }
        for (s, nodes) in self.sccs().enumerate() {
            for &n in nodes {
                if self.comp_of(n) != Some(CompIdx::new(s)) {
                    errs.push(format!(
                        "node {} listed in component {s} but its table entry says otherwise",
                        n.idx()
                    ));
                }
            }
        }
        for n in (0..g.num_nodes()).map(N::new) {
            let Some(sn) = self.comp_of(n) else {
                continue;
            };
            for &t in g.successors(n) {
                let st = self.rindex.get(t.idx()).and_then(|_| self.comp_of(t));
                if st.is_none_or(|st| st > sn) {
                    errs.push(format!(
                        "edge {}->{} goes to a later or missing component ({sn} -> {st:?})",
                        n.idx(),
                        t.idx()
                    ));
                }
            }
        }
        errs
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;
    use crate::graph::{Csr, DirectedGraph};

    /// Slow oracle: SCC partition by mutual reachability.
    fn oracle(g: &Csr) -> Vec<Vec<bool>> {
        let n = g.num_nodes();
        let mut reach = vec![vec![false; n]; n];
        for s in 0..n {
            let mut stack = vec![s as u32];
            reach[s][s] = true;
            while let Some(x) = stack.pop() {
                for &y in g.successors(x) {
                    if !reach[s][y as usize] {
                        reach[s][y as usize] = true;
                        stack.push(y);
                    }
                }
            }
        }
        reach
    }

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn matches_reachability_oracle_on_random_graphs() {
        let mut seed = 7u64;
        let mut t = Tarjan::new();
        for _ in 0..300 {
            let n = (lcg(&mut seed) % 12 + 1) as usize;
            let m = (lcg(&mut seed) % (3 * n as u64 + 1)) as usize;
            let edges: Vec<(u32, u32)> = (0..m)
                .map(|_| {
                    (
                        (lcg(&mut seed) % n as u64) as u32,
                        (lcg(&mut seed) % n as u64) as u32,
                    )
                })
                .collect();
            let g = Csr::from_edges(n, &edges).unwrap();
            t.compute(&g);
            assert!(t.verify(&g).is_empty(), "{:?}", t.verify(&g));
            let r = oracle(&g);
            for a in 0..n {
                for b in 0..n {
                    let same = t.comp_of(a as u32) == t.comp_of(b as u32);
                    assert_eq!(same, r[a][b] && r[b][a], "nodes {a} {b} in {edges:?}");
                }
            }
        }
    }

    #[test]
    fn any_order_has_the_same_partition_in_a_valid_post_order() {
        let mut seed = 11u64;
        let (mut a, mut b) = (Tarjan::new(), Tarjan::new());
        for round in 0..200u32 {
            let n = (lcg(&mut seed) % 40 + 1) as usize;
            let m = (lcg(&mut seed) % (3 * n as u64 + 1)) as usize;
            // Half the graphs lean forward (callers first), half backward.
            let edges: Vec<(u32, u32)> = (0..m)
                .map(|_| {
                    let x = (lcg(&mut seed) % n as u64) as u32;
                    let y = (lcg(&mut seed) % n as u64) as u32;
                    let lean = !lcg(&mut seed).is_multiple_of(8);
                    if lean && (x < y) == round.is_multiple_of(2) {
                        (y, x)
                    } else {
                        (x, y)
                    }
                })
                .collect();
            let g = Csr::from_edges(n, &edges).unwrap();
            a.compute(&g);
            b.compute_any_order(&g);
            assert!(b.verify(&g).is_empty(), "{:?}", b.verify(&g));
            assert_eq!(a.num_sccs(), b.num_sccs());
            for x in 0..n {
                for y in 0..n {
                    let same_a = a.comp_of(x as u32) == a.comp_of(y as u32);
                    let same_b = b.comp_of(x as u32) == b.comp_of(y as u32);
                    assert_eq!(same_a, same_b, "nodes {x} {y} in {edges:?}");
                }
            }
        }
    }

    #[test]
    fn deep_chain_does_not_overflow() {
        let n = 200_000u32;
        let edges: Vec<(u32, u32)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        let g = Csr::from_edges(n as usize, &edges).unwrap();
        let mut t = Tarjan::new();
        t.compute(&g);
        assert_eq!(t.num_sccs(), 1);
        assert_eq!(t.scc(CompIdx(0))[0], 0, "root first");
    }

    /// The oracles' component pop: every pending node at or above `root`'s DFS number,
    /// marked done (-1).
    fn pop_component(pending: &mut Vec<u32>, dfs: &mut [i32], root: u32) -> Vec<u32> {
        let root_dfs = dfs[root as usize];
        let mut comp = Vec::new();
        while let Some(&top) = pending.last() {
            if dfs[top as usize] < root_dfs {
                break;
            }
            pending.pop();
            dfs[top as usize] = -1;
            comp.push(top);
        }
        comp
    }

    /// LLVM's `buildGenericSCCs`, transcribed literally (`dfs`/`low` tables, 0 =
    /// unvisited, -1 = finished; a node outside `scope` counts as finished; `follow`
    /// filters edges): the order oracle for [`Tarjan::run`].
    fn llvm_generic_sccs(
        g: &Csr,
        roots: &[u32],
        scope: &[bool],
        follow: impl Fn(u32, u32) -> bool,
    ) -> Vec<Vec<u32>> {
        let n = g.num_nodes();
        let mut dfs: Vec<i32> = (0..n).map(|i| if scope[i] { 0 } else { -1 }).collect();
        let mut low = dfs.clone();
        let mut out = Vec::new();
        let mut dfs_stack: Vec<(u32, usize)> = Vec::new();
        let mut pending: Vec<u32> = Vec::new();
        for &root in roots {
            if dfs[root as usize] != 0 {
                continue;
            }
            dfs[root as usize] = 1;
            low[root as usize] = 1;
            let mut next = 2;
            dfs_stack.push((root, 0));
            while let Some((mut v, mut i)) = dfs_stack.pop() {
                while let Some(&c) = g.successors(v).get(i) {
                    if !follow(v, c) {
                        i += 1;
                        continue;
                    }
                    let cu = c as usize;
                    if dfs[cu] == 0 {
                        dfs_stack.push((v, i));
                        dfs[cu] = next;
                        low[cu] = next;
                        next += 1;
                        v = c;
                        i = 0;
                        continue;
                    }
                    if dfs[cu] != -1 && low[cu] < low[v as usize] {
                        low[v as usize] = low[cu];
                    }
                    i += 1;
                }
                pending.push(v);
                if low[v as usize] == dfs[v as usize] {
                    out.push(pop_component(&mut pending, &mut dfs, v));
                }
            }
        }
        out
    }

    /// A random graph with a random scope, a random root order and a random edge
    /// filter (about one edge in four is a "ref" edge the filtered walk skips).
    fn random_case(seed: &mut u64) -> (Csr, Vec<u32>, Vec<bool>, Vec<bool>) {
        let n = (lcg(seed) % 16 + 1) as usize;
        let m = (lcg(seed) % (3 * n as u64 + 1)) as usize;
        let edges: Vec<(u32, u32)> = (0..m)
            .map(|_| ((lcg(seed) % n as u64) as u32, (lcg(seed) % n as u64) as u32))
            .collect();
        let g = Csr::from_edges(n, &edges).unwrap();
        let calls: Vec<bool> = (0..g.num_edges())
            .map(|_| !lcg(seed).is_multiple_of(4))
            .collect();
        let scope: Vec<bool> = (0..n).map(|_| !lcg(seed).is_multiple_of(5)).collect();
        let mut roots: Vec<u32> = (0..n as u32).filter(|&v| scope[v as usize]).collect();
        for i in (1..roots.len()).rev() {
            roots.swap(i, (lcg(seed) % (i as u64 + 1)) as usize);
        }
        (g, roots, scope, calls)
    }

    /// The CSR with a kind per edge (`calls[position]`), filtered like the call graph's
    /// call-SCC pass; its edges are edge positions.
    struct Filtered<'a> {
        g: &'a Csr,
        calls: &'a [bool],
        positions: Vec<u32>,
    }
    impl SccGraph for Filtered<'_> {
        type Node = u32;
        type Edge = u32;
        fn edges(&self, n: u32) -> &[u32] {
            let (s, e) = (self.g.starts[n as usize], self.g.starts[n as usize + 1]);
            &self.positions[s as usize..e as usize]
        }
        fn target(&self, e: u32) -> Option<u32> {
            self.calls[e as usize].then(|| self.g.targets[e as usize])
        }
    }

    #[test]
    fn runs_match_llvm_order_with_scope_and_filter() {
        let mut seed = 0x5eed_u64;
        let mut t = Tarjan::new();
        for _ in 0..2000 {
            let (g, roots, scope, calls) = random_case(&mut seed);
            let n = g.num_nodes();
            // all edges
            let want = llvm_generic_sccs(&g, &roots, &scope, |_, _| true);
            t.close_all(n);
            t.open((0..n as u32).filter(|&v| scope[v as usize]));
            t.run(&mut Plain(&g), roots.iter().copied());
            assert_eq!(
                t.sccs().map(|c| c.to_vec()).collect::<Vec<_>>(),
                want,
                "{g:?} {roots:?}"
            );
            // call edges only (edge positions as edges)
            let mut f = Filtered {
                g: &g,
                calls: &calls,
                positions: (0..g.num_edges() as u32).collect(),
            };
            let want = llvm_generic_sccs(&g, &roots, &scope, |v, c| {
                let s = g.starts[v as usize] as usize;
                let k = g.successors(v).iter().position(|&x| x == c).unwrap();
                calls[s + k]
            });
            // (the oracle's filter looks up the first edge to c; keep graphs where that
            // is the edge being walked, i.e. no parallel edges with different kinds)
            let parallel = (0..n as u32).any(|v| {
                let s = g.starts[v as usize] as usize;
                let ts = g.successors(v);
                (0..ts.len())
                    .any(|i| (0..i).any(|j| ts[i] == ts[j] && calls[s + i] != calls[s + j]))
            });
            if parallel {
                continue;
            }
            t.close_all(n);
            t.open((0..n as u32).filter(|&v| scope[v as usize]));
            t.run(&mut f, roots.iter().copied());
            assert_eq!(t.sccs().map(|c| c.to_vec()).collect::<Vec<_>>(), want);
        }
    }

    /// LLVM's `switchInternalEdgeToRef` walk, transcribed literally: `sink` is finished
    /// and in the old SCC; reaching any node of the old SCC pulls the DFS and pending
    /// stacks into it. Returns (new components in order, the old SCC's nodes).
    fn llvm_split(g: &Csr, roots: &[u32], scope: &[bool], sink: u32) -> (Vec<Vec<u32>>, Vec<u32>) {
        let n = g.num_nodes();
        let mut dfs: Vec<i32> = (0..n).map(|i| if scope[i] { 0 } else { -1 }).collect();
        let mut low = dfs.clone();
        let mut old = vec![false; n];
        dfs[sink as usize] = -1;
        old[sink as usize] = true;
        let mut old_nodes = vec![sink];
        let mut out = Vec::new();
        let mut dfs_stack: Vec<(u32, usize)> = Vec::new();
        let mut pending: Vec<u32> = Vec::new();
        for &root in roots {
            if dfs[root as usize] != 0 {
                continue;
            }
            dfs[root as usize] = 1;
            low[root as usize] = 1;
            let mut next = 2;
            dfs_stack.push((root, 0));
            'walk: while let Some((mut v, mut i)) = dfs_stack.pop() {
                while let Some(&c) = g.successors(v).get(i) {
                    let cu = c as usize;
                    if dfs[cu] == 0 {
                        dfs_stack.push((v, i));
                        dfs[cu] = next;
                        low[cu] = next;
                        next += 1;
                        v = c;
                        i = 0;
                        continue;
                    }
                    if dfs[cu] == -1 {
                        if old[cu] {
                            let mut add = vec![v];
                            add.append(&mut pending);
                            add.extend(dfs_stack.drain(..).rev().map(|(x, _)| x));
                            for &x in &add {
                                dfs[x as usize] = -1;
                                old[x as usize] = true;
                            }
                            old_nodes.extend(add);
                            break 'walk;
                        }
                        i += 1;
                        continue;
                    }
                    if low[cu] < low[v as usize] {
                        low[v as usize] = low[cu];
                    }
                    i += 1;
                }
                pending.push(v);
                if low[v as usize] == dfs[v as usize] {
                    out.push(pop_component(&mut pending, &mut dfs, v));
                }
            }
        }
        (out, old_nodes)
    }

    #[test]
    fn sink_runs_match_llvm_split() {
        let mut seed = 0xab5_u64;
        let mut t = Tarjan::new();
        let mut absorbed = 0;
        for _ in 0..3000 {
            let (g, roots, mut scope, _) = random_case(&mut seed);
            let n = g.num_nodes();
            let sink = (lcg(&mut seed) % n as u64) as u32;
            scope[sink as usize] = false;
            let roots: Vec<u32> = roots.into_iter().filter(|&r| r != sink).collect();
            let (want, want_old) = llvm_split(&g, &roots, &scope, sink);
            t.close_all(n);
            t.open((0..n as u32).filter(|&v| scope[v as usize]));
            t.run_with_sink(&mut Plain(&g), roots.iter().copied(), sink);
            assert_eq!(t.sccs().map(|c| c.to_vec()).collect::<Vec<_>>(), want);
            let mut old = vec![sink];
            old.extend_from_slice(t.absorbed());
            assert_eq!(old, want_old);
            absorbed += t.absorbed().len();
        }
        assert!(absorbed > 1000, "{absorbed}");
    }
}
