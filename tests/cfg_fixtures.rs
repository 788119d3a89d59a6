//! CFG tests on the small fixtures in `tests/fixtures/ptx/` (no corpus needed).

use ilkit::cfg::loops::CycleIdx;
use ilkit::cfg::BlockIdx;
use ilkit::cfg::{print, Term};
use ilkit::graph::Successors;

/// Plain block numbers, for comparing with literal answers.
fn nums(bs: &[BlockIdx]) -> Vec<u32> {
    bs.iter().map(|b| b.raw()).collect()
}
use ilkit::import::ptx;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

mod common;

fn fixture(name: &str) -> (String, String) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/ptx")
        .join(name);
    (
        p.display().to_string(),
        std::fs::read_to_string(&p).unwrap(),
    )
}

#[test]
fn corpus_derived_fixtures_match_answers() {
    let mut n = 0;
    for name in [
        "gzclose.ptx",
        "crc32_combine.ptx",
        "crc32_combine.llvm19.ptx",
        "hist_add.ptx",
    ] {
        let (path, text) = fixture(name);
        let m = ptx::parse(&path, &text).unwrap_or_else(|e| panic!("{e}"));
        let ans: Value = serde_json::from_str(&fixture(&format!("{name}.cfg.json")).1).unwrap();
        let by_name: BTreeMap<&str, &ptx::Function> =
            m.functions.iter().map(|f| (f.name.as_str(), f)).collect();
        for f in ans["functions"].as_array().unwrap() {
            let fname = f["name"].as_str().unwrap().to_string();
            let cfg = ptx::build_cfg(by_name[fname.as_str()]);
            let info = cfg.analyze();
            let errs = common::compare(&cfg, &info, f, &|b| format!("{fname}@{b}"));
            assert!(errs.is_empty(), "{name}: {errs:?}");
            n += 1;
        }
    }
    assert_eq!(n, 5);
}

#[test]
fn hand_written_control_flow() {
    let (path, text) = fixture("controlflow.ptx");
    let m = ptx::parse(&path, &text).unwrap_or_else(|e| panic!("{e}"));
    let f = m.functions.iter().find(|f| f.name == "k").unwrap();
    assert_eq!(f.kind, ptx::FuncKind::Entry);
    let cfg = ptx::build_cfg(f);
    let names: Vec<String> = cfg.blocks().map(|b| cfg.display_name(b)).collect();
    assert_eq!(
        names,
        ["bix0", "bix1", "bix2", "A", "bix4", "B", "bix6", "bix7", "C", "D", "bix10"]
    );
    use Term::*;
    assert_eq!(
        cfg.blocks()
            .map(|b| cfg.term(b).unwrap())
            .collect::<Vec<_>>(),
        [
            CondBra,
            CondRet,
            Brx,
            CondBra,
            Bra,
            CondBra,
            CondTrap,
            Exit,
            Fallthrough,
            Ret,
            Fallthrough
        ]
    );
    let succ: Vec<Vec<u32>> = (0..11)
        .map(|b| nums(cfg.successors(BlockIdx::from_raw(b))))
        .collect();
    let want: Vec<Vec<u32>> = vec![
        vec![3, 1],
        vec![2],
        vec![3, 5, 8],
        vec![5, 4],
        vec![8],
        vec![3, 6],
        vec![7],
        vec![],
        vec![9],
        vec![],
        vec![],
    ];
    assert_eq!(succ, want);
    assert_eq!(
        cfg.blocks().map(|b| cfg.insns(b).len()).collect::<Vec<_>>(),
        [3, 2, 1, 2, 1, 2, 1, 1, 0, 1, 1]
    );
    let info = cfg.analyze();
    let idom: Vec<Option<u32>> = (0..11)
        .map(|b| info.idom(BlockIdx::from_raw(b)).map(|d| d.raw()))
        .collect();
    assert_eq!(
        idom,
        [
            None,
            Some(0),
            Some(1),
            Some(0),
            Some(3),
            Some(0),
            Some(5),
            Some(6),
            Some(0),
            Some(8),
            None
        ]
    );
    assert_eq!(nums(info.rpo().order()), [0, 1, 2, 3, 4, 8, 9, 5, 6, 7]);
    assert_eq!(info.rpo().number(BlockIdx::new(10)), None);
    assert_eq!(info.backedges(), [(BlockIdx::new(5), BlockIdx::new(3))]);
    assert!(info.loops().is_empty());
    assert_eq!(
        info.loops().irreducible_edges(),
        [(BlockIdx::new(5), BlockIdx::new(3))]
    );
    assert_eq!(info.loops().irreducible_count(), 1);
    assert_eq!(nums(info.loops().cycle_blocks(CycleIdx::new(0))), [3, 5]);
    assert!(info.verify(&cfg).is_empty());
    assert!(cfg.verify().is_empty());
    let mut s = String::new();
    print::rpo(&cfg, &info, &mut s);
    assert!(s.contains("bix10 -> RPONum: -1\nRPO traversal order: [0, 1, 2, 3, 4, 8, 9, 5, 6, 7]\nShowing backedge info:\nbix5 -> backedge's successor BB: 3\n"), "{s}");
}

#[test]
fn garbled_ptx_never_panics() {
    // Every prefix and a set of byte-flipped variants of every fixture: errors are fine,
    // panics are not, and an error always names a position inside the input.
    for name in [
        "gzclose.ptx",
        "crc32_combine.ptx",
        "controlflow.ptx",
        "hist_add.ptx",
    ] {
        let (_, text) = fixture(name);
        let bytes = text.as_bytes();
        for cut in (0..bytes.len()).step_by(7) {
            let t = String::from_utf8_lossy(&bytes[..cut]);
            if let Err(e) = ptx::parse("g.ptx", &t) {
                assert!(
                    e.line >= 1 && e.column >= 1 && e.line as usize <= t.lines().count() + 1,
                    "{e}"
                );
            }
        }
        let mut seed = 0x1234_5678_9abc_def0u64;
        for _ in 0..300 {
            let mut v = bytes.to_vec();
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let i = (seed % v.len() as u64) as usize;
                v[i] = b"{};:@!%.(),[]\"/*\n xL0"[(seed >> 32) as usize % 21];
            }
            let t = String::from_utf8_lossy(&v);
            if let Ok(m) = ptx::parse("g.ptx", &t) {
                for f in m.functions.iter().filter(|f| f.has_body) {
                    let cfg = ptx::build_cfg(f);
                    let info = cfg.analyze();
                    assert!(info.verify(&cfg).is_empty());
                }
            }
        }
    }
}
