//! Block layout: ptxas' PlaceBlocksInSourceOrder (phase 112) and hot/cold placement
//! (phases 108/109, OptimizeHotColdInLoop / OptimizeHotColdFlow).
//!
//! A layout is a permutation of block indices with the entry first. A block that falls
//! through (`Fallthrough`, or the not-taken side of a guarded branch / return) wants its
//! fall-through successor right after it; [`fallthrough_breaks`] counts the places where
//! a layout needs an extra `bra`. All functions are O(N + E) (plus a sort).

use super::{Cfg, CfgInfo, Term};
use crate::graph::{Successors, NONE};

/// The fall-through successor of `b`, if its terminator has one: the only successor of a
/// `Fallthrough` block, the last successor of a guarded branch / ret / exit / trap.
pub fn fallthrough_succ(cfg: &Cfg, b: u32) -> Option<u32> {
    let ss = cfg.successors(b);
    match cfg.term[b as usize] {
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
pub fn place_blocks_in_source_order(cfg: &Cfg) -> Vec<u32> {
    let mut key = vec![(0u32, 0u32); cfg.num_blocks()];
    let mut prev = 0u32;
    for (pos, &b) in cfg.layout.iter().enumerate() {
        let k = cfg.insns(b).iter().copied().min().unwrap_or(prev);
        prev = k;
        key[b as usize] = (k, pos as u32);
    }
    let mut order = cfg.layout.clone();
    order.sort_by_key(|&b| (b != 0, key[b as usize]));
    order
}

/// A default cold predicate: blocks ending in `trap` / `unreachable`, and blocks all of
/// whose successors are cold (error paths), computed backwards over the RPO.
pub fn default_cold(cfg: &Cfg, info: &CfgInfo) -> Vec<bool> {
    let n = cfg.num_blocks();
    let mut cold: Vec<bool> = (0..n)
        .map(|b| matches!(cfg.term[b], Term::Trap | Term::Unreachable))
        .collect();
    for &b in info.rpo.rpo_array.iter().rev() {
        let ss = cfg.successors(b);
        if !ss.is_empty() && ss.iter().all(|&s| cold[s as usize] && s != b) {
            cold[b as usize] = true;
        }
    }
    if n > 0 {
        cold[0] = false;
    }
    cold
}

/// Hot/cold layout: hot blocks first, chained so that each block's fall-through
/// successor follows it when that successor is hot and not yet placed (otherwise the next
/// unplaced hot block in source order); cold blocks go to the end in source order. Loop
/// bodies are kept hot: a block inside a loop is never treated as cold, so every loop
/// stays contiguous with its fall-through chains. Unreachable blocks count as cold.
pub fn hot_cold_layout(cfg: &Cfg, info: &CfgInfo, is_cold: &dyn Fn(u32) -> bool) -> Vec<u32> {
    let n = cfg.num_blocks();
    let src = place_blocks_in_source_order(cfg);
    let cold: Vec<bool> = (0..n as u32)
        .map(|b| {
            b != 0
                && (info.rpo.rpo_number[b as usize] == NONE
                    || (is_cold(b) && info.loops.loop_of[b as usize] == NONE))
        })
        .collect();
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for &start in &src {
        if placed[start as usize] || cold[start as usize] {
            continue;
        }
        let mut b = start;
        loop {
            placed[b as usize] = true;
            order.push(b);
            match fallthrough_succ(cfg, b) {
                Some(s) if !placed[s as usize] && !cold[s as usize] => b = s,
                _ => break,
            }
        }
    }
    order.extend(src.iter().copied().filter(|&b| cold[b as usize]));
    order
}

/// Number of blocks whose fall-through successor is not placed right after them.
pub fn fallthrough_breaks(cfg: &Cfg, order: &[u32]) -> usize {
    let mut next = vec![NONE; cfg.num_blocks()];
    for w in order.windows(2) {
        next[w[0] as usize] = w[1];
    }
    (0..cfg.num_blocks() as u32)
        .filter(|&b| fallthrough_succ(cfg, b).is_some_and(|s| next[b as usize] != s))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_blocks_go_last_loops_stay_hot() {
        // 0 -@-> 3 / fall 1; 1 -> 2 (loop 1<->2); 2 -@-> 1 / fall 4; 3: trap; 4: ret
        let succ = vec![vec![3, 1], vec![2], vec![1, 4], vec![], vec![]];
        let terms = vec![
            Term::CondBra,
            Term::Fallthrough,
            Term::CondBra,
            Term::Trap,
            Term::Ret,
        ];
        let insns = (0..5u32).map(|b| vec![b]).collect();
        let mut cfg = Cfg::from_parts(
            "h".into(),
            vec![String::new(); 5],
            vec![0; 5],
            terms,
            insns,
            &succ,
        );
        let info = cfg.analyze();
        let cold = default_cold(&cfg, &info);
        assert_eq!(cold, vec![false, false, false, true, false]);
        let order = hot_cold_layout(&cfg, &info, &|b| cold[b as usize] || b == 2);
        assert_eq!(order, vec![0, 1, 2, 4, 3]);
        assert_eq!(fallthrough_breaks(&cfg, &order), 0);
        cfg.layout = vec![0, 3, 2, 1, 4];
        assert_eq!(place_blocks_in_source_order(&cfg), vec![0, 1, 2, 3, 4]);
        assert_eq!(fallthrough_breaks(&cfg, &cfg.layout), 3);
    }
}
