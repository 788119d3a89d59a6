//! Per-file CFG statistics for `ilkit scan`: functions, blocks, edges, loops, deepest loop,
//! irreducible cycles. One [`CfgInfo`] is reused across functions. O(total blocks + edges).

#[cfg(test)]
use super::Term;
use super::{Cfg, CfgInfo};
#[cfg(test)]
use crate::idx::BlockIdx;

/// CFG statistics of one file (sums over its functions with a body).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CfgSummary {
    /// Functions with a body.
    pub functions: usize,
    /// Basic blocks.
    pub blocks: usize,
    /// Successor edges.
    pub edges: usize,
    /// Blocks unreachable from their function's entry.
    pub unreachable_blocks: usize,
    /// Natural loops.
    pub loops: usize,
    /// Deepest loop nesting (1 = a loop with no enclosing loop; 0 = no loops).
    pub max_loop_depth: u32,
    /// Irreducible cycles (multi-entry strongly connected regions).
    pub irreducible_cycles: usize,
    /// Functions with at least one irreducible cycle.
    pub irreducible_functions: usize,
    /// Loops by depth: `loop_depths[k]` counts loops of depth `k + 1`, the last slot
    /// everything deeper.
    pub loop_depths: [usize; 8],
}

impl CfgSummary {
    /// Adds another summary (for totals over files).
    pub fn add(&mut self, o: &CfgSummary) {
        self.functions += o.functions;
        self.blocks += o.blocks;
        self.edges += o.edges;
        self.unreachable_blocks += o.unreachable_blocks;
        self.loops += o.loops;
        self.max_loop_depth = self.max_loop_depth.max(o.max_loop_depth);
        self.irreducible_cycles += o.irreducible_cycles;
        self.irreducible_functions += o.irreducible_functions;
        for (a, b) in self.loop_depths.iter_mut().zip(o.loop_depths) {
            *a += b;
        }
    }
}

/// Analyses every CFG and sums the statistics.
pub fn summarize(cfgs: &[Cfg]) -> CfgSummary {
    let mut s = CfgSummary::default();
    let mut info = CfgInfo::default();
    for c in cfgs {
        info.compute(c);
        s.functions += 1;
        s.blocks += c.num_blocks();
        s.edges += c.num_edges();
        s.unreachable_blocks += info.rpo.unreachable().count();
        s.loops += info.loops.len();
        s.max_loop_depth = s.max_loop_depth.max(info.loops.max_depth());
        for &d in info.loops.depth.iter() {
            s.loop_depths[(d.max(1) as usize - 1).min(7)] += 1;
        }
        let irr = info.loops.irreducible_count();
        s.irreducible_cycles += irr;
        s.irreducible_functions += usize::from(irr > 0);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::InsnIdx;

    #[test]
    fn summary_of_a_loop() {
        // b0: header of a self loop, then b1 returns (the shape of `L1: ...; @p bra L1; ret`).
        let cfg = Cfg::from_parts(
            "f".into(),
            vec!["L1".into(), String::new()],
            vec![0, 2],
            vec![Term::CondBra, Term::Ret],
            vec![vec![InsnIdx(0), InsnIdx(1)], vec![InsnIdx(2)]],
            &[vec![BlockIdx::new(0), BlockIdx::new(1)], vec![]],
        )
        .unwrap();
        let s = summarize(std::slice::from_ref(&cfg));
        assert_eq!(
            s,
            CfgSummary {
                functions: 1,
                blocks: 2,
                edges: 2,
                unreachable_blocks: 0,
                loops: 1,
                max_loop_depth: 1,
                irreducible_cycles: 0,
                irreducible_functions: 0,
                loop_depths: [1, 0, 0, 0, 0, 0, 0, 0],
            }
        );
    }
}
