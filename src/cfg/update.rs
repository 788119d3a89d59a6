//! CFG mutations (seed 004, "CFG Update Protocol"): split a block, merge two consecutive
//! blocks, redirect an edge, insert a loop preheader, make a multi-entry cycle
//! single-entry with a dispatch block.
//!
//! Each mutation keeps every [`Cfg`] table in sync (per-block columns, `succ`, `pred`,
//! the instruction pool, `layout`) and bumps `epoch`, which makes any [`CfgInfo`]
//! computed before it stale (`is_valid` is false); callers recompute with
//! [`Cfg::analyze`] / [`CfgInfo::compute`] (RPO, idom, loops), as ptxas re-runs
//! AnalyzeControlFlow. New blocks are appended (index `num_blocks()`, as ptxas increments
//! `bb_count`) and placed in `layout` next to the block they came from. Each is O(N + E)
//! because the CSR tables are rebuilt.

use super::{Cfg, CfgInfo, InsnIdx, Term};
use crate::graph::{GraphError, Predecessors, Successors};
use crate::idx::{BlockIdx, IndexVec};

impl Cfg {
    fn push_block(
        &mut self,
        name: String,
        label_id: u32,
        term: Term,
        insns: &[InsnIdx],
    ) -> BlockIdx {
        let b = self.block_name.push(name);
        self.label_id.push(label_id);
        self.term.push(term);
        self.insn_start.push(self.insn_pool.len() as u32);
        self.insn_len.push(insns.len() as u32);
        self.insn_pool.extend_from_slice(insns);
        b
    }

    fn place_after(&mut self, anchor: BlockIdx, b: BlockIdx) {
        let pos = self
            .layout
            .iter()
            .position(|&x| x == anchor)
            .map_or(self.layout.len(), |p| p + 1);
        self.layout.insert(pos, b);
    }

    /// Splits block `b` before its `k`-th instruction (`k <= len`; `k == len` makes an
    /// empty tail). The tail becomes a new block (returned) that takes `b`'s terminator and
    /// successors; `b` falls through to it. `None` (and nothing changes) if `b` is not a
    /// block or `k` exceeds its instruction count.
    pub fn split_block(&mut self, b: BlockIdx, k: u32) -> Option<BlockIdx> {
        if self.insn_len.get(b).is_none_or(|&len| k > len) {
            return None;
        }
        let tail: Vec<InsnIdx> = self.insns(b)[k as usize..].to_vec();
        let old = self.edges();
        let nb = self.push_block(String::new(), self.label_id[b], self.term[b], &tail);
        self.insn_len[b] = k;
        self.term[b] = Term::Fallthrough;
        let mut edges: Vec<(BlockIdx, BlockIdx)> = old
            .into_iter()
            .map(|(s, t)| if s == b { (nb, t) } else { (s, t) })
            .collect();
        edges.push((b, nb));
        self.set_edges_in_range(&edges);
        self.place_after(b, nb);
        Some(nb)
    }

    /// Merges `b` with its successor `c` when `b`'s only successor is `c`, `c`'s only
    /// predecessor is `b`, and `c` is neither the entry nor `b`. `c`'s instructions are
    /// appended to `b` (dropping `b`'s final unconditional `bra`), `b` takes `c`'s
    /// terminator and successors, and `c` is removed: blocks after `c` shift down by one.
    /// Returns false (and changes nothing) when the blocks cannot be merged or
    /// `dont_merge_basicblocks` is set.
    pub fn merge_blocks(&mut self, b: BlockIdx) -> bool {
        if self.dont_merge_basicblocks || b.idx() >= self.num_blocks() {
            return false;
        }
        let ss = self.successors(b);
        if ss.len() != 1 {
            return false;
        }
        let c = ss[0];
        if c == b || c == self.entry() || self.predecessors(c) != [b] {
            return false;
        }
        let mut list = self.insns(b).to_vec();
        if self.term[b] == Term::Bra {
            list.pop();
        }
        list.extend_from_slice(self.insns(c));
        self.insn_start[b] = self.insn_pool.len() as u32;
        self.insn_len[b] = list.len() as u32;
        self.insn_pool.extend_from_slice(&list);
        self.term[b] = self.term[c];
        let fix = |x: BlockIdx| {
            if x > c {
                BlockIdx::from_raw(x.raw() - 1)
            } else {
                x
            }
        };
        let edges: Vec<(BlockIdx, BlockIdx)> = self
            .edges()
            .into_iter()
            .filter(|&(s, _)| s != b)
            .map(|(s, t)| {
                if s == c {
                    (fix(b), fix(t))
                } else {
                    (fix(s), fix(t))
                }
            })
            .collect();
        fn remove<T>(v: &mut IndexVec<BlockIdx, T>, c: BlockIdx) {
            let mut raw = std::mem::take(v).into_raw();
            raw.remove(c.idx());
            *v = IndexVec::from_raw(raw);
        }
        remove(&mut self.block_name, c);
        remove(&mut self.label_id, c);
        remove(&mut self.term, c);
        remove(&mut self.insn_start, c);
        remove(&mut self.insn_len, c);
        self.layout.retain(|&x| x != c);
        for x in &mut self.layout {
            *x = fix(*x);
        }
        self.entry = fix(self.entry);
        // `set_edges` sorts edges by source stably, so `b`'s new list keeps `c`'s order.
        self.set_edges_in_range(&edges);
        true
    }

    /// Replaces the first edge `from -> old_to` with `from -> new_to` (same position in
    /// `from`'s list). Returns false if there is no such edge.
    pub fn redirect_edge(&mut self, from: BlockIdx, old_to: BlockIdx, new_to: BlockIdx) -> bool {
        if new_to.idx() >= self.num_blocks() {
            return false;
        }
        let mut edges = self.edges();
        let Some(e) = edges.iter_mut().find(|e| **e == (from, old_to)) else {
            return false;
        };
        e.1 = new_to;
        self.set_edges_in_range(&edges);
        true
    }

    /// Inserts a preheader for the loop headed by `header` (the seed's LoopMakeSingleEntry
    /// for a loop entered from several blocks): a new block that branches to `header`,
    /// with every entering edge (from a predecessor the header does not dominate)
    /// redirected to it. Returns the new block, or `None` if `header` has no entering
    /// edge (or is not a block).
    ///
    /// # Errors
    /// [`GraphError::StaleAnalyses`] if `info` is not valid for `self` (computed for
    /// another CFG, or before a mutation).
    pub fn insert_preheader(
        &mut self,
        info: &CfgInfo,
        header: BlockIdx,
    ) -> Result<Option<BlockIdx>, GraphError> {
        if !info.is_valid(self) {
            return Err(GraphError::StaleAnalyses);
        }
        let entering: Vec<BlockIdx> = self
            .predecessors(header)
            .iter()
            .copied()
            .filter(|&p| !info.dom.dominates(header, p))
            .collect();
        if entering.is_empty() {
            return Ok(None);
        }
        let old = self.edges();
        let p = self.push_block(String::new(), self.label_id[header], Term::Bra, &[]);
        let mut edges: Vec<(BlockIdx, BlockIdx)> = old
            .into_iter()
            .map(|(s, t)| {
                if t == header && entering.contains(&s) {
                    (s, p)
                } else {
                    (s, t)
                }
            })
            .collect();
        edges.push((p, header));
        self.set_edges_in_range(&edges);
        let pos = self
            .layout
            .iter()
            .position(|&x| x == header)
            .unwrap_or(self.layout.len());
        self.layout.insert(pos, p);
        Ok(Some(p))
    }
}

impl Cfg {
    /// Makes a multi-entry (irreducible) cycle single-entry with a dispatch block: a new
    /// block `d` (terminator `Brx`, one successor per entry) receives every edge that
    /// targeted an entry of `region` — from outside (the entering edges) and from inside
    /// (the edges that closed the cycle) — so `d` dominates the region and becomes the
    /// header of a natural loop. (ptxas' LoopMakeSingleEntry; the selector value a real
    /// dispatch needs is outside the CFG.) Entries are the region's blocks with a
    /// predecessor outside it, in block order. Returns `d`, or `None` when the region has
    /// fewer than two entries or contains the entry block.
    pub fn make_single_entry(&mut self, region: &[BlockIdx]) -> Option<BlockIdx> {
        let n = self.num_blocks();
        let mut inside: IndexVec<BlockIdx, bool> = IndexVec::from_elem_n(false, n);
        for &b in region {
            if b.idx() < n {
                inside[b] = true;
            }
        }
        if inside.get(self.entry()) == Some(&true) {
            return None;
        }
        let entries: Vec<BlockIdx> = self
            .blocks()
            .filter(|&b| inside[b] && self.predecessors(b).iter().any(|&p| !inside[p]))
            .collect();
        if entries.len() < 2 {
            return None;
        }
        let is_entry = |b: BlockIdx| entries.binary_search(&b).is_ok();
        let old = self.edges();
        let d = self.push_block(String::new(), self.label_id[entries[0]], Term::Brx, &[]);
        let mut edges: Vec<(BlockIdx, BlockIdx)> = old
            .into_iter()
            .map(|(s, t)| if is_entry(t) { (s, d) } else { (s, t) })
            .collect();
        edges.extend(entries.iter().map(|&e| (d, e)));
        self.set_edges_in_range(&edges);
        let pos = self
            .layout
            .iter()
            .position(|&x| x == entries[0])
            .unwrap_or(self.layout.len());
        self.layout.insert(pos, d);
        Some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::loops::{CycleIdx, LoopIdx};
    use crate::cfg::Term;

    /// Blocks from plain numbers.
    fn bs(v: &[u32]) -> Vec<BlockIdx> {
        v.iter().map(|&b| BlockIdx::from_raw(b)).collect()
    }
    fn succs(v: &[&[u32]]) -> Vec<Vec<BlockIdx>> {
        v.iter().map(|l| bs(l)).collect()
    }
    const B: fn(u32) -> BlockIdx = BlockIdx::from_raw;

    fn sample() -> Cfg {
        // 0 -> 1; 1 -> 2, 3; 2 -> 1; 3 -> 4; 4 -> (ret); 5 -> 1 (second entry, unreachable)
        let succ = succs(&[&[1], &[2, 3], &[1], &[4], &[], &[1]]);
        let n = succ.len();
        let insns = (0..n as u32)
            .map(|b| vec![InsnIdx(2 * b), InsnIdx(2 * b + 1)])
            .collect();
        let terms = vec![
            Term::Fallthrough,
            Term::CondBra,
            Term::Bra,
            Term::Bra,
            Term::Ret,
            Term::Bra,
        ];
        Cfg::from_parts(
            "s".into(),
            vec![String::new(); n],
            vec![0; n],
            terms,
            insns,
            &succ,
        )
        .unwrap()
    }

    #[test]
    fn single_entry_dispatch_makes_cycle_reducible() {
        // 0 -> 1, 2; 1 <-> 2 (two entries); 2 -> 3
        let succ = succs(&[&[1, 2], &[2], &[1, 3], &[]]);
        let mut cfg = Cfg::from_parts(
            "m".into(),
            vec![String::new(); 4],
            vec![0; 4],
            vec![Term::CondBra, Term::Bra, Term::CondBra, Term::Ret],
            vec![vec![]; 4],
            &succ,
        )
        .unwrap();
        let info = check(&cfg);
        assert_eq!(info.loops.irreducible_count(), 1);
        let region = info.loops.irreducible_sccs.row(CycleIdx::new(0)).to_vec();
        let d = cfg.make_single_entry(&region).unwrap();
        assert_eq!(d, B(4));
        assert_eq!(cfg.successors(d), bs(&[1, 2]));
        assert_eq!(cfg.successors(B(0)), bs(&[4, 4]));
        let info = check(&cfg);
        assert_eq!(info.loops.irreducible_count(), 0);
        assert_eq!(info.loops.header.raw(), [d]);
        assert_eq!(info.loops.loop_blocks(LoopIdx::new(0)), bs(&[4, 2, 1]));
        assert_eq!(cfg.make_single_entry(&bs(&[4, 1, 2])), None);
    }

    fn check(cfg: &Cfg) -> CfgInfo {
        assert!(cfg.verify().is_empty(), "{:?}", cfg.verify());
        let info = cfg.analyze();
        assert!(info.verify(cfg).is_empty(), "{:?}", info.verify(cfg));
        info
    }

    #[test]
    fn split_merge_redirect_preheader() {
        let mut cfg = sample();
        let info = check(&cfg);
        assert_eq!(info.loops.len(), 1);
        let nb = cfg.split_block(B(1), 1).unwrap();
        assert_eq!(nb, B(6));
        assert!(!info.is_valid(&cfg));
        assert_eq!(cfg.successors(B(1)), bs(&[6]));
        assert_eq!(cfg.successors(B(6)), bs(&[2, 3]));
        assert_eq!(cfg.insns(B(6)), &[InsnIdx(3)]);
        assert_eq!(cfg.layout, bs(&[0, 1, 6, 2, 3, 4, 5]));
        let info = check(&cfg);
        assert_eq!(info.loops.loop_blocks(LoopIdx::new(0)), bs(&[1, 6, 2]));
        // merge back: 1 -> 6 only edge, 6's only pred is 1? no: 6 has preds [1] only.
        cfg.dont_merge_basicblocks = true;
        assert!(!cfg.merge_blocks(B(1)));
        cfg.dont_merge_basicblocks = false;
        assert!(cfg.merge_blocks(B(1)));
        assert_eq!(cfg.num_blocks(), 6);
        assert_eq!(cfg.insns(B(1)), &[InsnIdx(2), InsnIdx(3)]);
        assert_eq!(cfg.successors(B(1)), bs(&[2, 3]));
        check(&cfg);
        // 3 -> 4 merges, dropping 3's final bra
        assert!(cfg.merge_blocks(B(3)));
        assert_eq!(cfg.insns(B(3)), &[InsnIdx(6), InsnIdx(8), InsnIdx(9)]);
        assert_eq!(cfg.term[B(3)], Term::Ret);
        assert_eq!(cfg.successors(B(4)), bs(&[1])); // old block 5
        let info = check(&cfg);
        // make the second entry reachable: 0 -> 4 (old 5) instead of 0 -> 1
        assert!(cfg.redirect_edge(B(0), B(1), B(4)));
        assert!(!cfg.redirect_edge(B(0), B(1), B(4)));
        assert!(!info.is_valid(&cfg));
        let info = check(&cfg);
        assert_eq!(info.idom(B(1)), Some(B(4)));
        // preheader for the loop at 1 (entered from 4 only) and then from two blocks
        assert!(cfg.redirect_edge(B(0), B(4), B(1)));
        let mut edges = cfg.edges();
        edges.push((B(4), B(1)));
        edges.push((B(0), B(4)));
        cfg.set_edges(&edges).unwrap();
        let info = check(&cfg);
        let l = info.loops.loop_of[B(1)];
        assert_eq!(info.loops.preheader_of(l), None);
        let p = cfg.insert_preheader(&info, B(1)).unwrap().unwrap();
        let info = check(&cfg);
        assert_eq!(cfg.successors(p), bs(&[1]));
        assert_eq!(info.idom(B(1)), Some(p));
        let l = info.loops.loop_of[B(1)];
        assert_eq!(info.loops.preheader_of(l), Some(p));
    }
}
