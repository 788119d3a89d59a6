//! Shared by integration tests: compare a CFG with a corpus-format answer; list the
//! clang JSON ASTs of the corpus and fixtures; run the `ilkit` binary; a small
//! deterministic generator for random inputs.
#![allow(dead_code)]

use ilkit::cfg::loops::LoopIdx;
use ilkit::cfg::{BlockIdx, Cfg, CfgInfo};
use ilkit::graph::Successors;
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
    let mine: Vec<String> = cfg
        .blocks()
        .map(|b| {
            if cfg.block_name(b).is_empty() {
                unnamed(b.raw())
            } else {
                cfg.block_name(b).to_string()
            }
        })
        .collect();
    if mine != blocks {
        errs.push(format!("{name}: blocks {mine:?} != {blocks:?}"));
        return errs;
    }
    for (b, s) in f["succ"].as_array().unwrap().iter().enumerate() {
        let want: Vec<BlockIdx> = s
            .as_array()
            .unwrap()
            .iter()
            .map(|x| BlockIdx::from_raw(x.as_u64().unwrap() as u32))
            .collect();
        if cfg.successors(BlockIdx::new(b)) != want.as_slice() {
            errs.push(format!(
                "{name}: succ[{b}] {:?} != {want:?}",
                cfg.successors(BlockIdx::new(b))
            ));
        }
    }
    for (b, d) in f["idom"].as_array().unwrap().iter().enumerate() {
        let want = match d.as_i64() {
            None => None,
            Some(-1) => None,
            Some(x) => Some(BlockIdx::from_raw(x as u32)),
        };
        let b = BlockIdx::new(b);
        if info.idom(b) != want {
            errs.push(format!(
                "{name}: idom[{}] {:?} != {want:?}",
                b.raw(),
                info.idom(b)
            ));
        }
        if d.is_null() == info.rpo().is_reachable(b) {
            errs.push(format!("{name}: reachability of block {} differs", b.raw()));
        }
    }
    // loops keyed by header
    let lf = info.loops();
    let mut mine_l = BTreeMap::new();
    for l in lf.loops() {
        let mut bs: Vec<u32> = lf.loop_blocks(l).iter().map(|b| b.raw()).collect();
        bs.sort();
        let ph = match lf.parent_of(l) {
            None => -1,
            Some(p) => lf.header_of(p).unwrap().raw() as i64,
        };
        mine_l.insert(
            lf.header_of(l).unwrap().raw() as i64,
            (lf.depth_of(l).unwrap() as i64, ph, bs),
        );
    }
    let loops = f["loops"].as_array().unwrap();
    // latches per header
    for lp in loops {
        let h = BlockIdx::from_raw(lp["header"].as_u64().unwrap() as u32);
        let mut want: Vec<BlockIdx> = lp["latches"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| BlockIdx::from_raw(x.as_u64().unwrap() as u32))
                    .collect()
            })
            .unwrap_or_default();
        want.sort();
        if let Some(l) = lf
            .loops()
            .find(|&l: &LoopIdx| lf.header_of(l).unwrap() == h)
        {
            let mine = lf.latches_of(l).to_vec();
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
    let has_irr = !lf.irreducible_edges().is_empty();
    if irr != has_irr {
        errs.push(format!(
            "{name}: irreducible {} != {irr}",
            !lf.irreducible_edges().is_empty()
        ));
    }
    // RPO and DFS backedges: ilkit runs the same DFS as the answers, so both must match.
    if let Some(rpo) = f["rpo"].as_array() {
        let want: Vec<BlockIdx> = rpo
            .iter()
            .map(|x| BlockIdx::from_raw(x.as_u64().unwrap() as u32))
            .collect();
        if want == info.rpo().order() {
            SAME_RPO.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if let Some(be) = f["dfs_back_edges"].as_array() {
                let mut want: Vec<(BlockIdx, BlockIdx)> = be
                    .iter()
                    .map(|e| {
                        (
                            BlockIdx::from_raw(e[0].as_u64().unwrap() as u32),
                            BlockIdx::from_raw(e[1].as_u64().unwrap() as u32),
                        )
                    })
                    .collect();
                want.sort();
                let mut mine = info.backedges().to_vec();
                mine.sort();
                if mine != want {
                    errs.push(format!("{name}: dfs backedges {mine:?} != {want:?}"));
                }
            }
        } else {
            // Same DFS (successors in stored order) as LLVM's ReversePostOrderTraversal
            // and the PTX oracle, so the orders must be identical.
            DIFF_RPO.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            errs.push(format!("{name}: rpo {:?} != {want:?}", info.rpo().order()));
        }
    }
    errs.extend(info.verify(cfg));
    errs.extend(cfg.verify());
    errs
}

/// Every clang JSON AST of the corpus and the fixtures (`*.json.gz`), sorted.
pub fn clang_asts() -> Vec<std::path::PathBuf> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    for dir in ["tests/corpus/cuda/json", "tests/fixtures/clang"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.to_string_lossy().ends_with(".json.gz") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// Runs the `ilkit` binary with `args`, `stdin` as its standard input (empty when
/// `None`); its finished output.
pub fn run_ilkit(args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut c = Command::new(env!("CARGO_BIN_EXE_ilkit"));
    c.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    if let Some(data) = stdin {
        child.stdin.take().unwrap().write_all(data).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// A small deterministic generator (xorshift) for random inputs.
pub struct Rng(pub u64);

impl Rng {
    /// The next number in `0..n`.
    pub fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
