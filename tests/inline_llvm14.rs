//! `--inline-model llvm14`: ilkit's inliner decisions against LLVM 14's.
//!
//! The fixture's oracle (`tests/fixtures/inline_llvm14/small.remarks.txt`) was made once
//! with `opt-14 -passes='cgscc(devirt<4>(inline))' -pass-remarks=inline
//! -pass-remarks-missed=inline -disable-output small.ll`; the first test needs no
//! opt-14. The ignored test compares with a live opt-14 when one is installed.

use ilkit::cgscc::{CgsccModule, InlineModel, NoInstrumentation, Options, PassManager, RemarkKind};
use ilkit::import::llvm_ir::ParseOptions;
use ilkit::llvm::Module;
use std::path::Path;

const PIPELINE: &str = "cgscc(devirt<4>(inline))";

/// ilkit's remarks in LLVM's text (the NoDefinition ones, which opt only writes to a
/// YAML file, left out).
fn ilkit_remarks(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let m = Module::from_ll_str_with(
        &path.display().to_string(),
        &text,
        ParseOptions { instructions: true },
    )
    .unwrap();
    let mut opts = Options::default();
    opts.inline.model = InlineModel::Llvm14;
    opts.inline.inline_budget = None;
    let mut pm = PassManager::from_text(PIPELINE, opts).unwrap();
    let mut cm = CgsccModule::new(&m, "m");
    pm.run(&mut cm, &mut NoInstrumentation).unwrap();
    cm.remarks
        .iter()
        .filter(|r| r.kind != RemarkKind::NoDefinition)
        .map(|r| r.to_string())
        .collect()
}

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inline_llvm14/small.ll")
}

#[test]
fn decisions_match_the_opt14_oracle() {
    let oracle = std::fs::read_to_string(fixture().with_file_name("small.remarks.txt")).unwrap();
    let want: Vec<&str> = oracle
        .lines()
        .filter(|l| l.starts_with("remark: "))
        .collect();
    let got = ilkit_remarks(&fixture());
    // same decisions, costs and thresholds, in LLVM's processing order
    assert_eq!(got, want);
    assert!(
        got.iter().any(|l| l.contains("threshold=45")),
        "a cold call site"
    );
    assert!(
        got.iter().any(|l| l.contains("threshold=0")),
        "a site before unreachable"
    );
    assert!(
        got.iter().any(|l| l.contains("cost=-15")),
        "LastCallToStatic"
    );
    assert!(
        got.iter().any(|l| l.contains("threshold=337")),
        "the single-block bonus"
    );
}

#[test]
#[ignore = "needs opt-14 on PATH"]
fn decisions_match_live_opt14() {
    let out = match std::process::Command::new("opt-14")
        .args([
            &format!("-passes={PIPELINE}"),
            "-pass-remarks=inline",
            "-pass-remarks-missed=inline",
            "-disable-output",
        ])
        .arg(fixture())
        .output()
    {
        Ok(o) if o.status.success() => o,
        _ => {
            eprintln!("skipped: opt-14 is not available");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stderr);
    let want: Vec<&str> = text.lines().filter(|l| l.starts_with("remark: ")).collect();
    assert_eq!(ilkit_remarks(&fixture()), want);
}
