//! Printers: the seed's exact text (ptxas `CFG::dumpDOT`, `CFG::printEdges`,
//! `CFG::dumpRPOAndBackedges`: [`dot`], [`edges`], [`rpo`]), what an LLVM user expects
//! beside them ([`llvm_dot`] in the shape of `opt -dot-cfg`, [`named_edges`] and
//! [`named_rpo`] with a header per function and source block names), and a JSON Lines
//! record per function ([`json`]).
//!
//! All printers walk blocks in index order and edges in stored order, so output is
//! deterministic. O(N + E) each.

use super::{Cfg, CfgInfo, Term};
use crate::graph::Successors;
use crate::idx::BlockIdx;
use std::fmt::Write;

/// Graphviz DOT, as `sub_BE21D0` prints it (`L%x` is the block's label id in hex).
pub fn dot(cfg: &Cfg, out: &mut String) {
    out.push_str("digraph f {\n");
    out.push_str("node [fontname=\"Courier\",fontsize=10,shape=Mrecord];\n");
    for b in cfg.blocks() {
        let _ = writeln!(out, "\"bix{}\"", b.raw());
        let _ = writeln!(out, "[label=\"bix{}(L{:x})\"]", b.raw(), cfg.label_id[b]);
        for &s in cfg.successors(b) {
            let _ = writeln!(out, "bix{} -> bix{}", b.raw(), s.raw());
        }
    }
    out.push_str("}\n");
}

/// The edge list, one `bix%d -> bix%d` line per edge (`sub_BDE8B0`).
pub fn edges(cfg: &Cfg, out: &mut String) {
    for b in cfg.blocks() {
        for &s in cfg.successors(b) {
            let _ = writeln!(out, "bix{} -> bix{}", b.raw(), s.raw());
        }
    }
}

/// The RPO and backedge dump (`sub_BDEA50`). Unreachable blocks print `RPONum: -1`.
pub fn rpo(cfg: &Cfg, info: &CfgInfo, out: &mut String) {
    out.push_str("Showing RPO state for each basic block:\n");
    for b in cfg.blocks() {
        match info.rpo.number(b) {
            None => {
                let _ = writeln!(out, "bix{} -> RPONum: -1", b.raw());
            }
            Some(r) => {
                let _ = writeln!(out, "bix{} -> RPONum: {r}", b.raw());
            }
        }
    }
    out.push_str("RPO traversal order: [");
    for (i, b) in info.rpo.rpo_array.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}", b.raw());
    }
    out.push_str("]\n");
    out.push_str("Showing backedge info:\n");
    for &(a, b) in &info.backedges {
        let _ = writeln!(
            out,
            "bix{} -> backedge's successor BB: {}",
            a.raw(),
            b.raw()
        );
    }
}

/// The labels of a block's outgoing edges as `opt -dot-cfg` prints them: `T`/`F` for a
/// two-way conditional branch (taken first), `def` then the case positions for a
/// switch, nothing for a single successor.
fn edge_labels(cfg: &Cfg, b: BlockIdx) -> Vec<String> {
    let n = cfg.successors(b).len();
    match cfg.term[b] {
        _ if n < 2 => vec![String::new(); n],
        Term::Br | Term::CondBra | Term::CondBrx if n == 2 => vec!["T".into(), "F".into()],
        Term::Switch => (0..n)
            .map(|i| {
                if i == 0 {
                    "def".into()
                } else {
                    format!("{}", i - 1)
                }
            })
            .collect(),
        Term::Invoke => vec!["normal".into(), "unwind".into()],
        _ => (0..n).map(|i| i.to_string()).collect(),
    }
}

/// Escapes text for a DOT record label (`{`, `}`, `|`, `<`, `>`, quotes, backslashes).
fn dot_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '{' | '}' | '|' | '<' | '>' | '"' | '\\') {
            o.push('\\');
        }
        o.push(c);
    }
    o
}

/// Graphviz DOT in the shape of LLVM's `opt -dot-cfg`: one `digraph "CFG for 'f'
/// function"`, a record node per block named after its source label, the block's
/// instructions in the label when `block_text` gives them (one line each), `T`/`F` ports
/// on conditional branches (`def` and case positions on switches), back edges dashed
/// and loop headers drawn bold with their loop depth.
pub fn llvm_dot(
    cfg: &Cfg,
    info: &CfgInfo,
    block_text: Option<&crate::idx::IndexVec<BlockIdx, Vec<String>>>,
    out: &mut String,
) {
    let title = format!("CFG for '{}' function", cfg.name);
    let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(&title));
    let _ = writeln!(out, "\tlabel=\"{}\";", dot_escape(&title));
    out.push_str("\tnode [shape=record,fontname=\"Courier\",fontsize=10];\n\n");
    let mut header_depth: crate::idx::IndexVec<BlockIdx, u32> =
        crate::idx::IndexVec::from_elem_n(0, cfg.num_blocks());
    for l in info.loops.loops() {
        // `info` may describe another CFG: a header that is not a block here is skipped
        let (h, depth) = (info.loops.header[l], info.loops.depth[l]);
        if let Some(d) = header_depth.get_mut(h) {
            *d = (*d).max(depth);
        }
    }
    for b in cfg.blocks() {
        let labels = edge_labels(cfg, b);
        let name = cfg.display_name(b);
        // LLVM prints an unnamed block by its slot number, `%N`.
        let name = if !name.is_empty() && name.bytes().all(|c| c.is_ascii_digit()) {
            format!("%{name}")
        } else {
            name
        };
        let mut label = dot_escape(&name);
        label.push(':');
        if let Some(text) = block_text.and_then(|t| t.get(b)) {
            label.push_str("\\l");
            for line in text {
                label.push_str(&dot_escape(line.trim_end()));
                label.push_str("\\l");
            }
        }
        let ports: Vec<String> = labels
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
            .map(|(i, l)| format!("<s{i}>{l}"))
            .collect();
        let mut attrs = String::new();
        if header_depth[b] > 0 {
            let _ = write!(
                attrs,
                ",style=bold,color=\"#2060c0\",xlabel=\"loop depth {}\"",
                header_depth[b]
            );
        }
        if info.rpo.number(b).is_none() {
            attrs.push_str(",style=dashed,color=\"#909090\"");
        }
        if ports.is_empty() {
            let _ = writeln!(out, "\tNode{} [label=\"{{{label}}}\"{attrs}];", b.raw());
        } else {
            let _ = writeln!(
                out,
                "\tNode{} [label=\"{{{label}|{{{}}}}}\"{attrs}];",
                b.raw(),
                ports.join("|")
            );
        }
    }
    for b in cfg.blocks() {
        let labels = edge_labels(cfg, b);
        for (i, &t) in cfg.successors(b).iter().enumerate() {
            let port = if labels[i].is_empty() {
                String::new()
            } else {
                format!(":s{i}")
            };
            let back = if info.backedges.contains(&(b, t)) {
                " [style=dashed,color=\"#c03030\",label=\"back\"]"
            } else {
                ""
            };
            let _ = writeln!(out, "\tNode{}{port} -> Node{}{back};", b.raw(), t.raw());
        }
    }
    out.push_str("}\n");
}

/// The edges of one function under a header line (`; function f: N blocks, E edges`),
/// one `from -> to` line per edge with source block names.
pub fn named_edges(cfg: &Cfg, out: &mut String) {
    let _ = writeln!(
        out,
        "; function {}: {} blocks, {} edges",
        cfg.name,
        cfg.num_blocks(),
        cfg.num_edges()
    );
    for b in cfg.blocks() {
        for &s in cfg.successors(b) {
            let _ = writeln!(out, "{} -> {}", cfg.display_name(b), cfg.display_name(s));
        }
    }
}

/// The reverse post-order of one function under a header line, one block per line with
/// its RPO number, then the back edges; unreachable blocks are listed as such.
pub fn named_rpo(cfg: &Cfg, info: &CfgInfo, out: &mut String) {
    let _ = writeln!(
        out,
        "; function {}: {} blocks, {} reachable",
        cfg.name,
        cfg.num_blocks(),
        info.rpo.rpo_array.len()
    );
    for (k, &b) in info.rpo.rpo_array.iter().enumerate() {
        let _ = writeln!(out, "{k:>5}  {}", cfg.display_name(b));
    }
    for b in info.rpo.unreachable() {
        let _ = writeln!(out, "    -  {} (unreachable)", cfg.display_name(b));
    }
    for &(a, b) in &info.backedges {
        let _ = writeln!(
            out,
            "back edge {} -> {}",
            cfg.display_name(a),
            cfg.display_name(b)
        );
    }
}

/// `[0,1,2]`: block numbers.
fn list(out: &mut String, it: impl IntoIterator<Item = BlockIdx>) {
    out.push('[');
    for (i, x) in it.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{}", x.raw());
    }
    out.push(']');
}

fn pairs(out: &mut String, it: &[(BlockIdx, BlockIdx)]) {
    out.push('[');
    for (i, (a, b)) in it.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "[{},{}]", a.raw(), b.raw());
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
        if b.raw() > 0 {
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
        if b.raw() > 0 {
            out.push(',');
        }
        opt(out, info.idom(b).map(|d| d.raw()));
    }
    out.push_str("],\"backedges\":");
    pairs(out, &info.backedges);
    out.push_str(",\"loops\":[");
    let lf = &info.loops;
    for l in lf.loops() {
        if l.raw() > 0 {
            out.push(',');
        }
        let _ = write!(out, "{{\"header\":{},\"blocks\":", lf.header[l].raw());
        list(out, lf.loop_blocks(l).iter().copied());
        let _ = write!(out, ",\"depth\":{},\"parent\":", lf.depth[l]);
        opt(out, lf.parent_of(l).map(|p| p.raw()));
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

    #[test]
    fn seed_dot_and_rpo_text() {
        let cfg = Cfg::from_parts(
            "f".into(),
            vec![String::new(); 4],
            vec![0, 0x10, 0x20, 0x30],
            vec![Term::CondBra, Term::Fallthrough, Term::CondBra, Term::Ret],
            vec![vec![]; 4],
            &[&[1, 3][..], &[2], &[1, 3], &[]]
                .map(|l| l.iter().map(|&b| BlockIdx::from_raw(b)).collect()),
        )
        .unwrap();
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
