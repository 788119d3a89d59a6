//! CFG answers against the shared corpus (`../shared/corpus`, or `$ILKIT_CORPUS`).
//! Each test prints a reason and passes when the corpus is absent.

use ilkit::cfg::Cfg;
use ilkit::import::ptx;
use serde_json::Value;

mod common;
use common::compare;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn corpus() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let cands = [
        std::env::var("ILKIT_CORPUS").ok().map(PathBuf::from),
        Some(root.join("../shared/corpus")),
        Some(root.join("../../shared/corpus")),
    ];
    let found = cands
        .into_iter()
        .flatten()
        .find(|p| p.join("llvm").is_dir());
    if found.is_none() {
        eprintln!("skipping: corpus not found (../shared/corpus or $ILKIT_CORPUS)");
    }
    found
}

fn files(dir: &std::path::Path, suffix: &str) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for cb in ["zlib", "zstd"] {
        for sub in [
            dir.join("llvm").join(cb),
            dir.join("llvm").join(cb).join("nvptx"),
        ] {
            if let Ok(rd) = std::fs::read_dir(&sub) {
                for e in rd.flatten() {
                    let p = e.path();
                    if p.to_string_lossy().ends_with(suffix) {
                        v.push(p);
                    }
                }
            }
        }
    }
    v.sort();
    v
}

#[test]
fn ptx_corpus_matches_answers() {
    let Some(dir) = corpus() else { return };
    let mut nfun = 0;
    let mut nblocks = 0;
    let mut bad = Vec::new();
    for p in files(&dir, ".ptx") {
        let ans_path = PathBuf::from(format!("{}.cfg.json", p.display()));
        let Ok(ans) = std::fs::read_to_string(&ans_path) else {
            continue;
        };
        let ans: Value = serde_json::from_str(&ans).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let m = ptx::parse(&p.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"));
        let by_name: BTreeMap<&str, &ptx::Function> = m
            .functions
            .iter()
            .filter(|f| f.has_body)
            .map(|f| (f.name.as_str(), f))
            .collect();
        for f in ans["functions"].as_array().unwrap() {
            let name = f["name"].as_str().unwrap();
            let Some(pf) = by_name.get(name) else {
                bad.push(format!("{}: function {name} missing", p.display()));
                continue;
            };
            let cfg = ptx::build_cfg(pf);
            let info = cfg.analyze();
            nfun += 1;
            nblocks += cfg.num_blocks();
            let fname = name.to_string();
            let mut errs = compare(&cfg, &info, f, &|b| format!("{fname}@{b}"));
            if let Some(ni) = f["ninsts"].as_array() {
                for (b, n) in ni.iter().enumerate() {
                    if b < cfg.num_blocks() && cfg.insn_len.raw()[b] as u64 != n.as_u64().unwrap() {
                        errs.push(format!(
                            "{name}: ninsts[{b}] {} != {n}",
                            cfg.insn_len.raw()[b]
                        ));
                    }
                }
            }
            bad.extend(errs.into_iter().map(|e| format!("{}: {e}", p.display())));
        }
    }
    eprintln!(
        "ptx corpus: {nfun} functions, {nblocks} blocks, {} mismatches; answer RPO equal/different so far: {:?}/{:?}",
        bad.len(),
        common::SAME_RPO,
        common::DIFF_RPO
    );
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    assert!(nfun > 0);
}

fn check_ll(paths: &[PathBuf]) -> (usize, usize, Vec<String>) {
    let (mut nfun, mut nblocks, mut bad) = (0, 0, Vec::new());
    for p in paths {
        let ans_path = PathBuf::from(p.display().to_string().replace(".ll", ".cfg.json"));
        let Ok(ans) = std::fs::read_to_string(&ans_path) else {
            continue;
        };
        let ans: Value = serde_json::from_str(&ans).unwrap();
        let text = std::fs::read_to_string(p).unwrap();
        let m = ilkit::llvm::Module::from_ll_str(&p.display().to_string(), &text)
            .unwrap_or_else(|e| panic!("{e}"));
        let cfgs = Cfg::from_llvm_module(&m);
        let by_name: BTreeMap<&str, &Cfg> = cfgs.iter().map(|c| (c.name.as_str(), c)).collect();
        for f in ans["functions"].as_array().unwrap() {
            let name = f["name"].as_str().unwrap();
            let Some(cfg) = by_name.get(name) else {
                bad.push(format!("{}: function {name} missing", p.display()));
                continue;
            };
            let info = cfg.analyze();
            nfun += 1;
            nblocks += cfg.num_blocks();
            let errs = compare(cfg, &info, f, &|b| format!("?{b}"));
            bad.extend(errs.into_iter().map(|e| format!("{}: {e}", p.display())));
        }
    }
    (nfun, nblocks, bad)
}

#[test]
fn ll_corpus_small_matches_answers() {
    let Some(dir) = corpus() else { return };
    let mut paths = files(&dir, ".nvptx.O2.ll");
    paths.extend(files(&dir, "zlib.O2.ll"));
    paths.extend(files(&dir, "zlib.O2.nonames.ll"));
    paths.extend(files(&dir, "zlib.O0.ll"));
    let (nfun, nblocks, bad) = check_ll(&paths);
    eprintln!(
        "ll corpus (zlib + nvptx): {nfun} functions, {nblocks} blocks, {} mismatches; answer RPO equal/different so far: {:?}/{:?}",
        bad.len(),
        common::SAME_RPO,
        common::DIFF_RPO
    );
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    assert!(nfun > 0);
}

/// zstd.O2.ll (14 MB, the largest module).
#[test]
fn ll_corpus_zstd_matches_answers() {
    let Some(dir) = corpus() else { return };
    let (nfun, nblocks, bad) = check_ll(&files(&dir, "zstd.O2.ll"));
    eprintln!(
        "ll corpus (zstd): {nfun} functions, {nblocks} blocks, {} mismatches; answer RPO equal/different so far: {:?}/{:?}",
        bad.len(),
        common::SAME_RPO,
        common::DIFF_RPO
    );
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
    assert!(nfun > 0);
}
