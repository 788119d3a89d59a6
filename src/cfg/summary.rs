//! Per-file CFG statistics for `ilkit scan`: functions, blocks, edges, loops, deepest loop,
//! irreducible cycles. One [`CfgInfo`] is reused across functions. O(total blocks + edges).

use super::{cli, Cfg, CfgInfo};

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
        let irr = info.loops.irreducible_count();
        s.irreducible_cycles += irr;
        s.irreducible_functions += usize::from(irr > 0);
    }
    s
}

/// Reads a `.ptx` or `.ll` file (by extension) and summarizes its CFGs. Errors are
/// `file:line:col: message`.
pub fn summarize_text(path: &str, text: &str) -> Result<CfgSummary, String> {
    Ok(summarize(&cli::load_text(path, text)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_small_ptx() {
        let text = ".version 6.0\n.target sm_70\n.address_size 64\n.visible .func f()\n{\nL1:\n\tadd.s32 %r1, %r1, 1;\n\t@%p1 bra L1;\n\tret;\n}\n";
        let s = summarize_text("t.ptx", text).unwrap();
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
                irreducible_functions: 0
            }
        );
        assert!(summarize_text("t.ptx", "bad")
            .unwrap_err()
            .starts_with("t.ptx:1:1:"));
    }
}
