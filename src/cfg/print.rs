//! Printers with the seed's exact text (ptxas `CFG::dumpDOT`, `CFG::printEdges`,
//! `CFG::dumpRPOAndBackedges`) and a JSON Lines record per function.
//!
//! All printers walk blocks in index order and edges in stored order, so output is
//! deterministic. O(N + E) each.

use super::{Cfg, CfgInfo};
use crate::graph::Successors;
use crate::idx::BlockIdx;
use std::fmt::Write;

/// Graphviz DOT, as `sub_BE21D0` prints it (`L%x` is the block's label id in hex).
pub fn dot(cfg: &Cfg, out: &mut String) {
    out.push_str("digraph f {\n");
    out.push_str("node [fontname=\"Courier\",fontsize=10,shape=Mrecord];\n");
    for b in cfg.blocks() {
        let _ = writeln!(out, "\"bix{}\"", b.0);
        let _ = writeln!(out, "[label=\"bix{}(L{:x})\"]", b.0, cfg.label_id[b]);
        for &s in cfg.successors(b) {
            let _ = writeln!(out, "bix{} -> bix{}", b.0, s.0);
        }
    }
    out.push_str("}\n");
}

/// The edge list, one `bix%d -> bix%d` line per edge (`sub_BDE8B0`).
pub fn edges(cfg: &Cfg, out: &mut String) {
    for b in cfg.blocks() {
        for &s in cfg.successors(b) {
            let _ = writeln!(out, "bix{} -> bix{}", b.0, s.0);
        }
    }
}

/// The RPO and backedge dump (`sub_BDEA50`). Unreachable blocks print `RPONum: -1`.
pub fn rpo(cfg: &Cfg, info: &CfgInfo, out: &mut String) {
    out.push_str("Showing RPO state for each basic block:\n");
    for b in cfg.blocks() {
        match info.rpo.number(b) {
            None => {
                let _ = writeln!(out, "bix{} -> RPONum: -1", b.0);
            }
            Some(r) => {
                let _ = writeln!(out, "bix{} -> RPONum: {r}", b.0);
            }
        }
    }
    out.push_str("RPO traversal order: [");
    for (i, b) in info.rpo.rpo_array.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}", b.0);
    }
    out.push_str("]\n");
    out.push_str("Showing backedge info:\n");
    for &(a, b) in &info.backedges {
        let _ = writeln!(out, "bix{} -> backedge's successor BB: {}", a.0, b.0);
    }
}

/// `[0,1,2]`: block numbers.
fn list(out: &mut String, it: impl IntoIterator<Item = BlockIdx>) {
    out.push('[');
    for (i, x) in it.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}", x.0);
    }
    out.push(']');
}

fn pairs(out: &mut String, it: &[(BlockIdx, BlockIdx)]) {
    out.push('[');
    for (i, (a, b)) in it.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "[{},{}]", a.0, b.0);
    }
    out.push(']');
}

/// A number or `null`.
fn opt(out: &mut String, x: Option<u32>) {
    match x {
        None => out.push_str("null"),
        Some(x) => {
            let _ = write!(out, "{x}");
        }
    }
}

/// One JSON object (no trailing newline): `function`, `blocks`, `edges`, `rpo`, `idom`
/// (null for the entry and unreachable blocks), `backedges`, `loops` (`header`, `blocks`,
/// `depth`, `parent`), plus `unreachable`, `irreducible_edges` and `irreducible_cycles`.
pub fn json(cfg: &Cfg, info: &CfgInfo, out: &mut String) {
    out.push_str("{\"function\":");
    out.push_str(&serde_json::Value::from(cfg.name.as_str()).to_string());
    out.push_str(",\"blocks\":[");
    for b in cfg.blocks() {
        if b.0 > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::Value::from(cfg.display_name(b)).to_string());
    }
    out.push_str("],\"edges\":");
    pairs(out, &cfg.edges());
    out.push_str(",\"rpo\":");
    list(out, info.rpo.rpo_array.iter().copied());
    out.push_str(",\"idom\":[");
    for b in cfg.blocks() {
        if b.0 > 0 {
            out.push(',');
        }
        opt(out, info.idom(b).map(|d| d.0));
    }
    out.push_str("],\"backedges\":");
    pairs(out, &info.backedges);
    out.push_str(",\"loops\":[");
    let lf = &info.loops;
    for l in lf.loops() {
        if l.0 > 0 {
            out.push(',');
        }
        let _ = write!(out, "{{\"header\":{},\"blocks\":", lf.header[l].0);
        list(out, lf.loop_blocks(l).iter().copied());
        let _ = write!(out, ",\"depth\":{},\"parent\":", lf.depth[l]);
        opt(out, lf.parent_of(l).map(|p| p.0));
        out.push('}');
    }
    out.push_str("],\"unreachable\":");
    list(out, info.rpo.unreachable());
    out.push_str(",\"irreducible_edges\":");
    pairs(out, &lf.irreducible_edges);
    out.push_str(",\"irreducible_cycles\":[");
    for (i, c) in lf.irreducible_sccs.rows().enumerate() {
        if i > 0 {
            out.push(',');
        }
        list(out, lf.cycle_blocks(c).iter().copied());
    }
    out.push_str("]}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::Term;

    #[test]
    fn seed_dot_and_rpo_text() {
        let cfg = Cfg::from_parts(
            "f".into(),
            vec![String::new(); 4],
            vec![0, 0x10, 0x20, 0x30],
            vec![Term::CondBra, Term::Fallthrough, Term::CondBra, Term::Ret],
            vec![vec![]; 4],
            &[&[1, 3][..], &[2], &[1, 3], &[]].map(|l| l.iter().map(|&b| BlockIdx(b)).collect()),
        );
        let mut s = String::new();
        dot(&cfg, &mut s);
        let want = "digraph f {\nnode [fontname=\"Courier\",fontsize=10,shape=Mrecord];\n\"bix0\"\n[label=\"bix0(L0)\"]\nbix0 -> bix1\nbix0 -> bix3\n\"bix1\"\n[label=\"bix1(L10)\"]\nbix1 -> bix2\n\"bix2\"\n[label=\"bix2(L20)\"]\nbix2 -> bix1\nbix2 -> bix3\n\"bix3\"\n[label=\"bix3(L30)\"]\n}\n";
        assert_eq!(s, want);
        let info = cfg.analyze();
        let mut r = String::new();
        rpo(&cfg, &info, &mut r);
        assert_eq!(r, "Showing RPO state for each basic block:\nbix0 -> RPONum: 0\nbix1 -> RPONum: 1\nbix2 -> RPONum: 2\nbix3 -> RPONum: 3\nRPO traversal order: [0, 1, 2, 3]\nShowing backedge info:\nbix2 -> backedge's successor BB: 1\n");
        let mut j = String::new();
        json(&cfg, &info, &mut j);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["idom"], serde_json::json!([null, 0, 1, 0]));
        assert_eq!(v["loops"][0]["blocks"], serde_json::json!([1, 2]));
    }
}
