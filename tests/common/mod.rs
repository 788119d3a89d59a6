//! Shared by the CFG integration tests: compare a CFG with a corpus-format answer.
#![allow(dead_code)]

use ilkit::cfg::{Cfg, CfgInfo};
use ilkit::graph::{Successors, NONE};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicUsize;

/// Functions whose answer RPO equals ours.
pub static SAME_RPO: AtomicUsize = AtomicUsize::new(0);
/// Functions whose answer RPO differs from ours (another valid DFS order).
pub static DIFF_RPO: AtomicUsize = AtomicUsize::new(0);

/// Compares one function's CFG + analyses with a corpus answer object; returns mismatches.
pub fn compare(
    cfg: &Cfg,
    info: &CfgInfo,
    f: &Value,
    unnamed: &dyn Fn(u32) -> String,
) -> Vec<String> {
    let mut errs = Vec::new();
    let name = f["name"].as_str().unwrap_or("?");
    let blocks: Vec<&str> = f["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    let mine: Vec<String> = (0..cfg.num_blocks() as u32)
        .map(|b| {
            if cfg.block_name[b as usize].is_empty() {
                unnamed(b)
            } else {
                cfg.block_name[b as usize].clone()
            }
        })
        .collect();
    if mine != blocks {
        errs.push(format!("{name}: blocks {mine:?} != {blocks:?}"));
        return errs;
    }
    for (b, s) in f["succ"].as_array().unwrap().iter().enumerate() {
        let want: Vec<u32> = s
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        if cfg.successors(b as u32) != want.as_slice() {
            errs.push(format!(
                "{name}: succ[{b}] {:?} != {want:?}",
                cfg.successors(b as u32)
            ));
        }
    }
    for (b, d) in f["idom"].as_array().unwrap().iter().enumerate() {
        let want = match d.as_i64() {
            None => None,
            Some(-1) => None,
            Some(x) => Some(x as u32),
        };
        if info.idom(b as u32) != want {
            errs.push(format!(
                "{name}: idom[{b}] {:?} != {want:?}",
                info.idom(b as u32)
            ));
        }
        if d.is_null() != (info.rpo.rpo_number[b] == NONE) {
            errs.push(format!("{name}: reachability of block {b} differs"));
        }
    }
    // loops keyed by header
    let lf = &info.loops;
    let mut mine_l = BTreeMap::new();
    for l in 0..lf.len() {
        let mut bs = lf.loop_blocks(l as u32).to_vec();
        bs.sort();
        let p = lf.parent[l];
        let ph = if p == NONE {
            -1
        } else {
            lf.header[p as usize] as i64
        };
        mine_l.insert(lf.header[l] as i64, (lf.depth[l] as i64, ph, bs));
    }
    let loops = f["loops"].as_array().unwrap();
    // latches per header
    for lp in loops {
        let h = lp["header"].as_u64().unwrap() as u32;
        let mut want: Vec<u32> = lp["latches"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_u64().unwrap() as u32).collect())
            .unwrap_or_default();
        want.sort();
        if let Some(l) = (0..lf.len()).find(|&l| lf.header[l] == h) {
            let mine = lf.latches.successors(l as u32).to_vec();
            if mine != want {
                errs.push(format!(
                    "{name}: latches of loop at {h}: {mine:?} != {want:?}"
                ));
            }
        }
    }
    let mut want_l = BTreeMap::new();
    for lp in loops {
        let mut bs: Vec<u32> = lp["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u32)
            .collect();
        bs.sort();
        let p = lp["parent"].as_i64().unwrap();
        let ph = if p < 0 {
            -1
        } else {
            loops[p as usize]["header"].as_i64().unwrap()
        };
        want_l.insert(
            lp["header"].as_i64().unwrap(),
            (lp["depth"].as_i64().unwrap(), ph, bs),
        );
    }
    if mine_l != want_l {
        errs.push(format!("{name}: loops {mine_l:?} != {want_l:?}"));
    }
    let irr = f["irreducible"].as_bool().unwrap_or(false);
    let has_irr = !lf.irreducible_edges.is_empty();
    if irr != has_irr {
        errs.push(format!(
            "{name}: irreducible {} != {irr}",
            !lf.irreducible_edges.is_empty()
        ));
    }
    // RPO and DFS backedges: ilkit runs the same DFS as the answers, so both must match.
    if let Some(rpo) = f["rpo"].as_array() {
        let want: Vec<u32> = rpo.iter().map(|x| x.as_u64().unwrap() as u32).collect();
        if want == info.rpo.rpo_array {
            SAME_RPO.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if let Some(be) = f["dfs_back_edges"].as_array() {
                let mut want: Vec<(u32, u32)> = be
                    .iter()
                    .map(|e| (e[0].as_u64().unwrap() as u32, e[1].as_u64().unwrap() as u32))
                    .collect();
                want.sort();
                let mut mine = info.backedges.clone();
                mine.sort();
                if mine != want {
                    errs.push(format!("{name}: dfs backedges {mine:?} != {want:?}"));
                }
            }
        } else {
            // Same DFS (successors in stored order) as LLVM's ReversePostOrderTraversal
            // and the PTX oracle, so the orders must be identical.
            DIFF_RPO.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            errs.push(format!("{name}: rpo {:?} != {want:?}", info.rpo.rpo_array));
        }
    }
    errs.extend(info.verify(cfg));
    errs.extend(cfg.verify());
    errs
}
