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
    let lines: Vec<&str> = text.lines().collect();
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
        .map(|p| std::fs::read_to_string(p).unwrap().lines().count())
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
    assert_eq!(String::from_utf8_lossy(&scan.stdout).lines().count(), 2);
    // A corrupted IL file is an error naming the offset.
    let mut bytes = std::fs::read(&f).unwrap();
    let n = bytes.len();
    bytes.truncate(n / 2);
    std::fs::write(&f, &bytes).unwrap();
    let bad = ilkit().args(["il", "dump"]).arg(&f).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("offset"));
}
