//! The back end's control-flow graph (seed 004: ptxas' CFG infrastructure), data-oriented.
//!
//! A [`Cfg`] is one function: blocks are rows of contiguous arrays indexed by block index
//! `bix` (the entry is [`Cfg::entry`]: block 0 for imported CFGs, as in ptxas'
//! `bb_array`; any block after [`Cfg::set_entry`]), each block owns a range of
//! instruction ids, and the successor / predecessor lists are CSR side tables. Analyses
//! live in [`CfgInfo`]: the RPO ([`crate::graph::rpo`]), backedges, immediate dominators
//! ([`crate::graph::dom`]) and natural loops ([`loops`]). ptxas keeps its successor and
//! backedge sets in FNV-1a hash maps; [`edgemap::FnvEdgeMap`] reproduces that map (for
//! compatibility and benchmarking) and can be built from the CSR at any time.
//!
//! Builders: [`Cfg::from_llvm_module`] (functions of an LLVM module), the PTX importer
//! (`Cfg::from_ptx_file`, the seed's block and successor rules), [`Cfg::from_parts`]
//! (every column) and [`Cfg::from_edges`] (a plain edge list and an entry).
//!
//! Beyond [`CfgInfo`], the graph layer's other analyses run on a `Cfg` directly:
//! [`DomFrontiers`] (dominance frontiers, iterated frontiers)
//! and [`PostDomTree`] (LLVM's post-dominator tree with a
//! virtual exit); see [`Cfg::dominance_frontiers`] and [`Cfg::post_dominators`].
//! [`update`] holds the CFG mutations (split, merge, redirect, preheader insertion,
//! single-entry dispatch), [`layout`] the block orders, [`print`](mod@print) the seed's DOT / edge /
//! RPO dumps and JSON Lines, [`summary`] the per-file statistics for `ilkit scan`.
//!
//! Agreement with the corpus in `tests/corpus/` (`tests/corpus.rs`): blocks, successors,
//! instruction counts, RPO, DFS backedges, idom, loops (header, depth, parent, blocks,
//! latches) equal the answers for every function of every corpus PTX file and `.ll` module.
//!
//! # Invariants of a [`Cfg`]
//! - every per-block column has `num_blocks()` rows; `succ` and `pred` are CSR tables with
//!   `num_blocks() + 1` starts;
//! - `pred` is the transpose of `succ` (same multiset of edges, duplicates kept);
//! - `insn_start[b] + insn_len[b] <= insn_pool.len()`;
//! - `layout` is a permutation of `0..num_blocks()`;
//! - `entry() < num_blocks()` unless the CFG has no block.
//!
//! `epoch` changes on every mutation; [`CfgInfo::is_valid`] compares epochs.
//!
//! # No panics
//! A `Cfg`'s columns are crate-private (hosts read them through accessors such as
//! [`Cfg::insns`], [`Cfg::term`], [`Cfg::layout`] and the graph traits, and change them
//! through the mutations), so every `Cfg` a host holds satisfies these invariants
//! ([`Cfg::verify`] checks them). No public function
//! panics on a typed argument: a block, loop or cycle index out of range answers empty /
//! `None` / `false`, a refused mutation returns an error, `None` or `false` and changes
//! nothing, and a [`CfgInfo`] computed for another CFG (or before a mutation) is refused
//! where it matters ([`Cfg::insert_preheader`]) and otherwise gives answers about that
//! other CFG, not a panic (`tests/graph_api_props.rs`).

pub mod edgemap;
mod from_llvm;
pub mod layout;
pub mod loops;
pub mod print;
pub mod summary;
pub mod update;

use crate::graph::dom::{DomTree, Idom};
use crate::graph::rpo::{Rpo, RpoVariant};
use crate::graph::{
    Csr, DirectedGraph, DomFrontiers, GraphError, PostDomTree, Predecessors, Successors, WithStart,
};
pub use crate::idx::BlockIdx;
use crate::idx::IndexVec;
use loops::LoopForest;

/// How a block ends (the seed's successor table, plus LLVM IR terminators).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// No control transfer: falls through to the next block (or nowhere if last).
    Fallthrough,
    /// `bra L`: one successor.
    Bra,
    /// `@p bra L`: taken target, then fall-through.
    CondBra,
    /// `brx.idx`: the branch table's targets.
    Brx,
    /// `@p brx.idx`: the table's targets, then fall-through.
    CondBrx,
    /// `ret`: no successors.
    Ret,
    /// `@p ret`: fall-through only.
    CondRet,
    /// `exit`: no successors.
    Exit,
    /// `@p exit`: fall-through only.
    CondExit,
    /// `trap`: no successors.
    Trap,
    /// `@p trap`: fall-through only.
    CondTrap,
    /// LLVM `br` (conditional or not).
    Br,
    /// LLVM `switch`.
    Switch,
    /// LLVM `indirectbr`.
    IndirectBr,
    /// LLVM `invoke`.
    Invoke,
    /// LLVM `callbr`.
    CallBr,
    /// LLVM `resume`.
    Resume,
    /// LLVM `unreachable`.
    Unreachable,
    /// LLVM `ret`.
    LlvmRet,
    /// Any other terminator.
    Other,
}

impl Term {
    /// The name used in the corpus answers (`@bra`, `bra`, `fallthrough`, `ret`, `br`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Term::Fallthrough => "fallthrough",
            Term::Bra => "bra",
            Term::CondBra => "@bra",
            Term::Brx => "brx",
            Term::CondBrx => "@brx",
            Term::Ret => "ret",
            Term::CondRet => "@ret",
            Term::Exit => "exit",
            Term::CondExit => "@exit",
            Term::Trap => "trap",
            Term::CondTrap => "@trap",
            Term::Br => "br",
            Term::Switch => "switch",
            Term::IndirectBr => "indirectbr",
            Term::Invoke => "invoke",
            Term::CallBr => "callbr",
            Term::Resume => "resume",
            Term::Unreachable => "unreachable",
            Term::LlvmRet => "ret",
            Term::Other => "other",
        }
    }
}

/// One function's control-flow graph.
///
/// Per-block columns (`block_name`, `label_id`, `term`, `insn_start`, `insn_len`) are keyed
/// by [`BlockIdx`]; `succ` / `pred` are CSR keyed by block; `insn_pool` holds instruction
/// ids (indices into the source function's instruction table, plain integers: they are
/// not blocks). The columns are crate-private: read them through the accessors
/// ([`Cfg::name`], [`Cfg::block_name`], [`Cfg::term`], [`Cfg::insns`], [`Cfg::layout`],
/// the [`Successors`] / [`Predecessors`] traits) and change them through the mutations,
/// which keep `pred`, `layout` and `epoch` true.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Function name.
    pub(crate) name: String,
    /// Block names (label, LLVM name); empty = unnamed, printed as `bixN`.
    pub(crate) block_name: IndexVec<BlockIdx, String>,
    /// Label / source-line identifier shown as `L%x` in the DOT dump.
    pub(crate) label_id: IndexVec<BlockIdx, u32>,
    /// How each block ends.
    pub(crate) term: IndexVec<BlockIdx, Term>,
    /// First entry of each block's instruction list in `insn_pool`.
    pub(crate) insn_start: IndexVec<BlockIdx, u32>,
    /// Length of each block's instruction list.
    pub(crate) insn_len: IndexVec<BlockIdx, u32>,
    /// Pooled instruction-id lists.
    pub(crate) insn_pool: Vec<InsnIdx>,
    /// Successors in the seed's order (taken target before fall-through; LLVM order).
    pub(crate) succ: Csr<BlockIdx>,
    /// Predecessors (transpose of `succ`, sources in increasing order).
    pub(crate) pred: Csr<BlockIdx>,
    /// Current block order (layout); starts as source order.
    pub(crate) layout: Vec<BlockIdx>,
    /// ptxas `--dont-merge-basicblocks`: makes [`Cfg::merge_blocks`] a no-op.
    pub(crate) dont_merge_basicblocks: bool,
    /// Bumped on every mutation.
    pub(crate) epoch: u64,
    /// The entry block ([`Cfg::entry`], [`Cfg::set_entry`]).
    entry: BlockIdx,
}

impl Default for Cfg {
    /// A CFG with no blocks.
    fn default() -> Self {
        Cfg::from_parts_in_range(String::new(), vec![], vec![], vec![], vec![], &[])
    }
}

impl DirectedGraph for Cfg {
    type Node = BlockIdx;
    fn num_nodes(&self) -> usize {
        self.term.len()
    }
}
impl Successors for Cfg {
    #[inline]
    fn successors(&self, b: BlockIdx) -> &[BlockIdx] {
        self.succ.row(b)
    }
    #[inline]
    fn prefetch_successors(&self, b: BlockIdx) {
        self.succ.prefetch_successors(b)
    }
}
impl Predecessors for Cfg {
    #[inline]
    fn predecessors(&self, b: BlockIdx) -> &[BlockIdx] {
        self.pred.row(b)
    }
}
impl WithStart for Cfg {
    fn start_node(&self) -> BlockIdx {
        self.entry()
    }
}

crate::define_idx!(
    /// An instruction of one function: its position in the function's instruction
    /// order (PTX statement order; LLVM instruction order, from 0 at the entry block).
    InsnIdx,
    "i"
);

impl Cfg {
    /// [`Cfg::from_parts`] on parts the caller knows agree (importers that number the
    /// blocks themselves).
    pub(crate) fn from_parts_in_range(
        name: String,
        block_name: Vec<String>,
        label_id: Vec<u32>,
        term: Vec<Term>,
        insns: Vec<Vec<InsnIdx>>,
        succs: &[Vec<BlockIdx>],
    ) -> Cfg {
        let what = name.clone();
        Self::from_parts(name, block_name, label_id, term, insns, succs)
            .unwrap_or_else(|e| panic!("cfg {what}: {e}"))
    }

    /// Builds a CFG from per-block data (column `k` is block `k`) and successor lists
    /// (`succs[b]` in edge order); the entry is block 0.
    ///
    /// # Errors
    /// [`GraphError::ColumnLengths`] if the columns disagree in length,
    /// [`GraphError::EdgeOutOfRange`] for a successor out of range.
    pub fn from_parts(
        name: String,
        block_name: Vec<String>,
        label_id: Vec<u32>,
        term: Vec<Term>,
        insns: Vec<Vec<InsnIdx>>,
        succs: &[Vec<BlockIdx>],
    ) -> Result<Cfg, GraphError> {
        let n = term.len();
        for (column, len) in [
            ("block_name", block_name.len()),
            ("label_id", label_id.len()),
            ("insns", insns.len()),
            ("succs", succs.len()),
        ] {
            if len != n {
                return Err(GraphError::ColumnLengths {
                    column,
                    len,
                    num_nodes: n,
                });
            }
        }
        let mut edges = Vec::new();
        for (b, ss) in succs.iter().enumerate() {
            edges.extend(ss.iter().map(|&s| (BlockIdx::new(b), s)));
        }
        let succ = Csr::from_edges(n, &edges)?;
        let pred = succ.transpose();
        let mut insn_start = IndexVec::with_capacity(n);
        let mut insn_len = IndexVec::with_capacity(n);
        let mut insn_pool = Vec::new();
        for l in insns {
            insn_start.push(insn_pool.len() as u32);
            insn_len.push(l.len() as u32);
            insn_pool.extend(l);
        }
        Ok(Cfg {
            name,
            block_name: IndexVec::from_raw(block_name),
            label_id: IndexVec::from_raw(label_id),
            term: IndexVec::from_raw(term),
            insn_start,
            insn_len,
            insn_pool,
            succ,
            pred,
            layout: (0..n).map(BlockIdx::new).collect(),
            dont_merge_basicblocks: false,
            epoch: 0,
            entry: BlockIdx::new(0),
        })
    }

    /// A CFG of `num_blocks` unnamed blocks (label 0, terminator [`Term::Other`], no
    /// instructions) with `edges` (kept in order per source) and entry `entry`: what a
    /// host with a plain graph needs. `entry` is ignored when `num_blocks == 0`.
    ///
    /// ```
    /// use ilkit::cfg::{BlockIdx as B, Cfg};
    /// use ilkit::graph::Idom;
    /// // 2 -> 0 -> 1, entered at block 2
    /// let cfg = Cfg::from_edges(3, &[(B::new(2), B::new(0)), (B::new(0), B::new(1))], B::new(2)).unwrap();
    /// let info = cfg.analyze();
    /// assert_eq!(info.immediate_dominator(B::new(2)), Idom::Root);
    /// assert_eq!(info.immediate_dominator(B::new(1)), Idom::Node(B::new(0)));
    /// ```
    pub fn from_edges(
        num_blocks: usize,
        edges: &[(BlockIdx, BlockIdx)],
        entry: BlockIdx,
    ) -> Result<Cfg, GraphError> {
        let n = num_blocks;
        let mut succs = vec![Vec::new(); n];
        crate::graph::csr::check_edges(n, edges)?;
        for &(a, b) in edges {
            succs[a.idx()].push(b);
        }
        let mut cfg = Self::from_parts(
            String::new(),
            vec![String::new(); n],
            vec![0; n],
            vec![Term::Other; n],
            vec![Vec::new(); n],
            &succs,
        )?;
        if n > 0 {
            cfg.set_entry(entry)?;
        }
        Ok(cfg)
    }

    /// The entry block: block 0 unless [`Cfg::set_entry`] moved it.
    pub fn entry(&self) -> BlockIdx {
        self.entry
    }

    /// Makes `b` the entry block (no renumbering); bumps `epoch`.
    pub fn set_entry(&mut self, b: BlockIdx) -> Result<(), GraphError> {
        if b.idx() >= self.num_blocks() {
            return Err(GraphError::StartOutOfRange {
                start: b.idx(),
                num_nodes: self.num_blocks(),
            });
        }
        self.entry = b;
        self.epoch += 1;
        Ok(())
    }

    /// Dominance frontiers of every block, from `info`'s dominator tree (which must be
    /// valid for this CFG).
    pub fn dominance_frontiers(&self, info: &CfgInfo) -> DomFrontiers<BlockIdx> {
        let mut df = DomFrontiers::new();
        df.compute(self, &info.dom);
        df
    }

    /// The post-dominator tree (LLVM's: a virtual exit above every exit and infinite loop).
    pub fn post_dominators(&self) -> PostDomTree<BlockIdx> {
        let mut t = PostDomTree::new();
        t.compute(self);
        t
    }

    /// Number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.term.len()
    }

    /// Every block, in index order.
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = BlockIdx> + ExactSizeIterator {
        self.term.indices()
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.succ.num_edges()
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Block `b`'s source name (empty when unnamed or out of range).
    pub fn block_name(&self, b: BlockIdx) -> &str {
        self.block_name.get(b).map_or("", String::as_str)
    }

    /// Block `b`'s label / source-line identifier (the seed DOT dump's `L%x`).
    pub fn label_id(&self, b: BlockIdx) -> Option<u32> {
        self.label_id.get(b).copied()
    }

    /// How block `b` ends.
    pub fn term(&self, b: BlockIdx) -> Option<Term> {
        self.term.get(b).copied()
    }

    /// The current block order (source order until a layout pass changes it).
    pub fn layout(&self) -> &[BlockIdx] {
        &self.layout
    }

    /// Whether [`Cfg::merge_blocks`] is a no-op (ptxas `--dont-merge-basicblocks`).
    pub fn dont_merge_basicblocks(&self) -> bool {
        self.dont_merge_basicblocks
    }

    /// Sets ptxas' `--dont-merge-basicblocks` for this CFG.
    pub fn set_dont_merge_basicblocks(&mut self, on: bool) {
        self.dont_merge_basicblocks = on;
    }

    /// The mutation counter: bumped by every change to blocks or edges, so analyses can
    /// tell they are stale ([`CfgInfo::is_valid`]).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Display name: the block's name, or `bixN` when unnamed (also for a `b` that is
    /// not a block: the printers' name for an index).
    pub fn display_name(&self, b: BlockIdx) -> String {
        match self.block_name.get(b) {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("bix{}", b.raw()),
        }
    }

    /// Instruction ids of block `b` (empty for a `b` that is not a block).
    pub fn insns(&self, b: BlockIdx) -> &[InsnIdx] {
        let (Some(&s), Some(&len)) = (self.insn_start.get(b), self.insn_len.get(b)) else {
            return &[];
        };
        let s = s as usize;
        self.insn_pool.get(s..s + len as usize).unwrap_or(&[])
    }

    /// All edges `(source, target)`, source-major, in stored order.
    pub fn edges(&self) -> Vec<(BlockIdx, BlockIdx)> {
        let mut e = Vec::with_capacity(self.num_edges());
        for b in self.blocks() {
            e.extend(self.successors(b).iter().map(|&s| (b, s)));
        }
        e
    }

    /// Replaces all edges (keeps per-block order) and rebuilds `pred`; bumps `epoch`.
    ///
    /// # Errors
    /// [`GraphError::EdgeOutOfRange`] if an endpoint is not a block (nothing changes).
    pub fn set_edges(&mut self, edges: &[(BlockIdx, BlockIdx)]) -> Result<(), GraphError> {
        crate::graph::csr::check_edges(self.num_blocks(), edges)?;
        self.set_edges_in_range(edges);
        Ok(())
    }

    /// [`Cfg::set_edges`] on edges the caller knows are in range.
    pub(crate) fn set_edges_in_range(&mut self, edges: &[(BlockIdx, BlockIdx)]) {
        self.succ = Csr::from_edges_in_range(self.num_blocks(), edges);
        self.pred = self.succ.transpose();
        self.epoch += 1;
    }

    /// The successor map as ptxas keeps it (Code Object +648): an FNV-1a map with one key
    /// per block, empty lists included.
    pub fn edge_map(&self) -> edgemap::FnvEdgeMap {
        edgemap::FnvEdgeMap::from_graph(self)
    }

    /// Computes every analysis into a fresh [`CfgInfo`].
    pub fn analyze(&self) -> CfgInfo {
        let mut info = CfgInfo::default();
        info.compute(self);
        info
    }

    /// Checks the structural invariants (columns, CSR, pred == transpose(succ), the FNV
    /// edge map built from `succ` agreeing with it, layout); never panics.
    pub fn verify(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let n = self.num_blocks();
        let cols = [
            self.block_name.len(),
            self.label_id.len(),
            self.insn_start.len(),
            self.insn_len.len(),
        ];
        if cols.iter().any(|&c| c != n) {
            errs.push(format!(
                "cfg {}: per-block columns {cols:?} for {n} blocks",
                self.name
            ));
            return errs;
        }
        for (what, c) in [("succ", &self.succ), ("pred", &self.pred)] {
            if c.starts.len() != n + 1
                || c.starts.first() != Some(&0)
                || c.starts.last().map(|&x| x as usize) != Some(c.targets.len())
                || c.starts.windows(2).any(|w| w[0] > w[1])
            {
                errs.push(format!(
                    "cfg {}: {what} CSR offsets are malformed",
                    self.name
                ));
                return errs;
            }
            if let Some(&t) = c.targets.iter().find(|&&t| t.idx() >= n) {
                errs.push(format!(
                    "cfg {}: {what} target {} out of range",
                    self.name,
                    t.raw()
                ));
                return errs;
            }
        }
        if self.succ.transpose() != self.pred {
            errs.push(format!(
                "cfg {}: pred is not the transpose of succ",
                self.name
            ));
        }
        let map = edgemap::FnvEdgeMap::from_graph(self);
        for b in self.blocks() {
            if map.get(b) != Some(self.successors(b)) {
                errs.push(format!(
                    "cfg {}: edge map disagrees with succ at bix{}",
                    self.name,
                    b.raw()
                ));
            }
        }
        for b in self.blocks() {
            if (self.insn_start[b] as u64 + self.insn_len[b] as u64) > self.insn_pool.len() as u64 {
                errs.push(format!(
                    "cfg {}: bix{} instruction range out of the pool",
                    self.name,
                    b.raw()
                ));
            }
        }
        if n > 0 && self.entry.idx() >= n {
            errs.push(format!(
                "cfg {}: entry {} is not a block",
                self.name, self.entry
            ));
        }
        let mut seen = vec![false; n];
        if self.layout.len() != n
            || self
                .layout
                .iter()
                .any(|&b| b.idx() >= n || std::mem::replace(&mut seen[b.idx()], true))
        {
            errs.push(format!(
                "cfg {}: layout is not a permutation of the blocks",
                self.name
            ));
        }
        errs
    }
}

/// Which dominator algorithm [`CfgInfo::compute_with`] runs (same result).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DomAlgo {
    /// Semi-NCA on the DFS tree of the ptxas RPO traversal (the default; one DFS for both).
    #[default]
    Auto,
    /// Cooper-Harvey-Kennedy over the RPO (ptxas; cheapest on reducible CFGs).
    Chk,
    /// Semi-NCA (no iteration; wins on irreducible CFGs).
    SemiNca,
}

/// The analyses of one [`Cfg`]: RPO, backedges, dominator tree, loops.
///
/// Valid while `cfg.epoch` equals the epoch it was computed at.
#[derive(Clone, Debug, Default)]
pub struct CfgInfo {
    /// Reverse post-order (ptxas traversal).
    pub(crate) rpo: Rpo<BlockIdx>,
    /// DFS backedges `(src, dst)` with `rpo[dst] <= rpo[src]`, source-major.
    pub(crate) backedges: Vec<(BlockIdx, BlockIdx)>,
    /// Dominator tree ([`DomAlgo::Auto`]: Semi-NCA over the RPO's DFS tree).
    pub(crate) dom: DomTree<BlockIdx>,
    /// Natural loops and irreducible edges.
    pub(crate) loops: LoopForest,
    epoch: u64,
    valid: bool,
}

impl CfgInfo {
    /// The reverse post-order (ptxas traversal).
    pub fn rpo(&self) -> &Rpo<BlockIdx> {
        &self.rpo
    }

    /// DFS backedges `(src, dst)` with `rpo[dst] <= rpo[src]`, source-major.
    pub fn backedges(&self) -> &[(BlockIdx, BlockIdx)] {
        &self.backedges
    }

    /// The dominator tree.
    pub fn dom(&self) -> &DomTree<BlockIdx> {
        &self.dom
    }

    /// The natural loops and irreducible cycles.
    pub fn loops(&self) -> &LoopForest {
        &self.loops
    }

    /// Computes RPO, backedges, dominators ([`DomAlgo::Auto`]) and loops for `cfg`.
    pub fn compute(&mut self, cfg: &Cfg) {
        self.compute_with(cfg, DomAlgo::Auto)
    }

    /// Computes every analysis with the chosen dominator algorithm.
    pub fn compute_with(&mut self, cfg: &Cfg, algo: DomAlgo) {
        self.rpo.compute_with(cfg, RpoVariant::Ptxas);
        self.backedges = self.rpo.backedges(cfg);
        match algo {
            DomAlgo::Auto => self.dom.compute_auto(cfg, &self.rpo),
            DomAlgo::Chk => self.dom.compute_chk(cfg, &self.rpo),
            DomAlgo::SemiNca => self.dom.compute_semi_nca(cfg),
        }
        self.loops.compute(cfg, &self.rpo, &self.dom);
        self.epoch = cfg.epoch;
        self.valid = true;
    }

    /// Forgets every result.
    pub fn clear(&mut self) {
        self.rpo.clear();
        self.backedges.clear();
        self.dom.clear();
        self.loops.clear();
        self.valid = false;
    }

    /// True when computed for the current state of `cfg`.
    pub fn is_valid(&self, cfg: &Cfg) -> bool {
        self.valid && self.epoch == cfg.epoch && self.rpo.is_valid(cfg)
    }

    /// Checks every analysis against `cfg`; never panics.
    pub fn verify(&self, cfg: &Cfg) -> Vec<String> {
        if !self.is_valid(cfg) {
            return vec![format!("cfg {}: analyses are stale or missing", cfg.name)];
        }
        let mut errs = self.rpo.verify(cfg);
        if !errs.is_empty() {
            return errs;
        }
        if self.rpo.backedges(cfg) != self.backedges {
            errs.push(format!(
                "cfg {}: backedge table disagrees with the RPO",
                cfg.name
            ));
        }
        errs.extend(self.dom.verify(cfg));
        if errs.is_empty() {
            errs.extend(self.loops.verify(cfg, &self.dom));
        }
        errs
    }

    /// The backedge set as ptxas keeps it: an FNV-1a map from source block to its
    /// backedge targets (Code Object +680).
    pub fn backedge_map(&self) -> edgemap::FnvEdgeMap {
        edgemap::FnvEdgeMap::from_edges(&self.backedges)
    }

    /// `idom` of block `b` as an option: `None` for the entry *and* for unreachable
    /// blocks (and for any block before `compute`); [`CfgInfo::immediate_dominator`] and
    /// [`CfgInfo::is_reachable`] tell them apart. Never panics.
    pub fn idom(&self, b: BlockIdx) -> Option<BlockIdx> {
        self.dom.idom_of(b)
    }

    /// Where block `b` sits in the dominator tree: [`Idom::Root`] (the entry),
    /// [`Idom::Node`] (its immediate dominator) or [`Idom::Unreachable`] (unreachable from
    /// the entry, not a block, or nothing computed). Never panics.
    pub fn immediate_dominator(&self, b: BlockIdx) -> Idom<BlockIdx> {
        self.dom.idom(b)
    }

    /// Whether block `b` is reachable from the entry (false before `compute`).
    pub fn is_reachable(&self, b: BlockIdx) -> bool {
        self.rpo.is_reachable(b)
    }
}
