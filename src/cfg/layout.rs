//! Block layout: ptxas' PlaceBlocksInSourceOrder (phase 112) and hot/cold placement
//! (phases 108/109, OptimizeHotColdInLoop / OptimizeHotColdFlow).
//!
//! A layout is a permutation of block indices with the entry first. A block that falls
//! through (`Fallthrough`, or the not-taken side of a guarded branch / return) wants its
//! fall-through successor right after it; [`fallthrough_breaks`] counts the places where
//! a layout needs an extra `bra`. All functions are O(N + E) (plus a sort).

use super::{Cfg, CfgInfo, Term};
use crate::graph::Successors;
use crate::idx::{BlockIdx, IndexVec};

/// The fall-through successor of `b`, if its terminator has one: the only successor of a
/// `Fallthrough` block, the last successor of a guarded branch / ret / exit / trap
/// (`None` for a `b` that is not a block).
pub fn fallthrough_succ(cfg: &Cfg, b: BlockIdx) -> Option<BlockIdx> {
    let ss = cfg.successors(b);
    match *cfg.term.get(b)? {
        Term::Fallthrough
        | Term::CondBra
        | Term::CondBrx
        | Term::CondRet
        | Term::CondExit
        | Term::CondTrap => ss.last().copied(),
        _ => None,
    }
}

/// PlaceBlocksInSourceOrder: blocks sorted by the source position of their first
/// instruction (instruction ids are in source order); an empty block keeps its place
/// right after the block before it in the current layout.
pub fn place_blocks_in_source_order(cfg: &Cfg) -> Vec<BlockIdx> {
    let mut key: IndexVec<BlockIdx, (u32, u32)> = IndexVec::from_elem_n((0, 0), cfg.num_blocks());
    let mut prev = 0u32;
    for (pos, &b) in cfg.layout.iter().enumerate() {
        let k = cfg.insns(b).iter().map(|i| i.0).min().unwrap_or(prev);
        prev = k;
        key[b] = (k, pos as u32);
    }
    let mut order = cfg.layout.clone();
    order.sort_by_key(|&b| (b != cfg.entry(), key[b]));
    order
}

/// A default cold predicate: blocks ending in `trap` / `unreachable`, and blocks all of
/// whose successors are cold (error paths), computed backwards over the RPO.
pub fn default_cold(cfg: &Cfg, info: &CfgInfo) -> IndexVec<BlockIdx, bool> {
    let mut cold: IndexVec<BlockIdx, bool> = cfg
        .term
        .iter()
        .map(|t| matches!(t, Term::Trap | Term::Unreachable))
        .collect();
    for &b in info.rpo.rpo_array.iter().rev() {
        let ss = cfg.successors(b);
        if !ss.is_empty() && ss.iter().all(|&s| cold[s] && s != b) {
            cold[b] = true;
        }
    }
    if cfg.num_blocks() > 0 {
        cold[cfg.entry()] = false;
    }
    cold
}

/// Hot/cold layout: hot blocks first, chained so that each block's fall-through
/// successor follows it when that successor is hot and not yet placed (otherwise the next
/// unplaced hot block in source order); cold blocks go to the end in source order. Loop
/// bodies are kept hot: a block inside a loop is never treated as cold, so every loop
/// stays contiguous with its fall-through chains. Unreachable blocks count as cold.
pub fn hot_cold_layout(
    cfg: &Cfg,
    info: &CfgInfo,
    is_cold: &dyn Fn(BlockIdx) -> bool,
) -> Vec<BlockIdx> {
    let n = cfg.num_blocks();
    let src = place_blocks_in_source_order(cfg);
    let cold: IndexVec<BlockIdx, bool> = cfg
        .blocks()
        .map(|b| {
            b != cfg.entry()
                && (!info.rpo.is_reachable(b) || (is_cold(b) && info.loops.innermost(b).is_none()))
        })
        .collect();
    let mut placed: IndexVec<BlockIdx, bool> = IndexVec::from_elem_n(false, n);
    let mut order = Vec::with_capacity(n);
    for &start in &src {
        if placed[start] || cold[start] {
            continue;
        }
        let mut b = start;
        loop {
            placed[b] = true;
            order.push(b);
            match fallthrough_succ(cfg, b) {
                Some(s) if !placed[s] && !cold[s] => b = s,
                _ => break,
            }
        }
    }
    order.extend(src.iter().copied().filter(|&b| cold[b]));
    order
}

/// Number of blocks whose fall-through successor is not placed right after them.
pub fn fallthrough_breaks(cfg: &Cfg, order: &[BlockIdx]) -> usize {
    let mut next: IndexVec<BlockIdx, BlockIdx> =
        IndexVec::from_elem_n(BlockIdx::NONE, cfg.num_blocks());
    for w in order.windows(2) {
        next[w[0]] = w[1];
    }
    cfg.blocks()
        .filter(|&b| fallthrough_succ(cfg, b).is_some_and(|s| next[b] != s))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::InsnIdx;

    #[test]
    fn cold_blocks_go_last_loops_stay_hot() {
        // 0 -@-> 3 / fall 1; 1 -> 2 (loop 1<->2); 2 -@-> 1 / fall 4; 3: trap; 4: ret
        let bs = |v: &[u32]| v.iter().map(|&b| BlockIdx::from_raw(b)).collect::<Vec<_>>();
        let succ: Vec<Vec<BlockIdx>> = [&[3, 1][..], &[2], &[1, 4], &[], &[]]
            .iter()
            .map(|l| bs(l))
            .collect();
        let terms = vec![
            Term::CondBra,
            Term::Fallthrough,
            Term::CondBra,
            Term::Trap,
            Term::Ret,
        ];
        let insns = (0..5u32).map(|b| vec![InsnIdx(b)]).collect();
        let mut cfg = Cfg::from_parts(
            "h".into(),
            vec![String::new(); 5],
            vec![0; 5],
            terms,
            insns,
            &succ,
        )
        .unwrap();
        let info = cfg.analyze();
        let cold = default_cold(&cfg, &info);
        assert_eq!(cold.raw(), [false, false, false, true, false]);
        let order = hot_cold_layout(&cfg, &info, &|b| cold[b] || b == BlockIdx::new(2));
        assert_eq!(order, bs(&[0, 1, 2, 4, 3]));
        assert_eq!(fallthrough_breaks(&cfg, &order), 0);
        cfg.layout = bs(&[0, 3, 2, 1, 4]);
        assert_eq!(place_blocks_in_source_order(&cfg), bs(&[0, 1, 2, 3, 4]));
        assert_eq!(fallthrough_breaks(&cfg, &cfg.layout), 3);
    }
}
