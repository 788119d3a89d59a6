//! The golden files the Python module's tests compare against are the Rust API's
//! answers, and stay so:
//!
//! - `python/tests/summary.golden.txt`: the lines of `capi/examples/summary.rs` (made by
//!   `cargo run --release -p ilkit-capi --example summary -- REPO_ROOT`);
//! - `python/tests/scan.golden.jsonl`: the records `ilkit::scan` makes for
//!   [`SCAN_INPUTS`] (all analyses), one JSON line each, file names relative to the
//!   repository and without the field that legitimately varies between runs (`seconds`,
//!   the file's wall time).
//!
//! Each test fails when its file differs from what the Rust API answers now. After an
//! intended change, `ILKIT_BLESS=1 cargo test -p ilkit-capi --test summary_golden`
//! rewrites both files.

use std::path::{Path, PathBuf};

use ilkit::scan::{self, FileRecord, ScanOptions};

#[allow(dead_code)] // its `main` is the example's
#[path = "../examples/summary.rs"]
mod summary;

/// What `python/tests/test_summary.py` scans too (a folder is walked as the scan walks
/// it), relative to the repository.
const SCAN_INPUTS: &[&str] = &[
    "tests/corpus/llvm/zlib/zlib.O2.ll.gz",
    "tests/corpus/llvm/zlib/nvptx",
    "tests/fixtures/clang/kernels.json.gz",
    "tests/corpus/cuda/json/candle_affine.json.gz",
];

/// Record fields left out of the golden records: they legitimately differ between runs.
const EXCLUDED_FIELDS: &[&str] = &["seconds"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("capi/ sits in the repository")
        .to_path_buf()
}

fn bless() -> bool {
    std::env::var_os("ILKIT_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Compares `want` with the file at `rel` (or writes it when blessing).
#[track_caller]
fn check_golden(rel: &str, want: &str) {
    let path = root().join(rel);
    if bless() {
        std::fs::write(&path, want).unwrap();
        return;
    }
    let got = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (ILKIT_BLESS=1 writes it)", path.display()));
    if got != want {
        let diff: Vec<String> = got
            .lines()
            .zip(want.lines())
            .enumerate()
            .filter(|(_, (g, w))| g != w)
            .take(5)
            .map(|(i, (g, w))| format!("line {}:\n  file: {g}\n  rust: {w}", i + 1))
            .collect();
        panic!(
            "{rel} is not the Rust API's answer ({} lines in the file, {} from Rust); \
             ILKIT_BLESS=1 rewrites it after an intended change\n{}",
            got.lines().count(),
            want.lines().count(),
            diff.join("\n")
        );
    }
}

#[test]
fn summary_golden_file_is_the_rust_examples_output() {
    let mut want = String::new();
    for line in summary::lines(&root()) {
        want.push_str(&line);
        want.push('\n');
    }
    check_golden("python/tests/summary.golden.txt", &want);
}

/// `s` with the repository's path (and the separator after it) taken out.
fn relative(s: &str, prefix: &str) -> String {
    s.replace(prefix, "")
}

/// The record as one JSON line without [`EXCLUDED_FIELDS`].
fn golden_record(mut r: FileRecord, prefix: &str) -> String {
    r.name = relative(&r.name, prefix);
    r.error = r.error.map(|e| relative(&e, prefix));
    for n in &mut r.notes {
        *n = relative(n, prefix);
    }
    let mut line = scan::record_json(&r);
    for field in EXCLUDED_FIELDS {
        line = without_field(&line, field);
    }
    line
}

/// A flat JSON object's text without the number-valued `field`.
fn without_field(json: &str, field: &str) -> String {
    let key = format!("\"{field}\":");
    let start = json.find(&key).expect("the record has the field");
    let end = start
        + key.len()
        + json[start + key.len()..]
            .find([',', '}'])
            .expect("a number ends the value");
    let (mut a, mut b) = (start, end);
    // take the comma on one side along
    if json[b..].starts_with(',') {
        b += 1;
    } else if json[..a].ends_with(',') {
        a -= 1;
    }
    format!("{}{}", &json[..a], &json[b..])
}

#[test]
fn scan_golden_file_is_the_rust_scans_records() {
    let root = root();
    let prefix = format!("{}{}", root.display(), std::path::MAIN_SEPARATOR);
    let paths: Vec<PathBuf> = SCAN_INPUTS.iter().map(|p| root.join(p)).collect();
    let collected = scan::collect_inputs(&paths);
    let opts = ScanOptions {
        jobs: 1,
        ..ScanOptions::default()
    };
    let records = scan::scan(&collected.inputs, &opts, &scan::NoProgress);
    assert!(records.len() > SCAN_INPUTS.len());
    let mut want = String::new();
    for r in records {
        assert_eq!(r.error, None, "{}", r.name);
        want.push_str(&golden_record(r, &prefix));
        want.push('\n');
    }
    check_golden("python/tests/scan.golden.jsonl", &want);
}

#[test]
fn without_field_takes_out_one_field() {
    assert_eq!(
        without_field(r#"{"a":1,"s":0.5,"z":2}"#, "s"),
        r#"{"a":1,"z":2}"#
    );
    assert_eq!(without_field(r#"{"a":1,"s":0.5}"#, "s"), r#"{"a":1}"#);
    assert_eq!(without_field(r#"{"s":1e-5,"z":2}"#, "s"), r#"{"z":2}"#);
}
