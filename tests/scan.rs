//! `ilkit scan` and `ilkit merge` end to end, through the built binary.

use std::path::PathBuf;
use std::process::Command;

fn ilkit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ilkit"))
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ilkit-scan-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The file-record lines of a scan's JSON Lines (the shard trailer left out).
fn records(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.contains("\"ilkit-scan-record/1\""))
        .collect()
}

/// The value of a summary row (`  blocks      123`).
fn row(text: &[u8], key: &str) -> String {
    String::from_utf8_lossy(text)
        .lines()
        .find(|l| l.trim_start().starts_with(key))
        .unwrap_or_else(|| panic!("no row {key}"))
        .to_string()
}

#[test]
fn default_scan_shows_every_stage() {
    let out = ilkit().arg("scan").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let value = |key: &str| -> u64 {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("{key} in\n{text}"));
        line.split_whitespace()
            .last()
            .unwrap()
            .trim_end_matches('%')
            .parse::<f64>()
            .unwrap() as u64
    };
    for key in [
        "functions (CFGs)",
        "blocks",
        "loops",
        "call-graph nodes",
        "call SCCs",
        "RefSCCs",
        "CGSCC visits (default)",
        "call sites inlined",
        "IL entries",
        "constants shared",
    ] {
        assert!(value(key) > 0, "{key} is zero in\n{text}");
    }
    let json = text
        .lines()
        .find(|l| l.contains("kernels.json.gz"))
        .unwrap();
    assert!(json.trim_start().starts_with("ok"), "{json}");
}

#[test]
fn a_broken_file_is_reported_and_the_scan_goes_on() {
    let d = tmpdir("broken");
    std::fs::write(
        d.join("good.ll"),
        include_str!("../data/default/recursion.ll"),
    )
    .unwrap();
    std::fs::write(
        d.join("good.ptx"),
        include_str!("../data/default/adler32.ptx"),
    )
    .unwrap();
    std::fs::write(d.join("bad.ll"), "define i32 @f( {\n").unwrap();
    let out = ilkit().arg("scan").arg(&d).arg("--json").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines = records(&text);
    assert_eq!(lines.len(), 3, "{text}");
    let bad: serde_json::Value =
        serde_json::from_str(lines.iter().find(|l| l.contains("bad.ll")).unwrap()).unwrap();
    let err = bad["error"].as_str().unwrap();
    assert!(
        err.contains("bad.ll:")
            && err
                .split(':')
                .nth(1)
                .is_some_and(|l| l.parse::<u32>().is_ok()),
        "{err}"
    );
    let good: serde_json::Value =
        serde_json::from_str(lines.iter().find(|l| l.contains("good.ll")).unwrap()).unwrap();
    assert!(good["sccs"].as_u64().unwrap() > 0 && good["error"].is_null());
}

#[test]
fn shards_partition_the_files_and_merge_sums_them() {
    let d = tmpdir("shards");
    for (i, src) in [
        include_str!("../data/default/recursion.ll"),
        include_str!("../data/default/compress.nvptx.O2.ll"),
    ]
    .iter()
    .enumerate()
    {
        std::fs::write(d.join(format!("m{i}.ll")), src).unwrap();
    }
    std::fs::write(d.join("a.ptx"), include_str!("../data/default/adler32.ptx")).unwrap();
    let mut parts = vec![];
    for i in 0..2 {
        let out = ilkit()
            .arg("scan")
            .arg(&d)
            .arg("--json")
            .arg("--shard")
            .arg(format!("{i}/2"))
            .output()
            .unwrap();
        assert!(out.status.success());
        let p = d.join(format!("part{i}.jsonl"));
        std::fs::write(&p, &out.stdout).unwrap();
        parts.push(p);
    }
    let n: usize = parts
        .iter()
        .map(|p| records(&std::fs::read_to_string(p).unwrap()).len())
        .sum();
    assert_eq!(n, 3);
    let whole = ilkit().arg("scan").arg(&d).output().unwrap();
    let merged = ilkit().arg("merge").args(&parts).output().unwrap();
    assert!(merged.status.success());
    let pick = |t: &[u8], key: &str| -> String {
        String::from_utf8_lossy(t)
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap()
            .to_string()
    };
    for key in ["blocks", "call SCCs", "functions (CFGs)"] {
        assert_eq!(pick(&whole.stdout, key), pick(&merged.stdout, key));
    }
}

#[test]
fn jobs_do_not_change_the_report() {
    let one = ilkit()
        .args(["scan", "--json", "--jobs", "1"])
        .output()
        .unwrap();
    let two = ilkit()
        .args(["scan", "--json", "--jobs", "2"])
        .output()
        .unwrap();
    let strip = |b: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(b)
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["seconds"] = serde_json::Value::Null;
                v["wall_seconds"] = serde_json::Value::Null;
                v.to_string()
            })
            .collect()
    };
    assert_eq!(strip(&one.stdout), strip(&two.stdout));
}

#[test]
fn il_files_round_trip_through_the_cli() {
    let d = tmpdir("il");
    let f = d.join("tu.il");
    let out = ilkit()
        .args(["il", "gen", "--scale", "0.05", "--seed", "3", "-o"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dev = d.join("tu.dev.il");
    assert!(ilkit()
        .args(["il", "keep"])
        .arg(&f)
        .arg("--out")
        .arg(&dev)
        .status()
        .unwrap()
        .success());
    let stats = ilkit().args(["il", "stats"]).arg(&f).output().unwrap();
    assert!(String::from_utf8_lossy(&stats.stdout).starts_with("IL table use:"));
    let dump = ilkit().args(["il", "dump"]).arg(&dev).output().unwrap();
    assert!(String::from_utf8_lossy(&dump.stdout).contains("] routine (file scope)"));
    let scan = ilkit().arg("scan").arg(&d).arg("--json").output().unwrap();
    assert!(scan.status.success());
    assert_eq!(records(&String::from_utf8_lossy(&scan.stdout)).len(), 2);
    // A corrupted IL file is an error naming the offset.
    let mut bytes = std::fs::read(&f).unwrap();
    let n = bytes.len();
    bytes.truncate(n / 2);
    std::fs::write(&f, &bytes).unwrap();
    let bad = ilkit().args(["il", "dump"]).arg(&f).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("offset"));
}

/// A folder with a `.json`, a `.json.gz`, a symlink loop, a second path to the same file,
/// and JSON that is no clang AST beside them (`{"a":1}`, a `compile_commands.json`, a
/// large tool output): each real file is scanned once, the loop is cut, the duplicate is
/// noted, the other JSON files are skipped with a note decided from their first bytes,
/// and the scan succeeds. Named on the command line, such a file is an error.
#[test]
fn folders_yield_json_once_and_skip_what_is_not_an_ast() {
    let d = tmpdir("json");
    let gz = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/clang/kernels.json.gz"
    ))
    .unwrap();
    std::fs::write(d.join("kernels.json.gz"), &gz).unwrap();
    let mut plain = Vec::new();
    use std::io::Read;
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut plain)
        .unwrap();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::write(d.join("sub/kernels.json"), &plain).unwrap();
    std::fs::write(d.join("sub/not_an_ast.json"), "{\"a\":1}").unwrap();
    std::fs::write(
        d.join("compile_commands.json"),
        "[{\"directory\": \"/src\", \"file\": \"a.cu\", \"command\": \"clang++ a.cu\"}]",
    )
    .unwrap();
    // A large tool output: its first value alone is longer than detection's head.
    let big = format!("{{\"results\": [{}0]}}", "1,".repeat(400_000));
    std::fs::write(d.join("report.json"), &big).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&d, d.join("sub/loop")).unwrap();
        std::os::unix::fs::symlink(d.join("sub/kernels.json"), d.join("again.json")).unwrap();
    }
    let out = ilkit().arg("scan").arg(&d).arg("--json").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    let recs = records(&text);
    assert_eq!(recs.len(), 2, "{text}");
    assert!(recs.iter().all(|r| r.contains("\"error\":null")), "{text}");
    // The plain JSON is reached twice (its own path first in sorted order is the link
    // `again.json` on unix) and scanned once.
    let plain = recs
        .iter()
        .filter(|l| l.contains("again.json") || l.contains("sub/kernels.json"))
        .count();
    assert_eq!(plain, 1, "{text}");
    for skipped in ["not_an_ast.json", "compile_commands.json", "report.json"] {
        assert!(
            err.lines()
                .any(|l| l.contains(skipped) && l.contains("skipped: not a clang JSON AST")),
            "{skipped}: {err}"
        );
    }
    #[cfg(unix)]
    {
        assert!(err.contains("symbolic link loop"), "{err}");
        assert!(err.contains("scanned once"), "{err}");
    }
    let trailer: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(trailer["schema"], "ilkit-scan-shard/1");
    assert_eq!(trailer["files"], 2);
    assert_eq!(trailer["skipped"].as_array().unwrap().len(), 3, "{trailer}");
    // Named, the same file is an input that fails.
    let named = ilkit()
        .arg("scan")
        .arg(d.join("compile_commands.json"))
        .output()
        .unwrap();
    assert_eq!(named.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&named.stderr).contains("not an input ilkit reads"),
        "{}",
        String::from_utf8_lossy(&named.stderr)
    );
}

#[test]
fn merge_refuses_a_line_that_is_not_a_record() {
    let d = tmpdir("merge-bad");
    let p = d.join("part.jsonl");
    let scan = ilkit()
        .args(["scan", "--json"])
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/default/adler32.ptx"
        ))
        .output()
        .unwrap();
    let mut text = String::from_utf8(scan.stdout).unwrap();
    text.insert_str(0, "{\"a\":1}\n");
    std::fs::write(&p, &text).unwrap();
    let out = ilkit().arg("merge").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("part.jsonl:1:"), "{err}");
    // The same file merged twice is refused too.
    std::fs::write(&p, &text[text.find('\n').unwrap() + 1..]).unwrap();
    let out = ilkit().arg("merge").arg(&p).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a second record"));
}

/// Four shards from a simulated Slurm job array (`--shard auto`), written to one folder
/// and merged with `ilkit merge DIR`, give the unsharded scan's counts; the merged
/// summary reports the shards' real wall times.
#[test]
fn four_slurm_shards_merge_to_the_unsharded_summary() {
    let d = tmpdir("slurm");
    let src = d.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for f in [
        "recursion.ll",
        "compress.nvptx.O2.ll",
        "compress.ptx",
        "adler32.ptx",
    ] {
        std::fs::copy(
            format!("{}/data/default/{f}", env!("CARGO_MANIFEST_DIR")),
            src.join(f),
        )
        .unwrap();
    }
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/clang/kernels.json.gz"
        ),
        src.join("kernels.json.gz"),
    )
    .unwrap();
    let out_dir = d.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let kids: Vec<_> = (0..4)
        .map(|i| {
            ilkit()
                .args(["scan", "--json", "--jobs", "1", "--shard", "auto"])
                .arg(&src)
                .env("SLURM_ARRAY_TASK_ID", (10 + i).to_string())
                .env("SLURM_ARRAY_TASK_MIN", "10")
                .env("SLURM_ARRAY_TASK_MAX", "13")
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, k) in kids.into_iter().enumerate() {
        let out = k.wait_with_output().unwrap();
        assert!(out.status.success());
        std::fs::write(out_dir.join(format!("part{i}.jsonl")), &out.stdout).unwrap();
    }
    let merged = ilkit().arg("merge").arg(&out_dir).output().unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let whole = ilkit().arg("scan").arg(&src).output().unwrap();
    for key in [
        "files ",
        "functions (CFGs)",
        "blocks",
        "edges",
        "loops",
        "call SCCs",
        "RefSCCs",
        "IL entries",
        "IL kept",
        "call sites inlined",
    ] {
        assert_eq!(row(&whole.stdout, key), row(&merged.stdout, key), "{key}");
    }
    assert!(row(&merged.stdout, "shards").ends_with('4'));
    row(&merged.stdout, "wall time, slowest shard");
    row(&merged.stdout, "wall time, shards summed");
}

/// `--html` writes one self-contained page: the summary, the per-file table, at least three
/// inline SVG plots, and nothing fetched from elsewhere.
#[test]
fn html_report_is_one_self_contained_page() {
    let d = tmpdir("html");
    let page = d.join("r.html");
    let out = ilkit()
        .args(["scan", "--html"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.matches("<svg").count() >= 3, "plots");
    assert!(html.contains("<table id=\"files\""));
    assert!(html.contains("kernels.json.gz"));
    for external in ["http:", "https:", "src=", "<link", "@import", "url("] {
        assert!(!html.contains(external), "the page names {external}");
    }
}

/// The library's scheduler: at most `jobs` files in flight, fewer when the input byte
/// budget says so (a file over the budget runs alone), and the same records either way.
#[test]
fn files_in_flight_stay_within_jobs_and_the_byte_budget() {
    use ilkit::scan::{default_inputs, scan, FileRecord, Progress, ScanOptions};
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    #[derive(Default)]
    struct Peak {
        now: AtomicUsize,
        max: AtomicUsize,
    }
    impl Progress for Peak {
        fn file_started(&self, _: &str, _: u64) {
            let n = self.now.fetch_add(1, SeqCst) + 1;
            self.max.fetch_max(n, SeqCst);
        }
        fn file_done(&self, _: &FileRecord) {
            self.now.fetch_sub(1, SeqCst);
        }
    }
    let inputs = default_inputs();
    let strip = |rs: Vec<FileRecord>| -> Vec<FileRecord> {
        rs.into_iter()
            .map(|mut r| {
                r.seconds = 0.0;
                r
            })
            .collect()
    };
    let run = |jobs: usize, budget: Option<u64>| {
        let peak = Peak::default();
        let opts = ScanOptions {
            jobs,
            max_bytes_in_flight: budget,
            ..ScanOptions::default()
        };
        let rs = strip(scan(&inputs, &opts, &peak));
        (rs, peak.max.load(SeqCst))
    };
    let (one, peak1) = run(1, None);
    assert_eq!(peak1, 1);
    let (two, peak2) = run(2, None);
    assert!(peak2 <= 2);
    let (tight, peak_tight) = run(2, Some(1));
    assert_eq!(
        peak_tight, 1,
        "every file is over a 1-byte budget: one at a time"
    );
    // a worker count past the bound runs as the bound: the same records, and no
    // more files in flight than that
    let (many, peak_many) = run(usize::MAX, None);
    assert!(peak_many <= ilkit::scan::MAX_JOBS);
    assert_eq!(one, two);
    assert_eq!(one, tight);
    assert_eq!(one, many);
    assert!(one.iter().all(|r| r.error.is_none()));
}
